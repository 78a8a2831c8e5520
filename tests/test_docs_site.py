"""The docs site (docs/, mkdocs.yml): its generated reference matches the code, it is a grounded wiki whose claims
hold, and what MkDocs publishes leaves the sidecars out.

When the reference test fails, run `python scripts/docs_reference.py` and commit the pages it rewrites. When the
claims test fails, read the report: correct the page if the code changed what it says, then `wikiwarden claim
confirm ID --wiki-dir docs` (or `claim retract ID`). Moved evidence does not fail it.
"""

from __future__ import annotations

import importlib.util
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


def test_the_generated_reference_is_the_codes() -> None:
    generator = _generator()
    differing = [
        str(page.relative_to(ROOT))
        for page, parts in generator.blocks().items()
        if page.read_text(encoding="utf-8") != generator.rendered(page, parts)
    ]
    assert not differing, f"run `python scripts/docs_reference.py`: these pages differ from the code: {differing}"


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
    parts = generator.blocks()[page]
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
        generator.rendered_text("# check\n\nprose only\n", generator.blocks()[page], page)


def test_the_docs_claims_hold() -> None:
    try:
        repo = GitRepository(ROOT)
    except GitError:
        pytest.skip("not a git checkout (an unpacked source archive)")
    with repo:
        report = check_repository(repo, overrides=Overrides(wiki_dir="docs"))
    assert report.summary["claims"] >= 25
    assert not report.needs_attention, render_text(report)


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
