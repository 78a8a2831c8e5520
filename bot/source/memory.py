"""What a check remembers between runs: the evidence index (which files each sidecar cites), the verdict cache
(full-sweep results while the cited files keep their bytes) and the pages' readings (what a full check takes from
each page's Markdown, while the page keeps its bytes). Each is only ever a shortcut: lost, damaged or unwritable,
it costs a slower check and never changes a verdict or a finding.

A stored file answers for what the check would otherwise compute, so it is bound to its writer: it opens with a
seal over its name and every byte that follows (`seal`, `unseal`), an HMAC-SHA256 under a cache key when the check
is given one (the Action's `cache-key`, the command line's WIKIWARDEN_CACHE_KEY), else a plain SHA-256 digest. A
file whose seal does not verify (edited, damaged, left by an older Wikiwarden, or by a run without the key) is not
used and is replaced after the sweep. Without a key the digest only catches a file changed without it being
recomputed: the repository's own git directory is trusted, as git trusts it (it runs its hooks).

- `GitDirMemory`: a local repository's, under `<git common dir>/wikiwarden/` (never in the working tree, never
  committed, shared by the repository's worktrees), for the command line;
- `SharedIndex`: the App's evidence index, in the process and, once `share_through(redis)` is called, in Redis,
  so a new worker's first push reads only the sidecars that cite the change. It keeps no verdicts: the App's
  checks are diff-aware.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import orjson
from cachetools import LRUCache

from ..claims.citations import Cited, EvidenceIndex, StoredCitations
from ..claims.verdict_cache import VerdictCache, numbers_below
from ..ground.reading import ReadingCache
from .safeio import FileId, Folder, TooLarge, UnsafeFile

if TYPE_CHECKING:
    import logging


def _log() -> logging.Logger:
    """This module's logger; logging is imported when something is logged (a command line check passes its own
    warning, and is spared the import: a few milliseconds of every check)."""
    import logging  # noqa: PLC0415

    return logging.getLogger(__name__)


def _log_warning(message: str) -> None:
    _log().warning(message)


MEMORY_FOLDER = "wikiwarden"  # in the git directory
INDEX_FILE = "evidence-index-v1.json"
VERDICTS_FILE = "verdicts-v1.json"
READINGS_FILE = "pages-v1.json"
INDEX_FORMAT = 1
MAX_STORE_BYTES = 256 << 20  # a 100k-claim wiki's verdicts are about 12 MB; anything far larger is not read
MAX_INDEX_ENTRIES = 20_000  # sidecar versions remembered locally (the oldest are forgotten first)
REDIS_PREFIX = "wikiwarden:cites:v1:"
REDIS_SECONDS = 30 * 86_400
REDIS_BATCH = 500  # keys per MGET
MAX_CITED_BYTES = 4 << 20  # one sidecar's entry in Redis
MIN_KEY_CHARACTERS = 32  # a cache key is a secret: `openssl rand -hex 32` gives 64
MAX_KEY_CHARACTERS = 4096
_SEAL_OPEN = b'{"seal":"'  # a stored file is one JSON object whose first member is its seal (it stays JSON)
_SEAL_END = b'",'
_KEYED, _PLAIN = "hmac-sha256", "sha256"
_SEAL_BYTES = len(_SEAL_OPEN) + len(_KEYED) + 1 + 64 + len(_SEAL_END)  # the longest seal


class CacheKeyError(ValueError):
    """A cache key that cannot be used (too short to be a secret, or too long)."""


def cache_key(text: str | None) -> bytes | None:
    """The key a cache key's text gives (None for none or blank). CacheKeyError for one too short to be a secret:
    a forger could guess it."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    if len(text) < MIN_KEY_CHARACTERS:
        raise CacheKeyError(
            f"the cache key is {len(text)} characters: give a random secret of {MIN_KEY_CHARACTERS} or more "
            "(`openssl rand -hex 32`)"
        )
    if len(text) > MAX_KEY_CHARACTERS:
        raise CacheKeyError(f"the cache key is over {MAX_KEY_CHARACTERS} characters")
    return text.encode()


def _tag(scheme: str, name: str, body: bytes | memoryview, key: bytes | None) -> str:
    """The seal's hex tag over the file's name and `body` (everything after the seal): what it is and where."""
    h = hmac.new(key, digestmod=hashlib.sha256) if key is not None else hashlib.sha256()
    h.update(f"wikiwarden-memory\0{scheme}\0{name}\0".encode())
    h.update(body)
    return h.hexdigest()


