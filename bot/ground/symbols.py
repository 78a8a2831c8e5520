"""The symbol index: the definitions of a repository's code (functions, classes, methods, types, constants), each
with its file and line range, read with tree-sitter grammars.

Only what a page can name from outside is indexed: top-level definitions (JavaScript's CommonJS exports and
prototype methods included) and the members of classes, structs, enums, impls, traits, interfaces, namespaces and
modules (methods, fields, enum members), qualified by their container (`TaskQueue.drain`, `Queue.Drain` for a Go
method on `*Queue`). Bodies of functions are not entered: a local variable is nobody's API. A file of a language without
a grammar here contributes its path only (the caller keeps the paths). Pure: bytes in, definitions out.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from ..claims.resources import canonical_resource, encode_path

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

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
    from tree_sitter import Language, Parser  # noqa: PLC0415 - only grounding and references pay for the parsers

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


# -- Python ------------------------------------------------------------------------------------------------


def _python(walk: _Walk, node: Node, scope: tuple[str, ...], in_class: bool) -> None:
    for child in node.named_children:
        target, span = child, child
        if child.type == "decorated_definition":
            target = child.child_by_field_name("definition") or child
            span = target
        if target.type == "class_definition":
            name = _text(target.child_by_field_name("name"))
            walk.add(target, name, "class", scope, span)
            body = target.child_by_field_name("body")
            if body is not None:
                _python(walk, body, (*scope, name), in_class=True)
        elif target.type == "function_definition":
            walk.add(target, _text(target.child_by_field_name("name")), "method" if in_class else "function", scope)
        elif child.type == "expression_statement":
            for assignment in child.named_children:
                if assignment.type == "assignment":
                    left = assignment.child_by_field_name("left")
                    if left is not None and left.type == "identifier":
                        name = _text(left)
                        kind = "constant" if name.isupper() or in_class else "variable"
                        walk.add(child, name, kind, scope)


# -- JavaScript and TypeScript ---------------------------------------------------------------------------------

_JS_TYPES = {"interface_declaration", "type_alias_declaration", "enum_declaration"}
_JS_FUNCTIONS = {"function_declaration", "generator_function_declaration", "function_signature"}
_JS_CLASSES = {"class_declaration", "abstract_class_declaration"}
_JS_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}
_JS_METHODS = {"method_definition", "abstract_method_signature", "method_signature"}
_JS_FIELDS = {"public_field_definition", "field_definition"}


def _js_name(node: Node | None) -> str:
    """A member's name when it is a plain one: not computed (`[Symbol.iterator]`), not private (`#cache`)."""
    return _text(node) if node is not None and node.type in ("property_identifier", "identifier") else ""


def _js_is_function(value: Node | None) -> bool:
    return value is not None and value.type in _JS_FUNCTION_VALUES


def _js_members(walk: _Walk, body: Node | None, owner: tuple[str, ...]) -> None:
    """The members of a class or an interface: methods, and fields (a field holding a function is a method)."""
    for member in body.named_children if body is not None else ():
        if member.type in _JS_METHODS:
            walk.add(member, _js_name(member.child_by_field_name("name")), "method", owner)
        elif member.type in _JS_FIELDS or member.type == "property_signature":
            name = member.child_by_field_name("name") or member.child_by_field_name("property")
            value = member.child_by_field_name("value")
            walk.add(member, _js_name(name), "method" if _js_is_function(value) else "variable", owner)


def _js_enum_members(walk: _Walk, body: Node | None, owner: tuple[str, ...]) -> None:
    for member in body.named_children if body is not None else ():
        name = member.child_by_field_name("name") if member.type == "enum_assignment" else member
        if name is not None and name.type == "property_identifier":
            walk.add(member, _text(name), "constant", owner)


def _js_object_members(walk: _Walk, value: Node, scope: tuple[str, ...]) -> None:
    """The names an exported object literal adds (`module.exports = {...}`, `export default {...}`); a member that
    only re-exports a name of the module under the same name (`{ drain: drain }`, `{ drain }`) adds none."""
    for member in value.named_children:
        if member.type == "method_definition":
            walk.add(member, _js_name(member.child_by_field_name("name")), "function", scope)
        elif member.type == "pair":
            key, inner = member.child_by_field_name("key"), member.child_by_field_name("value")
            if inner is not None and inner.type == "identifier" and _text(inner) == _text(key):
                continue
            walk.add(member, _js_name(key), "function" if _js_is_function(inner) else "variable", scope)


def _js_is_exports(node: Node) -> bool:
    """`exports` or `module.exports`: CommonJS's export object."""
    if node.type == "identifier":
        return _text(node) == "exports"
    if node.type != "member_expression":
        return False
    owner, name = node.child_by_field_name("object"), node.child_by_field_name("property")
    return owner is not None and owner.type == "identifier" and _text(owner) == "module" and _text(name) == "exports"


