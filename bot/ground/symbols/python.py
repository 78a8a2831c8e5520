"""Python's definitions: classes, functions and methods, module and class constants and variables."""

from __future__ import annotations

from tree_sitter import Node

from .walk import _text, _Walk


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
