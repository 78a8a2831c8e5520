"""Broken references on docs people write, through the command line as a user meets them: what fails the check
and what is only a note, renames named and rewritten by `fix`, silencing comments, the baseline, history pages,
the repository's `.github/wikiwarden.yml`, and pages too large to read."""

from __future__ import annotations

from urllib.parse import unquote

import oneconfig
import pytest
from conftest import GitRepo
from deadline import finishes

pytestmark = pytest.mark.usefixtures("isolated_cli")

UTIL = "def flatten(items):\n    out = []\n    for xs in items:\n        out.extend(xs)\n    return out\n"
CONFIG = 'wiki_dir: docs\nreferences:\n  exclude: ["docs/legacy/**"]\n'


@pytest.fixture
def docs(repo: GitRepo) -> GitRepo:
    """A repository with hand-written docs in docs/, configured for them, and a package folder `typer-slim/`."""
    repo.write(".github/wikiwarden.yml", CONFIG)
    repo.write("src/util.py", UTIL)
    repo.write("typer-slim/README.md", "# typer-slim\n")
    repo.write("docs/guide.md", "# Guide\n\nThe helpers live in `src/util.py`; call `util.flatten()`.\n")
    repo.write("docs/install.md", "# Install\n\nInstall `typer-slim` with pip, or see `typer-slim/`.\n")
    repo.write("docs/legacy/old.md", "# Old\n\nSee `src/util.py`.\n")
    repo.write("docs/release-notes.md", "# Release notes\n\n## 0.1\n\n* Added `src/util.py` and `typer-slim/`.\n")
    repo.commit("docs", tag="v1")
    return repo


def test_the_config_file_names_the_docs_folder_and_the_flag_overrides_it(docs: GitRepo, cli) -> None:
    run = cli("check", "--repo", docs.root)
    assert run.code == 0, run.err
    assert "Wikiwarden check · docs/" in run.out
    run = cli("check", "--repo", docs.root, "--wiki-dir", "openwiki")
    assert run.code == 2 and "the wiki folder openwiki/ does not exist" in run.err


def test_a_removed_package_folder_named_by_its_bare_word_is_a_note_written_as_a_path_it_fails(
    docs: GitRepo, cli
) -> None:
    docs.remove("typer-slim/README.md")
    docs.commit("typer-slim goes")
    run = cli("check", "--repo", docs.root, "--base", "v1", "--verbose")
    assert run.code == 1
    assert "  ✗ docs/install.md:3  typer-slim/ (typer-slim): removed by this change\n" in run.out
    assert "  · docs/install.md:3  typer-slim: removed by this change\n" in run.out  # the bare word: a note
    assert "a bare word: it may be a package's name or a word, not this folder" in run.out
    assert "release-notes.md:" not in run.out  # history: its references are not checked
    document = cli("check", "--repo", docs.root, "--base", "v1", "--format", "json").json()
    assert [(r["text"], r["attention"]) for r in document["broken_references"]] == [
        ("typer-slim", False),
        ("typer-slim/", True),
    ]
    assert document["summary"]["broken_references"] == 1 and document["summary"]["reference_notes"] == 1


def test_a_rename_fails_the_check_names_the_new_path_and_fix_rewrites_it(docs: GitRepo, cli) -> None:
    docs.git("mv", "src/util.py", "src/helpers.py")
    docs.write("src/helpers.py", UTIL.replace("def flatten(", "def flatten_all("))
    docs.commit("util becomes helpers")
    run = cli("check", "--repo", docs.root, "--base", "v1")
    assert run.code == 1
    assert "  ✗ docs/guide.md:3  src/util.py: renamed by this change to src/helpers.py\n" in run.out
    assert "util.flatten() (util.flatten): renamed by this change to helpers.flatten_all" in run.out
    assert "legacy" not in run.out  # excluded by the config file
    fixed = cli("fix", "--repo", docs.root, "--base", "v1")
    assert fixed.code == 0, fixed.out
    assert "✎ docs/guide.md:3  src/util.py → src/helpers.py" in fixed.out
    assert (
        docs.read("docs/guide.md")
        == b"# Guide\n\nThe helpers live in `src/helpers.py`; call `helpers.flatten_all()`.\n"
    )
    assert cli("check", "--repo", docs.root, "--base", "v1").code == 0


