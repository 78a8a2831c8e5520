"""Claims sidecars (schema v1): strict reader, byte-exact JSON.stringify writer, page versions, claim ids."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.claims.errors import ClaimsError, SidecarError
from bot.claims.sidecar import (
    Claim,
    EvidenceRecord,
    Sidecar,
    Verification,
    _checked_claims,
    _fast_claims,
    _Reader,
    new_claim_id,
    page_version,
    parse_sidecar,
    render_sidecar,
)

GOLDEN = Path(__file__).parents[1] / "data" / "golden"
PATH = "openwiki/.claims/guides/setup.json"
PAGE_VERSION = "sha256:" + hashlib.sha256(b"# Setup\n").hexdigest()
ID0 = "claim_" + "0123456789abcdef" * 2
ID1 = "claim_" + "fedcba9876543210" * 2

# String.prototype.trim's whitespace, checked with node: WhiteSpace (incl. U+FEFF and Zs) and LineTerminator.
JS_WHITESPACE = [
    "\t",
    "\n",
    "\u000b",
    "\u000c",
    "\r",
    " ",
    "\u00a0",
    "\u1680",
    "\u2000",
    "\u2001",
    "\u2002",
    "\u2003",
    "\u2004",
    "\u2005",
    "\u2006",
    "\u2007",
    "\u2008",
    "\u2009",
    "\u200a",
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
    "\ufeff",
]
# Not trimmed by JS, although Python's str.strip() removes the first five.
NOT_JS_WHITESPACE = ["\u0085", "\u001c", "\u001d", "\u001e", "\u001f", "\u180e", "\u200b", "\u2060", "\u0000"]


def _valid() -> dict:
    return {
        "schemaVersion": 1,
        "pageVersion": PAGE_VERSION,
        "claims": [
            {
                "id": ID0,
                "statement": "Setup installs the CLI.",
                "evidence": [
                    {"resource": "repo://setup.py", "version": "repo-file-v1:abc"},
                    {"resource": "repo://bot/cli.py#L1-L9", "version": "repo-lines-v1:def"},
                ],
            },
            {
                "id": ID1,
                "statement": "The CLI has a check command.",
                "evidence": [{"resource": "repo://bot/cli.py#L10-L20", "version": "repo-lines-v1:ghi"}],
            },
        ],
        "verification": {"by": "openwiki/0.3.3", "at": "2026-08-22T10:15:30.123Z"},
    }


EXPECTED_VALID = Sidecar(
    PAGE_VERSION,
    (
        Claim(
            ID0,
            "Setup installs the CLI.",
            (
                EvidenceRecord("repo://setup.py", "repo-file-v1:abc"),
                EvidenceRecord("repo://bot/cli.py#L1-L9", "repo-lines-v1:def"),
            ),
        ),
        Claim(
            ID1,
            "The CLI has a check command.",
            (EvidenceRecord("repo://bot/cli.py#L10-L20", "repo-lines-v1:ghi"),),
        ),
    ),
    Verification("openwiki/0.3.3", "2026-08-22T10:15:30.123Z"),
)


def _encode(value: object) -> bytes:
    return json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8")


def _with(change: Callable[[dict], object]) -> bytes:
    value = copy.deepcopy(_valid())
    change(value)
    return _encode(value)


def _rejects(data: bytes, location: str, *words: str) -> str:
    """parse_sidecar fails; the message names the file, the JSON location and the problem."""
    with pytest.raises(SidecarError) as caught:
        parse_sidecar(data, PATH)
    error = caught.value
    message = str(error)
    assert error.path == PATH
    assert message.startswith(PATH + ": ")
    if location:
        # The location itself, not a longer one it is a prefix of (claims[0] vs claims[0].id).
        assert re.search(re.escape(location) + r"(?![\w.\[])", message), message
    for word in words:
        assert word.lower() in message.lower(), message
    return message


def _sidecar_with(change: Callable[[dict], object]) -> Sidecar:
    """The sidecar `_with(change)` must read as, built from the changed value itself (not through the reader)."""
    value = copy.deepcopy(_valid())
    change(value)
    claims = tuple(
        Claim(c["id"], c["statement"], tuple(EvidenceRecord(r["resource"], r["version"]) for r in c["evidence"]))
        for c in value["claims"]
    )
    verification = value.get("verification")
    return Sidecar(
        value["pageVersion"], claims, Verification(verification["by"], verification["at"]) if verification else None
    )


def _strings(sidecar: Sidecar) -> set[str]:
    found = {s for claim in sidecar.claims for s in (claim.id, claim.statement)}
    found |= {s for claim in sidecar.claims for r in claim.evidence for s in (r.resource, r.version)}
    if sidecar.verification is not None:
        found |= {sidecar.verification.by, sidecar.verification.at}
    return found


# -- reader: valid inputs -------------------------------------------------------------------------


def test_parses_a_valid_sidecar() -> None:
    assert parse_sidecar(_encode(_valid()), PATH) == EXPECTED_VALID


def test_parses_without_verification() -> None:
    value = _valid()
    del value["verification"]
    parsed = parse_sidecar(_encode(value), PATH)
    assert parsed.verification is None
    assert parsed.claims == EXPECTED_VALID.claims


@pytest.mark.parametrize("verified", [False, True])
def test_parses_zero_claims(verified: bool) -> None:
    value = _valid()
    value["claims"] = []
    if not verified:
        del value["verification"]
    parsed = parse_sidecar(_encode(value), PATH)
    assert parsed.claims == ()
    assert parsed.page_version == PAGE_VERSION
    assert (parsed.verification is not None) is verified


@pytest.mark.parametrize("number", ["1", "1.0", "1.00", "1e0", "1E0", "10e-1", "0.1e1", "1.0000000000000001"])
def test_schema_version_is_the_number_one_however_spelled(number: str) -> None:
    # JSON.parse turns every one of these into the number 1, which satisfies z.literal(1).
    text = _encode(_valid()).decode().replace('"schemaVersion": 1,', f'"schemaVersion": {number},', 1)
    assert f'"schemaVersion": {number},' in text
    assert parse_sidecar(text.encode(), PATH) == EXPECTED_VALID


def test_key_order_and_formatting_do_not_matter() -> None:
    value = _valid()
    reordered = {
        "verification": value["verification"],
        "claims": value["claims"][::-1],
        "pageVersion": PAGE_VERSION,
        "schemaVersion": 1,
    }
    compact = json.dumps(reordered, separators=(",", ":")).encode()
    parsed = parse_sidecar(b" \t\r\n" + compact + b"\r\n\t ", PATH)
    assert parsed.claims == EXPECTED_VALID.claims[::-1]
    assert parsed.verification == EXPECTED_VALID.verification


def test_escapes_and_lone_surrogates_are_read() -> None:
    text = _encode(_valid()).decode().replace("Setup installs the CLI.", "Caf\\u00e9 \\ud83d\\ude00 \\ud800 \\/ end")
    parsed = parse_sidecar(text.encode(), PATH)
    assert parsed.claims[0].statement == "Café 😀 \ud800 / end"


def test_same_resource_in_different_claims_is_fine() -> None:
    def change(v: dict) -> None:
        v["claims"][1]["evidence"][0]["resource"] = "repo://setup.py"

    parsed = parse_sidecar(_with(change), PATH)
    assert [[r.resource for r in claim.evidence] for claim in parsed.claims] == [
        ["repo://setup.py", "repo://bot/cli.py#L1-L9"],
        ["repo://setup.py"],
    ]
    assert parsed == _sidecar_with(change)


def test_same_version_twice_in_one_claim_is_fine() -> None:
    def change(v: dict) -> None:
        v["claims"][0]["evidence"][1]["version"] = "repo-file-v1:abc"

    parsed = parse_sidecar(_with(change), PATH)
    assert parsed.claims[0].evidence == (
        EvidenceRecord("repo://setup.py", "repo-file-v1:abc"),
        EvidenceRecord("repo://bot/cli.py#L1-L9", "repo-file-v1:abc"),
    )
    assert parsed == _sidecar_with(change)


# -- reader: unknown and missing keys ------------------------------------------------------------

UNKNOWN_KEYS: list[tuple[str, Callable[[dict], object], str, str]] = [
    ("top", lambda v: v.__setitem__("extra", 1), "", "extra"),
    ("top-$schema", lambda v: v.__setitem__("$schema", "x"), "", "$schema"),
    ("top-case", lambda v: v.__setitem__("schemaversion", 1), "", "schemaversion"),
    ("top-null", lambda v: v.__setitem__("locationHints", None), "", "locationHints"),
    ("claim", lambda v: v["claims"][1].__setitem__("note", "x"), "claims[1]", "note"),
    ("claim-status", lambda v: v["claims"][0].__setitem__("status", "fresh"), "claims[0]", "status"),
    (
        "evidence",
        lambda v: v["claims"][0]["evidence"][1].__setitem__("line", 3),
        "claims[0].evidence[1]",
        "line",
    ),
    (
        "evidence-empty-key",
        lambda v: v["claims"][1]["evidence"][0].__setitem__("", 3),
        "claims[1].evidence[0]",
        "''",
    ),
    ("verification", lambda v: v["verification"].__setitem__("model", "m"), "verification", "model"),
]


@pytest.mark.parametrize(("change", "location", "key"), [c[1:] for c in UNKNOWN_KEYS], ids=[c[0] for c in UNKNOWN_KEYS])
def test_unknown_keys_are_rejected_at_every_level(change: Callable, location: str, key: str) -> None:
    _rejects(_with(change), location, "unknown", key)


MISSING_KEYS: list[tuple[Callable[[dict], object], str, str]] = [
    (lambda v: v.pop("schemaVersion"), "", "schemaVersion"),
    (lambda v: v.pop("pageVersion"), "", "pageVersion"),
    (lambda v: v.pop("claims"), "", "claims"),
    (lambda v: v["claims"][1].pop("id"), "claims[1]", "id"),
    (lambda v: v["claims"][1].pop("statement"), "claims[1]", "statement"),
    (lambda v: v["claims"][1].pop("evidence"), "claims[1]", "evidence"),
    (lambda v: v["claims"][0]["evidence"][1].pop("resource"), "claims[0].evidence[1]", "resource"),
    (lambda v: v["claims"][0]["evidence"][1].pop("version"), "claims[0].evidence[1]", "version"),
    (lambda v: v["verification"].pop("by"), "verification", "by"),
    (lambda v: v["verification"].pop("at"), "verification", "at"),
]


@pytest.mark.parametrize(("change", "location", "key"), MISSING_KEYS, ids=[f"{c[1]}.{c[2]}" for c in MISSING_KEYS])
def test_missing_required_keys_are_rejected(change: Callable, location: str, key: str) -> None:
    _rejects(_with(change), location, "missing", repr(key))


def test_empty_top_level_object_is_rejected() -> None:
    _rejects(b"{}", "", "missing")


# -- reader: wrong types and values --------------------------------------------------------------


@pytest.mark.parametrize("schema", [2, 0, -1, 1.5, "1", True, False, None, [1], {"v": 1}])
def test_schema_version_must_be_one(schema: object) -> None:
    _rejects(_with(lambda v: v.__setitem__("schemaVersion", schema)), "schemaVersion")


@pytest.mark.parametrize(
    "version",
    [
        "a" * 64,  # no prefix
        "sha256:" + "A" * 64,  # upper-case hex
        "sha256:" + "aB" * 32,
        "SHA256:" + "a" * 64,
        "sha1:" + "a" * 40,
        "sha256:" + "a" * 63,
        "sha256:" + "a" * 65,
        "sha256:" + "g" * 64,
        "sha256:",
        "sha256:" + "a" * 64 + "\n",
        "sha256:" + "a" * 64 + " ",
        " sha256:" + "a" * 64,
        "sha256: " + "a" * 63,
        "sha256:" + "٣" * 64,  # Unicode digits are not hex
        "",
        None,
        64,
        ["sha256:" + "a" * 64],
    ],
)
def test_page_version_must_be_sha256_and_64_lower_case_hex_digits(version: object) -> None:
    _rejects(_with(lambda v: v.__setitem__("pageVersion", version)), "pageVersion")


@pytest.mark.parametrize("claims", [{}, {"0": {}}, "[]", None, 0, True])
def test_claims_must_be_an_array(claims: object) -> None:
    _rejects(_with(lambda v: v.__setitem__("claims", claims)), "claims", "array")


@pytest.mark.parametrize("claim", ["claim", None, [], 1, True])
def test_each_claim_must_be_an_object(claim: object) -> None:
    _rejects(_with(lambda v: v["claims"].__setitem__(1, claim)), "claims[1]", "object")


@pytest.mark.parametrize("evidence", [{}, "repo://setup.py", None, 1])
def test_evidence_must_be_an_array(evidence: object) -> None:
    _rejects(_with(lambda v: v["claims"][1].__setitem__("evidence", evidence)), "claims[1].evidence", "array")


def test_evidence_must_not_be_empty() -> None:
    _rejects(_with(lambda v: v["claims"][1].__setitem__("evidence", [])), "claims[1].evidence", "at least one")


@pytest.mark.parametrize("record", ["repo://setup.py", None, [], 1])
def test_each_evidence_record_must_be_an_object(record: object) -> None:
    _rejects(_with(lambda v: v["claims"][0]["evidence"].__setitem__(1, record)), "claims[0].evidence[1]", "object")


@pytest.mark.parametrize("verification", [None, "openwiki/0.3.3", [], 1, True])
def test_verification_must_be_an_object_when_present(verification: object) -> None:
    _rejects(_with(lambda v: v.__setitem__("verification", verification)), "verification", "object")


def _set_id(v: dict, s: object) -> None:
    v["claims"][0]["id"] = s


def _set_statement(v: dict, s: object) -> None:
    v["claims"][1]["statement"] = s


def _set_resource(v: dict, s: object) -> None:
    v["claims"][0]["evidence"][1]["resource"] = s


def _set_version(v: dict, s: object) -> None:
    v["claims"][0]["evidence"][1]["version"] = s


def _set_by(v: dict, s: object) -> None:
    v["verification"]["by"] = s


def _set_at(v: dict, s: object) -> None:
    v["verification"]["at"] = s


CANON_FIELDS: list[tuple[str, Callable[[dict, object], None]]] = [
    ("claims[0].id", _set_id),
    ("claims[1].statement", _set_statement),
    ("claims[0].evidence[1].resource", _set_resource),
    ("claims[0].evidence[1].version", _set_version),
    ("verification.by", _set_by),
    ("verification.at", _set_at),
]
CANON_IDS = [field[0] for field in CANON_FIELDS]


@pytest.mark.parametrize(("location", "setter"), CANON_FIELDS, ids=CANON_IDS)
def test_canonical_strings_must_not_be_empty(location: str, setter: Callable) -> None:
    _rejects(_with(lambda v: setter(v, "")), location, "empty")


@pytest.mark.parametrize("value", [5, 0, 1.5, None, True, [], ["x"], {"x": 1}])
@pytest.mark.parametrize(("location", "setter"), CANON_FIELDS, ids=CANON_IDS)
def test_canonical_strings_must_be_strings(location: str, setter: Callable, value: object) -> None:
    _rejects(_with(lambda v: setter(v, value)), location, "string")


@pytest.mark.parametrize("space", JS_WHITESPACE, ids=[f"U+{ord(c):04X}" for c in JS_WHITESPACE])
@pytest.mark.parametrize("where", ["leading", "trailing", "only"])
@pytest.mark.parametrize(("location", "setter"), CANON_FIELDS, ids=CANON_IDS)
def test_canonical_strings_must_be_js_trimmed(location: str, setter: Callable, where: str, space: str) -> None:
    value = {"leading": space + "x", "trailing": "x" + space, "only": space * 2}[where]
    _rejects(_with(lambda v: setter(v, value)), location, "whitespace")


@pytest.mark.parametrize("char", NOT_JS_WHITESPACE, ids=[f"U+{ord(c):04X}" for c in NOT_JS_WHITESPACE])
@pytest.mark.parametrize(("location", "setter"), CANON_FIELDS, ids=CANON_IDS)
def test_characters_js_does_not_trim_are_accepted_at_the_edges(location: str, setter: Callable, char: str) -> None:
    for value in (f"x{char}", f"{char}x", f"{char}x{char}"):
        change = lambda v, value=value: setter(v, value)  # noqa: E731
        parsed = parse_sidecar(_with(change), PATH)
        assert parsed == _sidecar_with(change)  # kept as written, at its place
        assert value in _strings(parsed)


@pytest.mark.parametrize("inner", [" ", "\u00a0", "\n", "\t", "\ufeff", "\u2028", "  \r\n  "])
def test_inner_whitespace_is_fine(inner: str) -> None:
    parsed = parse_sidecar(_with(lambda v: _set_statement(v, f"two{inner}words")), PATH)
    assert parsed.claims[1].statement == f"two{inner}words"


def test_nel_at_the_end_is_kept_verbatim() -> None:
    parsed = parse_sidecar(_with(lambda v: _set_statement(v, "x\u0085")), PATH)
    assert parsed.claims[1].statement == "x\u0085"


# -- reader: uniqueness ------------------------------------------------------------------------------


def test_duplicate_claim_ids_are_rejected() -> None:
    message = _rejects(_with(lambda v: _set_id(v, ID1)), "claims[1].id", "duplicate", ID1)
    assert "claims[0].id" not in message


def test_duplicate_claim_ids_three_claims() -> None:
    def change(v: dict) -> None:
        third = copy.deepcopy(v["claims"][1])
        third["id"] = ID0
        v["claims"].append(third)

    _rejects(_with(change), "claims[2].id", "duplicate")


def test_duplicate_resources_in_one_claim_are_rejected() -> None:
    def change(v: dict) -> None:
        v["claims"][0]["evidence"][1]["resource"] = "repo://setup.py"

    _rejects(_with(change), "claims[0].evidence[1].resource", "duplicate", "repo://setup.py")


def test_duplicate_resources_rejected_even_with_different_versions() -> None:
    def change(v: dict) -> None:
        v["claims"][1]["evidence"] = [
            {"resource": "repo://a.py#L1-L2", "version": "one"},
            {"resource": "repo://b.py", "version": "two"},
            {"resource": "repo://a.py#L1-L2", "version": "three"},
        ]

    _rejects(_with(change), "claims[1].evidence[2].resource", "duplicate")


# -- reader: malformed documents -------------------------------------------------------------------


def _text() -> str:
    return _encode(_valid()).decode()


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ('"schemaVersion": 1,', '"schemaVersion": 1, "schemaVersion": 1,', "schemaVersion"),
        ('"pageVersion": ', '"pageVersion": "sha256:x", "pageVersion": ', "pageVersion"),
        (f'"id": "{ID1}",', f'"id": "{ID1}", "id": "{ID1}",', "id"),
        (
            '"resource": "repo://setup.py",',
            '"resource": "repo://setup.py", "resource": "repo://x.py",',
            "resource",
        ),
        ('"by": "openwiki/0.3.3",', '"by": "openwiki/0.3.3", "by": "openwiki/0.3.3",', "by"),
    ],
)
def test_duplicate_json_object_keys_are_rejected(old: str, new: str, key: str) -> None:
    assert old in _text()
    _rejects(_text().replace(old, new, 1).encode(), "", "duplicate", repr(key))


@pytest.mark.parametrize(
    ("line", "key"),
    [('  "schemaVersion": 1,\n', "schemaVersion"), (f'      "id": "{ID1}",\n', "id")],
)
def test_a_duplicate_key_on_a_line_of_its_own_is_refused_although_the_layout_is_openwikis(line: str, key: str) -> None:
    # The layout OpenWiki writes is decoded at C speed, which keeps the last of duplicate keys: the re-encoding
    # check must send this document to the strict reader.
    canonical = render_sidecar(parse_sidecar(_encode(_valid()), PATH)).decode()
    assert line in canonical
    _rejects(canonical.replace(line, line + line, 1).encode(), "", "duplicate", repr(key))


def test_a_sidecar_in_openwikis_layout_is_read_without_the_strict_decoder(monkeypatch: pytest.MonkeyPatch) -> None:
    data = render_sidecar(parse_sidecar(_encode(_valid()), PATH))
    expected = parse_sidecar(data, PATH)
    compact = json.dumps(json.loads(data)).encode()

    def unavailable(*args: object, **kwargs: object) -> object:
        raise AssertionError("the strict decoder ran")

    monkeypatch.setattr("bot.claims.sidecar.json.loads", unavailable)
    assert parse_sidecar(data, PATH) == expected
    with pytest.raises(AssertionError, match="strict decoder"):
        parse_sidecar(compact, PATH)  # any other layout goes through the strict reader


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("field", ['"schemaVersion": 1', '"id": "' + ID0 + '"', '"at": "2026-08-22T10:15:30.123Z"'])
def test_nan_and_infinity_are_not_json(constant: str, field: str) -> None:
    name = field.split(":", maxsplit=1)[0]
    assert field in _text()
    _rejects(_text().replace(field, f"{name}: {constant}", 1).encode(), "", "json")


def test_huge_exponent_is_not_schema_version_one() -> None:
    _rejects(_text().replace('"schemaVersion": 1,', '"schemaVersion": 1e400,', 1).encode(), "schemaVersion")


def test_utf8_bom_is_rejected() -> None:
    # JSON.parse rejects U+FEFF before the value; OpenWiki reads the file as UTF-8 without stripping it.
    _rejects(b"\xef\xbb\xbf" + _encode(_valid()), "", "json")


@pytest.mark.parametrize(
    "bad",
    [b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80abc", b"\xe2\x82"],
    ids=["ff", "truncated-2", "overlong", "surrogate", "above-10ffff", "continuation", "truncated-3"],
)
def test_invalid_utf8_is_rejected(bad: bytes) -> None:
    data = _encode(_valid()).replace(b"Setup installs", b"Setup " + bad + b" installs", 1)
    assert bad in data
    _rejects(data, "", "utf-8")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"   ",
        b"not json",
        b"{",
        b"{'schemaVersion': 1}",
        b'{"schemaVersion": 1,}',
        b"// comment\n{}",
        b"{} {}",
        b'{"a": 01}',
        b'{"a": .5}',
        b'{"a": +1}',
        b'{"a": "raw\ttab"}',
        b'{"a": "raw\x01control"}',
        b'{"a": "\\x41"}',
        b"undefined",
    ],
)
def test_text_that_is_not_json_is_rejected(data: bytes) -> None:
    _rejects(data, "", "json")


@pytest.mark.parametrize("data", [b"[]", b"null", b"1", b'"sidecar"', b"true"])
def test_top_level_must_be_an_object(data: bytes) -> None:
    _rejects(data, "", "object")


def test_top_level_array_holding_a_valid_sidecar_is_rejected() -> None:
    _rejects(b"[" + _encode(_valid()) + b"]", "", "object")


def test_sidecar_error_is_a_claims_error_and_a_value_error() -> None:
    with pytest.raises(SidecarError) as caught:
        parse_sidecar(b"[]", "a/b.json")
    assert isinstance(caught.value, ClaimsError)
    assert isinstance(caught.value, ValueError)
    assert caught.value.path == "a/b.json"
    assert caught.value.problem
    assert str(caught.value) == f"a/b.json: {caught.value.problem}"


# -- writer: golden files from JavaScript's JSON.stringify ----------------------------------------

CASES = json.loads((GOLDEN / "sidecar_cases.json").read_text("utf-8"))


def _build(value: dict) -> Sidecar:
    verification = value.get("verification")
    return Sidecar(
        page_version=value["pageVersion"],
        claims=tuple(
            Claim(
                c["id"],
                c["statement"],
                tuple(EvidenceRecord(e["resource"], e["version"]) for e in c["evidence"]),
            )
            for c in value["claims"]
        ),
        verification=Verification(verification["by"], verification["at"]) if verification is not None else None,
    )


def test_golden_cases_are_all_present() -> None:
    names = [case["name"] for case in CASES]
    assert len(names) >= 10
    assert sorted(names) == sorted(p.stem for p in (GOLDEN / "sidecars").glob("*.json"))
    assert any("\ud800" in json.dumps(case, ensure_ascii=False) for case in CASES)  # the lone surrogate survived


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_render_matches_json_stringify_byte_for_byte(case: dict) -> None:
    expected = (GOLDEN / "sidecars" / f"{case['name']}.json").read_bytes()
    assert render_sidecar(_build(case["sidecar"])) == expected


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_render_then_parse_round_trips(case: dict) -> None:
    sidecar = _build(case["sidecar"])
    assert parse_sidecar(render_sidecar(sidecar), PATH) == sidecar


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_parse_then_render_reproduces_openwiki_bytes(case: dict) -> None:
    expected = (GOLDEN / "sidecars" / f"{case['name']}.json").read_bytes()
    assert render_sidecar(parse_sidecar(expected, PATH)) == expected


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_fast_reader_reads_a_valid_sidecar_itself_and_as_the_checked_one(case: dict) -> None:
    """The column-wise reader must not hand valid sidecars to the slow one (only then is a wiki read fast)."""
    items = json.loads((GOLDEN / "sidecars" / f"{case['name']}.json").read_bytes())["claims"]
    fast = _fast_claims(items)
    assert fast is not None
    assert fast == _checked_claims(_Reader(PATH), items) == _build(case["sidecar"]).claims
    assert {type(claim) for claim in fast} <= {Claim}
    assert {type(record) for claim in fast for record in claim.evidence} <= {EvidenceRecord}


def test_the_fast_reader_keeps_each_claims_records_apart() -> None:
    counts = [1, 3, 1, 2, 5, 1]
    items = [
        {
            "evidence": [{"version": f"v{n}.{m}", "resource": f"repo://src/{n}.py#L{m + 1}"} for m in range(count)],
            "statement": f"Statement {n}\u0085",  # NEL: not JavaScript whitespace
            "id": f"claim_{n}",
        }
        for n, count in enumerate(counts)
    ]
    fast = _fast_claims(items)
    assert fast == _checked_claims(_Reader(PATH), items)
    assert fast is not None and [len(claim.evidence) for claim in fast] == counts
    assert fast[4].evidence[4] == EvidenceRecord("repo://src/4.py#L5", "v4.4")
    # A resource twice in the fifth claim only; the same resource in two claims is fine.
    items[4]["evidence"][3]["resource"] = items[4]["evidence"][0]["resource"]
    assert _fast_claims(items) is None
    items[4]["evidence"][3]["resource"] = items[0]["evidence"][0]["resource"]
    assert _fast_claims(items) is not None
    items[3]["evidence"][1]["resource"] = items[3]["evidence"][0]["resource"]
    assert _fast_claims(items) is None


def test_render_key_order() -> None:
    top = json.loads(render_sidecar(EXPECTED_VALID), object_pairs_hook=list)
    assert [key for key, _ in top] == ["schemaVersion", "pageVersion", "claims", "verification"]
    fields = dict(top)
    for claim in fields["claims"]:
        assert [key for key, _ in claim] == ["id", "statement", "evidence"]
        for record in dict(claim)["evidence"]:
            assert [key for key, _ in record] == ["resource", "version"]
    assert [key for key, _ in fields["verification"]] == ["by", "at"]


def test_render_exact_small_document() -> None:
    sidecar = Sidecar(
        "sha256:" + "0" * 64,
        (Claim("claim_" + "a" * 32, "S", (EvidenceRecord("repo://x", "v"),)),),
        Verification("b", "t"),
    )
    assert render_sidecar(sidecar) == (
        b'{\n  "schemaVersion": 1,\n  "pageVersion": "sha256:' + b"0" * 64 + b'",\n  "claims": [\n    {\n'
        b'      "id": "claim_' + b"a" * 32 + b'",\n      "statement": "S",\n      "evidence": [\n        {\n'
        b'          "resource": "repo://x",\n          "version": "v"\n        }\n      ]\n    }\n  ],\n'
        b'  "verification": {\n    "by": "b",\n    "at": "t"\n  }\n}\n'
    )


def test_render_omits_verification_when_none() -> None:
    data = render_sidecar(Sidecar("sha256:" + "0" * 64, ()))
    assert data == b'{\n  "schemaVersion": 1,\n  "pageVersion": "sha256:' + b"0" * 64 + b'",\n  "claims": []\n}\n'
    assert b"verification" not in data


def test_round_trip_of_the_valid_fixture() -> None:
    assert parse_sidecar(render_sidecar(EXPECTED_VALID), PATH) == EXPECTED_VALID


# -- page versions, claim ids, with_claims ------------------------------------------------------------


@pytest.mark.parametrize(
    "page",
    [
        b"",
        b"# Title\n",
        b"# Title\r\n",
        b"\xef\xbb\xbf# Title\n",
        b"---\ntype: Concept\n---\n\n# T\n",
        b"\xff\xfe",
        "Café ✓\n".encode(),
    ],
)
def test_page_version_hashes_exact_bytes(page: bytes) -> None:
    version = page_version(page)
    assert version == "sha256:" + hashlib.sha256(page).hexdigest()
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", version)


def test_page_version_of_empty_page() -> None:
    assert page_version(b"") == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_page_version_distinguishes_bom_and_line_endings() -> None:
    versions = {page_version(p) for p in (b"# T\n", b"# T\r\n", b"\xef\xbb\xbf# T\n", b"# T")}
    assert len(versions) == 4


def test_page_version_is_accepted_by_the_reader() -> None:
    value = _valid()
    value["pageVersion"] = page_version(b"anything at all\n")
    assert parse_sidecar(_encode(value), PATH).page_version == value["pageVersion"]


CLAIM_ID = re.compile(r"^claim_[0-9a-f]{32}$")


def test_new_claim_id_format() -> None:
    for _ in range(200):
        assert CLAIM_ID.match(new_claim_id())


def test_new_claim_ids_are_distinct() -> None:
    ids = [new_claim_id() for _ in range(1000)]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("kind", [list, set, tuple, frozenset, iter])
def test_new_claim_id_avoids_taken_ids(kind: Callable) -> None:
    taken_ids = [new_claim_id() for _ in range(500)]
    claim_id = new_claim_id(kind(taken_ids))
    assert CLAIM_ID.match(claim_id)
    assert claim_id not in taken_ids


def test_new_claim_id_accepts_a_generator_of_taken_ids() -> None:
    taken_ids = {new_claim_id() for _ in range(100)}
    claim_id = new_claim_id(i for i in taken_ids)
    assert claim_id not in taken_ids


def test_new_claim_id_is_accepted_by_the_reader() -> None:
    value = _valid()
    value["claims"][0]["id"] = new_claim_id(c["id"] for c in value["claims"])
    parse_sidecar(_encode(value), PATH)


@pytest.mark.parametrize("empty", [(), [], iter(()), (c for c in ())], ids=["tuple", "list", "iter", "generator"])
def test_with_no_claims_drops_verification(empty: object) -> None:
    emptied = EXPECTED_VALID.with_claims(empty)
    assert emptied.claims == ()
    assert emptied.verification is None
    assert emptied.page_version == EXPECTED_VALID.page_version
    assert EXPECTED_VALID.verification is not None  # the original is unchanged


def test_with_claims_keeps_verification_when_claims_remain() -> None:
    kept = EXPECTED_VALID.with_claims([EXPECTED_VALID.claims[1]])
    assert kept.claims == (EXPECTED_VALID.claims[1],)
    assert isinstance(kept.claims, tuple)
    assert kept.verification == EXPECTED_VALID.verification


def test_with_no_claims_renders_without_verification() -> None:
    data = render_sidecar(EXPECTED_VALID.with_claims(()))
    assert b"verification" not in data
    assert parse_sidecar(data, PATH) == Sidecar(PAGE_VERSION, ())


def test_bytes_read_before_are_decoded_without_the_re_encoding_proof_and_read_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    canonical = render_sidecar(parse_sidecar(_encode(_valid()), PATH))
    compact = json.dumps(json.loads(canonical)).encode()
    surrogate = _encode(_valid()).decode().replace("Setup installs the CLI.", "a \\ud800 lone surrogate").encode()
    expected = {data: parse_sidecar(data, PATH) for data in (canonical, compact, surrogate)}

    def no_proof(data: bytes) -> object:
        raise AssertionError("re-encoded")

    monkeypatch.setattr("bot.claims.sidecar._canonical_json", no_proof)
    for data, parsed in expected.items():  # orjson refuses the lone surrogate: the strict reader reads it
        assert parse_sidecar(data, PATH, read_before=True) == parsed
    with pytest.raises(AssertionError, match="re-encoded"):
        parse_sidecar(canonical, PATH)
    with pytest.raises(SidecarError, match="duplicate claim id"):  # every field is still checked
        parse_sidecar(_encode({**_valid(), "claims": _valid()["claims"] * 2}), PATH, read_before=True)
