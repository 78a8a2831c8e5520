"""Use cases run without an event loop where nothing waits, and off the loop where one must stay free."""

from __future__ import annotations

import asyncio
import threading

import pytest

from bot.usecases.loop import off_the_loop, run_inline


async def _answer(value: int) -> int:
    async def nested() -> int:
        return value * 2

    return await nested() + 1


def test_a_coroutine_that_never_waits_runs_to_its_result_without_a_loop() -> None:
    assert run_inline(_answer(20)) == 41


def test_a_coroutine_that_waits_is_refused_and_closed() -> None:
    cleaned: list[str] = []

    async def waits() -> int:
        try:
            await asyncio.sleep(0)
            return 1
        finally:
            cleaned.append("closed")

    with pytest.raises(RuntimeError, match=r"asyncio\.run"):
        run_inline(waits())
    assert cleaned == ["closed"]


def test_an_error_inside_comes_out_as_itself() -> None:
    async def fails() -> int:
        raise ValueError("bad sidecar")

    with pytest.raises(ValueError, match="bad sidecar"):
        run_inline(fails())


def _thread() -> int:
    return threading.get_ident()


def test_work_runs_in_place_without_a_loop_and_in_a_thread_within_one() -> None:
    here = threading.get_ident()
    assert run_inline(off_the_loop(_thread)) == here

    async def in_loop() -> int:
        return await off_the_loop(_thread)

    assert asyncio.run(in_loop()) != here
