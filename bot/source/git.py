"""A local git repository as snapshots for the sweep, read without a checkout.

Blobs come through one long-lived `git cat-file --batch` process (never a process per file), cached
by blob id, and their sizes through one `--batch-check` process; trees come from `git ls-tree` without
sizes, so listing a tree reads no blob (in a partial clone, `--long` would fetch every one). Only what the
wiki cites is read, and a blob the object store lacks is an error on the claims citing it. Changes come
from `git diff -M` (git's rename detection; in a partial clone, without reading a blob it lacks: `_diff`). The
working tree is a snapshot too, read as git would store it (its clean conversions: `WorktreeSnapshot`), so
uncommitted changes can be checked before they are committed, and so is git's index, so a pre-commit hook checks
what the commit will hold (staged edits, not unstaged ones).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import subprocess
import sys
import threading
import weakref
from collections import deque
from collections.abc import Collection, Iterable, Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from cachetools import LRUCache

from ..claims.errors import UnreadableFileError
from ..claims.snapshot import Change, Entry, FileChange, Kind, Snapshot, commit_label, git_blob_id

if TYPE_CHECKING:
    from . import gitclean

_BLOB_CACHE_BYTES = 256 << 20
_PIPELINE = 64  # requests in flight on the cat-file pipe
_PIPE_BYTES = 1 << 20  # cat-file's output pipe: Linux's largest for an unprivileged process (64 KiB by default)
# The empty blob's id (SHA-1 and SHA-256 repositories): `git add -N` records it as a placeholder in the index.
_EMPTY_BLOBS = frozenset(
    ("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813")
)
SHALLOW_HISTORY = (
    "this clone's history is shallow, so older commits are not in it; fetch more of it (`git fetch --deepen=100`, "
    "or `git fetch --unshallow`; on GitHub Actions, `fetch-depth: 0` for actions/checkout)"
)


class GitError(Exception):
    """A git command failed, or the path is not a repository; the message says which and why."""


class MissingObjectError(GitError, UnreadableFileError):
    """A blob the tree names but the object store lacks, and could not fetch (a partial clone whose remote is
    out of reach, a trimmed mirror)."""


def _git(cwd: Path, *args: str, input: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    if done.returncode != 0:
        # One line: git's stderr can run to several (a failed fetch of a partial clone's remote explains itself).
        message = " ".join(done.stderr.decode("utf-8", "replace").split())[:500] or f"exit status {done.returncode}"
        raise GitError(f"git {args[0]} failed: {message}")
    return done.stdout


def _git_side_by_side(cwd: Path, *commands: tuple[str, ...], exit_ok: Iterable[int] = ()) -> list[bytes]:
    """The output of each git command, the commands run side by side (their start-up costs overlap); GitError as
    `_git` raises it, but for the exit statuses `exit_ok` allows (besides 0)."""
    allowed = {0, *exit_ok}
    try:
        pipe = subprocess.PIPE
        running = [
            subprocess.Popen(["git", *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=pipe, stderr=pipe)
            for args in commands
        ]
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    answers = [process.communicate() for process in running]  # every one waited for, even when one failed
    for args, process, (_, err) in zip(commands, running, answers, strict=True):
        if process.returncode not in allowed:
            message = " ".join(err.decode("utf-8", "replace").split())[:500] or f"exit status {process.returncode}"
            raise GitError(f"git {args[0]} failed: {message}")
    return [out for out, _ in answers]


_SYMLINK_MODE = "120000"
# What a change is: full ids and modes at both ends, no user diff drivers, submodules always listed (renames: `_diff`).
_PATHSPECS_PER_LOG = 200  # paths one `git log` is limited to (a command line stays short)
_PATHSPEC_BYTES = 100_000  # the pathspecs of one `git diff` looking for renames (far below any system's limit)
_DIFF_RAW = ("diff", "--raw", "-z", "--no-abbrev", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none")
_LS_TREE_RECORD = re.compile(r"([0-7]+) [a-z]+ ([0-9a-f]+)\t([^\0]*)\0")  # `ls-tree -z`: mode, type, id, path


class TreeEntry(NamedTuple):
    """A path of a tree or of the index (a tuple: a listing holds one per file of the repository)."""

    mode: str
    oid: str

    @property
    def kind(self) -> Kind:
        if self.mode == _SYMLINK_MODE:
            return Kind.SYMLINK
        if self.mode in ("100644", "100755"):
            return Kind.FILE
        return Kind.OTHER  # 160000: a submodule


class _CatFile:
    """One `git cat-file --batch` (contents) or `--batch-check` (sizes) process: requests are queued (`ask`) and
    answered in order (`answer`), a bounded number in flight, so git reads the next object while the caller works
    on the last one.

    In a partial clone git fetches a missing blob when it is asked for; when that fetch fails, the process
    exits. The object it was answering is then missing, and a new process takes the rest of the requests.
    """

    def __init__(self, root: Path, *, contents: bool) -> None:
        self._root = root
        self._args = ["git", "cat-file", "--batch" if contents else "--batch-check"]
        self._contents = contents
        self._lock = threading.Lock()
        self._sent: deque[str] = deque()  # asked of the process, answers not read yet, oldest first
        self._waiting: deque[str] = deque()  # to be asked once fewer are in flight
        self._process = self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            self._args,
            cwd=self._root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},  # a lazy fetch must never wait for a password
        )
        if self._contents and sys.platform == "linux" and process.stdout is not None:
            import fcntl  # noqa: PLC0415 - Linux only: elsewhere the pipe keeps its size

            with contextlib.suppress(OSError):  # room for git to read ahead a few objects (best effort)
                fcntl.fcntl(process.stdout.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        return process

    def read(self, names: list[str]) -> list[tuple[int, bytes] | None]:
        """(size, contents) of each object name (contents empty for `--batch-check`); None for a missing one. Only
        for a process nothing was asked of ahead (the sizes')."""
        with self._lock:
            assert not self._sent and not self._waiting, "answers asked ahead would come first"
        self.ask(names)
        return [self.answer()[1] for _ in names]

    def ask(self, names: Iterable[str]) -> None:
        """Queue requests for these object names; `answer` gives their answers in this order."""
        with self._lock:
            self._waiting.extend(names)
            self._send()

    @property
    def asked(self) -> int:
        """How many answers are still to be read."""
        return len(self._sent) + len(self._waiting)

    def _send(self) -> None:
        """Top the requests in flight up to `_PIPELINE`, in batches (a full stdin pipe while git waits for its full
        stdout to be read would block both)."""
        if len(self._sent) > _PIPELINE // 2 or not self._waiting:
            return
        batch = [self._waiting.popleft() for _ in range(min(len(self._waiting), _PIPELINE - len(self._sent)))]
        self._sent.extend(batch)
        stdin = self._process.stdin
        assert stdin is not None
        with contextlib.suppress(BrokenPipeError):  # it ended while reading them: `answer` finds out
            stdin.write(b"".join(name.encode() + b"\n" for name in batch))
            stdin.flush()

    def answer(self) -> tuple[str, tuple[int, bytes] | None]:
        """The oldest request not answered yet, and its (size, contents), None for an object that cannot be had."""
        with self._lock:
            if not self._sent:
                self._send()
            name = self._sent.popleft()
            stdout = self._process.stdout
            assert stdout is not None
            header = stdout.readline()
            answer: tuple[int, bytes] | None = None
            ended = not header
            if not ended and len(fields := header.split()) == 3:  # else "<name> missing" or "<name> ambiguous"
                size, data = int(fields[2]), b""
                if self._contents:
                    data = stdout.read(size)
                    ended = len(data) < size or not stdout.read(1)  # the newline after the contents
                answer = None if ended else (size, data)
            if ended:  # the process died on this object: it cannot be had, and the rest are asked again
                self._waiting.extendleft(reversed(self._sent))
                self._sent.clear()
                self._stop()
                self._process = self._start()
            self._send()
            return name, answer

    def _stop(self, *, wait: bool = True) -> None:
        stdin, stdout = self._process.stdin, self._process.stdout
        with contextlib.suppress(BrokenPipeError):  # it may have ended already
            if stdin is not None:
                stdin.close()
        if stdout is not None:
            stdout.close()  # answers never read: git, writing them, ends on a broken pipe instead of waiting
        if wait:
            self.reap()

    def reap(self) -> None:
        """Wait for the process to end (told to by `close`); killed if it has not within 5 s."""
        if self._process.poll() is None:
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def close(self, *, wait: bool = True) -> None:
        """Tell the process to end (its input closed), and unless not to `wait`, wait for it (`reap`)."""
        with self._lock:
            self._sent.clear()
            self._waiting.clear()
            self._stop(wait=wait)


_OPEN: weakref.WeakSet[GitRepository] = weakref.WeakSet()


def _forget_pipes_in_child() -> None:
    for repository in list(_OPEN):
        repository._forget_pipes()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pipes_in_child)


