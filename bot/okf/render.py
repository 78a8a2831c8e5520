"""YAML rendering of the values Wikiwarden writes, as the JavaScript `yaml` library renders them for OpenWiki:
plain scalars where the core schema reads them back as the same string, double quotes otherwise."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

# Strings the YAML 1.2 core schema would read as something else (null, bool, int, float).
_CORE_NON_STRING = re.compile(
    r"(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE"
    r"|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)"
)
_INDICATORS = ",[]{}#&*!|>'\"%@`"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x85\u2028\u2029\ufeff]")


def needs_quotes(value: str) -> bool:
    """Whether a string cannot be written as a plain scalar and read back as itself."""
    if not value or value != value.strip(" \t") or "\n" in value or "\r" in value or _CONTROL.search(value):
        return True
    if _CORE_NON_STRING.fullmatch(value):
        return True
    first = value[0]
    if first in _INDICATORS or (first in "-?:" and (len(value) == 1 or value[1] in " \t")):
        return True
    return ": " in value or value.endswith(":") or " #" in value or "\t#" in value


def scalar(value: Any) -> str:
    """One value on one line: plain when safe, else a double-quoted (JSON-escaped) string."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    text = str(value)
    if not needs_quotes(text):
        return text
    if '"' in text and "'" not in text and not _CONTROL.search(text) and "\n" not in text:
        return "'" + text + "'"
    return json.dumps(text, ensure_ascii=False)


def json_quoted(value: str) -> str:
    """JSON.stringify of a string (what OpenWiki uses for `generated`, `type` and `title`)."""
    return json.dumps(value, ensure_ascii=False)


def list_item(entry: Mapping[str, Any] | Any, indent: int = 2) -> list[str]:
    """A block-sequence item: `  - k1: v1` then `    k2: v2` (nested values in flow style)."""
    pad = " " * indent
    if not isinstance(entry, Mapping):
        return [f"{pad}- {_flow(entry)}"]
    if not entry:
        return [f"{pad}- {{}}"]
    lines = []
    for n, (key, value) in enumerate(entry.items()):
        lead = f"{pad}- " if n == 0 else f"{pad}  "
        lines.append(f"{lead}{scalar(str(key))}: {_flow(value)}")
    return lines


def _flow(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_flow(str(k))}: {_flow(v)}" for k, v in value.items()) + "}"  # keys are flow too
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    text = scalar(value)
    if isinstance(value, str) and text == value and any(c in value for c in ",[]{}"):
        return json.dumps(value, ensure_ascii=False)  # plain in block context, not inside a flow collection
    return text
