"""`wikiwarden check` remembers what it learnt in the repository's git directory: the next check gives the same
report, from the cache where the files kept their bytes and afresh where they did not; `--no-cache` leaves nothing
behind; a damaged or unwritable cache never fails a check."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from clitools import added_id
from conftest import GitRepo

from bot.claims.verdict_cache import FORMAT
from bot.ground.reading import FORMAT as READINGS_FORMAT
from bot.ground.reading import read_page
from bot.source.memory import seal
from bot.usecases import check as check_module
from bot.usecases import references

CODE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
PAGE = "---\ntype: Concept\n---\n\n# A\n\n`b` returns 2.\n"

pytestmark = pytest.mark.usefixtures("isolated_cli")


@pytest.fixture
def grounded(repo: GitRepo, cli) -> GitRepo:  # type: ignore[no-untyped-def]
    repo.write("src/a.py", CODE)
    repo.write("openwiki/a.md", PAGE)
    repo.commit("code and wiki")
    added_id(cli("claim", "add", "--repo", repo.root, "a.md", "b returns 2.", "repo://src/a.py#L5-L6"))
    repo.commit("ground the wiki")
    return repo


def _memory(repo: GitRepo) -> Path:
    return repo.root / ".git" / "wikiwarden"


def _json(cli, repo: GitRepo, *args: str) -> dict:  # type: ignore[no-untyped-def]
    run = cli("check", "--repo", repo.root, "--format", "json", *args)
    assert run.code in (0, 1), run.err
    assert run.err == ""
    return json.loads(run.out)


def test_a_check_leaves_its_memory_in_the_git_directory_and_the_next_check_agrees(grounded: GitRepo, cli) -> None:  # type: ignore[no-untyped-def]
    first = _json(cli, grounded)
    names = sorted(p.name for p in _memory(grounded).iterdir())
    assert names == ["evidence-index-v1.json", "pages-v1.json", "verdicts-v1.json"]
    assert _json(cli, grounded) == first
    assert grounded.git("status", "--porcelain") == ""  # nothing in the working tree


def test_a_second_check_reads_no_unchanged_page_and_finds_what_the_first_found(
    grounded: GitRepo, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    grounded.write("openwiki/b.md", "# B\n\nSee `src/gone.py` and [the guide](missing.md).\n")
    grounded.commit("a page naming paths that do not exist")
    first = _json(cli, grounded)
    assert [r["target"] for r in first["broken_references"]] == ["src/gone.py", "openwiki/missing.md"]
    read: list[str] = []
    monkeypatch.setattr(references, "read_page", lambda page, text: read.append(text) or read_page(page, text))
    one = ("--jobs", "1")  # one process: pages are read here, where the test sees it (with more, a child reads them)
    assert _json(cli, grounded, *one) == first
    assert read == []  # every page's reading kept: no page read or parsed again
    grounded.write("openwiki/b.md", "# B\n\nSee `src/a.py`.\n")  # edited, not committed: no blob id names it
    edited = _json(cli, grounded, *one)
    assert edited["broken_references"] == [] and read == ["# B\n\nSee `src/a.py`.\n"]
    assert edited["coverage"] == first["coverage"]
    assert _json(cli, grounded, "--jobs", "2") == edited  # read by a child: the same findings
    grounded.commit("b names a file that exists")
    assert _json(cli, grounded, *one) == edited and len(read) == 2  # a blob new to the readings: read once more
    assert _json(cli, grounded, *one) == edited and len(read) == 2


def test_without_the_parsers_version_no_reading_is_kept_and_the_check_is_the_same(
    grounded: GitRepo, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    expected = _json(cli, grounded, "--no-cache")
    monkeypatch.setattr(check_module, "reading_context", lambda: None)
    assert _json(cli, grounded) == expected
    assert sorted(p.name for p in _memory(grounded).iterdir()) == ["evidence-index-v1.json", "verdicts-v1.json"]


def test_a_file_edited_since_the_last_check_is_checked_afresh(grounded: GitRepo, cli) -> None:  # type: ignore[no-untyped-def]
    assert _json(cli, grounded)["summary"]["fresh"] == 1
    grounded.write("src/a.py", CODE.replace("return 2", "return 3"))  # not committed: no blob id names it
    assert _json(cli, grounded)["summary"]["stale"] == 1
    grounded.commit("three")  # committed: its blob id is new to the cache
    assert _json(cli, grounded)["summary"]["stale"] == 1
    grounded.write("src/a.py", CODE)
    assert _json(cli, grounded)["summary"]["fresh"] == 1


def test_no_cache_leaves_nothing_behind(grounded: GitRepo, cli) -> None:  # type: ignore[no-untyped-def]
    report = _json(cli, grounded, "--no-cache")
    assert not _memory(grounded).exists()
    assert _json(cli, grounded) == report


def test_a_damaged_cache_is_replaced_and_never_fails_a_check(grounded: GitRepo, cli) -> None:  # type: ignore[no-untyped-def]
    expected = _json(cli, grounded, "--no-cache")
    _memory(grounded).mkdir()
    # sealed as a check seals them: the damage is inside (the seal's own checks are below)
    (_memory(grounded) / "verdicts-v1.json").write_bytes(seal("verdicts-v1.json", b"{not json", None))
    (_memory(grounded) / "evidence-index-v1.json").write_bytes(
        seal("evidence-index-v1.json", b'{"format": 1, "sidecars": {"x": 3}}', None)
    )
    (_memory(grounded) / "pages-v1.json").write_bytes(b"[1, 2")
    run = cli("check", "--repo", grounded.root, "--format", "json")
    assert json.loads(run.out) == expected
    assert "could not be read" in run.err and "the sweep runs without it" in run.err
    assert "pages-v1.json is not sealed" in run.err and "not used, and replaced after this sweep" in run.err
    assert json.loads((_memory(grounded) / "verdicts-v1.json").read_bytes())["format"] == FORMAT  # rewritten whole
    assert json.loads((_memory(grounded) / "pages-v1.json").read_bytes())["format"] == READINGS_FORMAT
    assert _json(cli, grounded) == expected


def test_an_unwritable_cache_only_costs_speed(grounded: GitRepo, cli) -> None:  # type: ignore[no-untyped-def]
    _memory(grounded).write_text("a file, not a folder")  # as unwritable as a folder without permission, even to root
    run = cli("check", "--repo", grounded.root)
    assert run.code == 0, run.err
    assert "1 fresh" in run.out
    assert run.err.count("the next sweep starts cold") == 1


def test_a_commits_pages_read_by_a_child_are_the_commits_not_the_working_trees(grounded: GitRepo, cli) -> None:  # type: ignore[no-untyped-def]
    grounded.write("openwiki/b.md", "# B\n\nSee `src/gone.py`.\n")
    grounded.commit("a page naming a path that does not exist")
    grounded.write("openwiki/b.md", "# B\n\nSee `src/also-gone.py`.\n")  # not committed: not what HEAD holds
    args = ("--head", "HEAD", "--no-cache")
    alone = _json(cli, grounded, *args, "--jobs", "1")
    shared = _json(cli, grounded, *args, "--jobs", "2")  # the pages' bytes from git, read before the child forks
    assert shared == alone
    assert [r["target"] for r in shared["broken_references"]] == ["src/gone.py"]
    assert [r["target"] for r in _json(cli, grounded, "--no-cache", "--jobs", "2")["broken_references"]] == [
        "src/also-gone.py"
    ]


# -- hostile files in the memory's place: the check neither hangs, nor reads without end, nor writes through a link --


def _check_process(repo: GitRepo) -> subprocess.CompletedProcess[str]:
    """`wikiwarden check --format json` in a process of its own, bounded: 60 seconds and 2 GiB of address space
    (a check that waits on a FIFO, or reads /dev/zero, fails the test instead of hanging or exhausting the machine)."""

    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    env = {k: v for k, v in os.environ.items() if not k.startswith("WIKIWARDEN_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(
        [sys.executable, "-m", "bot", "check", "--repo", str(repo.root), "--format", "json", "--jobs", "1"],
        capture_output=True, text=True, timeout=60, env=env, preexec_fn=bounded, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("planted", ["fifo", "dev-zero", "huge"])
def test_a_fifo_a_device_or_a_huge_file_in_a_cache_files_place_is_ignored_and_replaced(
    grounded: GitRepo, cli, planted: str
) -> None:  # type: ignore[no-untyped-def]
    expected = _json(cli, grounded, "--no-cache")
    memory = _memory(grounded)
    memory.mkdir()
    for name in ("evidence-index-v1.json", "verdicts-v1.json", "pages-v1.json"):
        if planted == "fifo":
            os.mkfifo(memory / name)
        elif planted == "dev-zero":
            (memory / name).symlink_to("/dev/zero")
        else:  # sparse: over the 256 MiB cap, without taking the disk space
            with open(memory / name, "wb") as huge:
                huge.truncate((256 << 20) + 1)
    run = _check_process(grounded)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == expected
    said = {
        "fifo": "is not a regular file: not read, and replaced after this sweep",
        "dev-zero": "is a symlink: not read, and replaced after this sweep",
        "huge": f"is over {256 << 20} bytes: not read, and replaced after this sweep",
    }[planted]
    assert run.stderr.count(said) == 3, run.stderr
    for name in ("evidence-index-v1.json", "verdicts-v1.json", "pages-v1.json"):  # replaced by regular files
        assert (memory / name).is_file() and not (memory / name).is_symlink()
        assert json.loads((memory / name).read_bytes())["format"]
    again = _check_process(grounded)
    assert (again.returncode, again.stderr, json.loads(again.stdout)) == (0, "", expected)


def test_a_symlinked_memory_folder_is_neither_read_nor_written_through(
    grounded: GitRepo, cli, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    expected = _json(cli, grounded, "--no-cache")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "verdicts-v1.json").write_bytes(b"{not json")
    _memory(grounded).symlink_to(elsewhere, target_is_directory=True)
    run = _check_process(grounded)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == expected
    assert run.stderr.count("is a symlink: the sweep's memory is neither read nor kept through it") == 1, run.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == ["verdicts-v1.json"]  # nothing written there
    assert (elsewhere / "verdicts-v1.json").read_bytes() == b"{not json"
    assert _memory(grounded).is_symlink()