def test_fix_exits_as_check_does_on_what_it_cannot_rewrite(docs: GitRepo, cli) -> None:
    docs.remove("src/util.py")
    docs.commit("util goes")
    assert cli("check", "--repo", docs.root, "--base", "v1").code == 1
    fixed = cli("fix", "--repo", docs.root, "--base", "v1")
    assert fixed.code == 1
    assert "! docs/guide.md:3  src/util.py" in fixed.out and "removed: a person must correct the page" in fixed.out
    assert "2 references still need a person." in fixed.out


def test_an_ignore_comment_silences_a_line(docs: GitRepo, cli) -> None:
    docs.write("docs/guide.md", "# Guide\n\nThe helpers live in `src/util.py`. <!-- wikiwarden: ignore -->\n")
    docs.commit("silenced", tag="v2")
    docs.remove("src/util.py")
    docs.commit("util goes")
    assert cli("check", "--repo", docs.root, "--base", "v2").code == 0


def test_a_baseline_lets_an_existing_repository_start_clean(docs: GitRepo, cli) -> None:
    docs.write("docs/guide.md", "# Guide\n\nSee `src/gone.py` and [the API](api.md).\n")
    docs.commit("two dead references")
    assert cli("check", "--repo", docs.root).code == 1
    written = cli("check", "--repo", docs.root, "--write-baseline", docs.root / ".github/wikiwarden-baseline.json")
    assert written.code == 0 and "wrote" in written.out and "2 broken references" in written.out
    docs.write(".github/wikiwarden.yml", CONFIG + "baseline: .github/wikiwarden-baseline.json\n")
    docs.commit("a baseline")
    run = cli("check", "--repo", docs.root, "--verbose")
    assert run.code == 0, run.out
    assert "in the baseline (.github/wikiwarden-baseline.json)" in run.out
    summed = cli("check", "--repo", docs.root)  # without --verbose: summed up as what they are, known breakage
    assert (
        summed.code == 0 and "2 references in the baseline: known breakage, broken before it was written" in summed.out
    )
    assert "not for certain" not in summed.out
    docs.write("docs/install.md", "# Install\n\nSee `src/also-gone.py`.\n")  # new breakage still fails
    assert cli("check", "--repo", docs.root).code == 1
    again = cli("check", "--repo", docs.root, "--write-baseline", docs.root / ".github/wikiwarden-baseline.json")
    assert "3 broken references" in again.out  # the old baseline is not read while a new one is written
    docs.remove(".github/wikiwarden-baseline.json")
    missing = cli("check", "--repo", docs.root)
    assert missing.code == 2
    assert "the baseline .github/wikiwarden-baseline.json does not exist in the working tree" in missing.err
    assert "wikiwarden check --write-baseline .github/wikiwarden-baseline.json" in missing.err


BASELINE = ".github/wikiwarden-baseline.json"
EVERY_FACE = [
    ("check",), ("fix", "--dry-run", "--model", "none"), ("ground", "--dry-run"),
    ("ground", "--model", "none"), ("okf", "validate"), ("okf", "sync", "--dry-run"), ("claim", "list"),
]  # fmt: skip


def _break_the_baseline(docs: GitRepo, how: str) -> str:
    """The baseline the config names made unusable `how`; the reason every face must give."""
    path = docs.root / BASELINE
    if how == "missing":
        return f"the baseline {BASELINE} does not exist in the working tree"
    if how == "folder":
        path.mkdir()
        (path / "x.json").write_text("{}")
        return f"the baseline {BASELINE} is not a regular file in the working tree"
    if how == "symlink":
        outside = docs.root.parent / "outside.json"
        outside.write_text('{"format": 1, "references": []}\n')
        path.symlink_to(outside)
        return f"the baseline {BASELINE} is not a regular file in the working tree"
    if how == "not JSON":
        path.write_text("format: 1\n")
        return f"{BASELINE}: not JSON (JSONDecodeError)"
    path.write_bytes(b'{"format": 1, "references": []}' + b" " * (5 << 20))
    return f"{BASELINE}: {path.stat().st_size:,} bytes; a baseline may hold at most 4,194,304"


