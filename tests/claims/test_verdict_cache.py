"""The verdict cache: a full sweep with it warm gives exactly the report of a sweep without it, whatever changed
in between, and reads no file whose every record it answers; a damaged cache costs a cold sweep, never a wrong or
failed one."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
from apptools import grounded
from conftest import ReadsSnapshot
from sweeptools import sidecars_read

from bot.claims.citations import EvidenceIndex
from bot.claims.options import SweepOptions
from bot.claims.results import EvidenceResult, SweepReport
from bot.claims.sidecar import parse_sidecar, render_sidecar
from bot.claims.snapshot import Change, FileChange, MemorySnapshot
from bot.claims.sweep import Sweeper
from bot.claims.verdict_cache import FORMAT, PageBuilder, VerdictCache, decode, encode, recall_page
from bot.claims.verdicts import OpenWikiVerdict, Verdict

QUEUE = "".join(f"def step_{i}(x):\n    return x + {i}\n\n" for i in range(12))
CLOCK = "".join(f"def tick_{i}():\n    return {i}\n\n" for i in range(12))
LOG = "import sys\n\n\ndef log(message):\n    sys.stderr.write(message)\n"
CODE = {"src/queue.py": QUEUE, "src/clock.py": CLOCK, "src/log.py": LOG}
CLAIMS = {
    "queue.md": [
        ("step 1 adds one", ["repo://src/queue.py#L4-L5"]),
        ("step 5 adds five", ["repo://src/queue.py#L16-L17"]),
        ("both", ["repo://src/queue.py#L28-L29", "repo://src/clock.py#L1-L2"]),
    ],
    "clock.md": [
        ("tick 3", ["repo://src/clock.py#L10-L11"]),
        ("the whole log module", ["repo://src/log.py"]),
        ("log writes to stderr", ["repo://src/log.py#L4-L5"]),
    ],
}


def wiki() -> dict[str, bytes]:
    return grounded(CODE, CLAIMS)


def cold(files: dict[str, bytes]) -> SweepReport:
    return Sweeper(MemorySnapshot(files, label="head"), None, SweepOptions()).sweep()


def stored(cache: VerdictCache) -> Any:
    """What a store writes and reads back."""
    return orjson.loads(orjson.dumps(cache.to_json()))


def warm(
    files: dict[str, bytes], kept: Any = None, index: EvidenceIndex | None = None
) -> tuple[SweepReport, VerdictCache, ReadsSnapshot]:
    """A full sweep of `files` with the cache a store read (`kept`, JSON) and an evidence index, as the check use
    case runs it."""
    head = ReadsSnapshot(files)
    sweeper = Sweeper(head, None, SweepOptions(), index=index if index is not None else EvidenceIndex())
    sweeper.verdicts = VerdictCache.from_json(kept, sweeper.verdict_context)
    wiki_ = sweeper.load()
    head.read_paths.clear()  # the sidecars: every full sweep reads them
    return sweeper.sweep(wiki_), sweeper.verdicts, head


def code_reads(head: ReadsSnapshot) -> set[str]:
    return {p for p in head.read_paths if p.startswith("src/")}


def test_a_warm_sweep_of_an_unchanged_wiki_reads_no_code_and_reports_the_same() -> None:
    files = wiki()
    index = EvidenceIndex()
    first, cache, head = warm(files, index=index)
    assert first == cold(files) and first.summary["fresh"] == 6
    assert code_reads(head) == {"src/queue.py", "src/clock.py", "src/log.py"}
    assert cache.changed
    second, again, head = warm(files, stored(cache), EvidenceIndex(dict(index.items())))
    assert second == first
    assert code_reads(head) == set()
    assert not again.changed  # nothing evaluated: nothing to write


def _edit(files: dict[str, bytes], path: str, old: str, new: str) -> dict[str, bytes]:
    text = files[path].decode()
    assert old in text
    return {**files, path: text.replace(old, new, 1).encode()}


def _without(files: dict[str, bytes], path: str) -> dict[str, bytes]:
    return {p: c for p, c in files.items() if p != path}


def _first_claim_retracted(files: dict[str, bytes]) -> dict[str, bytes]:
    sidecar = parse_sidecar(files["openwiki/.claims/queue.json"], "queue.json")
    return {**files, "openwiki/.claims/queue.json": render_sidecar(sidecar.with_claims(sidecar.claims[1:]))}


# A change, and the code files a warm sweep must read after it (only those whose bytes changed, unless the
# context did).
CHANGES = {
    "lines inserted above everything": (
        lambda f: {**f, "src/queue.py": b"# new header\n\n" + f["src/queue.py"]},
        {"src/queue.py"},
    ),
    "a span's text changed": (lambda f: _edit(f, "src/queue.py", "return x + 5", "return x - 5"), {"src/queue.py"}),
    "a span deleted": (lambda f: _edit(f, "src/clock.py", "def tick_3():\n    return 3\n\n", ""), {"src/clock.py"}),
    "a file deleted": (lambda f: _without(f, "src/log.py"), set()),
    "a file turned binary": (lambda f: {**f, "src/log.py": b"\x00\x01binary"}, {"src/log.py"}),
    "a whole-file record's file edited": (
        lambda f: _edit(f, "src/log.py", "import sys", "import os, sys"),
        {"src/log.py"},
    ),
    "the ignore file changed": (
        lambda f: {**f, ".openwikiignore": b"src/clock.py\n"},
        {"src/queue.py", "src/log.py"},
    ),
    "a sidecar rewritten": (_first_claim_retracted, {"src/queue.py", "src/clock.py"}),
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_a_warm_sweep_after_a_change_reports_what_a_cold_one_does_reading_only_what_changed(name: str) -> None:
    before = wiki()
    _, cache, _ = warm(before)
    change, reads = CHANGES[name]
    after = change(before)
    report, again, head = warm(after, stored(cache))
    assert report == cold(after) != cold(before)
    assert code_reads(head) == reads
    third, _, head = warm(after, stored(again))  # and what the second sweep kept serves a third
    assert third == report
    assert code_reads(head) == (set() if name != "a file turned binary" else {"src/log.py"})  # an error is not kept


def test_a_file_turned_symlink_is_not_answered_from_the_cache() -> None:
    before = wiki()
    _, cache, _ = warm(before)
    after = _without(before, "src/log.py")
    head = ReadsSnapshot(after)
    head.symlinks = {"src/log.py": "elsewhere.py"}
    sweeper = Sweeper(head, None, SweepOptions())
    sweeper.verdicts = VerdictCache.from_json(stored(cache), sweeper.verdict_context)
    report = sweeper.sweep()
    assert (
        report
        == Sweeper(MemorySnapshot(after, {"src/log.py": "elsewhere.py"}, label="head"), None, SweepOptions()).sweep()
    )
    assert report.summary["error"] == 2


def test_only_the_files_whose_bytes_changed_are_read_again() -> None:
    before = wiki()
    _, cache, _ = warm(before)
    after = _edit(before, "src/clock.py", "return 3", "return 33")
    report, _, head = warm(after, stored(cache))
    assert report == cold(after)
    assert code_reads(head) == {"src/clock.py"}
    assert report.summary["stale"] == 1


def test_another_context_empties_the_cache() -> None:
    files = wiki()
    _, cache, _ = warm(files)
    kept = stored(cache)
    blobs = sorted(cache.kept)
    other = VerdictCache.from_json(kept, kept["context"] + "x")
    assert [other.page(blob) for blob in blobs] == [None, None] and len(other) == 0
    same = VerdictCache.from_json(kept, kept["context"])
    assert [same.page(blob) for blob in blobs] == [cache.kept[blob] for blob in blobs]  # every page as it was kept
    assert len(same) == 2


def _records(report: SweepReport) -> list[EvidenceResult]:
    return [e for page in report.pages for claim in page.claims for e in claim.evidence]


def test_every_kind_of_result_survives_encoding() -> None:
    before = wiki()
    after = before
    for name in ("lines inserted above everything", "a span's text changed", "a span deleted", "a file turned binary"):
        after = CHANGES[name][0](after)
    change = Change(MemorySnapshot(before), tuple(FileChange(p, p) for p in CODE))
    diff_aware = Sweeper(MemorySnapshot(after), change, SweepOptions(recheck_all=True)).sweep()
    # the cache keeps full sweeps' results; a diff-aware sweep's carry every optional field (touched apart)
    results = _records(cold(after)) + [r._replace(touched=False) for r in _records(diff_aware)]
    assert {r.verdict for r in results} >= {Verdict.MOVED, Verdict.STALE, Verdict.UNRESOLVED, Verdict.ERROR}
    assert any(r.old_text for r in results) and any(r.new_text for r in results)
    assert any(r.anchor for r in results) and any(r.error for r in results)
    for result in results:
        assert decode(result.resource, result.version, encode(result)) == result


def test_the_builder_keeps_every_field_of_any_result() -> None:
    """Five integers for the common result, every field for the others: whichever way a result is kept, it comes
    back the same (a field the short form cannot hold sends the result to the long one)."""
    base = EvidenceResult(
        "repo://a.py#L1-L2", "v", Verdict.FRESH, OpenWikiVerdict.FRESH, (1, 2), "repo://a.py#L1-L2", "v"
    )
    variants = [
        base,
        base._replace(verdict=Verdict.MOVED, span=(3, 4), resource_now="repo://a.py#L3-L4"),
        base._replace(verdict=Verdict.COSMETIC, version_now="v2"),
        base._replace(openwiki_verdict=None),
        base._replace(span=None),
        base._replace(verdict=Verdict.ERROR, error="a.py is a binary file"),
        base._replace(verdict=Verdict.STALE, old_text="old\n"),
        base._replace(verdict=Verdict.STALE, new_text="new\n"),
        base._replace(verdict=Verdict.UNRESOLVED, anchor=("a.py", 7), span=None, resource_now=None, version_now=None),
        base._replace(anchor=("a.py", 7)),
        base._replace(verdict=Verdict.MOVED),  # a verdict apart from OpenWiki's, in the short form
        base._replace(resource="repo://./a.py#L1-L2"),  # stored in another spelling, canonical now
        base._replace(verdict=Verdict.MOVED, span=(3, 4), resource_now="repo://b.py#L3-L4"),  # another file
        base._replace(verdict=Verdict.MOVED, span=(3, 4), resource_now="repo://a.py#L3-L5"),  # not its span
        base._replace(openwiki_verdict=OpenWikiVerdict.UNRESOLVED, span=(3, 4), resource_now="repo://a.py#L3-L4"),
    ]
    short = {0, 1, 10, 11, 14}  # the others cannot be five integers
    builder = PageBuilder()
    for result in variants:
        builder.add(("a.py", "blob"), result)
    document = _stored_page(builder)
    page = document["pages"]["s"]
    assert {i for i in range(len(variants)) if page["spans"][5 * i] >= 0} == short
    kept = VerdictCache.from_json(document, "c").page("s")
    assert kept is not None
    assert recall_page(kept, [True], [(r.resource, r.version) for r in variants]) == variants  # type: ignore[arg-type]


def test_a_result_the_builder_is_not_to_keep_comes_back_as_nothing() -> None:
    """No file known by its blob id, no result, or one the change touched (a diff-aware verdict, not a full
    sweep's): the record is kept as not kept, its file not listed, and evaluated again next time."""
    base = EvidenceResult(
        "repo://a.py#L1-L2", "v", Verdict.FRESH, OpenWikiVerdict.FRESH, (1, 2), "repo://a.py#L1-L2", "v"
    )
    builder = PageBuilder()
    builder.add(None, base)
    builder.add(("b.py", "blob"), None)
    builder.add(("c.py", "blob"), base._replace(touched=True))
    builder.add_all([("a.py", "blob"), ("a.py", "blob")], [base, base._replace(span=(1, 3))])
    document = _stored_page(builder)
    page = document["pages"]["s"]
    assert document["files"] == [["a.py", "blob"]] and page["files"] == [0]
    assert page["spans"][0::5] == [-1, -1, -1, 0, 0]
    kept = VerdictCache.from_json(document, "c").page("s")
    assert kept is not None
    records = [(base.resource, base.version)] * 5
    assert recall_page(kept, [True], records) == [None, None, None, base, base._replace(span=(1, 3))]  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="shorter"):
        builder.add_all([("a.py", "blob")], [])  # a file without its result is a caller's mistake, not a gap


