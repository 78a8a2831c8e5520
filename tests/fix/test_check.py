"""The answer checker's evidence rules, record by record (bot/fix/check.py): what re-anchoring keeps and
rewrites, and what a confirm re-baselines, on a claim whose evidence meets every verdict in one change.

The change is real (a git repository, a commit, the fix's own preparation of it); the expectations are the
exact records, computed independently with OpenWiki's resolver."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import GitRepo
from fixtools import TAX, WIKI, Prepared, answer, cid, decision, edit, prepare, write_grounded

from bot.claims import resolve_evidence
from bot.claims.sidecar import EvidenceRecord
from bot.claims.verdicts import Verdict
from bot.fix.answer import PageAnswer
from bot.fix.check import Checked, check_answer, current_evidence, reanchored, unvouched_names
from bot.fix.work import ClaimWork, PageWork

APP_V1 = '"""The app."""\n\n\ndef serve(request):\n    return request.path\n\n\nRATE = 3\n'
# A function inserted above `serve` (it moves down 4 lines), and the rate changed (stale).
APP_V2 = (
    '"""The app."""\n\n\ndef health():\n    return "ok"\n\n\n'
    "def serve(request):\n    return request.path\n\n\nRATE = 4\n"
)
LIMITS = "MAX = 10\n"
STILL = "STILL = 1\n"
GONE = "def old():\n    return 0\n"
BLOB = "BLOB = 1\n"

EVERY = cid(1)  # fresh, moved, stale, cosmetic, unresolved and untouched-fresh evidence in one claim
CONFIRMABLE = cid(2)  # the same without the unresolved record
ONLY_MOVED = cid(3)  # fresh and moved: re-anchored, nothing to decide
FRESH_ONLY = cid(4)  # fresh only, in a file the change touched and one it did not
UNTOUCHED = cid(6)  # cites nothing the change touched: not re-checked
BINARY = cid(5)  # its file became binary: an error

FRESH_LINE = "repo://src/app.py#L1"
MOVED_SPAN = "repo://src/app.py#L4-L5"
STALE_LINE = "repo://src/app.py#L8"
COSMETIC_LINE = "repo://src/limits.py#L1"
GONE_SPAN = "repo://src/gone.py#L1-L2"
STILL_FILE = "repo://src/still.py"


def _record(resource: str, content: str) -> EvidenceRecord:
    """The record OpenWiki's resolver stores for `resource` in a file holding `content`."""
    found = resolve_evidence(resource, content.encode())
    assert found is not None
    return EvidenceRecord(found.resource, found.version)


@pytest.fixture(scope="module")
def changed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prepared]:
    repo = GitRepo(tmp_path_factory.mktemp("app"))
    for path, content in {"app": APP_V1, "limits": LIMITS, "still": STILL, "gone": GONE, "blob": BLOB}.items():
        repo.write(f"src/{path}.py", content)
    every = [FRESH_LINE, MOVED_SPAN, STALE_LINE, COSMETIC_LINE, GONE_SPAN, STILL_FILE]
    claims = [
        (EVERY, "Every verdict at once.", every),
        (CONFIRMABLE, "Every verdict but unresolved.", [r for r in every if r != GONE_SPAN]),
        (ONLY_MOVED, "serve returns the path.", [FRESH_LINE, MOVED_SPAN]),
        (FRESH_ONLY, "The app is documented; STILL is one.", [FRESH_LINE, STILL_FILE]),
        (UNTOUCHED, "STILL is one.", [STILL_FILE]),
        (BINARY, "BLOB is one.", ["repo://src/blob.py#L1"]),
    ]
    write_grounded(repo, {"app.md": ("---\ntype: Concept\n---\n\n# App\n", claims)})
    repo.commit("v1", tag="v1")
    repo.write("src/app.py", APP_V2)
    repo.write("src/limits.py", LIMITS.replace("\n", "\r\n"))
    repo.remove("src/gone.py")
    repo.write("src/blob.py", b"\x00\x01BLOB\n")
    repo.commit("v2")
    prepared = prepare(repo.root)
    yield prepared
    prepared.repo.close()


