"""What a one-shot command built is left to the process's end, not freed object by object.

The command line ends with `os._exit` once its command is done (`bot.cli.run`). What it built is freed before
that wherever the last reference to it goes: a full check's wiki and sweeper when the check's use case returns, its
report when the command does; at 100k claims that is millions of objects, a seventh of a second of every check
spent taking apart what the process's end would drop at once. A long-running process (the App's web process and
workers) must free them: there `outlive` keeps nothing.
"""

from __future__ import annotations

_kept: list[object] | None = None  # a list once the process is one-shot


def one_shot() -> None:
    """Say that this process ends with `os._exit` once its command is done: what `outlive` is given from now on
    is never freed."""
    global _kept  # noqa: PLW0603 - the process's own state, set once by its entry point
    if _kept is None:
        _kept = []


def outlive(*objects: object) -> None:
    """Keep `objects` until the process ends, when it is one-shot; otherwise nothing (they are freed as usual)."""
    if _kept is not None:
        _kept.extend(objects)


def kept() -> int:
    """How many objects are kept to the process's end (what the tests read)."""
    return len(_kept) if _kept is not None else 0
