"""Forked children: their answers arrive whole, and a child that fails is a None the caller answers for it, never
a hang or a partial answer."""

from __future__ import annotations

import os
import signal
import time

import pytest

from bot.claims.fanout import MOST_PROCESSES, Child, slices, usable_processors

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
    assert 1 <= usable_processors() <= MOST_PROCESSES


def test_a_child_answers_more_than_a_pipe_holds() -> None:
    payload = os.urandom(3 << 20)  # 3 MB: the child blocks on the pipe until the parent reads
    child = Child(lambda: payload)
    assert child.answer() == payload
    assert child.answer() is None  # read once


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


def test_a_discarded_child_is_stopped_and_reaped() -> None:
    child = Child(lambda: (time.sleep(60), b"late")[1])
    child.discard()
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)
    assert child.answer() is None
