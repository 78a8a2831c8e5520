"""What `check` reports about the code a wiki names, without a model: references a change broke (a definition or
file it removed or renamed), paths that do not exist (a full sweep), and how much of each page its claims ground.

Pure: page texts, paths and symbol indexes in, the sweep report's plain records out. The use case decides what
to read; `gone` tells it first whether a change removed anything a page could name, so a change that removes
nothing costs no page read at all.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from ..claims.results import BrokenReference, PageCoverage
from .quotes import Quotes, coverage
from .references import DeadReference, Mention, href_of, is_folder, link_paths, path_of
from .routes import Routes, resolve_link
from .symbols import SymbolIndex


@dataclass(frozen=True)
class Gone:
    """What a change took away that a page could name: definitions' names and qualified names, and paths."""

    names: frozenset[str]  # last segments (`drain`) and qualified names (`TaskQueue.drain`) of removed definitions
    paths: frozenset[str]  # files deleted or renamed away
    keywords: frozenset[str] = frozenset()  # parameters removed from Python functions (a call's `proxies=`)

    def __bool__(self) -> bool:
        return bool(self.names or self.paths or self.keywords)


def gone(before: SymbolIndex, after: SymbolIndex, paths_before: Collection[str], paths_after: Collection[str]) -> Gone:
    """Definitions of the changed files at the base that none of them has at the head, and files gone."""
    kept = {d.qualified for d in after.definitions}
    names: set[str] = set()
    for definition in before.definitions:
        if definition.qualified not in kept:
            names.update((definition.name, definition.qualified))
    return Gone(frozenset(names), frozenset(p for p in paths_before if p not in paths_after))


def may_name(mention: Mention, page: str, what: Gone, site_root: str | None = None) -> bool:
    """Whether a mention can name something gone (cheap: decides which pages' references are resolved)."""
    paths = link_paths(mention, page, site_root) if mention.kind == "link" else [path_of(mention, page)]
    for path in paths:
        if path is not None and any(p == path or p.startswith(path.rstrip("/") + "/") for p in what.paths):
            return True
    words = mention.text.replace("::", ".").replace("#", ".").partition("(")[0].strip()
    return words in what.names or words.rpartition(".")[2] in what.names


def missing_paths(
    page: str,
    mentioned: Iterable[Mention],
    paths: Collection[str],
    site_root: str | None = None,
    routes: Routes | None = None,
) -> list[BrokenReference]:
    """Of a page's mentions (`mentions`, or its kept reading's), the links and the code spans shaped like a
    repository path that name a path that does not exist.

    A code span is taken for a path only when it has a folder and a file name with an extension and its first
    folder exists in the repository (`src/old.py`, not `/usr/bin/env`, `a/b` or `npm run build`); a relative
    link names a path of the repository, wherever a docs site would look for it (`link_paths`): missing only when
    none of them exists, and, given the site's `routes`, none its builder would serve it from
    (`routes.resolve_link`: a route it cannot map with certainty, or a file its build generates, is a note); a
    code span may name a path from the site's own folder (`src/SUMMARY.md` in a book whose `book.toml` is in
    `guide/`). A placeholder a build fills in (`ENGLISH_VERSION_URL`), a file written with an object in it
    (`scripts/exts.py:Extension`, the form a setting names an extension by) and, on a how-to page, a path under a
    folder the repository does not have (the reader's own project's) are notes.
    """
    found = []
    for mention in mentioned:
        note = None
        if mention.kind == "link":
            readings = link_paths(mention, page, site_root)
            if not readings or any(p in paths or is_folder(p, paths) for p in readings):
                continue
            href = href_of(mention.text.strip()) or ""
            if routes is not None:
                resolved = resolve_link(routes, href, page, readings)
                if resolved.path is not None:
                    continue
                note = resolved.note
            if _PLACEHOLDER.fullmatch(href):
                note = PLACEHOLDER
            path = readings[0]
        else:
            code_path = path_of(mention, page)
            if code_path is None or code_path in paths or is_folder(code_path, paths):
                continue
            if not _path_shaped(code_path, paths):
                continue
            if routes is not None and routes.from_site(code_path) is not None:
                continue
            path = code_path
            if _OBJECT_IN_FILE.search(path):
                file = _OBJECT_IN_FILE.sub(lambda m: m.group(1), path)
                if file in paths:
                    continue
                note = OBJECT_IN_FILE
            elif is_how_to(page) and not is_folder(posixpath.dirname(path), paths):
                note = READERS_FOLDER
        ref = BrokenReference(page, mention.line, mention.text, path, path, "missing", kind=mention.kind)
        found.append(ref if note is None else ref._replace(attention=False, note=note))
    return found