_WHERE = ("rev-parse", "--is-bare-repository", "--show-toplevel", "--git-common-dir")


class GitRepository:
    """A local repository: commits resolved, trees listed, blobs read once and cached by blob id."""

    def __init__(self, path: str | os.PathLike[str] = ".") -> None:
        start = Path(path)
        if not start.is_dir():
            raise GitError(f"{start} is not a directory")
        try:  # one git for the common case; when it fails, one question at a time says why
            bare, top, common = _git(start, *_WHERE).decode().splitlines()
        except (GitError, ValueError):
            bare, top, common = self._where_step_by_step(start), "", ""
        if bare == "true":
            raise GitError(f"{start} is a bare repository; a working tree is needed")
        if not top:
            try:
                top = _git(start, "rev-parse", "--show-toplevel").decode().strip()
            except GitError as exc:  # inside .git, for instance
                raise GitError(f"{start} is not inside the working tree of a git repository") from exc
        self.root = Path(top)
        self._common_dir = (start / common).absolute() if common else None  # git says it relative to where it ran
        self._cat: _CatFile | None = None  # contents
        self._check: _CatFile | None = None  # sizes
        self._blobs: LRUCache[str, bytes] = LRUCache(maxsize=_BLOB_CACHE_BYTES, getsizeof=len)
        self._sizes: dict[str, int | None] = {}  # None: the object store lacks the blob
        self._asked: set[str] = set()  # blobs asked of `_cat` ahead, answers not taken yet
        self._reading = threading.Lock()  # one reader of `_cat`'s answers at a time
        self._trees: dict[str, dict[str, TreeEntry]] = {}
        self._commits: set[str] = set()  # full commit ids `resolve` gave
        self._diffed: dict[str, tuple[str, tuple[DiffedFile, ...]]] = {}  # base commit → (head commit, raw diff)
        self._partial: bool | None = None  # a partial clone (`is_partial`)
        # diffs whose renames are only the exact ones (a partial clone lacking a blob: `_diff`), by (base, head,
        # staged); and the changes made of them, by id (the change kept, so its id names it)
        self._exact_only: dict[tuple[str, str | None, bool], tuple[DiffedFile, ...]] = {}
        self._unpaired: dict[int, tuple[Change, tuple[str, str | None, bool]]] = {}
        _OPEN.add(self)

    @staticmethod
    def _where_step_by_step(start: Path) -> str:
        """Whether `start` is in a bare repository ("true" or "false"); GitError when it is in none."""
        try:
            return _git(start, "rev-parse", "--is-bare-repository").decode().strip()
        except GitError as exc:
            raise GitError(f"{start} is not inside a git repository") from exc

    def _forget_pipes(self) -> None:
        """In a forked child: the cat-file processes are the parent's (a request from both would mix their
        answers), so the child starts its own when it needs one, and leaves the parent's alone."""
        self._cat = self._check = None
        self._asked = set()
        self._reading = threading.Lock()  # the parent's may have been held by another of its threads

    def _contents(self) -> _CatFile:
        if self._cat is None:
            self._cat = _CatFile(self.root, contents=True)
        return self._cat

    def __enter__(self) -> GitRepository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._reading:
            processes = [process for process in (self._cat, self._check) if process is not None]
            for process in processes:  # both told to end before either is waited for: they end side by side
                process.close(wait=False)
            for process in processes:
                process.reap()
            self._cat = self._check = None
            self._asked.clear()

    def git(self, *args: str) -> bytes:
        return _git(self.root, *args)

    def resolve(self, rev: str) -> str:
        """The full commit id of `rev`; GitError with a clear message when it names no commit."""
        if rev in self._commits:
            return rev  # a commit id it gave: it names that commit for good
        if rev.startswith("-"):
            raise GitError(f"not a revision: {rev!r}")
        try:
            commit = (
                self.git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}").decode().strip()
            )
        except GitError as exc:
            message = f"{rev!r} does not name a commit in {self.root}"
            raise GitError(f"{message}: {SHALLOW_HISTORY}" if self.is_shallow() else message) from exc
        self._commits.add(commit)
        return commit

    def common_dir(self) -> Path:
        """The repository's git directory shared by all its worktrees (`.git` of the main one)."""
        if self._common_dir is None:
            self._common_dir = self.root / self.git("rev-parse", "--git-common-dir").decode().strip()
        return self._common_dir

    def is_shallow(self) -> bool:
        """Whether this clone's history was cut (`git clone --depth`): older commits are then simply absent."""
        return self.git("rev-parse", "--is-shallow-repository").strip() == b"true"

    def tree(self, commit: str) -> dict[str, TreeEntry]:
        """Every file, symlink and submodule of a commit's tree, by path (cached by commit id). Sizes are not
        listed: that would read every blob, and a partial clone would fetch them all (`sizes` asks for some)."""
        listing = self._trees.get(commit)  # a snapshot's commit id: known already, no need to resolve it again
        if listing is not None:
            return listing
        commit = self.resolve(commit)
        listing = self._trees.get(commit)
        if listing is None:
            listing = self._derived_tree(commit)
        if listing is None:
            raw = self.git("ls-tree", "-r", "-z", "--full-tree", commit).decode("utf-8", "surrogateescape")
            new = tuple.__new__  # a listing holds an entry per file: a NamedTuple's own __new__ is Python code
            listing = {name: new(TreeEntry, (mode, oid)) for mode, oid, name in _LS_TREE_RECORD.findall(raw)}
        self._trees[commit] = listing
        return listing

    def _derived_tree(self, commit: str) -> dict[str, TreeEntry] | None:
        """The listing of a change's base commit from its head's listing and the change's raw diff, when the head's
        is known and the base was diffed with it: what `ls-tree` would give, without listing a second tree."""
        known = self._diffed.get(commit)
        if known is None or known[0] not in self._trees:
            return None
        return base_listing(self._trees[known[0]], known[1])

    def index(self) -> dict[str, TreeEntry]:
        """Every file, symlink and submodule of git's index (the one GIT_INDEX_FILE names, as `git commit -a` sets
        for its hooks), by path: what a commit would record now. Read afresh at each call, since staging changes it.

        An entry added with `git add -N` is left out, as a commit leaves it out; unmerged paths (a conflict in
        progress) are a GitError, since nothing is staged for them until the conflict is resolved.
        """
        listing: dict[str, TreeEntry] = {}
        unmerged: list[str] = []
        for record in self.git("ls-files", "--stage", "-z").split(b"\0"):
            if not record:
                continue
            meta, _, name = record.partition(b"\t")
            mode, oid, stage = meta.split()
            path = name.decode("utf-8", "surrogateescape")
            if stage != b"0":
                unmerged.append(path)
            else:
                listing[path] = TreeEntry(mode.decode(), oid.decode())
        if unmerged:
            named = ", ".join(dict.fromkeys(unmerged[:5])) + (", …" if len(set(unmerged)) > 5 else "")
            raise GitError(f"the index has unmerged paths ({named}): resolve the conflict and stage the result first")
        if any(entry.oid in _EMPTY_BLOBS for entry in listing.values()):
            for path in self._intended_only():
                listing.pop(path, None)
        return listing

    def _intended_only(self) -> set[str]:
        """Paths added with `git add -N`: new in the index only when intent-to-add entries are made visible."""

        def added(*flags: str) -> set[str]:
            out = self.git("diff", "--cached", "--name-only", "-z", "--no-renames", "--diff-filter=A", *flags, "--")
            return {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}

        return added("--ita-visible-in-index") - added()

    def head_commit(self) -> str | None:
        """HEAD's commit id; None before the first commit (an unborn branch)."""
        try:
            return self.git("rev-parse", "--verify", "--quiet", "HEAD^{commit}").decode().strip()
        except GitError:
            return None

    def ever_committed(self, commit: str | None, paths: Sequence[str]) -> set[str]:
        """Of `paths`, those some commit of `commit`'s history held (HEAD's when None; none before the first
        commit): one `git log` over the history, limited to those paths, in batches of pathspecs."""
        start = commit or self.head_commit()
        if start is None or not paths:
            return set()
        found: set[str] = set()
        wanted = list(dict.fromkeys(paths))
        for at in range(0, len(wanted), _PATHSPECS_PER_LOG):
            specs = [f":(literal){p}" for p in wanted[at : at + _PATHSPECS_PER_LOG]]
            out = self.git("log", "--format=", "--name-only", "-z", "--no-renames", start, "--", *specs)
            found.update(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p.strip())
        return found & set(wanted)

    def sizes(self, oids: Iterable[str]) -> dict[str, int | None]:
        """Sizes by blob id, None for a blob the object store lacks; one pipelined `--batch-check` for what is not
        known yet (a partial clone fetches the blobs it lacks here, and only those)."""
        wanted = list(dict.fromkeys(oids))
        unknown = [oid for oid in wanted if oid not in self._sizes]
        if unknown:
            if self._check is None:
                self._check = _CatFile(self.root, contents=False)
            for oid, answer in zip(unknown, self._check.read(unknown), strict=True):
                self._sizes[oid] = answer[0] if answer is not None else None
        return {oid: self._sizes[oid] for oid in wanted}

    def read_ahead(self, oids: Iterable[str]) -> None:
        """Ask git for these blobs now, in this order: `read_blobs` takes each as git answers it, so the caller
        works on one while git reads the next (a sweep reads its sidecars and files in the order it asked)."""
        with self._reading:
            new = [
                oid
                for oid in dict.fromkeys(oids)
                if oid not in self._blobs and oid not in self._asked and self._sizes.get(oid, 0) is not None
            ]
            if new:
                self._contents().ask(new)
                self._asked.update(new)

    def read_blobs(self, oids: Iterable[str], *, strict: bool = True) -> dict[str, bytes]:
        """Contents by blob id, through the cache and one pipelined batch for what is not cached (after the answers
        to what was asked ahead). A blob the object store lacks raises MissingObjectError, or is left out when
        not `strict`."""
        with self._reading:
            wanted = list(dict.fromkeys(oids))
            found = {oid: data for oid in wanted if (data := self._blobs.get(oid)) is not None}
            missing = {oid for oid in wanted if oid not in found and self._sizes.get(oid, 0) is not None}
            asked_now = set(missing)
            if missing:
                cat = self._contents()
                new = [oid for oid in wanted if oid in missing and oid not in self._asked]
                cat.ask(new)
                self._asked.update(new)
                while missing:
                    oid, answer = cat.answer()
                    self._asked.discard(oid)
                    missing.discard(oid)
                    if answer is None:
                        self._sizes[oid] = None
                        continue
                    data = answer[1]
                    self._sizes[oid] = len(data)
                    if len(data) <= _BLOB_CACHE_BYTES // 8:  # a huge blob would evict everything else
                        self._blobs[oid] = data
                    if oid in asked_now:
                        found[oid] = data
        if strict:
            for oid in wanted:
                if oid not in found:
                    raise MissingObjectError(f"object {oid} is missing from {self.root}")
        return found

    def commits_touching(self, path: str, limit: int) -> list[str]:
        """The last `limit` commits of HEAD's history that changed `path`, newest first (none before a first
        commit)."""
        try:
            out = self.git("log", f"-n{limit}", "--format=%H", "HEAD", "--", path)
        except GitError:
            return []
        return out.decode().split()

    def snapshot(self, rev: str, label: str | None = None) -> CommitSnapshot:
        return CommitSnapshot(self, self.resolve(rev), label or rev)

    def worktree(self) -> WorktreeSnapshot:
        return WorktreeSnapshot(self.root, repo=self)

    def staged(self) -> IndexSnapshot:
        return IndexSnapshot(self)

    def change(self, base: str, head: str | None = None, label: str | None = None, *, staged: bool = False) -> Change:
        """The change from commit `base` to commit `head` (the working tree when None, the index when `staged`),
        with its base snapshot."""
        base_snapshot = self.snapshot(base, label)
        diffed = self._diff(base_snapshot.commit, head, staged=staged)
        if head is not None:
            self._diffed[base_snapshot.commit] = (head, diffed)
        change = Change(base_snapshot, self._file_changes(diffed, untracked=head is None and not staged))
        key = (base_snapshot.commit, head, staged)
        if key in self._exact_only:
            self._unpaired[id(change)] = (change, key)
        return change

    def renames(self, change: Change, deleted: Collection[str]) -> Change:
        """`change` with git's renames (`-M`) looked for from the files of `deleted` it shows deleted, when its diff
        found only the exact ones (a partial clone lacking a blob: `_diff`): git reads those files' blobs (fetching
        them: they are the ones the wiki cites) and the added files' (a sweep reads those anyway when a file it
        cites is touched), no other. `change` itself when there is nothing to look for, or the blobs cannot be had
        (the claims citing them are errors then)."""
        known = self._unpaired.get(id(change))
        if known is None or known[0] is not change:
            return change
        base, head, staged = key = known[1]
        listed = self._exact_only[key]
        gone = {f.old_path for f in listed if f.status == "D"} & set(deleted)
        added = [f.new_path for f in listed if f.status == "A"]
        specs = [f":(literal){path}" for path in (*sorted(gone), *added)]
        if not gone or not added or sum(len(spec) + 1 for spec in specs) > _PATHSPEC_BYTES:
            return change
        try:
            found = self._raw_diff(base, head, staged=staged, renames=True, paths=specs)
        except GitError:
            return change
        pairs = {f.old_path: f.new_path for f, _ in found if f.status == "R" and f.old_path in gone}
        if not pairs:
            return change
        targets = set(pairs.values())
        files = [
            FileChange(f.old_path, pairs[f.old_path]) if f.new_path is None and f.old_path in pairs else f
            for f in change.files
            if not (f.old_path is None and f.new_path in targets)
        ]
        return Change(change.base, tuple(files))

    def changes(self, base: str, head: str | None = None, *, staged: bool = False) -> tuple[FileChange, ...]:
        """Files that differ from commit `base` to commit `head`, or to the index when `staged`, or to the working
        tree when neither.

        Renames come from git's rename detection. Against the working tree, untracked files (not
        ignored) count as added, since code moved into a new file is part of the change; against the index,
        only what is staged counts, as only that will be committed.
        """
        return self._file_changes(self._diff(base, head, staged=staged), untracked=head is None and not staged)

    def _diff(self, base: str, head: str | None, *, staged: bool) -> tuple[DiffedFile, ...]:
        """`git diff --raw` from `base` (see `changes`): each file's status, paths and entry at the base.

        Renames are git's (`-M`), which reads the deleted and added files' blobs to compare them. In a partial
        clone a blob its object store lacks would be fetched for that, or, the remote out of reach, fail the whole
        diff: there the diff is listed without renames first (no blob read), and when a deleted or an added file's
        blob is missing, renames are only those git finds without reading a blob, files of identical content
        (`_exact_renames`); otherwise git's `-M` runs as everywhere else.
        """
        if staged and head is not None:
            raise ValueError("a change ends at a commit or at the index, not both")
        if not self.is_partial():
            return tuple(file for file, _ in self._raw_diff(base, head, staged=staged, renames=True))
        listed = self._raw_diff(base, head, staged=staged, renames=False)
        deleted = [file.old.oid for file, _ in listed if file.status == "D" and file.old is not None]
        added = [new.oid for file, new in listed if file.status == "A" and new is not None]
        if not deleted or not added:
            return tuple(file for file, _ in listed)  # nothing to pair
        if not self._lacks_any(base, head, deleted, added):
            return tuple(file for file, _ in self._raw_diff(base, head, staged=staged, renames=True))
        exact = self._exact_only[base, head, staged] = _exact_renames(listed)
        return exact

    def _raw_diff(
        self, base: str, head: str | None, *, staged: bool, renames: bool, paths: Sequence[str] = ()
    ) -> list[tuple[DiffedFile, TreeEntry | None]]:
        """Each file of `git diff --raw` (limited to the pathspecs `paths`, when given) with its entry at the head
        (None when deleted)."""
        args = [*_DIFF_RAW, "-M" if renames else "--no-renames"]
        if staged:
            args.append("--cached")
        args.append(base)
        if head is not None:
            args.append(head)
        fields = self.git(*args, "--", *paths).split(b"\0")
        diffed: list[tuple[DiffedFile, TreeEntry | None]] = []
        i = 0
        while i < len(fields) and fields[i]:
            old_mode, new_mode, old_oid, new_oid, status = fields[i][1:].decode().split(" ")
            if status[0] in "RC":
                old, new = fields[i + 1], fields[i + 2]
                i += 3
            else:
                old = new = fields[i + 1]
                i += 2
            entry = TreeEntry(old_mode, old_oid) if status[0] not in "AC" else None
            file = DiffedFile(
                status[0], old.decode("utf-8", "surrogateescape"), new.decode("utf-8", "surrogateescape"), entry
            )
            diffed.append((file, TreeEntry(new_mode, new_oid) if status[0] != "D" else None))
        return diffed

    def is_partial(self) -> bool:
        """Whether this is a partial clone (`git clone --filter`): its object store may lack blobs, fetched from
        a promisor remote when asked for. Told by the repository's config file (`extensions.partialClone`, or a
        remote's `promisor`), read once."""
        if self._partial is None:
            try:
                text = (self.common_dir() / "config").read_text("utf-8", "replace").lower()
            except OSError:
                text = ""
            self._partial = "partialclone" in text or "promisor" in text
        return self._partial

    def _lacks_any(self, base: str, head: str | None, deleted: list[str], added: list[str]) -> bool:
        """Whether the object store lacks one of these blobs, `deleted` at `base` and `added` at `head` (a commit;
        the index's or the working tree's are on disk): asked of `git rev-list --missing=print` over the trees,
        which fetches nothing."""
        base_tree = f"{self.resolve(base)}^{{tree}}"
        listing = ("rev-list", "--objects", "--missing=print", "--no-object-names")
        if head is None:
            outputs = [self.git(*listing, base_tree)]
        else:
            head_tree = f"{self.resolve(head)}^{{tree}}"
            commands = ((*listing, base_tree, f"^{head_tree}"), (*listing, head_tree, f"^{base_tree}"))
            outputs = _git_side_by_side(self.root, *commands)
        missing = {line[1:] for out in outputs for line in out.decode().split() if line.startswith("?")}
        return any(oid in missing for oid in deleted) or (head is not None and any(oid in missing for oid in added))

    def _file_changes(self, diffed: tuple[DiffedFile, ...], *, untracked: bool) -> tuple[FileChange, ...]:
        changes: list[FileChange] = []
        for file in diffed:
            if file.status in "AC":  # a copy's source is unchanged: only its new file is part of the change
                changes.append(FileChange(None, file.new_path))
            elif file.status == "D":
                changes.append(FileChange(file.old_path, None))
            else:
                changes.append(FileChange(file.old_path, file.new_path))
        if untracked:
            listed = self.git("ls-files", "-z", "--others", "--exclude-standard", "--full-name")
            changes.extend(FileChange(None, p.decode("utf-8", "surrogateescape")) for p in listed.split(b"\0") if p)
        return tuple(changes)


