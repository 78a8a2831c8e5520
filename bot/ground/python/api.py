"""A Python package's API as Python resolves its names, read with griffe from texts (the App has no checkout):
modules and packages, aliases and re-exports (`from .widgets import Panel`, `from dep import connect`), `__all__`
and wildcard imports, classes' inherited members, and which bases come from outside the project.

Loading is bounded: a file over `MAX_MODULE_BYTES` (generated code) or one griffe cannot read (a syntax error) is
left out with the reason, and once the time `budget` allows is spent (the caller's `clock`: the core reads none)
the rest is left out the same way. A name in what was left out is `unknown`, never `missing`: what cannot be read
is never reported removed. Pure: texts in, an API out.
"""

from __future__ import annotations

import contextlib
import posixpath
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:
    import griffe

from .keywords import MAX_MODULE_BYTES

BUDGET_SECONDS = 20.0  # the time one snapshot's load may take; what is not read by then is `unknown`
_ALIAS_ROUNDS = 8  # rounds of alias resolution: enough for re-exports of re-exports, bounded for cycles
_LOOSE_FOLDERS = frozenset({"", "src", "lib", "python"})  # where a module of its own (`tool.py`) is importable


def module_names(paths: Iterable[str]) -> dict[str, str]:
    """The dotted module name of each Python file that is importable as part of a package (its folders up to the
    last holding `__init__.py`: `src/pkg/sub/mod.py` → `pkg.sub.mod`) or as a module on its own at the top or in
    `src/` (`tool.py` → `tool`). Other files (scripts, examples, docs' `conf.py`) have none."""
    python = [p for p in paths if p.endswith((".py", ".pyi"))]
    packages = {posixpath.dirname(p) for p in python if posixpath.basename(p) in ("__init__.py", "__init__.pyi")}
    found: dict[str, str] = {}
    for path in sorted(python, key=lambda p: (p.count("/"), p)):
        folder, name = posixpath.split(path)
        stem = name.rsplit(".", 1)[0]
        parts = [] if stem == "__init__" else [stem]
        while folder in packages:
            folder, package = posixpath.split(folder)
            parts.insert(0, package)
        if not parts or not all(part.isidentifier() for part in parts):
            continue
        if len(parts) == 1 and stem != "__init__" and folder not in _LOOSE_FOLDERS:
            continue
        dotted = ".".join(parts)
        if path.endswith(".pyi") and dotted in found.values():
            continue  # the module's own source first; its stub only when there is none
        found.setdefault(path, dotted)
    return found


class Located(NamedTuple):
    """Where a dotted name leads in an API: to an object of the project (`found`), out of the project through an
    alias (`external`: a re-export from a dependency), to a member a class lacks though a base outside the project
    may give it (`external_base`, `why` names the base), to nothing (`missing`), or into what could not be read
    (`unknown`, `why` says why)."""

    state: Literal["found", "external", "external_base", "missing", "unknown"]
    obj: griffe.Object | None = None
    why: str | None = None


@dataclass
class PythonApi:
    """The API of a snapshot's Python packages: `packages` are the top-level names the project defines; `paths`
    gives each module's file; `problems` the files left out and why."""

    collection: griffe.ModulesCollection | None
    packages: frozenset[str]
    paths: dict[str, str] = field(default_factory=dict)  # dotted module → repository path
    problems: dict[str, str] = field(default_factory=dict)  # dotted module → why it was not read

    def locate(self, dotted: str) -> Located:
        """Where `dotted` (`pkg.mod.Class.method`) leads, as an import and attribute access would."""
        import griffe  # noqa: PLC0415 - imported only when a check resolves Python names

        parts = dotted.split(".")
        if self.collection is None or parts[0] not in self.packages:
            return Located("missing")
        try:
            obj: griffe.Object | griffe.Alias = self.collection.members[parts[0]]
        except KeyError:
            return self._unread(parts[0])
        for at, part in enumerate(parts[1:], start=1):
            target = _final(obj)
            if not isinstance(target, griffe.Object):
                return target
            members = _members(target)
            if part in members:
                obj = members[part]
                continue
            prefix = ".".join(parts[: at + 1])
            if target.is_module and prefix in self.problems:
                return Located("unknown", why=f"{self.paths.get(prefix, prefix)}: {self.problems[prefix]}")
            if target.is_module and target.path in self.problems:
                return Located(
                    "unknown", why=f"{self.paths.get(target.path, target.path)}: {self.problems[target.path]}"
                )
            if target.is_class:
                base = self.external_base(target)
                if base is not None:
                    return Located("external_base", target, base)
            return Located("missing", target)
        final = _final(obj)
        return Located("found", final) if isinstance(final, griffe.Object) else final

    def _unread(self, name: str) -> Located:
        why = self.problems.get(name)
        return Located("unknown", why=f"{self.paths.get(name, name)}: {why}") if why else Located("missing")

    def external_base(self, cls: griffe.Object, depth: int = 0) -> str | None:
        """The first base of `cls` (or of its bases in the project) from outside the project, by its path."""
        if depth > 16:
            return None
        for base in getattr(cls, "bases", ()):
            path = str(getattr(base, "canonical_path", base))
            if path.split(".", maxsplit=1)[0] not in self.packages:
                return path
            located = self.locate(path) if path != cls.path else Located("missing")
            if located.state == "external":
                return path
            if located.state == "found" and located.obj is not None and located.obj.is_class:
                found = self.external_base(located.obj, depth + 1)
                if found is not None:
                    return found
        return None

    def file_of(self, obj: griffe.Object) -> str | None:
        """The repository path of the module holding `obj`."""
        module = obj.module
        return self.paths.get(module.path)


