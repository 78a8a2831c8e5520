"""The docs site (docs/, mkdocs.yml): its generated reference matches the code, every output it and the README show
is what the commands print (the getting-started walkthrough run as a script), it is a grounded wiki whose claims
hold, and what MkDocs publishes leaves the sidecars out.

When the reference or the outputs test fails, run `python scripts/docs_reference.py --write` and commit the pages it
rewrites (read their diff: a changed output is a changed behaviour the prose around it may have to follow). When the
claims test fails, read the report: correct the page if the code changed what it says, then `wikiwarden claim
confirm ID --wiki-dir docs` (or `claim retract ID`). Moved evidence does not fail it.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from bot.report.check import render_text
from bot.source.git import GitError, GitRepository
from bot.usecases.check import check_repository
from bot.usecases.config import Overrides

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference", ROOT / "scripts" / "docs_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def outputs() -> dict[Path, dict[str, str]]:
    """Every shown output, the commands run anew (the walkthrough and the demo, once for the module)."""
    blocks: dict[Path, dict[str, str]] = _generator().output_blocks()
    return blocks


def test_the_generated_reference_is_the_codes() -> None:
    generator = _generator()
    differing = generator.differing(generator.reference_blocks())
    assert not differing, (
        f"run `python scripts/docs_reference.py --write`: these pages differ from the code: {differing}"
    )


def test_every_shown_output_is_what_the_command_prints(outputs: dict[Path, dict[str, str]]) -> None:
    """The getting-started walkthrough, each command page's example and the demo's excerpt (README.md,
    docs/index.md), run anew: a command whose output changed fails here, naming the page."""
    generator = _generator()
    shown = {str(page.relative_to(ROOT)) for page in outputs}
    assert {"docs/getting-started.md", "README.md", "docs/index.md"} <= shown
    assert {
        f"docs/reference/commands/{c}.md" for c in ("init", "check", "claim", "ground", "fix", "okf", "demo")
    } <= shown
    differing = generator.differing(outputs)
    assert not differing, (
        "run `python scripts/docs_reference.py --write`: the output these pages show is not what the commands "
        f"print now: {differing}"
    )


def test_a_changed_output_is_found_by_its_page(outputs: dict[Path, dict[str, str]]) -> None:
    """What the test above relies on: one line of one command's output worded otherwise (as a change to the
    command would) makes its page, and only its page, differ; written anew, only that block changes."""
    generator = _generator()
    page = DOCS / "getting-started.md"
    block = outputs[page]["getting-started: fix"]
    line = next(line for line in block.splitlines() if line.startswith("Wrote "))
    drifted = {**outputs, page: {**outputs[page], "getting-started: fix": block.replace(line, line + " (changed)")}}
    assert generator.differing(drifted) == ["docs/getting-started.md"]
    text = page.read_text(encoding="utf-8")
    again = generator.rendered_text(text, drifted[page], page)
    assert again != text
    assert [a for a, b in zip(again.splitlines(), text.splitlines(), strict=True) if a != b] == [line + " (changed)"]


def test_the_walkthrough_shows_what_differs_from_run_to_run_as_one_run(
    outputs: dict[Path, dict[str, str]],
) -> None:
    """Claim ids and commit ids are the same on every run (each made from where it first appeared), the same id is
    the same everywhere it is shown, and no temporary folder is shown."""
    walkthrough = "\n".join(outputs[DOCS / "getting-started.md"].values())
    assert "/tmp/" not in walkthrough and "wikiwarden-docs-" not in walkthrough
    retracted = re.search(r"claim retract (claim_[0-9a-f]{32})", walkthrough)
    assert retracted is not None
    assert walkthrough.count(retracted[1]) >= 5  # added, stale in check, named by its next steps, flagged by fix
    normalize = _generator().output_blocks.__globals__["Normalizer"]("x", Path("/tmp/t"), "/home/you/t")
    normalize.commits = ["a" * 40, "b" * 40]
    once = normalize("/tmp/t: claim_" + "1" * 32 + " claim_" + "2" * 32 + " (bbbbbbbbbbbb) 2031-02-03T04:05:06Z")
    assert once == normalize(
        "/tmp/t: claim_" + "1" * 32 + " claim_" + "2" * 32 + " (bbbbbbbbbbbb) 2031-02-03T04:05:06Z"
    )
    assert once.startswith("/home/you/t: claim_") and "1" * 32 not in once and "b" * 12 not in once
    assert "2031" not in once and len(set(re.findall(r"claim_[0-9a-f]{32}", once))) == 2


def test_every_command_has_its_page_and_every_setting_its_row() -> None:
    from bot.cli import build_parser
    from bot.settings import Settings
    from bot.usecases.config_file import RepoConfig

    generator = _generator()
    commands = set(generator._subcommands(build_parser()))
    pages = {page.stem.replace("-", " ") for page in (DOCS / "reference" / "commands").glob("*.md")}
    assert commands == pages
    configuration = (DOCS / "reference" / "configuration.md").read_text(encoding="utf-8")
    for name in Settings.model_fields:
        assert f"| `WIKIWARDEN_{name.upper()}` |" in configuration, name
    for name in RepoConfig.model_fields:
        assert f"| `{name}" in configuration, name


def test_a_renamed_flag_changes_its_page() -> None:
    """What the test above relies on: a page whose generated part no longer matches is written anew, and only
    that part changes."""
    generator = _generator()
    page = DOCS / "reference" / "commands" / "check.md"
    text = page.read_text(encoding="utf-8")
    parts = generator.reference_blocks()[page]
    row = next(line for line in parts["wikiwarden check"].splitlines() if line.startswith("| `--"))
    flag = row.split("`")[1]
    edited = text.replace(row, row.replace(f"`{flag}`", f"`{flag}-renamed`", 1), 1)
    assert edited != text
    assert generator.rendered_text(edited, parts, page) == text
    prose = text.split("<!-- end generated: wikiwarden check -->", 1)[1]
    assert generator.rendered_text(text + "\nmore prose\n", parts, page).endswith(prose + "\nmore prose\n")


def test_a_page_without_the_markers_is_refused() -> None:
    generator = _generator()
    page = DOCS / "reference" / "commands" / "check.md"
    with pytest.raises(ValueError, match="no place for the generated part 'wikiwarden check'"):
        generator.rendered_text("# check\n\nprose only\n", generator.reference_blocks()[page], page)


def test_the_docs_claims_hold() -> None:
    try:
        repo = GitRepository(ROOT)
    except GitError:
        pytest.skip("not a git checkout (an unpacked source archive)")
    with repo:
        report = check_repository(repo, overrides=Overrides(wiki_dir="docs"))
    assert report.summary["claims"] >= 120
    assert not report.needs_attention, render_text(report)
    grounded_here = {
        "docs/reference/configuration.md",
        *(f"docs/reference/commands/{page.name}" for page in (DOCS / "reference" / "commands").glob("*.md")),
    }
    assert not grounded_here & set(report.ungrounded_pages), "every command page and the configuration page has claims"


def test_the_site_publishes_no_sidecar(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).with_name("mkdocs")
    if not mkdocs.exists():
        pytest.skip("mkdocs is not installed (the dev extra installs it)")
    built = subprocess.run(
        [str(mkdocs), "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, check=False, env={"NO_MKDOCS_2_WARNING": "1", "PATH": ""},
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    published = {p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("*")}
    assert "reference/configuration/index.html" in published
    assert not [p for p in published if "/." in f"/{p}"], "a dot-file or dot-folder was published"
    assert (DOCS / ".claims").is_dir()
