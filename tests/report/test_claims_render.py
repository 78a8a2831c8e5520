"""`wikiwarden claim`'s answers rendered (bot/report/claims.py): the use case's plain results in, the exact text
and JSON documents the command writes out, with repository text kept to one line."""

from __future__ import annotations

from bot.claims.shown import ClaimEdit, ClaimListing, ShownClaim, ShownEvidence
from bot.claims.sidecar import Claim, EvidenceRecord
from bot.claims.verdicts import Verdict
from bot.report.claims import (
    listing_json,
    render_edit,
    render_listing,
    render_shown,
    render_unreadable,
    shown_json,
)

A = Claim("claim_a", "A holds.", (EvidenceRecord("repo://src/a.py#L1-L2", "v1"),))
B = Claim(
    "claim_b",
    "B holds\non two lines.",
    (EvidenceRecord("repo://src/b.py#L3", "v2"), EvidenceRecord("repo://src/c.py", "v3")),
)


def test_a_listing_names_each_page_once_then_its_claims_and_their_evidence() -> None:
    listing = ClaimListing([("wiki/a.md", A), ("wiki/a.md", B), ("wiki/b.md", A)])
    assert render_listing(listing) == (
        "wiki/a.md\n"
        "  claim_a  A holds.\n"
        "      repo://src/a.py#L1-L2\n"
        "  claim_b  B holds on two lines.\n"
        "      repo://src/b.py#L3\n"
        "      repo://src/c.py\n"
        "wiki/b.md\n"
        "  claim_a  A holds.\n"
        "      repo://src/a.py#L1-L2\n"
    )
    assert render_unreadable(listing) == ""


def test_an_empty_listing_says_so_unless_a_sidecar_could_not_be_read() -> None:
    assert render_listing(ClaimListing([])) == "no claims\n"
    broken = ClaimListing([], [("wiki/x.md", "wiki/.claims/x.json: invalid JSON\n at line 2")])
    assert render_listing(broken) == ""
    assert render_unreadable(broken) == "! wiki/.claims/x.json: invalid JSON at line 2\n"
    assert listing_json(broken) == {
        "claims": [],
        "errors": [{"page": "wiki/x.md", "error": "wiki/.claims/x.json: invalid JSON\n at line 2"}],
    }


def test_a_listings_json_holds_every_record_with_its_version() -> None:
    document = listing_json(ClaimListing([("wiki/a.md", B)]))
    assert document["claims"] == [
        {
            "page": "wiki/a.md",
            "id": "claim_b",
            "statement": "B holds\non two lines.",
            "evidence": [
                {"resource": "repo://src/b.py#L3", "version": "v2"},
                {"resource": "repo://src/c.py", "version": "v3"},
            ],
        }
    ]


def test_an_edit_says_what_was_done_then_the_evidence() -> None:
    assert render_edit("added claim_b", ClaimEdit("wiki/a.md", "wiki/.claims/a.json", B)) == (
        "added claim_b\n  repo://src/b.py#L3\n  repo://src/c.py\n"
    )


def test_a_claim_shown_with_a_changed_record_gives_both_texts_the_diff_and_the_commands() -> None:
    stale = ShownEvidence(
        "repo://src/a.py#L1", Verdict.STALE, "repo://src/a.py#L1", "x = 2", "x = 1", "0123456789abcdef0123"
    )
    broken = ShownEvidence("repo://../x", Verdict.ERROR, None, None, None, None, error="outside\nthe repository")
    shown = ShownClaim("wiki/a.md", A, (stale, broken))
    assert shown.needs_attention
    text = render_shown(shown, width=30)
    assert text.startswith("claim_a  wiki/a.md\n  A holds.\n\nrepo://src/a.py#L1: stale\n")
    assert f"  {'recorded (commit 0123456789ab)':<30}   now\n" in text
    assert "  diff:\n    --- recorded\n    +++ now\n" in text and "    -x = 1\n    +x = 2\n" in text
    assert "\nrepo://../x: error\n  outside the repository\n" in text
    assert text.endswith(
        "\nwikiwarden claim confirm claim_a   # the statement still holds: re-baseline its evidence\n"
        "wikiwarden claim retract claim_a   # it does not: remove it (and correct the page)\n"
    )
    assert shown_json(shown)["evidence"] == [
        {"resource": "repo://src/a.py#L1", "verdict": "stale", "resource_now": "repo://src/a.py#L1",
         "recorded": "x = 1", "recorded_in": "0123456789abcdef0123", "now": "x = 2", "error": None},
        {"resource": "repo://../x", "verdict": "error", "resource_now": None, "recorded": None, "recorded_in": None,
         "now": None, "error": "outside\nthe repository"},
    ]  # fmt: skip


def test_a_fresh_claim_shown_moved_and_from_the_working_tree_asks_nothing() -> None:
    moved = ShownEvidence("repo://src/a.py#L1", Verdict.MOVED, "repo://src/b.py#L4", "x", "x", "the working tree")
    gone = ShownEvidence("repo://src/c.py#L1", Verdict.FRESH, None, None, None, None)
    shown = ShownClaim("wiki/a.md", A, (moved, gone))
    text = render_shown(shown, width=40)
    assert "\nrepo://src/a.py#L1: moved, now at repo://src/b.py#L4\n" in text
    assert f"  {'recorded (the working tree)':<40}   now\n" in text and "diff:" not in text
    assert f"  {'recorded: not found in the last 200 commits':<40}   now: gone\n" in text
    assert not shown.needs_attention and "wikiwarden claim" not in text
