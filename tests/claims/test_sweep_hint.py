"""The sweep's fast path (the stored text still at its hinted lines) answers exactly as OpenWiki's full algorithm."""

from __future__ import annotations

import base64
import json

import pytest

from bot.claims import Verdict
from bot.claims.results import EvidenceResult
from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar
from bot.claims.snapshot import MemorySnapshot
from bot.claims.sweep import sweep
from bot.claims.text import FileText
from bot.claims.verdicts import OpenWikiVerdict
from bot.claims.versions import lines_version

CODE = b"import os\n\n\ndef run(tasks):\n    total = 0\n    for t in tasks:\n        total += t()\n    return total\n"
PAGE = b"---\ntype: Concept\n---\n\n# Page\n\nProse.\n"


def _with_metadata(token: str, metadata: bytes) -> str:
    """The token's content hash kept, its metadata replaced."""
    return token[:86] + base64.urlsafe_b64encode(metadata).rstrip(b"=").decode()


def _evidence(resource: str, version: str, code: bytes = CODE) -> EvidenceResult:
    sidecar = Sidecar(page_version(PAGE), (Claim("c1", "run sums the tasks", (EvidenceRecord(resource, version),)),))
    files = {"src/run.py": code, "openwiki/run.md": PAGE, "openwiki/.claims/run.json": render_sidecar(sidecar)}
    report = sweep(MemorySnapshot(files, label="head"))
    [(_, claim)] = report.claims()
    [evidence] = claim.evidence
    return evidence


TOKEN = lines_version(FileText(CODE), 3, 8)
METADATA = base64.urlsafe_b64decode(TOKEN[86:] + "==")


def test_the_text_at_its_hint_is_fresh_and_keeps_the_stored_strings() -> None:
    evidence = _evidence("repo://src/run.py#L4-L8", TOKEN)
    assert evidence == EvidenceResult(
        "repo://src/run.py#L4-L8", TOKEN, Verdict.FRESH, OpenWikiVerdict.FRESH, (4, 8), "repo://src/run.py#L4-L8", TOKEN
    )


def test_a_resource_spelled_otherwise_is_fresh_and_rewritten_canonically() -> None:
    evidence = _evidence("repo://./src/run.py#L4-L8", TOKEN)
    assert (evidence.verdict, evidence.resource_now, evidence.version_now) == (
        Verdict.FRESH,
        "repo://src/run.py#L4-L8",
        TOKEN,
    )


@pytest.mark.parametrize(
    "metadata",
    [
        b"not json at all",
        METADATA[:-1],  # cut short
        METADATA.replace(b'"selectedLineCount":5', b'"selectedLineCount":0'),
        METADATA.replace(b'"precedingContextLineCount":3', b'"precedingContextLineCount":4'),
        METADATA[:-2] + b'","extra":1}',
        METADATA.replace(b'"followingContextHash":"', b'"followingContextHash":"X')[:-3] + b'"}',
    ],
)
def test_a_hash_that_matches_at_the_hint_with_malformed_metadata_is_stale_with_a_new_version(metadata: bytes) -> None:
    """OpenWiki: a token it cannot parse is no previous version, so the hint gets a new version: stale, as before
    the fast path existed, whatever the content hash says."""
    token = _with_metadata(TOKEN, metadata)
    evidence = _evidence("repo://src/run.py#L4-L8", token)
    assert (evidence.verdict, evidence.openwiki_verdict) == (Verdict.STALE, OpenWikiVerdict.STALE)
    assert (evidence.span, evidence.resource_now, evidence.version_now) == ((4, 8), "repo://src/run.py#L4-L8", TOKEN)
    assert evidence.new_text == CODE[CODE.index(b"def") :].decode()


def test_a_hash_that_matches_with_unusual_but_valid_metadata_is_fresh() -> None:
    spaced = _with_metadata(TOKEN, json.dumps(json.loads(METADATA)).encode())
    evidence = _evidence("repo://src/run.py#L4-L8", spaced)
    assert (evidence.verdict, evidence.openwiki_verdict, evidence.span) == (
        Verdict.FRESH,
        OpenWikiVerdict.FRESH,
        (4, 8),
    )
    assert (evidence.resource_now, evidence.version_now) == ("repo://src/run.py#L4-L8", spaced)


def test_a_hash_that_matches_at_a_hint_of_another_length_is_looked_for_by_its_count() -> None:
    """The stored metadata counts five lines and the hint four: the text is found where its five lines stand."""
    evidence = _evidence("repo://src/run.py#L4-L7", TOKEN)
    assert (evidence.verdict, evidence.openwiki_verdict, evidence.span) == (
        Verdict.MOVED,
        OpenWikiVerdict.FRESH,
        (4, 8),
    )
    assert (evidence.resource_now, evidence.version_now) == ("repo://src/run.py#L4-L8", TOKEN)


def test_a_hint_past_the_end_of_the_file_is_looked_for() -> None:
    shorter = CODE[CODE.index(b"def") :]
    evidence = _evidence("repo://src/run.py#L4-L8", TOKEN, shorter)
    assert (evidence.verdict, evidence.span, evidence.resource_now) == (
        Verdict.MOVED,
        (1, 5),
        "repo://src/run.py#L1-L5",
    )
