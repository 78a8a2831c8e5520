"""References: the inline code spans and links of a page that name a repository path or a definition of the
symbol index, and what the change from a base did to them.

A span is only a *reference* if it resolved at the base: values, commands and prose in backticks (`True`,
`npm install`, `--force`, `42`) name no path and no definition, so they never raise an alarm. A reference is
*dead* when the change removed what it named: no file at the path any more, no definition of the name left
anywhere. Moved to another file is not dead (the name still resolves); renamed is reported with the new name
when the change shows it (the same body under another name). Pure: page text, paths and definitions in, findings
out.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, NamedTuple
from urllib.parse import unquote

from .markdown import tokens
from .symbols import Definition, SymbolIndex

if TYPE_CHECKING:
    from markdown_it.token import Token

_IDENTIFIER = r"[A-Za-z_$][\w$]*"
# `drain`, `drain()`, `drain(q, n)`, `TaskQueue.drain`, `queue::drain`, `Queue#drain`: a name and its containers;
# a type as code writes it names the type (`Task[]`, `Queue<Task>`).
_SYMBOL = re.compile(rf"(?P<name>{_IDENTIFIER}(?:(?:\.|::|#){_IDENTIFIER})*)(?:\([^()]*\)|<[\w$., ]+>)?(?:\[\])*")
_LOCATION = re.compile(r"(?::\d+(?::\d+)?|#L\d+(?:-L\d+)?)$")  # `src/q.py:12`, `src/q.py#L3-L9`
_FRONT_MATTER = re.compile(r"\A\ufeff?---\r?\n.*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
MAX_SPAN = 200  # longer code spans are code, not a name
# The literals of the languages indexed are values, whatever the repository defines under their names (a Rust
# `Compression::None`, a TypeScript enum's `True`): a page writing `None` or `true` means the value.
_LITERALS = frozenset({"True", "False", "None", "true", "false", "null", "nil", "undefined", "NaN", "Infinity"})
# The languages' own names, which a page writing `bytes(v)`, `str` or `Promise` means whatever the repository
# defines under them (pydantic's `ValidationsMapping.bytes`): a name of the repository is named qualified.
_BUILTINS = frozenset(
    {
        "abs", "all", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr",
        "classmethod", "compile", "complex", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "filter",
        "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id", "input", "int",
        "isinstance", "issubclass", "iter", "len", "list", "locals", "map", "max", "memoryview", "min", "next",
        "object", "oct", "open", "ord", "pow", "print", "property", "range", "repr", "reversed", "round", "set",
        "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip", "Array",
        "ArrayBuffer", "BigInt", "Boolean", "Date", "Error", "JSON", "Map", "Math", "Number", "Object", "Promise",
        "Proxy", "Reflect", "RegExp", "Set", "String", "Symbol", "WeakMap", "WeakSet", "console", "document", "window",
        "fmt", "println", "panic", "append", "make", "cap", "copy", "delete",
    }
)  # fmt: skip
# Leading segments of a Rust path that name no module of their own (`crate::queue::drain`).
_PATH_KEYWORDS = frozenset({"crate", "self", "super"})


class Mention(NamedTuple):
    """A code span or a link of a page, as written, and the page line (1-based) it stands on."""

    text: str
    kind: Literal["code", "link"]
    line: int


class Target(NamedTuple):
    """What a mention names: a path of the repository, or a definition in it."""

    path: str
    definition: Definition | None = None

    @property
    def label(self) -> str:
        return f"{self.definition.qualified} ({self.path})" if self.definition else self.path


@dataclass(frozen=True, slots=True)
class Reference:
    page: str
    mention: Mention
    targets: tuple[Target, ...]


@dataclass(frozen=True, slots=True)
class DeadReference:
    """A reference whose target is gone: removed, or renamed (`renamed_to` or `moved_to` then says to what)."""

    page: str
    mention: Mention
    target: Target  # what it named at the base
    renamed_to: Definition | None = None  # a definition's new name
    gone_path: bool = False  # the path itself is gone (else: the definition is)
    moved_to: str | None = None  # a path's new path: git saw the file (or every file of the folder) renamed

    @property
    def what(self) -> str:
        return "renamed" if self.renamed_to is not None or self.moved_to is not None else "removed"


def page_body(page_text: str) -> str:
    """The page without its front matter."""
    front = _FRONT_MATTER.match(page_text)
    return page_text[front.end() :] if front else page_text


def headings(page_text: str) -> list[str]:
    """The text of every heading of the page's Markdown (not a `#` line of a code block)."""
    parsed = tokens(page_body(page_text))
    return [parsed[i + 1].content for i, token in enumerate(parsed) if token.type == "heading_open"]


