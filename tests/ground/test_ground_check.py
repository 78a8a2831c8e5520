"""Grounding's checks (bot/ground/check.py), rule by rule, on a repository in memory: what a claim must be to be
written (its quote in the page body, its evidence resolving under the evidence rules and holding the names it
quotes, distinct, at most 40 a page), edits as strict as the fix's, unsupported text that must be the page's, and
ids derived from page and statement."""

from __future__ import annotations

import asyncio

import pytest

from bot.claims import resolve_evidence
from bot.claims.options import SweepOptions
from bot.claims.snapshot import MemorySnapshot
from bot.claims.sweep import SnapshotReader
from bot.fix.answer import TextEdit
from bot.fix.check import MAX_STATEMENT
from bot.fix.view import CodeView
from bot.ground.answer import GroundAnswer, GroundedClaim, Unsupported
from bot.ground.check import MAX_CLAIMS, MAX_EVIDENCE, MAX_QUOTE, CheckedGrounding, check_grounding, claim_id
from bot.ground.quotes import squeezed

QUEUE = "MAX_ITEMS = 100\n\n\nclass TaskQueue:\n    def drain(self):\n        return []\n"
PAGE = "---\ntitle: Queue\n---\n\n# Queue\n\nA queue holds 100 items at most,\nand `drain()` empties it.\n"
PAGE_PATH = "openwiki/queue.md"
FILES = {
    "src/queue.py": QUEUE.encode(),
    "src/blob.bin": b"\x00\x01\x02",
    PAGE_PATH: PAGE.encode(),
    "openwiki/other.md": b"# Other\n\nMAX_ITEMS\n",
}
LIMIT = GroundedClaim(statement="A queue holds 100 items.", quote="A queue holds 100 items at most,", evidence=["repo://src/queue.py#L1"])  # fmt: skip
DRAIN = GroundedClaim(statement="`drain()` empties the queue.", quote="and `drain()` empties it.", evidence=["repo://src/queue.py#L5-L6"])  # fmt: skip


def _check(*claims: GroundedClaim, edits=(), unsupported=(), known=(), page: str = PAGE) -> CheckedGrounding:  # type: ignore[no-untyped-def]
    head = MemorySnapshot({**FILES, PAGE_PATH: page.encode()}, symlinks={"src/link.py": "queue.py"}, label="head")
    view = CodeView(SnapshotReader(head, SweepOptions()), sorted(FILES))
    answer = GroundAnswer(claims=list(claims), edits=list(edits), unsupported=list(unsupported))
    return asyncio.run(check_grounding(answer, PAGE_PATH, page, view, "openwiki", known))


def test_claims_that_quote_the_page_and_hold_are_accepted_with_versions_computed_here() -> None:
    checked = _check(LIMIT, DRAIN)
    assert checked.ok and checked.problems == [] and checked.refused == []
    assert [(c.statement, c.quote) for c in checked.claims] == [
        ("A queue holds 100 items.", "A queue holds 100 items at most,"),
        ("`drain()` empties the queue.", "and `drain()` empties it."),
    ]
    found = resolve_evidence("repo://src/queue.py#L5-L6", QUEUE.encode())
    assert found is not None
    assert [(r.resource, r.version) for r in checked.claims[1].evidence] == [(found.resource, found.version)]
    assert checked.text == PAGE


