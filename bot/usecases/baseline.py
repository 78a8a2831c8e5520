"""The baseline a repository's settings name (`baseline:`, or `check --baseline`), read one way for every face: the
check and the fix (the command line, the Action, the App) read what it holds, and every other command that reads
the settings refuses one that cannot be used alike, whether it uses it or not."""

from __future__ import annotations

from ..claims.snapshot import Kind, Snapshot
from ..ground.baseline import MAX_BASELINE_BYTES, BaselineError, parse_baseline
from ..source import Source


async def read_baseline(source: Source, head: Snapshot, path: str) -> frozenset[tuple[str, str, str]]:
    """The references the baseline at `path` holds, read at `head` (the commit or tree being checked);
    BaselineError when it cannot be used: missing, not a regular file (a folder, a symlink), too large (refused
    from the listing, before anything is read), or not a baseline."""
    entry = head.entry(path)
    if entry is None or entry.kind is not Kind.FILE:
        what = "does not exist" if entry is None else "is not a regular file"
        where = head.label if head.commit is not None else f"the {head.label}"  # the working tree, the index
        raise BaselineError(
            f"the baseline {path} {what} in {where}: write one with `wikiwarden check --write-baseline {path}`"
        )
    if entry.size is not None and entry.size > MAX_BASELINE_BYTES:
        raise BaselineError(f"{path}: {entry.size:,} bytes; a baseline may hold at most {MAX_BASELINE_BYTES:,}")
    await source.fetch(head, [path])
    return parse_baseline(head.read(path), path)
