"""Rust's definitions: items, impls' and traits' functions, enum variants and fields, modules, macros."""

from __future__ import annotations

from tree_sitter import Node

from .walk import _text, _Walk

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
