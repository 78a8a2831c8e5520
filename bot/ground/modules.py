"""Python modules and packages by their dotted paths, and the renames of them a change's file renames make: a file
`git mv pkg/widgets.py pkg/widget_kit.py` renames the module `pkg.widgets` to `pkg.widget_kit`, a package folder
renamed renames the package and every module in it. A page naming the old dotted path (`pkg.widgets`,
`pkg.widgets.Panel`, :class:`~pkg.dispatch.Table`) names something that is no longer importable under that name,
and the new dotted path is known exactly.

Where a file's module begins is read from the paths alone, as Python's import system finds it: a regular package
is a folder with `__init__.py`, and the folder above the topmost one is the import root; a `src/` layout's `src/`
is a root; a folder of modules without `__init__.py` (a namespace package) is a package under the nearest root
(`src/`, else the repository's top). Pure: paths in, dotted paths and dead references out.
"""

from __future__ import annotations

import posixpath
import re
import sys
from bisect import bisect_left
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property

from .references import ChangedCode, DeadReference, Mention, Target, is_folder
from .symbols import Definition, SymbolIndex

_PY_SUFFIXES = (".py", ".pyi")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# A dotted name as a page writes it: `pkg.widgets`, `pkg.widgets.Panel()`, `pkg.widgets.Panel.draw(x)`.
_DOTTED = re.compile(r"(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\([^()]*\))?")
_ROOTS = frozenset({"src"})  # folders that are import roots by convention, never packages themselves


def module_of(path: str, paths: Collection[str]) -> str | None:
    """The dotted module a Python file of `paths` is imported as (`src/pkg/widgets.py` → `pkg.widgets`,
    `pkg/dispatch/__init__.py` → `pkg.dispatch`); None for a file that is not Python, or whose path holds a part
    that is no identifier (`my-scripts/x.py`, `x.test.py`)."""
    if not path.endswith(_PY_SUFFIXES):
        return None
    parts = posixpath.splitext(path)[0].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    root = _root(path, paths)
    dotted = parts[len(root) :]
    if not dotted or not all(_IDENTIFIER.fullmatch(part) for part in dotted):
        return None
    return ".".join(dotted)


def _root(path: str, paths: Collection[str]) -> list[str]:
    """The folders above a file's import root (`["src"]` for `src/pkg/widgets.py`): above the topmost regular
    package holding it, or, with none, its nearest `src/` (else the repository's top)."""
    folders = path.split("/")[:-1]
    top = len(folders)
    while top > 0 and _is_package("/".join(folders[:top]), paths):
        top -= 1
    nearest_root = max((i + 1 for i, part in enumerate(folders[:top]) if part in _ROOTS), default=None)
    if top < len(folders) and nearest_root is None:
        return folders[:top]  # the folder above the topmost regular package
    return folders[: nearest_root or 0]


def _is_package(folder: str, paths: Collection[str]) -> bool:
    return f"{folder}/__init__.py" in paths or f"{folder}/__init__.pyi" in paths


@dataclass(frozen=True, slots=True)
class ModuleMove:
    """A module or package renamed: its dotted path at the base and at the head, and a file of each (the module's
    own file, or a package's `__init__.py` or first file) where the head shows it."""

    old: str
    new: str
    old_path: str
    new_path: str
    # A package's modules that went without it (deleted, or moved elsewhere), by their names inside it: a page's
    # `pkg.dispatch.old.X` names no `pkg.tables.old.X`
    left: frozenset[str] = frozenset()


