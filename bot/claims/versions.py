"""Version tokens `repo-file-v1` and `repo-lines-v1`: create, parse strictly, byte-compatible with OpenWiki."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import NamedTuple

from pybase64 import b64decode

from .text import FileText, sha_hex

FILE_PREFIX = "repo-file-v1:sha256:"
LINES_PREFIX = "repo-lines-v1:sha256:"
CONTEXT_LINES = 3
EMPTY_HASH = sha_hex(b"")

_FILE_TOKEN = re.compile(r"repo-file-v1:sha256:([a-f0-9]{64})")
# The metadata exactly as OpenWiki and Wikiwarden write it: the reference for the faster checks below, which the
# tests hold equal to it.
_CANONICAL_METADATA = re.compile(
    rb'\{"selectedLineCount":([1-9][0-9]{0,15}),"firstSelectedLineHash":"([a-f0-9]{64})",'
    rb'"lastSelectedLineHash":"([a-f0-9]{64})","precedingContextLineCount":([0-3]),'
    rb'"precedingContextHash":"([a-f0-9]{64})","followingContextLineCount":([0-3]),'
    rb'"followingContextHash":"([a-f0-9]{64})"\}'
)
# The same layout with any 64 characters but a quote for each hash: a third of the regex's time. What the hashes
# hold is checked after it (`_canonical_count`).
_CANONICAL_LAYOUT = re.compile(
    rb'\{"selectedLineCount":([1-9][0-9]{0,14}),"firstSelectedLineHash":"[^"]{64}",'
    rb'"lastSelectedLineHash":"[^"]{64}","precedingContextLineCount":[0-3],'
    rb'"precedingContextHash":"[^"]{64}","followingContextLineCount":[0-3],'
    rb'"followingContextHash":"[^"]{64}"\}'
)
# And with the fields captured, for `parse_lines_version` (its count may have 16 digits, within 2^53 - 1).
_CANONICAL_FIELDS = re.compile(
    rb'\{"selectedLineCount":([1-9][0-9]{0,15}),"firstSelectedLineHash":"([^"]{64})",'
    rb'"lastSelectedLineHash":"([^"]{64})","precedingContextLineCount":([0-3]),'
    rb'"precedingContextHash":"([^"]{64})","followingContextLineCount":([0-3]),'
    rb'"followingContextHash":"([^"]{64})"\}'
)
_HEX_DIGITS = b"0123456789abcdef"
# What is left of the layout after the count once every hex digit is deleted: the literals' other letters.
_TAIL_WITHOUT_HEX = (
    b',"firstSelectedLineHash":"","lastSelectedLineHash":"","precedingContextLineCount":,"precedingContextHash":"",'
    b'"followingContextLineCount":,"followingContextHash":""}'
).translate(None, _HEX_DIGITS)
_FIRST_HASH_AFTER_COUNT = len(b',"firstSelectedLineHash":"')  # where the hashes stand in the canonical layout
_LAST_HASH_AFTER_FIRST = len(b'","lastSelectedLineHash":"')
_HEX64 = re.compile(r"[a-f0-9]{64}")
_PADDING = ("", "===", "==", "=")  # by the payload's length mod 4 (1 mod 4 is no base64 length: refused)
_MAX_SAFE_INTEGER = 2**53 - 1
_KEYS = (
    "selectedLineCount",
    "firstSelectedLineHash",
    "lastSelectedLineHash",
    "precedingContextLineCount",
    "precedingContextHash",
    "followingContextLineCount",
    "followingContextHash",
)


class LinesVersion(NamedTuple):
    """A parsed `repo-lines-v1` token: the span's hash plus what the relocation search anchors on."""

    token: str
    content_hash: str
    selected_count: int
    first_hash: str
    last_hash: str
    preceding_count: int
    preceding_hash: str
    following_count: int
    following_hash: str


def file_version(text: FileText) -> str:
    """`repo-file-v1` of a whole file."""
    return FILE_PREFIX + sha_hex(text.data)


def lines_version(text: FileText, start: int, end: int) -> str:
    """`repo-lines-v1` of lines [start, end) (0-based, end exclusive, at least one line)."""
    lines = text.lines
    preceding = min(CONTEXT_LINES, start)
    following = min(CONTEXT_LINES, len(lines) - end)
    metadata = (
        f'{{"selectedLineCount":{end - start},'
        f'"firstSelectedLineHash":"{sha_hex(lines[start])}",'
        f'"lastSelectedLineHash":"{sha_hex(lines[end - 1])}",'
        f'"precedingContextLineCount":{preceding},'
        f'"precedingContextHash":"{sha_hex(b"".join(lines[start - preceding : start]))}",'
        f'"followingContextLineCount":{following},'
        f'"followingContextHash":"{sha_hex(b"".join(lines[end : end + following]))}"}}'
    )
    payload = base64.urlsafe_b64encode(metadata.encode()).rstrip(b"=").decode()
    return f"{LINES_PREFIX}{text.span_hash(start, end)}:{payload}"


def parse_file_version(token: object) -> str | None:
    """The digest of a `repo-file-v1` token, or None when the token is not one."""
    if not isinstance(token, str):
        return None
    match = _FILE_TOKEN.fullmatch(token)
    return match.group(1) if match else None


def _safe_int(value: object) -> int | None:
    # JSON.parse gives numbers; Number.isSafeInteger accepts 3.0 but not true, 3.5 or 2**53.
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    number = int(value)
    return number if abs(number) <= _MAX_SAFE_INTEGER else None


