"""The use cases over a `Source` that, like GitHub, has nothing until it is fetched: which files the core reads
is answered before it runs, the source fetches exactly that, and the answer is the plain sweep's."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterable
from pathlib import Path

import pytest

from bot.claims import resolve_evidence
from bot.claims.options import SweepOptions
from bot.claims.parallel import Parallel
from bot.claims.results import BrokenReference, PageCoverage
from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar
from bot.claims.snapshot import Change, FileChange, MemorySnapshot, Snapshot
from bot.claims.sweep import MAX_SIDECAR_BYTES, sweep
from bot.fix.engine import recorded_head, records_last_update
from bot.source.memory import GitDirMemory, SharedIndex
from bot.usecases.check import check
from bot.usecases.fix import prepare_fix, run_fix

PAGE = "---\ntype: Concept\n---\n\n# Queue\n\nProse.\n"
QUEUE = "class Queue:\n    def push(self, x):\n        self.items.append(x)\n\n    def pop(self):\n        return self.items.pop(0)\n"
OTHER = "def helper():\n    return 42\n"


class FetchFirst:
    """A snapshot that reads only what its source fetched (a read of anything else fails the test)."""

    def __init__(self, inner: MemorySnapshot, label: str) -> None:
        self.inner = inner
        self.label = label
        self.commit: str | None = label
        self.fetched: set[str] = set()
        self.fetches: list[list[str]] = []

    def entry(self, path: str):  # type: ignore[no-untyped-def]
        return self.inner.entry(path)

    def walk(self, top: str):  # type: ignore[no-untyped-def]
        return self.inner.walk(top)

    def prefetch(self, paths: Iterable[str]) -> None:
        pass

    def read(self, path: str) -> bytes:
        assert path in self.fetched, f"{path} of {self.label} was read before it was fetched"
        return self.inner.read(path)

    def blob_id(self, path: str) -> str | None:
        return self.inner.blob_id(path)


class FetchFirstSource:
    def __init__(self, head: FetchFirst) -> None:
        self.head = head

    async def snapshot(self, rev: str | None = None, label: str | None = None) -> Snapshot:
        return self.head

    async def change(self, base: str, head: Snapshot, *, merge_base: bool = False, label: str | None = None):  # type: ignore[no-untyped-def]
        raise NotImplementedError

    async def fetch(self, snapshot: Snapshot, paths: Iterable[str]) -> None:
        assert isinstance(snapshot, FetchFirst)
        wanted = sorted(p for p in paths if snapshot.entry(p) is not None)
        snapshot.fetches.append(wanted)
        snapshot.fetched.update(wanted)

    def files(self, snapshot: Snapshot) -> list[str]:
        assert isinstance(snapshot, FetchFirst)
        return sorted(snapshot.inner.files)

    async def ever_committed(self, snapshot: Snapshot, paths: Iterable[str]) -> set[str] | None:
        return None  # like GitHub past its few requests: the source cannot tell


def grounded(files: dict[str, str], claims: dict[str, list[tuple[str, str]]]) -> dict[str, bytes]:
    """Files plus, per page, a sidecar whose claims (id, resource) are resolved in those files."""
    out = {path: text.encode() for path, text in files.items()}
    for page, items in claims.items():
        out[f"openwiki/{page}"] = PAGE.encode()
        records = []
        for claim_id, resource in items:
            path = resource.removeprefix("repo://").split("#")[0]
            found = resolve_evidence(resource, out[path])
            assert found is not None
            records.append(Claim(claim_id, f"statement {claim_id}", (EvidenceRecord(found.resource, found.version),)))
        sidecar = Sidecar(page_version(PAGE.encode()), tuple(records))
        out[f"openwiki/.claims/{page[:-3]}.json"] = render_sidecar(sidecar)
    return out


CLAIMS = {
    "queue.md": [("claim_pop", "repo://src/queue.py#L5-L6")],
    "other.md": [("claim_helper", "repo://src/other.py#L1-L2")],
}


def test_a_full_check_fetches_the_sidecars_then_the_cited_files_and_nothing_else() -> None:
    files = grounded({"src/queue.py": QUEUE, "src/other.py": OTHER, "src/unrelated.py": "x = 1\n"}, CLAIMS)
    head = FetchFirst(MemorySnapshot(files), "head")
    report = asyncio.run(check(FetchFirstSource(head), head, None, SweepOptions(), references=False))
    assert head.fetches == [
        ["openwiki/.claims/other.json", "openwiki/.claims/queue.json"],  # (and the ignore file, had it one)
        ["src/other.py", "src/queue.py"],
    ]
    assert report == sweep(MemorySnapshot(files, label="head"), None, SweepOptions())
    assert report.summary["fresh"] == 2


def test_with_memory_a_full_check_fetches_no_file_whose_verdicts_it_kept(tmp_path: Path) -> None:
    files = grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS)
    memory = GitDirMemory(tmp_path)
    first = FetchFirst(MemorySnapshot(files), "head")
    report = asyncio.run(check(FetchFirstSource(first), first, None, SweepOptions(), references=False, memory=memory))
    assert first.fetches[1] == ["src/other.py", "src/queue.py"]
    files["src/other.py"] = b"# moved down\n" + files["src/other.py"]
    again = FetchFirst(MemorySnapshot(files), "head")
    moved = asyncio.run(check(FetchFirstSource(again), again, None, SweepOptions(), references=False, memory=memory))
    assert again.fetches[1] == ["src/other.py"]  # src/queue.py kept its bytes: its verdict is the cache's
    assert moved == sweep(MemorySnapshot(files, label="head"), None, SweepOptions()) != report
    assert moved.summary["moved"] == 1


def test_with_an_index_a_diff_aware_check_fetches_only_the_sidecars_citing_the_change() -> None:
    old = grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS)
    new = {**old, "src/other.py": OTHER.replace("42", "43").encode()}
    memory = SharedIndex()
    full = FetchFirst(MemorySnapshot(old), "base")
    asyncio.run(check(FetchFirstSource(full), full, None, SweepOptions(), references=False, memory=memory))
    head, base = FetchFirst(MemorySnapshot(new), "head"), FetchFirst(MemorySnapshot(old), "base")
    change = Change(base, (FileChange("src/other.py", "src/other.py"),))
    report = asyncio.run(check(FetchFirstSource(head), head, change, SweepOptions(), references=False, memory=memory))
    assert head.fetches[0] == ["openwiki/.claims/other.json"]  # queue.json cites nothing the change touched
    assert report == sweep(MemorySnapshot(new, label="head"), Change(MemorySnapshot(old, label="base"), change.files))
    assert report.summary["stale"] == 1 and report.unaffected_pages == 1


def test_a_full_check_then_reads_the_pages_for_their_references_and_coverage() -> None:
    files = grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS)
    files["openwiki/setup.md"] = b"# Setup\n\nSee `src/queue.py` and `src/gone.py`, run `make all`.\n"
    head = FetchFirst(MemorySnapshot(files), "head")
    report = asyncio.run(check(FetchFirstSource(head), head, None, SweepOptions()))
    assert head.fetches[2] == ["openwiki/other.md", "openwiki/queue.md", "openwiki/setup.md"]
    assert head.fetches[3] == []  # no quotes files, and the sidecars the sweep parsed are not read again
    assert head.fetches[4:] == [["openwiki/setup.md"]]  # the page with a missing path's span: what it says judges it
    assert report.broken_references == (
        BrokenReference("openwiki/setup.md", 3, "src/gone.py", "src/gone.py", "src/gone.py", "missing"),
    )
    assert report.needs_attention and report.summary["broken_references"] == 1
    assert report.coverage == (
        PageCoverage("openwiki/other.md", 1, 1, 0),  # one claim, one paragraph, no quote kept
        PageCoverage("openwiki/queue.md", 1, 1, 0),
        PageCoverage("openwiki/setup.md", 0, 1, 0),
    )


def _pages_check(processes: int, memory: GitDirMemory | None = None) -> tuple[FetchFirst, object]:
    files = grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS)
    files["openwiki/setup.md"] = b"# Setup\n\nSee `src/queue.py` and `src/gone.py`, run `make all`.\n"
    head = FetchFirst(MemorySnapshot(files), "head")
    report = asyncio.run(check(FetchFirstSource(head), head, None, SweepOptions(), processes=processes, memory=memory))
    return head, report


PAGES = ["openwiki/other.md", "openwiki/queue.md", "openwiki/setup.md"]


def test_with_processes_to_spare_a_child_reads_the_pages_while_the_wiki_is_swept() -> None:
    alone, expected = _pages_check(processes=1)
    head, report = _pages_check(processes=2)
    assert report == expected  # references and coverage as one process finds them
    assert head.fetches[1] == PAGES  # fetched before the child is forked, before the cited files
    assert head.fetches[3] == []  # the child read every page: the references read none again
    assert alone.fetches[2] == PAGES


def test_a_page_the_child_cannot_read_is_left_to_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.ground.reading import read_apart, read_page
    from bot.parallel import Forking

    snapshot = MemorySnapshot({"openwiki/a.md": b"# A\n\nSee `src/a.py`.\n"})
    apart = read_apart(Forking(2), snapshot, ["openwiki/a.md", "openwiki/gone.md"])  # gone.md: a KeyError there
    assert apart is not None
    taken = apart.take()
    assert taken == {"openwiki/a.md": read_page("openwiki/a.md", "# A\n\nSee `src/a.py`.\n")}


def test_a_child_that_fails_costs_nothing_but_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.ground import reading

    def crash(head: Snapshot, pages: list[str]) -> bytes:
        raise RuntimeError("the child fails")

    monkeypatch.setattr(reading, "read_pages", crash)
    _, expected = _pages_check(processes=1)
    head, report = _pages_check(processes=2)
    assert report == expected
    assert head.fetches[3] == PAGES  # the parent read them all, as one process does


def test_a_check_that_fails_stops_and_reaps_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from bot.ground import reading
    from bot.usecases import check as check_module

    started = []

    def recorded(parallel: Parallel, head: Snapshot, pages: list[str]) -> reading.ReadApart | None:
        apart = reading.read_apart(parallel, head, pages)
        started.append(apart)
        return apart

    def fail(self: object, wiki: object) -> None:
        raise RuntimeError("the sweep fails")

    monkeypatch.setattr(check_module, "read_apart", recorded)
    monkeypatch.setattr(check_module.Sweeper, "sweep", fail)
    with pytest.raises(RuntimeError, match="the sweep fails"):
        _pages_check(processes=2)
    assert len(started) == 1 and started[0] is not None
    pid = started[0]._worker.pid  # type: ignore[attr-defined]
    try:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped: no child of that pid is left, not even a zombie
    finally:
        started[0].discard()


def test_without_fork_more_processes_are_one(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    _, expected = _pages_check(processes=1)
    monkeypatch.delattr(os, "fork")
    head, report = _pages_check(processes=2)  # `--jobs 2` where no process can be forked: read here
    assert report == expected
    assert head.fetches[3] == PAGES


def test_the_pages_a_child_read_are_kept_in_the_memory(tmp_path: Path) -> None:
    memory = GitDirMemory(tmp_path)
    _, first = _pages_check(processes=2, memory=memory)
    head, again = _pages_check(processes=2, memory=memory)
    assert again == first
    assert head.fetches[1] == [] and head.fetches[3] == []  # every reading recalled: no child, nothing read


def _diff_check(old: dict[str, bytes], new: dict[str, bytes], *files: FileChange):  # type: ignore[no-untyped-def]
    head, base = FetchFirst(MemorySnapshot(new), "head"), FetchFirst(MemorySnapshot(old), "base")
    source = FetchFirstSource(head)
    source.files = lambda snapshot: sorted(snapshot.inner.files)  # type: ignore[method-assign]
    report = asyncio.run(check(source, head, Change(base, files), SweepOptions()))
    return report, head, base


USAGE = b"# Usage\n\nCall `Queue.pop()` to take the oldest item; `helper()` answers.\n"


def test_a_change_removing_a_definition_a_page_names_breaks_its_reference() -> None:
    old = {**grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS), "openwiki/usage.md": USAGE}
    new = {**old, "src/queue.py": QUEUE.split("\n\n", maxsplit=1)[0].encode() + b"\n"}  # pop() removed
    report, head, _ = _diff_check(old, new, FileChange("src/queue.py", "src/queue.py"))
    assert report.broken_references == (
        BrokenReference(
            "openwiki/usage.md", 3, "Queue.pop()", "Queue.pop", "src/queue.py", "removed", None, ("src/queue.py", 3)
        ),
    )  # annotated where it stood, within what is left of the file
    assert "openwiki/usage.md" in head.fetched


def test_a_renamed_definition_is_named_and_a_moved_one_is_not_broken() -> None:
    old = {**grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS), "openwiki/usage.md": USAGE}
    renamed = {**old, "src/queue.py": QUEUE.replace("def pop(", "def take(").encode()}
    report, _, _ = _diff_check(old, renamed, FileChange("src/queue.py", "src/queue.py"))
    [ref] = report.broken_references
    assert (ref.what, ref.renamed_to, ref.at) == ("renamed", "Queue.take", ("src/queue.py", 5))

    moved = {**old, "src/other.py": b"", "src/util.py": OTHER.encode()}  # helper() moved to another file
    report, _, _ = _diff_check(old, moved, FileChange("src/other.py", "src/other.py"), FileChange(None, "src/util.py"))
    assert report.broken_references == ()


def test_a_change_removing_nothing_reads_no_page() -> None:
    old = {**grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS), "openwiki/usage.md": USAGE}
    new = {**old, "src/other.py": b"def helper():\n    return 43\n"}
    report, head, _ = _diff_check(old, new, FileChange("src/other.py", "src/other.py"))
    assert report.broken_references == ()
    assert not any(path.endswith(".md") for path in head.fetched)


def test_a_diff_aware_check_fetches_only_what_the_change_can_have_affected() -> None:
    old = grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS)
    new = {**old, "src/other.py": b"def helper():\n    return 43\n"}
    head, base = FetchFirst(MemorySnapshot(new), "head"), FetchFirst(MemorySnapshot(old), "base")
    change = Change(base, (FileChange("src/other.py", "src/other.py"),))
    report = asyncio.run(check(FetchFirstSource(head), head, change, SweepOptions()))
    assert "src/queue.py" not in head.fetched  # the queue's page cites nothing the change touched
    assert base.fetched == {"src/other.py"}
    plain = Change(MemorySnapshot(old, label="base"), change.files)
    assert report.referencing_pages == 2  # the pages whose references were checked: what the plain sweep adds
    assert dataclasses.replace(report, referencing_pages=0) == sweep(
        MemorySnapshot(new, label="head"), plain, SweepOptions()
    )
    assert [(c.id, c.verdict.value) for _, c in report.claims()] == [("claim_helper", "stale")]


def test_a_span_moved_into_another_file_of_the_change_is_found() -> None:
    """A deleted span is looked for among the lines the change added elsewhere: both sides of every file of the
    change are part of the plan when the change touches a cited file."""
    old = grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS)
    moved = QUEUE.split("\n\n")[1]  # pop() and its body
    new = {
        **old,
        "src/queue.py": QUEUE.split("\n\n", maxsplit=1)[0].encode() + b"\n",
        "src/pop.py": ("import queue\n\n" + moved).encode(),
    }
    head, base = FetchFirst(MemorySnapshot(new), "head"), FetchFirst(MemorySnapshot(old), "base")
    change = Change(base, (FileChange("src/queue.py", "src/queue.py"), FileChange(None, "src/pop.py")))
    report = asyncio.run(check(FetchFirstSource(head), head, change, SweepOptions()))
    [(_, pop)] = [(p, c) for p, c in report.claims() if c.id == "claim_pop"]
    assert pop.verdict.value == "moved" and pop.evidence[0].resource_now == "repo://src/pop.py#L3-L4"


def test_reading_what_was_not_fetched_is_caught() -> None:
    head = FetchFirst(MemorySnapshot({"a.py": b"x\n"}), "head")
    with pytest.raises(AssertionError, match="read before it was fetched"):
        head.read("a.py")


def test_the_fix_reads_its_pages_sidecars_and_last_update_only_after_fetching_them() -> None:
    old = grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS)
    new = {**old, "src/other.py": b"\n\ndef helper():\n    return 42\n", "openwiki/.last-update.json": b"{}\n"}
    head, base = FetchFirst(MemorySnapshot(new), "head"), FetchFirst(MemorySnapshot(old), "base")
    change = Change(base, (FileChange("src/other.py", "src/other.py"),))

    async def fix() -> tuple[list[str], dict[str, bytes]]:
        inputs = await prepare_fix(FetchFirstSource(head), head, change, SweepOptions(), cap=50)
        result = await run_fix(
            inputs, None, wiki_dir="openwiki", cap=50, at="2026-01-01T00:00:00.000Z", head_commit="c"
        )
        return [w.page for w in inputs.work], result.files

    pages, files = asyncio.run(fix())
    assert pages == ["openwiki/other.md"]
    assert {"openwiki/other.md", "openwiki/.claims/other.json", "openwiki/.last-update.json"} <= head.fetched
    assert "openwiki/queue.md" not in head.fetched
    assert b"repo://src/other.py#L3-L4" in files["openwiki/.claims/other.json"]  # moved down two lines


def test_what_the_core_will_not_read_is_not_fetched() -> None:
    """An evidence file over the size limit and a sidecar over its cap are judged from their entries: neither is
    fetched, both are reported; a sidecar larger than the evidence limit is still read (it is not evidence)."""
    files = grounded({"src/queue.py": QUEUE, "src/other.py": OTHER + "# padding\n" * 200}, CLAIMS)
    files["openwiki/huge.md"] = PAGE.encode()
    files["openwiki/.claims/huge.json"] = b" " * (MAX_SIDECAR_BYTES + 1)
    head = FetchFirst(MemorySnapshot(files), "head")
    report = asyncio.run(check(FetchFirstSource(head), head, None, SweepOptions(max_file_bytes=1000)))
    assert "src/other.py" not in head.fetched and "openwiki/.claims/huge.json" not in head.fetched
    assert "openwiki/.claims/queue.json" in head.fetched and len(files["openwiki/.claims/queue.json"]) > 100
    by_page = {p.page: p for p in report.pages}
    assert by_page["openwiki/huge.md"].error == (
        f"openwiki/.claims/huge.json: {MAX_SIDECAR_BYTES + 1:,} bytes; a sidecar is read up to {MAX_SIDECAR_BYTES:,} bytes"
    )
    [helper] = by_page["openwiki/other.md"].claims
    assert helper.verdict.value == "error" and "larger than the 1000-byte limit" in str(helper.evidence[0].error)
    assert [c.verdict.value for c in by_page["openwiki/queue.md"].claims] == ["fresh"]


def _fix(head: FetchFirst, change: Change | None, options: SweepOptions | None = None):  # type: ignore[no-untyped-def]
    async def run():  # type: ignore[no-untyped-def]
        inputs = await prepare_fix(FetchFirstSource(head), head, change, options or SweepOptions(), cap=50)
        return await run_fix(inputs, None, wiki_dir="openwiki", cap=50, at="2026-01-01T00:00:00.000Z", head_commit="c")

    return asyncio.run(run())


def test_the_fix_reports_whatever_the_check_says_needs_attention() -> None:
    """A page whose sidecar cannot be read, and a claim already stale before the change, fail the check: the fix
    reports both as still flagged (without deciding the stale one, which this change did not make stale)."""
    old = grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS)
    old["src/queue.py"] = QUEUE.replace("pop(0)", "pop()").encode()  # the queue's claim: stale already at the base
    new = {**old, "src/queue.py": b"# the queue\n" + old["src/queue.py"], "openwiki/.claims/broken.json": b"{"}
    new["openwiki/broken.md"] = PAGE.encode()
    head, base = FetchFirst(MemorySnapshot(new), "head"), FetchFirst(MemorySnapshot(old), "base")
    change = Change(
        base, (FileChange("src/queue.py", "src/queue.py"), FileChange(None, "openwiki/.claims/broken.json"))
    )
    report = asyncio.run(check(FetchFirstSource(head), head, change, SweepOptions()))
    assert report.summary["page_errors"] == 1 and report.summary["stale"] == 1

    result = _fix(FetchFirst(MemorySnapshot(new), "head"), change)

    flagged = {(o.page, o.claim_id): o.reason for o in result.flagged}
    assert set(flagged) == {("openwiki/broken.md", ""), ("openwiki/queue.md", "claim_pop")}
    assert "invalid JSON" in flagged["openwiki/broken.md", ""]
    assert flagged["openwiki/queue.md", "claim_pop"].startswith("already stale before this change")


def test_last_update_moves_only_when_nothing_can_drop_out_of_openwikis_next_update() -> None:
    recorded = b'{"gitHead": "' + b"a" * 40 + b'", "status": "complete"}'
    assert recorded_head(recorded) == "a" * 40
    assert recorded_head(b'{"gitHead": "HEAD"}') is recorded_head(b"not json") is recorded_head(None) is None
    # Every claim checked, or the change from the recorded gitHead itself, and nothing left: move it forward.
    assert records_last_update(recorded, checked_since=None, complete=True)
    assert records_last_update(recorded, checked_since="a" * 40, complete=True)
    # A claim still needs attention, the check started elsewhere, or there is no file: leave OpenWiki's state be.
    assert not records_last_update(recorded, checked_since=None, complete=False)
    assert not records_last_update(recorded, checked_since="b" * 40, complete=True)
    assert not records_last_update(b"{}", checked_since="b" * 40, complete=True)
    assert not records_last_update(None, checked_since=None, complete=True)


def test_a_fix_leaves_last_update_alone_while_a_claim_still_needs_attention() -> None:
    old = grounded({"src/queue.py": QUEUE, "src/other.py": OTHER}, CLAIMS)
    last = b'{\n  "gitHead": "' + b"a" * 40 + b'",\n  "status": "complete"\n}\n'
    moved = {**old, "src/other.py": b"\n\n" + OTHER.encode(), "openwiki/.last-update.json": last}
    stale = {**moved, "src/queue.py": QUEUE.replace("pop(0)", "pop()").encode()}

    complete = _fix(FetchFirst(MemorySnapshot(moved), "head"), None)  # a full sweep: every claim was checked
    assert complete.flagged == []
    assert b'"gitHead": "c"' in complete.files["openwiki/.last-update.json"]

    flagged = _fix(FetchFirst(MemorySnapshot(stale), "head"), None)
    assert [o.claim_id for o in flagged.flagged] == ["claim_pop"]
    assert "openwiki/.claims/other.json" in flagged.files  # the move is still re-anchored ...
    assert "openwiki/.last-update.json" not in flagged.files  # ... but OpenWiki's gitHead stays where it was