def _stored_page(builder: PageBuilder) -> Any:
    """The cache a store writes holding the builder's page alone, under the context "c"."""
    cache = VerdictCache("c")
    cache.keep("s", builder.build())
    return stored(cache)


@pytest.mark.parametrize(
    ("column", "value"),
    [(0, -3), (0, 2), (1, -1), (1, len(Verdict)), (2, -1), (2, 2 * len(OpenWikiVerdict)), (3, -1), (4, -1), (0, 1.0)],
)
def test_a_kept_number_out_of_its_range_is_never_used(column: int, value: Any) -> None:
    """A file index past the page's files, a verdict code past the verdicts, a negative line: the page's kept
    results are dropped (read back, each column is checked at once, never indexed with what it holds)."""
    files = wiki()
    expected = cold(files)
    _, cache, _ = warm(files)
    kept = stored(cache)
    for page in kept["pages"].values():
        assert len(page["files"]) == 2
        page["spans"][column] = value
    report, _, head = warm(files, kept)
    assert report == expected
    assert code_reads(head) == {"src/queue.py", "src/clock.py", "src/log.py"}  # nothing was used


def test_a_whole_result_kept_with_a_negative_file_index_is_not_used() -> None:
    """An index of -1 would name the page's last file in Python: a result read from another file, still unchanged,
    would pass for this record's."""
    before = CHANGES["a span's text changed"][0](wiki())
    _, cache, _ = warm(before)
    kept = stored(cache)
    (page,) = [p for p in kept["pages"].values() if kept["files"][p["files"][0]][0] == "src/queue.py"]
    assert [kept["files"][n][0] for n in page["files"]] == ["src/queue.py", "src/clock.py"]
    ((number, entry),) = [(n, e) for n, e in page["other"].items() if e[1] == "stale"]
    assert entry[0] == 0  # src/queue.py
    page["other"][number] = [-1, *entry[1:]]  # src/clock.py, which stays unchanged
    after = _edit(before, "src/queue.py", "return x - 5", "return x * 5")
    assert warm(after, kept)[0] == cold(after)


