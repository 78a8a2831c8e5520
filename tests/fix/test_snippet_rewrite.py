"""Rewriting a copied code block from the source without a model: the block's own indentation shift, its
elision lines, the page's indentation of the block (a list item's) and the page's line endings are kept; a page that
does not hold the block as read is left alone. And the snippet statement, read back and restated."""

from __future__ import annotations

from bot.claims.results import ClaimResult, EvidenceResult
from bot.claims.sidecar import Claim, EvidenceRecord
from bot.claims.snippet import (
    claim_wording,
    front_matter_moved,
    is_snippet,
    parse_snippet,
    restated_for,
    snippet_statement,
    snippet_wording,
)
from bot.claims.verdicts import OpenWikiVerdict, Verdict
from bot.fix.snippets import Shift, indent_shift, part_shift, parts_of, place_block, render_block, rewritable


def test_a_block_rewritten_keeps_its_shift_and_its_elisions() -> None:
    block = "def push(self, item):\n    self.items.append(item)\n    ...\n    return len(self.items)"
    parts = parts_of(block)
    assert [p.first for p in parts] == [0, 3]
    shifts = [Shift("    ", True), Shift("    ", True)]
    new = ["    def push(self, item, front=False):\n        self.items.insert(0, item)\n", "        return self.size\n"]
    assert render_block(block, parts, shifts, new) == (
        "def push(self, item, front=False):\n    self.items.insert(0, item)\n    ...\n    return self.size"
    )


def test_parts_leave_out_blank_lines_at_their_ends() -> None:
    assert parts_of("\na = 1\n\n# ...\n\nb = 2\n") == [((1), ("a = 1",)), (5, ("b = 2",))]


def test_part_shift_needs_one_shift_for_every_line_and_blank_lines_on_both_sides() -> None:
    lines = ["class A:", "    def f(self):", "        return 1", "", "    x = 2"]
    assert part_shift(("def f(self):", "    return 1"), lines, 1) == Shift("    ", True)
    assert part_shift(("def f(self):", "return 1"), lines, 1) is None  # two shifts
    assert part_shift(("def f(self):", "    return 1", "x = 2"), lines, 1) is None  # a blank line missing
    assert indent_shift("  x = 1", "      y = 2") == Shift("    ", True)
    assert indent_shift("      x = 1", "  y = 2") == Shift("    ", False)


def test_a_block_in_a_list_item_keeps_the_items_indentation_and_crlf() -> None:
    page = "- Step:\r\n\r\n  ```py\r\n  a = compute(1)\r\n  b = compute(2)\r\n  ```\r\n"
    placed = place_block(page, 4, "a = compute(1)\nb = compute(2)", "a = compute(10)\n\nb = compute(20)")
    assert placed == "- Step:\r\n\r\n  ```py\r\n  a = compute(10)\r\n\r\n  b = compute(20)\r\n  ```\r\n"


def test_a_page_that_does_not_hold_the_block_there_is_left() -> None:
    page = "```py\na = compute(1)\n```\n"
    assert place_block(page, 2, "a = compute(2)", "z") is None
    assert place_block(page, 9, "a = compute(1)", "z") is None


STATEMENT = "Snippet: the code block at line 40 of this page is a copy of src/my app/y.py lines 10-22, 30-31."


def test_the_statement_is_read_back_and_restated() -> None:
    assert snippet_statement(40, "src/my app/y.py", ((10, 22), (30, 31))) == STATEMENT
    assert parse_snippet(STATEMENT) == (40, "src/my app/y.py", ((10, 22), (30, 31)))
    assert not is_snippet("Snippet: the code block at line 4 is nice.") and not is_snippet("The queue is FIFO.")
    moved = restated_for(STATEMENT, ("repo://lib/z.py#L1-L13", "repo://lib/z.py#L20-L21"))
    assert moved == "Snippet: the code block at line 40 of this page is a copy of lib/z.py lines 1-13, 20-21."
    assert restated_for(STATEMENT, ("repo://lib/z.py#L1-L13", "repo://lib/w.py#L1-L2")) == STATEMENT
    assert restated_for("The queue is FIFO.", ("repo://lib/z.py#L1-L13",)) == "The queue is FIFO."


def test_a_front_matter_grown_moves_the_blocks_line() -> None:
    claims = [Claim("claim_1", STATEMENT, (EvidenceRecord("repo://x#L1-L2", "v"),)), Claim("claim_2", "Prose.", ())]
    moved = front_matter_moved(claims, "a\n", "---\nx: 1\n---\na\n")
    assert moved[0].statement.startswith("Snippet: the code block at line 43 ")
    assert moved[1].statement == "Prose."


def test_reports_say_which_block_no_longer_matches() -> None:
    assert snippet_wording("docs/x.md", STATEMENT, "stale", "src/y.py") == (
        "The code block at docs/x.md:40 no longer matches src/y.py"
    )
    assert snippet_wording("docs/x.md", STATEMENT, "unresolved", None) == (
        "The code block at docs/x.md:40 copies lines gone from src/my app/y.py"
    )
    assert snippet_wording("docs/x.md", STATEMENT, "fresh", None) is None
    assert snippet_wording("docs/x.md", "Prose.", "stale", None) is None
    evidence = EvidenceResult(
        "repo://src/my%20app/y.py#L10-L22", "v", Verdict.STALE, OpenWikiVerdict.STALE,
        resource_now="repo://src/my%20app/y.py#L10-L23",
    )  # fmt: skip
    claim = ClaimResult("claim_1", STATEMENT, Verdict.STALE, True, (evidence,))
    assert claim_wording("docs/x.md", claim) == "The code block at docs/x.md:40 no longer matches src/my app/y.py"


def test_a_block_is_rewritten_from_its_code_changed_not_from_other_text_in_its_place() -> None:
    old = "app.logger.debug('A value for debugging')\napp.logger.warning('A warning occurred (%d apples)', 42)\n"
    assert rewritable(old, old.replace("42", "43").replace("'", '"'))
    prose = "In debug mode, the logger's level will be set to DEBUG.\nIf there are no handlers, one is added.\n"
    assert not rewritable(old, prose)