@pytest.mark.parametrize(
    ("claim", "why"),
    [
        (LIMIT.model_copy(update={"quote": "A queue holds 99 items"}), "its quote is not text of the page body"),
        (LIMIT.model_copy(update={"quote": "title: Queue"}), "its quote is not text of the page body"),  # front matter
        (LIMIT.model_copy(update={"quote": "   "}), f"the quote must be 1 to {MAX_QUOTE} characters of the page"),
        (LIMIT.model_copy(update={"quote": "A" * (MAX_QUOTE + 1)}), f"the quote must be 1 to {MAX_QUOTE} characters"),
        (LIMIT.model_copy(update={"statement": "  "}), f"the statement must be 1 to {MAX_STATEMENT} characters"),
        (LIMIT.model_copy(update={"statement": "x" * (MAX_STATEMENT + 1)}), "the statement must be 1 to"),
        (LIMIT.model_copy(update={"evidence": []}), f"a claim needs 1 to {MAX_EVIDENCE} evidence resources"),
        (LIMIT.model_copy(update={"evidence": ["repo://src/queue.py#L1"] * (MAX_EVIDENCE + 1)}), "a claim needs 1 to"),
        (LIMIT.model_copy(update={"evidence": ["repo://src/nope.py#L1"]}), "src/nope.py"),
        (LIMIT.model_copy(update={"evidence": ["repo://src/link.py#L1"]}), "symlink"),
        (LIMIT.model_copy(update={"evidence": ["repo://src/blob.bin"]}), "binary"),
        (LIMIT.model_copy(update={"evidence": ["repo://openwiki/other.md#L3"]}), "wiki"),
        (LIMIT.model_copy(update={"evidence": ["repo://src/queue.py#L40"]}), "src/queue.py"),
        (DRAIN.model_copy(update={"statement": "`clear()` empties the queue."}), "the statement quotes `clear()`"),
        (DRAIN.model_copy(update={"evidence": ["repo://src/queue.py#L1"]}), "the statement quotes `drain()`"),
    ],
)
def test_a_claim_is_refused_alone_and_says_why(claim: GroundedClaim, why: str) -> None:
    checked = _check(claim, DRAIN if claim.statement != DRAIN.statement and "drain" not in claim.statement else LIMIT)
    assert not checked.ok
    [(statement, reason)] = checked.refused
    assert why in reason, reason
    assert checked.problems == [f"claim 1 ({statement[:80]!r}): {reason}"]
    assert len(checked.claims) == 1  # the other claim stands


# Written into the sidecar (and from there into check runs and pull requests): a NUL, a line break or an escape
# would break the one line a statement is, a bidirectional override (U+202E) makes it read otherwise than it is
# stored. The fix's statements are held to the same rule, by the same function (tests/fix/test_check.py).
CONTROLS = [
    "\u0000",
    "\n",
    "\r",
    "\t",
    "\x1b",
    "\x7f",
    "\x85",
    "\u2028",
    "\u2029",
    "\u202e",
    "\u202a",
    "\u2066",
    "\u2069",
    "\u200f",
    "\u061c",
]