def _page(prepared: Prepared) -> PageWork:
    return prepared.page("app.md")


def _stored(prepared: Prepared, claim_id: str) -> tuple[EvidenceRecord, ...]:
    return next(c for c in prepared.sidecar("app.md").claims if c.id == claim_id).evidence


def test_the_change_gives_each_record_the_verdict_it_is_meant_to(changed: Prepared) -> None:
    results = _page(changed).results
    assert [e.verdict for e in results[EVERY].evidence] == [
        Verdict.FRESH,
        Verdict.MOVED,
        Verdict.STALE,
        Verdict.COSMETIC,
        Verdict.UNRESOLVED,
        Verdict.FRESH,
    ]
    assert results[BINARY].verdict is Verdict.ERROR
    assert [w.claim.id for w in _page(changed).to_decide] == [EVERY, CONFIRMABLE]


def test_reanchoring_rewrites_moved_and_cosmetic_records_and_keeps_every_other_as_stored(changed: Prepared) -> None:
    stored = _stored(changed, EVERY)
    assert reanchored(_page(changed), EVERY) == (
        stored[0],  # fresh: exactly as stored
        EvidenceRecord("repo://src/app.py#L8-L9", stored[1].version),  # moved: new place, same version
        stored[2],  # stale: kept until someone decides it
        _record(COSMETIC_LINE, LIMITS.replace("\n", "\r\n")),  # cosmetic: same place, new version
        stored[4],  # unresolved: kept until someone decides it
        stored[5],  # fresh in a file the change did not touch
    )
    assert stored[3] != _record(COSMETIC_LINE, LIMITS.replace("\n", "\r\n"))


def test_reanchoring_a_claim_that_needs_nothing_gives_back_its_evidence(changed: Prepared) -> None:
    """The fix reports a claim as re-anchored only when the records differ: all-fresh must come back equal."""
    assert reanchored(_page(changed), FRESH_ONLY) == _stored(changed, FRESH_ONLY)
    assert reanchored(_page(changed), BINARY) == _stored(changed, BINARY)  # an error is kept as it is
    stored = _stored(changed, ONLY_MOVED)
    assert reanchored(_page(changed), ONLY_MOVED) == (
        stored[0],
        EvidenceRecord("repo://src/app.py#L8-L9", stored[1].version),
    )


def test_reanchoring_a_claim_the_sweep_did_not_evaluate_is_none(changed: Prepared) -> None:
    """A claim citing nothing the change touched is not re-checked: nothing to re-anchor (the fix keeps its
    evidence as stored), and so is an id the page does not hold."""
    assert UNTOUCHED not in _page(changed).results
    assert reanchored(_page(changed), UNTOUCHED) is None
    assert reanchored(_page(changed), cid(99)) is None


def test_a_confirm_rebaselines_every_record_where_its_text_stands_now(changed: Prepared) -> None:
    work = next(w for w in _page(changed).to_decide if w.claim.id == CONFIRMABLE)
    stored = _stored(changed, CONFIRMABLE)
    records, why = current_evidence(work)
    assert why is None
    assert records == (
        stored[0],  # fresh: as stored
        EvidenceRecord("repo://src/app.py#L8-L9", stored[1].version),  # moved: its version kept
        _record("repo://src/app.py#L12", APP_V2),  # stale: where its text stands now, re-baselined
        _record(COSMETIC_LINE, LIMITS.replace("\n", "\r\n")),
        stored[4],  # a whole file the change did not touch
    )


