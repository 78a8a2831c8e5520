"""The REST contract: match a request to an operation of GitHub's OpenAPI subset and check its query and body."""

from __future__ import annotations

import functools
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
from jsonschema.exceptions import best_match

__all__ = ["OPERATIONS", "validate_request"]

_SUBSET_PATH = Path(__file__).resolve().parents[2] / "data" / "github" / "openapi-subset.json"

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# Keywords of an OpenAPI 3.0 Schema Object that JSON Schema draft 4 does not know; dropped before validating.
_OAS30_ONLY = frozenset(
    {"nullable", "discriminator", "readOnly", "writeOnly", "xml", "externalDocs", "example", "deprecated"}
)
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
# Query booleans as GitHub's REST API reads them.
_BOOLEANS = {"true": True, "false": False, "1": True, "0": False}
_INVALID = object()


def _load() -> dict[str, Any]:
    with _SUBSET_PATH.open(encoding="utf-8") as handle:
        return json.load(handle)


_DOCUMENT = _load()
OPERATIONS: list[str] = [
    operation["operationId"]
    for item in _DOCUMENT["paths"].values()
    for method, operation in item.items()
    if method in _METHODS
]


def _deref(node: Any) -> Any:
    """Follow a local `#/components/...` reference (parameters are referenced by name in GitHub's description)."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = _DOCUMENT
        for token in node["$ref"].removeprefix("#/").split("/"):
            target = target[token.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def _is_oas30() -> bool:
    return str(_DOCUMENT["openapi"]).startswith("3.0")


def _to_json_schema(schema: Any) -> Any:
    """An OpenAPI 3.0 Schema Object as JSON Schema draft 4: `nullable: true` becomes a "null" type (and enum value)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _OAS30_ONLY:
            continue
        if key in ("properties", "patternProperties"):
            out[key] = {name: _to_json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = _to_json_schema(value)
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [_to_json_schema(sub) for sub in value]
        else:
            out[key] = value
    if schema.get("nullable") is True:
        if isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        if "type" not in out:  # a reference or a composition: null or whatever it says
            out = {"anyOf": [{"type": "null"}, out]}
    return out


def _check_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not _DATE_TIME.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value.upper())
    except ValueError:
        return False
    return True


_FORMATS = jsonschema.FormatChecker(formats=())
_FORMATS.checks("date-time")(_check_date_time)


@functools.cache
def _components() -> dict[str, Any]:
    schemas = _DOCUMENT.get("components", {}).get("schemas", {})
    if _is_oas30():
        schemas = {name: _to_json_schema(schema) for name, schema in schemas.items()}
    return {"schemas": schemas}


@functools.cache
def _validator(pointer: str) -> jsonschema.protocols.Validator:
    """A validator for the schema at `pointer` (JSON pointer tokens as JSON); its `#/components/...` refs resolve."""
    node: Any = _DOCUMENT
    for token in json.loads(pointer):
        node = _deref(node)[token]
    node = _deref(node)
    if _is_oas30():
        root = {"components": _components(), "allOf": [_to_json_schema(node)]}
        return jsonschema.Draft4Validator(root, format_checker=_FORMATS)
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "components": _components(), "allOf": [node]}
    return jsonschema.Draft202012Validator(root, format_checker=_FORMATS)


def _first_error(validator: jsonschema.protocols.Validator, instance: object) -> str | None:
    """The most relevant error as "<json path>: <message>"; for anyOf/oneOf, what each alternative objects to."""
    error = best_match(validator.iter_errors(instance))
    if error is None:
        return None
    top = error
    while top.parent is not None:
        top = top.parent
    if top.validator in ("anyOf", "oneOf") and top.context:
        reasons = "; or ".join(f"{sub.json_path}: {sub.message}" for sub in top.context)
        return f"{top.json_path}: fits none of the {top.validator} alternatives: {reasons}"
    return f"{error.json_path}: {error.message}"


class _Route:
    """One path template, compiled: `{name}` is one segment, or the rest (`x-multi-segment`) as GitHub says."""

    def __init__(self, template: str, item: dict[str, Any]) -> None:
        self.template = template
        self.operations: dict[str, dict[str, Any]] = {}
        self.parameters: dict[str, dict[str, list[dict[str, Any]]]] = {}
        multi: set[str] = set()
        for method, operation in item.items():
            if method not in _METHODS:
                continue
            self.operations[method.upper()] = operation
            declared = [_deref(p) for p in item.get("parameters", []) + operation.get("parameters", [])]
            by_place: dict[str, list[dict[str, Any]]] = {}
            for parameter in declared:
                by_place.setdefault(parameter["in"], []).append(parameter)
                if parameter["in"] == "path" and parameter.get("x-multi-segment"):
                    multi.add(parameter["name"])
            self.parameters[method.upper()] = by_place
        pattern = ""
        literal = 0
        for piece in re.split(r"(\{[^}]+\})", template):
            if piece.startswith("{"):
                name = piece[1:-1]
                pattern += f"(?P<{name}>.+?)" if name in multi else f"(?P<{name}>[^/]+?)"
            else:
                pattern += re.escape(piece)
                literal += len(piece)
        self.regex = re.compile(pattern)
        self.literal = literal  # a template with more literal text wins over a looser one

    def match(self, path: str) -> dict[str, str] | None:
        found = self.regex.fullmatch(path)
        return None if found is None else {name: unquote(value) for name, value in found.groupdict().items()}