def test_a_kept_page_whose_other_results_are_not_numbered_is_dropped() -> None:
    files = CHANGES["a span's text changed"][0](wiki())
    _, cache, _ = warm(files)
    kept = stored(cache)
    for page in kept["pages"].values():
        page["other"]["first"] = [0, "stale"]
    assert warm(files, kept)[0] == cold(files)


def test_a_record_the_builder_keeps_is_recalled_only_while_its_file_holds() -> None:
    result = EvidenceResult(
        "repo://a.py#L1-L2", "v", Verdict.FRESH, OpenWikiVerdict.FRESH, (1, 2), "repo://a.py#L1-L2", "v"
    )
    builder = PageBuilder()
    builder.add(("a.py", "blob1"), result)
    builder.add(None, result)  # not kept: no blob id for its file
    page = builder.build()
    records = [(result.resource, result.version)] * 2
    assert recall_page(page, [True], records) == [result, None]  # type: ignore[arg-type]
    assert recall_page(page, [False], records) == [None, None]  # type: ignore[arg-type]


def _damage(value: Any, rng: random.Random) -> Any:
    """`value` (a stored cache) with one element somewhere replaced by something the cache never writes there (a
    wrong value of the right shape, a line number for another, is damage no cache can tell from the truth)."""
    value = orjson.loads(orjson.dumps(value))
    pages = value["pages"]
    page = pages[rng.choice(sorted(pages))]
    not_a_number = rng.choice(["fresh", None, [], {}, 1.5, True, [1, 2], -7])
    where = rng.choice(["files", "file", "file entry", "table", "spans", "other", "page"])
    if where == "files":
        page["files"][rng.randrange(len(page["files"]))] = rng.choice([-7, -1, 99, 1.0, True, "a.py", None, [], {}])
    elif where == "file":
        table = value["files"]
        table[rng.randrange(len(table))] = rng.choice([None, 3, "a.py", [], {}, ["a.py"], ["a.py", "b", "c"]])
    elif where == "file entry":
        value["files"][rng.randrange(len(value["files"]))][rng.randrange(2)] = rng.choice([None, 3, [], {}])
    elif where == "table":
        value["files"] = rng.choice([None, {}, "a.py", [1, 2]])
    elif where == "spans":
        page["spans"][rng.randrange(len(page["spans"]))] = not_a_number
    elif where == "other":
        page["other"][str(rng.randrange(6))] = rng.choice([[not_a_number], [0, "no verdict", None], [99, "stale"]])
    else:
        pages[rng.choice(sorted(pages))] = rng.choice([None, [], "x", {"files": []}, {"spans": [], "other": {}}])
    return value


