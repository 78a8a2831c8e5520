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


class PythonApi:
    """The API of a snapshot's Python packages, loaded lazily: a module is visited when a lookup first reaches it
    (its package's `__init__` first, the modules its re-exports, wildcard imports and bases lead to as they are
    followed), so a check pays for the modules its pages' names lead through, not for the whole package.

    `packages` are the top-level names the project defines; `paths` gives each module's file; `problems` the modules
    left out and why."""

    def __init__(
        self,
        texts: Mapping[str, str],
        names: Mapping[str, str],
        clock: Callable[[], float] | None = None,
        budget: float = BUDGET_SECONDS,
    ) -> None:
        import logging  # noqa: PLC0415 - a check that loads no API imports neither

        import griffe  # noqa: PLC0415 - imported only when a check resolves Python names

        logging.getLogger("griffe").setLevel(logging.CRITICAL)  # griffe's warnings are about code, not for a check
        self.collection = griffe.ModulesCollection()
        self.packages = frozenset(name.split(".")[0] for name in names.values())
        self.paths = {name: path for path, name in names.items()}  # dotted module → repository path
        self.problems: dict[str, str] = {}  # dotted module → why it was not read
        self._texts = texts
        self._lines = griffe.LinesCollection()
        self._loaded: dict[str, griffe.Module] = {}
        self._clock = clock
        self._budget = budget
        self._start: float | None = None
        self._loader = griffe.GriffeLoader(
            modules_collection=self.collection, lines_collection=self._lines, allow_inspection=False
        )

    @property
    def loaded(self) -> int:
        """How many modules have been visited so far."""
        return len(self._loaded)

    def load(self, dotted: str) -> griffe.Module | None:
        """The module `dotted`, visited now if it was not (its package first); None when it is not the project's
        or could not be read (`problems` says why)."""
        import griffe  # noqa: PLC0415

        if dotted in self._loaded:
            return self._loaded[dotted]
        if dotted in self.problems or dotted not in self.paths:
            return None
        parent_name, _, short = dotted.rpartition(".")
        parent = self.load(parent_name) if parent_name else None
        path = self.paths[dotted]
        text = self._texts.get(path)
        why = _unreadable(text, parent_name, parent, self)
        if why is None and self._clock is not None:
            now = self._clock()
            self._start = now if self._start is None else self._start
            if now - self._start > self._budget:
                why = f"not read: the API's load took over {self._budget:g} s"
        if why is not None or text is None:
            self.problems[dotted] = why or "not read"
            return None
        try:
            module = griffe.visit(
                short, Path(path), text, parent=parent, lines_collection=self._lines,
                modules_collection=self.collection,
            )  # fmt: skip
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            self.problems[dotted] = f"griffe cannot read it ({type(error).__name__}: {error})"[:300]
            return None
        except Exception as error:  # griffe on any repository's code: its failure is a note, never a crash
            self.problems[dotted] = f"griffe cannot read it ({type(error).__name__})"
            return None
        if parent is None:
            self.collection.set_member(short, module)
        else:
            parent.set_member(short, module)
        self._loaded[dotted] = module
        self._expand(module)
        return module

    def _expand(self, module: griffe.Module) -> None:
        """A module's wildcard imports of the project's modules expanded into its members (those modules loaded)."""
        wildcards = [m.wildcard for m in module.members.values() if m.is_alias and m.wildcard]  # type: ignore[union-attr]
        if not wildcards:
            return
        for target in wildcards:
            self.load(self._module_of(str(target)) or "")
        with contextlib.suppress(Exception):  # a cycle or an odd import: its names stay unexpanded
            self._loader.expand_wildcards(module, external=False)

    def _module_of(self, dotted: str) -> str | None:
        """The longest prefix of `dotted` that is a module of the project."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            prefix = ".".join(parts[:cut])
            if prefix in self.paths:
                return prefix
        return None

    def locate(self, dotted: str) -> Located:
        """Where `dotted` (`pkg.mod.Class.method`) leads, as an import and attribute access would."""
        import griffe  # noqa: PLC0415

        parts = dotted.split(".")
        if parts[0] not in self.packages:
            return Located("missing")
        top = self.load(parts[0])
        if top is None:
            return self._unread(parts[0])
        obj: griffe.Object | griffe.Alias = top
        for at, part in enumerate(parts[1:], start=1):
            target = self._final(obj)
            if not isinstance(target, griffe.Object):
                return target
            prefix = ".".join(parts[: at + 1])
            if target.is_module and part not in target.members and prefix in self.paths:
                self.load(prefix)  # a submodule not yet visited
            if target.is_class:
                self._bases_loaded(target)
            members = _members(target)
            if part in members:
                obj = members[part]
                continue
            if target.is_module and prefix in self.problems:
                return Located("unknown", why=f"{self.paths.get(prefix, prefix)}: {self.problems[prefix]}")
            if target.is_class:
                base = self.external_base(target)
                if base is not None:
                    return Located("external_base", target, base)
            return Located("missing", target)
        final = self._final(obj)
        return Located("found", final) if isinstance(final, griffe.Object) else final

    def _final(self, obj: griffe.Object | griffe.Alias) -> griffe.Object | Located:
        """What an alias leads to at last, the project's modules it leads through loaded as it goes."""
        for _ in range(_ALIAS_ROUNDS):
            found = _final(obj)
            if not (isinstance(found, Located) and found.state == "external" and obj.is_alias):
                return found
            target_path = str(obj.target_path)  # type: ignore[union-attr]
            missing = _unresolved(obj)
            module = self._module_of(missing or target_path)
            if module is None or module in self._loaded or self.load(module) is None:
                if module is not None and module in self.problems:
                    return Located("unknown", why=f"{self.paths.get(module, module)}: {self.problems[module]}")
                return found
        return _final(obj)

    def _bases_loaded(self, cls: griffe.Object) -> None:
        """The modules a class's bases in the project stand in, visited (so its inherited members are known)."""
        for base in getattr(cls, "bases", ()):
            path = str(getattr(base, "canonical_path", base))
            if path.split(".", maxsplit=1)[0] in self.packages and path != cls.path:
                module = self._module_of(path)
                if module is not None:
                    self.load(module)

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


def _unresolved(alias: griffe.Object | griffe.Alias) -> str | None:
    """The path at which an alias's chain stopped resolving (the last alias's target), if it can be told."""
    import griffe  # noqa: PLC0415

    current = alias
    for _ in range(_ALIAS_ROUNDS):
        if not current.is_alias:
            return None
        try:
            current = current.target  # type: ignore[union-attr]
        except griffe.AliasResolutionError as error:
            return str(getattr(error.alias, "target_path", "")) or None
        except (griffe.CyclicAliasError, RecursionError):
            return None
    return None


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
    limits it to those top-level packages. Modules are visited as lookups reach them; `clock` and `budget` bound
    the time all of them take (see the module)."""
    names = module_names(texts)
    if own is not None:
        names = {path: name for path, name in names.items() if name.split(".")[0] in own}
    return PythonApi(texts, names, clock, budget)


def _unreadable(text: str | None, parent_name: str, parent: object, api: PythonApi) -> str | None:
    if text is not None and len(text) > MAX_MODULE_BYTES:
        return f"not read: {len(text):,} characters, over {MAX_MODULE_BYTES:,} (generated code, as a rule)"
    if parent_name and parent is None:
        return api.problems.get(parent_name, "its package could not be read")
    return None
