"""Shared test helpers: real git repositories built in temporary folders."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.claims.snapshot import MemorySnapshot

# Fixtures for any test module: the fake GitHub, the fake OpenAI-compatible server, the fix's shop repository, the
# App installed for `acme` (`fake`) and served (`app`).
pytest_plugins = ["fakegithub.fixtures", "fakeopenai.fixtures", "fixtools", "clitools", "appfixtures"]

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


class GitRepo:
    """A throwaway repository: write files, commit, and run git in it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", "-c", "commit.gpgsign=false", *args],
            cwd=self.root,
            env={**os.environ, **GIT_ENV},
            capture_output=True,
            check=True,
        )
        return done.stdout.decode()

    def write(self, path: str, content: str | bytes) -> Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)
        return target

    def read(self, path: str) -> bytes:
        return (self.root / path).read_bytes()

    def remove(self, path: str) -> None:
        (self.root / path).unlink()

    def symlink(self, path: str, target: str) -> None:
        link = self.root / path
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, link)

    def commit(self, message: str = "change", tag: str | None = None) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        if tag:
            self.git("tag", tag)
        return self.git("rev-parse", "HEAD").strip()


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., GitRepo]:
    counter = iter(range(1000))

    def make(name: str | None = None) -> GitRepo:
        root = tmp_path / (name or f"repo{next(counter)}")
        root.mkdir()
        return GitRepo(root)

    return make


@pytest.fixture
def repo(make_repo: Callable[..., GitRepo]) -> GitRepo:
    return make_repo("repo")


class ReadsSnapshot(MemorySnapshot):
    """A snapshot in memory that remembers every file read, in order (in a forked child, its own copy: the parent
    never sees what a child read)."""

    def __init__(self, files: dict[str, bytes], label: str = "head") -> None:
        super().__init__(files, label=label)
        self.read_paths: list[str] = []

    def read(self, path: str) -> bytes:
        self.read_paths.append(path)
        return super().read(path)
