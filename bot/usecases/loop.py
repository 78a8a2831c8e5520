"""Use cases run with or without an event loop.

The use cases are coroutines because the App's source (GitHub) waits on the network. A local repository never
waits: its coroutines finish in one step, and the command line runs them without asyncio at all (importing it
would cost every check's start-up: a pre-commit hook runs at every commit).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_inline(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result, run to its end with no event loop; RuntimeError if it waits on something (only a
    loop can resume it then: a source that waits must be run with `asyncio.run`)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        value: T = done.value
        return value
    coroutine.close()
    raise RuntimeError("the use case waited on something: run it in an event loop (asyncio.run)")


async def off_the_loop(work: Callable[[], T]) -> T:
    """`work()` in a thread when a running event loop must stay free for others (the App's web process and
    workers); in place when there is no loop to keep free (`run_inline`, where asyncio was never imported)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return work()
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return work()
    result: T = await asyncio.to_thread(work)
    return result