def test_a_confirm_of_gone_or_unreadable_evidence_says_why(changed: Prepared) -> None:
    every = next(w for w in _page(changed).to_decide if w.claim.id == EVERY)
    assert current_evidence(every) == (
        None,
        f"its evidence {GONE_SPAN} is gone; give new evidence (update) or retract it",
    )
    binary = ClaimWork(next(c for c in _page(changed).sidecar.claims if c.id == BINARY), _page(changed).results[BINARY])
    error = binary.result.evidence[0].error
    assert error
    assert current_evidence(binary) == (None, f"its evidence repo://src/blob.py#L1-L1 cannot be read: {error}")


# -- the limits, on the fix tests' shop (fixtools): the cart page's tax claim is to decide --------------------


async def _check(shop: Prepared, *claims: dict, edits: list[dict] | None = None) -> Checked:
    return await check_answer(
        PageAnswer.model_validate(answer(*claims, edits=edits)), shop.page("cart.md"), shop.view, WIKI
    )


async def test_a_statement_may_be_as_long_as_the_limit_and_no_longer(shop: Prepared) -> None:
    longest = "x" * 2000
    checked = await _check(shop, decision(TAX, "update", statement=longest))
    assert checked.ok, checked.problems
    assert checked.decisions[TAX].statement == longest
    refused = await _check(shop, decision(TAX, "update", statement=longest + "x"))
    assert refused.claim_problems == {TAX: f"claim {TAX}: the statement must be 1 to 2000 characters"}


@pytest.mark.parametrize("control", ["\u0000", "\n", "\x1b", "\u2028", "\u202e", "\u2067"])
async def test_a_statement_holding_a_control_character_is_refused(shop: Prepared, control: str) -> None:
    checked = await _check(shop, decision(TAX, "update", statement=f"The tax rate is{control} 20%."))
    why = f"the statement holds a control character (U+{ord(control):04X}); write one line of plain text"
    assert checked.claim_problems == {TAX: f"claim {TAX}: {why}"}


async def test_an_edit_may_replace_with_as_much_text_as_the_limit_and_no_more(shop: Prepared) -> None:
    longest = "y" * 20_000
    checked = await _check(shop, decision(TAX, "retract"), edits=[edit("The tax rate is 20%.", longest)])
    assert checked.ok, checked.problems
    assert checked.text == shop.page("cart.md").text.replace("The tax rate is 20%.", longest)
    refused = await _check(shop, decision(TAX, "retract"), edits=[edit("The tax rate is 20%.", longest + "y")])
    assert refused.other_problems == ["edit refused: the search text is empty or the replacement too long"]
    assert refused.text == shop.page("cart.md").text


async def test_a_statement_quoting_names_its_evidence_lacks_is_refused_naming_the_first(shop: Prepared) -> None:
    checked = await _check(shop, decision(TAX, "update", statement="`TAX_RATE` feeds `vat_table` and `Basket`."))
    assert checked.claim_problems == {
        TAX: f"claim {TAX}: the statement quotes `vat_table`, which its evidence does not contain"
    }


async def test_the_refusal_the_model_reads_lists_every_problem_claims_first(shop: Prepared) -> None:
    """`problems` is what the agent sends back to the model when it refuses an answer."""
    checked = await _check(
        shop,
        decision(TAX, "update", statement=""),
        decision(cid(99), "retract"),
        edits=[edit("no such text", "x")],
    )
    assert checked.problems == [
        f"claim {TAX}: the statement must be 1 to 2000 characters",
        f"claim {cid(99)!r} is not one of the claims to decide on this page",
        "edit refused: its search text occurs 0 times in the page body",
    ]
    assert not checked.ok


async def test_a_quoted_name_must_stand_in_the_cited_lines_not_just_in_their_file(shop: Prepared) -> None:
    """`Cart` is in cart.py, on the line just above the cited `__init__`: that does not vouch for it."""
    init = "repo://src/shop/cart.py#L7-L8"
    refused = await _check(shop, decision(TAX, "update", statement="`Cart` starts empty.", evidence=[init]))
    assert refused.claim_problems == {
        TAX: f"claim {TAX}: the statement quotes `Cart`, which its evidence does not contain"
    }
    accepted = await _check(shop, decision(TAX, "update", statement="`self.items` starts empty.", evidence=[init]))
    assert accepted.ok, accepted.problems


