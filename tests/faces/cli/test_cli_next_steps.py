"""A failing `wikiwarden check` (text, the default; the pre-commit hook's `check --staged` too) ends its report with
what to do next: the commands to run, with the check's own `--repo`, `--wiki-dir` and base."""

from __future__ import annotations

import pytest
from clitools import added_id
from conftest import GitRepo

CODE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"  # b() is lines 5-6
STALE = CODE.replace("return 2", "return 3")
PAGE = "# A\n\n`b()` returns 2.\n"

pytestmark = pytest.mark.usefixtures("isolated_cli")


@pytest.fixture
def grounded(repo: GitRepo, cli) -> tuple[GitRepo, str]:
    """A page in docs/wiki claiming what b() returns, committed and tagged v1."""
    repo.write("src/a.py", CODE)
    repo.write("docs/wiki/a.md", PAGE)
    claim = added_id(
        cli(
            "claim",
            "add",
            "--repo",
            repo.root,
            "--wiki-dir",
            "docs/wiki",
            "a.md",
            "b returns 2.",
            "repo://src/a.py#L5-L6",
        )
    )
    repo.commit("code and wiki", tag="v1")
    return repo, claim


def test_a_failing_check_ends_with_the_commands_to_run(grounded, cli) -> None:
    repo, claim = grounded
    options = f"--repo {repo.root} --wiki-dir docs/wiki"
    assert cli("check", *options.split()).out.count("What to do") == 0  # nothing needs attention: nothing to do
    repo.write("src/a.py", STALE)
    run = cli("check", *options.split(), "--base", "v1")
    assert run.code == 1
    report, steps = run.out.split("\n\nWhat to do:\n")
    assert "✗ stale" in report
    assert steps.splitlines() == [
        f"  stale, unresolved: `wikiwarden claim show {claim} {options} --base v1` shows what changed; "
        f"`wikiwarden fix {options} --base v1` decides with a model,",
        f"    or decide by hand: `wikiwarden claim confirm {claim} {options} --base v1` (it still holds) or "
        f"`wikiwarden claim retract {claim} {options}` (it does not; correct the page)",
    ]
    # the commands it names run as they are
    shown = cli("claim", "show", claim, *options.split(), "--base", "v1")
    assert shown.code == 1 and "-    return 2" in shown.out
    for fmt in ("markdown", "json", "github", "sarif"):  # the other formats are read by programs and GitHub
        assert "What to do" not in cli("check", *options.split(), "--format", fmt).out, fmt


def test_the_pre_commit_hooks_check_names_its_base_head(grounded, cli) -> None:
    repo, _claim = grounded
    repo.write("src/a.py", STALE)
    repo.git("add", "src/a.py")
    run = cli("check", "--repo", repo.root, "--wiki-dir", "docs/wiki", "--staged")
    assert run.code == 1
    assert f"`wikiwarden fix --repo {repo.root} --wiki-dir docs/wiki --base HEAD` decides with a model" in run.out


def test_a_broken_reference_says_how_to_silence_a_false_alarm(grounded, cli) -> None:
    repo, _ = grounded
    repo.write("src/a.py", "def a():\n    return 1\n")  # b() removed: its claim is unresolved, the page names it
    run = cli("check", "--repo", repo.root, "--wiki-dir", "docs/wiki", "--base", "v1")
    assert run.code == 1
    assert run.out.endswith(
        "  broken references: correct the page, or silence a false alarm with `<!-- wikiwarden: ignore -->` on its "
        "line\n    (`<!-- wikiwarden: ignore-next-line -->` on the line before)\n"
    )
