"""Java's definitions: classes, interfaces, enums, records and their methods, constants and fields."""

from __future__ import annotations

from tree_sitter import Node

from .walk import _text, _Walk

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
