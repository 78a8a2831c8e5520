"""`repo://` evidence resources: parse, canonicalise and reject exactly as OpenWiki does (format §2.1)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple
from urllib.parse import quote

from .errors import EvidenceResourceError

SCHEME = "repo://"
_MAX_SAFE_INTEGER = 2**53 - 1
_FRAGMENT = re.compile(r"L([1-9][0-9]*)(?:-L([1-9][0-9]*))?")
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_DRIVE = re.compile(r"[a-zA-Z]:/")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_UNRESERVED_PATH = re.compile(r"[A-Za-z0-9\-_.!~*'()/]*")  # what encodeURIComponent leaves as it is
_new = tuple.__new__


class EvidenceResource(NamedTuple):
    """A parsed resource: a normalised repository-relative path and an optional 1-based inclusive span."""

    path: str
    start: int | None = None
    end: int | None = None

    @property
    def is_whole_file(self) -> bool:
        return self.start is None

    @property
    def canonical(self) -> str:
        encoded = encode_path(self.path)
        if self.start is None:
            return SCHEME + encoded
        return f"{SCHEME}{encoded}#L{self.start}-L{self.end}"

    @property
    def whole_file(self) -> EvidenceResource:
        return EvidenceResource(self.path)

    def moved_to(self, path: str, start: int | None = None, end: int | None = None) -> EvidenceResource:
        """The same evidence at another place (used when re-anchoring moved or cosmetic evidence)."""
        if self.start is None:
            return EvidenceResource(path)
        return EvidenceResource(path, start, end)


def _encode_segment(segment: str) -> str:
    # encodeURIComponent keeps A-Z a-z 0-9 - _ . ! ~ * ' ( ); quote() always keeps "_.-~" and letters/digits.
    try:
        return quote(segment, safe="!*'()")
    except UnicodeEncodeError as exc:  # a lone surrogate: encodeURIComponent throws URIError
        raise EvidenceResourceError("Invalid evidence resource: invalid percent encoding") from exc


def _decode_uri_component(value: str) -> str:
    """JavaScript's decodeURIComponent: every %XX run must decode as strict UTF-8, a stray % is an error."""
    if "%" not in value:
        return value

    def decode_run(match: re.Match[str]) -> str:
        run = match.group(0)
        return bytes(int(run[i + 1 : i + 3], 16) for i in range(0, len(run), 3)).decode("utf-8")

    try:
        decoded = _PERCENT_RUN.sub(decode_run, value)
    except UnicodeDecodeError as exc:
        raise EvidenceResourceError("Invalid evidence resource: invalid percent encoding") from exc
    if "%" in _PERCENT_RUN.sub("", value):
        raise EvidenceResourceError("Invalid evidence resource: invalid percent encoding")
    return decoded


def normalize_posix(path: str) -> str:
    """node's path.posix.normalize, including its trailing-slash and leading-`..` behaviour."""
    if not path:
        return "."
    absolute = path.startswith("/")
    trailing = path.endswith("/")
    segments: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if segments and segments[-1] != "..":
                segments.pop()
            elif not absolute:
                segments.append("..")
        else:
            segments.append(segment)
    body = "/".join(segments)
    if not body:
        if absolute:
            return "/"
        return "./" if trailing else "."
    if trailing:
        body += "/"
    return "/" + body if absolute else body


def parse_resource(resource: str) -> EvidenceResource:
    """Parse a `repo://` resource; raise EvidenceResourceError with OpenWiki's reason when it is rejected.

    The path and the `#L` fragment are decoded independently (split at the first `#`: `resource_path` and
    `resource_span`), so each part is parsed once per distinct value: a wiki cites the same files and the same
    ranges over and over.
    """
    if not isinstance(resource, str) or not resource.startswith(SCHEME):
        raise EvidenceResourceError(f"Unsupported evidence resource: {resource!r}")
    head, sep, fragment = resource.partition("#")
    path = _parse_path(head[len(SCHEME) :])
    # tuple.__new__ with every field: a NamedTuple's own __new__ is Python code, a third of the cost of a parse
    if not sep:
        return _new(EvidenceResource, (path, None, None))
    return _new(EvidenceResource, (path, *resource_span(fragment)))


