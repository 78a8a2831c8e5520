"""Wikiwarden processes at work on one repository at once, as real `wikiwarden` processes: every edit of the wiki is
read and written under the wiki folder's lock, so none is lost; checks keeping their memory at once leave it
readable and whole, each one's evidence index merged into the others'."""

from __future__ import annotations

import fcntl
import json
import os
import select
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import GitRepo

CODE = "".join(f"VALUE_{n} = {n}\n" for n in range(1, 21))
PAGE = "---\ntype: Concept\ntitle: Values\n---\n\n# Values\n\nEach value is its number.\n"
PARALLEL = 12


def wikiwarden(repo: GitRepo, *args: str) -> subprocess.Popen[str]:
    """`wikiwarden ARGS --repo ROOT` started in a process of its own (not waited for)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIKIWARDEN_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    command, *rest = args
    return subprocess.Popen(
        [sys.executable, "-m", "bot", *command.split(), "--repo", str(repo.root), *rest],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def _first_line(process: subprocess.Popen[str], within: float) -> str:
    """The first line the process writes to its standard error, or "" if none comes in time."""
    assert process.stderr is not None
    ready, _, _ = select.select([process.stderr], [], [], within)
    return process.stderr.readline() if ready else ""


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


@pytest.fixture
def values(repo: GitRepo) -> GitRepo:
    repo.write("src/values.py", CODE)
    repo.write("openwiki/values.md", PAGE)
    repo.commit("code and a page")
    return repo


def claims_of(repo: GitRepo) -> list[dict]:
    return json.loads(repo.read("openwiki/.claims/values.json"))["claims"]


def test_parallel_claim_adds_on_one_page_are_all_kept(values: GitRepo) -> None:
    started = [
        wikiwarden(values, "claim add", "values.md", f"VALUE_{n} is {n}.", f"repo://src/values.py#L{n}")
        for n in range(1, PARALLEL + 1)
    ]
    with ThreadPoolExecutor(PARALLEL) as pool:
        done = list(pool.map(finish, started))
    assert [code for code, _, _ in done] == [0] * PARALLEL, [err for _, _, err in done]
    kept = claims_of(values)
    assert sorted(c["statement"] for c in kept) == sorted(f"VALUE_{n} is {n}." for n in range(1, PARALLEL + 1))
    assert len({c["id"] for c in kept}) == PARALLEL  # ids unique across the wiki, each chosen under the lock
    assert sorted(os.listdir(values.root / "openwiki" / ".claims")) == ["values.json"]  # no temporary file left

    # and retracting half of them at once keeps the other half
    retracting = [wikiwarden(values, "claim retract", claim["id"]) for claim in kept[::2]]
    with ThreadPoolExecutor(PARALLEL) as pool:
        assert [code for code, _, _ in pool.map(finish, retracting)] == [0] * len(retracting)
    assert [c["id"] for c in claims_of(values)] == [c["id"] for c in kept[1::2]]


@pytest.mark.parametrize(
    "command",
    [
        ("claim add", "values.md", "VALUE_1 is 1.", "repo://src/values.py#L1"),
        ("claim retract", "claim_" + "0" * 32),
        ("fix",),
        ("okf sync",),
    ],
    ids=["claim-add", "claim-retract", "fix", "okf-sync"],
)
def test_a_command_writing_the_wiki_waits_for_the_one_holding_its_lock(
    values: GitRepo, command: tuple[str, ...]
) -> None:
    """The lock is the wiki folder's own (flock): while another holds it, each command that writes the wiki says it
    waits, and reads the wiki only once it is let go."""
    folder = os.open(values.root / "openwiki", os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        waiting = wikiwarden(values, *command)
        said = _first_line(waiting, within=60)  # however slowly it starts on a loaded machine
        assert said == "another wikiwarden command is writing openwiki/: waiting for it to finish\n"
        time.sleep(0.5)  # time enough to have finished, were it not waiting
        assert waiting.poll() is None
    finally:
        os.close(folder)  # lets go of the lock
    code, _, err = finish(waiting)
    assert "waiting" not in err, err
    if command[0] == "claim add":
        assert code == 0 and [c["statement"] for c in claims_of(values)] == ["VALUE_1 is 1."]


def _blob(repo: GitRepo, rev: str, path: str) -> str:
    return repo.git("rev-parse", f"{rev}:{path}").strip()


def test_parallel_checks_leave_a_readable_memory_holding_what_each_learnt(values: GitRepo, tmp_path: Path) -> None:
    """Checks of two commits at once, each learning the sidecar blob of its own: the evidence index keeps both
    (each writer merges what another wrote meanwhile), every file of the memory parses, and a check with the memory
    reports what a check without it does."""
    first = wikiwarden(values, "claim add", "values.md", "VALUE_1 is 1.", "repo://src/values.py#L1")
    assert finish(first)[0] == 0
    values.commit("one claim", tag="one")
    second = wikiwarden(values, "claim add", "values.md", "VALUE_2 is 2.", "repo://src/values.py#L2")
    assert finish(second)[0] == 0
    values.commit("two claims", tag="two")
    checks = [
        wikiwarden(values, "check", "--head", rev, "--format", "json", "--jobs", "1")
        for rev in ("one", "two") * (PARALLEL // 2)
    ]
    with ThreadPoolExecutor(PARALLEL) as pool:
        done = list(pool.map(finish, checks))
    assert [(code, err) for code, _, err in done] == [(0, "")] * PARALLEL
    memory = values.root / ".git" / "wikiwarden"
    documents = {path.name: json.loads(path.read_bytes()) for path in memory.iterdir()}
    assert sorted(documents) == ["evidence-index-v1.json", "pages-v1.json", "verdicts-v1.json"]  # nothing else
    sidecars = documents["evidence-index-v1.json"]["sidecars"]
    assert {_blob(values, "one", "openwiki/.claims/values.json"), _blob(values, "two", "openwiki/.claims/values.json")} <= set(sidecars)  # fmt: skip
    for rev in ("one", "two"):
        cold = wikiwarden(values, "check", "--head", rev, "--format", "json", "--no-cache")
        warm = wikiwarden(values, "check", "--head", rev, "--format", "json")
        assert json.loads(finish(warm)[1]) == json.loads(finish(cold)[1])