def module_moves(
    renames: Mapping[str, str], paths_before: Collection[str], paths_after: Collection[str]
) -> dict[str, ModuleMove]:
    """The modules and packages git's file renames (old path → new path) renamed, by their old dotted path: each
    renamed Python file's module, and each package all of whose Python files at the base were renamed into one new
    package (a folder renamed: its dotted path follows, with or without `__init__.py`). A module whose old dotted
    path is still importable at the head (a file or a package left under the old name, or one of that dotted path
    elsewhere: `src/pkg/` moved to `packages/lib/src/pkg/` beside a new `packages/cli/src/pkgcli/`) is not moved.
    The cost grows with the files renamed (each question about a folder is a binary search in the sorted Python
    files) and, once a rename is a candidate, with the head's Python files (their dotted paths read once)."""
    moves: dict[str, ModuleMove] = {}
    if not any(path.endswith(_PY_SUFFIXES) for path in renames):
        return moves
    before, renamed_files = _PythonFiles(paths_before), _PythonFiles(renames)
    at_head = _Modules(paths_after)
    packages: set[str] = set()
    for old_path, new_path in sorted(renames.items()):
        old, new = module_of(old_path, paths_before), module_of(new_path, paths_after)
        folder = _own_folder(old_path)
        if old is None or new is None or old == new or _standard(old) or _importable(folder, paths_after):
            continue
        if old in at_head.names:
            continue  # a module of that dotted path is still there, from another place
        moves.setdefault(old, ModuleMove(old, new, old_path, new_path))
        old_parts, new_parts = old.split("."), new.split(".")
        # The packages above it, renamed with it: `pkg.dispatch.table` → `pkg.tables.table` renames `pkg.dispatch`
        # when the same tail follows and every Python file of the package was renamed.
        while len(old_parts) > 1 and len(new_parts) > 1 and old_parts[-1] == new_parts[-1]:
            old_parts, new_parts, folder = old_parts[:-1], new_parts[:-1], posixpath.dirname(folder)
            package, renamed = ".".join(old_parts), ".".join(new_parts)
            if package == renamed or package in moves or _importable(folder, paths_after):
                break
            if package in at_head.names:
                break  # the package is still importable under its name, from another place
            if len(before.under(folder)) != len(renamed_files.under(folder)):
                break  # a file of it deleted or left: not the whole package renamed
            moves[package] = ModuleMove(package, renamed, old_path, new_path)
            packages.add(package)
    scattered = {package for package in packages if not _consistent(package, moves)}
    found = {old: move for old, move in moves.items() if old not in scattered}
    for old, move in found.items():
        if posixpath.basename(move.old_path).startswith("__init__.") or old in packages:
            found[old] = replace(move, left=_left_behind(move, found, before, paths_before))
    return found


class _Modules:
    """The dotted paths of a snapshot's Python modules and packages, read when first asked."""

    def __init__(self, paths: Collection[str]) -> None:
        self._paths = paths

    @cached_property
    def names(self) -> frozenset[str]:
        found = (module_of(p, self._paths) for p in self._paths if p.endswith(_PY_SUFFIXES))
        return frozenset(name for name in found if name is not None)


class _PythonFiles:
    """The Python files of a set of paths, sorted when first asked (only a package's rename asks): which of them
    stand under a folder, by binary search."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._given = paths

    @cached_property
    def paths(self) -> list[str]:
        return sorted(p for p in self._given if p.endswith(_PY_SUFFIXES))

    def under(self, folder: str) -> list[str]:
        return self.paths[bisect_left(self.paths, folder + "/") : bisect_left(self.paths, folder + "0")]  # "/" < "0"


def _importable(location: str, paths: Collection[str]) -> bool:
    """Whether a module stands at `location` (a path without its suffix) among `paths`: a file, a package, or a
    folder (a namespace package, or what is left of one: not taken for renamed)."""
    return any(location + suffix in paths for suffix in _PY_SUFFIXES) or is_folder(location, paths)


def _left_behind(
    move: ModuleMove, moves: Mapping[str, ModuleMove], before: _PythonFiles, paths_before: Collection[str]
) -> frozenset[str]:
    """The modules of a moved package at the base that did not go with it, by their first name inside it."""
    package = move.old
    folder = _own_folder(move.old_path)
    for _ in range((module_of(move.old_path, paths_before) or package).count(".") - package.count(".")):
        folder = posixpath.dirname(folder)
    left = set()
    for path in before.under(folder):
        module = module_of(path, paths_before)
        if module is None or module == package or not module.startswith(package + "."):
            continue
        inner = moves.get(module)
        if inner is None or not inner.new.startswith(move.new + "."):
            left.add(module[len(package) + 1 :].split(".")[0])
    return frozenset(left)


def _own_folder(path: str) -> str:
    """The folder standing for a Python file's own module: a package's folder, else the file's path without its
    suffix (so the folder of the package above is the parent of either)."""
    stem = posixpath.splitext(path)[0]
    return posixpath.dirname(stem) if posixpath.basename(stem) == "__init__" else stem


def _standard(module: str) -> bool:
    """A module at the top whose name is the standard library's (a script `json.py` beside the code): a page's
    `json.dumps()` means Python's."""
    return "." not in module and module in sys.stdlib_module_names


def _consistent(package: str, moves: Mapping[str, ModuleMove]) -> bool:
    """A package's move agrees with its modules' (each of them went into the same new package), so a package whose
    files scattered is not named moved to one of their places."""
    move = moves[package]
    inner = (m for old, m in moves.items() if old.startswith(package + "."))
    return all(m.new.startswith(move.new + ".") for m in inner)