class DiffedFile(NamedTuple):
    """A file of `git diff --raw`: its status letter (A, C, D, M, R, T), its paths (the same but for a rename or
    copy) and its entry at the base (None when it did not exist there, or is a copy's new file)."""

    status: str
    old_path: str
    new_path: str
    old: TreeEntry | None


def _kind_of(mode: str) -> str | None:
    return "file" if mode in ("100644", "100755") else "symlink" if mode == _SYMLINK_MODE else None


def _exact_renames(listed: list[tuple[DiffedFile, TreeEntry | None]]) -> tuple[DiffedFile, ...]:
    """A diff listed without renames, with git's exact renames found in it: a deleted file and an added one of the
    same blob (and kind) are a rename; of several deleted candidates, the one of the same file name, else the
    first. No blob is read."""
    sources: dict[tuple[str, str | None], list[DiffedFile]] = {}
    for file, _ in listed:
        if file.status == "D" and file.old is not None and _kind_of(file.old.mode) is not None:
            sources.setdefault((file.old.oid, _kind_of(file.old.mode)), []).append(file)
    taken: set[str] = set()
    renamed: dict[str, DiffedFile] = {}  # the added path → its rename
    for file, new in listed:
        if file.status != "A" or new is None or _kind_of(new.mode) is None or not new.oid.strip("0"):
            continue
        candidates = [s for s in sources.get((new.oid, _kind_of(new.mode)), ()) if s.old_path not in taken]
        if candidates:
            name = file.new_path.rpartition("/")[2]
            source = next((s for s in candidates if s.old_path.rpartition("/")[2] == name), candidates[0])
            taken.add(source.old_path)
            renamed[file.new_path] = DiffedFile("R", source.old_path, file.new_path, source.old)
    return tuple(
        renamed.get(file.new_path, file) if file.status == "A" else file
        for file, _ in listed
        if not (file.status == "D" and file.old_path in taken)
    )


