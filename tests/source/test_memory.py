"""The sweep's memory stores: the command line's `GitDirMemory` (two JSON files in the git directory) and the App's
`SharedIndex` (in the process, in a real Redis once shared). Both are shortcuts: whatever goes wrong with them, a
sweep warns and gives the report it gives without them."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from arq.connections import ArqRedis
from conftest import GitRepo
from processes import free_port, redis_pool, redis_server, redis_url

from bot.claims.citations import Cited, EvidenceIndex, StoredCitations
from bot.claims.results import EvidenceResult, SweepReport
from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar
from bot.claims.text import FileText
from bot.claims.verdict_cache import FORMAT, PageBuilder, VerdictCache
from bot.claims.verdicts import OpenWikiVerdict, Verdict
from bot.claims.versions import lines_version
from bot.ground.reading import read_page
from bot.source import memory, safeio
from bot.source.git import GitRepository
from bot.source.memory import (
    INDEX_FILE,
    READINGS_FILE,
    REDIS_PREFIX,
    REDIS_SECONDS,
    VERDICTS_FILE,
    GitDirMemory,
    SharedIndex,
    seal,
    unseal,
)
from bot.usecases.check import check_repository

__all__ = ["redis_pool", "redis_server", "redis_url"]  # fixtures, used by name

A, B, C, D = ("a" * 40, "b" * 40, "c" * 40, "d" * 40)
RES = "repo://src/q.py#L3-L4"
CODE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"


def learnt(entries: dict[str, Cited]) -> EvidenceIndex:
    index = EvidenceIndex()
    for blob, cited in entries.items():
        index.learn(blob, cited)
    return index


def verdicts(context: str, *blobs: str) -> VerdictCache:
    """A cache keeping one fresh record per sidecar blob, as a sweep would."""
    cache = VerdictCache(context)
    for blob in blobs:
        page = PageBuilder()
        result = EvidenceResult(
            RES,
            "v1",
            Verdict.FRESH,
            OpenWikiVerdict.FRESH,
            touched=False,
            span=(3, 4),
            resource_now=RES,
            version_now="v1",
        )
        page.add(("src/q.py", "e" * 40), result)
        cache.keep(blob, page.build())
    return cache


def known(index: EvidenceIndex) -> dict[str, Cited]:
    return dict(index.items())


def stored_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def sealed_if_object(name: str, data: bytes) -> bytes:
    """`data` sealed as a check seals a file, when it opens a JSON object (the damage is then inside the seal)."""
    return seal(name, data, None) if data.startswith(b"{") else data


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and r.name == memory.__name__]


# --- GitDirMemory -------------------------------------------------------------------------------------------------


async def test_what_one_sweep_keeps_the_next_process_reads_back(tmp_path: Path) -> None:
    folder = tmp_path / "wikiwarden"
    kept = verdicts("ctx", A, B)
    await GitDirMemory(folder).keep(learnt({A: frozenset({"src/q.py", "src/r.py"}), B: None}), kept)

    fresh = GitDirMemory(folder)
    assert known(await fresh.index([A, B, C])) == {A: frozenset({"src/q.py", "src/r.py"}), B: None}
    assert known(await fresh.index([B])) == {B: None}  # only what was asked
    assert known(await fresh.index([C])) == {}
    read = await fresh.verdicts("ctx")
    assert len(read) == 2 and read.page(A) == kept.kept[A] and read.page(B) == kept.kept[B]
    assert len(await GitDirMemory(folder).verdicts("another context")) == 0  # other settings: nothing
    assert stored_files(folder) == [INDEX_FILE, VERDICTS_FILE]  # no temporary file left behind


async def test_each_path_is_stored_once_however_many_sidecars_cite_it(tmp_path: Path) -> None:
    index = EvidenceIndex()
    index.learn(A, frozenset({"src/a.py", "src/b.py"}))
    index.learn(B, frozenset({"src/b.py"}))
    index.learn(C, None)
    await GitDirMemory(tmp_path).keep(index, None)
    stored = orjson.loads((tmp_path / INDEX_FILE).read_bytes())
    assert sorted(stored["paths"]) == ["src/a.py", "src/b.py"]
    assert stored["sidecars"][C] is None and all(type(n) is int for n in stored["sidecars"][A])
    assert known(await GitDirMemory(tmp_path).index([A, B, C])) == {
        A: frozenset({"src/a.py", "src/b.py"}),
        B: frozenset({"src/b.py"}),
        C: None,
    }


async def test_a_stored_entry_answers_whether_it_may_cite_a_change_without_being_decoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await GitDirMemory(tmp_path).keep(learnt({A: frozenset({"src/a.py", "src/b.py"}), B: None, C: frozenset()}), None)
    index = await GitDirMemory(tmp_path).index([A, B, C])
    monkeypatch.setattr(StoredCitations, "decoded", lambda self, blob: pytest.fail(f"{blob} decoded"))
    assert [index.may_cite(blob, {"src/b.py"}) for blob in (A, B, C)] == [True, True, False]
    assert [index.may_cite(blob, {"src/c.py"}) for blob in (A, B, C)] == [False, True, False]


async def test_the_pages_readings_are_kept_beside_the_index_and_written_only_when_they_changed(tmp_path: Path) -> None:
    readings = await GitDirMemory(tmp_path).readings("ctx")
    readings.keep(A, read_page("openwiki/a.md", "# A\n\nSee `src/a.py`.\n"))
    await GitDirMemory(tmp_path).keep(EvidenceIndex(), None, readings)
    assert stored_files(tmp_path) == [READINGS_FILE]
    again = await GitDirMemory(tmp_path).readings("ctx")
    assert again.recall(A) == read_page("openwiki/a.md", "# A\n\nSee `src/a.py`.\n")
    before = (tmp_path / READINGS_FILE).stat()
    await GitDirMemory(tmp_path).keep(EvidenceIndex(), None, again)  # nothing made, nothing forgotten
    after = (tmp_path / READINGS_FILE).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert (await GitDirMemory(tmp_path).readings("another context")).recall(A) is None
    assert await SharedIndex().readings("ctx") is None  # the App's checks are diff-aware: no page readings


async def test_the_sidecars_a_sweep_parsed_are_kept_with_their_entries_only(tmp_path: Path) -> None:
    index = learnt({A: frozenset({"x"}), B: None})
    index.learn_parsed(A)
    index.learn_parsed(C)  # no entry: not kept (forgotten with its entry)
    await GitDirMemory(tmp_path).keep(index, None)
    assert orjson.loads((tmp_path / INDEX_FILE).read_bytes())["parsed"] == [A]
    again = await GitDirMemory(tmp_path).index([A, B])
    assert again.parsed(A) and not again.parsed(B) and not again.parsed(C)
    again.learn_parsed(B)  # nothing learnt but this: written
    await GitDirMemory(tmp_path).keep(again, None)
    third = await GitDirMemory(tmp_path).index([A, B])
    assert third.parsed(A) and third.parsed(B)
    assert not (await GitDirMemory(tmp_path).index([B])).parsed(A)  # only of the sidecars asked about


@pytest.mark.parametrize("parsed", ["a" * 40, [1], {"a": 1}, None])
async def test_a_damaged_list_of_parsed_sidecars_is_ignored_and_the_entries_kept(
    tmp_path: Path, parsed: object
) -> None:
    raw = {"format": 1, "paths": ["x"], "sidecars": {A: [0]}, "parsed": parsed}
    (tmp_path / INDEX_FILE).write_bytes(seal(INDEX_FILE, orjson.dumps(raw), None))
    index = await GitDirMemory(tmp_path).index([A])
    assert known(index) == {A: frozenset({"x"})} and not index.parsed(A)


async def test_a_second_sweep_adds_what_it_learnt_to_what_was_kept(tmp_path: Path) -> None:
    await GitDirMemory(tmp_path).keep(learnt({A: frozenset({"x"})}), None)
    second = GitDirMemory(tmp_path)
    index = await second.index([A, B])
    index.learn(B, frozenset({"y"}))
    await second.keep(index, None)
    assert known(await GitDirMemory(tmp_path).index([A, B])) == {A: frozenset({"x"}), B: frozenset({"y"})}
    assert stored_files(tmp_path) == [INDEX_FILE]  # no verdicts given: none written


async def test_the_index_forgets_its_oldest_entries_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "MAX_INDEX_ENTRIES", 3)
    await GitDirMemory(tmp_path).keep(learnt({A: frozenset({"a"}), B: frozenset({"b"})}), None)
    await GitDirMemory(tmp_path).keep(learnt({C: frozenset({"c"}), D: None}), None)
    assert known(await GitDirMemory(tmp_path).index([A, B, C, D])) == {
        B: frozenset({"b"}),
        C: frozenset({"c"}),
        D: None,
    }


async def test_a_sweep_that_learnt_nothing_new_writes_nothing(tmp_path: Path) -> None:
    await GitDirMemory(tmp_path).keep(learnt({A: frozenset({"x"})}), verdicts("ctx", A))
    before = {name: (tmp_path / name).stat() for name in (INDEX_FILE, VERDICTS_FILE)}
    again = GitDirMemory(tmp_path)
    index = await again.index([A])
    cache = await again.verdicts("ctx")
    page = cache.page(A)
    assert page is not None
    cache.keep(A, page)  # every result recalled, none evaluated again
    assert not cache.changed
    await again.keep(index, cache)
    after = {name: (tmp_path / name).stat() for name in (INDEX_FILE, VERDICTS_FILE)}
    assert {n: (s.st_ino, s.st_mtime_ns) for n, s in after.items()} == {
        n: (s.st_ino, s.st_mtime_ns) for n, s in before.items()
    }


async def test_an_oversized_store_is_not_read_and_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    await GitDirMemory(tmp_path).keep(learnt({A: frozenset({"x"})}), verdicts("ctx", A))
    monkeypatch.setattr(memory, "MAX_STORE_BYTES", 10)
    fresh = GitDirMemory(tmp_path)
    with caplog.at_level(logging.WARNING, logger=memory.__name__):
        assert known(await fresh.index([A])) == {}
        assert len(await fresh.verdicts("ctx")) == 0
    said = warnings(caplog)
    assert len(said) == 2 and all("is over 10 bytes: not read" in s for s in said)


@pytest.mark.parametrize(
    ("index_bytes", "verdict_bytes"),
    [
        (b"{not json", b"\xff\xfe"),
        (b"[1, 2]", b'"a string"'),
        (b'{"format": 1, "sidecars": []}', b'{"format": 1, "context": "ctx", "pages": []}'),
        (b'{"format": 1, "sidecars": {"x": 3, "y": ["ok", 4], "z": "src/a.py"}}', b'{"format": 1, "pages": {}}'),
    ],
    ids=["not-json", "not-objects", "wrong-containers", "wrong-entries"],
)
async def test_a_damaged_store_is_ignored(tmp_path: Path, index_bytes: bytes, verdict_bytes: bytes) -> None:
    (tmp_path / INDEX_FILE).write_bytes(sealed_if_object(INDEX_FILE, index_bytes))
    (tmp_path / VERDICTS_FILE).write_bytes(sealed_if_object(VERDICTS_FILE, verdict_bytes))
    fresh = GitDirMemory(tmp_path)
    assert known(await fresh.index([A, "x", "y", "z"])) == {}
    assert len(await fresh.verdicts("ctx")) == 0


async def test_entries_of_the_wrong_shape_are_dropped_and_the_right_ones_kept(tmp_path: Path) -> None:
    wrong: list[object] = [[1], {"src/a.py": True}, [-1], [-2], [0, 1.0], [True], [0, "0"], "0", [[0]]]
    blobs = [f"{n:040x}" for n in range(len(wrong))]
    raw = {
        "format": 1,
        "paths": ["src/a.py"],
        "sidecars": {A: [0], B: None, C: [], D: [0, 0], **dict(zip(blobs, wrong, strict=True))},
    }
    (tmp_path / INDEX_FILE).write_bytes(seal(INDEX_FILE, orjson.dumps(raw), None))
    got = known(await GitDirMemory(tmp_path).index([A, B, C, D, *blobs]))
    assert got == {A: frozenset({"src/a.py"}), B: None, C: frozenset(), D: frozenset({"src/a.py"})}


async def test_a_store_that_is_not_json_warns(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / INDEX_FILE).write_bytes(seal(INDEX_FILE, b"{not json", None))
    with caplog.at_level(logging.WARNING, logger=memory.__name__):
        assert known(await GitDirMemory(tmp_path).index([A])) == {}
    assert [s for s in warnings(caplog) if "could not be read" in s and "the sweep runs without it" in s]


async def test_a_file_where_the_folder_should_be_only_warns_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "wikiwarden"
    folder.write_text("a file, not a folder")
    store = GitDirMemory(folder)
    with caplog.at_level(logging.WARNING, logger=memory.__name__):
        assert known(await store.index([A])) == {}
        await store.keep(learnt({A: None}), verdicts("ctx", A))  # does not raise
    said = warnings(caplog)
    assert [s for s in said if "could not be read" in s] == said[:1]  # reading it fails too, and says so
    assert len([s for s in said if "the next sweep starts cold" in s]) == 1  # two files, one reason: said once
    assert folder.read_text() == "a file, not a folder"
    assert stored_files(tmp_path) == ["wikiwarden"]


async def test_a_write_that_fails_leaves_no_temporary_file(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / INDEX_FILE).mkdir()  # os.replace cannot put a file there
    with caplog.at_level(logging.WARNING, logger=memory.__name__):
        await GitDirMemory(tmp_path).keep(learnt({A: None}), verdicts("ctx", A))
    assert len([s for s in warnings(caplog) if "the next sweep starts cold" in s]) == 1
    assert stored_files(tmp_path) == [INDEX_FILE, VERDICTS_FILE]  # the verdicts were still kept
    assert (tmp_path / INDEX_FILE).is_dir() and list((tmp_path / INDEX_FILE).iterdir()) == []


def _grounded(repo: GitRepo) -> GitRepo:
    page = b"---\ntype: Concept\n---\n\n# A\n\n`b` returns 2.\n"
    record = EvidenceRecord("repo://src/a.py#L5-L6", lines_version(FileText(CODE.encode()), 4, 6))
    repo.write("src/a.py", CODE)
    repo.write("openwiki/a.md", page)
    claim = Claim(f"claim_{1:032x}", "b returns 2.", (record,))
    repo.write("openwiki/.claims/a.json", render_sidecar(Sidecar(page_version(page), (claim,))))
    repo.commit("code and wiki")
    return repo


def _check(repo: GitRepo, memory_folder: Path | None = None) -> SweepReport:
    store = GitDirMemory(memory_folder) if memory_folder is not None else None
    return check_repository(GitRepository(repo.root), memory=store)


@pytest.mark.parametrize("damage", [b"{not json", b'{"format": 1, "sidecars": {"x": 3}}', b"x" * 64])
def test_a_sweep_over_a_damaged_or_oversized_store_gives_the_report_without_one(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: bytes
) -> None:
    _grounded(repo)
    expected = _check(repo)
    assert expected.summary["fresh"] == 1
    folder = tmp_path / "store"
    folder.mkdir()
    (folder / INDEX_FILE).write_bytes(damage)
    (folder / VERDICTS_FILE).write_bytes(damage)
    monkeypatch.setattr(memory, "MAX_STORE_BYTES", 32)
    assert _check(repo, folder) == expected
    assert orjson.loads((folder / VERDICTS_FILE).read_bytes())["format"] == FORMAT  # replaced by this sweep's
    assert _check(repo, folder) == expected  # and read back by the next
    repo.write("src/a.py", CODE.replace("return 2", "return 3"))
    repo.commit("three")
    assert _check(repo, folder) == _check(repo) != expected  # the kept verdicts never hide a change


# --- SharedIndex, against a real Redis ------------------------------------------------------------------------------


async def test_learnt_entries_reach_another_process_through_redis_and_expire(redis_pool: ArqRedis) -> None:
    first = SharedIndex()
    first.share_through(redis_pool)
    index = EvidenceIndex({C: frozenset({"known/before.py"})})  # known, not learnt: not written again
    index.learn(A, frozenset({"src/q.py", "src/r.py"}))
    index.learn(B, None)
    await first.keep(index, None)

    assert await redis_pool.get(REDIS_PREFIX + A) == b'["src/q.py","src/r.py"]'
    assert await redis_pool.get(REDIS_PREFIX + B) == b"null"
    assert await redis_pool.exists(REDIS_PREFIX + C) == 0
    for blob in (A, B):
        assert REDIS_SECONDS - 60 < await redis_pool.ttl(REDIS_PREFIX + blob) <= REDIS_SECONDS

    second = SharedIndex()
    second.share_through(redis_pool)
    assert known(await second.index([A, B, C, D])) == {A: frozenset({"src/q.py", "src/r.py"}), B: None}
    await redis_pool.flushdb()
    assert known(await second.index([A, B])) == {A: frozenset({"src/q.py", "src/r.py"}), B: None}  # now its own


async def test_a_large_wiki_is_read_back_in_batches(redis_pool: ArqRedis) -> None:
    blobs = {f"{n:040x}": frozenset({f"src/m{n % 7}.py"}) for n in range(1234)}
    writer = SharedIndex()
    writer.share_through(redis_pool)
    await writer.keep(learnt(dict(blobs)), None)
    reader = SharedIndex()
    reader.share_through(redis_pool)
    assert known(await reader.index([*blobs, D])) == blobs


async def test_entries_too_large_or_not_json_are_ignored(redis_pool: ArqRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "MAX_CITED_BYTES", 64)
    stored = {
        "f" * 40: orjson.dumps(["src/ok.py"]),
        A: orjson.dumps([f"src/long/path/number/{n}.py" for n in range(10)]),  # over 64 bytes
        B: b"[not json",
        C: b"[1, 2]",
        D: b'"src/a.py"',
    }
    await redis_pool.mset({REDIS_PREFIX + blob: value for blob, value in stored.items()})
    shared = SharedIndex()
    shared.share_through(redis_pool)
    assert known(await shared.index(list(stored))) == {"f" * 40: frozenset({"src/ok.py"})}


async def test_redis_unreachable_costs_reads_never_the_check(caplog: pytest.LogCaptureFixture) -> None:
    import redis.asyncio

    gone: Any = redis.asyncio.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=1)
    shared = SharedIndex()
    shared.share_through(gone)
    with caplog.at_level(logging.WARNING, logger=memory.__name__):
        await asyncio.wait_for(shared.keep(learnt({A: frozenset({"src/q.py"})}), None), 30)
        assert known(await asyncio.wait_for(shared.index([A, B]), 30)) == {A: frozenset({"src/q.py"})}
    said = warnings(caplog)
    assert any("could not be written" in s for s in said) and any("could not be read" in s for s in said)
    await gone.aclose()


async def test_two_checks_keeping_their_memory_at_once_lose_neither_ones_index(tmp_path: Path) -> None:
    """Both read the index before either keeps what it learnt: the second merges what the first wrote meanwhile."""
    first, second = GitDirMemory(tmp_path), GitDirMemory(tmp_path)
    await first.index([A, B])
    await second.index([A, B])
    await first.keep(learnt({A: frozenset({"src/a.py"})}), None)
    await second.keep(learnt({B: frozenset({"src/b.py"})}), None)
    assert known(await GitDirMemory(tmp_path).index([A, B])) == {A: frozenset({"src/a.py"}), B: frozenset({"src/b.py"})}


@pytest.fixture(params=["posix", "lstat"])
def file_checks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways the memory's files are checked: POSIX's O_NOFOLLOW and fstat, and (as on Windows) lstat first."""
    if request.param == "lstat":
        monkeypatch.setattr(safeio, "POSIX", False)
    return str(request.param)