@pytest.mark.parametrize("how", ["missing", "folder", "symlink", "not JSON", "5 MB"])
def test_every_face_refuses_a_baseline_that_cannot_be_used_alike(docs: GitRepo, cli, how: str) -> None:
    """`ground --dry-run` and `okf validate` used to pass a broken `baseline:` by (exit 0) where check and fix
    refused it (exit 2): every command that reads the settings now reads the baseline as check does."""
    docs.write(".github/wikiwarden.yml", CONFIG + f"baseline: {BASELINE}\n")
    reason = _break_the_baseline(docs, how)
    for face in EVERY_FACE:
        run = cli(*face, "--repo", docs.root)
        assert (run.code, run.out) == (2, ""), (face, run)
        assert run.err.startswith(f"wikiwarden: error: {reason}") and run.err.count("\n") == 1, (face, run.err)


def test_a_config_that_cannot_be_used_is_an_error_saying_why(docs: GitRepo, cli) -> None:
    docs.write(".github/wikiwarden.yml", "wiki_dir: docs\nreferences:\n  exclued: []\n")
    run = cli("check", "--repo", docs.root)
    assert run.code == 2
    assert run.err.startswith("wikiwarden: error: .github/wikiwarden.yml: `references.exclued`")
    assert cli("fix", "--repo", docs.root).code == 2 and cli("claim", "list", "--repo", docs.root).code == 2


def test_a_page_too_large_to_read_is_said(docs: GitRepo, cli) -> None:
    docs.write("docs/huge.md", "# Huge\n\n" + "word " * 300)
    run = cli("check", "--repo", docs.root, "--max-file-size", "1000")
    size = len(docs.read("docs/huge.md"))
    assert f"Not read: docs/huge.md: {size:,} bytes, over the limit of 1,000" in run.out


def test_a_link_as_the_docs_site_resolves_it_is_no_broken_reference(docs: GitRepo, cli) -> None:
    """httpx's docs/async.md links `../advanced/transports#asgitransport`, which works on the built site."""
    docs.write("docs/advanced/transports.md", "# Transports\n\n## ASGITransport\n")
    docs.write("docs/async.md", "# Async\n\nSee [the transport](../advanced/transports#asgitransport).\n")
    assert cli("check", "--repo", docs.root).code == 0
    docs.write("docs/async.md", "# Async\n\nSee [the transport](../advanced/transport#asgitransport).\n")
    run = cli("check", "--repo", docs.root)
    assert run.code == 1 and "../advanced/transport#asgitransport" in run.out


def test_a_working_file_the_program_makes_is_a_note_on_a_full_sweep(repo: GitRepo, cli) -> None:
    """openwiki's own wiki names `openwiki/_plan.md` and `openwiki/.langsmith.json`, made at run time."""
    repo.write("src/a.py", "x = 1\n")
    repo.write("openwiki/agent.md", "# Agent\n\nIt writes `openwiki/_plan.md` and reads `openwiki/.langsmith.json`.\n")
    repo.commit("a wiki")
    run = cli("check", "--repo", repo.root, "--verbose")
    assert run.code == 0, run.out
    assert run.out.count("a working file never in this repository's history: made at run time") == 2
    repo.write("openwiki/_plan.md", "# Plan\n")
    repo.commit("a plan, committed once")
    repo.remove("openwiki/_plan.md")
    repo.commit("and gone")
    assert cli("check", "--repo", repo.root).code == 1  # once in the history, it is a file that went


def test_a_folder_of_no_page_it_reads_and_the_repositorys_top_are_errors_saying_what_to_do(repo: GitRepo, cli) -> None:
    repo.write("docs/guide.adoc", "= Guide\n")
    repo.write("docs/notes.txt", "notes\n")
    repo.write("docs/more.txt", "more\n")
    repo.commit("asciidoc docs")
    run = cli("check", "--repo", repo.root, "--wiki-dir", "docs")
    assert run.code == 2
    assert "docs/ holds no page Wikiwarden reads" in run.err and "(2 .txt, 1 .adoc)" in run.err
    top = cli("check", "--repo", repo.root, "--wiki-dir", ".")
    assert top.code == 2 and "cannot be the repository's top" in top.err and "Name the folder" in top.err
    repo.write("docs/.hidden/x.bin", "x")
    repo.remove("docs/guide.adoc")
    repo.remove("docs/notes.txt")
    repo.remove("docs/more.txt")
    repo.write("docs/.keep", "")
    assert cli("check", "--repo", repo.root, "--wiki-dir", "docs").code == 0  # nothing at all: nothing to check