def _js_assignment(walk: _Walk, statement: Node, assignment: Node, scope: tuple[str, ...]) -> None:
    """Definitions made by assigning at the top of a module: CommonJS exports (`exports.drain = ...`), methods
    (`Queue.prototype.drain = ...`) and functions kept on an object (`helpers.drain = function ...`)."""
    left, value = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    if left is None or value is None:
        return
    if _js_is_exports(left):
        if value.type == "object":
            _js_object_members(walk, value, scope)
        return
    if left.type != "member_expression":
        return
    owner, member = left.child_by_field_name("object"), left.child_by_field_name("property")
    if owner is None or member is None or member.type != "property_identifier":
        return
    name = _text(member)
    if _js_is_exports(owner):
        walk.add(statement, name, "function" if _js_is_function(value) else "variable", scope)
    elif owner.type == "member_expression" and _text(owner.child_by_field_name("property")) == "prototype":
        cls = owner.child_by_field_name("object")
        if cls is not None and cls.type == "identifier":
            walk.add(statement, name, "method", (*scope, _text(cls)))
    elif owner.type == "identifier" and _js_is_function(value):
        walk.add(statement, name, "function", (*scope, _text(owner)))


def _javascript(walk: _Walk, node: Node, scope: tuple[str, ...]) -> None:
    for child in node.named_children:
        span = child
        target = child
        if child.type == "export_statement":
            target = child.child_by_field_name("declaration") or child
            value = child.child_by_field_name("value")
            if value is not None and value.type == "object":  # `export default {...}`
                _js_object_members(walk, value, scope)
                continue
        elif child.type == "expression_statement" and child.named_children:
            target = child.named_children[0]  # a TypeScript namespace stands in an expression statement
            if target.type == "assignment_expression":
                _js_assignment(walk, child, target, scope)
                continue
        if target.type in _JS_FUNCTIONS:
            walk.add(target, _text(target.child_by_field_name("name")), "function", scope, span)
        elif target.type in _JS_CLASSES:
            name = _text(target.child_by_field_name("name"))
            walk.add(target, name, "class", scope, span)
            _js_members(walk, target.child_by_field_name("body"), (*scope, name))
        elif target.type in _JS_TYPES:
            name = _text(target.child_by_field_name("name"))
            walk.add(target, name, "type", scope, span)
            if target.type == "interface_declaration":
                _js_members(walk, target.child_by_field_name("body"), (*scope, name))
            elif target.type == "enum_declaration":
                _js_enum_members(walk, target.child_by_field_name("body"), (*scope, name))
        elif target.type in ("lexical_declaration", "variable_declaration"):
            constant = _text(target.children[0]) == "const" if target.children else False
            declarators = [d for d in target.named_children if d.type == "variable_declarator"]
            for declarator in declarators:
                name_node = declarator.child_by_field_name("name")
                if name_node is None or name_node.type != "identifier":
                    continue
                value = declarator.child_by_field_name("value")
                kind = "function" if _js_is_function(value) else "constant" if constant else "variable"
                # One declarator: the whole statement (with `export`); several: each its own lines.
                alone = len(declarators) == 1
                walk.add(target if alone else declarator, _text(name_node), kind, scope, span if alone else declarator)
        elif target.type in ("module", "internal_module"):  # TypeScript namespaces
            name = _text(target.child_by_field_name("name"))
            walk.add(target, name, "module", scope, span)
            body = target.child_by_field_name("body")
            if body is not None:
                _javascript(walk, body, (*scope, name))


# -- Go ------------------------------------------------------------------------------------------------------


def _go_receiver(method: Node) -> str:
    receiver = method.child_by_field_name("receiver")
    for parameter in receiver.named_children if receiver is not None else ():
        kind = parameter.child_by_field_name("type")
        while kind is not None and kind.type in ("pointer_type", "generic_type"):
            kind = kind.named_children[0] if kind.named_children else None
        if kind is not None:
            return _text(kind)
    return ""


def _go(walk: _Walk, node: Node, scope: tuple[str, ...]) -> None:
    for child in node.named_children:
        if child.type == "function_declaration":
            walk.add(child, _text(child.child_by_field_name("name")), "function", scope)
        elif child.type == "method_declaration":
            receiver = _go_receiver(child)
            owner = (*scope, receiver) if receiver else scope
            walk.add(child, _text(child.child_by_field_name("name")), "method", owner)
        elif child.type in ("type_declaration", "const_declaration", "var_declaration"):
            specs = [c for c in child.named_children if c.type in ("type_spec", "type_alias", "const_spec", "var_spec")]
            for group in child.named_children:  # `var (...)` groups its specs in a list
                if group.type in ("const_spec_list", "var_spec_list"):
                    specs.extend(c for c in group.named_children if c.type in ("const_spec", "var_spec"))
            kind = {"type_declaration": "type", "const_declaration": "constant", "var_declaration": "variable"}
            for spec in specs:
                span = child if len(specs) == 1 else spec
                for name_node in spec.children_by_field_name("name"):
                    name = _text(name_node)
                    if name == "_":  # the blank identifier names nothing
                        continue
                    walk.add(spec, name, kind[child.type], scope, span)
                    if child.type == "type_declaration":
                        _go_members(walk, spec.child_by_field_name("type"), (*scope, name))


