"""Hand-kept evidence (`wikiwarden claim add` and `confirm`): a new record for a resource as it stands now, and a
record re-anchored where its text stands now, read through a snapshot reader."""

from __future__ import annotations

from ..errors import EvidenceResourceError, Problem
from ..resources import EvidenceResource
from ..sidecar import EvidenceRecord
from ..text import FileText
from ..track import reference_verdict
from ..verdicts import Verdict
from ..versions import file_version, lines_version
from .reader import SnapshotReader


def _readable(reader: SnapshotReader, resource: str) -> tuple[EvidenceResource, FileText]:
    res = reader.resource(resource)
    if isinstance(res, Problem):
        raise EvidenceResourceError(res.message)
    text = reader.text(reader.snapshot, res.path)
    if isinstance(text, Problem):
        raise EvidenceResourceError(text.message)
    if text is None:
        raise EvidenceResourceError(f"{res.path} does not exist (or is not a regular file) in {reader.snapshot.label}")
    return res, text


def record(reader: SnapshotReader, resource: str) -> EvidenceRecord:
    """New evidence for `resource` as it stands now (OpenWiki's `add`: resolved at the hint)."""
    res, text = _readable(reader, resource)
    if res.start is None or res.end is None:
        return EvidenceRecord(res.canonical, file_version(text))
    if res.end > text.line_count:
        raise EvidenceResourceError(f"{res.canonical}: {res.path} has only {text.line_count} lines")
    return EvidenceRecord(res.canonical, lines_version(text, res.start - 1, res.end))


def rebaseline(reader: SnapshotReader, evidence: EvidenceRecord) -> EvidenceRecord:
    """The evidence re-anchored where its text stands now, with the version of that text (`confirm`)."""
    res, text = _readable(reader, evidence.resource)
    tracked = reference_verdict(res, evidence.version, text, res.path)
    if tracked.verdict is Verdict.FRESH:
        return evidence
    if tracked.resource is None or tracked.version is None:
        raise EvidenceResourceError(
            f"{evidence.resource} no longer resolves in {reader.snapshot.label}: the text and its anchors are gone; "
            "retract the claim or add it again with new evidence"
        )
    return EvidenceRecord(tracked.resource, tracked.version)
