"""YAML values as Wikiwarden writes them (`bot/okf/render.py`): plain where the YAML 1.2 core schema reads the plain
scalar back as the same string, quoted otherwise, and every rendering read back as the value it renders (by the
parser pages are read with). A projected `sources` or `verified` entry whose values need quoting (a person's
entry re-rendered from flow style) is written that way."""

from __future__ import annotations

from typing import Any

import pytest

from bot.okf.frontmatter import Page
from bot.okf.project import project_sources, project_verified
from bot.okf.render import list_item, needs_quotes, scalar
from bot.okf.yaml12 import load_yaml

PLAIN = [
    "repo://src/a.ts",
    "openwiki-source-0ee38066f9f4635849d09c69",
    "wikiwarden/0.1.0",
    "2026-08-22T08:02:55.052Z",  # a timestamp is a string in the core schema
    "a:b",  # a colon not followed by a space
    "a#b",  # a hash not after a space
    "x - y",
    "-x",
    "?x",
    ":x",
    "it's",
    "yes",  # a bool in YAML 1.1 only
    "0x",
    "1.2.3",
    "café",
]
QUOTED = {
    "": "empty",
    " x": "a leading space",
    "x ": "a trailing space",
    "\tx": "a leading tab",
    "a\nb": "a line break",
    "a\rb": "a carriage return",
    "a\x07b": "a control character",
    "a\u2028b": "a line separator",
    "\ufeffx": "a byte-order mark",
    "null": "null",
    "~": "null",
    "True": "a bool",
    "false": "a bool",
    "12": "an integer",
    "-3": "an integer",
    "0o17": "an octal integer",
    "0x1F": "a hex integer",
    "1.5": "a float",
    ".5e3": "a float",
    "-.inf": "infinity",
    ".NaN": "not a number",
    "-": "a sequence entry",
    "- x": "a sequence entry",
    "? x": "a mapping key",
    ": x": "a mapping value",
    "?": "a mapping key",
    ":": "a mapping value",
    "x: y": "a mapping",
    "x:": "a mapping key",
    "x #y": "a comment",
    "x\t#y": "a comment",
    "[x]": "a flow sequence",
    "{x}": "a flow mapping",
    ",x": "a flow separator",
    "#x": "a comment",
    "&a": "an anchor",
    "*a": "an alias",
    "!t": "a tag",
    "|x": "a literal block",
    ">x": "a folded block",
    "'x'": "a single-quoted scalar",
    '"x"': "a double-quoted scalar",
    "%x": "a directive",
    "@x": "reserved",
    "`x": "reserved",
}


def read_back(rendered: str) -> Any:
    return load_yaml(f"v: {rendered}\n")["v"]


@pytest.mark.parametrize("value", PLAIN)
def test_what_reads_back_as_itself_is_written_plain(value: str) -> None:
    assert not needs_quotes(value)
    assert scalar(value) == value and read_back(value) == value


@pytest.mark.parametrize("value", list(QUOTED), ids=list(QUOTED.values()))
def test_what_would_read_as_something_else_is_quoted(value: str) -> None:
    assert needs_quotes(value)
    rendered = scalar(value)
    assert rendered != value and rendered[0] in "'\"" and read_back(rendered) == value


def test_single_quotes_when_only_double_quotes_are_inside_else_json() -> None:
    assert scalar('"x"') == "'\"x\"'" and scalar('a "b": c') == "'a \"b\": c'"
    assert scalar("'x'") == "\"'x'\"" and scalar("it's: x") == '"it\'s: x"'  # both kinds: JSON
    assert scalar('"a\nb"') == '"\\"a\\nb\\""' and scalar('"\x07"') == '"\\"\\u0007\\""'  # escapes need JSON
    assert scalar("café: x") == '"café: x"'  # not ASCII-escaped


def test_other_values() -> None:
    assert [scalar(v) for v in (None, True, False, 3, 1.5)] == ["null", "true", "false", "3", "1.5"]


def test_list_items_in_block_and_flow_style() -> None:
    assert list_item({"id": "x: y", "resource": "repo://a.ts"}) == ['  - id: "x: y"', "    resource: repo://a.ts"]
    assert list_item({}) == ["  - {}"]
    assert list_item("- x", indent=4) == ['    - "- x"']
    nested = {"by": "a", "tags": ["x, y", "plain", {"k": "[v]"}], "n": {"a,b": 1}}
    rendered = list_item(nested)
    assert rendered == [
        "  - by: a",
        '    tags: ["x, y", plain, {k: "[v]"}]',  # inside a flow collection a comma or a bracket needs quotes
        '    n: {"a,b": 1}',
    ]
    assert load_yaml("x:\n" + "\n".join(rendered) + "\n") == {"x": [nested]}


def test_a_persons_flow_style_sources_needing_quotes_are_rewritten_quoted() -> None:
    page = "---\ntype: Guide\nsources: [{resource: 'https://x/y: z', title: '#1: yes', n: '12'}]\n---\nBody\n"
    out = project_sources(page, ["repo://src/a.ts"])
    assert out == (
        '---\ntype: Guide\nsources:\n  - resource: "https://x/y: z"\n    title: "#1: yes"\n    n: "12"\n'
        "  - id: openwiki-source-0ee38066f9f4635849d09c69\n    resource: repo://src/a.ts\n---\nBody\n"
    )
    assert Page.parse(out).fields()["sources"][0] == {"resource": "https://x/y: z", "title": "#1: yes", "n": "12"}


def test_a_verified_event_needing_quotes_is_written_quoted() -> None:
    out = project_verified("---\ntype: Guide\n---\nBody\n", ("human: Mona", "2026-08-22"))
    assert out == '---\ntype: Guide\nverified:\n  - by: "human: Mona"\n    at: 2026-08-22\n---\nBody\n'
    assert Page.parse(out).fields()["verified"] == [{"by": "human: Mona", "at": "2026-08-22"}]


def test_a_nested_key_needing_quotes_in_a_flow_mapping_is_quoted() -> None:
    """A key holding a comma inside a flow mapping was written plain (`{a,b: 1}` reads as two keys), so such a page's
    sources could not be projected at all ("could not write `sources` faithfully")."""
    page = '---\ntype: Guide\nsources: [{resource: x, meta: {"a,b": 1, "[k]": v}}]\n---\nBody\n'
    out = project_sources(page, ["repo://src/a.ts"])
    assert out == (
        '---\ntype: Guide\nsources:\n  - resource: x\n    meta: {"a,b": 1, "[k]": v}\n'
        "  - id: openwiki-source-0ee38066f9f4635849d09c69\n    resource: repo://src/a.ts\n---\nBody\n"
    )
    assert Page.parse(out).fields()["sources"][0] == {"resource": "x", "meta": {"a,b": 1, "[k]": "v"}}
