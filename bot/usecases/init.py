"""`wikiwarden init`: a repository's first settings, written for the docs folder it has, asking nothing.

It finds the docs folder (an OpenWiki wiki, MkDocs' `docs_dir`, the folder of Sphinx's `conf.py`, else the usual
names), and plans three files: `.github/wikiwarden.yml` naming it, the GitHub Actions workflow, and the pre-commit
entry. A file that exists is never overwritten: the plan says what to add by hand instead. Pure but for reading
the working tree through its snapshot.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .. import __version__
from ..claims.pages import CONFIG_PATH, DEFAULT_WIKI_DIR
from ..claims.snapshot import Kind, Snapshot
from ..ground.formats import page_kind

WORKFLOW_PATH = ".github/workflows/wikiwarden.yml"
PRE_COMMIT_PATH = ".pre-commit-config.yaml"
_DOCS_DIR = re.compile(r"^docs_dir:[ \t]*['\"]?([^'\"#\s]+)", re.M)
_USUAL = ("docs", "doc", "documentation", "wiki")

CONFIG_TEMPLATE = """\
# Wikiwarden's settings, read by the command line, the pre-commit hook, the GitHub Action and the App.
wiki_dir: {wiki_dir}
references:
  # pages whose references are never checked (gitignore-style patterns of repository paths):
  exclude: []
  # more pages that are history (changelogs and release notes are known by name):
  history: []
# An existing repository can start clean: `wikiwarden check --write-baseline .github/wikiwarden-baseline.json`,
# then name the file here; the references it holds are notes, and only new breakage fails.
# baseline: .github/wikiwarden-baseline.json
"""

# What the written files pin: the release this package is (its tag), the Action by its major tag (docs/release.md).
PRE_COMMIT_REV = f"v{__version__}"
ACTION_REF = f"v{__version__.split('.')[0]}"

WORKFLOW_TEMPLATE = """\
# Wikiwarden checks what each push and pull request did to the docs in {wiki_dir}/.
name: Wikiwarden
on:
  push:
    branches: [{branch}]
  pull_request:
permissions:
  contents: read
jobs:
  docs:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: wikiwarden/wikiwarden@{action_ref}  # the major tag, moved to every release of it
"""

PRE_COMMIT_ENTRY = f"""\
  - repo: https://github.com/wikiwarden/wikiwarden
    rev: {PRE_COMMIT_REV}  # this release's tag (`pre-commit autoupdate` moves it)
    hooks:
      - id: wikiwarden
"""
PRE_COMMIT_TEMPLATE = "repos:\n" + PRE_COMMIT_ENTRY


@dataclass
class InitPlan:
    """What `init` found and will write (only files that do not exist), and what it leaves, saying why."""

    wiki_dir: str
    found_by: str
    writes: dict[str, str] = field(default_factory=dict)
    kept: list[tuple[str, str]] = field(default_factory=list)  # (path, what to do by hand)


def _holds_pages(snapshot: Snapshot, folder: str) -> bool:
    entry = snapshot.entry(folder)
    if entry is None or entry.kind is not Kind.DIRECTORY:
        return False
    return any(e.kind is Kind.FILE and page_kind(p) is not None for p, e in snapshot.walk(folder))


def find_docs(snapshot: Snapshot) -> tuple[str, str] | None:
    """The docs folder and how it was found, or None."""
    if _holds_pages(snapshot, DEFAULT_WIKI_DIR):
        return DEFAULT_WIKI_DIR, "an OpenWiki wiki"
    mkdocs = next((n for n in ("mkdocs.yml", "mkdocs.yaml") if (e := snapshot.entry(n)) and e.kind is Kind.FILE), None)
    if mkdocs is not None:
        named = _DOCS_DIR.search(snapshot.read(mkdocs).decode("utf-8", "replace"))
        folder = named.group(1).strip("/") if named else "docs"
        if _holds_pages(snapshot, folder):
            return folder, f"the docs_dir of {mkdocs}"
    for folder in _USUAL:
        for sphinx in (f"{folder}/conf.py", f"{folder}/source/conf.py"):
            if (e := snapshot.entry(sphinx)) and e.kind is Kind.FILE:
                return folder, f"Sphinx's {sphinx}"
    for folder in _USUAL:
        if _holds_pages(snapshot, folder):
            return folder, "its name"
    return None


def plan_init(snapshot: Snapshot, wiki_dir: str | None = None, branch: str = "main") -> InitPlan:
    """The plan for a working tree: `wiki_dir` when given, else the docs folder found (ValueError when none)."""
    if wiki_dir is not None:
        plan = InitPlan(wiki_dir, "--wiki-dir")
    else:
        found = find_docs(snapshot)
        if found is None:
            raise ValueError(
                "no docs folder found (no openwiki/, no MkDocs or Sphinx site, no docs/ or doc/ with pages): name "
                "it with --wiki-dir"
            )
        plan = InitPlan(*found)
    wanted = {
        CONFIG_PATH: CONFIG_TEMPLATE.format(wiki_dir=plan.wiki_dir),
        WORKFLOW_PATH: WORKFLOW_TEMPLATE.format(
            wiki_dir=plan.wiki_dir, branch=json.dumps(branch), action_ref=ACTION_REF
        ),
        PRE_COMMIT_PATH: PRE_COMMIT_TEMPLATE,
    }
    for path, content in wanted.items():
        entry = snapshot.entry(path)
        if entry is None:
            plan.writes[path] = content
        elif entry.kind is Kind.SYMLINK:
            plan.kept.append((path, "a symlink, or under one: never written through"))
        elif path == PRE_COMMIT_PATH and entry.kind is Kind.FILE and b"wikiwarden" in snapshot.read(path):
            plan.kept.append((path, "already runs Wikiwarden"))
        elif path == PRE_COMMIT_PATH:
            plan.kept.append((path, "exists: add this entry under `repos:`\n" + PRE_COMMIT_ENTRY.rstrip("\n")))
        else:
            plan.kept.append((path, "exists: left as it is"))
    return plan
