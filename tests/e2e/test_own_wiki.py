"""Wikiwarden's own wiki (openwiki/) must hold: a change that makes one of its claims stale fails here.

When this fails, read the report, fix the page if the code changed what it says, then
`wikiwarden claim confirm ID` (or `claim retract ID`). Moved evidence does not fail it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.report.check import render_text
from bot.source.git import GitError, GitRepository
from bot.usecases.check import check_repository

ROOT = Path(__file__).resolve().parents[2]


def test_wikiwardens_own_wiki_holds() -> None:
    if not (ROOT / "openwiki").is_dir():
        pytest.fail("openwiki/ is missing from the repository")
    try:
        repo = GitRepository(ROOT)
    except GitError:
        pytest.skip("not a git checkout (an unpacked source archive)")
    with repo:
        report = check_repository(repo)
    assert report.summary["claims"] >= 8
    assert not report.needs_attention, render_text(report)
