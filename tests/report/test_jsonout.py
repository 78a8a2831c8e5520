"""The project's JSON writer: orjson's bytes are the standard encoder's (indent 2, not ASCII-escaped), and what
orjson refuses (lone surrogates, integers beyond 64 bits) is still written, as the command line wrote it before."""

from __future__ import annotations

import json

import pytest

from bot.report.jsonout import dumps, dumps_bytes, dumps_chunks

HOSTILE = 'é 日本 🙂 "q" \\ \t\n\r \x00\x01\x1f \x7f \u2028\u2029 </script> \ufeff'


def _stdlib(document: object) -> bytes:
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


@pytest.mark.parametrize(
    "document",
    [
        {},
        [],
        {"a": [], "b": {}, "c": [{}], "d": None, "e": True, "f": False},
        {"text": HOSTILE, HOSTILE: [HOSTILE, 0, -1]},
        {"ints": [2**31, -(2**63), 2**63 - 1, 2**64 - 1]},
        {"nested": [[[[{"deep": [1, [2, [3]]]}]]]], "order": {"z": 1, "a": 2, "m": 3}},
    ],
)
def test_the_bytes_are_the_standard_encoders(document: object) -> None:
    assert dumps_bytes(document) == _stdlib(document)
    assert dumps(document) == _stdlib(document).decode()


def test_floats_keep_their_value() -> None:
    """Both write the shortest repr that reads back; only the exponent's spelling may differ (1e-05, 1e-5)."""
    document = {"floats": [0.5, 1e-05, 123456789.125, 0.1 + 0.2, 1e300]}
    assert json.loads(dumps_bytes(document)) == document


def test_what_orjson_refuses_is_written_as_before() -> None:
    document = {"page": "openwiki/caf\udce9.md", "caf\udce9": 1, "big": 10**30, "text": HOSTILE}
    written = dumps_bytes(document)
    assert written == _stdlib(document)
    assert b'"openwiki/caf\\udce9.md"' in written and "é 日本".encode() in written  # escaped only where it must be
    assert json.loads(written) == document


@pytest.mark.parametrize(
    "items",
    [
        [],
        [{}],
        [{"page": HOSTILE, "claims": [{"lines": "a\nb", "span": [1, 2], "empty": [], "nested": {"x": {}}}]}],
        [{"n": n, "caf\udce9": [n] * n} for n in range(5)],
        ["a string", 3, None, [], [[]]],
    ],
)
def test_a_document_streamed_an_item_at_a_time_is_the_same_bytes(items: list[object]) -> None:
    head = {"version": 1, "pages": [], "summary": {"pages": len(items)}, "tail": ['\n  "pages": []']}
    whole = dumps_bytes(head | {"pages": items})
    assert b"".join(dumps_chunks(head, "pages", iter(items))) == whole
    assert json.loads(whole)["pages"] == items


def test_streaming_needs_the_key_as_an_empty_list_at_the_top() -> None:
    for head in ({"pages": [1]}, {"inner": {"pages": []}}, {}):
        with pytest.raises(ValueError, match="'pages' must be an empty list"):
            list(dumps_chunks(head, "pages", []))


def test_an_item_is_cut_from_its_frame_whatever_the_key_spells() -> None:
    for key in ('pagés "quoted"\n', "caf\udce9", "k"):
        head = {"before": 1, key: [], "after": [2]}
        items = [{"a": [1, {"b": "x\ny"}]}, "s", {"caf\udce9": 1}]
        assert b"".join(dumps_chunks(head, key, iter(items))) == dumps_bytes(head | {key: items}), key
