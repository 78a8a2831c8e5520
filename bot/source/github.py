"""A repository on GitHub as the use cases' `Source`: trees, file contents and changes over the API.

Contents are cached by blob sha across jobs, so a file that did not change is never fetched twice; many
files come in one GraphQL request, and each is checked against its git blob id (so the bytes hashed are
exactly git's), with the REST blob endpoint as the fallback. The core is synchronous and pure: the use
cases ask it which files it will read, fetch them here in batches, and only then run it.

The client is anything with gidgethub's `getitem` and a retrying `graphql_query` (the App's `GitHubClient`):
this module sits below `bot/github/` and never imports it.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from cachetools import LRUCache
from gidgethub import BadRequest

from ..claims.snapshot import Change, Entry, FileChange, Kind, Snapshot, commit_label, git_blob_id
from .shared_blobs import SharedBlobs, is_shared

COMPARE_FILE_CAP = 300  # GitHub lists at most 300 files of a comparison
HISTORY_PATHS_CAP = 20  # paths whose history one check asks GitHub about, one request each
GRAPHQL_BATCH_OBJECTS = 100
GRAPHQL_BATCH_BYTES = 4 << 20
_MODES = {"100644": Kind.FILE, "100755": Kind.FILE, "120000": Kind.SYMLINK, "160000": Kind.OTHER}


log = logging.getLogger(__name__)


class GitHubReader(Protocol):
    """What this module asks of a GitHub client: REST reads and GraphQL queries, each retried as GitHub asks."""

    async def getitem(self, url: str, url_vars: Mapping[str, Any] | None = ...) -> Any: ...

    async def graphql_query(self, query: str, *, endpoint: str, **variables: Any) -> Any: ...


class NotFetched(LookupError):
    """The core read a file the use case did not fetch first: a bug in the read plan, never the user's."""


@dataclass(frozen=True, slots=True)
class TreeEntry:
    mode: str
    sha: str
    size: int | None

    @property
    def kind(self) -> Kind:
        return _MODES.get(self.mode, Kind.OTHER)


class SourceCache:
    """What the process keeps between jobs: blobs by sha, trees by commit (both never change), and the sidecars
    every worker shares (`shared`: in Redis once the runtime shares it)."""

    def __init__(self, blob_bytes: int = 256 << 20, trees: int = 64) -> None:
        self.blobs: LRUCache[str, bytes] = LRUCache(maxsize=blob_bytes, getsizeof=len)
        self.trees: LRUCache[str, dict[str, TreeEntry]] = LRUCache(maxsize=trees)
        self.shared = SharedBlobs()
        self.fetched_blobs = 0  # files fetched from GitHub since start (for metrics and the benchmark)

    def keep_blob(self, sha: str, data: bytes, *, fetched: bool = True) -> None:
        """Keep a blob for later jobs; `fetched` from GitHub (counted), else recalled from the shared cache."""
        self.fetched_blobs += fetched
        if len(data) <= self.blobs.maxsize // 8:  # one huge file must not evict everything else
            self.blobs[sha] = data