def resource_path(head: str) -> str:
    """The normalised path of a resource's part before its first `#` (the scheme included)."""
    if not head.startswith(SCHEME):
        raise EvidenceResourceError(f"Unsupported evidence resource: {head!r}")
    return _parse_path(head[len(SCHEME) :])


# A path with nothing to decode, normalise or encode: unreserved characters in segments that are not `.` or `..`.
_SEGMENT = r"(?!\.\.?(?:/|$))[A-Za-z0-9\-_.!~*'()]+"
_NORMAL_PATH = re.compile(rf"{_SEGMENT}(?:/{_SEGMENT})*")


def is_normal_path(raw: str) -> bool:
    """Whether a resource's path part is its own parse: nothing to decode, normalise or encode, not reserved (what
    nearly every resource holds)."""
    return _NORMAL_PATH.fullmatch(raw) is not None and not _reserved(raw)


@lru_cache(maxsize=65536)
def _parse_path(raw: str) -> str:
    if is_normal_path(raw):
        return raw  # the steps below would give it back unchanged
    path = _decode_uri_component(raw)
    if _CONTROL.search(path):
        raise EvidenceResourceError(f"Invalid evidence resource: control characters are not allowed in {raw!r}")
    path = normalize_posix(path.replace("\\", "/"))
    if path.startswith("./"):
        path = path[2:]
    if path in ("", ".") or path.startswith(("../", "/")) or _DRIVE.match(path):
        raise EvidenceResourceError(f"Invalid evidence resource: path must stay inside the repository: {raw!r}")
    if _reserved(path):
        raise EvidenceResourceError(f"Invalid evidence resource: reserved path: {raw!r}")
    encoded = encode_path(path)
    if encoded != raw and _parse_path(encoded) != path:  # the formatter re-parses its own output
        raise EvidenceResourceError(f"Invalid evidence resource: does not round-trip: {raw!r}")
    return path


def _reserved(path: str) -> bool:
    lowered = path.lower()
    return lowered == ".git" or lowered.startswith(".git/") or lowered == "openwiki" or lowered.startswith("openwiki/")


@lru_cache(maxsize=65536)
def resource_span(raw: str) -> tuple[int, int]:
    """The 1-based inclusive lines a resource's fragment (after its first `#`) names."""
    if "#" in raw:
        raise EvidenceResourceError("Invalid evidence resource: unescaped fragment delimiter")
    fragment = _decode_uri_component(raw)
    if _CONTROL.search(fragment):
        raise EvidenceResourceError("Invalid evidence resource: control characters are not allowed")
    match = _FRAGMENT.fullmatch(fragment)
    if match is None:
        raise EvidenceResourceError(f"Invalid evidence resource: bad line range {fragment!r}")
    start = int(match.group(1))
    end = int(match.group(2)) if match.group(2) is not None else start
    if start > _MAX_SAFE_INTEGER or end > _MAX_SAFE_INTEGER:
        raise EvidenceResourceError(f"Invalid evidence resource: line number too large {fragment!r}")
    if end < start:
        raise EvidenceResourceError(f"Invalid evidence resource: range ends before it starts {fragment!r}")
    return start, end


@lru_cache(maxsize=65536)
def encode_path(path: str) -> str:
    """A normalised path as a resource writes it (encodeURIComponent on each segment)."""
    if _UNRESERVED_PATH.fullmatch(path):
        return path
    return "/".join(_encode_segment(seg) for seg in path.split("/"))


def canonical_resource(resource: str) -> str:
    """The canonical form of a resource, raising EvidenceResourceError when OpenWiki would reject it."""
    return parse_resource(resource).canonical


def escapes(path: str) -> bool:
    """Whether a parsed path leaves the repository: the bare `..` the parser lets through."""
    return path == ".." or path.startswith("../")


def check_contained(resource: EvidenceResource) -> None:
    """The resolver's containment check, which catches the bare `..` the parser lets through."""
    if escapes(resource.path):
        raise EvidenceResourceError(f"Invalid evidence resource: path escapes the repository: {resource.canonical}")