@pytest.mark.parametrize("planted", ["fifo", "dev-zero", "folder"])
async def test_what_is_not_a_regular_file_in_a_stores_place_is_ignored_then_replaced(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, file_checks: str, planted: str
) -> None:
    for name in (INDEX_FILE, VERDICTS_FILE):
        if planted == "fifo":
            os.mkfifo(tmp_path / name)
        elif planted == "dev-zero":
            (tmp_path / name).symlink_to("/dev/zero")
        else:
            (tmp_path / name).mkdir()
    store = GitDirMemory(tmp_path)
    with caplog.at_level(logging.WARNING, logger=memory.__name__):
        assert known(await store.index([A])) == {}
        assert len(await store.verdicts("ctx")) == 0
        await store.keep(learnt({A: frozenset({"x"})}), verdicts("ctx", A))
    said = warnings(caplog)
    what = "a symlink" if planted == "dev-zero" else "not a regular file"
    assert said[:2] == [
        f"{tmp_path / name} is {what}: not read, and replaced after this sweep" for name in (INDEX_FILE, VERDICTS_FILE)
    ]
    if planted == "folder":  # a folder cannot be renamed over: left, and said once
        assert said[2:] == [s for s in said[2:] if "the next sweep starts cold" in s] and len(said) == 3
        return
    assert said[2:] == []
    assert stored_files(tmp_path) == [INDEX_FILE, VERDICTS_FILE]  # regular files now, no temporary file left
    assert not any((tmp_path / name).is_symlink() for name in (INDEX_FILE, VERDICTS_FILE))
    fresh = GitDirMemory(tmp_path)
    assert known(await fresh.index([A])) == {A: frozenset({"x"})} and len(await fresh.verdicts("ctx")) == 1


