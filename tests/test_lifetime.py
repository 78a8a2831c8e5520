"""What a one-shot command leaves to its process's end (bot/lifetime.py)."""

from __future__ import annotations

import gc
import weakref

import pytest

from bot import lifetime


class _Built:
    """Something a command built (weakly referenceable, to see whether it was freed)."""


@pytest.fixture(autouse=True)
def _not_one_shot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lifetime, "_kept", None)  # the test process is long-running; each test starts so


def test_a_long_running_process_frees_what_it_built() -> None:
    built = _Built()
    alive = weakref.ref(built)
    lifetime.outlive(built)
    del built
    gc.collect()
    assert alive() is None
    assert lifetime.kept() == 0


def test_a_one_shot_process_keeps_what_it_built_to_its_end() -> None:
    lifetime.one_shot()
    built = _Built()
    alive = weakref.ref(built)
    lifetime.outlive(built, "and more")
    del built
    gc.collect()
    assert alive() is not None
    assert lifetime.kept() == 2


def test_saying_one_shot_twice_keeps_what_was_kept() -> None:
    lifetime.one_shot()
    lifetime.outlive(_Built())
    lifetime.one_shot()
    assert lifetime.kept() == 1
