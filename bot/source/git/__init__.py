"""A local git repository as snapshots for the sweep, read without a checkout.

Blobs come through one long-lived `git cat-file --batch` process (never a process per file), cached
by blob id, and their sizes through one `--batch-check` process; trees come from `git ls-tree` without
sizes, so listing a tree reads no blob (in a partial clone, `--long` would fetch every one). Only what the
wiki cites is read, and a blob the object store lacks is an error on the claims citing it. Changes come
from `git diff -M` (git's rename detection; in a partial clone, without reading a blob it lacks: `_diff`). The
working tree is a snapshot too, read as git would store it (its clean conversions: `WorktreeSnapshot`), so
uncommitted changes can be checked before they are committed, and so is git's index, so a pre-commit hook checks
what the commit will hold (staged edits, not unstaged ones).

The package's modules, from the bottom: `process` (git's commands, the cat-file processes and their fork safety),
`diff` (tree entries, diffed files, exact renames), `snapshots` (a commit's tree, the index), `worktree` (the working
tree), `repository` (`GitRepository`) and `local` (`LocalSource`, the use cases' `Source`).
"""

from .diff import DiffedFile, TreeEntry, base_listing
from .local import LocalSource
from .process import GitError, MissingObjectError
from .repository import SHALLOW_HISTORY, GitRepository
from .snapshots import CommitSnapshot, IndexSnapshot, ObjectStore
from .worktree import WorktreeSnapshot

__all__ = [
    "SHALLOW_HISTORY",
    "CommitSnapshot",
    "DiffedFile",
    "GitError",
    "GitRepository",
    "IndexSnapshot",
    "LocalSource",
    "MissingObjectError",
    "ObjectStore",
    "TreeEntry",
    "WorktreeSnapshot",
    "base_listing",
]