def base_listing(head: dict[str, TreeEntry], diffed: Iterable[DiffedFile]) -> dict[str, TreeEntry] | None:
    """The base's listing: the head's with the diff undone (in git's order, by path bytes); None for a status
    this does not know to undo."""
    listing = dict(head)
    inserted = False
    for file in diffed:
        if file.status not in "ACDMRT" or (file.old is None) != (file.status in "AC"):
            return None
        if file.status in "ACR" and listing.pop(file.new_path, None) is None:
            return None  # not the head this diff ends at
        if file.old is not None:
            inserted = inserted or file.old_path not in listing
            listing[file.old_path] = file.old
    if inserted:
        listing = dict(sorted(listing.items(), key=lambda item: item[0].encode("utf-8", "surrogateescape")))
    return listing


def _lacks(path: str, oid: str) -> str:
    return (
        f"{path}: the object store lacks this file (blob {oid[:12]}; a partial clone whose remote cannot be "
        "reached, or a trimmed mirror?): check again once the remote can be reached (git fetches it then), "
        "or restore the objects with `git fetch --refetch`"
    )


class _StoredSnapshot:
    """Paths listed with their blob ids, the blobs read from git's object store: a commit's tree, or the index."""

    repo: GitRepository

    def _listing(self) -> dict[str, TreeEntry]:
        raise NotImplementedError

    @cached_property
    def _tree(self) -> dict[str, TreeEntry]:
        return self._listing()

    @cached_property
    def _symlinks(self) -> set[str]:
        return {p for p, e in self._tree.items() if e.mode == _SYMLINK_MODE}

    @cached_property
    def _dirs(self) -> set[str]:
        """Every folder on the way to a path (each path's parents climbed only until one is known)."""
        dirs: set[str] = set()
        for path in self._tree:
            folder = path.rpartition("/")[0]
            while folder and folder not in dirs:
                dirs.add(folder)
                folder = folder.rpartition("/")[0]
        return dirs

    def _under_symlink(self, path: str) -> bool:
        if not self._symlinks:
            return False
        parts = path.split("/")
        return any("/".join(parts[:k]) in self._symlinks for k in range(1, len(parts)))

    def entry(self, path: str) -> Entry | None:
        """What stands at `path`; a file's size is learnt from git here, when the sweep is about to read it."""
        if self._under_symlink(path):
            return Entry(Kind.SYMLINK)
        found = self._tree.get(path)
        if found is not None:
            size = self.repo.sizes([found.oid])[found.oid] if found.kind is Kind.FILE else None
            return Entry(found.kind, size)
        return Entry(Kind.DIRECTORY) if path in self._dirs else None

    def read(self, path: str) -> bytes:
        oid = self._tree[path].oid
        try:
            return self.repo.read_blobs([oid])[oid]
        except MissingObjectError:
            raise MissingObjectError(_lacks(path, oid)) from None

    def prefetch(self, paths: Iterable[str]) -> None:
        """Learn the sizes of many files in one pipelined batch, then ask git for those small enough to keep, in
        this order, before the sweep reads them one by one (a blob the store lacks is left for `read` to report)."""
        oids = [e.oid for p in paths if (e := self._tree.get(p)) is not None and e.kind is Kind.FILE]
        sizes = self.repo.sizes(oids)
        self.repo.read_ahead(oid for oid in oids if (size := sizes[oid]) is not None and size <= _BLOB_CACHE_BYTES // 8)

    def blob_id(self, path: str) -> str | None:
        found = self._tree.get(path)
        return found.oid if found is not None and found.kind is Kind.FILE and not self._under_symlink(path) else None

    def walk(self, top: str) -> Iterator[tuple[str, Entry]]:
        """Every path under `top` (but under a symlink), listed once per snapshot: a check walks the wiki folder
        three or four times (its sidecars' blob ids, what to read, the pages), and a listing never changes."""
        walked = self._walked.get(top)
        if walked is None:
            prefix = top.rstrip("/") + "/"
            walked = self._walked[top] = [
                (path, Entry(found.kind))  # no size: listing a folder reads no blob
                for path, found in self._tree.items()
                if path.startswith(prefix) and not self._under_symlink(path)
            ]
        return iter(walked)

    @cached_property
    def _walked(self) -> dict[str, list[tuple[str, Entry]]]:
        return {}


class CommitSnapshot(_StoredSnapshot):
    """A commit's tree read from git's objects alone: no checkout, no working tree needed."""

    def __init__(self, repo: GitRepository, commit: str, label: str | None = None) -> None:
        self.repo = repo
        self.commit = commit
        self.label = commit_label(label, commit)

    def _listing(self) -> dict[str, TreeEntry]:
        return self.repo.tree(self.commit)


class IndexSnapshot(_StoredSnapshot):
    """git's index, read once (its listing) and from git's objects (its blobs, written by `git add`): what the next
    commit will hold. An unstaged edit or an untracked file is not in it; a file staged, then deleted from disk, is.
    """

    def __init__(self, repo: GitRepository) -> None:
        self.repo = repo
        self.label = "index"
        self.commit: str | None = None  # not a commit: no other snapshot's change ends here

    def _listing(self) -> dict[str, TreeEntry]:
        return self.repo.index()

    def paths(self) -> list[str]:
        return list(self._tree)


# What `git config` is asked for the working tree: core.autocrlf, where attributes may come from, the filter drivers
# (names as git prints them: section and variable lowercased, a driver's name as written), and a sparse checkout.
_WORKTREE_CONFIG = r"^(core\.(autocrlf|attributesfile|sparsecheckout)|attr\.tree|filter\..+\.(clean|process|required))$"


class _WorktreeGit:
    """What git knows of a working tree, asked once per snapshot: git's settings for the clean conversions, and
    the files (tracked, and untracked but not ignored: the listing every check's references and fix need anyway),
    which say whether a `.gitattributes` file may choose a conversion (one `git config` and one `git ls-files`,
    side by side); and when first needed, git's index (each file's blob id, and which files are marked
    assume-unchanged or skip-worktree) and which files its stat info shows modified (side by side again)."""

    def __init__(self, repo: GitRepository) -> None:
        from . import gitclean  # noqa: PLC0415 - a check of a commit alone never loads it

        self.repo = repo
        config, listed = _git_side_by_side(
            repo.root,
            ("config", "-z", "--get-regexp", _WORKTREE_CONFIG),
            ("ls-files", "-z", "--cached", "--others", "--exclude-standard"),
            exit_ok=(1,),  # `git config --get-regexp` finding nothing
        )
        self.paths = [p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p]
        attributes = any(p == ".gitattributes" or p.endswith("/.gitattributes") for p in self.paths)
        entries = []
        for item in config.split(b"\0"):
            if item:
                key, newline, value = item.decode("utf-8", "surrogateescape").partition("\n")
                entries.append((key, value if newline else None))
        self.settings = gitclean.settings(entries)
        sparse = [value for key, value in entries if key.lower() == "core.sparsecheckout"]
        self.sparse = bool(sparse) and gitclean.config_bool(sparse[-1])  # the last value wins
        self.attributes = bool(attributes) or _attribute_files_exist(repo, entries)
        self.converting = self.settings.autocrlf != "false" or self.attributes
        self._files: dict[str, str] | None = None
        self._flagged: set[str] = set()
        self._skipped: set[str] = set()
        self._modified: set[str] = set()
        self._conversions: dict[str, gitclean.Conversion] = {}
        self._none = gitclean.NONE

    def _index(self) -> dict[str, str]:
        """The index's regular files (their flags and git's stat view of them kept beside)."""
        listing, modified = _git_side_by_side(
            self.repo.root, ("ls-files", "-v", "--stage", "-z"), ("diff-files", "--name-only", "-z", "--no-renames")
        )
        files: dict[str, str] = {}
        for record in listing.split(b"\0"):
            meta, _, name = record.partition(b"\t")
            if len(meta) < 50:
                continue
            path = name.decode("utf-8", "surrogateescape")
            tag = meta[:1]
            if meta[2:].startswith((b"100644 ", b"100755 ")) and meta.endswith(b" 0"):
                files[path] = meta[9:].split(b" ", 1)[0].decode()
            if tag.islower():  # `-v`: assume-unchanged
                self._flagged.add(path)
            if tag in (b"S", b"s"):
                self._flagged.add(path)
                self._skipped.add(path)
        self._modified = {p.decode("utf-8", "surrogateescape") for p in modified.split(b"\0") if p}
        return files

    @property
    def files(self) -> dict[str, str]:
        """The regular files of git's index (stage 0), by path: their blob ids."""
        if self._files is None:
            self._files = self._index()
        return self._files

    @property
    def flagged(self) -> set[str]:
        """Files marked assume-unchanged or skip-worktree: git does not look at them on disk."""
        if self._files is None:
            self._files = self._index()
        return self._flagged

    @property
    def skipped(self) -> set[str]:
        """Files marked skip-worktree (a sparse checkout's files outside its cone, for one)."""
        if self._files is None:
            self._files = self._index()
        return self._skipped

    @property
    def modified(self) -> set[str]:
        """Files git's stat info shows changed since git last wrote or hashed them (a racily clean one git hashes
        again); assume-unchanged and skip-worktree files are never among them."""
        if self._files is None:
            self._files = self._index()
        return self._modified

    def unmodified(self, path: str) -> str | None:
        """The blob id of a regular file git's index holds and sees unmodified on disk (no flag, stat unchanged):
        git stores exactly that blob for it."""
        oid = self.files.get(path)
        if oid is None or path in self.flagged or path in self.modified:
            return None
        return oid

    def conversion(self, path: str) -> gitclean.Conversion:
        """The clean conversions git applies to `path` (`learn` asks git about many at once)."""
        if not self.converting:
            return self._none
        known = self._conversions.get(path)
        if known is None:
            self.learn([path])
            known = self._conversions[path]
        return known

    def learn(self, paths: Iterable[str]) -> None:
        """The conversions of `paths`, from one `git check-attr` (none when no attributes file exists)."""
        from . import gitclean  # noqa: PLC0415 - loaded with this view already

        if not self.converting:
            return
        unknown = [p for p in dict.fromkeys(paths) if p not in self._conversions]
        if not unknown:
            return
        if not self.attributes:
            for path in unknown:
                self._conversions[path] = gitclean.conversion({}, self.settings)
            return
        attributes: dict[str, dict[str, str]] = {path: {} for path in unknown}
        out = _git(
            self.repo.root,
            "check-attr", "-z", "--stdin", *gitclean.ATTRIBUTES,
            input=b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in unknown),
        )  # fmt: skip
        for path, attribute, value in gitclean.check_attr_records(out):
            attributes.setdefault(path, {})[attribute] = value
        for path in unknown:
            self._conversions[path] = gitclean.conversion(attributes[path], self.settings)