def seal(name: str, document: bytes, key: bytes | None) -> bytes:
    """The bytes to store for the JSON object `document` at `name`: the object with its seal as first member."""
    if not document.startswith(b"{") or document == b"{}":
        raise ValueError("only a non-empty JSON object is sealed")
    scheme = _KEYED if key is not None else _PLAIN
    body = memoryview(document)[1:]  # not copied: the verdicts of 100k claims are megabytes
    return b"".join((_SEAL_OPEN, f"{scheme}:{_tag(scheme, name, body, key)}".encode(), _SEAL_END, body))


def unseal(name: str, data: bytes, key: bytes | None) -> str | None:
    """None when `data`'s seal verifies (under `key`, else as a plain digest); else why it does not, in words."""
    end = data.find(_SEAL_END, 0, _SEAL_BYTES) if data.startswith(_SEAL_OPEN) else -1
    kind, _, tag = data[len(_SEAL_OPEN) : end].partition(b":") if end > 0 else (b"", b"", b"")
    scheme = kind.decode("ascii", "replace")
    if scheme not in (_KEYED, _PLAIN):
        return "not sealed (damaged, or left by an older Wikiwarden)"
    if key is None and scheme == _KEYED:
        return "signed with a cache key this check was not given"
    if key is not None and scheme == _PLAIN:
        return "not signed with the cache key (left by a check without it, or by another step)"
    expected = _tag(scheme, name, memoryview(data)[end + len(_SEAL_END) :], key)
    if hmac.compare_digest(tag, expected.encode()):  # bytes: a forged tag need not be ASCII
        return None
    if key is not None:
        return "not signed with this cache key (changed since, or signed with another key)"
    return "not what was written (its digest does not match: damaged, or changed by hand)"


class SweepMemory(Protocol):
    """Where a check finds, and leaves, what earlier sweeps learnt."""

    async def index(self, sidecar_blobs: Collection[str]) -> EvidenceIndex:
        """What the memory knows of these sidecars (by blob id)."""
        ...

    async def verdicts(self, context: str) -> VerdictCache | None:
        """The verdicts kept under `context`; None when this memory keeps none."""
        ...

    async def readings(self, context: str) -> ReadingCache | None:
        """The pages' readings kept under `context`; None when this memory keeps none."""
        ...

    async def keep(
        self, index: EvidenceIndex, verdicts: VerdictCache | None, readings: ReadingCache | None = None
    ) -> None:
        """Remember what the check learnt."""
        ...


def _encode_cited(cited: Cited) -> list[str] | None:
    return sorted(cited) if cited is not None else None


def _decode_cited(value: object) -> tuple[bool, Cited]:
    """(valid, cited) from a stored entry: a list of paths, or None for "may cite anything"."""
    if value is None:
        return True, None
    if type(value) is list and all(type(p) is str for p in value):
        return True, frozenset(value)
    return False, None