def moved_name(name: str, moves: Mapping[str, ModuleMove]) -> tuple[ModuleMove, str] | None:
    """The move of the longest old dotted path `name` starts with (`pkg.widgets.Panel` under `pkg.widgets`), and
    `name` as it reads at the head (`pkg.widget_kit.Panel`); None when it names no moved module."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        move = moves.get(".".join(parts[:cut]))
        if move is not None:
            if cut < len(parts) and parts[cut] in move.left:
                return None  # a module of it that did not go with it
            return move, ".".join([move.new, *parts[cut:]])
    return None


def dotted_name(mention: Mention) -> str | None:
    """The dotted name a code mention writes (`pkg.widgets.Panel()` → `pkg.widgets.Panel`); None for a link, or a
    span that is no dotted name."""
    if mention.kind != "code":
        return None
    matched = _DOTTED.fullmatch(mention.text.strip())
    return matched["name"] if matched else None


def names_moved(mention: Mention, moves: Mapping[str, ModuleMove]) -> bool:
    """Whether a mention names a moved module, or something in one (cheap: which pages' mentions are looked at)."""
    name = dotted_name(mention) if moves else None
    return name is not None and "." in name and moved_name(name, moves) is not None


def moved_references(
    page: str, mentioned: Iterable[Mention], moves: Mapping[str, ModuleMove], at_head: SymbolIndex | None = None
) -> list[DeadReference]:
    """The mentions of `page` that name a moved module by its old dotted path (a module or a package named alone,
    or something in it): each dead, renamed to the new dotted path. A name of one segment is left (a page's
    `widgets` is as likely a word as the module). `at_head` (definitions of the new files) gives the line of a
    member in its new file."""
    found = []
    for mention in mentioned:
        name = dotted_name(mention)
        if name is None or "." not in name:
            continue
        moved = moved_name(name, moves)
        if moved is None:
            continue
        move, new = moved
        rest = name[len(move.old) + 1 :] if name != move.old else ""
        line = _line_in(move.new_path, rest, at_head) if rest and at_head is not None else 1
        kind = "module" if not rest else "definition"
        old = Definition(name.rsplit(".", 1)[-1], name, kind, move.old_path, 1, 1)
        renamed = Definition(new.rsplit(".", 1)[-1], new, kind, move.new_path, line, line)
        found.append(DeadReference(page, mention, Target(move.old_path, old), renamed_to=renamed))
    return found


def _line_in(path: str, qualified: str, index: SymbolIndex) -> int:
    """The line of `qualified` in the file `path` at the head (else in a file beside it: a package's), else 1."""
    found = index.qualified(qualified)
    definition = next((d for d in found if d.path == path), None) or next(
        (d for d in found if posixpath.dirname(d.path) == posixpath.dirname(path)), None
    )
    return definition.start if definition is not None else 1


def with_dotted_paths(
    dead: Iterable[DeadReference], paths_before: Collection[str], paths_after: Collection[str]
) -> list[DeadReference]:
    """`dead` with each renamed Python definition that its page wrote by its dotted path (`pkg.app.App.run`)
    named by dotted paths on both sides (`pkg.app.App.run` renamed to `pkg.app.App.run_all`), as the page reads
    it and as the fix rewrites it; a definition named otherwise (`App.run`, `run()`) is left as it was named."""
    found = []
    for ref in dead:
        definition, renamed = ref.target.definition, ref.renamed_to
        name = dotted_name(ref.mention)
        if definition is None or renamed is None or name is None:
            found.append(ref)
            continue
        old_module = module_of(definition.path, paths_before)
        new_module = module_of(renamed.path, paths_after)
        if old_module is None or new_module is None or name != f"{old_module}.{definition.qualified}":
            found.append(ref)
            continue
        target = Target(ref.target.path, replace(definition, qualified=name))
        new = replace(renamed, qualified=f"{new_module}.{renamed.qualified}")
        found.append(replace(ref, target=target, renamed_to=new))
    return found


def with_module_renames(
    dead: Iterable[DeadReference],
    mentioned: Mapping[str, Iterable[Mention]],
    moves: Mapping[str, ModuleMove],
    code: ChangedCode,
) -> list[DeadReference]:
    """A change's dead references (`dead`) with what its module and package renames (`moves`) add: a renamed
    definition the page wrote by its dotted path named by the new one (`with_dotted_paths`), and each mention of a
    page (`mentioned`: page → its mentions) naming a moved module's old dotted path (`moved_references`), unless the
    change's own definitions already account for that mention (removed, or renamed itself)."""
    found = with_dotted_paths(dead, code.paths_before, code.paths_after)
    if not moves:
        return found
    named = {(d.page, d.mention) for d in found}
    for page, mentions in mentioned.items():
        found += [d for d in moved_references(page, mentions, moves, code.after) if (d.page, d.mention) not in named]
    return found
