"""`wikiwarden claim show ID`: the claim, the text each evidence record was taken from beside the text there now,
and the diff, on a real repository whose history changed the evidence."""

from __future__ import annotations

import json
import re

import pytest
from clitools import status
from conftest import GitRepo

pytestmark = pytest.mark.usefixtures("isolated_cli")

RETRY = "MAX_ATTEMPTS = 3\n\n\ndef backoff(attempt):\n    return 0.1 * attempt\n"
PAGE = "# Retries\n\nA task is tried 3 times; the wait grows linearly.\n"


def _add(cli, repo: GitRepo, statement: str, *resources: str) -> str:
    run = cli("claim", "add", "--repo", repo.root, "retry.md", statement, *resources)
    assert run.code == 0, run.err
    found = re.search(r"^added (claim_[0-9a-f]{32}) ", run.out, re.M)
    assert found
    return found.group(1)


@pytest.fixture
def grounded(repo: GitRepo, cli) -> tuple[GitRepo, str, str]:
    repo.write("src/retry.py", RETRY)
    repo.write("openwiki/retry.md", PAGE)
    repo.commit("code and page")
    tried = _add(cli, repo, "A task is tried 3 times.", "repo://src/retry.py#L1")
    wait = _add(cli, repo, "The wait grows linearly.", "repo://src/retry.py#L4-L5")
    repo.commit("grounded", tag="v1")
    return repo, tried, wait


def test_a_claim_whose_evidence_holds_shows_it_once_and_passes(grounded, cli) -> None:
    repo, tried, _ = grounded
    run = cli("claim", "show", "--repo", repo.root, tried)
    assert run.code == 0, run.err
    assert run.out.startswith(f"{tried}  openwiki/retry.md\n  A task is tried 3 times.\n\n")
    assert "repo://src/retry.py#L1-L1: fresh\n" in run.out
    assert "recorded (the working tree)" in run.out
    assert "MAX_ATTEMPTS = 3" in run.out and "diff:" not in run.out and "claim confirm" not in run.out


def test_a_stale_claim_shows_the_recorded_text_from_history_beside_the_text_now(grounded, cli) -> None:
    repo, tried, wait = grounded
    repo.write("src/retry.py", RETRY.replace("= 3", "= 5").replace("0.1 * attempt", "0.1 * 2 ** attempt"))
    repo.commit("five tries, doubling waits")
    v1 = repo.git("log", "-n1", "--format=%H", "v1", "--", "src/retry.py").strip()  # the last commit of the file

    run = cli("claim", "show", "--repo", repo.root, tried)
    assert run.code == 1
    assert "repo://src/retry.py#L1-L1: stale\n" in run.out
    assert f"recorded (commit {v1[:12]})" in run.out  # the newest commit still holding the recorded text
    assert re.search(r"^  MAX_ATTEMPTS = 3 +! MAX_ATTEMPTS = 5$", run.out, re.M)
    assert "    -MAX_ATTEMPTS = 3\n    +MAX_ATTEMPTS = 5\n" in run.out
    assert f"wikiwarden claim confirm {tried}" in run.out and f"wikiwarden claim retract {tried}" in run.out

    as_json = cli("claim", "show", "--repo", repo.root, wait, "--format", "json")
    assert as_json.code == 1  # as the text form: the claim needs attention
    shown = json.loads(as_json.out)
    assert shown["id"] == wait and shown["page"] == "openwiki/retry.md"
    [evidence] = shown["evidence"]
    assert evidence["verdict"] == "unresolved"  # a full sweep cannot place a changed two-line span
    assert evidence["resource_now"] == "repo://src/retry.py#L4-L5"  # what stands at the recorded lines now
    assert evidence["recorded"] == "def backoff(attempt):\n    return 0.1 * attempt\n"
    assert evidence["now"] == "def backoff(attempt):\n    return 0.1 * 2 ** attempt\n"
    assert evidence["recorded_in"] == v1
    assert status(repo.root) == []  # nothing written


def test_with_base_the_recorded_text_comes_from_that_commit_and_moves_are_followed(grounded, cli) -> None:
    repo, tried, _ = grounded
    repo.git("mv", "src/retry.py", "src/retries.py")
    repo.write("src/retries.py", RETRY.replace("= 3", "= 4"))
    repo.commit("renamed and changed")
    shown = json.loads(cli("claim", "show", "--repo", repo.root, tried, "--base", "v1", "--format", "json").out)
    [evidence] = shown["evidence"]
    assert (evidence["verdict"], evidence["resource_now"]) == ("stale", "repo://src/retries.py#L1-L1")
    assert (evidence["recorded"], evidence["now"]) == ("MAX_ATTEMPTS = 3\n", "MAX_ATTEMPTS = 4\n")


def test_gone_evidence_and_history_that_never_held_the_version(grounded, cli) -> None:
    repo, tried, _ = grounded
    repo.remove("src/retry.py")
    repo.commit("retries removed")
    run = cli("claim", "show", "--repo", repo.root, tried)
    assert run.code == 1
    assert "repo://src/retry.py#L1-L1: unresolved\n" in run.out and "now: gone" in run.out
    sidecar = repo.read("openwiki/.claims/retry.json").decode()
    forged = re.sub(r'"version": "repo-lines-v1:[^"]*"', '"version": "repo-lines-v1:AAAA"', sidecar, count=1)
    repo.write("openwiki/.claims/retry.json", forged)
    repo.write("src/retry.py", RETRY)
    run = cli("claim", "show", "--repo", repo.root, tried)
    assert "recorded: not found in the last 200 commits" in run.out


def test_an_unknown_claim_is_an_error(grounded, cli) -> None:
    repo, _, _ = grounded
    run = cli("claim", "show", "--repo", repo.root, "claim_" + "0" * 32)
    assert (run.code, run.out) == (2, "")
    assert run.err == f"wikiwarden: error: no claim claim_{'0' * 32} in openwiki/\n"


def test_show_through_a_change_ends_with_the_confirm_check_gives(grounded, cli) -> None:
    """Shown with --base, the commands that settle the claim are check's own: `claim confirm ID --base REV`."""
    repo, tried, _wait = grounded
    repo.write("src/retry.py", RETRY.replace("= 3", "= 5"))
    repo.commit("five tries")
    run = cli("claim", "show", "--repo", repo.root, tried, "--base", "HEAD~1")
    assert run.code == 1
    confirm = f"wikiwarden claim confirm {tried} --base 'HEAD~1'"
    assert f"\n{confirm}   # the statement still holds" in run.out
    check = cli("check", "--repo", repo.root, "--base", "HEAD~1")
    assert f"`wikiwarden claim confirm {tried} --repo {repo.root} --base 'HEAD~1'`" in check.out  # check's words
