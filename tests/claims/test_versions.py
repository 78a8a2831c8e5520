"""Version tokens: creation as OpenWiki writes them, and strict parsing (anything malformed is "no version")."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bot.claims import resolve_evidence
from bot.claims.text import FileText, split_lines
from bot.claims.versions import (
    EMPTY_HASH,
    LINES_PREFIX,
    LinesVersion,
    canonical_anchors,
    canonical_selected_count,
    file_version,
    lines_version,
    parse_file_version,
    parse_lines_version,
)

TEXT = b"one\ntwo\r\nthree\nfour\nfive\nsix\nseven\neight"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _token(meta: dict | str, content_hash: str = "a" * 64) -> str:
    raw = meta if isinstance(meta, str) else json.dumps(meta, separators=(",", ":"))
    payload = base64.urlsafe_b64encode(raw.encode()).rstrip(b"=").decode()
    return f"repo-lines-v1:sha256:{content_hash}:{payload}"


def _meta(**overrides: object) -> dict:
    meta = {
        "selectedLineCount": 2,
        "firstSelectedLineHash": "b" * 64,
        "lastSelectedLineHash": "c" * 64,
        "precedingContextLineCount": 1,
        "precedingContextHash": "d" * 64,
        "followingContextLineCount": 3,
        "followingContextHash": "e" * 64,
    }
    meta.update(overrides)
    return meta


def test_split_lines_is_lf_only_and_keeps_terminators() -> None:
    assert split_lines(b"") == []
    assert split_lines(b"a") == [b"a"]
    assert split_lines(b"a\n") == [b"a\n"]
    assert split_lines(b"a\r\nb\rc\x0bd\xe2\x80\xa8e\n\n") == [b"a\r\n", b"b\rc\x0bd\xe2\x80\xa8e\n", b"\n"]


def test_invalid_utf8_is_replaced_like_whatwg_and_bom_kept() -> None:
    text = FileText(b"\xef\xbb\xbfok\xff\xfe\n")
    assert text.text == "\ufeffok\ufffd\ufffd\n"
    assert text.data == "\ufeffok\ufffd\ufffd\n".encode()


def test_file_version_hashes_decoded_text() -> None:
    assert file_version(FileText(b"abc")) == "repo-file-v1:sha256:" + _sha(b"abc")
    # Two different invalid bytes decode to the same U+FFFD, so OpenWiki gives them the same version.
    assert file_version(FileText(b"\xff")) == file_version(FileText(b"\xfe"))


def test_lines_version_layout() -> None:
    text = FileText(TEXT)
    token = lines_version(text, 3, 5)  # lines 4-5
    prefix, algo, content_hash, payload = token.split(":")
    assert (prefix, algo) == ("repo-lines-v1", "sha256")
    assert content_hash == _sha(b"four\nfive\n")
    meta = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    assert "=" not in payload and " " not in meta
    assert list(json.loads(meta)) == list(_meta())  # exact key order
    assert json.loads(meta) == {
        "selectedLineCount": 2,
        "firstSelectedLineHash": _sha(b"four\n"),
        "lastSelectedLineHash": _sha(b"five\n"),
        "precedingContextLineCount": 3,
        "precedingContextHash": _sha(b"one\ntwo\r\nthree\n"),
        "followingContextLineCount": 3,
        "followingContextHash": _sha(b"six\nseven\neight"),
    }


def test_context_counts_clip_at_file_edges() -> None:
    text = FileText(b"a\nb\n")
    meta = parse_lines_version(lines_version(text, 0, 2))
    assert meta is not None
    assert (meta.preceding_count, meta.preceding_hash) == (0, EMPTY_HASH)
    assert (meta.following_count, meta.following_hash) == (0, EMPTY_HASH)


def test_parse_round_trip() -> None:
    token = lines_version(FileText(TEXT), 1, 4)
    parsed = parse_lines_version(token)
    assert parsed is not None and parsed.token == token and parsed.selected_count == 3
    assert parse_file_version("repo-file-v1:sha256:" + "0" * 64) == "0" * 64


@pytest.mark.parametrize(
    "token",
    [
        None,
        42,
        "",
        "garbage",
        "repo-file-v1:sha256:" + "0" * 64,  # a file token on a range resource
        "repo-lines-v1:sha256:" + "A" * 64 + ":" + _token(_meta()).rsplit(":", 1)[1],  # upper-case hex
        "repo-lines-v1:sha256:" + "a" * 63 + ":" + _token(_meta()).rsplit(":", 1)[1],
        "repo-lines-v1:sha1:" + "a" * 64 + ":" + _token(_meta()).rsplit(":", 1)[1],
        _token(_meta()) + "=",  # padding is not part of the format
        _token(_meta()) + ":extra",
        "repo-lines-v1:sha256:" + "a" * 64 + ":!!!",
        _token("not json"),
        _token("[1,2]"),
        _token({k: v for k, v in _meta().items() if k != "followingContextHash"}),  # 6 keys
        _token(_meta(extra=1)),  # 8 keys
        _token(_meta(selectedLineCount=0)),
        _token(_meta(selectedLineCount=-1)),
        _token(_meta(selectedLineCount=1.5)),
        _token(_meta(selectedLineCount="2")),
        _token(_meta(selectedLineCount=True)),
        _token(_meta(selectedLineCount=2**53)),
        _token(_meta(precedingContextLineCount=4)),
        _token(_meta(followingContextLineCount=-1)),
        _token(_meta(firstSelectedLineHash="B" * 64)),
        _token(_meta(lastSelectedLineHash="c" * 63)),
        _token(_meta(precedingContextHash=None)),
    ],
)
def test_malformed_lines_tokens_are_no_version(token: object) -> None:
    assert parse_lines_version(token) is None


def test_integral_floats_are_safe_integers_as_in_javascript() -> None:
    parsed = parse_lines_version(_token('{"selectedLineCount":2.0,' + json.dumps(_meta())[1:].split(",", 1)[1]))
    assert parsed is not None and parsed.selected_count == 2


def test_malformed_previous_version_resolves_fresh_at_the_hint() -> None:
    """OpenWiki: no usable previous version → a new version at the hint (so the claim reads as stale)."""
    found = resolve_evidence("repo://x.txt#L2-L3", TEXT, "repo-lines-v1:sha256:garbage")
    assert found is not None and found.span == (2, 3)
    assert found.version == lines_version(FileText(TEXT), 1, 3)
    assert resolve_evidence("repo://x.txt#L8-L9", TEXT, "garbage") is None  # hint past the end: nothing


def test_whole_file_ignores_previous_version_and_directories_resolve_to_nothing() -> None:
    found = resolve_evidence("repo://x.txt", TEXT, "whatever")
    assert found is not None and found.version == file_version(FileText(TEXT)) and found.span is None
    assert resolve_evidence("repo://x/", b"", None) is None
    assert resolve_evidence("repo://x.txt", None) is None


def _canonical(meta: dict, content_hash: str = "a" * 64) -> str:
    """A token whose metadata is written exactly as OpenWiki writes it (the sweep's fast path)."""
    return _token(meta, content_hash)


def test_canonical_selected_count_reads_only_tokens_written_as_openwiki_writes_them() -> None:
    """The sweep's fast path: the count of a canonical token, None (use the full parser) for anything else."""
    assert canonical_selected_count(lines_version(FileText(TEXT), 1, 4)) == 3
    assert canonical_selected_count(_canonical(_meta(selectedLineCount=10**15 - 1))) == 10**15 - 1
    spaced = _token(json.dumps(_meta()))  # valid JSON, not canonical: spaces after the separators
    reordered = _token(json.dumps(dict(reversed(list(_meta().items()))), separators=(",", ":")))
    payload = _canonical(_meta()).rsplit(":", 1)[1]
    two_short = _canonical(_meta(selectedLineCount=12)).rsplit(":", 1)[1]  # 445 bytes: base64 two short of 4n
    for token in (
        spaced,
        reordered,
        _canonical(_meta(selectedLineCount=10**15)),  # 16 digits: the full parser decides
        "repo-file-v1:sha256:" + "a" * 64,
        "repo-lines-v1:sha256:" + "a" * 64 + ":" + "QUJD",  # 90 characters of which the metadata is "ABC"
        "repo-lines-v1:sha256:" + "a" * 64 + ":QUJ",  # too short to hold metadata
        "repo-lines-v1:sha256:" + "a" * 64 + "!" + payload,
        "repo-lines-v1:sha256:" + "a" * 64 + ":" + payload + "=",
        "repo-lines-v1:sha256:" + "a" * 64 + ":" + two_short + "==",  # padded as base64 would be: not the format
        "repo-lines-v1:sha256:" + "a" * 64 + ":" + payload.replace("_", "/").replace("-", "+") + "+",
        "repo-lines-v1:sha256:" + "a" * 64 + ":" + payload + "A",  # not base64 of whole bytes
        "repo-lines-v1:sha256:" + "a" * 64 + ":" + payload[:40] + "." + payload[40:],  # outside the alphabet
    ):
        assert canonical_selected_count(token) is None, token
        assert canonical_anchors(token) is None, token
    assert canonical_selected_count("repo-lines-v1:sha256:" + "a" * 64 + ":" + two_short) == 12
    # Both paths agree: what the fast path declines, the full parser reads (or refuses) on its own.
    assert parse_lines_version(spaced) == parse_lines_version(_canonical(_meta()))._replace(token=spaced)  # type: ignore[union-attr]
    assert parse_lines_version(reordered) == parse_lines_version(_canonical(_meta()))._replace(token=reordered)  # type: ignore[union-attr]


def test_parsed_fields_are_the_metadatas() -> None:
    token = _canonical(_meta(), content_hash="f" * 64)
    assert parse_lines_version(token) == LinesVersion(token, "f" * 64, 2, "b" * 64, "c" * 64, 1, "d" * 64, 3, "e" * 64)
    spaced = _token(json.dumps(_meta(precedingContextLineCount=0, followingContextLineCount=0)), "0" * 64)
    assert parse_lines_version(spaced) == LinesVersion(
        spaced, "0" * 64, 2, "b" * 64, "c" * 64, 0, "d" * 64, 0, "e" * 64
    )


@pytest.mark.parametrize("key", ["precedingContextLineCount", "followingContextLineCount"])
@pytest.mark.parametrize(
    ("count", "valid"), [(-1, False), (0, True), (3, True), (4, False), (3.0, True), (True, False)]
)
@pytest.mark.parametrize("layout", ["canonical", "spaced"])
def test_context_counts_are_0_to_3_in_either_layout(key: str, count: object, valid: bool, layout: str) -> None:
    meta = _meta(**{key: count})
    token = _canonical(meta) if layout == "canonical" else _token(json.dumps(meta))
    parsed = parse_lines_version(token)
    assert (parsed is not None) == valid
    if parsed is not None:
        assert getattr(parsed, "preceding_count" if key.startswith("preceding") else "following_count") == count


@pytest.mark.parametrize(
    ("count", "valid"), [(1, True), (2**53 - 1, True), (2**53, False), (-(2**53 - 1), False), (10**16, False)]
)
@pytest.mark.parametrize("layout", ["canonical", "spaced"])
def test_selected_count_is_a_positive_safe_integer_in_either_layout(count: int, valid: bool, layout: str) -> None:
    meta = _meta(selectedLineCount=count)
    token = _canonical(meta) if layout == "canonical" else _token(json.dumps(meta))
    parsed = parse_lines_version(token)
    assert (parsed.selected_count if parsed else None) == (count if valid else None)


@pytest.mark.parametrize("key", [k for k in _meta() if k.endswith("Hash")])
@pytest.mark.parametrize("bad", [None, 7, "A" * 64, "a" * 65, "g" * 64])
def test_every_hash_must_be_64_lower_case_hex_digits(key: str, bad: object) -> None:
    assert parse_lines_version(_token(json.dumps(_meta(**{key: bad})))) is None
    assert parse_lines_version(_token(json.dumps(_meta()))) is not None


@pytest.mark.parametrize(
    ("start", "end", "preceding", "following"),
    [(0, 1, 0, 3), (1, 2, 1, 3), (2, 3, 2, 3), (4, 5, 3, 3), (4, 6, 3, 2), (4, 7, 3, 1), (4, 8, 3, 0), (0, 8, 0, 0)],
)
def test_context_is_up_to_three_lines_each_side(start: int, end: int, preceding: int, following: int) -> None:
    text = FileText(TEXT)
    parsed = parse_lines_version(lines_version(text, start, end))
    assert parsed is not None
    assert parsed.selected_count == end - start
    assert (parsed.first_hash, parsed.last_hash) == (_sha(text.lines[start]), _sha(text.lines[end - 1]))
    assert (parsed.preceding_count, parsed.following_count) == (preceding, following)
    assert parsed.preceding_hash == _sha(b"".join(text.lines[start - preceding : start]))
    assert parsed.following_hash == _sha(b"".join(text.lines[end : end + following]))
    assert parsed.content_hash == _sha(b"".join(text.lines[start:end]))


@pytest.mark.parametrize(
    "token",
    [None, 7, "repo-file-v1:sha256:" + "A" * 64, "repo-file-v1:sha256:" + "a" * 63, "repo-file-v1:sha256:" + "a" * 64 + "\n",
     "repo-file-v1:sha1:" + "a" * 64, "x-repo-file-v1:sha256:" + "a" * 64],
)  # fmt: skip
def test_malformed_file_tokens_are_no_version(token: object) -> None:
    assert parse_file_version(token) is None


def test_metadata_followed_by_anything_is_not_canonical() -> None:
    """White space after the object is still JSON (the full parser reads it, as JavaScript's JSON.parse does);
    anything else after it makes the token no version. The fast path takes neither."""
    canonical = lines_version(FileText(TEXT), 1, 4)
    raw = base64.urlsafe_b64decode(canonical[86:] + "=" * (-len(canonical[86:]) % 4))

    def followed_by(tail: bytes) -> str:
        return canonical[:86] + base64.urlsafe_b64encode(raw + tail).rstrip(b"=").decode()

    assert canonical_selected_count(followed_by(b" ")) is None
    assert parse_lines_version(followed_by(b" ")) == parse_lines_version(canonical)._replace(token=followed_by(b" "))  # type: ignore[union-attr]
    assert canonical_selected_count(followed_by(b"x")) is None
    assert parse_lines_version(followed_by(b"x")) is None


def test_the_fast_canonical_check_is_the_canonical_regex_exactly() -> None:
    """`canonical_selected_count` and `canonical_anchors` stand in for `_CANONICAL_METADATA` (15 digits at most)
    on a full sweep's hot path: canonical metadata, then thousands of single-byte edits, insertions and
    deletions, all judged alike, and the anchors read where the regex finds them."""
    import random

    from bot.claims.versions import _CANONICAL_METADATA, canonical_anchors

    rng = random.Random(5)
    text = FileText("".join(f"line {n}\n" for n in range(40)).encode())
    samples = [
        base64.urlsafe_b64decode(lines_version(text, s, e).split(":", 3)[3] + "==")
        for s, e in [(0, 1), (3, 9), (10, 30), (37, 40)]
    ]
    samples.append(samples[0].replace(b'Count":1,', b'Count":123456789012345,', 1))
    samples.append(samples[0].replace(b'Count":1,', b'Count":1234567890123456,', 1))  # 16 digits: not fast
    alphabet = b'0123456789abcdefgz{}":, \\AF\x00\xff'
    checked = 0
    for raw in samples:
        variants = [raw]
        for _ in range(1500):
            at = rng.randrange(len(raw) + 1)
            byte = bytes([rng.choice(alphabet)])
            edit = rng.choice(("replace", "insert", "delete"))
            if edit == "replace" and at < len(raw):
                variants.append(raw[:at] + byte + raw[at + 1 :])
            elif edit == "insert":
                variants.append(raw[:at] + byte + raw[at:])
            elif at < len(raw):
                variants.append(raw[:at] + raw[at + 1 :])
        for variant in variants:
            match = _CANONICAL_METADATA.fullmatch(variant)
            expected = int(match.group(1)) if match is not None and len(match.group(1)) < 16 else None
            token = LINES_PREFIX + "0" * 64 + ":" + base64.urlsafe_b64encode(variant).rstrip(b"=").decode()
            assert canonical_selected_count(token) == expected, variant
            anchors = (expected, match.group(2), match.group(3)) if expected is not None and match else None
            assert canonical_anchors(token) == anchors, variant
            checked += expected is not None
    assert checked > 100  # many variants stay canonical (a hash digit for another): both must agree on those too


def test_parsing_with_the_fast_layout_gives_what_the_reference_regex_gives() -> None:
    """`parse_lines_version` reads canonical metadata with a looser regex and a hex check; on edited tokens it
    parses exactly the tokens the reference regex (or the general JSON reader) accepts, field for field."""
    import random

    from bot.claims.versions import _CANONICAL_METADATA

    rng = random.Random(8)
    text = FileText("".join(f"line {n}\n" for n in range(40)).encode())
    token = lines_version(text, 10, 30)
    prefix, payload = token[:86], token[86:]
    raw = base64.urlsafe_b64decode(payload + "==")
    for _ in range(3000):
        at = rng.randrange(len(raw))
        edited = raw[:at] + bytes([rng.choice(b'0123456789abcdefgA":,{} ')]) + raw[at + 1 :]
        parsed = parse_lines_version(prefix + base64.urlsafe_b64encode(edited).rstrip(b"=").decode())
        reference = _CANONICAL_METADATA.fullmatch(edited)
        if reference is not None:
            assert parsed is not None and parsed.first_hash == reference.group(2).decode()
            assert (parsed.selected_count, parsed.preceding_count) == (int(reference.group(1)), int(reference.group(4)))
        else:  # one byte off the canonical layout is never valid metadata (a key, a hash, a count, the syntax)
            assert parsed is None, edited
    for bad in ("+", "/", "=", ".", " "):
        assert parse_lines_version(prefix + payload[:40] + bad + payload[41:]) is None
    assert parse_lines_version(token[:30] + "G" + token[31:]) is None  # the content hash is hex


_URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


@settings(max_examples=3000, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=_URLSAFE, max_size=14),  # every length mod 4, trailing bits set or not
        st.text(alphabet=_URLSAFE + " .\n\t*é\x00\udcff", max_size=14),
    )
)
def test_the_payload_is_decoded_as_the_standard_librarys_strict_decoder_does(payload: str) -> None:
    """pybase64 decodes the metadata on the hot path: what it accepts, refuses and gives is what `a2b_base64` in
    strict mode does after translating the URL-safe alphabet. Its callers refuse "+", "/" and "=" first (not
    base64url; pybase64 takes a "+" or "/" in some positions despite the other alphabet)."""
    import binascii

    from bot.claims.versions import _payload_bytes

    assume("+" not in payload and "/" not in payload and "=" not in payload)
    expected: bytes | None
    try:
        translated = payload.replace("-", "+").replace("_", "/")
        expected = binascii.a2b_base64(translated + "=" * (-len(payload) % 4), strict_mode=True)
    except (binascii.Error, ValueError):
        expected = None
    assert _payload_bytes(payload) == expected