def _go_members(walk: _Walk, kind: Node | None, owner: tuple[str, ...]) -> None:
    """An interface's methods, a struct's named fields (an embedded field names a type, not a member)."""
    if kind is None:
        return
    if kind.type == "interface_type":
        for element in kind.named_children:
            if element.type in ("method_elem", "method_spec"):
                walk.add(element, _text(element.child_by_field_name("name")), "method", owner)
    elif kind.type == "struct_type":
        for fields in kind.named_children:
            for field_node in fields.named_children if fields.type == "field_declaration_list" else ():
                if field_node.type == "field_declaration":
                    for name_node in field_node.children_by_field_name("name"):
                        if _text(name_node) != "_":  # padding
                            walk.add(field_node, _text(name_node), "variable", owner)


# -- Rust ----------------------------------------------------------------------------------------------------

_RUST_TYPES = {"struct_item": "type", "enum_item": "type", "union_item": "type", "type_item": "type"}


def _rust_type_name(node: Node | None) -> str:
    while node is not None and node.type in ("generic_type", "reference_type", "scoped_type_identifier"):
        inner = node.child_by_field_name("type") or node.child_by_field_name("name")
        if inner is None or inner == node:
            break
        node = inner
    return _text(node)


def _rust(walk: _Walk, node: Node, scope: tuple[str, ...], in_impl: bool = False) -> None:
    for child in node.named_children:
        name = _text(child.child_by_field_name("name"))
        if child.type in ("function_item", "function_signature_item"):
            walk.add(child, name, "method" if in_impl else "function", scope)
        elif child.type in _RUST_TYPES:
            walk.add(child, name, _RUST_TYPES[child.type], scope)
            body = child.child_by_field_name("body")
            for member in body.named_children if body is not None else ():
                if member.type == "enum_variant":
                    walk.add(member, _text(member.child_by_field_name("name")), "constant", (*scope, name))
                elif member.type == "field_declaration":  # a struct's or a union's named field
                    walk.add(member, _text(member.child_by_field_name("name")), "variable", (*scope, name))
        elif child.type in ("const_item", "static_item"):
            walk.add(child, name, "constant", scope)
        elif child.type == "macro_definition":
            walk.add(child, name, "macro", scope)
        elif child.type == "trait_item":
            walk.add(child, name, "type", scope)
            body = child.child_by_field_name("body")
            if body is not None:
                _rust(walk, body, (*scope, name), in_impl=True)
        elif child.type == "impl_item":
            owner = _rust_type_name(child.child_by_field_name("type"))
            body = child.child_by_field_name("body")
            if body is not None and owner:
                _rust(walk, body, (*scope, owner), in_impl=True)
        elif child.type == "mod_item":
            walk.add(child, name, "module", scope)
            body = child.child_by_field_name("body")
            if body is not None:
                _rust(walk, body, (*scope, name))


# -- Java ----------------------------------------------------------------------------------------------------

_JAVA_TYPES = {
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
}


_JAVA_METHODS = {"method_declaration", "constructor_declaration", "annotation_type_element_declaration"}


def _java(walk: _Walk, node: Node, scope: tuple[str, ...], in_type: bool = False) -> None:
    for child in node.named_children:
        if child.type in _JAVA_TYPES:
            name = _text(child.child_by_field_name("name"))
            walk.add(child, name, "class", scope)
            body = child.child_by_field_name("body")
            if body is not None:
                _java(walk, body, (*scope, name), in_type=True)
        elif in_type and child.type in _JAVA_METHODS:
            walk.add(child, _text(child.child_by_field_name("name")), "method", scope)
        elif in_type and child.type == "enum_constant":
            walk.add(child, _text(child.child_by_field_name("name")), "constant", scope)
        elif in_type and child.type in ("field_declaration", "constant_declaration"):
            modifiers = next((_text(c) for c in child.named_children if c.type == "modifiers"), "")
            # An interface's fields are constants whatever their modifiers say (they are static and final).
            static_final = "static" in modifiers.split() and "final" in modifiers.split()
            kind = "constant" if child.type == "constant_declaration" or static_final else "variable"
            for declarator in child.children_by_field_name("declarator"):
                walk.add(child, _text(declarator.child_by_field_name("name")), kind, scope)
        elif child.type == "enum_body_declarations":
            _java(walk, child, scope, in_type=True)


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
    import ast  # noqa: PLC0415 - only when a Python file seems to have lost a definition

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
