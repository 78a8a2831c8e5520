"""The fake GitHub's GraphQL endpoint: queries validated against GitHub's schema, blobs served by oid or expression."""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import graphql
from graphql import GraphQLError, GraphQLResolveInfo, GraphQLSchema

__all__ = ["execute"]

_SCHEMA_PATH = Path(__file__).resolve().parents[2] / "data" / "github" / "schema.graphql"
MAX_OBJECTS = 500  # GitHub's node limit, loosely: at most this many `object` fields in one query
TEXT_LIMIT = 512_000  # GitHub truncates Blob.text after this many bytes
BINARY_SNIFF = 8_000  # a NUL byte this early makes a blob binary (as git's own heuristic does)
_OID = re.compile(r"[0-9a-fA-F]{40}")
_BLOB_FIELDS = ("oid", "abbreviatedOid", "byteSize", "isBinary", "isTruncated", "text")


class _NotFound(Exception):
    """A lookup GitHub answers with a NOT_FOUND error and null data."""


class _Unsupported(Exception):
    """A valid query asking for something this fake does not serve (or a call the bot should not make)."""


@dataclass(frozen=True)
class _Blob:
    """A Blob as GraphQL shows it; field names are GitHub's."""

    oid: str
    data: bytes

    @property
    def abbreviatedOid(self) -> str:
        return self.oid[:7]

    @property
    def byteSize(self) -> int:
        return len(self.data)

    @property
    def isBinary(self) -> bool:
        if b"\0" in self.data[:BINARY_SNIFF]:
            return True
        try:
            self.data.decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False

    @property
    def isTruncated(self) -> bool:
        return len(self.data) > TEXT_LIMIT

    @property
    def text(self) -> str | None:
        if self.isBinary:
            return None
        # The whole blob is valid UTF-8, so only a character cut in two at the limit can fail to decode.
        return self.data[:TEXT_LIMIT].decode("utf-8", errors="ignore")


@dataclass
class _Context:
    state: Any
    installation: int


def _git_blob_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _parse_oid(value: object) -> str:
    # A ValueError (not a GraphQLError) lets graphql-core say which argument or variable it was, and where.
    if not isinstance(value, str) or not _OID.fullmatch(value):
        raise ValueError("a Git object ID is 40 hex digits")
    return value.lower()


def _parse_oid_literal(node: graphql.ValueNode, _variables: dict[str, Any] | None = None) -> str:
    if not isinstance(node, graphql.StringValueNode):
        raise ValueError("a Git object ID is a string")
    return _parse_oid(node.value)


def _resolve_repository(_root: object, info: GraphQLResolveInfo, owner: str, name: str, **_: object) -> object:
    context: _Context = info.context
    missing = _NotFound(f"Could not resolve to a Repository with the name '{owner}/{name}'.")
    try:
        repo = context.state.get_repo(owner, name)
    except LookupError:
        raise missing from None
    if repo is None:
        raise missing
    installed = getattr(repo, "installation_id", None)
    if isinstance(installed, int) and installed != context.installation:
        raise missing  # GitHub hides repositories the token's installation cannot see
    return repo


def _resolve_object(
    repo: Any, _info: GraphQLResolveInfo, oid: str | None = None, expression: str | None = None
) -> object:
    if (oid is None) == (expression is None):
        raise _Unsupported("Repository.object takes exactly one of oid and expression")
    if oid is not None:
        data = repo.blob(oid)
        return None if data is None else _Blob(oid, bytes(data))
    data = repo.object_at(expression)
    return None if data is None else _Blob(_git_blob_oid(bytes(data)), bytes(data))


def _unsupported(_source: object, info: GraphQLResolveInfo, **_: object) -> object:
    raise _Unsupported(f"the fake GitHub does not serve {info.parent_type.name}.{info.field_name}")


