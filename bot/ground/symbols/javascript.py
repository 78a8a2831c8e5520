"""JavaScript's and TypeScript's definitions: declarations, class and interface members, CommonJS exports."""

from __future__ import annotations

from tree_sitter import Node

from .walk import _text, _Walk

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