@functools.cache
def _routes() -> list[_Route]:
    routes = [_Route(template, item) for template, item in _DOCUMENT["paths"].items()]
    return sorted(routes, key=lambda route: -route.literal)


def _coerce(raw: str, schema: dict[str, Any]) -> object:
    """A query or path string as the JSON value the parameter's schema describes, or _INVALID."""
    kind = schema.get("type")
    if isinstance(kind, list):  # OpenAPI 3.1
        kind = next((k for k in kind if k != "null"), None)
    if kind == "integer":
        return int(raw) if re.fullmatch(r"-?\d+", raw) else _INVALID
    if kind == "number":
        try:
            return float(raw)
        except ValueError:
            return _INVALID
    if kind == "boolean":
        return _BOOLEANS.get(raw, _INVALID)
    return raw


def _check_parameter(operation_id: str, parameter: dict[str, Any], values: list[str], pointer: str) -> str | None:
    place, name = parameter["in"], parameter["name"]
    schema = _deref(parameter.get("schema", {}))
    if schema.get("type") != "array" and len(values) > 1:
        return f"{place} parameter {name!r} of {operation_id} is given {len(values)} times"
    instance: object
    if schema.get("type") == "array":
        item_schema = _deref(schema.get("items", {}))
        instance = [_coerce(value, item_schema) for value in values]
        bad = [value for value, coerced in zip(values, instance, strict=True) if coerced is _INVALID]
    else:
        instance = _coerce(values[0], schema)
        bad = values if instance is _INVALID else []
    if bad:
        return f"{place} parameter {name}={bad[0]!r} of {operation_id} does not fit type {schema.get('type')}"
    problem = _first_error(_validator(pointer), instance)
    if problem is not None:
        return f"{place} parameter {name}={values[0]!r} of {operation_id}: {problem.split(': ', 1)[1]}"
    return None


def _parameter_pointer(route: _Route, method: str, parameter: dict[str, Any]) -> str:
    """A cache key naming the parameter's schema: its JSON pointer tokens, as JSON."""
    item = _DOCUMENT["paths"][route.template]
    for where, declared in (
        (["paths", route.template], item.get("parameters", [])),
        (["paths", route.template, method.lower()], item[method.lower()].get("parameters", [])),
    ):
        for index, candidate in enumerate(declared):
            if _deref(candidate) is parameter:
                return json.dumps([*where, "parameters", index, "schema"])
    raise KeyError(parameter["name"])


def validate_request(
    method: str, path: str, query: dict[str, list[str]], body: object | None
) -> tuple[str | None, str | None]:
    """(operation id, None) for an allowed request; (operation id, why) for a refused one; (None, why) for no route."""
    method = method.upper()
    path = path.split("?", 1)[0]
    for route in _routes():
        values = route.match(path)
        if values is None or method not in route.operations:
            continue
        operation = route.operations[method]
        operation_id: str = operation["operationId"]
        declared = route.parameters[method]

        for parameter in declared.get("path", []):
            pointer = _parameter_pointer(route, method, parameter)
            problem = _check_parameter(operation_id, parameter, [values[parameter["name"]]], pointer)
            if problem is not None:
                return operation_id, problem

        by_name = {parameter["name"]: parameter for parameter in declared.get("query", [])}
        for name in query:
            if name not in by_name:
                accepted = ", ".join(sorted(by_name)) or "none"
                return (
                    operation_id,
                    f"query parameter {name!r} is not declared by {operation_id} (it takes: {accepted})",
                )
        for name, parameter in by_name.items():
            if name not in query:
                if parameter.get("required"):
                    return operation_id, f"query parameter {name!r} is required by {operation_id}"
                continue
            pointer = _parameter_pointer(route, method, parameter)
            problem = _check_parameter(operation_id, parameter, list(query[name]), pointer)
            if problem is not None:
                return operation_id, problem

        request_body = operation.get("requestBody")
        if request_body is None:
            if body is not None:
                return operation_id, f"{operation_id} takes no request body"
            return operation_id, None
        request_body = _deref(request_body)
        if body is None:
            if request_body.get("required"):
                return operation_id, f"{operation_id} requires a JSON request body"
            return operation_id, None
        if "application/json" not in request_body.get("content", {}):
            return operation_id, f"{operation_id} takes no JSON request body"
        pointer = json.dumps(
            ["paths", route.template, method.lower(), "requestBody", "content", "application/json", "schema"]
        )
        problem = _first_error(_validator(pointer), body)
        if problem is not None:
            return operation_id, f"request body of {operation_id} at {problem}"
        return operation_id, None
    return None, f"no such operation: {method} {path}"