# A destination a build script fills in: an upper-case identifier (`ENGLISH_VERSION_URL`) or a template's marker.
_PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|.*(?:\{\{|\{%|\$\{|%\().*")
PLACEHOLDER = "a placeholder a build or script fills in (an upper-case name or a template's marker), not a path"
# `path.py:Name`: a file and an object in it, as a setting or a command names an extension or an app.
_OBJECT_IN_FILE = re.compile(r"(\.\w+):[A-Za-z_]\w*$")
OBJECT_IN_FILE = "a file and an object in it (`path.py:Name`), the way a setting names one: the reader's example"
READERS_FOLDER = "a path under a folder this repository does not have, on a how-to page: the reader's own project's"
_HOW_TO = re.compile(r"tutorial|how[-_ ]?to|getting[-_ ]?started|quick[-_ ]?start|packaging|first[-_]steps", re.I)


def is_how_to(page: str) -> bool:
    """A tutorial or how-to page, by its path (`docs/tutorial/…`, `how-to-package.md`, `getting-started.md`):
    its paths are often the reader's own project's, a layout the reader makes (`src/app/cli.py`)."""
    return bool(_HOW_TO.search(page))


def runtime_notes(
    missing: Iterable[BrokenReference],
    committed: Collection[str] | None,
    ignored: Callable[[str], bool],
    wiki_dir: str,
) -> list[BrokenReference]:
    """Missing paths a program makes at run time are no broken reference, and become notes: a code span naming a
    path git ignores, or one shaped like a working file (a dot-file or a file in a dot-folder, `.langsmith.json`;
    in the wiki folder, a name starting with `_`, OpenWiki's `_plan.md`) that no commit of the repository's
    history ever held (`committed`: those of the paths that one did; None when the source cannot tell, and the
    shape decides). A deleted file, a typo or an invented path stays certain, and so does a link: it sends a
    reader nowhere either way."""
    found = []
    for ref in missing:
        note = None
        if ref.kind == "code":
            if ignored(ref.path):
                note = "a path git ignores: a file made at run time, not kept in the repository"
            elif working_file(ref.path, wiki_dir) and (committed is None or ref.path not in committed):
                note = "a working file never in this repository's history: made at run time"
        found.append(ref if note is None else ref._replace(attention=False, note=note))
    return found


def working_file(path: str, wiki_dir: str) -> bool:
    parts = path.split("/")
    if any(part.startswith(".") for part in parts):
        return True
    return (path + "/").startswith(wiki_dir + "/") and parts[-1].startswith("_")


def _path_shaped(path: str, paths: Collection[str]) -> bool:
    folder, name = posixpath.split(path)
    return (
        bool(folder)
        and "." in name.strip(".")
        and not any(c in path for c in "*?[]{}<>|$`'\"\\")
        and is_folder(folder.partition("/")[0], paths)
    )


def broken(dead: Iterable[DeadReference], paths_after: Collection[str]) -> list[BrokenReference]:
    """The dead references of a change as the report's records; `at` is where the head shows what happened: the
    new definition of a renamed one, the file a removed definition stood in (at its old line, within the file)."""
    found = []
    for ref in dead:
        target = ref.target
        definition = target.definition
        kind = ref.mention.kind
        if definition is None:
            found.append(
                BrokenReference(
                    ref.page, ref.mention.line, ref.mention.text, target.path, target.path, ref.what, ref.moved_to,
                    (ref.moved_to, 1) if ref.moved_to is not None and ref.moved_to in paths_after else None,
                    kind=kind,
                )
            )  # fmt: skip
            continue
        at: tuple[str, int] | None = None
        renamed = ref.renamed_to.qualified if ref.renamed_to is not None else None
        if ref.renamed_to is not None:
            at = (ref.renamed_to.path, ref.renamed_to.start)
        elif definition.path in paths_after:
            at = (definition.path, definition.start)
        found.append(
            BrokenReference(
                ref.page,
                ref.mention.line,
                ref.mention.text,
                definition.qualified,
                definition.path,
                ref.what,
                renamed,
                at,
                kind=kind,
            )
        )
    return found


def page_coverage(page: str, blocks: Iterable[str], claims: Sequence[tuple[str, str]], quotes: Quotes) -> PageCoverage:
    """A page's coverage from its blocks of prose, its claims (id, statement) and its quotes."""
    measured = coverage(blocks, claims, quotes.quotes)
    return PageCoverage(page, measured.claims, measured.paragraphs, measured.grounded)


def clip_lines(at: tuple[str, int] | None, lines_of: Callable[[str], int]) -> tuple[str, int] | None:
    """`at` with its line within the file as it is at the head (a removed definition's old line may be past the
    end of what is left)."""
    if at is None:
        return None
    path, line = at
    return path, max(1, min(line, lines_of(path)))