class GitHubSnapshot:
    """A commit of a GitHub repository: its tree listing, and the contents fetched for it (kept for the job, so
    the shared cache may evict them meanwhile without a read failing)."""

    def __init__(self, repo: GitHubSource, commit: str, tree: dict[str, TreeEntry], label: str) -> None:
        self.repo = repo
        self.commit = commit
        self.tree = tree
        self.label = label
        self._held: dict[str, bytes] = {}  # blob sha → contents, for this job
        self._symlinks = {p for p, e in tree.items() if e.kind is Kind.SYMLINK}
        self._dirs = {p.rsplit("/", k)[0] for p in tree for k in range(1, p.count("/") + 1)}

    def _under_symlink(self, path: str) -> bool:
        parts = path.split("/")
        return bool(self._symlinks) and any("/".join(parts[:k]) in self._symlinks for k in range(1, len(parts)))

    def entry(self, path: str) -> Entry | None:
        if self._under_symlink(path):
            return Entry(Kind.SYMLINK)
        found = self.tree.get(path)
        if found is not None:
            return Entry(found.kind, found.size)
        return Entry(Kind.DIRECTORY) if path in self._dirs else None

    def read(self, path: str) -> bytes:
        sha = self.tree[path].sha
        data = self._held.get(sha)
        if data is None:
            raise NotFetched(f"{path} of {self.label} was read before it was fetched")
        return data

    def missing(self, paths: Iterable[str]) -> list[str]:
        """Which of `paths` are files this snapshot still lacks (what to fetch is the core's decision: it asks
        only for what it will read, sizes included)."""
        wanted = []
        for path in paths:
            entry = self.tree.get(path)
            if entry is None or entry.kind is not Kind.FILE or entry.sha in self._held:
                continue
            cached = self.repo.cache.blobs.get(entry.sha)
            if cached is not None:
                self._held[entry.sha] = cached
            else:
                wanted.append(path)
        return wanted

    def hold(self, sha: str, data: bytes) -> None:
        self._held[sha] = data

    def held(self, sha: str) -> bytes | None:
        """The contents held for this job of the blob `sha`, if fetched."""
        return self._held.get(sha)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Nothing to do: the use case fetched every file the core reads before it ran."""

    def blob_id(self, path: str) -> str | None:
        found = self.tree.get(path)
        return found.sha if found is not None and found.kind is Kind.FILE and not self._under_symlink(path) else None

    def walk(self, top: str) -> Iterator[tuple[str, Entry]]:
        prefix = top.rstrip("/") + "/"
        for path, found in self.tree.items():
            if path.startswith(prefix) and not self._under_symlink(path):
                yield path, Entry(found.kind, found.size)


class GitHubSource:
    """One repository, seen by one job through one installation's client."""

    def __init__(self, gh: GitHubReader, full_name: str, graphql_url: str, cache: SourceCache) -> None:
        self.gh = gh
        self.owner, self.name = full_name.split("/", 1)
        self.full_name = full_name
        self.graphql_url = graphql_url
        self.cache = cache

    async def tree(self, commit: str) -> dict[str, TreeEntry]:
        tree = self.cache.trees.get(commit)
        if tree is None:
            listing = await self.gh.getitem(
                "/repos/{owner}/{repo}/git/trees/{sha}?recursive=1",
                url_vars={"owner": self.owner, "repo": self.name, "sha": commit},
            )
            if listing.get("truncated"):
                raise RuntimeError(f"the tree of {commit} is too large for GitHub to list ({self.full_name})")
            tree = {
                item["path"]: TreeEntry(item["mode"], item["sha"], item.get("size"))
                for item in listing["tree"]
                if item["type"] in ("blob", "commit")
            }
            self.cache.trees[commit] = tree
        return tree

    async def snapshot(self, rev: str | None = None, label: str | None = None) -> GitHubSnapshot:
        if rev is None:
            raise ValueError("a GitHub repository has no working tree: name the commit")
        return GitHubSnapshot(self, rev, await self.tree(rev), label or rev)

    def files(self, snapshot: Snapshot) -> list[str]:
        return list(self._own(snapshot).tree)

    async def ever_committed(self, snapshot: Snapshot, paths: Sequence[str]) -> set[str] | None:
        """One commit listing for each path (GitHub has no history query of many paths): up to
        `HISTORY_PATHS_CAP` of them, else None (not worth a burst of requests: every such path stays certain)."""
        held = self._own(snapshot)
        wanted = list(dict.fromkeys(paths))
        if len(wanted) > HISTORY_PATHS_CAP:
            return None
        found = set()
        for path in wanted:
            listing = await self.gh.getitem(
                "/repos/{owner}/{repo}/commits{?sha,path,per_page}",
                url_vars={"owner": self.owner, "repo": self.name, "sha": held.commit, "path": path, "per_page": 1},
            )
            if listing:
                found.add(path)
        return found

    def _own(self, snapshot: Snapshot) -> GitHubSnapshot:
        if not isinstance(snapshot, GitHubSnapshot) or snapshot.repo is not self:
            raise TypeError(f"{snapshot.label} is not a snapshot of {self.full_name}")
        return snapshot

    async def renames(self, change: Change, deleted: Collection[str]) -> Change:
        """GitHub's compare lists renames already, whatever a wiki cites."""
        return change

    async def fetch(self, snapshot: Snapshot, paths: Iterable[str]) -> None:
        """Bring the contents of `paths` in: the sidecars another worker shared from Redis, the rest from GitHub
        in GraphQL batches, REST for what GraphQL cannot give; the sidecars fetched are shared in turn."""
        held = self._own(snapshot)
        missing = held.missing(paths)
        sidecars = {held.tree[p].sha for p in missing if is_shared(p)}
        if sidecars and self.cache.shared.shared:
            for sha, data in (await self.cache.shared.recall(sidecars)).items():
                self.cache.keep_blob(sha, data, fetched=False)
                held.hold(sha, data)
            missing = held.missing(missing)
        await self._fetch(held, missing)
        if sidecars and self.cache.shared.shared:
            fetched = {held.tree[p].sha for p in missing if is_shared(p)}
            await self.cache.shared.share({sha: blob for sha in fetched if (blob := held.held(sha)) is not None})

    async def _fetch(self, held: GitHubSnapshot, missing: list[str]) -> None:
        wanted = {held.tree[p].sha: held.tree[p].size or 0 for p in missing}
        batches: list[list[str]] = [[]]
        size = 0
        for sha, blob_size in wanted.items():
            if batches[-1] and (len(batches[-1]) >= GRAPHQL_BATCH_OBJECTS or size + blob_size > GRAPHQL_BATCH_BYTES):
                batches.append([])
                size = 0
            batches[-1].append(sha)
            size += blob_size
        leftovers: list[str] = []
        for batch in batches:
            if batch:
                leftovers.extend(await self._graphql_blobs(batch, held))
        for sha in leftovers:
            await self._rest_blob(sha, held)

    async def _graphql_blobs(self, shas: list[str], into: GitHubSnapshot) -> list[str]:
        fields = " ".join(
            f'b{n}: object(oid: "{sha}") {{ ... on Blob {{ oid isBinary isTruncated text }} }}'
            for n, sha in enumerate(shas)
        )
        query = f"query($owner: String!, $name: String!) {{ repository(owner: $owner, name: $name) {{ {fields} }} }}"
        data = await self.gh.graphql_query(query, endpoint=self.graphql_url, owner=self.owner, name=self.name)
        objects = (data or {}).get("repository") or {}
        leftovers = []
        for n, sha in enumerate(shas):
            blob = objects.get(f"b{n}") or {}
            text = blob.get("text")
            content = text.encode("utf-8") if isinstance(text, str) and not blob.get("isTruncated") else None
            if content is not None and git_blob_id(content) == sha:
                self.cache.keep_blob(sha, content)
                into.hold(sha, content)
            else:
                leftovers.append(sha)  # binary, truncated, or text that is not the exact bytes
        return leftovers

    async def _rest_blob(self, sha: str, into: GitHubSnapshot) -> None:
        blob = await self.gh.getitem(
            "/repos/{owner}/{repo}/git/blobs/{sha}", url_vars={"owner": self.owner, "repo": self.name, "sha": sha}
        )
        content = base64.b64decode(blob["content"]) if blob.get("encoding") == "base64" else blob["content"].encode()
        if git_blob_id(content) != sha:
            raise RuntimeError(f"blob {sha} of {self.full_name} came back with other content")
        self.cache.keep_blob(sha, content)
        into.hold(sha, content)

    async def change(
        self, base: str, head: Snapshot, *, merge_base: bool = False, label: str | None = None
    ) -> Change | None:
        """The change from `base` to `head`; None (every claim is checked) when GitHub no longer knows the
        base commit (a force-push dropped it)."""
        assert head.commit is not None
        try:
            start, files = await self.changes(base, head.commit, merge_base=merge_base)
        except BadRequest as exc:
            if int(exc.status_code) != 404:
                raise
            log.warning("base commit unknown to GitHub; checking every claim", extra={"repo": self.full_name})
            return None
        return Change(await self.snapshot(start, label=commit_label(label or base, start)), files)

    async def changes(self, base: str, head: str, *, merge_base: bool) -> tuple[str, tuple[FileChange, ...]]:
        """The files that differ, and the commit they differ from.

        `merge_base=True` is GitHub's three-dot comparison (a pull request, a branch's own commits): the
        change from the merge base of `base` and `head`. Otherwise (a force-push) the trees of the two
        commits are compared directly. Past compare's 300-file cap the trees are compared as well, with
        renames found by identical content.
        """
        if merge_base:
            compared = await self.gh.getitem(
                "/repos/{owner}/{repo}/compare/{basehead}",
                url_vars={"owner": self.owner, "repo": self.name, "basehead": f"{base}...{head}"},
            )
            start = compared["merge_base_commit"]["sha"]
            files = compared.get("files")
            if files is not None and len(files) < COMPARE_FILE_CAP:
                return start, tuple(_from_compare(files))
            return start, await self.tree_changes(start, head)
        return base, await self.tree_changes(base, head)

    async def tree_changes(self, base: str, head: str) -> tuple[FileChange, ...]:
        old, new = await asyncio.gather(self.tree(base), self.tree(head))
        return tree_diff(old, new)


