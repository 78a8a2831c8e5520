"""A local repository as the use cases' `Source` (`LocalSource`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from ...claims.snapshot import Change, Snapshot
from .repository import GitRepository
from .snapshots import IndexSnapshot
from .worktree import WorktreeSnapshot


class LocalSource:
    """A local repository as the use cases' `Source`: reading is local and cheap, so a fetch is only a hint
    to read many files in one batch."""

    def __init__(self, repo: GitRepository) -> None:
        self.repo = repo

    async def snapshot(self, rev: str | None = None, label: str | None = None) -> Snapshot:
        return self.repo.snapshot(rev, label) if rev is not None else self.repo.worktree()

    async def change(
        self, base: str, head: Snapshot, *, merge_base: bool = False, label: str | None = None
    ) -> Change | None:
        """The change from `base` to `head` (a commit, the index or the working tree); `merge_base` starts it
        where the two histories met, as a pull request's change does."""
        start = base
        if merge_base:
            start = self.repo.git("merge-base", "--end-of-options", base, head.commit or "HEAD").decode().strip()
        return self.repo.change(start, head.commit, label or base, staged=isinstance(head, IndexSnapshot))

    async def renames(self, change: Change, deleted: Collection[str]) -> Change:
        return self.repo.renames(change, deleted)

    async def fetch(self, snapshot: Snapshot, paths: Iterable[str]) -> None:
        snapshot.prefetch(paths)

    async def ever_committed(self, snapshot: Snapshot, paths: Sequence[str]) -> set[str] | None:
        return self.repo.ever_committed(snapshot.commit, paths)

    def files(self, snapshot: Snapshot) -> list[str]:
        if snapshot.commit is not None:
            return list(self.repo.tree(snapshot.commit))
        if isinstance(snapshot, IndexSnapshot):
            return snapshot.paths()
        if isinstance(snapshot, WorktreeSnapshot) and (listed := snapshot.paths()) is not None:
            return listed
        tracked = self.repo.git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
        return [p.decode("utf-8", "surrogateescape") for p in tracked.split(b"\0") if p]
