"""Request checks for POST /v1/chat/completions, with OpenAI's status codes, messages, params and codes.

`validate_chat(body, models)` returns None for a request OpenAI would accept, else the `ApiError` it would
answer. What is checked, in this order:

- the body is a JSON object;
- `model` is present (400) and known (404 `model_not_found`);
- `messages` is a non-empty array of objects with a valid role (system, developer, user, assistant, tool);
  system/developer/user/tool messages have `content`; an assistant message has `content` or `tool_calls`,
  and its tool calls are `{"id", "type": "function", "function": {"name", "arguments": <str>}}`;
- a `tool` message has a `tool_call_id` answering a tool call of the assistant message before it (only tool
  messages in between), and every tool call of an assistant message is answered before the next message;
- `tools` is a non-empty array of `{"type": "function", "function": {"name", "parameters"?, "description"?,
  "strict"?}}` with names matching `^[a-zA-Z0-9_-]{1,64}$`; `tool_choice` needs `tools` and names one;
- `response_format` is `{"type": "text"}`, `{"type": "json_object"}` (the messages must then say "json", as
  OpenAI insists) or `{"type": "json_schema", "json_schema": {"name", "schema": <object>, "strict"?: bool,
  "description"?}}`; with `strict: true` (here and on a tool) every object schema must list all its
  properties in `required` and set `additionalProperties: false`;
- `stream: true` and `n` > 1 are refused: this fake answers neither.

Other top-level keys pass: the client sends many (temperature, seed, user, metadata, ...).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

ROLES = ("system", "developer", "user", "assistant", "tool")
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
FUNCTION_KEYS = frozenset({"name", "parameters", "description", "strict"})
JSON_SCHEMA_KEYS = frozenset({"name", "schema", "strict", "description"})


@dataclass
class ApiError(Exception):
    """An OpenAI error answer: status and the fields of `{"error": {...}}`."""

    status: int
    message: str
    param: str | None = None
    code: str | None = None
    type: str = "invalid_request_error"

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}


def _invalid(message: str, param: str | None, code: str | None = "invalid_value") -> ApiError:
    return ApiError(400, message, param, code)


def _type_error(param: str, expected: str, value: Any) -> ApiError:
    got = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), f"a {type(value).__name__}"
    )
    return _invalid(f"Invalid type for '{param}': expected {expected}, but got {got} instead.", param, "invalid_type")


def validate_chat(body: Any, models: Sequence[str]) -> ApiError | None:
    try:
        _check(body, models)
    except ApiError as error:
        return error
    return None


def _check(body: Any, models: Sequence[str]) -> None:
    if not isinstance(body, dict):
        raise _invalid(
            "We could not parse the JSON body of your request. (The request body is not a JSON object.)", None, None
        )
    model = body.get("model")
    if model is None:
        raise _invalid("you must provide a model parameter", None, None)
    if not isinstance(model, str):
        raise _type_error("model", "a string", model)
    if model not in models:
        raise ApiError(
            404, f"The model `{model}` does not exist or you do not have access to it.", None, "model_not_found"
        )
    _check_messages(body.get("messages"))
    tool_names = _check_tools(body)
    _check_tool_choice(body, tool_names)
    _check_response_format(body)
    if body.get("stream") not in (None, False):
        raise _invalid(
            "stream=true is not supported by the fake OpenAI server (it answers whole completions only).",
            "stream",
            "unsupported_value",
        )
    if body.get("n") not in (None, 1):
        raise _invalid(
            "n other than 1 is not supported by the fake OpenAI server (it answers one choice).",
            "n",
            "unsupported_value",
        )


def _check_messages(messages: Any) -> None:
    if messages is None:
        raise _invalid("Missing required parameter: 'messages'.", "messages", "missing_required_parameter")
    if not isinstance(messages, list):
        raise _type_error("messages", "an array", messages)
    if not messages:
        raise _invalid(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            "messages",
            "empty_array",
        )
    pending: dict[str, int] = {}  # tool call ids of the last assistant message, not answered yet -> its index
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise _type_error(where, "an object", message)
        role = message.get("role")
        if role is None:
            raise _invalid(
                f"Missing required parameter: '{where}.role'.", f"{where}.role", "missing_required_parameter"
            )
        if role not in ROLES:
            raise _invalid(
                f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.",
                f"{where}.role",
            )
        if role != "tool" and pending:
            raise _unanswered(pending)
        if role == "tool":
            _check_tool_message(message, where, index, messages, pending)
        elif role == "assistant":
            pending = _check_assistant(message, where, index)
        elif "content" not in message or message["content"] is None:
            raise _invalid(
                f"Missing required parameter: '{where}.content'.", f"{where}.content", "missing_required_parameter"
            )
    if pending:
        raise _unanswered(pending)


def _unanswered(pending: dict[str, int]) -> ApiError:
    index = next(iter(pending.values()))
    ids = ", ".join(pending)
    return _invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        f"'tool_call_id'. The following tool_call_ids did not have response messages: {ids}",
        f"messages.[{index}].role",
        None,
    )


def _check_assistant(message: dict[str, Any], where: str, index: int) -> dict[str, int]:
    tool_calls = message.get("tool_calls")
    if message.get("content") is None and not tool_calls:
        raise _invalid(
            f"Missing required parameter: '{where}.content'.", f"{where}.content", "missing_required_parameter"
        )
    if tool_calls is None:
        return {}
    if not isinstance(tool_calls, list):
        raise _type_error(f"{where}.tool_calls", "an array", tool_calls)
    pending: dict[str, int] = {}
    for number, call in enumerate(tool_calls):
        param = f"{where}.tool_calls[{number}]"
        if not isinstance(call, dict):
            raise _type_error(param, "an object", call)
        for key in ("id", "type", "function"):
            if key not in call:
                raise _invalid(
                    f"Missing required parameter: '{param}.{key}'.", f"{param}.{key}", "missing_required_parameter"
                )
        if call["type"] != "function":
            raise _invalid(f"Invalid value: '{call['type']}'. Supported values are: 'function'.", f"{param}.type")
        function = call["function"]
        if not isinstance(function, dict):
            raise _type_error(f"{param}.function", "an object", function)
        for key in ("name", "arguments"):
            if not isinstance(function.get(key), str):
                raise _type_error(f"{param}.function.{key}", "a string", function.get(key))
        pending[str(call["id"])] = index
    return pending


def _check_tool_message(
    message: dict[str, Any], where: str, index: int, messages: list[Any], pending: dict[str, int]
) -> None:
    if "content" not in message or message["content"] is None:
        raise _invalid(
            f"Missing required parameter: '{where}.content'.", f"{where}.content", "missing_required_parameter"
        )
    call_id = message.get("tool_call_id")
    if call_id is None:
        raise _invalid(
            f"Missing required parameter: '{where}.tool_call_id'.",
            f"{where}.tool_call_id",
            "missing_required_parameter",
        )
    previous = index - 1
    while previous >= 0 and isinstance(messages[previous], dict) and messages[previous].get("role") == "tool":
        previous -= 1
    before = messages[previous] if previous >= 0 else None
    if not (isinstance(before, dict) and before.get("role") == "assistant" and before.get("tool_calls")):
        raise _invalid(
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
            f"messages.[{index}].role",
            None,
        )
    if call_id not in pending:
        known = {str(call.get("id")) for call in before["tool_calls"] if isinstance(call, dict)}
        why = "was already answered" if call_id in known else f"not found in 'tool_calls' of message {previous}"
        raise _invalid(
            f"Invalid parameter: 'tool_call_id' of '{call_id}' {why}.", f"messages.[{index}].tool_call_id", None
        )
    del pending[call_id]


def _check_tools(body: dict[str, Any]) -> set[str]:
    if "tools" not in body or body["tools"] is None:
        return set()
    tools = body["tools"]
    if not isinstance(tools, list):
        raise _type_error("tools", "an array", tools)
    if not tools:
        raise _invalid(
            "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            "tools",
            "empty_array",
        )
    names: set[str] = set()
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        if not isinstance(tool, dict):
            raise _type_error(where, "an object", tool)
        if tool.get("type") != "function":
            raise _invalid(f"Invalid value: '{tool.get('type')}'. Supported values are: 'function'.", f"{where}.type")
        extra = set(tool) - {"type", "function"}
        if extra:
            raise _invalid(
                f"Unrecognized request argument supplied: {where}.{sorted(extra)[0]}", f"{where}", "unknown_parameter"
            )
        function = tool.get("function")
        if not isinstance(function, dict):
            raise _type_error(f"{where}.function", "an object", function)
        extra = set(function) - FUNCTION_KEYS
        if extra:
            key = sorted(extra)[0]
            raise _invalid(
                f"Unknown parameter: '{where}.function.{key}'.", f"{where}.function.{key}", "unknown_parameter"
            )
        name = function.get("name")
        if not isinstance(name, str):
            raise _invalid(
                f"Missing required parameter: '{where}.function.name'.",
                f"{where}.function.name",
                "missing_required_parameter",
            )
        if not NAME.match(name):
            raise _invalid(
                f"Invalid '{where}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                f"{where}.function.name",
                "invalid_value",
            )
        parameters = function.get("parameters")
        if "parameters" in function and not isinstance(parameters, dict):
            raise _type_error(f"{where}.function.parameters", "an object", parameters)
        if "description" in function and not isinstance(function["description"], str):
            raise _type_error(f"{where}.function.description", "a string", function["description"])
        if "strict" in function and not isinstance(function["strict"], bool | None):
            raise _type_error(f"{where}.function.strict", "a boolean", function["strict"])
        if function.get("strict") and parameters is not None:
            _check_strict_schema(parameters, f"Invalid schema for function '{name}'", f"{where}.function.parameters")
        names.add(name)
    return names


def _check_tool_choice(body: dict[str, Any], tool_names: set[str]) -> None:
    choice = body.get("tool_choice")
    if choice is None:
        return
    if not tool_names:
        raise _invalid(
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
            "tool_choice",
            None,
        )
    if isinstance(choice, str):
        if choice not in ("none", "auto", "required"):
            raise _invalid(
                f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and 'required'.", "tool_choice"
            )
        return
    function = choice.get("function") if isinstance(choice, dict) and choice.get("type") == "function" else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise _invalid("Invalid 'tool_choice': expected 'none', 'auto', 'required' or a function.", "tool_choice")
    if function["name"] not in tool_names:
        raise _invalid(
            f"Invalid value for 'tool_choice': tool '{function['name']}' not found in 'tools'.",
            "tool_choice.function.name",
        )


def _check_response_format(body: dict[str, Any]) -> None:
    if "response_format" not in body or body["response_format"] is None:
        return
    fmt = body["response_format"]
    if not isinstance(fmt, dict):
        raise _type_error("response_format", "an object", fmt)
    kind = fmt.get("type")
    if kind == "text":
        extra = set(fmt) - {"type"}
    elif kind == "json_object":
        extra = set(fmt) - {"type"}
        if not any("json" in text.lower() for text in _message_texts(body.get("messages") or [])):
            raise _invalid(
                "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
                "messages",
                None,
            )
    elif kind == "json_schema":
        extra = set(fmt) - {"type", "json_schema"}
        _check_json_schema_format(fmt.get("json_schema"))
    else:
        raise _invalid(
            f"Invalid value: '{kind}'. Supported values are: 'text', 'json_object', and 'json_schema'.",
            "response_format.type",
        )
    if extra:
        key = sorted(extra)[0]
        raise _invalid(f"Unknown parameter: 'response_format.{key}'.", f"response_format.{key}", "unknown_parameter")


def _check_json_schema_format(spec: Any) -> None:
    param = "response_format.json_schema"
    if spec is None:
        raise _invalid(f"Missing required parameter: '{param}'.", param, "missing_required_parameter")
    if not isinstance(spec, dict):
        raise _type_error(param, "an object", spec)
    extra = set(spec) - JSON_SCHEMA_KEYS
    if extra:
        key = sorted(extra)[0]
        raise _invalid(f"Unknown parameter: '{param}.{key}'.", f"{param}.{key}", "unknown_parameter")
    name = spec.get("name")
    if name is None:
        raise _invalid(f"Missing required parameter: '{param}.name'.", f"{param}.name", "missing_required_parameter")
    if not isinstance(name, str):
        raise _type_error(f"{param}.name", "a string", name)
    if not NAME.match(name):
        raise _invalid(
            f"Invalid '{param}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
            f"{param}.name",
        )
    if "schema" not in spec:
        raise _invalid(
            f"Missing required parameter: '{param}.schema'.", f"{param}.schema", "missing_required_parameter"
        )
    if not isinstance(spec["schema"], dict):
        raise _type_error(f"{param}.schema", "an object", spec["schema"])
    if "strict" in spec and not isinstance(spec["strict"], bool | None):
        raise _type_error(f"{param}.strict", "a boolean", spec["strict"])
    if spec.get("strict"):
        _check_strict_schema(spec["schema"], f"Invalid schema for response_format '{name}'", param)


def _check_strict_schema(schema: dict[str, Any], prefix: str, param: str) -> None:
    """OpenAI's structured-outputs rules for `strict: true`, on every object schema reachable from the root."""
    for path, node in _subschemas(schema, ()):
        context = f"In context=({', '.join(repr(p) for p in path)})"
        is_object = node.get("type") == "object" or (isinstance(node.get("type"), list) and "object" in node["type"])
        if not (is_object or "properties" in node):
            continue
        if node.get("additionalProperties") is not False:
            raise _invalid(
                f"{prefix}: {context}, 'additionalProperties' is required to be supplied and to be false.", param, None
            )
        properties = node.get("properties") or {}
        required = node.get("required") or []
        missing = [key for key in properties if key not in required]
        if missing:
            raise _invalid(
                f"{prefix}: {context}, 'required' is required to be supplied and to be an array including every key in "
                f"properties. Missing '{missing[0]}'.",
                param,
                None,
            )


def _subschemas(node: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    if not isinstance(node, dict):
        return
    yield path, node
    for key in ("properties", "$defs", "definitions"):
        children = node.get(key)
        if isinstance(children, dict):
            for name, child in children.items():
                yield from _subschemas(child, (*path, key, name))
    for key in ("items", "additionalProperties", "not"):
        if isinstance(node.get(key), dict):
            yield from _subschemas(node[key], (*path, key))
    for key in ("anyOf", "allOf", "oneOf", "prefixItems"):
        children = node.get(key)
        if isinstance(children, list):
            for number, child in enumerate(children):
                yield from _subschemas(child, (*path, key, str(number)))


def _message_texts(messages: list[Any]) -> Iterator[str]:
    for message in messages:
        if isinstance(message, dict):
            yield from content_texts(message.get("content"))


def content_texts(content: Any) -> Iterator[str]:
    """The text of a message's `content`: a string, or the `text` (or `refusal`) of each part of an array."""
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict):
                for key in ("text", "refusal"):
                    if isinstance(part.get(key), str):
                        yield part[key]
