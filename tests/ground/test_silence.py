"""Silencing references with comments a docs site does not show, in Markdown, MDX and reStructuredText."""

from __future__ import annotations

from bot.ground.references import Mention, mentions
from bot.ground.silence import silenced_lines, unsilenced


def test_a_comment_silences_its_own_line() -> None:
    text = "# A\n\nSee `src/a.py` <!-- wikiwarden: ignore --> and `src/b.py`.\nThen `src/c.py`.\n"
    assert [m.text for m in unsilenced(text, mentions(text))] == ["src/c.py"]


def test_next_line_start_end_and_file() -> None:
    text = (
        "<!-- wikiwarden: ignore-next-line -->\n"  # 1
        "`a`\n"  # 2: silenced
        "`b`\n"  # 3
        "<!-- wikiwarden: ignore-start -->\n"  # 4
        "`c`\n"  # 5: silenced
        "<!-- wikiwarden: ignore-end -->\n"  # 6
        "`d`\n"  # 7
    )
    assert silenced_lines(text) == frozenset({2, 4, 5, 6})
    assert silenced_lines("x\n<!-- wikiwarden: ignore-file -->\n") is None
    assert unsilenced("<!-- wikiwarden: ignore-file -->\n`a`\n", [Mention("a", "code", 2)]) == []


def test_a_start_without_an_end_runs_to_the_page_end() -> None:
    assert silenced_lines("`a`\n<!-- wikiwarden: ignore-start -->\n`b`\n`c`") == frozenset({2, 3, 4})


def test_mdx_and_rst_comments() -> None:
    assert silenced_lines("{/* wikiwarden: ignore-next-line */}\n`a`\n") == frozenset({2})
    # A reStructuredText comment is a block of its own, so the line it silences is the next one with text.
    assert silenced_lines("Text.\n\n.. wikiwarden: ignore-next-line\n\n``a``\n") == frozenset({5})
    assert silenced_lines("<!-- wikiwarden: ignore-next-line -->\n`a`\n`b`\n") == frozenset({2})
    assert silenced_lines(".. wikiwarden: ignore-start\n\n``a``\n\n.. wikiwarden: ignore-end\n") == {1, 2, 3, 4, 5}


def test_the_advice_is_in_the_pages_own_format() -> None:
    from bot.ground.silence import silencing_advice

    assert silencing_advice("docs/a.md")[0] == "`<!-- wikiwarden: ignore -->` on its line"
    assert silencing_advice("docs/a.mdx")[1] == "`{/* wikiwarden: ignore-next-line */}` on the line before"
    paragraph, before = silencing_advice("doc/a.RST")
    assert "<!--" not in paragraph + before and "`.. wikiwarden: ignore-next-line` as a comment of its own" in before


def test_only_a_comment_silences_not_prose_naming_the_syntax() -> None:
    text = "Write `wikiwarden: ignore` in a comment to silence a line; `wikiwarden: ignore-file` for a page.\n"
    assert silenced_lines(text) == frozenset()
    assert silenced_lines("<!-- wikiwarden: ignored -->\n<!-- wikiwarden: ignore-nextline -->\n") == frozenset()
    assert silenced_lines("<!--WikiWarden:IGNORE-->") == frozenset({1})  # spelled as a person may
