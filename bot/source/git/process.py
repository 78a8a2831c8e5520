"""git's commands, and the long-lived `cat-file` processes blobs and sizes come through (fork-safe)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import weakref
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from ...claims.errors import UnreadableFileError

if sys.platform == "linux":
    import fcntl  # Linux only: elsewhere cat-file's pipe keeps its size

_BLOB_CACHE_BYTES = 256 << 20
_PIPELINE = 64  # requests in flight on the cat-file pipe
_PIPE_BYTES = 1 << 20  # cat-file's output pipe: Linux's largest for an unprivileged process (64 KiB by default)


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


class _HoldsPipes(Protocol):
    """What owns cat-file processes (a `GitRepository`): told, in a forked child, to let go of them."""

    def _forget_pipes(self) -> None: ...


_OPEN: weakref.WeakSet[_HoldsPipes] = weakref.WeakSet()


def _forget_pipes_in_child() -> None:
    for repository in list(_OPEN):
        repository._forget_pipes()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pipes_in_child)
