"""Untrusted text made inert (`bot.report.inert`), checked by reading the result the way GitHub does: a real
CommonMark/GFM parser for Markdown, GitHub's reference syntax for what a reader sees. Each hostile string must end
up whole inside the node it was meant for (a paragraph's text, bold text, a table cell, a heading, an inline code
span), with no raw HTML, no link, no mention and no issue reference anywhere."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from inertcheck import WORD_JOINER, active, assert_inert_markdown, assert_inert_plain, read, tokens, visible

from bot.report.inert import code, defuse, fence, plain, prose

HOSTILE = [
    "@octocat",
    "ping @acme/core-team please",
    "closes #1",
    "fixes other/repo#2, resolves acme/widgets#3",
    "Resolves GH-4 and gh-5",
    "see https://github.com/acme/widgets/issues/6",
    "HTTPS://GITHUB.COM/acme/widgets/pull/7",
    "www.github.com/acme/widgets/issues/8 and ftp://example.com/x",
    "octocat@example.com and acme/widgets@a5c3785ed8d6a35868bc169f07e40e889087fd2e",
    "<img src=x onerror=alert(1)>",
    "</details><script>alert(1)</script>",
    "<!-- hidden --> <https://example.com>",
    "&lt;b&gt; &#64;octocat &#35;1 &amp;",
    "**bold** __bold__ *it* _it_ ~~struck~~",
    "[x](javascript:alert(1)) ![i](https://example.com/i.png) [ref][1]",
    "`one` ``two`` ```three``` ````",
    "a | b || c",
    "# heading",
    "## closing ##",
    "> [!WARNING] quoted",
    "- item",
    "+ item",
    "* item",
    "1. one",
    "2) two",
    "123456789. nine digits",
    "---",
    "===",
    "[ ] task [^1]",
    "$x^2$ and $$y$$",
    "\\@octocat \\#1 GH\\-1 \\",
    "line\nbreak\r\n\r\nnew paragraph\rand more",
    "\x1b[31mred\x1b[0m \x00 \u202eevil",
    f"#{WORD_JOINER}1 already defused",
    "@@double ##2",
    "trailing @",
    "x`",
    "`x",
    " `x` ",
]
RESOURCES = ["repo://src/q.py#L3-L9", "repo://src/a%20b.py#L1-L1", "claim_0123456789abcdef0123456789abcdef"]
BRANCHES = ["main", "feature/x-1", "a`b", "``", "x```y`", "closes-#1", "@octocat", "wikiwarden/fix/fix`#2`@a"]
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

# Hypothesis draws from what Markdown and GitHub give meaning to.
PIECES = [*"@#`*_[]()<>&|\\!~$-+=.:/ \n\r\t", "GH-", "gh-", "https://", "www.", "</details>", "1", "42", "a", "Z"]
hostile_text = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=40).map("".join)


def line_of(text: str) -> str:
    """What a one-line rendering must read as: whitespace runs one space, control characters replaced."""
    return _CONTROLS.sub("\ufffd", " ".join(text.split()))


def code_of(text: str) -> str:
    """What an inline code span must hold: the text with line endings as spaces, control characters replaced."""
    return _CONTROLS.sub("\ufffd", re.sub(r"\r\n|\r|\n", " ", text))


# -- defuse and plain: text that is not Markdown ------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE)
def test_defused_text_has_no_reference_and_reads_the_same(text: str) -> None:
    defused = defuse(text)
    assert_inert_plain(defused)
    assert visible(defused) == _CONTROLS.sub("\ufffd", text).replace(WORD_JOINER, "")
    assert defuse(defused) == defused  # defusing twice changes nothing


def test_the_hostile_strings_are_active_before_they_are_defused() -> None:
    """The checks below mean something: GitHub would act on these as they stand."""
    assert active("@octocat @acme/core-team closes #1 fixes other/repo#2 GH-4 https://github.com/o/r/issues/6") == [
        "@o", "@a", "#1", "#2", "GH-4", "https://",
    ]  # fmt: skip
    assert read("<img src=x onerror=alert(1)>").html and read("[x](https://e.x)").links


@pytest.mark.parametrize("text", [*RESOURCES, "wikiwarden/fix/main", "src/q.py", "a#b @ c"])
def test_what_is_not_a_reference_is_left_byte_for_byte(text: str) -> None:
    """Resources, ids and paths stay copyable: only what GitHub would act on gets the invisible joiner."""
    assert defuse(text) == text


@pytest.mark.parametrize("text", HOSTILE)
def test_plain_is_one_inert_line(text: str) -> None:
    line = plain(text)
    assert "\n" not in line and "\r" not in line
    assert_inert_plain(line)
    assert visible(line) == visible(line_of(text))


# -- prose: untrusted text in running Markdown ----------------------------------------------------------------


def assert_prose(markdown: str, text: str) -> None:
    reading = assert_inert_markdown(markdown)
    assert visible("".join(reading.texts)) == visible(line_of(text))


@pytest.mark.parametrize("text", HOSTILE)
def test_prose_is_one_paragraph_of_plain_text(text: str) -> None:
    rendered = prose(text)
    assert [t.type for t in tokens(rendered)] == ["paragraph_open", "inline", "text", "paragraph_close"]
    assert_prose(rendered, text)


@pytest.mark.parametrize("text", HOSTILE)
def test_prose_stays_inside_bold_in_a_list_item(text: str) -> None:
    markdown = f"- **{prose(text)}**  \n  `openwiki/q.md` · stale\n- next"
    reading = assert_inert_markdown(markdown)
    assert visible("".join(reading.strong)) == visible(line_of(text))
    assert reading.codes == ["openwiki/q.md"] and reading.types.count("list_item_open") == 2
    assert reading.types.count("strong_open") == 1


@pytest.mark.parametrize("text", HOSTILE)
def test_prose_stays_inside_its_table_cell(text: str) -> None:
    markdown = f"| claim | verdict |\n|---|---|\n| {prose(text)} | stale |\n| other | fresh |"
    reading = assert_inert_markdown(markdown)
    cells = [t for t in tokens(markdown) if t.type == "td_open"]
    assert len(cells) == 4
    assert visible(reading.texts[2]) == visible(line_of(text)) and reading.texts[3:] == ["stale", "other", "fresh"]


@pytest.mark.parametrize("text", HOSTILE)
def test_prose_is_a_whole_heading_and_a_whole_line(text: str) -> None:
    reading = assert_inert_markdown(f"## Pages: {prose(text)}\n\nafter")
    assert [visible(h) for h in reading.headings] == [visible(line_of(f"Pages: {text}"))]
    # at the start of a line inside a list item (the pull request's reason line): no new block
    markdown = f"- [ ] **still flagged**\n  {prose(text)}. Evidence: none\n\nafter"
    reading = assert_inert_markdown(markdown)
    assert reading.types.count("list_item_open") == 1 and reading.types.count("paragraph_open") == 2
    assert "heading_open" not in reading.types and "blockquote_open" not in reading.types


def test_prose_escapes_a_list_number_only_where_commonmark_reads_one() -> None:
    """An ordered list's number has one to nine digits: its delimiter is escaped; a longer number starts no list
    and is left as written (prose escapes what would change the reading, nothing else)."""
    assert prose("123456789. nine") == "123456789\\. nine" and prose("7) seven") == "7\\) seven"
    assert prose("1234567890. ten") == "1234567890. ten" and prose("1234567890) ten") == "1234567890) ten"
    assert [t.type for t in tokens("1234567890. ten")] == ["paragraph_open", "inline", "text", "paragraph_close"]
    assert prose("- item") == "\\- item" and prose("x - y") == "x - y"


@given(hostile_text)
def test_prose_of_anything_is_inert_and_reads_as_written(text: str) -> None:
    assume(line_of(text))
    expected = visible(line_of(text))
    reading = assert_inert_markdown(f"- **{prose(text)}** · {prose(text)}")
    assert [visible(s) for s in reading.strong] == [expected]
    assert visible("".join(reading.texts)) == f"{expected} · {expected}"
    reading = assert_inert_markdown(f"| {prose(text)} | x |\n|---|---|\n| {prose(text)} | y |")
    assert [visible(t) for t in reading.texts] == [expected, "x", expected, "y"]


# -- code: an inline code span nothing breaks out of ----------------------------------------------------------


@pytest.mark.parametrize("text", [*HOSTILE, *RESOURCES, *BRANCHES])
def test_code_is_one_code_span_holding_the_text(text: str) -> None:
    markdown = f"## true to {code(text)} again\n\n- **updated** · {code(text)} · {code(text)}: “{prose(text)}”"
    reading = assert_inert_markdown(markdown)
    assert [visible(c) for c in reading.codes] == [visible(code_of(text))] * 3
    assert reading.types.count("code_inline") == 3 and reading.types.count("strong_open") == 1
    assert visible(reading.headings[0]) == visible(f"true to {code_of(text)} again")


@pytest.mark.parametrize("text", [*RESOURCES, "main", "wikiwarden/fix/main"])
def test_code_of_an_ordinary_name_is_the_plain_span(text: str) -> None:
    assert code(text) == f"`{text}`"


@given(hostile_text)
def test_code_of_anything_is_one_span(text: str) -> None:
    assume(text)
    reading = assert_inert_markdown(f"a {code(text)} b {code(text)}")
    assert [visible(c) for c in reading.codes] == [visible(code_of(text))] * 2
    assert [visible(t) for t in reading.texts] == ["a ", " b "]


def test_code_of_nothing_is_still_a_span() -> None:
    assert read(f"x {code('')} y").types.count("code_inline") == 1


# -- fence: a code block its content cannot close -------------------------------------------------------------


@pytest.mark.parametrize("content", ["plain", "```", " ```", "````", "+`````", "~~~", "</details>"])
def test_a_fence_is_longer_than_any_backtick_run_in_its_content(content: str) -> None:
    lines = ["-old", content, "+new"]
    marker = fence("\n".join(lines))
    assert len(marker) >= 3 and set(marker) == {"`"}
    markdown = "\n".join(
        ["- item", "", f"    {marker}diff", *(f"    {line}" for line in lines), f"    {marker}", "after"]
    )
    blocks = [t for t in tokens(markdown) if t.type == "fence"]
    assert [b.content for b in blocks] == ["\n".join(lines) + "\n"]


@pytest.mark.parametrize(("content", "length"), [("plain", 3), ("a `b` c", 3), ("``", 3), ("```", 4), ("+`````", 6)])
def test_a_fence_is_three_backticks_or_one_more_than_the_longest_run(content: str, length: int) -> None:
    assert fence(content) == "`" * length
