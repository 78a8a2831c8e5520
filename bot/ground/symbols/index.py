"""A file's symbols from one parse (its definitions and string values), and the index of many files' symbols."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tree_sitter import Node

from .go import _go
from .java import _java
from .javascript import _javascript
from .python import _python
from .rust import _rust
from .walk import MAX_INDEXED_BYTES, Definition, _parser, _text, _Walk, language_of

_WALKERS: dict[str, Callable[[_Walk, Any, tuple[str, ...]], None]] = {
    "python": lambda walk, root, scope: _python(walk, root, scope, in_class=False),
    "javascript": _javascript,
    "typescript": _javascript,
    "tsx": _javascript,
    "go": _go,
    "rust": _rust,
    "java": _java,
}


# -- values -------------------------------------------------------------------------------------------------

_STRINGS = {"string", "template_string", "interpreted_string_literal", "raw_string_literal", "string_literal"}
_STRING_PARTS = {
    "string_content",
    "string_fragment",
    "multiline_string_fragment",
    "interpreted_string_literal_content",
    "raw_string_literal_content",
    "escape_sequence",
}
_INTERPOLATIONS = {"interpolation", "template_substitution"}
MAX_LITERAL = 200  # a longer string is a message or a template, not a value a page writes in backticks


def _literal(node: Node) -> str | None:
    """A string's fixed value (as written, escapes included); None for one that interpolates, or spans lines."""
    parts = []
    for child in node.children:
        if child.type in _INTERPOLATIONS:
            return None
        if child.type in _STRING_PARTS:
            parts.append(_text(child))
    value = "".join(parts)
    return value if value.strip() and len(value) <= MAX_LITERAL and "\n" not in value else None


def _literals(root: Node) -> list[tuple[str, int]]:
    """Every string value of a tree and the line it stands on (a cursor walk: the whole tree, not only the
    definitions' level)."""
    found = []
    cursor = root.walk()
    while True:
        node = cursor.node
        descend = node is None or node.type not in _STRINGS  # a string's parts hold nothing more
        if not descend and node is not None and (value := _literal(node)) is not None:
            found.append((value, node.start_point.row + 1))
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return found


# -- files and the index ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FileSymbols:
    definitions: list[Definition]
    literals: list[tuple[str, int]]  # each string value and its line


def _root(path: str, data: bytes) -> tuple[str, Node] | None:
    language = language_of(path)
    if language is None or len(data) > MAX_INDEXED_BYTES or b"\0" in data[:8000]:
        return None
    return language, _parser(language).parse(data).root_node


def does_not_parse(path: str, data: bytes) -> bool:
    """Whether a file of code has a syntax error, so that what its definitions seem to lack may still be there:
    tree-sitter's error nodes, and for Python its own parser too (an indentation tree-sitter forgives, Python
    does not: a class whose docstring was indented too far loses its methods to the module)."""
    parsed = _root(path, data)
    if parsed is None:
        return False
    language, root = parsed
    if root.has_error:
        return True
    if language != "python":
        return False
    try:
        ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return False


def definitions(path: str, data: bytes) -> list[Definition]:
    """Every definition of one file, in the order they stand; [] for a language without a grammar here."""
    return read_symbols(path, data, values=False).definitions


def read_symbols(path: str, data: bytes, *, values: bool = True) -> FileSymbols:
    """A file's definitions and (with `values`) its string values, from one parse."""
    parsed = _root(path, data)
    if parsed is None:
        return FileSymbols([], [])
    language, root = parsed
    walk = _Walk(path)
    _WALKERS[language](walk, root, ())
    return FileSymbols(walk.found, _literals(root) if values else [])


class SymbolIndex:
    """Definitions of many files, by name, by qualified name and by file; and, when built from the files
    themselves, the string values they write and where (a page's `git-repo` may be a value, not a name)."""

    def __init__(self, found: Iterable[Definition] = ()) -> None:
        self.definitions: list[Definition] = []
        self._by_name: dict[str, list[Definition]] = {}
        self._by_qualified: dict[str, list[Definition]] = {}
        self._by_path: dict[str, list[Definition]] = {}
        self._literals: dict[str, list[tuple[str, int]]] = {}
        self.extend(found)

    @classmethod
    def of_files(cls, files: Mapping[str, bytes], *, values: bool = True) -> SymbolIndex:
        """The files' definitions and, with `values`, their string values (grounding wants them; a reference
        check does not, and a file's values cost as much to walk as its definitions)."""
        index = cls()
        for path in sorted(files):
            read = read_symbols(path, files[path], values=values)
            index.extend(read.definitions)
            for value, line in read.literals:
                index._literals.setdefault(value, []).append((path, line))
        return index

    def extend(self, found: Iterable[Definition]) -> None:
        for definition in found:
            self.definitions.append(definition)
            self._by_name.setdefault(definition.name, []).append(definition)
            self._by_qualified.setdefault(definition.qualified, []).append(definition)
            self._by_path.setdefault(definition.path, []).append(definition)

    def named(self, name: str) -> list[Definition]:
        return self._by_name.get(name, [])

    def qualified(self, qualified: str) -> list[Definition]:
        return self._by_qualified.get(qualified, [])

    def in_file(self, path: str) -> Iterator[Definition]:
        return iter(self._by_path.get(path, ()))

    def literal(self, value: str) -> list[tuple[str, int]]:
        """Where the code writes `value` as a whole string: (path, line) in path and line order."""
        return self._literals.get(value, [])

    def enclosing(self, path: str, line: int) -> Definition | None:
        """The innermost definition a line of `path` stands in (a method rather than its class)."""
        inside = [d for d in self._by_path.get(path, ()) if d.start <= line <= d.end]
        return min(inside, key=lambda d: (d.end - d.start, -d.start), default=None)

    def __len__(self) -> int:
        return len(self.definitions)