def test_a_damaged_cache_never_changes_a_verdict() -> None:
    files = CHANGES["a span's text changed"][0](CHANGES["lines inserted above everything"][0](wiki()))
    expected = cold(files)
    _, cache, _ = warm(files)
    kept = stored(cache)
    rng = random.Random(13)
    for _ in range(300):
        damaged = _damage(kept, rng)
        report, _, _ = warm(files, damaged)
        assert report == expected, damaged
    for shape in (None, [], {"format": FORMAT}, {"format": FORMAT, "context": kept["context"], "pages": []}, "x"):
        assert warm(files, shape)[0] == expected
    for table in (None, {}, [["src/queue.py"]], [["src/queue.py", 7]]):
        report, again, head = warm(files, {**kept, "files": table})
        assert report == expected and again.changed  # nothing used, and the whole cache written anew
        assert code_reads(head) == {"src/queue.py", "src/clock.py", "src/log.py"}


@pytest.mark.parametrize("outside", ["past the end", "negative"])
def test_a_page_naming_a_file_outside_the_table_is_not_used(outside: str) -> None:
    """One past the table's end, or -1, which Python would take for its last file: the page is dropped."""
    files = wiki()
    expected = cold(files)
    _, cache, _ = warm(files)
    kept = stored(cache)
    for page in kept["pages"].values():
        page["files"][-1] = len(kept["files"]) if outside == "past the end" else -1
    report, _, head = warm(files, kept)
    assert report == expected
    assert code_reads(head) == {"src/queue.py", "src/clock.py", "src/log.py"}


