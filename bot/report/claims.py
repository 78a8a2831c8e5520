"""The hand-kept claims' results (`bot.claims.shown`) as `wikiwarden claim` writes them: an edit, a claim shown
with its evidence then and now, a listing; as text for a terminal and as JSON documents."""

from __future__ import annotations

import shlex

from ..claims.shown import ClaimEdit, ClaimListing, ShownClaim, ShownEvidence
from ..report.sidebyside import side_by_side, unified
from ..report.wording import one_line


def _text(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


def render_edit(headline: str, edit: ClaimEdit) -> str:
    """An added or confirmed claim: what was done, then its evidence."""
    assert edit.claim is not None
    return _text([headline, *(f"  {record.resource}" for record in edit.claim.evidence)])


def shown_json(shown: ShownClaim) -> dict[str, object]:
    return {
        "page": shown.page,
        "id": shown.claim.id,
        "statement": shown.claim.statement,
        "evidence": [
            {
                "resource": e.resource,
                "verdict": e.verdict.value,
                "resource_now": e.resource_now,
                "recorded": e.recorded,
                "recorded_in": e.recorded_in,
                "now": e.now,
                "error": e.error,
            }
            for e in shown.evidence
        ],
    }


def render_shown(shown: ShownClaim, width: int, base: str | None = None) -> str:
    """The claim, then each record's verdict with its recorded text and its text now side by side (each column
    `width` wide) and as a diff; when one needs attention, the two commands that settle it, as `check` words them
    (`--base` when the claim was shown through a change: confirm follows the evidence through it first)."""
    since = ("--base", base) if base is not None else ()
    lines = [f"{one_line(shown.claim.id)}  {one_line(shown.page)}", f"  {one_line(shown.claim.statement)}"]
    for e in shown.evidence:
        lines += _evidence(e, width)
    if shown.needs_attention:
        lines += [
            f"\n{_shell('wikiwarden', 'claim', 'confirm', shown.claim.id, *since)}   # the statement still holds: "
            "re-baseline its evidence",
            f"wikiwarden claim retract {shown.claim.id}   # it does not: remove it (and correct the page)",
        ]
    return _text(lines)


def _shell(*words: str) -> str:
    """A command to copy, each word quoted for a shell when it needs it (as `check`'s next steps quote them)."""
    return " ".join(shlex.quote(one_line(word)) for word in words)


def _evidence(e: ShownEvidence, width: int) -> list[str]:
    moved = f", now at {one_line(e.resource_now)}" if e.resource_now and e.resource_now != e.resource else ""
    lines = [f"\n{one_line(e.resource)}: {e.verdict.value}{moved}"]
    if e.error:
        return [*lines, f"  {one_line(e.error)}"]
    source = e.recorded_in if e.recorded_in == "the working tree" else f"commit {(e.recorded_in or '')[:12]}"
    recorded = "recorded: not found in the last 200 commits" if e.recorded is None else f"recorded ({source})"
    now = "now: gone" if e.now is None else "now"
    lines.append(f"  {recorded:<{width}}   {now}")
    lines.append("\n".join(f"  {row}" for row in side_by_side(e.recorded or "", e.now or "", width)))
    if e.recorded is not None and e.now is not None and e.recorded != e.now:
        lines.append("  diff:")
        lines.append("\n".join(f"    {line}" for line in unified(e.recorded, e.now, "recorded", "now")))
    return lines


def listing_json(listing: ClaimListing) -> dict[str, object]:
    return {
        "claims": [
            {
                "page": page,
                "id": claim.id,
                "statement": claim.statement,
                "evidence": [{"resource": e.resource, "version": e.version} for e in claim.evidence],
            }
            for page, claim in listing.claims
        ],
        "errors": [{"page": page, "error": error} for page, error in listing.unreadable],
    }


def render_listing(listing: ClaimListing) -> str:
    """Each page, then its claims and their evidence; "no claims" when there is nothing, not even a sidecar that
    cannot be read (those are said apart: `render_unreadable`)."""
    lines: list[str] = []
    current = None
    for page, claim in listing.claims:
        if page != current:
            lines.append(one_line(page))
            current = page
        lines.append(f"  {one_line(claim.id)}  {one_line(claim.statement)}")
        lines += [f"      {one_line(record.resource)}" for record in claim.evidence]
    if not listing.claims and not listing.unreadable:
        lines.append("no claims")
    return _text(lines)


def render_unreadable(listing: ClaimListing) -> str:
    """The sidecars a listing could not read, one line each (for stderr)."""
    return _text([f"! {one_line(error or '')}" for _page, error in listing.unreadable])
