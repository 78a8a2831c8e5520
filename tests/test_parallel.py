"""Forked children: their answers arrive whole, and a child that fails is a None the caller answers for it, never
a hang or a partial answer."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from bot.claims.parallel import slices
from bot.parallel import MOST_PROCESSES, Child, usable_processors

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")


@pytest.mark.parametrize(
    ("weights", "parts", "expected"),
    [
        ([1, 1, 1, 1], 2, [range(0, 2), range(2, 4)]),
        ([10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 2, [range(0, 1), range(1, 11)]),
        ([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 10], 2, [range(0, 10), range(10, 11)]),
        ([5, 5, 5, 5, 5, 5], 3, [range(0, 2), range(2, 4), range(4, 6)]),
        ([100, 1, 1], 3, [range(0, 1), range(1, 2), range(2, 3)]),  # no empty slice, even when one item outweighs
        ([1, 2], 5, [range(0, 1), range(1, 2)]),  # fewer items than parts
        ([7], 2, [range(0, 1)]),
        ([], 2, [range(0, 0)]),
    ],
)
def test_slices_are_contiguous_balanced_and_never_empty(weights: list[int], parts: int, expected: list[range]) -> None:
    assert slices(weights, parts) == expected


def test_slices_of_many_weights_cover_every_index_once_with_near_equal_totals() -> None:
    weights = [(i * 7919) % 23 + 1 for i in range(1000)]
    chosen = slices(weights, 3)
    assert [i for part in chosen for i in part] == list(range(1000))
    totals = [sum(weights[i] for i in part) for part in chosen]
    assert max(totals) - min(totals) <= 2 * max(weights)


def test_usable_processors_is_at_least_one_and_at_most_the_cap() -> None:
    assert 1 <= usable_processors() <= MOST_PROCESSES == 4


@pytest.mark.parametrize(("allowed", "expected"), [(set(range(64)), 4), ({0, 1, 2}, 3), ({5}, 1)])
def test_usable_processors_follow_this_processs_affinity(monkeypatch, allowed: set[int], expected: int) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: allowed if pid == 0 else {0}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert usable_processors() == expected


@pytest.mark.parametrize(("count", "expected"), [(3, 3), (16, 4), (None, 1)])
def test_usable_processors_without_affinity_count_the_machine(monkeypatch, count: int | None, expected: int) -> None:
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: count)
    assert usable_processors() == expected


def test_a_system_without_fork_has_one_usable_processor(monkeypatch) -> None:
    monkeypatch.delattr(os, "fork")
    assert usable_processors() == 1


def test_a_system_without_fork_gives_no_child_and_says_so_as_when_processes_run_out(monkeypatch) -> None:
    monkeypatch.delattr(os, "fork")
    with pytest.raises(OSError, match="cannot fork"):
        Child(lambda: b"never")


def _open_descriptors() -> set[str]:
    return set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_child_answers_more_than_a_pipe_holds_and_is_reaped_leaving_no_descriptor_open() -> None:
    before = _open_descriptors()
    payload = os.urandom(3 << 20)  # 3 MB: the child blocks on the pipe until the parent reads
    child = Child(lambda: payload)
    assert child.answer() == payload
    assert child.answer() is None  # read once
    assert _reaped(child.pid)
    assert _open_descriptors() == before


def test_a_child_never_returns_into_the_callers_code(tmp_path) -> None:
    parent = os.getpid()
    child = Child(lambda: b"done")
    if os.getpid() != parent:  # only a child that returned from Child() gets here: say so, then stop
        (tmp_path / "returned").write_text("the child ran the caller's code")
        os._exit(0)
    assert child.answer() == b"done"
    assert not (tmp_path / "returned").exists()


def test_an_empty_answer_is_an_answer() -> None:
    assert Child(lambda: b"").answer() == b""


def test_a_child_killed_halfway_through_a_long_answer_answers_none() -> None:
    def work() -> bytes:
        # the parent reads only later: the child fills the pipe, blocks, and is killed there
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGKILL)).start()
        return os.urandom(8 << 20)

    child = Child(work)
    time.sleep(0.6)
    assert child.answer() is None


def test_a_child_whose_work_raises_answers_none() -> None:
    def work() -> bytes:
        raise RuntimeError("boom")

    assert Child(work).answer() is None


def test_a_child_killed_while_writing_answers_none_not_what_it_wrote() -> None:
    def work() -> bytes:
        os.kill(os.getpid(), signal.SIGKILL)
        return b"never"

    assert Child(work).answer() is None


def test_a_child_that_exits_early_answers_none() -> None:
    def work() -> bytes:
        os._exit(0)  # before writing anything: an empty answer would be taken for the work's own

    assert Child(work).answer() is None


def test_a_discarded_child_is_stopped_and_reaped_leaving_no_descriptor_open() -> None:
    before = _open_descriptors()
    child = Child(lambda: (time.sleep(60), b"late")[1])
    child.discard()
    assert _reaped(child.pid)
    assert _open_descriptors() == before
    assert child.answer() is None
    child.discard()  # once is enough: a second does nothing
