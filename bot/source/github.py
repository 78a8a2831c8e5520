"""A repository on GitHub as snapshots for the sweep: trees, file contents and changes over the API.

Contents are cached by blob sha across jobs, so a file that did not change is never fetched twice; many
files come in one GraphQL request, and each is checked against its git blob id (so the bytes hashed are
exactly git's), with the REST blob endpoint as the fallback. The sweep is synchronous and pure: a snapshot
that lacks a file raises NeedFiles, the driver fetches what is missing in a batch and runs it again.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from cachetools import LRUCache

from ..claims.results import SweepReport
from ..claims.snapshot import Entry, Kind
from ..claims.sweep import Change, FileChange, SweepOptions, sweep
from ..github.client import GitHubClient

COMPARE_FILE_CAP = 300  # GitHub lists at most 300 files of a comparison
GRAPHQL_BATCH_OBJECTS = 100
GRAPHQL_BATCH_BYTES = 4 << 20
_MODES = {"100644": Kind.FILE, "100755": Kind.FILE, "120000": Kind.SYMLINK, "160000": Kind.OTHER}


class NeedFiles(Exception):
    """The sweep needs files that are not fetched yet (the driver fetches them and runs it again)."""

    def __init__(self, snapshot: GitHubSnapshot, paths: Sequence[str]) -> None:
        super().__init__(f"{len(paths)} files of {snapshot.label} are not fetched yet")
        self.snapshot = snapshot
        self.paths = list(paths)


def git_blob_id(data: bytes) -> str:
    """git's object id of a blob, to check that fetched text is byte-for-byte the file."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True, slots=True)
class TreeEntry:
    mode: str
    sha: str
    size: int | None

    @property
    def kind(self) -> Kind:
        return _MODES.get(self.mode, Kind.OTHER)


class SourceCache:
    """What the process keeps between jobs: blobs by sha, trees by commit (both never change)."""

    def __init__(self, blob_bytes: int = 256 << 20, trees: int = 64) -> None:
        self.blobs: LRUCache[str, bytes] = LRUCache(maxsize=blob_bytes, getsizeof=len)
        self.trees: LRUCache[str, dict[str, TreeEntry]] = LRUCache(maxsize=trees)
        self.fetched_blobs = 0  # files fetched from GitHub since start (for metrics and the benchmark)

    def keep_blob(self, sha: str, data: bytes) -> None:
        self.fetched_blobs += 1
        if len(data) <= self.blobs.maxsize // 8:  # one huge file must not evict everything else
            self.blobs[sha] = data


class GitHubSnapshot:
    """A commit of a GitHub repository, read from the tree listing and the blob cache."""

    def __init__(self, repo: GitHubRepo, commit: str, tree: dict[str, TreeEntry], label: str) -> None:
        self.repo = repo
        self.commit = commit
        self.tree = tree
        self.label = label
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
        data = self.repo.cache.blobs.get(sha)
        if data is None:
            raise NeedFiles(self, [path])
        return data

    def missing(self, paths: Iterable[str]) -> list[str]:
        limit = self.repo.max_file_bytes
        return [
            p
            for p in paths
            if (e := self.tree.get(p)) is not None
            and e.kind is Kind.FILE
            and (e.size is None or e.size <= limit)
            and e.sha not in self.repo.cache.blobs
        ]

    def prefetch(self, paths: Iterable[str]) -> None:
        missing = self.missing(paths)
        if missing:
            raise NeedFiles(self, missing)

    def walk(self, top: str) -> Iterator[tuple[str, Entry]]:
        prefix = top.rstrip("/") + "/"
        for path, found in self.tree.items():
            if path.startswith(prefix) and not self._under_symlink(path):
                yield path, Entry(found.kind, found.size)


class GitHubRepo:
    """One repository, seen by one job through one installation's client."""

    def __init__(
        self, gh: GitHubClient, full_name: str, graphql_url: str, cache: SourceCache, max_file_bytes: int
    ) -> None:
        self.gh = gh
        self.owner, self.name = full_name.split("/", 1)
        self.full_name = full_name
        self.graphql_url = graphql_url
        self.cache = cache
        self.max_file_bytes = max_file_bytes

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

    async def snapshot(self, commit: str, label: str | None = None) -> GitHubSnapshot:
        return GitHubSnapshot(self, commit, await self.tree(commit), label or commit)

    async def fetch(self, snapshot: GitHubSnapshot, paths: Iterable[str]) -> None:
        """Bring the contents of `paths` into the cache: GraphQL batches, REST for what GraphQL cannot give."""
        wanted = {snapshot.tree[p].sha: snapshot.tree[p].size or 0 for p in snapshot.missing(paths)}
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
                leftovers.extend(await self._graphql_blobs(batch))
        for sha in leftovers:
            await self._rest_blob(sha)

    async def _graphql_blobs(self, shas: list[str]) -> list[str]:
        fields = " ".join(
            f'b{n}: object(oid: "{sha}") {{ ... on Blob {{ oid isBinary isTruncated text }} }}'
            for n, sha in enumerate(shas)
        )
        query = f"query($owner: String!, $name: String!) {{ repository(owner: $owner, name: $name) {{ {fields} }} }}"
        data = await self.gh.graphql_query(query, endpoint=self.graphql_url, owner=self.owner, name=self.name)
        objects = (data or {}).get("repository") or {}
        leftovers = []
        for n, sha in enumerate(shas):
            blob = objects.get(f"b{n}")
            text = blob.get("text") if blob else None
            content = text.encode("utf-8") if isinstance(text, str) and not blob.get("isTruncated") else None
            if content is not None and git_blob_id(content) == sha:
                self.cache.keep_blob(sha, content)
            else:
                leftovers.append(sha)  # binary, truncated, or text that is not the exact bytes
        return leftovers

    async def _rest_blob(self, sha: str) -> None:
        blob = await self.gh.getitem(
            "/repos/{owner}/{repo}/git/blobs/{sha}", url_vars={"owner": self.owner, "repo": self.name, "sha": sha}
        )
        content = base64.b64decode(blob["content"]) if blob.get("encoding") == "base64" else blob["content"].encode()
        if git_blob_id(content) != sha:
            raise RuntimeError(f"blob {sha} of {self.full_name} came back with other content")
        self.cache.keep_blob(sha, content)

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


def _from_compare(files: list[dict]) -> Iterator[FileChange]:
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


async def sweep_github(
    repo: GitHubRepo, head: GitHubSnapshot, change: Change | None, options: SweepOptions, max_rounds: int = 6
) -> SweepReport:
    """Run the pure sweep on GitHub snapshots, fetching in batches whatever it asks for."""
    wiki_files = [p for p in head.tree if p.startswith(f"{options.wiki_dir}/.claims/") or p == ".openwikiignore"]
    await repo.fetch(head, wiki_files)
    for _ in range(max_rounds):
        try:
            return await asyncio.to_thread(sweep, head, change, options)
        except NeedFiles as need:
            await repo.fetch(need.snapshot, need.paths)
    raise RuntimeError(f"the sweep of {repo.full_name} kept needing files after {max_rounds} rounds")
