"""Claims sidecars, schema v1: a strict reader (OpenWiki's zod schema) and a byte-identical writer (§1.2)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import accumulate, chain, compress, repeat
from operator import itemgetter
from typing import Any, NamedTuple

import orjson

from .errors import SidecarError
from .text import sha_hex

SCHEMA_VERSION = 1
_PAGE_VERSION = re.compile(r"sha256:[a-f0-9]{64}")
# String.prototype.trim's whitespace: WhiteSpace and LineTerminator of ECMA-262 (not Python's str.strip set).
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class EvidenceRecord(NamedTuple):
    """One piece of evidence: where (`repo://` resource) and what it was (version token)."""

    resource: str
    version: str


class Claim(NamedTuple):
    """A factual statement of a page and the evidence behind it (tuples: a wiki holds 100k of them)."""

    id: str
    statement: str
    evidence: tuple[EvidenceRecord, ...]


@dataclass(frozen=True, slots=True)
class Verification:
    by: str
    at: str


@dataclass(frozen=True, slots=True)
class Sidecar:
    page_version: str
    claims: tuple[Claim, ...]
    verification: Verification | None = None

    def with_claims(self, claims: Iterable[Claim]) -> Sidecar:
        claims = tuple(claims)
        # OpenWiki omits `verification` when a page has no claims.
        return replace(self, claims=claims, verification=self.verification if claims else None)


def js_trim(value: str) -> str:
    return value.strip(JS_WHITESPACE)


def page_version(page: bytes) -> str:
    """`pageVersion`: the hash of the page's exact bytes, front matter included."""
    return "sha256:" + sha_hex(page)


def new_claim_id(taken: Iterable[str] = ()) -> str:
    """`claim_` and 32 lower-case hex digits, as OpenWiki allocates them; never one already taken."""
    taken = set(taken)
    while True:
        claim_id = "claim_" + uuid.uuid4().hex
        if claim_id not in taken:
            return claim_id


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> SidecarError:
        return SidecarError(self.path, f"{where}: {problem}" if where else problem)

    def obj(
        self, value: object, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
    ) -> dict[str, object]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected an object, got {_kind(value)}")
        unknown = [k for k in value if k not in required and k not in optional]
        if unknown:
            raise self.fail(where, f"unknown key {unknown[0]!r} (schema v1 allows {', '.join(required + optional)})")
        missing = [k for k in required if k not in value]
        if missing:
            raise self.fail(where, f"missing required key {missing[0]!r}")
        return value

    def canon(self, value: object, where: str) -> str:
        if not isinstance(value, str):
            raise self.fail(where, f"expected a string, got {_kind(value)}")
        if not value:
            raise self.fail(where, "must not be empty")
        if js_trim(value) != value:
            raise self.fail(where, "must not have leading or trailing whitespace")
        return value

    def array(self, value: object, where: str) -> list[object]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected an array, got {_kind(value)}")
        return value


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    kinds: dict[type, str] = {str: "a string", list: "an array", dict: "an object"}
    return kinds.get(type(value), type(value).__name__)


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r}")
            seen.add(key)
    return result


def _no_constants(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def parse_sidecar(data: bytes, path: str, *, read_before: bool = False) -> Sidecar:
    """Read a sidecar exactly as strictly as OpenWiki does; raise SidecarError naming the file and problem.

    `read_before`: these very bytes were read by this reader already (the verdict cache keeps results by the
    sidecar's blob id, only for a sidecar that was read): orjson's value is then the strict reader's, with no
    re-encoding to prove it (a tenth of a second at 100k claims); every field is still checked.
    """
    reader = _Reader(path)
    raw = _decoded(data) if read_before else _canonical_json(data)
    if raw is None:
        try:
            raw = json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constants)
        except UnicodeDecodeError as exc:
            raise reader.fail("", f"not UTF-8 ({exc.reason} at byte {exc.start})") from exc
        except ValueError as exc:
            raise reader.fail("", f"invalid JSON: {exc}") from exc
    top = reader.obj(raw, "", ("schemaVersion", "pageVersion", "claims"), ("verification",))
    schema = top["schemaVersion"]
    if isinstance(schema, bool) or schema != SCHEMA_VERSION:
        raise reader.fail("schemaVersion", f"expected 1, got {json.dumps(schema)}")
    version = top["pageVersion"]
    if not isinstance(version, str) or not _PAGE_VERSION.fullmatch(version):
        raise reader.fail("pageVersion", "expected 'sha256:' and 64 lower-case hex digits")
    items = reader.array(top["claims"], "claims")
    claims = _fast_claims(items)
    if claims is None:
        claims = _checked_claims(reader, items)
    verification = None
    if "verification" in top:
        ver = reader.obj(top["verification"], "verification", ("by", "at"))
        verification = Verification(
            reader.canon(ver["by"], "verification.by"), reader.canon(ver["at"], "verification.at")
        )
    return Sidecar(version, claims, verification)


def _decoded(data: bytes) -> object | None:
    """The value orjson reads, None when it refuses the bytes (a lone surrogate the strict reader accepts, say)."""
    try:
        value: object = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return value


