"""The project's one JSON writer for documents it prints: orjson's C encoder, in the form the README documents
(two-space indentation, UTF-8 rather than ASCII escapes, a final newline). The pure-Python encoder the standard
library falls back to for `indent` cost half of a 100k-claim check."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE


def dumps_bytes(document: Any) -> bytes:
    """`document` as UTF-8 JSON bytes, ready for a binary stream without a copy through `str`."""
    try:
        return orjson.dumps(document, option=_OPTIONS)
    except orjson.JSONEncodeError:
        # What orjson refuses: a lone surrogate (a name git handed over in surrogateescape: not UTF-8) or an
        # integer beyond 64 bits. The standard encoder writes both; a surrogate goes out as the `\\udcxx` escape
        # the command line's backslashreplace stdout always gave it: valid JSON, in valid UTF-8.
        return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


def dumps_chunks(document: dict[str, Any], key: str, items: Iterable[Any]) -> Iterator[bytes | memoryview]:
    """`document` with its `key` (an empty list in `document`) holding `items`, in the bytes `dumps_bytes` would
    write for the whole, an item at a time: neither the items nor the text need exist at once.

    Each item is encoded where it stands, inside a one-item copy of the list (`{key: [item]}`), and cut out of that
    frame: the encoder indents it for its depth, and no pass over its text re-indents it (at 100k claims that pass
    cost as much as the encoding). The cut is a view of the encoder's bytes, not a copy (180 MB of them at 100k
    claims)."""
    name = dumps(key).strip().encode()
    placeholder = b"\n  " + name + b": []"
    head, found, tail = dumps_bytes(document).partition(placeholder)
    if not found:
        raise ValueError(f"{key!r} must be an empty list at the document's top level")
    yield head
    yield placeholder[: -len(b"]")]
    opening, closing = len(b"{\n  " + name + b": [\n    "), len(b"\n  ]\n}\n")
    empty = True
    for item in items:
        yield b"\n    " if empty else b",\n    "
        yield memoryview(dumps_bytes({key: [item]}))[opening:-closing]
        empty = False
    yield (b"]" if empty else b"\n  ]") + tail


def dumps(document: Any) -> str:
    """`document` as JSON text, for callers that build a string."""
    return dumps_bytes(document).decode()


__all__ = ("dumps", "dumps_bytes", "dumps_chunks")
