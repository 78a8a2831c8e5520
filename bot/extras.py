"""The optional extras (pyproject.toml's `app` and `agent`): what to say when a face needs one that is not
installed, in the same words wherever it is said."""

from __future__ import annotations


def missing_extra(exc: ModuleNotFoundError, extra: str, what: str) -> str:
    """`what` needs `extra`: the module that could not be imported, and the command that installs it."""
    return f"{what} needs the {extra} extra ({exc.name} is not installed): pip install 'wikiwarden[{extra}]'"