def test_one_config_file_the_command_line_and_the_hooks_command(repo: GitRepo, cli) -> None:
    """tests/oneconfig.py: the same answer as the pre-commit hook (tests/test_precommit.py), the Action
    (tests/e2e/test_action_e2e.py) and the App (tests/e2e/test_config_e2e.py) give from the same file."""
    for path, text in oneconfig.BEFORE.items():
        repo.write(path, text)
    repo.commit("before", tag="before")
    for path in oneconfig.DELETED:
        repo.git("rm", "-q", path)
    hook = cli("check", "--repo", repo.root, "--staged", "--format", "json")  # the hook's entry, as it runs
    repo.commit("after", tag="after")
    check = cli("check", "--repo", repo.root, "--base", "before", "--head", "after", "--format", "json")
    for run in (hook, check):
        assert run.code == 1, run.err
        found = [(r["page"], r["line"], r["text"], r["attention"]) for r in run.json()["broken_references"]]
        assert found == oneconfig.EXPECTED
        assert run.json()["wiki_dir"] == "docs"


RST_PAGE = """Guide
=====

The helpers live in ``src/util.py``; :func:`util.flatten` flattens.
See :doc:`install` and :doc:`/api/index`.

.. literalinclude:: ../../src/util.py
"""


def test_restructuredtext_pages_have_their_references_checked_and_renames_caught(repo: GitRepo, cli) -> None:
    repo.write("src/util.py", UTIL)
    repo.write("docs/source/conf.py", "project = 'x'\n")
    repo.write("docs/source/guide.rst", RST_PAGE)
    repo.write("docs/source/install.rst", "Install\n=======\n")
    repo.write("docs/source/api/index.rst", "API\n===\n")
    repo.commit("a Sphinx site", tag="v1")
    run = cli("check", "--repo", repo.root, "--wiki-dir", "docs")
    assert run.code == 0, run.out  # :doc: resolves as Sphinx does (from the page, and from conf.py's folder)
    assert "the references of 3 pages checked" in run.out
    ground = cli("ground", "--repo", repo.root, "--wiki-dir", "docs")
    assert "docs/ holds 3 reStructuredText pages: claims are kept on Markdown pages only" in ground.out
    repo.git("mv", "src/util.py", "src/helpers.py")
    repo.commit("util becomes helpers")
    renamed = cli("check", "--repo", repo.root, "--wiki-dir", "docs", "--base", "v1")
    assert renamed.code == 1
    assert "  ✗ docs/source/guide.rst:4  src/util.py: renamed by this change to src/helpers.py\n" in renamed.out
    assert "docs/source/guide.rst:7  ../../src/util.py (src/util.py): renamed by this change" in renamed.out
    fixed = cli("fix", "--repo", repo.root, "--wiki-dir", "docs", "--base", "v1")
    assert fixed.code == 0, fixed.out
    assert b"``src/helpers.py``" in repo.read("docs/source/guide.rst")
    assert b".. literalinclude:: ../../src/helpers.py" in repo.read("docs/source/guide.rst")


def test_what_still_works_under_its_old_name_is_not_broken(repo: GitRepo, cli) -> None:
    """click 8.2 deprecated `BaseCommand`, still answered by the package's `__getattr__` (its `main` with it); a
    commit that leaves a file unparsable (rich's `style.py`, March 2020) removed nothing it seems to lack."""
    command = "class BaseCommand:\n    def main(self, args):\n        return self.invoke(args)\n"
    style = "class Style:\n    def parse(cls, text):\n        return cls(text)\n"
    repo.write("src/click/__init__.py", "from .core import BaseCommand\n")
    repo.write("src/click/core.py", command)
    repo.write("src/rich/style.py", style)
    repo.write("docs/api.md", "# API\n\nCall `click.BaseCommand.main()` and `rich.style.Style.parse()`.\n")
    repo.commit("code and docs", tag="v1")
    repo.write("src/click/core.py", command.replace("class BaseCommand:", "class Command:"))
    repo.write(
        "src/click/__init__.py",
        'from .core import Command\n\n\ndef __getattr__(name):\n    if name == "BaseCommand":\n        return Command\n'
        "    raise AttributeError(name)\n",
    )
    repo.write("src/rich/style.py", style.replace("class Style:\n", 'class Style:\n        """A style."""\n'))
    repo.commit("deprecate BaseCommand; a docstring indented too far")
    run = cli("check", "--repo", repo.root, "--wiki-dir", "docs", "--base", "v1")
    assert run.code == 0, run.out
    repo.write("src/click/__init__.py", "from .core import Command\n")  # no longer answered for: it went
    repo.commit("BaseCommand gone")
    gone = cli("check", "--repo", repo.root, "--wiki-dir", "docs", "--base", "v1")
    assert gone.code == 1 and "click.BaseCommand.main()" in gone.out and "Style.parse" not in gone.out