@pytest.mark.parametrize("control", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_a_statement_holding_a_control_character_is_refused(control: str) -> None:
    sneaky = LIMIT.model_copy(update={"statement": f"A queue holds 100{control} items."})
    checked = _check(sneaky, DRAIN)
    [(_, reason)] = checked.refused
    assert reason == f"the statement holds a control character (U+{ord(control):04X}); write one line of plain text"
    assert [c.statement for c in checked.claims] == [DRAIN.statement]  # the other claim stands


def test_a_statement_may_hold_any_printable_text() -> None:
    fine = LIMIT.model_copy(update={"statement": "A queue holds 100 items — «at most», 百 (א) 😀."})
    assert _check(fine).ok
    assert _check(LIMIT.model_copy(update={"statement": " A queue holds 100 items.\n"})).ok  # trimmed, as OpenWiki


def test_a_quote_may_wrap_where_the_page_does_not() -> None:
    wrapped = LIMIT.model_copy(update={"quote": "A queue holds 100\n   items at most, and"})
    assert _check(wrapped).ok
    assert squeezed(" a\n\t b  c ") == "a b c"


def test_statements_are_distinct_from_each_other_and_from_the_pages_claims() -> None:
    twice = _check(LIMIT, LIMIT.model_copy(update={"statement": "  A queue holds 100 items.  "}))
    assert [why for _, why in twice.refused] == ["the same statement is already a claim of this page"]
    assert twice.problems[0].startswith("claim 2 (")
    known = _check(LIMIT, known=["A queue holds 100 items."])
    assert [why for _, why in known.refused] == ["the same statement is already a claim of this page"]


def test_at_most_max_claims_a_page() -> None:
    many = [LIMIT.model_copy(update={"statement": f"A queue holds 100 items ({n})."}) for n in range(MAX_CLAIMS + 1)]
    checked = _check(*many)
    assert len(checked.claims) == MAX_CLAIMS
    assert checked.refused == [(many[-1].statement, f"at most {MAX_CLAIMS} claims are grounded on a page in one run")]


def test_edits_correct_the_prose_and_quotes_are_read_in_the_corrected_page() -> None:
    wrong = PAGE.replace("100 items", "50 items")
    fix = TextEdit(file=PAGE_PATH, search="50 items", replace="100 items")
    checked = _check(LIMIT, edits=[fix], page=wrong)
    assert checked.ok and checked.text == PAGE
    refused = _check(LIMIT, edits=[TextEdit(file=PAGE_PATH, search="nowhere", replace="x")], page=wrong)
    assert refused.text == wrong  # one edit refused: none applied
    assert "edit refused: its search text occurs 0 times in the page body" in refused.problems
    assert [why for _, why in refused.refused] == ["its quote is not text of the page body (copy it verbatim)"]


def test_an_edit_of_another_file_is_trespass() -> None:
    checked = _check(LIMIT, edits=[TextEdit(file="openwiki/.claims/queue.json", search="{", replace="")])
    assert checked.trespass == ["openwiki/.claims/queue.json"]
    assert checked.problems[0].startswith("edit refused: 'openwiki/.claims/queue.json' is a sidecar; grounding may")


def test_unsupported_text_must_be_the_pages_and_give_a_reason() -> None:
    fine = Unsupported(quote="holds 100 items", reason="no limit in the code")
    checked = _check(unsupported=[fine])
    assert checked.ok and checked.unsupported == [fine]
    elsewhere = _check(unsupported=[Unsupported(quote="holds 7 items", reason="r")])
    assert elsewhere.problems == ["unsupported text 'holds 7 items' is not text of the page body"]
    assert elsewhere.unsupported == []
    blank = _check(unsupported=[Unsupported(quote="  ", reason="r")])
    assert blank.problems == ["unsupported text '  ' is not text of the page body"]
    silent = _check(unsupported=[Unsupported(quote="holds 100 items", reason=" ")])
    assert silent.problems == ["unsupported text 'holds 100 items' needs a reason"]


def test_ids_are_openwikis_form_derived_from_page_and_statement_and_never_taken() -> None:
    first = claim_id("openwiki/q.md", "A statement.", ())
    assert first.startswith("claim_") and len(first) == 38 and first == claim_id("openwiki/q.md", "A statement.", ())
    assert first != claim_id("openwiki/r.md", "A statement.", ()) != claim_id("openwiki/q.md", "Another.", ())
    second = claim_id("openwiki/q.md", "A statement.", {first})
    assert second != first and second.startswith("claim_") and len(second) == 38
    third = claim_id("openwiki/q.md", "A statement.", {first, second})
    assert third not in (first, second)


def test_the_limits_are_the_documented_ones() -> None:
    """The docs state them (docs/reference/commands/ground.md); a change of any is a change of the contract."""
    assert (MAX_CLAIMS, MAX_QUOTE, MAX_EVIDENCE, MAX_STATEMENT) == (40, 2000, 8, 2000)


def test_each_limit_is_accepted_at_its_bound() -> None:
    long_quote = "word " * (MAX_QUOTE // 5)
    page = PAGE + "\n" + long_quote.strip() + "x" * (MAX_QUOTE - len(long_quote.strip())) + "\n"
    quote = long_quote.strip() + "x" * (MAX_QUOTE - len(long_quote.strip()))
    assert len(quote) == MAX_QUOTE
    at_bounds = LIMIT.model_copy(
        update={
            "statement": "s" * MAX_STATEMENT,
            "quote": quote,
            "evidence": [f"repo://src/queue.py#{s}" for s in ("L1", "L2", "L3", "L4", "L5", "L6", "L1-L2", "L2-L3")],
        }
    )
    checked = _check(at_bounds, page=page)
    assert checked.ok, checked.problems
    assert len(checked.claims[0].evidence) == MAX_EVIDENCE


def test_problems_quote_at_most_80_characters_of_what_they_refuse() -> None:
    statement = "A queue holds 100 items, " + "and more, " * 20
    checked = _check(LIMIT.model_copy(update={"statement": statement, "quote": "not in the page"}))
    assert checked.problems == [
        f"claim 1 ({statement[:80]!r}): its quote is not text of the page body (copy it verbatim)"
    ]
    long = "holds 100 items " + "x" * 100
    elsewhere = _check(unsupported=[Unsupported(quote=long, reason="r")])
    assert elsewhere.problems == [f"unsupported text {long[:80]!r} is not text of the page body"]
    silent = _check(unsupported=[Unsupported(quote="A queue holds 100 items at most," + " " * 90, reason="")])
    assert silent.problems == [
        f"unsupported text {('A queue holds 100 items at most,' + ' ' * 90)[:80]!r} needs a reason"
    ]


def test_the_first_name_missing_from_the_evidence_is_named() -> None:
    both = DRAIN.model_copy(update={"statement": "`clear()` and `reset()` empty the queue."})
    [(_, why)] = _check(both).refused
    assert why == "the statement quotes `clear()`, which its evidence does not contain"