def _attribute_files_exist(repo: GitRepository, config: list[tuple[str, str | None]]) -> bool:
    """Whether an attributes file other than the working tree's `.gitattributes` files may set attributes:
    `$GIT_COMMON_DIR/info/attributes`, the user's (`core.attributesFile`, else `$XDG_CONFIG_HOME/git/attributes`)
    and the system's (`/etc/gitattributes`, or beside the git program); `attr.tree` or `$GIT_ATTR_SOURCE` name a
    tree of attributes."""
    if os.environ.get("GIT_ATTR_SOURCE"):
        return True
    user: str | None = None
    for key, value in config:
        if key.lower() == "attr.tree":
            return True
        if key.lower() == "core.attributesfile":
            user = value
    home = os.environ.get("HOME", "")
    if user:
        user = home + user[1:] if user.startswith("~/") else user
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else "")
        user = f"{xdg}/git/attributes" if xdg else None
    candidates = [repo.common_dir() / "info" / "attributes"]
    if user:
        candidates.append(repo.root / user)  # a relative core.attributesFile is git's working folder's: the top
    if os.environ.get("GIT_ATTR_NOSYSTEM", "").lower() not in ("1", "true", "yes", "on"):
        candidates.append(Path("/etc/gitattributes"))
        import shutil  # noqa: PLC0415 - only a working tree's check asks

        program = shutil.which("git")
        if program:
            candidates += [Path(program).parent.parent / "etc" / "gitattributes"]
            candidates += [Path(program).resolve().parent.parent / "etc" / "gitattributes"]
    for candidate in candidates:
        with contextlib.suppress(OSError):
            if candidate.stat().st_size > 0:
                return True
    return False


