"""`wikiwarden init`: a repository's first settings, written for the docs folder it has, asking nothing.

It finds the docs folder (an OpenWiki wiki, MkDocs' `docs_dir`, the folder of Sphinx's `conf.py`, else the usual
names), and plans three files: `.github/wikiwarden.yml` naming it, the GitHub Actions workflow, and the pre-commit
entry. A file that exists is never overwritten: the plan says what to add by hand instead. A folder outside the
repository (`docs_dir: ../docs`, an absolute path) or a symlink (which may point anywhere) is never listed nor
named: the plan says so in one line each. Pure but for reading the working tree through its snapshot.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .. import __version__
from ..claims.pages import CONFIG_PATH, DEFAULT_WIKI_DIR, normalize_wiki_dir
from ..claims.snapshot import Kind, Snapshot
from ..ground.formats import page_kind
from ..ground.site import Site
from .site import snapshot_site

WORKFLOW_PATH = ".github/workflows/wikiwarden.yml"
PRE_COMMIT_PATH = ".pre-commit-config.yaml"
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
    site: list[str] = field(default_factory=list)  # what the site's builder leaves out, as checks will read it
    notes: list[str] = field(default_factory=list)  # what was not read, and why (a folder outside, a symlink)


def _symlinked(snapshot: Snapshot, path: str) -> bool:
    """Whether `path` is a symlink or lies under one (the snapshot says so of a path under a symlinked folder)."""
    entry = snapshot.entry(path)
    return entry is not None and entry.kind is Kind.SYMLINK


def _holds_pages(snapshot: Snapshot, folder: str, notes: list[str], named: str) -> bool:
    """Whether `folder` (a normalised folder of the repository) holds pages; a symlink, or a folder under one, is
    not listed: said in `notes` (`named`: how the folder came to be looked at)."""
    entry = snapshot.entry(folder)
    if entry is not None and entry.kind is Kind.SYMLINK:
        said = f" {folder} is a symlink (or lies under one): not followed"
        if not any(note.endswith(said) for note in notes):
            notes.append(named + said)
        return False
    if entry is None or entry.kind is not Kind.DIRECTORY:
        return False
    return any(e.kind is Kind.FILE and page_kind(p) is not None for p, e in snapshot.walk(folder))


def _inside(folder: str) -> str | None:
    """`folder` (as a config names it) as a folder inside the repository, or None: absolute, `~`, a drive, an
    escape (`..`), `.git` or the top."""
    if folder.startswith(("/", "\\", "~")) or re.match(r"[A-Za-z]:", folder):
        return None
    try:
        return normalize_wiki_dir(folder)
    except ValueError:
        return None


def find_docs(snapshot: Snapshot, notes: list[str] | None = None, site: Site | None = None) -> tuple[str, str] | None:
    """The docs folder and how it was found, or None; what was not read (a folder outside the repository, a
    symlink) is said in `notes`, one line each."""
    said: list[str] = [] if notes is None else notes
    if _holds_pages(snapshot, DEFAULT_WIKI_DIR, said, "the wiki folder"):
        return DEFAULT_WIKI_DIR, "an OpenWiki wiki"
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        if _symlinked(snapshot, name):
            said.append(f"{name} is a symlink: not read")
    site = site if site is not None else snapshot_site(snapshot)
    if site.kind == "mkdocs" and site.docs_dir is not None:
        folder = _inside(site.docs_dir)
        if folder is None:
            said.append(
                f"{site.config} names docs_dir {site.docs_dir}, which is not a folder inside the repository: not read"
            )
        elif _holds_pages(snapshot, folder, said, f"{site.config}'s docs_dir"):
            return folder, f"the docs_dir of {site.config}"
    for folder in _USUAL:
        if _symlinked(snapshot, folder):
            continue  # said below, once
        for sphinx in (f"{folder}/conf.py", f"{folder}/source/conf.py"):
            if (e := snapshot.entry(sphinx)) and e.kind is Kind.FILE:
                return folder, f"Sphinx's {sphinx}"
    for folder in _USUAL:
        if _holds_pages(snapshot, folder, said, "the folder"):
            return folder, "its name"
    return None


def site_notes(snapshot: Snapshot, site: Site, wiki_dir: str) -> list[str]:
    """What the site's builder does not publish of the docs folder's pages, as checks will treat it: pages the site
    excludes are not checked as pages (an include fragment is read through the pages including it), blog posts are
    history; and what of its configuration could not be read."""
    notes = [f"{problem} (read as far as it could be)" for problem in site.problems]
    if site.kind is None or site.docs_dir != wiki_dir:
        return notes
    pages = [p for p, e in snapshot.walk(wiki_dir) if e.kind is Kind.FILE and page_kind(p) is not None]
    excluded = [p for p in pages if site.excluded(p) and not any(s.startswith(".") for s in p.split("/"))]
    if excluded:
        shown = ", ".join(excluded[:3]) + (f" and {len(excluded) - 3} more" if len(excluded) > 3 else "")
        notes.append(
            f"{len(excluded)} page{'s' if len(excluded) != 1 else ''} the site excludes ({shown}): not checked as "
            "pages; an include fragment is read through the pages including it"
        )
    posts = [p for p in pages if site.is_post(p)]
    if posts:
        notes.append(f"{len(posts)} blog post{'s' if len(posts) != 1 else ''} under {site.post_dirs[0]}/: history, "
                     "never bound or rewritten")  # fmt: skip
    return notes


def plan_init(snapshot: Snapshot, wiki_dir: str | None = None, branch: str = "main") -> InitPlan:
    """The plan for a working tree: `wiki_dir` when given, else the docs folder found (ValueError when none)."""
    site = snapshot_site(snapshot)
    notes: list[str] = []
    if wiki_dir is not None:
        if _symlinked(snapshot, wiki_dir):
            raise ValueError(
                f"the wiki folder {wiki_dir} is a symlink (or lies under one); init neither reads nor names a folder "
                "through one: name the real folder inside the repository"
            )
        plan = InitPlan(wiki_dir, "--wiki-dir")
    else:
        found = find_docs(snapshot, notes, site)
        if found is None:
            raise ValueError(
                "no docs folder found (no openwiki/, no MkDocs or Sphinx site, no docs/ or doc/ with pages"
                + "".join(f"; {note}" for note in notes)
                + "): name it with --wiki-dir"
            )
        plan = InitPlan(*found)
        plan.notes = notes
    plan.site = site_notes(snapshot, site, plan.wiki_dir)
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
