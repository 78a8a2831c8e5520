"""Python references judged as Python resolves them: the planner says which files a change's Python judgement
reads, and the evaluator turns texts into findings.

- `judged`: the broken references the symbol index found, each looked up again in the package's API at the head:
  a name rooted outside the project (`json.dumps()`) is not the project's, a name still reachable (a re-export
  from a dependency in `__init__.py`) is alive, a member missing from a class whose base is another package's is a
  note, and a name in code griffe could not read is a note saying why;
- `block_breakage`: a page's Python code blocks' imports and keyword arguments that resolved at the base and do
  not at the head: certain failures, at the block's line.

Pure: texts and APIs in, `BrokenReference`s out.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from ...claims.results import BrokenReference
from .api import Located, PythonApi, module_names
from .blocks import Block, Use, python_blocks, uses
from .roots import is_dependency_file

_WRITTEN = re.compile(r"[A-Za-z_][\w]*(?:(?:\.|::|#)[A-Za-z_][\w]*)*")


@dataclass(frozen=True)
class PythonPlan:
    """What the Python judgement of a change reads: the settings files naming the project's dependencies (at the
    head) and, for each side, the files of the project's packages it must load."""

    settings: tuple[str, ...]
    own: frozenset[str]  # the project's top-level packages and modules


def plan(paths_before: Collection[str], paths_after: Collection[str]) -> PythonPlan:
    """The settings files (pyproject.toml, setup.cfg, requirements files, Sphinx's conf.py) and the project's own
    top-level Python names, from the snapshots' paths alone."""
    own = {name.split(".")[0] for name in module_names([*paths_before, *paths_after]).values()}
    settings = tuple(sorted(p for p in paths_after if is_dependency_file(p) and p.count("/") <= 3))
    return PythonPlan(settings, frozenset(own))


def packages_named(
    found: Iterable[BrokenReference],
    pages: Mapping[str, str],
    planned: PythonPlan,
    base_modules: Mapping[str, str],
    words: Collection[str] | None = None,
) -> set[str]:
    """The project's top-level packages the judgement must load: those holding a broken reference's Python target,
    and those the Python blocks of `pages` (page → text) import from (with `words`, only by a use naming one)."""
    packages = {base_modules[r.path].split(".")[0] for r in found if r.path in base_modules and r.target != r.path}
    for page, text in pages.items():
        for block in python_blocks(text, kind_of(page)):
            if words is not None and not _mentions_one(block, words):
                continue
            packages.update(
                u.module.split(".")[0]
                for u in uses(block)
                if u.module.split(".")[0] in planned.own and (words is None or _names_one(u, words))
            )
    return packages


def evaluate(
    found: Iterable[BrokenReference],
    pages: Mapping[str, str],
    base: PythonApi,
    head: PythonApi,
    roots: Collection[str],
    base_modules: Mapping[str, str],
    words: Collection[str] | None = None,
) -> list[BrokenReference]:
    """`found` judged by the API at the head (`judged`), with what the Python blocks of `pages` (page → text) use
    that the change broke (`block_breakage`)."""
    kept = judged(found, head, base_modules, roots)
    for page, text in pages.items():
        kept += block_breakage(page, text, kind_of(page), base, head, roots, words)
    return kept


def package_files(paths: Collection[str], packages: Collection[str]) -> list[str]:
    """The Python files of `paths` that make up the top-level `packages` (what `load_api` reads for them)."""
    return sorted(p for p, name in module_names(paths).items() if name.split(".")[0] in packages)


_IMPORTED = re.compile(r"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b|import[ \t]+([A-Za-z_]\w*))", re.M)
SIBLING_ROUNDS = 3  # rounds of packages a package imports from (re-exports of re-exports), bounded


def imported_packages(texts: Mapping[str, str], own: Collection[str]) -> set[str]:
    """The project's own top-level packages the Python `texts` (path → text) import from by an absolute import
    (`from pkgcli import *` in `pkg/__init__.py`): a package re-exporting a sibling package of the same repository
    (a monorepo's `packages/*/src/`) leads into it, so its names are looked up there too."""
    found = {a or b for text in texts.values() for a, b in _IMPORTED.findall(text)}
    return found & set(own)


def written_root(text: str) -> str | None:
    """The first segment of a name as a page writes it (`json` of `json.dumps()`)."""
    matched = _WRITTEN.match(text.strip().lstrip("~"))
    return re.split(r"\.|::|#", matched[0])[0] if matched else None


def outside(ref: BrokenReference, roots: Collection[str], own: Collection[str]) -> bool:
    """Whether a reference to a definition is written rooted outside the project: a qualified or called name whose
    first segment is a root of the standard library, a dependency or an intersphinx project (and not one of the
    project's own packages)."""
    if ref.target == ref.path or ref.kind != "code":
        return False
    text = ref.text.strip()
    root = written_root(text)
    qualified = root is not None and len(text) > len(root) and text[len(root)] in ".:#"
    return qualified and root in roots and root not in own