@functools.cache
def _schema() -> GraphQLSchema:
    schema = graphql.build_schema(_SCHEMA_PATH.read_text(encoding="utf-8"))
    # GitObjectID checks its input. graphql-core 3.2 calls parse_value/parse_literal, 3.3 the coerce_* names the
    # constructor derives from them: copy whichever the installed version has onto the schema's scalar.
    oid_type = schema.type_map["GitObjectID"]
    assert isinstance(oid_type, graphql.GraphQLScalarType)
    checked = graphql.GraphQLScalarType(
        "GitObjectID", serialize=str, parse_value=_parse_oid, parse_literal=_parse_oid_literal
    )
    for name in ("serialize", "parse_value", "parse_literal", "coerce_output_value", "coerce_input_value"):
        if name in vars(checked):
            setattr(oid_type, name, vars(checked)[name])
    if hasattr(oid_type, "coerce_input_literal"):
        oid_type.coerce_input_literal = None  # fall back to parse_literal

    assert schema.query_type is not None
    schema.query_type.fields["repository"].resolve = _resolve_repository
    repository = schema.type_map["Repository"]
    assert isinstance(repository, graphql.GraphQLObjectType)
    repository.fields["object"].resolve = _resolve_object
    blob = schema.type_map["Blob"]
    assert isinstance(blob, graphql.GraphQLObjectType)
    for name in _BLOB_FIELDS:
        blob.fields[name].resolve = functools.partial(lambda source, _info, field: getattr(source, field), field=name)
    git_object = schema.type_map["GitObject"]
    assert isinstance(git_object, graphql.GraphQLInterfaceType)
    git_object.resolve_type = lambda value, _info, _type: "Blob" if isinstance(value, _Blob) else None
    return schema


def _count_objects(document: graphql.DocumentNode) -> int:
    count = 0

    class Counter(graphql.Visitor):
        def enter_field(self, node: graphql.FieldNode, *_: object) -> None:
            nonlocal count
            if node.name.value == "object":
                count += 1

    graphql.visit(document, Counter())
    return count


def _refuse(state: Any, message: str, **extra: object) -> tuple[int, dict]:
    state.violations.append(f"graphql: {message}")
    return 200, {"errors": [{"message": message, **extra}]}


def execute(state: Any, token_installation: int, payload: dict) -> tuple[int, dict]:
    """Run one GraphQL request as GitHub would; returns (HTTP status, JSON body). Bot mistakes go to state.violations."""
    if not isinstance(payload, dict):
        state.violations.append("graphql: the request body is not a JSON object")
        return 400, {"message": "Problems parsing JSON"}
    query = payload.get("query")
    if not isinstance(query, str):
        return _refuse(state, "A query attribute must be specified and must be a string.")
    variables = payload.get("variables")
    if variables is not None and not isinstance(variables, dict):
        return _refuse(state, "Variables are invalid JSON.")
    operation_name = payload.get("operationName")

    try:
        document = graphql.parse(query)
    except GraphQLError as error:
        return _refuse(state, error.message, locations=error.formatted.get("locations"))
    schema = _schema()
    errors = graphql.validate(schema, document)
    if errors:
        for error in errors:
            state.violations.append(f"graphql: {error.message}")
        return 200, {"errors": [error.formatted for error in errors]}
    objects = _count_objects(document)
    if objects > MAX_OBJECTS:
        return _refuse(
            state,
            f"This query asks for {objects} objects; more than {MAX_OBJECTS} in one query exceeds the node limit.",
            type="MAX_NODE_LIMIT_EXCEEDED",
        )

    result = graphql.execute_sync(
        schema,
        document,
        context_value=_Context(state, token_installation),
        variable_values=variables,
        operation_name=operation_name,
        field_resolver=_unsupported,
    )
    body: dict[str, Any] = {}
    if result.errors:
        formatted = []
        for error in result.errors:
            entry = dict(error.formatted)
            if isinstance(error.original_error, _NotFound):
                entry = {"type": "NOT_FOUND", **entry}
            else:
                state.violations.append(f"graphql: {error.message}")
            formatted.append(entry)
        body["errors"] = formatted
    if result.data is not None or not result.errors:
        body["data"] = result.data
    return 200, body