def mentions(page_text: str, parse: Callable[[str], Sequence[Token]] = tokens) -> list[Mention]:
    """Every inline code span and every link target of the page's Markdown (not its front matter, not code
    blocks), with the line each stands on. `parse` reads the body into markdown-it tokens (MDX reads its own way)
    from a parser made by `markdown.placed`, which says where each span stands in its block's text.

    A mention's line is the line of its text inside its own span (a link's target, not its label), else of the
    span's start (a code span broken over lines): each block's text is read once, front to back, however many
    spans it holds."""
    body = page_body(page_text)
    offset = page_text.count("\n", 0, len(page_text) - len(body))
    found: list[Mention] = []
    for token in parse(body):
        if token.type != "inline" or not token.children or not token.map:
            continue
        content, at, line = token.content, 0, token.map[0]  # the block's text: its line k is the page's map[0] + k
        for child in token.children:
            if child.type == "code_inline":
                text, kind = child.content, "code"
            elif child.type == "link_open":
                text, kind = str(child.attrs.get("href") or ""), "link"
            else:
                continue
            if not text or len(text) > MAX_SPAN:
                continue
            start, end = child.meta["span"]
            line += content.count("\n", at, start)  # spans come in the order they start
            at = start
            inside = content.find(text, start, end)
            below = content.count("\n", start, inside) if inside >= 0 else 0
            found.append(Mention(text, kind, offset + line + below + 1))  # type: ignore[arg-type]
    return found


def path_of(mention: Mention, page: str) -> str | None:
    """The repository path a mention may name, normalised; None when it cannot be one. A link's first reading:
    relative to the page's own folder (`link_paths` gives every reading a docs site allows)."""
    text = mention.text.strip()
    if mention.kind == "link":
        href = _href(text)
        if href is None:
            return None
        joined = href.lstrip("/") if href.startswith("/") else posixpath.join(posixpath.dirname(page), href)
        return _inside(joined)
    text = _LOCATION.sub("", text)
    if " " in text or not text or text.startswith("-"):
        return None
    return _inside(text.removeprefix("./").lstrip("/"))


def href_of(text: str) -> str | None:
    """A link's path part, decoded (`_href`): None for another scheme or an anchor of the page itself."""
    return _href(text)