def test_after_every_file_moved_the_old_pages_are_let_go_and_the_moves_kept_as_five_integers() -> None:
    files = wiki()
    _, cache, _ = warm(files)
    moved = {p: (b"# one\n# two\n" + c if p.startswith("src/") else c) for p, c in files.items()}
    head = ReadsSnapshot(moved)
    sweeper = Sweeper(head, None, SweepOptions(), index=EvidenceIndex())
    sweeper.verdicts = VerdictCache.from_json(stored(cache), sweeper.verdict_context)
    assert len(sweeper.verdicts) == 2
    wiki_ = sweeper.load()
    sweeper.reads(wiki_)
    assert len(sweeper.verdicts) == 0  # no result of theirs holds: not held while the new ones are made
    report = sweeper.sweep(wiki_)
    assert report == cold(moved) and (report.summary["moved"], report.summary["stale"]) == (5, 1)
    kept = stored(sweeper.verdicts)
    whole = [len(page["other"]) for page in kept["pages"].values()]
    assert sorted(whole) == [0, 1]  # each move is five integers; only the whole file gone stale is written out
    again, _, head = warm(moved, kept)
    assert again == report and code_reads(head) == set()


def test_a_cache_of_the_format_before_moves_were_kept_short_is_not_read() -> None:
    """Format 1 wrote no OpenWiki code past the verdicts; format 2 reads one as "the resource now is canonical at
    the span". A cache of format 1 is left unread rather than read with a meaning it was not written with."""
    _, cache, _ = warm(wiki())
    old = stored(cache)
    old["format"] = 1
    old["context"] = "1:" + old["context"].split(":", 1)[1]
    blobs = sorted(cache.kept)
    assert [VerdictCache.from_json(old, cache.context).page(blob) for blob in blobs] == [None, None]
    current = VerdictCache.from_json(stored(cache), cache.context)
    assert [current.page(blob) for blob in blobs] == [cache.kept[blob] for blob in blobs]


