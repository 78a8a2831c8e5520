"""What in a sweep report needs attention, and where it stands: the filter behind `--attention-only`, and the
findings CI annotates (GitHub workflow commands, SARIF), each located on the code where the evidence stands now
(or where its text stood), else on the page or its sidecar.

A finding's level follows what fails the check: `error` for what this change did (every finding of a full sweep,
which has no change to blame, and every broken reference and unreadable sidecar), `warning` for claims that were
already stale, unresolved or in error at the base (the App's check run does not fail on those either), `note` for
moved or cosmetic evidence, which a fix re-anchors.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from typing import Literal, NamedTuple

from ..claims.errors import EvidenceResourceError
from ..claims.resources import parse_resource
from ..claims.results import BrokenReference, ClaimResult, EvidenceResult, PageResult, SweepReport
from ..claims.snippet import parse_snippet, snippet_wording
from ..claims.verdicts import Verdict
from ..ground.silence import silencing_advice
from .phrasing import REANCHOR_HINT, broken_note, diff_lines
from .wording import one_line

Level = Literal["error", "warning", "note"]
LEVELS: tuple[Level, ...] = ("error", "warning", "note")  # worst first
STALE, UNRESOLVED, ERROR = "stale", "unresolved", "error"
BROKEN_REFERENCE, UNREADABLE_SIDECAR, REANCHORED = "broken-reference", "unreadable-sidecar", "reanchored"
FINGERPRINT_VERSION = "v1"
_STATEMENT_WIDTH = 1_000


def attention_only(report: SweepReport) -> SweepReport:
    """The report cut to what needs attention: unreadable sidecars, claims stale, unresolved or in error (whole,
    with all their evidence), broken references that fail the check. Fresh, moved and cosmetic claims, pages left
    with nothing, pages without claims, references that are only notes, pages not read and coverage go. The
    summary stays the whole check's: its counts are what was checked."""
    pages: list[PageResult] = []
    for page in report.pages:
        claims = tuple(claim for claim in page.claims if claim.verdict.needs_attention)
        if page.error or claims:
            pages.append(dataclasses.replace(page, claims=claims))
    references = tuple(ref for ref in report.broken_references if ref.attention)
    shown = dataclasses.replace(
        report, pages=tuple(pages), ungrounded_pages=(), coverage=(), broken_references=references, skipped_pages=()
    )
    object.__setattr__(shown, "summary", dict(report.summary))  # the same summary the full report computed
    return shown


class Place(NamedTuple):
    """A file of the repository (its path as git names it, not percent-encoded) and lines in it, 1-based and
    inclusive; no lines: the file as a whole."""

    path: str
    start: int | None = None
    end: int | None = None


class Finding(NamedTuple):
    rule: str  # STALE, UNRESOLVED, ERROR, BROKEN_REFERENCE, UNREADABLE_SIDECAR or REANCHORED
    level: Level
    place: Place  # where to annotate
    page: Place  # the page the finding is about (its line, when known)
    title: str  # one line
    message: str  # our words and the untrusted values made safe by the caller's `text`
    fingerprint: str  # the same for the same finding run after run, wherever its code moves
    details: tuple[str, ...] = ()  # stale evidence: the diff from the recorded text, raw code lines
    claim: ClaimResult | None = None
    evidence: EvidenceResult | None = None
    reference: BrokenReference | None = None


def fingerprint(*parts: str) -> str:
    """A stable identity from what names a finding (a claim id and the resource it stores, say), not from
    where it stands, so an alert follows the claim as the code moves."""
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _level(report: SweepReport, touched: bool) -> Level:
    return "error" if report.base is None or touched else "warning"


def _path_of(resource: str | None) -> str | None:
    if resource is None:
        return None
    try:
        return parse_resource(resource).path
    except EvidenceResourceError:
        return None


def _evidence_place(evidence: EvidenceResult) -> Place | None:
    """Where the evidence stands now, or where its text stood before this change deleted it."""
    path = _path_of(evidence.resource_now)
    if path is not None and evidence.span is not None:
        return Place(path, *evidence.span)
    if evidence.anchor is not None:
        anchor_path, line = evidence.anchor
        return Place(anchor_path, line, line)
    return None


def _evidence_finding(
    report: SweepReport, page: PageResult, claim: ClaimResult, evidence: EvidenceResult, text: Callable[[str], str]
) -> Finding:
    snippet = parse_snippet(claim.statement)
    # A copied block's page place is the block's line (its statement keeps it), not the page's top.
    on_page = Place(page.page, snippet.line, snippet.line) if snippet is not None else Place(page.page)
    place = _evidence_place(evidence)
    statement = text(one_line(claim.statement)[:_STATEMENT_WIDTH])
    about = f"Claim {text(claim.id)} on {text(page.page)} cites {text(evidence.resource)}"
    copied = snippet_wording(page.page, claim.statement, evidence.verdict.value, _path_of(evidence.resource_now))
    if evidence.verdict is Verdict.STALE and copied is not None:
        rule = STALE
        what = f"{text(copied)}: the code it copies changed"
        advice = "`wikiwarden fix` rewrites the block from the code, without a model."
    elif evidence.verdict is Verdict.STALE:
        rule = STALE
        what = "This code is its evidence, and it changed" if place else "Its evidence changed"
        advice = "Re-verify the claim, then correct or retract it."
    elif evidence.verdict is Verdict.UNRESOLVED and copied is not None:
        rule = UNRESOLVED
        what = f"{text(copied)}: a person must find what it shows now, or remove it"
        advice = "Retarget the claim's evidence or retract the claim."
    elif evidence.verdict is Verdict.UNRESOLVED:
        rule = UNRESOLVED
        what = "Its text stood here, and this change deleted it" if place else "Its text or its file is gone"
        advice = "Retarget the claim's evidence or retract the claim."
    else:
        rule = ERROR
        what = f"It cannot be checked: {text(evidence.error or 'no reason given').rstrip('.')}"
        advice = "Mend the claim's evidence or retract the claim."
        place = None  # the reason concerns the resource itself, which may not even name a file
    return Finding(
        rule=rule,
        level=_level(report, evidence.touched),
        place=place or on_page,
        page=on_page,
        title=f"Wiki claim {evidence.verdict.value}: {text(page.page)}",
        message=f"{statement}\n\n{about}. {what}. {advice}",
        fingerprint=fingerprint("evidence", claim.id, evidence.resource),
        details=tuple(diff_lines(evidence.old_text, evidence.new_text)),
        claim=claim,
        evidence=evidence,
    )