def _hex(value: object) -> str | None:
    return value if isinstance(value, str) and _HEX64.fullmatch(value) else None


def _payload_bytes(payload: str) -> bytes | None:
    """base64url without padding, decoded strictly (a character outside the alphabet is an error; the callers
    refuse "+", "/" and "=" first).

    pybase64's SIMD decoder with the URL-safe alphabet: half the time of the standard library's `a2b_base64` after
    translating the alphabet, which was a third of evaluating a fresh record in a cold sweep (the tests hold the
    two equal)."""
    try:
        return b64decode(payload + _PADDING[len(payload) & 3], altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        return None


def canonical_selected_count(token: str) -> int | None:
    """`selectedLineCount` of a token whose metadata is written in canonical form (as OpenWiki writes it).

    The cheap check behind the common case. The content-hash part is NOT checked here: callers compare it
    with a digest they computed. None does not mean invalid, only "use parse_lines_version".
    """
    layout = _canonical_layout(token)
    return int(layout.group(1)) if layout is not None else None


def canonical_anchors(token: str) -> tuple[int, bytes, bytes] | None:
    """`selectedLineCount`, `firstSelectedLineHash` and `lastSelectedLineHash` (hex, as bytes) of a token whose
    metadata is written in canonical form: what finding its text elsewhere needs, read from their fixed places
    after the count. None as for `canonical_selected_count` (use `parse_lines_version`)."""
    layout = _canonical_layout(token)
    if layout is None:
        return None
    raw, first = layout.string, layout.end(1) + _FIRST_HASH_AFTER_COUNT
    last = first + 64 + _LAST_HASH_AFTER_FIRST
    return int(layout.group(1)), raw[first : first + 64], raw[last : last + 64]


def _canonical_layout(token: str) -> re.Match[bytes] | None:
    """The decoded metadata of a token matched against `_CANONICAL_METADATA`'s layout, its count captured; None
    when it is not written so, or its count has more than 15 digits.

    The layout is matched with a loose class for the hashes, then every hex digit after the count is deleted:
    what is left equals the literals' own letters only if each hash held hex digits alone (any other character
    would be left over), which is exactly the regex's `[a-f0-9]{64}`."""
    if len(token) < 90 or not token.startswith(LINES_PREFIX) or token[85] != ":":
        return None
    payload = token[86:]
    if "+" in payload or "/" in payload or "=" in payload:
        return None
    raw = _payload_bytes(payload)
    if raw is None:
        return None
    layout = _CANONICAL_LAYOUT.fullmatch(raw)
    if layout is None or raw[layout.end(1) :].translate(None, _HEX_DIGITS) != _TAIL_WITHOUT_HEX:
        return None
    return layout


def parse_lines_version(token: object) -> LinesVersion | None:
    """Parse a `repo-lines-v1` token strictly; anything malformed is None ("no previous version")."""
    if not isinstance(token, str):
        return None
    # repo-lines-v1:sha256:<64 hex>:<base64url>, checked piece by piece (a regex over 680 characters is slow)
    if len(token) < 88 or not token.startswith(LINES_PREFIX) or token[85] != ":":
        return None
    content_hash, payload = token[21:85], token[86:]
    # `[a-f0-9]{64}` and `[A-Za-z0-9_-]+` without a regex over 500 characters: the strict base64 decoding
    # refuses anything else outside the alphabet but "+", "/" and "=", refused here.
    if content_hash.strip("0123456789abcdef") or "+" in payload or "/" in payload or "=" in payload:
        return None
    raw = _payload_bytes(payload)
    if raw is None:
        return None
    return _canonical(token, content_hash, raw) or _general(token, content_hash, raw)


def _canonical(token: str, content_hash: str, raw: bytes) -> LinesVersion | None:
    """The metadata as OpenWiki writes it (its keys in order, hex hashes), read by one regex: nearly every token."""
    fast = _CANONICAL_FIELDS.fullmatch(raw)
    if fast is None or raw[fast.end(1) :].translate(None, _HEX_DIGITS) != _TAIL_WITHOUT_HEX:
        return None  # a hash holding something else than hex digits: the general reader says why not
    if int(fast.group(1)) > _MAX_SAFE_INTEGER:
        return None
    g = fast.group
    return LinesVersion(
        token, content_hash, int(g(1)), g(2).decode(), g(3).decode(), int(g(4)), g(5).decode(), int(g(6)),
        g(7).decode(),
    )  # fmt: skip


def _general(token: str, content_hash: str, raw: bytes) -> LinesVersion | None:
    """The metadata as any JSON writer may write it, each field checked."""
    try:
        metadata = json.loads(raw.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(metadata, dict) or len(metadata) != len(_KEYS) or any(k not in metadata for k in _KEYS):
        return None
    selected = _safe_int(metadata["selectedLineCount"])
    preceding = _safe_int(metadata["precedingContextLineCount"])
    following = _safe_int(metadata["followingContextLineCount"])
    first, last, preceding_hash, following_hash = (_hex(metadata[k]) for k in _KEYS if k.endswith("Hash"))
    if selected is None or selected < 1 or first is None or last is None:
        return None
    if preceding_hash is None or following_hash is None:
        return None
    if preceding is None or following is None or not 0 <= preceding <= CONTEXT_LINES:
        return None
    if not 0 <= following <= CONTEXT_LINES:
        return None
    return LinesVersion(
        token=token,
        content_hash=content_hash,
        selected_count=selected,
        first_hash=first,
        last_hash=last,
        preceding_count=preceding,
        preceding_hash=preceding_hash,
        following_count=following,
        following_hash=following_hash,
    )