async def test_whole_file_evidence_vouches_for_every_name_in_the_file(shop: Prepared) -> None:
    checked = await _check(
        shop, decision(TAX, "update", statement="`MAX_WEIGHT_KG` is 30.", evidence=["repo://src/shop/limits.py"])
    )
    assert checked.ok, checked.problems
    assert [r.resource for r in checked.decisions[TAX].evidence] == ["repo://src/shop/limits.py"]


async def test_each_refused_edit_is_refused_once_and_applies_nothing(shop: Prepared) -> None:
    """One refusal per edit, whatever else is wrong with it; a refused edit changes nothing later edits see; an
    edit of another file is named as a trespass (the agent then distrusts the whole answer)."""
    checked = await _check(
        shop,
        decision(TAX, "retract"),
        edits=[
            edit("no such text", "x", file="src/shop/cart.py"),  # another file, and its search text is not here
            edit("", "x"),  # an empty search text
            edit("item", "THE CART"),  # twice in the body
            edit("THE CART", "the cart"),  # only there if the refused edit had been applied
        ],
    )
    assert checked.other_problems == [
        "edit refused: 'src/shop/cart.py' is a file outside the wiki; the fix may only change the prose of openwiki/cart.md",
        "edit refused: the search text is empty or the replacement too long",
        "edit refused: its search text occurs 2 times in the page body",
        "edit refused: its search text occurs 0 times in the page body",
    ]
    assert checked.trespass == ["src/shop/cart.py"]
    assert checked.text == shop.page("cart.md").text


@pytest.mark.parametrize(
    ("quoted", "checked_as_a_name"),
    [("Q", True), ("q" * 200, True), ("q" * 201, False)],
    ids=["one character", "200 characters", "201 characters"],
)
async def test_names_of_1_to_200_characters_in_backticks_are_checked(
    shop: Prepared, quoted: str, checked_as_a_name: bool
) -> None:
    """Longer backticked text is not taken for an identifier (and bounds the work the check does)."""
    checked = await _check(shop, decision(TAX, "update", statement=f"`{quoted}` is the tax rate."))
    if checked_as_a_name:
        assert checked.claim_problems == {
            TAX: f"claim {TAX}: the statement quotes `{quoted}`, which its evidence does not contain"
        }
    else:
        assert checked.ok, checked.problems


METHOD = "    def drain(self, limit):\n        items, self.items = self.items[:limit], self.items[limit:]\n"


@pytest.mark.parametrize(
    ("quoted", "vouched"),
    [
        ("drain", True),
        ("drain()", True),  # a call stands for its name
        ("drain(self, limit)", True),
        ("drain(x)", True),  # the arguments are the statement's words, not the code's
        ("self.items", True),  # verbatim
        ("TaskQueue.drain()", False),  # the class is not in the evidence
        ("queue::drain", False),
        ("clear()", False),
        ("drain[0]", False),  # not a call: taken verbatim
        ("drain()()", False),
        ("limit.drain#self", True),  # each part of a qualified name is in the evidence
        ("drain ()", False),
        ("1drain()", False),
    ],
)
def test_names_a_statement_quotes_are_vouched_for_by_their_evidence(quoted: str, vouched: bool) -> None:
    assert unvouched_names(f"`{quoted}` hands the items over.", [METHOD]) == ([] if vouched else [quoted])


def test_a_qualified_name_is_vouched_for_by_its_parts_across_the_evidence() -> None:
    assert unvouched_names("`TaskQueue.drain()` empties it.", ["class TaskQueue:\n", METHOD]) == []
    assert unvouched_names("`TaskQueue.drain()` and `push`.", ["class TaskQueue:\n", METHOD]) == ["push"]
