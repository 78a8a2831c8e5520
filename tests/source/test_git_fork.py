"""A forked child reads git through its own cat-file processes: requests from parent and child on one pipe would
mix their answers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import GitRepo
from sweeptools import every_kind_of_result, sweeper_of

from bot.source.git import GitRepository

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


def test_a_child_starts_its_own_cat_file_and_leaves_the_parents_working(repo: GitRepo) -> None:
    repo.write("a.txt", "alpha\n")
    repo.write("b.txt", "beta\n")
    repo.commit()
    with GitRepository(repo.root) as git:
        tree = git.tree(git.resolve("HEAD"))
        a, b = tree["a.txt"].oid, tree["b.txt"].oid
        assert git.read_blobs([a]) == {a: b"alpha\n"}  # the parent's cat-file is running
        parents = git._cat._process.pid  # type: ignore[union-attr]
        pid = os.fork()
        if pid == 0:
            ok = False
            try:
                ok = git.read_blobs([b]) == {b: b"beta\n"} and git._cat._process.pid != parents  # type: ignore[union-attr]
            finally:
                os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        git._blobs.clear()
        assert git.read_blobs([b, a]) == {b: b"beta\n", a: b"alpha\n"}
        assert git._cat._process.pid == parents  # type: ignore[union-attr]


def test_a_child_forked_with_answers_asked_ahead_leaves_them_to_the_parent(repo: GitRepo) -> None:
    for n in range(6):
        repo.write(f"f{n}.txt", f"file {n}\n" * 20_000)  # answers larger than the pipe: git is mid-way at the fork
    repo.commit()
    with GitRepository(repo.root) as git:
        tree = git.tree(git.resolve("HEAD"))
        oids = [tree[f"f{n}.txt"].oid for n in range(6)]
        git.read_ahead(oids)
        parents = git._cat._process.pid  # type: ignore[union-attr]
        pid = os.fork()
        if pid == 0:
            ok = False
            try:
                ok = git.read_blobs([oids[3]]) == {oids[3]: b"file 3\n" * 20_000}
                ok = ok and git._cat._process.pid != parents  # type: ignore[union-attr]
            finally:
                os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert git.read_blobs(oids) == {oid: f"file {n}\n".encode() * 20_000 for n, oid in enumerate(oids)}
        assert git._cat._process.pid == parents  # type: ignore[union-attr]


def test_a_forked_sweep_of_a_commit_reports_what_one_process_does(repo: GitRepo) -> None:
    for path, content in every_kind_of_result().items():
        repo.write(path, content)
    repo.commit()
    reports = []
    for processes in (1, 3):
        with GitRepository(repo.root) as git:
            reports.append(sweeper_of(git.snapshot("HEAD"), processes).sweep())
    assert reports[0] == reports[1]
    assert reports[0].summary["moved"] and reports[0].summary["error"]