def _reanchored_finding(
    page: PageResult, claim: ClaimResult, evidence: EvidenceResult, text: Callable[[str], str]
) -> Finding | None:
    place = _evidence_place(evidence)
    if evidence.verdict not in (Verdict.MOVED, Verdict.COSMETIC) or place is None:
        return None
    how = "the same text" if evidence.verdict is Verdict.MOVED else "the same text but for line endings or spaces"
    return Finding(
        rule=REANCHORED,
        level="note",
        place=place,
        page=Place(page.page),
        title=f"Wiki claim {evidence.verdict.value}: {text(page.page)}",
        message=(
            f"Claim {text(claim.id)} on {text(page.page)} cited {text(evidence.resource)}: {how} stands here now. "
            f"Nothing to decide: {REANCHOR_HINT}."
        ),
        fingerprint=fingerprint("evidence", claim.id, evidence.resource),
        claim=claim,
        evidence=evidence,
    )


def _reference_finding(report: SweepReport, ref: BrokenReference, text: Callable[[str], str]) -> Finding:
    on_page = Place(ref.page, ref.line, ref.line)
    place = Place(ref.at[0], ref.at[1], ref.at[1]) if ref.at else on_page
    named = text(ref.text) + ("" if ref.target == ref.text else f" ({text(ref.target)})")
    where = f"{text(ref.page)} names {named} on line {ref.line}"
    happened = text(broken_note(ref, report.base is not None))
    if ref.attention:
        level: Level = "error"
        advice = reference_advice(ref)
    else:
        level = "note"
        advice = f"Only a note, not failing the check: {text(ref.note or 'not certain').rstrip('.')}."
    return Finding(
        rule=BROKEN_REFERENCE,
        level=level,
        place=place,
        page=on_page,
        title=f"Wiki reference {'broken' if ref.attention else 'to check'}: {text(ref.page)}",
        message=f"{where}: {happened}. {advice}",
        fingerprint=fingerprint("reference", ref.page, ref.text, ref.target),
        reference=ref,
    )


def reference_advice(ref: BrokenReference) -> str:
    """What to do about a broken reference that fails the check."""
    silence = "or, if the page is right, silence it with " + silencing_advice(ref.page)[0].replace("`", "")
    if ref.what == "renamed" and ref.renamed_to:
        return f"`wikiwarden fix` rewrites the mention to the new name; {silence}."
    return f"Correct the page, {silence}."


def findings(
    report: SweepReport, text: Callable[[str], str] = one_line, reanchored: bool = False, notes: bool = True
) -> list[Finding]:
    """Every finding of the report in its order: unreadable sidecars, claims in error, evidence stale,
    unresolved or in error (and, with `reanchored`, evidence moved or cosmetic), broken references (those that are
    only notes too, with `notes`).

    `text` makes one untrusted value (a statement, a path, an id) safe, on one line, for where it is shown."""
    found: list[Finding] = []
    for page in report.pages:
        sidecar = Place(page.sidecar)
        if page.error:
            found.append(
                Finding(
                    rule=UNREADABLE_SIDECAR,
                    level="error",
                    place=sidecar,
                    page=Place(page.page),
                    title=f"Wiki sidecar unreadable: {text(page.sidecar)}",
                    message=f"The claims of {text(page.page)} cannot be checked: {text(page.error).rstrip('.')}.",
                    fingerprint=fingerprint("sidecar", page.sidecar),
                )
            )
        for claim in page.claims:
            if claim.error:
                found.append(
                    Finding(
                        rule=ERROR,
                        level=_level(report, claim.touched),
                        place=sidecar,
                        page=Place(page.page),
                        title=f"Wiki claim error: {text(page.page)}",
                        message=f"{text(claim.statement)}\n\nClaim {text(claim.id)} on {text(page.page)}: "
                        f"{text(claim.error).rstrip('.')}.",
                        fingerprint=fingerprint("claim", page.page, claim.id),
                        claim=claim,
                    )
                )
            for evidence in claim.evidence:
                if evidence.verdict.needs_attention:
                    found.append(_evidence_finding(report, page, claim, evidence, text))
                elif reanchored and (note := _reanchored_finding(page, claim, evidence, text)) is not None:
                    found.append(note)
    found += [_reference_finding(report, ref, text) for ref in report.broken_references if notes or ref.attention]
    return found


__all__ = (
    "BROKEN_REFERENCE",
    "ERROR",
    "LEVELS",
    "REANCHORED",
    "STALE",
    "UNREADABLE_SIDECAR",
    "UNRESOLVED",
    "Finding",
    "Level",
    "Place",
    "attention_only",
    "findings",
    "fingerprint",
)