class WorktreeSnapshot:
    """The files on disk, uncommitted changes included, read as git sees them: the bytes `git add` would store.

    Where git's settings and attributes convert nothing (no `core.autocrlf`, no attributes file: the common case)
    those are the bytes on disk. Otherwise each file's conversions are learnt once (`git check-attr`, where an
    attributes file exists; `core.autocrlf` alone needs no question): a file
    git converts is read from git's index while git sees it unmodified (what git stores for it, exactly: a CRLF
    checkout of an LF repository is not a change), and from the disk through the clean conversions (`gitclean`)
    once edited. A file's blob id (`blob_id`) is the index's for a file git sees unmodified, the hash of the bytes
    read for a file git does not look at (assume-unchanged, skip-worktree), and unknown for an edited one. A
    skip-worktree file absent from the disk (a sparse checkout) is read from the index, as git sees it.

    Without a repository (`repo` None) the files are read as they are on disk.
    """

    def __init__(self, root: Path, label: str = "working tree", repo: GitRepository | None = None) -> None:
        self.root = root
        self.label = label
        self.commit: str | None = None
        self._repo = repo
        self._git_view: _WorktreeGit | None = None
        self._dir_is_real: dict[str, bool] = {}
        self._root = str(root)
        self._entries: dict[str, Entry | None] = {}
        self._hashed: dict[str, bytes] = {}  # files git does not look at, read to name their bytes (`blob_id`)

    def _git(self) -> _WorktreeGit | None:
        if self._git_view is None and self._repo is not None:
            self._git_view = _WorktreeGit(self._repo)
        return self._git_view

    def _real_dir(self, relative: str) -> bool:
        """Whether a folder on the way to a file is a real folder (not a symlink to one)."""
        known = self._dir_is_real.get(relative)
        if known is None:
            try:
                known = stat.S_ISDIR(os.lstat(self.root / relative).st_mode)
            except OSError:
                known = True  # absent: the lstat of the file itself will say so
            self._dir_is_real[relative] = known
        return known

    def entry(self, path: str) -> Entry | None:
        """What stands at `path`, looked up once: a sweep asks before it plans a read and again before it reads."""
        if path in self._entries:
            return self._entries[path]
        found = self._entries[path] = self._lookup(path)
        return found

    def _lookup(self, path: str) -> Entry | None:
        parts = path.split("/")
        for k in range(1, len(parts)):
            if not self._real_dir("/".join(parts[:k])):
                return Entry(Kind.SYMLINK) if os.path.islink(self.root.joinpath(*parts[:k])) else None
        try:
            info = os.lstat(f"{self._root}/{path}")
        except (FileNotFoundError, NotADirectoryError):
            git = self._git()
            return Entry(Kind.FILE) if git is not None and self._sparse(git, path) is not None else None
        if stat.S_ISLNK(info.st_mode):
            return Entry(Kind.SYMLINK)
        if stat.S_ISREG(info.st_mode):
            git = self._git()
            # converted, its size is the stored blob's, known once read (a conversion only shrinks a file's bytes)
            return Entry(Kind.FILE, None if git is not None and git.converting else info.st_size)
        if stat.S_ISDIR(info.st_mode):
            return Entry(Kind.DIRECTORY)
        return Entry(Kind.OTHER)

    def _sparse(self, git: _WorktreeGit, path: str) -> str | None:
        """The index's blob id of a sparse checkout's skip-worktree file absent from the disk (git sees it
        unmodified)."""
        if not git.sparse or path not in git.skipped or os.path.lexists(f"{self._root}/{path}"):
            return None
        return git.files.get(path)

    def _disk(self, path: str) -> bytes:
        with open(f"{self._root}/{path}", "rb") as file:
            return file.read()

    def read(self, path: str) -> bytes:
        git = self._git()
        if git is None:
            return self._disk(path)
        hashed = self._hashed.get(path)
        if hashed is not None:
            return hashed
        stored = self._sparse(git, path)
        if stored is None:
            converting = git.conversion(path)
            if converting.identity:
                return self._disk(path)
            stored = git.unmodified(path)
            if stored is None:
                return self._cleaned(git, path, converting)
        return self._stored(path, stored)

    def _stored(self, path: str, oid: str) -> bytes:
        assert self._repo is not None
        try:
            return self._repo.read_blobs([oid])[oid]
        except MissingObjectError:
            raise MissingObjectError(_lacks(path, oid)) from None

    def _cleaned(self, git: _WorktreeGit, path: str, converting: gitclean.Conversion) -> bytes:
        """A file git converts, edited since git wrote it: its bytes on disk through git's clean conversions."""
        from . import gitclean  # noqa: PLC0415 - loaded with the snapshot's view of git already

        if converting.unreproduced is not None:
            raise UnreadableFileError(
                f"{path}: {converting.unreproduced}, and the file differs from git's index: the bytes git would "
                "store for it are known once it is staged (`git add`, then `wikiwarden check --staged`) or committed"
            )

        def index_has_crlf() -> bool:
            oid = git.files.get(path)
            return oid is not None and gitclean.has_crlf_text(self._stored(path, oid))

        return gitclean.clean(self._disk(path), converting, index_has_crlf)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Where git converts files: their conversions asked of git in one batch, and the blobs of those read from
        git's index asked for in one pipelined batch (nothing to batch on a local disk otherwise)."""
        git = self._git()
        if git is None or not git.converting:
            return
        wanted = list(paths)
        git.learn(wanted)
        assert self._repo is not None
        oids = [
            oid
            for path in wanted
            if not git.conversion(path).identity and (oid := git.unmodified(path) or self._sparse(git, path))
        ]
        sizes = self._repo.sizes(oids)
        small = _BLOB_CACHE_BYTES // 8
        self._repo.read_ahead(oid for oid in oids if (size := sizes[oid]) is not None and size <= small)

    def blob_id(self, path: str) -> str | None:
        """git's blob id of the bytes `read` gives for a regular file git tracks, when known without reading it: the
        index's while git sees the file unmodified. A file git does not look at (assume-unchanged, skip-worktree)
        may differ from the index: it is read and hashed. An edited or untracked file has none (its bytes would have
        to be read to be named)."""
        git = self._git()
        if git is None or path not in git.files:
            return None
        if path not in git.flagged:
            return git.unmodified(path)
        sparse = self._sparse(git, path)
        if sparse is not None:
            return sparse
        entry = self.entry(path)
        if entry is None or entry.kind is not Kind.FILE:
            return None
        try:
            data = self._hashed[path] = self.read(path)
        except (OSError, UnreadableFileError):
            return None
        return git_blob_id(data)

    def paths(self) -> list[str] | None:
        """Every file git lists in the working tree: tracked, and untracked but not ignored (listed once); None
        without a repository."""
        git = self._git()
        return list(git.paths) if git is not None else None

    def walk(self, top: str) -> Iterator[tuple[str, Entry]]:
        base = self.root / top
        if not self._real_dir(top) or not base.is_dir():
            return
        for folder, dirs, files in os.walk(base, followlinks=False):
            rel_folder = os.path.relpath(folder, self.root).replace(os.sep, "/")
            for name in sorted(dirs):
                if os.path.islink(os.path.join(folder, name)):
                    yield f"{rel_folder}/{name}", Entry(Kind.SYMLINK)
            dirs[:] = sorted(d for d in dirs if d != ".git" and not os.path.islink(os.path.join(folder, d)))
            for name in sorted(files):
                path = f"{rel_folder}/{name}"
                found = self.entry(path)
                if found is not None:
                    yield path, found


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