HOSTILE = "src/x) [click me](https:/evil.example) (.py"


def _markdown(text: str) -> tuple[list[str], list[str]]:
    """The page's link destinations and code spans, as markdown-it reads them."""
    from markdown_it import MarkdownIt

    children = [c for t in MarkdownIt("commonmark").parse(text) if t.type == "inline" for c in t.children or []]
    links = [str(c.attrs["href"]) for c in children if c.type == "link_open"]
    return links, [c.content for c in children if c.type == "code_inline"]


@pytest.mark.parametrize("new", [HOSTILE, "src/a`b.py"])
def test_fix_writes_a_renamed_path_as_the_one_link_and_code_span_it_is(repo: GitRepo, cli, new: str) -> None:
    """A rename to a name made to look like Markdown (the review's ``src/x) [click me](https:/evil.example) (.py``)
    or holding a backtick: fix writes it escaped, the page has exactly the link and code span intended, and the
    check passes on the fixed page (the link and the span name the renamed file)."""
    repo.write("src/util.py", UTIL)
    repo.write("docs/source.md", "# Source\n\nRead `src/util.py` ([here](../src/util.py)).\n")
    repo.commit("a page naming the code", tag="v1")
    repo.remove("src/util.py")
    repo.write(new, UTIL)  # git sees the rename (the review's name holds a folder: `src/x) [click me](https:`)
    repo.commit("renamed")
    run = cli("check", "--repo", repo.root, "--wiki-dir", "docs", "--base", "v1")
    assert run.code == 1 and f"src/util.py: renamed by this change to {new}\n" in run.out
    fixed = cli("fix", "--repo", repo.root, "--wiki-dir", "docs", "--base", "v1")
    assert fixed.code == 0, fixed.out
    links, codes = _markdown(repo.read("docs/source.md").decode())
    assert [unquote(link) for link in links] == ["../" + new] and codes == [new]
    run = cli("check", "--repo", repo.root, "--wiki-dir", "docs", "--base", "v1")
    assert run.code == 0, run.out


HOSTILE_GLOB = "**a**a**a**a**a**a**a**a**a**a**b"  # 33 bytes: a backtracking regex took years on a name of 40 `a`s


def test_a_hostile_exclude_pattern_against_a_long_page_name_does_not_stop_the_check(docs: GitRepo) -> None:
    docs.write(".github/wikiwarden.yml", f'wiki_dir: docs\nreferences:\n  exclude: ["{HOSTILE_GLOB}"]\n')
    docs.write(f"docs/{'a' * 40}.md", "# A\n\nSee `src/util.py`.\n")
    docs.commit("a page of forty a's")
    # the command line in a child process: a hang is killed and fails the test
    code, out, err = finishes("", 60, ("-m", "bot", "check", "--repo", str(docs.root))).split("\n", 2)
    assert code == "0", err
    assert "Wikiwarden check · docs/" in out


def test_too_many_or_too_long_exclude_patterns_are_a_config_error(docs: GitRepo, cli) -> None:
    many = ", ".join(f'"p{k}"' for k in range(1001))
    docs.write(".github/wikiwarden.yml", f"wiki_dir: docs\nreferences:\n  exclude: [{many}]\n")
    run = cli("check", "--repo", docs.root)
    assert run.code == 2 and run.err.count("\n") == 1
    assert "1,001 patterns; there may be at most 1,000" in run.err
    docs.write(".github/wikiwarden.yml", f'wiki_dir: docs\nreferences:\n  history: ["{"a" * 1001}"]\n')
    run = cli("check", "--repo", docs.root)
    assert run.code == 2 and run.err.count("\n") == 1
    assert "a pattern of 1,001 characters; a pattern may have at most 1,000" in run.err


def test_an_ignore_file_over_the_limits_is_refused_in_one_line(docs: GitRepo, cli) -> None:
    docs.write(".openwikiignore", "x\n" * 1001)
    run = cli("check", "--repo", docs.root)
    assert (run.code, run.err) == (
        2, "wikiwarden: error: .openwikiignore: more than 1,000 patterns; there may be at most that many\n"
    )  # fmt: skip