def test_a_sidecar_whose_page_the_cache_holds_is_read_as_read_before_and_only_that_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files = wiki()
    _, cache, _ = warm(files)
    edited = dict(files)
    path = "openwiki/.claims/clock.json"
    sidecar = parse_sidecar(files[path], path)
    edited[path] = render_sidecar(sidecar.with_claims(sidecar.claims[:2]))  # new bytes: not read before
    seen = sidecars_read(monkeypatch)
    second, _, _ = warm(edited, stored(cache))
    assert seen == {"openwiki/.claims/queue.json": True, path: False}
    assert second == cold(edited)
    other = {**stored(cache), "context": "another engine"}  # kept under another context: nothing trusted
    seen.clear()
    warm(edited, other)
    assert seen == {"openwiki/.claims/queue.json": False, path: False}


def test_a_page_partly_recalled_teaches_a_new_index_the_files_of_every_record() -> None:
    """The cache kept the page, the index lost it: the files of the records recalled come from the cache, those
    of the records evaluated again from the sweep, none from the sidecar's bytes (whose escaped quote would say
    it may cite anything)."""
    quoted = [('step 1 "adds" one', ["repo://src/queue.py#L4-L5"]), *CLAIMS["queue.md"][1:]]
    files = grounded(CODE, {**CLAIMS, "queue.md": quoted})
    sidecar = "openwiki/.claims/queue.json"
    assert b"\\" in files[sidecar]
    _, cache, _ = warm(files)
    changed = _edit(files, "src/clock.py", "return 0", "return -1")  # clock.py's blob changes; queue.py's does not
    index = EvidenceIndex()
    _, _, head = warm(changed, stored(cache), index)
    assert code_reads(head) == {"src/clock.py"}  # queue.md's records on queue.py were recalled
    assert index.cited(MemorySnapshot(changed).blob_id(sidecar) or "") == {"src/queue.py", "src/clock.py"}


def test_a_sidecar_that_does_not_parse_is_kept_in_neither_store() -> None:
    files = {**wiki(), "openwiki/broken.md": b"# Broken\n", "openwiki/.claims/broken.json": b"{not json"}
    index = EvidenceIndex()
    report, cache, _ = warm(files, index=index)
    assert [page.error is not None for page in report.pages].count(True) == 1
    blobs = {MemorySnapshot(files).blob_id(f"openwiki/.claims/{name}.json") for name in ("queue", "clock")}
    assert set(index.learnt) == blobs and set(cache.kept) == blobs
