"""A small repository for grounding's tests (the command line's and the App's end to end): a task queue, a page
about it without claims, the statements a model grounds it with, and the model's answers as JSON."""

from __future__ import annotations

from typing import Any

QUEUE_PY = '''"""A small task queue."""

MAX_ITEMS = 100


class TaskQueue:
    """First in, first out."""

    def __init__(self):
        self.items = []

    def push(self, item):
        if len(self.items) >= MAX_ITEMS:
            raise OverflowError("queue full")
        self.items.append(item)

    def drain(self):
        items, self.items = self.items, []
        return items
'''
QUEUE_MD = """---
title: The queue
---

# The queue

`TaskQueue` in `src/taskq/queue.py` keeps tasks first in, first out.
A queue holds at most 100 items; `push()` raises `OverflowError` beyond that.

`drain()` empties the queue and returns what it held.
"""
SETUP_MD = "# Setup\n\nRun `make` and then `./run --fast`. Nothing here names the code.\n"

FIFO = "TaskQueue keeps tasks first in, first out."
LIMIT = "A queue holds at most 100 items."
DRAIN = "`drain()` empties the queue and returns what it held."


def claim(statement: str, quote: str, *evidence: str) -> dict[str, Any]:
    """One claim of a grounding answer."""
    return {"statement": statement, "quote": quote, "evidence": list(evidence)}


def answer(*claims: dict[str, Any], edits: list | None = None, unsupported: list | None = None) -> dict[str, Any]:
    """A grounding answer, as the model's JSON."""
    return {"claims": list(claims), "edits": edits or [], "unsupported": unsupported or []}