def _canonical_json(data: bytes) -> object | None:
    """The value of a sidecar written as OpenWiki writes it (`JSON.stringify(value, null, 2)` and a newline),
    decoded at C speed; None for anything else, which the strict decoder then reads.

    orjson keeps the last of duplicate keys where the strict reader refuses them; re-encoding the value and
    finding the very bytes read proves there was none (a dropped key would be missing from the re-encoding), and
    that no number lost precision on the way.
    """
    try:
        value = orjson.loads(data)
        return value if orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n" == data else None
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return None


_CLAIM_FIELDS = itemgetter("id", "statement", "evidence")
_RECORD_FIELDS = itemgetter("resource", "version")


def _fast_claims(items: list[Any]) -> tuple[Claim, ...] | None:
    """The checks of `_checked_claims` made a column at a time at C speed (a wiki holds 100k claims); None means
    "something is wrong, say what"."""
    if not items:
        return ()
    try:
        # Objects of exactly the three keys (three entries, and each key found); then the same for records.
        if set(map(type, items)) != {dict} or set(map(len, items)) != {3}:
            return None
        ids, statements, evidences = zip(*map(_CLAIM_FIELDS, items), strict=True)
        if set(map(type, evidences)) != {list} or not all(evidences):
            return None
        records = list(chain.from_iterable(evidences))
        if set(map(type, records)) != {dict} or set(map(len, records)) != {2}:
            return None
        resources, versions = zip(*map(_RECORD_FIELDS, records), strict=True)
    except KeyError:
        return None
    if not (_canonical(ids) and _canonical(statements) and _canonical(resources) and _canonical(versions)):
        return None
    if len(set(ids)) != len(ids):
        return None
    counts = list(map(len, evidences))
    ends = list(accumulate(counts))
    starts = [0, *ends[:-1]]
    for start, end in compress(zip(starts, ends, strict=True), map((1).__lt__, counts)):  # claims of 2+ records
        if len(set(resources[start:end])) != end - start:
            return None  # the same resource twice in one claim
    make = tuple.__new__  # NamedTuple's own __new__ costs twice as much
    made = list(map(make, repeat(EvidenceRecord), zip(resources, versions, strict=True)))
    evidence = map(tuple, map(made.__getitem__, map(slice, starts, ends)))
    return tuple(map(make, repeat(Claim), zip(ids, statements, evidence, strict=True)))


def _canonical(values: tuple[Any, ...]) -> bool:
    """Whether every value is a string, not empty, with no JavaScript whitespace at either end."""
    return (
        set(map(type, values)) == {str}
        and all(values)
        and tuple(map(str.strip, values, repeat(JS_WHITESPACE))) == values
    )


def _checked_claims(reader: _Reader, items: list[object]) -> tuple[Claim, ...]:
    """Claims checked one rule at a time, raising SidecarError at the first problem with its location."""
    claims = []
    ids: set[str] = set()
    for n, item in enumerate(items):
        where = f"claims[{n}]"
        obj = reader.obj(item, where, ("id", "statement", "evidence"))
        claim_id = reader.canon(obj["id"], f"{where}.id")
        if claim_id in ids:
            raise reader.fail(f"{where}.id", f"duplicate claim id {claim_id!r}")
        ids.add(claim_id)
        statement = reader.canon(obj["statement"], f"{where}.statement")
        records = reader.array(obj["evidence"], f"{where}.evidence")
        if not records:
            raise reader.fail(f"{where}.evidence", "must list at least one evidence record")
        evidence = []
        resources: set[str] = set()
        for m, record in enumerate(records):
            at = f"{where}.evidence[{m}]"
            rec = reader.obj(record, at, ("resource", "version"))
            resource = reader.canon(rec["resource"], f"{at}.resource")
            if resource in resources:
                raise reader.fail(f"{at}.resource", f"duplicate resource {resource!r} in one claim")
            resources.add(resource)
            evidence.append(EvidenceRecord(resource, reader.canon(rec["version"], f"{at}.version")))
        claims.append(Claim(claim_id, statement, tuple(evidence)))
    return tuple(claims)


def render_sidecar(sidecar: Sidecar) -> bytes:
    """`JSON.stringify(value, null, 2) + "\\n"` with OpenWiki's key order: byte-identical output."""
    value: dict[str, object] = {
        "schemaVersion": SCHEMA_VERSION,
        "pageVersion": sidecar.page_version,
        "claims": [
            {
                "id": claim.id,
                "statement": claim.statement,
                "evidence": [{"resource": e.resource, "version": e.version} for e in claim.evidence],
            }
            for claim in sidecar.claims
        ],
    }
    if sidecar.verification is not None:
        value["verification"] = {"by": sidecar.verification.by, "at": sidecar.verification.at}
    text = json.dumps(value, indent=2, ensure_ascii=False)
    # JSON.stringify escapes lone surrogates (well-formed JSON.stringify); json.dumps would emit them raw.
    text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
    return (text + "\n").encode("utf-8")
