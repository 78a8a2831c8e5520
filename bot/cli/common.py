"""What the commands share: their errors and exit statuses, the repository and the settings they name, and how
they write to stdout."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..claims.options import SweepOptions
from ..claims.pages import normalize_wiki_dir
from ..report.wording import one_line

if TYPE_CHECKING:
    from ..source.git import GitRepository
    from ..usecases.config import Overrides

EXIT_OK, EXIT_ATTENTION, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or a repository that cannot be used: exit status 2. Raised with several problems (every bad
    setting of `serve`), each is printed on a line of its own."""


def write_json(document: object) -> None:
    """A command's JSON document on stdout: UTF-8 whatever the locale, straight to the binary stream (a full sweep's
    report is hundreds of megabytes: no copy through `str`)."""
    from ..report.jsonout import dumps_bytes  # noqa: PLC0415  (orjson: only where JSON is written)

    write_bytes((dumps_bytes(document),))


def write_bytes(chunks: Iterable[bytes | memoryview]) -> None:
    """Chunks of UTF-8 as they come: a report written a page at a time is never held whole."""
    buffer = getattr(sys.stdout, "buffer", None)
    sys.stdout.flush()
    for chunk in chunks:
        if buffer is None:  # a text-only stream (a test's StringIO)
            sys.stdout.write(str(chunk, "utf-8"))
        else:
            buffer.write(chunk)
    if buffer is not None:
        buffer.flush()


def open_repo(args: argparse.Namespace, path: str | Path | None = None) -> GitRepository:
    from ..source.git import GitError, GitRepository  # noqa: PLC0415

    try:
        return GitRepository(path if path is not None else args.repo)
    except GitError as exc:
        raise UsageError(str(exc)) from exc


def wiki_dir_of(given: str, root: Path) -> str:
    """`--wiki-dir` as a folder of the repository: relative to its top, or an absolute path inside it."""
    if os.path.isabs(given):
        absolute = os.path.abspath(given)
        # The folders above it resolved (the repository's own path may run through a symlink), not the folder
        # itself: a symlinked wiki must be seen as one.
        path = Path(os.path.realpath(os.path.dirname(absolute))) / os.path.basename(absolute)
        try:
            given = path.relative_to(root.resolve()).as_posix()
        except ValueError:
            raise UsageError(f"--wiki-dir {given} is outside the repository {root}") from None
    try:
        return normalize_wiki_dir(given)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def overrides_of(args: argparse.Namespace, repo: GitRepository) -> Overrides:
    """What the command line says over `.github/wikiwarden.yml`."""
    from ..usecases.config import Overrides  # noqa: PLC0415

    size = getattr(args, "max_file_size", None)
    if size is not None and size <= 0:
        raise UsageError("--max-file-size must be a positive number of bytes")
    wiki_dir = wiki_dir_of(args.wiki_dir, repo.root) if args.wiki_dir is not None else None
    baseline = getattr(args, "baseline", None)
    if baseline is not None:
        baseline = repo_file(baseline, repo.root, "--baseline")
    return Overrides(wiki_dir=wiki_dir, max_file_bytes=size, baseline=baseline)


def repo_file(given: str, root: Path, flag: str) -> str:
    """A file named on the command line as a path of the repository (relative to its top, or absolute in it)."""
    from ..claims.pages import normalize_repo_path  # noqa: PLC0415

    if os.path.isabs(given):
        try:
            given = Path(os.path.abspath(given)).relative_to(root.resolve()).as_posix()
        except ValueError:
            raise UsageError(f"{flag} {given} is outside the repository {root}") from None
    try:
        return normalize_repo_path(given)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def sweep_options(args: argparse.Namespace, repo: GitRepository) -> SweepOptions:
    """The sweep's options: the command line's over the working tree's `.github/wikiwarden.yml`."""
    from ..usecases.config import read_local_config  # noqa: PLC0415

    return read_local_config(repo, overrides_of(args, repo)).sweep_options(getattr(args, "all", False))


def warn(message: str) -> None:
    print(f"wikiwarden: {one_line(message)}", file=sys.stderr)
