"""pytest plugin for the command line's tests: run `wikiwarden` in-process (or in a thread, while the test's loop
serves a fake), keep git and WIKIWARDEN_* settings of the machine out, point the model at the fake OpenAI.

    pytestmark = pytest.mark.usefixtures("isolated_cli")

    def test_x(cli) -> None:
        run = cli("check", "--repo", root)
        assert run.code == 0, run.err
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fakeopenai import FakeOpenAI

from bot.cli import main


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def isolated_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """git, in-process or in the console script, ignores the machine's configuration and stops at tmp_path; no
    WIKIWARDEN_* setting of the machine leaks in."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for name in list(os.environ):
        if name.startswith("WIKIWARDEN_"):
            monkeypatch.delenv(name)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    def run(*args: str | Path) -> Run:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@pytest.fixture
def cli_in_thread(capsys: pytest.CaptureFixture[str]) -> Callable[..., Awaitable[Run]]:
    """The command in a thread of its own (it runs its own event loop), while this test's loop serves the fake."""

    async def run(*args: str | Path) -> Run:
        code = await asyncio.to_thread(main, [str(a) for a in args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def use_fake(monkeypatch: pytest.MonkeyPatch, fake: FakeOpenAI) -> None:
    """The command's model is the fake's, answering at once, with no retry."""
    monkeypatch.setenv("WIKIWARDEN_OPENAI_BASE_URL", fake.base_url)
    monkeypatch.setenv("WIKIWARDEN_OPENAI_API_KEY", fake.api_key)
    monkeypatch.setenv("WIKIWARDEN_MODEL", "test-model")
    monkeypatch.setenv("WIKIWARDEN_MODEL_MAX_RETRIES", "0")
    monkeypatch.setenv("WIKIWARDEN_MODEL_TIMEOUT_SECONDS", "5")


def status(root: Path) -> list[str]:
    """The paths `git status` reports changed or new in the working tree, sorted."""
    out = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True, check=True, text=True
    ).stdout
    return sorted(line[3:] for line in out.splitlines())


def added_id(run: Run) -> str:
    """The id `wikiwarden claim add` printed (the command must have succeeded)."""
    assert run.code == 0, run.err
    match = re.search(r"^added (claim_[0-9a-f]{32}) to ", run.out, re.MULTILINE)
    assert match, run.out
    return match.group(1)