def _from_compare(files: list[dict[str, Any]]) -> Iterator[FileChange]:
    for item in files:
        status, name = item["status"], item["filename"]
        if status in ("added", "copied"):
            yield FileChange(None, name)
        elif status == "removed":
            yield FileChange(name, None)
        elif status == "renamed":
            yield FileChange(item.get("previous_filename") or name, name)
        elif status != "unchanged":
            yield FileChange(name, name)


def tree_diff(old: dict[str, TreeEntry], new: dict[str, TreeEntry]) -> tuple[FileChange, ...]:
    """Changed paths between two tree listings; a removed and an added file with the same blob are a rename."""
    changes = [
        FileChange(p, p) for p in old.keys() & new.keys() if (old[p].sha, old[p].mode) != (new[p].sha, new[p].mode)
    ]
    removed = sorted(old.keys() - new.keys())
    added = sorted(new.keys() - old.keys())
    by_sha: dict[str, list[str]] = {}
    for path in added:
        by_sha.setdefault(new[path].sha, []).append(path)
    renamed_to: set[str] = set()
    for path in removed:
        targets = by_sha.get(old[path].sha, [])
        target = next((t for t in targets if t not in renamed_to), None)
        if target is not None:
            renamed_to.add(target)
            changes.append(FileChange(path, target))
        else:
            changes.append(FileChange(path, None))
    changes.extend(FileChange(None, p) for p in added if p not in renamed_to)
    return tuple(sorted(changes, key=lambda c: c.new_path or c.old_path or ""))