def judged(
    refs: Iterable[BrokenReference], head: PythonApi, base_modules: Mapping[str, str], roots: Collection[str]
) -> list[BrokenReference]:
    """`refs` (broken references found by the symbol index) judged by the Python API at the head: those not the
    project's, or still reachable, left out; those griffe cannot decide, notes with the reason. `base_modules`
    gives each Python file's module at the base."""
    found = []
    for ref in refs:
        if ref.target == ref.path or not ref.path.endswith((".py", ".pyi")):
            found.append(ref)
            continue
        if outside(ref, roots, head.packages):
            continue
        located = _at_head(ref, head, base_modules)
        if located.state in ("found", "external"):
            continue
        if located.state == "external_base":
            note = f"a member a class may inherit from a base of another package ({located.why}): not certain"
            found.append(ref._replace(attention=False, note=note))
        elif located.state == "unknown":
            found.append(ref._replace(attention=False, note=f"griffe could not read the code: {located.why}"))
        else:
            found.append(ref)
    return found


def _at_head(ref: BrokenReference, head: PythonApi, base_modules: Mapping[str, str]) -> Located:
    """The most telling place the reference's name leads at the head: anywhere it still resolves, else the reason
    it does not."""
    module = base_modules.get(ref.path)
    candidates = []
    if module is not None:
        candidates.append(f"{module}.{ref.target}")
    written = ref.text.strip().removesuffix("()").replace("::", ".").replace("#", ".")
    if "." in written and written_root(written) in head.packages and _WRITTEN.fullmatch(written):
        candidates.append(written)
    if "." not in ref.target:
        candidates += [f"{package}.{ref.target}" for package in sorted(head.packages)]
    results = [_not_a_module(head.locate(c)) for c in candidates]
    order = ("found", "external", "external_base", "unknown", "missing")
    return min(results, key=lambda r: order.index(r.state), default=Located("missing"))


def _not_a_module(located: Located) -> Located:
    """A definition the reference named is not a module that happens to bear its name (`main` the function, not
    `pkg.main` the module)."""
    if located.state == "found" and located.obj is not None and located.obj.is_module:
        return Located("missing")
    return located


def block_breakage(
    page: str,
    page_text: str,
    kind: str,
    base: PythonApi,
    head: PythonApi,
    roots: Collection[str],
    words: Collection[str] | None = None,
) -> list[BrokenReference]:
    """The imports and keyword arguments of a page's Python blocks that the change broke: each resolved in the
    project's API at the base and not at the head (a name the project does not own, or one that was never there,
    is not this change's doing). With `words` (what the change removed: names, keywords, modules), only the uses
    naming one of them are judged."""
    found = []
    seen: set[tuple[int, str]] = set()
    for block in python_blocks(page_text, kind):
        if words is not None and not _mentions_one(block, words):
            continue  # a block naming nothing that went is not parsed
        for use in uses(block):
            if words is not None and not _names_one(use, words):
                continue
            ref = _use_broken(page, use, base, head, roots)
            if ref is not None and (ref.line, ref.target) not in seen:
                seen.add((ref.line, ref.target))
                found.append(ref)
    return found


def _mentions_one(block: Block, words: Collection[str]) -> bool:
    return not set(words).isdisjoint(re.findall(r"\w+", block.code))


def _names_one(use: Use, words: Collection[str]) -> bool:
    if use.keyword:
        return use.keyword in words
    return (use.name or use.module.rpartition(".")[2]) in words or use.module.rpartition(".")[2] in words


def _use_broken(
    page: str, use: Use, base: PythonApi, head: PythonApi, roots: Collection[str]
) -> BrokenReference | None:
    root = use.module.split(".")[0]
    if root not in base.packages or (root in roots and root not in base.packages):
        return None
    dotted = f"{use.module}.{use.name}" if use.name else use.module
    before = base.locate(dotted)
    if before.state != "found" or before.obj is None:
        return None
    path = base.file_of(before.obj) or base.paths.get(use.module, use.module)
    if use.keyword:
        return _keyword_broken(page, use, dotted, path, before, head)
    after = head.locate(dotted)
    if after.state in ("found", "external"):
        return None
    ref = BrokenReference(page, use.line, use.written, dotted, path, "removed", kind="code")
    if after.state in ("unknown", "external_base"):
        return ref._replace(attention=False, note=f"griffe could not tell at the head: {after.why}")
    return ref


def _keyword_broken(
    page: str, use: Use, dotted: str, path: str, before: Located, head: PythonApi
) -> BrokenReference | None:
    if use.keyword not in _parameters(before):
        return None
    after = head.locate(dotted)
    if after.state != "found":
        return None  # the callable itself went: its import says so
    now = _parameters(after)
    if use.keyword in now:
        return None
    target = f"{dotted}({use.keyword}=)"
    ref = BrokenReference(page, use.line, use.written, target, path, "removed", kind="code")
    if "**" in now:
        return ref._replace(attention=False, note="the callable takes **kwargs: it may still accept this keyword")
    return ref


def _parameters(located: Located) -> dict[str, bool]:
    """A callable's keyword-passable parameters → whether it is `**kwargs` (a class: its `__init__`'s)."""
    obj = located.obj
    if obj is None:
        return {}
    try:
        parameters = obj.parameters  # type: ignore[attr-defined]
    except Exception:
        return {}
    found = {}
    for parameter in parameters:
        kind = str(getattr(parameter.kind, "value", parameter.kind))
        if kind == "variadic keyword":
            found["**"] = True
        elif kind in ("positional or keyword", "keyword-only"):
            found[parameter.name] = False
    return found


def kind_of(page: str) -> str:
    return "rst" if posixpath.splitext(page)[1].lower() == ".rst" else "markdown"