def _href(text: str) -> str | None:
    """A link's path part, decoded; None for another scheme (https:, mailto:) or an anchor of the page itself."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", text, re.I) or text.startswith("#"):
        return None
    href = unquote(text.split("#", 1)[0].split("?", 1)[0])  # CommonMark percent-encodes `café.py`
    return href or None


def _inside(path: str) -> str | None:
    """`path` normalised, None when it leaves the repository or names its top."""
    normal = posixpath.normpath(path)
    return None if normal.startswith("../") or normal in (".", "..") else normal


# The files a docs site serves for a link without one (`guide/`, `guide`): MkDocs, Sphinx, MyST, Docusaurus.
DOC_SUFFIXES = (".md", ".mdx", ".rst", ".markdown")
_FOLDER_PAGES = ("index.md", "README.md", "index.mdx", "index.rst", "README.rst")


def link_paths(mention: Mention, page: str, site_root: str | None = None) -> list[str]:
    """Every repository path a link of `page` may name, as a docs site resolves it, best first.

    Relative to the page's folder, as the source files sit; and, on a site (`site_root`, the folder a MkDocs or
    Sphinx build serves) with directory URLs, relative to the page's own URL (`docs/a/b.md` is served at
    `/a/b/`, so `../c` from it is `docs/a/c`); `/x` from the repository's top and from the site's. Each reading
    may name a file as written, the page a docs site builds from it (`c` → `c.md`, `c.rst`; `c/` → `c/index.md`,
    `c/README.md`; `c.html` → `c.md`), or a folder.
    """
    href = _href(mention.text.strip())
    if href is None:
        return []
    if href.startswith("/"):
        bases = [href.lstrip("/")]
        if site_root:
            bases.append(f"{site_root}/{href.lstrip('/')}")
    else:
        folder = posixpath.dirname(page)
        bases = [posixpath.join(folder, href)]
        if site_root and (page + "/").startswith(site_root + "/"):
            stem, suffix = posixpath.splitext(posixpath.basename(page))
            served = folder if stem.lower() in ("index", "readme") else posixpath.join(folder, stem)
            if suffix.lower() in DOC_SUFFIXES and served != folder:
                bases.append(posixpath.join(served, href))
    found: list[str] = []
    for base in bases:
        path = _inside(base)
        if path is None:
            continue
        readings = [path]
        stem, suffix = posixpath.splitext(path)
        if suffix.lower() in (".html", ".htm"):
            readings += [stem + s for s in DOC_SUFFIXES]
        elif not suffix or href.endswith("/"):
            readings += [path + s for s in DOC_SUFFIXES]
            readings += [f"{path}/{name}" for name in _FOLDER_PAGES]
        found += [r for r in readings if r not in found]
    return found


def _symbol_of(mention: Mention) -> str | None:
    """The dotted name a code span may name (`Queue#drain()` → `Queue.drain`); None when it is not a name."""
    if mention.kind != "code":
        return None
    matched = _SYMBOL.fullmatch(mention.text.strip())
    if matched is None or matched["name"] in _LITERALS or matched["name"] in _BUILTINS:
        return None
    return re.sub(r"::|#", ".", matched["name"])


def resolve(
    mention: Mention, page: str, paths: Collection[str], index: SymbolIndex, site_root: str | None = None
) -> tuple[Target, ...]:
    """What a mention names in a repository of `paths` (files, and the folders they make) and `index` (a link: the
    first of its `link_paths` that exists)."""
    if mention.kind == "link":
        path = next((p for p in link_paths(mention, page, site_root) if p in paths or is_folder(p, paths)), None)
        return (Target(path),) if path is not None else ()
    path = path_of(mention, page)
    if path is not None and (path in paths or is_folder(path, paths)):
        return (Target(path),)
    name = _symbol_of(mention)
    if name is None:
        return ()
    return tuple(Target(d.path, d) for d in lookup(name, index))


def lookup(name: str, index: SymbolIndex) -> list[Definition]:
    """The definitions a dotted name may mean: by its qualified name, else (one segment) by its name, else as a
    qualified name behind the path of its module, whose last segment is the file's name or its folder's
    (`taskq.queue.TaskQueue.drain`, Go's `workers.NewPool` for `NewPool` in `pkg/workers/pool.go`), else by its
    last segment in a file named like the segment before it (`queue.push` for `TaskQueue.push` in `queue.py`,
    as a page calls a method on an instance named after its module)."""
    found = index.qualified(name)
    if found:
        return found
    if "." not in name:
        return index.named(name)
    parts = name.split(".")
    while len(parts) > 1 and parts[0] in _PATH_KEYWORDS:
        parts = parts[1:]
    if len(parts) < len(name.split(".")):
        return lookup(".".join(parts), index)
    for cut in range(1, len(parts)):
        module, qualified = parts[cut - 1], ".".join(parts[cut:])
        found = [d for d in index.qualified(qualified) if module in _module_names(d.path)]
        if found:
            return found
    return [d for d in index.named(parts[-1]) if _module_names(d.path)[0] == parts[-2]]


def _module_names(path: str) -> tuple[str, str]:
    """The names code calls a file's module by: the file's own (`queue` for `queue.py`) and its folder's (a Go
    package, a Python package's `__init__.py`)."""
    return posixpath.splitext(posixpath.basename(path))[0], posixpath.basename(posixpath.dirname(path))


def is_folder(path: str, paths: Collection[str]) -> bool:
    """Whether a file of `paths` stands in the folder `path`. A check asks it of every mention: give a frozenset,
    whose folders are gathered once and kept (any other collection is searched through on each call)."""
    if isinstance(paths, frozenset):
        return path.rstrip("/") in folders(paths)
    prefix = path.rstrip("/") + "/"
    return any(p.startswith(prefix) for p in paths)


@lru_cache(maxsize=4)
def folders(paths: frozenset[str]) -> frozenset[str]:
    """Every folder holding a file of `paths` (`src` and `src/q` for `src/q/a.py`), for the last few sets asked."""
    found = set()
    for path in paths:
        cut = path.find("/")
        while cut >= 0:
            found.add(path[:cut])
            cut = path.find("/", cut + 1)
    return frozenset(found)


def references(
    page: str,
    page_text: str,
    paths: Collection[str],
    index: SymbolIndex,
    skip: Callable[[str], bool] | None = None,
    site_root: str | None = None,
    mentioned: Iterable[Mention] | None = None,
) -> list[Reference]:
    """The page's mentions (`mentioned`, else its Markdown's) that resolve: its references (`skip` leaves out
    targets such as the wiki itself)."""
    found = []
    for mention in mentions(page_text) if mentioned is None else mentioned:
        targets = tuple(t for t in resolve(mention, page, paths, index, site_root) if not (skip and skip(t.path)))
        if targets:
            found.append(Reference(page, mention, targets))
    return found


def dead_paths(found: Iterable[Reference], paths: Collection[str]) -> list[DeadReference]:
    """References to a path (not a definition) that does not exist in `paths` (a full sweep's finding)."""
    return [
        DeadReference(ref.page, ref.mention, target, gone_path=True)
        for ref in found
        for target in ref.targets
        if target.definition is None and target.path not in paths and not is_folder(target.path, paths)
    ]


@dataclass(frozen=True)
class ChangedCode:
    """What the change did to the code pages can name: the paths before and after, the definitions of the files
    it changed, on both sides (the other files' are the same on both, and not needed), and the files git saw
    renamed (old path → new path, by its rename detection)."""

    paths_before: Collection[str]
    paths_after: Collection[str]
    changed: Collection[str]  # paths the change touched, on either side
    before: SymbolIndex  # definitions in the changed files at the base
    after: SymbolIndex  # ... and at the head
    renames: Mapping[str, str] = field(default_factory=dict)


# A renamed definition is named only when its body, without its name, is this distinctive: two lines or more (a
# one-line field or constant, `errorName: string;`, reads like any other new one of its type).
MIN_RENAMED_LINES = 2


def _body(definition: Definition, lines: list[str]) -> str:
    """A definition's text without its name (the signature's name replaced), to see the same code renamed."""
    text = "\n".join(line.strip() for line in lines[definition.start - 1 : definition.end])
    return re.sub(rf"\b{re.escape(definition.name)}\b", "\0", text, count=1)


def renamed_path(path: str, code: ChangedCode) -> str | None:
    """Where git saw the file at `path` renamed to, or, for a folder, the one folder its every file went to (each
    renamed, none left, and the name of the folder's part of their paths the same after)."""
    if path in code.renames:
        return code.renames[path]
    prefix = path.rstrip("/") + "/"
    inside = [p for p in code.paths_before if p.startswith(prefix)]
    if not inside or any(p not in code.renames for p in inside):
        return None
    folders = set()
    for old in inside:
        new, tail = code.renames[old], old[len(prefix) :]
        if not new.endswith("/" + tail):
            return None
        folders.add(new[: -len(tail) - 1])
    return folders.pop() if len(folders) == 1 else None


def dead_after(
    found: Iterable[Reference],
    code: ChangedCode,
    still_defined: Callable[[str], bool],
    texts_before: Callable[[str], list[str]] | None = None,
    texts_after: Callable[[str], list[str]] | None = None,
) -> list[DeadReference]:
    """The references (resolved at the base) whose every target the change removed.

    A path target is gone when no file or folder stands there at the head; renamed when git saw it renamed. A
    definition target is gone when it stood in a changed file and no file at the head defines its name: not a
    changed one (`code.after`), and not an unchanged one (`still_defined(name)`, which the caller answers from the
    base's other files). When the head has one new definition whose body is the removed one's, it was renamed
    to it.
    """
    dead = []
    for ref in found:
        alive = False
        gone: list[DeadReference] = []
        for target in ref.targets:
            definition = target.definition
            if definition is None:
                if target.path in code.paths_after or is_folder(target.path, code.paths_after):
                    alive = True
                else:
                    moved = renamed_path(target.path, code)
                    gone.append(DeadReference(ref.page, ref.mention, target, gone_path=True, moved_to=moved))
                continue
            if definition.path not in code.changed or lookup(definition.qualified, code.after):
                alive = True
                continue
            if still_defined(definition.qualified):
                alive = True
                continue
            renamed = _renamed(definition, code, texts_before, texts_after)
            gone.append(DeadReference(ref.page, ref.mention, target, renamed_to=renamed))
        if not alive and gone:
            dead.append(gone[0])
    return dead


def lives_on(dead: DeadReference, at_head: SymbolIndex, text: Callable[[Definition], str]) -> bool:
    """Whether a member a reference named is still reachable under its old name, though its definition went: its
    class survives as an alias of another (`Client = AsyncClient`); or the class survives and sets the member on
    its instances (`self.print = self.console.print`), or the member moved up into a base it derives from
    (`AsyncClient.stream` now `BaseClient.stream`). `text` gives a definition's text at the head (its first lines
    name its bases)."""
    definition = dead.target.definition
    if definition is None or "." not in definition.qualified:
        return False
    holders = lookup(definition.qualified.rsplit(".", 1)[0], at_head)
    if any(h.kind in ("variable", "constant") for h in holders):
        return True
    classes = [text(h) for h in holders if h.kind == "class"]
    member = re.compile(rf"\b(?:self|this|cls)\.{re.escape(definition.name)}\s*=(?!=)")
    if any(member.search(body) for body in classes):
        return True
    moved = dead.renamed_to
    if moved is None or moved.name != definition.name or "." not in moved.qualified:
        return False
    base = re.compile(rf"\b{re.escape(moved.qualified.rsplit('.', 1)[0].rsplit('.', 1)[-1])}\b")
    return any(base.search("\n".join(body.split("\n")[:3])) for body in classes)


def _renamed(
    definition: Definition,
    code: ChangedCode,
    texts_before: Callable[[str], list[str]] | None,
    texts_after: Callable[[str], list[str]] | None,
) -> Definition | None:
    if texts_before is None or texts_after is None or definition.end - definition.start + 1 < MIN_RENAMED_LINES:
        return None
    body = _body(definition, texts_before(definition.path))
    before_names = {d.qualified for d in code.before.definitions}
    new = [
        d
        for d in code.after.definitions
        if d.qualified not in before_names and d.kind == definition.kind and _body(d, texts_after(d.path)) == body
    ]
    return new[0] if len(new) == 1 else None
