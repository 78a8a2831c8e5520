"""Go's definitions: functions, methods by receiver, types with their fields and methods, constants, variables."""

from __future__ import annotations

from tree_sitter import Node

from .walk import _text, _Walk


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
