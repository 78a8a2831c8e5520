"""Text for people (`bot.report.wording`): a count with the noun it counts, one line of text, a cut that says so."""

from __future__ import annotations

import pytest

from bot.report.wording import clip, one_line, plural, printable


@pytest.mark.parametrize(
    ("count", "forms", "expected"),
    [
        (0, ("claim",), "0 claims"),
        (1, ("claim",), "1 claim"),
        (2, ("claim",), "2 claims"),
        (1_234, ("token",), "1,234 tokens"),
        (1, ("claim still needs a person", "claims still need a person"), "1 claim still needs a person"),
        (3, ("claim still needs a person", "claims still need a person"), "3 claims still need a person"),
        (1, ("more annotation was", "more annotations were"), "1 more annotation was"),
    ],
)
def test_plural_agrees_with_its_count(count: int, forms: tuple[str, ...], expected: str) -> None:
    assert plural(count, *forms) == expected


def test_one_line_flattens_whitespace_and_shows_control_characters() -> None:
    assert one_line("  a\n\tb\r\n\r\nc  ") == "a b c"
    assert one_line("\x1b[2Jred\x00") == "\ufffd[2Jred\ufffd"  # a terminal escape cannot clear the screen
    assert one_line("left\u202eright") == "left\ufffdright"  # nor reverse what follows


def test_printable_keeps_lines_and_indentation() -> None:
    assert printable("    if x:\n\treturn\x07") == "    if x:\n\treturn\ufffd"


@pytest.mark.parametrize(
    ("text", "width", "expected"),
    [
        ("short", 10, "short"),
        ("exactly 10", 10, "exactly 10"),
        ("one word too many", 10, "one word…"),
        ("multi\nline   text here", 12, "multi line…"),
    ],
)
def test_clip_cuts_with_an_ellipsis(text: str, width: int, expected: str) -> None:
    assert clip(text, width) == expected and len(clip(text, width)) <= width