async def test_a_symlinked_memory_folder_is_never_read_or_written_through(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, file_checks: str
) -> None:
    target = tmp_path / "target"
    await GitDirMemory(target).keep(learnt({A: frozenset({"x"})}), verdicts("ctx", A))
    before = {name: (target / name).read_bytes() for name in stored_files(target)}
    (tmp_path / "wikiwarden").symlink_to(target, target_is_directory=True)
    store = GitDirMemory(tmp_path / "wikiwarden")
    with caplog.at_level(logging.WARNING, logger=memory.__name__):
        assert known(await store.index([A])) == {}  # not read through the link either
        await store.keep(learnt({B: None}), verdicts("ctx", B))
    assert warnings(caplog) == [
        f"{tmp_path / 'wikiwarden'} is a symlink: the sweep's memory is neither read nor kept through it"
    ]
    assert {name: (target / name).read_bytes() for name in stored_files(target)} == before


# --- the seal -----------------------------------------------------------------------------------------------------

KEY = b"0123456789abcdef" * 2


@pytest.mark.parametrize("key", [None, KEY])
def test_a_sealed_file_stays_json_and_verifies_only_as_written(key: bytes | None) -> None:
    data = seal(VERDICTS_FILE, b'{"format":4,"pages":{}}', key)
    assert orjson.loads(data) == {"seal": orjson.loads(data)["seal"], "format": 4, "pages": {}}
    assert unseal(VERDICTS_FILE, data, key) is None
    assert unseal(INDEX_FILE, data, key) is not None  # bound to its name: not another file's contents
    assert unseal(VERDICTS_FILE, data.replace(b'"format":4', b'"format":5'), key) is not None
    other = None if key is not None else KEY  # a file signed needs the key; a plain one is refused under a key
    assert unseal(VERDICTS_FILE, data, other) is not None
    assert unseal(VERDICTS_FILE, seal(VERDICTS_FILE, b'{"format":4}', KEY[::-1]), KEY) is not None


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{}",
        b'{"format":4}',
        b'{"seal":"sha256:',
        b'{"seal":"md5:00",' + b"0" * 99,
        b'{"seal":"sha256:\xff\xfe",}',
    ],
)
def test_a_file_without_a_well_formed_seal_is_refused_in_words(data: bytes) -> None:
    for key in (None, KEY):
        refused = unseal(VERDICTS_FILE, data, key)
        assert refused is not None and refused.startswith(("not sealed", "not what was written", "not signed"))