class GitDirMemory:
    """The memory of a local repository, JSON files in `folder` (its git directory's `wikiwarden/`).

    The folder is untrusted ground (anything can be planted in a git directory): it and its files are opened
    without following a link, and only regular files are read, at most MAX_STORE_BYTES of each (`safeio`). A
    symlink, a FIFO, a device or an oversized file in a file's place is ignored with a note and replaced by the
    next write (a rename over it, never a write through it); a symlink in the folder's place, or anything else than
    a folder, is neither read nor written through. Writers (concurrent checks, in any worktree) take the folder's
    lock, and each merges the evidence index another wrote meanwhile."""

    def __init__(self, folder: Path, warn: Callable[[str], None] = _log_warning, key: bytes | None = None) -> None:
        self.folder = folder
        self._key = key  # None: the files are sealed with a plain digest (a local, trusted git directory)
        self._warn = warn  # the command line prints a problem on its error stream; the default logs it
        self._citations: StoredCitations | None = None
        self._parsed: frozenset[str] = frozenset()  # sidecar blobs a sweep parsed without error (read with the index)
        self._index_id: FileId | None = None  # the index file as it was read: another writer's replaces it
        self._verdicts: VerdictCache | None = None
        self._write_failed = False
        self._folder_refused = False

    def _open_folder(self, *, create: bool) -> Folder | None:
        """The memory's folder, None when there is none yet or it cannot be used (said once)."""
        try:
            return Folder.open(self.folder, create=create)
        except UnsafeFile as exc:
            if not self._folder_refused:
                self._warn(f"{self.folder} is {exc.strerror}: the sweep's memory is neither read nor kept through it")
            self._folder_refused = True
            return None

    def _read(self, name: str) -> object:
        """A stored file's JSON, or None when absent, too large or unreadable (the sweep then runs without it)."""
        path = self.folder / name
        try:
            folder = self._open_folder(create=False)
            if folder is None:
                return None
            with folder:
                if name == INDEX_FILE:  # as it stands before it is read: a file replaced since is read again
                    self._index_id = folder.identity(name)
                data = folder.read(name, MAX_STORE_BYTES)
            if data is None:
                return None
            refused = unseal(name, data, self._key)
            if refused is not None:
                self._warn(f"{path} is {refused}: not used, and replaced after this sweep")
                return None
            return orjson.loads(data)
        except TooLarge:
            self._warn(f"{path} is over {MAX_STORE_BYTES} bytes: not read, and replaced after this sweep")
            return None
        except UnsafeFile as exc:
            self._warn(f"{path} is {exc.strerror}: not read, and replaced after this sweep")
            return None
        except (OSError, orjson.JSONDecodeError) as exc:
            self._warn(f"{path} could not be read ({exc}): the sweep runs without it")
            return None

    def _stored(self) -> StoredCitations:
        """The stored index: each sidecar's cited paths as numbers into one table of paths (a 1,000-page wiki
        cites the same few thousand files over and over: a tenth of the bytes, one string per path), checked
        at C speed and decoded only when asked for."""
        if self._citations is None:
            self._citations = StoredCitations([], {})
            raw = self._read(INDEX_FILE)
            if not isinstance(raw, dict) or raw.get("format") != INDEX_FORMAT:
                return self._citations
            paths, sidecars = raw.get("paths"), raw.get("sidecars")
            if type(paths) is not list or not all(type(p) is str for p in paths) or type(sidecars) is not dict:
                return self._citations
            valid = {
                blob: value
                for blob, value in sidecars.items()
                if value is None or (type(value) is list and numbers_below(value, len(paths)))
            }
            self._citations = StoredCitations(paths, valid)
            parsed = raw.get("parsed")
            if type(parsed) is list and all(type(blob) is str for blob in parsed):
                self._parsed = frozenset(parsed)
        return self._citations

    async def index(self, sidecar_blobs: Collection[str]) -> EvidenceIndex:
        stored = self._stored()
        known = stored.sidecars
        asked = StoredCitations(stored.paths, {b: known[b] for b in sidecar_blobs if b in known})
        return EvidenceIndex(stored=asked, parsed=self._parsed.intersection(sidecar_blobs))

    async def verdicts(self, context: str) -> VerdictCache:
        self._verdicts = VerdictCache.from_json(self._read(VERDICTS_FILE), context)
        return self._verdicts

    async def readings(self, context: str) -> ReadingCache:
        return ReadingCache.from_json(self._read(READINGS_FILE), context)

    async def keep(
        self, index: EvidenceIndex, verdicts: VerdictCache | None, readings: ReadingCache | None = None
    ) -> None:
        writes_index = bool(index.learnt or index.parsed_now)
        writes_verdicts = verdicts is not None and verdicts.changed
        writes_readings = readings is not None and readings.changed
        if not (writes_index or writes_verdicts or writes_readings):
            return
        try:
            folder = self._open_folder(create=True)
        except OSError as exc:
            self._write_failed_because(exc)
            return
        if folder is None:
            return
        with folder, folder.locked():  # another check keeping its memory waits: its index is merged, not lost
            if writes_index:
                self._write(folder, INDEX_FILE, lambda: self._index_document(folder, index))
            if writes_verdicts:
                assert verdicts is not None
                self._write(folder, VERDICTS_FILE, verdicts.to_json)
            if writes_readings:
                assert readings is not None
                self._write(folder, READINGS_FILE, readings.to_json)

    def _index_document(self, folder: Folder, index: EvidenceIndex) -> object:
        """The index to write: the stored one (read again if another check replaced it since) and what was learnt."""
        if folder.identity(INDEX_FILE) != self._index_id:
            parsed_before = self._parsed
            self._citations, self._parsed = None, frozenset()
            self._stored()
            self._parsed |= parsed_before
        stored = self._stored()
        entries = {blob: stored.decoded(blob) for blob in stored.sidecars}
        entries.update(index.learnt)
        for blob in list(entries)[: max(0, len(entries) - MAX_INDEX_ENTRIES)]:
            del entries[blob]  # the oldest first: dicts keep their order of insertion
        paths = sorted(set().union(*(cited for cited in entries.values() if cited is not None)))
        number = {path: n for n, path in enumerate(paths)}.__getitem__
        sidecars = {  # at C speed: 134k paths on 1,000 pages
            blob: None if cited is None else sorted(map(number, cited)) for blob, cited in entries.items()
        }
        parsed = sorted((self._parsed | index.parsed_now) & entries.keys())  # forgotten with their entries
        return {"format": INDEX_FORMAT, "paths": paths, "sidecars": sidecars, "parsed": parsed}

    def _write(self, folder: Folder, name: str, value: Callable[[], object]) -> None:
        """Replace a stored file whole (a concurrent sweep sees the old file or the new one, never half of one)."""
        try:
            folder.replace(name, seal(name, orjson.dumps(value()), self._key))
        except OSError as exc:
            self._write_failed_because(exc)

    def _write_failed_because(self, exc: OSError) -> None:
        if not self._write_failed:  # said once: the second file fails for the same reason
            self._warn(f"the sweep's memory could not be kept in {self.folder} ({exc}): the next sweep starts cold")
        self._write_failed = True


