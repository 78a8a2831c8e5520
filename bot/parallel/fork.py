"""Forked children: a large cold sweep uses every processor it may, not one (the core cuts the work,
`bot.claims.parallel.slices`; this runs it).

A full sweep of a large wiki spends most of its time on records that are independent file by file. The
sweep forks children that inherit everything already loaded (no wiki is sent anywhere), each answers a slice
of the files and writes its answers back on a pipe, while the parent answers the first slice. A child that
fails (an exception, a signal, an answer cut short) is no loss: its slice is answered by the parent.

Forking is only sound where nothing a child touches is shared with the parent: the sweep's pure code, files
read from disk, and git's blob pipes, which `bot.source.git` lets go of in a child (`os.register_at_fork`).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable

MOST_PROCESSES = 4  # past this the sweep's serial parts (reading the wiki, writing the report) dominate


def usable_processors() -> int:
    """The processors this process may run on (its affinity where the system says, else the machine's), at most
    MOST_PROCESSES; 1 where a process cannot fork."""
    if not hasattr(os, "fork"):
        return 1
    try:
        count = len(os.sched_getaffinity(0))  # never empty: this process runs somewhere
    except AttributeError:  # no affinity on this system
        count = os.cpu_count() or 1
    return min(count, MOST_PROCESSES)


class Child:
    """A forked process running `work`; `answer()` is the bytes it returned, or None when it failed.

    The answer's length goes first on the pipe, so an answer cut short (the child failed, was killed, or ended
    before writing) is told from a whole one whatever the child's exit status."""

    def __init__(self, work: Callable[[], bytes]) -> None:
        if not hasattr(os, "fork"):  # Windows, say, with `--jobs 2`: the caller does the work itself
            raise OSError("this system cannot fork a process")
        read_end, write_end = os.pipe()
        try:
            self.pid = os.fork()
        except OSError:  # no process to be had (memory, a process limit): the caller does the work itself
            os.close(read_end)
            os.close(write_end)
            raise
        if self.pid == 0:  # the child: whatever happens, it ends here, never in the caller's code
            try:
                answer = work()
                with os.fdopen(write_end, "wb") as pipe:
                    pipe.write(len(answer).to_bytes(8, "big"))
                    pipe.write(answer)
            finally:
                os._exit(0)  # its status says nothing: the parent judges the answer by its length
        os.close(write_end)
        self._read_end: int | None = read_end

    def answer(self) -> bytes | None:
        """Everything the child wrote, when it wrote its whole answer; None when it failed (read once)."""
        if self._read_end is None:
            return None
        with os.fdopen(self._read_end, "rb") as pipe:
            self._read_end = None
            data = pipe.read()
        os.waitpid(self.pid, 0)
        # shorter than its length says (shorter than the length itself, too: the length cannot be negative)
        return data[8:] if int.from_bytes(data[:8], "big") == len(data) - 8 else None

    def discard(self) -> None:
        """Stop a child whose answer is no longer wanted (the parent failed), and reap it."""
        if self._read_end is None:
            return
        os.close(self._read_end)
        self._read_end = None
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