def _final(obj: griffe.Object | griffe.Alias) -> griffe.Object | Located:
    """What an alias leads to at last: an object of the project, else where it leads (`external`: out of the
    project; `unknown`: a cycle of re-exports)."""
    import griffe  # noqa: PLC0415

    if not obj.is_alias:
        return obj  # type: ignore[return-value]
    try:
        target = obj.final_target  # type: ignore[union-attr]
    except griffe.CyclicAliasError:
        return Located("unknown", why=f"a cycle of re-exports through {obj.path}")
    except (griffe.AliasResolutionError, RecursionError):
        return Located("external")
    return target if not target.is_alias else Located("external")


def _members(obj: griffe.Object) -> Mapping[str, griffe.Object | griffe.Alias]:
    """An object's members as attribute access sees them: a class's with those it inherits in the project."""
    import griffe  # noqa: PLC0415

    if obj.is_class:
        try:
            return obj.all_members
        except (griffe.AliasResolutionError, griffe.CyclicAliasError, RecursionError, ValueError):
            return obj.members
    return obj.members


def load_api(
    texts: Mapping[str, str],
    own: Collection[str] | None = None,
    clock: Callable[[], float] | None = None,
    budget: float = BUDGET_SECONDS,
) -> PythonApi:
    """The API of the Python files in `texts` (repository path → text), read as `module_names` names them; `own`
    limits it to those top-level packages. `clock` and `budget` bound the time spent (see the module)."""
    import logging  # noqa: PLC0415 - a check that loads no API imports neither

    import griffe  # noqa: PLC0415

    logging.getLogger("griffe").setLevel(logging.CRITICAL)  # griffe's warnings are about code, not for a check
    names = module_names(texts)
    if own is not None:
        names = {path: name for path, name in names.items() if name.split(".")[0] in own}
    api = PythonApi(griffe.ModulesCollection(), frozenset(name.split(".")[0] for name in names.values()))
    api.paths = {name: path for path, name in names.items()}
    lines = griffe.LinesCollection()
    start = clock() if clock is not None else 0.0
    read: dict[str, griffe.Module] = {}
    for path, dotted in sorted(names.items(), key=lambda item: (item[1].count("."), item[1])):
        parent_name, _, short = dotted.rpartition(".")
        parent = read.get(parent_name) if parent_name else None
        why = _unreadable(texts[path], parent_name, parent, api)
        if why is None and clock is not None and clock() - start > budget:
            why = f"not read: the API's load took over {budget:g} s"
        if why is not None:
            api.problems[dotted] = why
            continue
        try:
            module = griffe.visit(
                short, Path(path), texts[path], parent=parent, lines_collection=lines,
                modules_collection=api.collection,
            )  # fmt: skip
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            api.problems[dotted] = f"griffe cannot read it ({type(error).__name__}: {error})"[:300]
            continue
        except Exception as error:
            api.problems[dotted] = f"griffe cannot read it ({type(error).__name__})"
            continue
        if parent is None:
            api.collection.set_member(short, module)  # type: ignore[union-attr]
        else:
            parent.set_member(short, module)
        read[dotted] = module
    _resolve(api, read)
    return api


def _unreadable(text: str, parent_name: str, parent: object, api: PythonApi) -> str | None:
    if len(text) > MAX_MODULE_BYTES:
        return f"not read: {len(text):,} characters, over {MAX_MODULE_BYTES:,} (generated code, as a rule)"
    if parent_name and parent is None:
        return api.problems.get(parent_name, "its package could not be read")
    return None


def _resolve(api: PythonApi, read: Mapping[str, griffe.Module]) -> None:
    """Exports, wildcard imports and aliases expanded as far as the project's own modules allow."""
    import griffe  # noqa: PLC0415

    loader = griffe.GriffeLoader(
        modules_collection=api.collection, lines_collection=griffe.LinesCollection(), allow_inspection=False
    )
    for name, module in read.items():
        if "." in name:
            continue
        try:
            loader.expand_exports(module)
            loader.expand_wildcards(module, external=False)
        except Exception:  # noqa: S110 - a cycle or an odd `__all__`: names stay unexpanded, never a crash
            pass
    with contextlib.suppress(Exception):  # unresolved aliases are resolved (or not) when looked up
        loader.resolve_aliases(implicit=True, external=False, max_iterations=_ALIAS_ROUNDS)