class SharedIndex:
    """The App's evidence index: an LRU in the process, backed by Redis once shared. Entries are content-addressed
    (a sidecar blob id always cites the same files), so they are shared across repositories and never go stale;
    Redis forgets one a month after it was last learnt."""

    def __init__(self, paths: int = 2_000_000) -> None:
        self._local: LRUCache[str, Cited] = LRUCache(maxsize=paths, getsizeof=lambda cited: 1 + len(cited or ()))
        self._redis: Any = None

    def share_through(self, redis: Any) -> None:
        self._redis = redis

    async def index(self, sidecar_blobs: Collection[str]) -> EvidenceIndex:
        known: dict[str, Cited] = {}
        missing = []
        for blob in sidecar_blobs:
            if blob in self._local:
                known[blob] = self._local[blob]
            else:
                missing.append(blob)
        if self._redis is not None and missing:
            try:
                found = await self._recall(missing)
            except Exception as exc:  # the index is a shortcut: Redis gone costs reads, never the check
                _log().warning(
                    "the shared evidence index could not be read (%s): sidecars are read", type(exc).__name__
                )
            else:
                for blob, cited in found.items():
                    known[blob] = self._local[blob] = cited
        return EvidenceIndex(known)

    async def _recall(self, blobs: list[str]) -> dict[str, Cited]:
        found: dict[str, Cited] = {}
        for start in range(0, len(blobs), REDIS_BATCH):
            chunk = blobs[start : start + REDIS_BATCH]
            for blob, raw in zip(chunk, await self._redis.mget([REDIS_PREFIX + b for b in chunk]), strict=True):
                if raw is None or len(raw) > MAX_CITED_BYTES:
                    continue
                try:
                    valid, cited = _decode_cited(orjson.loads(raw))
                except orjson.JSONDecodeError:
                    continue
                if valid:
                    found[blob] = cited
        return found

    async def verdicts(self, context: str) -> None:
        return None

    async def readings(self, context: str) -> None:
        return None

    async def keep(
        self, index: EvidenceIndex, verdicts: VerdictCache | None, readings: ReadingCache | None = None
    ) -> None:
        learnt = index.learnt
        for blob, cited in learnt.items():
            self._local[blob] = cited
        if self._redis is not None and learnt:
            try:
                await self._share(learnt.items())
            except Exception as exc:
                _log().warning("the shared evidence index could not be written (%s)", type(exc).__name__)

    async def _share(self, entries: Iterable[tuple[str, Cited]]) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            for blob, cited in entries:
                pipe.set(REDIS_PREFIX + blob, orjson.dumps(_encode_cited(cited)), ex=REDIS_SECONDS)
            await pipe.execute()
