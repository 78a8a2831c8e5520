"""What every language's walk shares: a definition, the grammars and their parsers, a node's text and lines."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache

from tree_sitter import Language, Node, Parser

from ...claims.resources import canonical_resource, encode_path

LANGUAGE_OF_SUFFIX = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
}
MAX_INDEXED_BYTES = 1 << 20  # a generated or vendored file of megabytes is not what a page describes


@dataclass(frozen=True, slots=True)
class Definition:
    name: str  # as written: `drain`
    qualified: str  # with its containers, dot-separated: `TaskQueue.drain`
    kind: str  # function, method, class, type, constant, variable, module, macro
    path: str
    start: int  # 1-based, inclusive: the definition itself (with `export`; without decorators or doc comments)
    end: int
    # Where what documents it begins: its doc comment, decorators, annotations (0: at `start`). Not part of what the
    # definition is: two definitions are the same whatever stands above them.
    head: int = field(default=0, compare=False)

    @property
    def resource(self) -> str:
        """The `repo://` resource of the definition's lines (canonical, as OpenWiki writes it)."""
        return canonical_resource(f"repo://{encode_path(self.path)}#L{self.start}-L{self.end}")

    @property
    def documented(self) -> str:
        """The resource of the definition with what documents it above (its doc comment states its contract)."""
        return canonical_resource(f"repo://{encode_path(self.path)}#L{self.head or self.start}-L{self.end}")


def language_of(path: str) -> str | None:
    """The grammar for a file, by its suffix; None: files and paths only."""
    dot = path.rfind(".")
    return LANGUAGE_OF_SUFFIX.get(path[dot:].lower()) if dot > path.rfind("/") else None


# Each language's grammar package on PyPI and the function that gives its language.
_GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
}


@cache
def _parser(language: str) -> Parser:
    """One parser per language, built on first use (a grammar is imported only when a file needs it)."""

    module, function = _GRAMMARS[language]
    return Parser(Language(getattr(importlib.import_module(module), function)()))


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


# What can lead a declaration without being it: Java's annotations (inside its modifiers), TypeScript's
# decorators, comments.
_ADORNMENTS = {"annotation", "marker_annotation", "decorator", "comment", "line_comment", "block_comment"}


def _first_row(node: Node) -> int:
    """The row a definition itself starts on: `@Override` or `@Deprecated` above a Java method is not the method,
    as a decorator above a Python function is not the function."""
    for child in node.children:
        if child.type in _ADORNMENTS:
            continue
        if child.type == "modifiers":
            own = next((c for c in child.children if c.type not in _ADORNMENTS), None)
            if own is None:
                continue
            return own.start_point.row
        return child.start_point.row
    return node.start_point.row


def _last_row(node: Node, start: int | None = None) -> int:
    end = node.end_point
    # A node ending at column 0 of a line ends on the line before (its last newline belongs to it: a `//` comment).
    return end.row if end.column > 0 or end.row == (node.start_point.row if start is None else start) else end.row - 1


def _lines(node: Node) -> tuple[int, int]:
    start = _first_row(node)
    return start + 1, _last_row(node, start) + 1


@dataclass
class _Walk:
    path: str
    found: list[Definition] = field(default_factory=list)

    def add(self, node: Node, name: str, kind: str, scope: tuple[str, ...], span: Node | None = None) -> None:
        if not name:
            return
        start, end = _lines(span or node)
        head = _head_row(span or node) + 1
        self.found.append(Definition(name, ".".join((*scope, name)), kind, self.path, start, end, head))


_LEADING = {*_ADORNMENTS, "attribute_item"}


def _head_row(node: Node) -> int:
    """The row where what documents a definition begins: the comments, decorators and attributes right above it
    (no blank line between), each on lines of its own (a comment ending the line of code above is that code's)."""
    if node.parent is not None and node.parent.type == "decorated_definition":
        node = node.parent
    row = node.start_point.row
    above = node.prev_sibling
    while above is not None and above.type in _LEADING and _last_row(above) >= row - 1:
        before = above.prev_sibling
        if before is not None and _last_row(before) == above.start_point.row:
            break
        row = above.start_point.row
        above = before
    return row
