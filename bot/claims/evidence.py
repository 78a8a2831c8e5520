"""The evidence half of the public API: resolve one resource as OpenWiki would, or track it through a change."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import EvidenceResourceError
from .locate import locate_lines
from .resources import check_contained, parse_resource
from .text import FileText
from .track import ChangedFile, Tracked, track
from .verdicts import Verdict
from .versions import file_version


@dataclass(frozen=True, slots=True)
class Resolution:
    """Evidence found in a file: the canonical resource, the version to store, and the text it covers."""

    resource: str
    version: str
    text: str
    span: tuple[int, int] | None  # 1-based inclusive; None for whole-file evidence


def resolve_evidence(resource: str, content: bytes | None, previous_version: str | None = None) -> Resolution | None:
    """OpenWiki's resolver on one file: None when unresolved (`content=None` means the file does not exist).

    Raises EvidenceResourceError for a resource OpenWiki would reject.
    """
    res = parse_resource(resource)
    check_contained(res)
    if content is None or res.path.endswith("/"):
        return None
    text = FileText(content)
    if res.start is None or res.end is None:
        return Resolution(res.canonical, file_version(text), text.text, None)
    located = locate_lines(text, (res.start, res.end), previous_version)
    if located is None:
        return None
    span_text = text.join(located.start, located.end).decode("utf-8")
    return Resolution(res.canonical, located.version, span_text, (located.start + 1, located.end))


def track_evidence(resource: str, before: bytes | None, after: bytes | None, previous_version: str) -> Tracked:
    """Where evidence recorded as `previous_version` stands once the file changed from `before` to `after`.

    `before=None` means the old content is unknown (OpenWiki's algorithm decides); `after=None` means the
    file is gone. A resource that cannot be accepted gives verdict `error`, never an exception.
    """
    try:
        res = parse_resource(resource)
        check_contained(res)
    except EvidenceResourceError as exc:
        return Tracked(Verdict.ERROR, error=str(exc))
    old = FileText(before) if before is not None else None
    new = FileText(after) if after is not None and not res.path.endswith("/") else None
    return track(res, previous_version, ChangedFile(res.path if new is not None else None, old, new))


def recorded_text(resource: str, version: str, content: bytes) -> str | None:
    """The text `version` was recorded from, when `content` holds it unchanged (at the recorded lines, or moved
    within the file); None when it does not. Raises EvidenceResourceError for a resource OpenWiki would reject."""
    res = parse_resource(resource)
    check_contained(res)
    text = FileText(content)
    if res.start is None or res.end is None:
        return text.text if file_version(text) == version else None
    located = locate_lines(text, (res.start, res.end), version)
    if located is None or not located.unchanged or located.version != version:
        return None
    return text.join(located.start, located.end).decode("utf-8", "replace")
