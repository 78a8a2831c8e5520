"""What a one-shot command leaves to its process's end (bot/lifetime.py)."""

from __future__ import annotations

import gc
import weakref

import pytest

from bot import lifetime
from bot.claims.parallel import SERIAL
from bot.parallel import Forking
from bot.source.git import GitRepository
from bot.usecases.check import check_repository


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


def test_the_process_policy_a_sweep_is_handed_keeps_what_it_is_given_only_in_a_one_shot_process() -> None:
    """The core never keeps anything itself: it hands what it built to its `Parallel`, whose implementation for the
    command line (`Forking`) leaves it to the process's end only when the process is one-shot."""
    Forking().keep(_Built())
    assert lifetime.kept() == 0
    lifetime.one_shot()
    Forking(2).keep(_Built(), _Built())
    SERIAL.keep(_Built())  # what a sweep does unless handed otherwise: frees as usual
    assert lifetime.kept() == 2


def test_a_checks_sweeper_and_wiki_are_kept_to_a_one_shot_process_end(repo) -> None:
    repo.write("src/a.py", "A = 1\n")
    repo.write("openwiki/a.md", "# A\n")
    repo.commit("a page")
    with GitRepository(repo.root) as git:
        check_repository(git)
        assert lifetime.kept() == 0  # a long-running process: nothing kept
        lifetime.one_shot()
        check_repository(git)
    assert lifetime.kept() == 2  # the sweeper and the wiki it loaded
