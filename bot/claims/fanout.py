"""Work shared with forked children: a large cold sweep uses every processor it may, not one.

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
from collections.abc import Callable, Sequence
from itertools import accumulate, pairwise

MOST_PROCESSES = 4  # past this the sweep's serial parts (reading the wiki, writing the report) dominate


def usable_processors() -> int:
    """The processors this process may run on (its affinity where the system says, else the machine's), at most
    MOST_PROCESSES; 1 where a process cannot fork."""
    if not hasattr(os, "fork"):
        return 1
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this system
        count = os.cpu_count() or 1
    return max(1, min(count, MOST_PROCESSES))


def slices(weights: Sequence[int], parts: int) -> list[range]:
    """`parts` contiguous ranges covering the indexes of `weights`, each of about the same total weight (the
    first ones take an item more where the weights do not divide evenly); fewer when there are fewer items."""
    parts = max(1, min(parts, len(weights)))
    totals = list(accumulate(weights))
    whole = totals[-1] if totals else 0
    cuts = [0]
    at = 0
    for part in range(1, parts):
        goal = whole * part / parts
        while at < len(totals) and totals[at] < goal:
            at += 1
        # never an empty slice: past the previous cut, and leaving an item for each slice still to come
        cut = min(max(at + 1, cuts[-1] + 1), len(weights) - (parts - part))
        cuts.append(cut)
    cuts.append(len(weights))
    return [range(a, b) for a, b in pairwise(cuts)]


class Child:
    """A forked process running `work`; `answer()` is the bytes it returned, or None when it failed."""

    def __init__(self, work: Callable[[], bytes]) -> None:
        read_end, write_end = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns into the caller's code
            code = 1
            try:
                os.close(read_end)
                answer = work()
                data = memoryview(len(answer).to_bytes(8, "big") + answer)  # its length first: whole or nothing
                while data:
                    data = data[os.write(write_end, data) :]
                code = 0
            except BaseException:  # a failed child is answered by the parent
                code = 1
            finally:
                os._exit(code)
        os.close(write_end)
        self._read_end: int | None = read_end

    def answer(self) -> bytes | None:
        """Everything the child wrote, once it has exited well; None when it failed (read once)."""
        if self._read_end is None:
            return None
        chunks = []
        with os.fdopen(self._read_end, "rb") as pipe:
            self._read_end = None
            while chunk := pipe.read(1 << 20):
                chunks.append(chunk)
        _, status = os.waitpid(self.pid, 0)
        data = b"".join(chunks)
        whole = len(data) >= 8 and int.from_bytes(data[:8], "big") == len(data) - 8
        return data[8:] if whole and os.waitstatus_to_exitcode(status) == 0 else None

    def discard(self) -> None:
        """Stop a child whose answer is no longer wanted (the parent failed), and reap it."""
        if self._read_end is None:
            return
        os.close(self._read_end)
        self._read_end = None
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
