"""Adapters that produce file contents at a commit: a local git repository, or the GitHub API.

Both implement `Source`, the one interface the use cases (`bot/usecases/`) are written against: snapshots
of a commit (or of the working tree), the change between two commits, and file contents brought in on
demand before the pure core reads them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Protocol

from ..claims.snapshot import Change, Snapshot


class Source(Protocol):
    """A repository the use cases can read, wherever it lives."""

    async def snapshot(self, rev: str | None = None, label: str | None = None) -> Snapshot:
        """The files at commit `rev`; `None` is the working tree where the source has one (else its head)."""
        ...

    async def change(
        self, base: str, head: Snapshot, *, merge_base: bool = False, label: str | None = None
    ) -> Change | None:
        """The change from commit `base` to `head` (from their merge base when `merge_base`); None when the
        base is unknown to the source (every claim is checked then)."""
        ...

    async def renames(self, change: Change, deleted: Collection[str]) -> Change:
        """`change` with renames looked for from the files of `deleted` (files a wiki cites) that it shows deleted,
        where the source left them unlooked for (a local partial clone lacking their blobs, which it fetches now);
        else `change` itself."""
        ...

    async def fetch(self, snapshot: Snapshot, paths: Iterable[str]) -> None:
        """Bring the contents of `paths` in, so the core can read them without waiting on I/O."""
        ...

    def files(self, snapshot: Snapshot) -> list[str]:
        """Every file path of the snapshot (what the fix's search tool may look through)."""
        ...

    async def ever_committed(self, snapshot: Snapshot, paths: Sequence[str]) -> set[str] | None:
        """Of `paths`, those some commit of the snapshot's history held (for a working tree or index, HEAD's
        history); None when the source cannot tell. Tells a file a program makes at run time, never committed,
        from one a change removed."""
        ...
