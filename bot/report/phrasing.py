"""A sweep report's findings in words, shared by every format (text, markdown, JSON's readers, CI annotations), so
the same finding reads the same wherever it is shown."""

from __future__ import annotations

import difflib

from ..claims.errors import EvidenceResourceError
from ..claims.resources import parse_resource
from ..claims.results import BrokenReference, EvidenceResult, SweepReport
from ..claims.verdicts import Verdict
from .wording import plural

DIFF_LINES = 16  # past this a diff is cut, saying how much was left out
REANCHOR_HINT = "`wikiwarden fix` re-anchors it"  # what a check says of moved and cosmetic evidence


def summary_line(report: SweepReport) -> str:
    s = report.summary
    parts = [f"{s[v.value]} {v.value}" for v in Verdict if s[v.value]]
    counted = f"{plural(s['claims'], 'claim')} on {plural(s['pages'], 'page')}: "
    line = counted + (", ".join(parts) if parts else "nothing to check")
    if report.base is not None:
        line += f"; {s['touched']} touched by this change"
    if s["page_errors"]:
        line += f"; {plural(s['page_errors'], 'unreadable sidecar')}"
    if s["broken_references"]:
        line += f"; {plural(s['broken_references'], 'broken reference')}"
    if s.get("reference_notes"):
        line += f"; {plural(s['reference_notes'], 'reference note')}"
    if not s["claims"] and report.referencing_pages:  # a person's docs: what was checked is their references
        line += f"; the references of {plural(report.referencing_pages, 'page')} checked"
    return line


def broken_note(ref: BrokenReference, changed: bool) -> str:
    """What happened to what a reference named, in words (`renamed_to` and `target` are code's names)."""
    if ref.what == "missing":
        return "no such path in the repository"
    by = " by this change" if changed else ""
    if ref.what == "renamed" and ref.renamed_to:
        return f"renamed{by} to {ref.renamed_to}"
    return f"{ref.what}{by}"


def diff_lines(old: str | None, new: str | None) -> list[str]:
    """The recorded evidence against what stands now, as unified diff lines (no header), cut at `DIFF_LINES`."""
    if old is None or new is None:
        return []
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1))[2:]
    if len(lines) > DIFF_LINES:
        lines = [*lines[:DIFF_LINES], f"… {plural(len(lines) - DIFF_LINES, 'more diff line')}"]
    return lines


def _path(resource: str | None) -> str | None:
    if resource is None:
        return None
    try:
        return parse_resource(resource).path
    except EvidenceResourceError:
        return None


def evidence_note(evidence: EvidenceResult, fix_hint: bool = True) -> str:
    """What happened to one evidence record, in words. A check writes nothing: moved and cosmetic evidence is
    said to be where it stands now, and (`fix_hint`) that `wikiwarden fix` re-anchors it (REANCHOR_HINT); only
    a fix's own report says "re-anchored" (bot/report/fix.py)."""
    if evidence.error:
        return evidence.error
    notes = {
        Verdict.MOVED: "same text at other lines",
        Verdict.COSMETIC: "only line endings or trailing whitespace changed",
        Verdict.STALE: "text changed",
        Verdict.UNRESOLVED: "text or file is gone",
    }
    note = notes.get(evidence.verdict, "")
    if evidence.verdict is Verdict.MOVED and _path(evidence.resource_now) not in (None, _path(evidence.resource)):
        note = "same text in another file"
    if fix_hint and evidence.verdict in (Verdict.MOVED, Verdict.COSMETIC):
        note += f"; {REANCHOR_HINT}"
    if evidence.openwiki_verdict is not None and evidence.openwiki_verdict.value != evidence.verdict.value:
        note += f"; OpenWiki would say {evidence.openwiki_verdict.value}"
    return note.strip("; ")


__all__ = ("DIFF_LINES", "REANCHOR_HINT", "broken_note", "diff_lines", "evidence_note", "summary_line")
