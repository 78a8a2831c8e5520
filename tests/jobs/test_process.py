"""A job's work in a child process (`bot.jobs.process`): the child calls its parent's services and hears their
answers, its failures come back as the queue tells them apart (permanent, failed, died without a word), and
cancelling the wait kills it at once, even while it holds its interpreter in a regex that never ends."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from typing import Any

import pytest

from bot.jobs import JobAbandoned, PermanentFailure
from bot.jobs.process import Channel, ChildDied, JobFailed, Remote, run_in_child


class Calculator:
    """A parent's service: an async method, a plain one, and a record of what the child said."""

    def __init__(self) -> None:
        self.heard: list[Any] = []

    async def add(self, a: int, b: int) -> int:
        return a + b

    def note(self, value: Any) -> None:
        self.heard.append(value)

    async def refuse(self) -> None:
        raise PermanentFailure("installation 5 no longer exists")

    async def fail(self) -> None:
        raise ValueError("no such thing")


async def adds(channel: Channel, a: int, b: int) -> None:
    calc = Remote(channel, "calc", notices=("note",), factor=10)
    total = await calc.add(a, b)
    calc.note({"total": total, "factor": calc.factor, "pid": os.getpid()})
    with pytest.raises(JobFailed, match="ValueError: no such thing"):
        await calc.fail()


async def refused(channel: Channel) -> None:
    await Remote(channel, "calc").refuse()


async def gives_up(channel: Channel) -> None:
    raise PermanentFailure("the repository is gone")


async def breaks(channel: Channel) -> None:
    raise ValueError("seven")


async def stuck(channel: Channel) -> None:
    Remote(channel, "calc", notices=("note",)).note(os.getpid())
    re.match(r"(a+)+b", "a" * 64)  # exponential backtracking: holds the interpreter, never reaches an await


async def exits(channel: Channel, how: str) -> None:
    if how == "exit":
        os._exit(3)
    os.kill(os.getpid(), signal.SIGKILL)


async def test_a_childs_calls_reach_the_parents_services_and_their_answers_come_back() -> None:
    calc = Calculator()
    await run_in_child(adds, (2, 3), {"calc": calc})
    [heard] = calc.heard
    assert heard["total"] == 5 and heard["factor"] == 10
    assert heard["pid"] != os.getpid()  # it ran elsewhere


async def test_a_permanent_failure_crosses_either_way_as_itself() -> None:
    with pytest.raises(PermanentFailure, match=r"^the repository is gone$"):
        await run_in_child(gives_up, (), {})
    with pytest.raises(PermanentFailure, match=r"^installation 5 no longer exists$"):
        await run_in_child(refused, (), {"calc": Calculator()})


async def test_any_other_failure_comes_back_in_words() -> None:
    with pytest.raises(JobFailed, match=r"^ValueError: seven$"):
        await run_in_child(breaks, (), {})


@pytest.mark.parametrize(("how", "status"), [("exit", "3"), ("kill", "SIGKILL")])
async def test_a_child_that_ends_without_a_word_is_abandoned_and_says_how(how: str, status: str) -> None:
    with pytest.raises(ChildDied, match=f"exit status {status}") as died:
        await run_in_child(exits, (how,), {})
    assert isinstance(died.value, JobAbandoned)  # so the queue reports it on the check run


async def test_cancelling_the_wait_kills_a_child_stuck_in_a_regex_and_the_loop_kept_running() -> None:
    calc = Calculator()
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticking = asyncio.create_task(tick())
    try:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(run_in_child(stuck, (), {"calc": calc}), 1.0)
    finally:
        ticking.cancel()
    [pid] = calc.heard
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped: no such process any more
    assert ticks > 0  # this event loop was never held by the child's regex
