"""`wikiwarden fix` on the demo repository (bot/demo.py: its last commit moves, renames, reformats, changes and
deletes evidence), without a model and with one: the fake OpenAI server named by WIKIWARDEN_* variables."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from clitools import status, use_fake
from fakeopenai import Failure, FakeOpenAI

from bot.claims.sidecar import parse_sidecar
from bot.demo import build_demo_repository

ROOT = Path(__file__).resolve().parents[3]
CHANGED = [
    "openwiki/.claims/configuration.json",
    "openwiki/.claims/queue.json",
    "openwiki/.claims/workers.json",
    "openwiki/configuration.md",
    "openwiki/queue.md",
    "openwiki/workers.md",
]
WORKERS_PAGE = "openwiki/workers.md"
TRIED = "A failing task is tried 3 times."
BACKOFF = "Retries wait 0.1 s, 0.2 s, 0.3 s: the wait grows linearly."
SEQUENTIAL = "run_sequentially runs tasks one by one."

pytestmark = pytest.mark.usefixtures("isolated_cli")


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "repo"
    env = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        build_demo_repository(root)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return root


@pytest.fixture
def demo(demo_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the demo repository (git's objects included), clean at tag v2."""
    root = tmp_path / "demo"
    subprocess.run(["cp", "-a", str(demo_template), str(root)], check=True)
    return root


def claim_ids(root: Path, page: str = "workers") -> dict[str, str]:
    path = f"openwiki/.claims/{page}.json"
    return {c.statement: c.id for c in parse_sidecar((root / path).read_bytes(), path).claims}


def workers_answer(ids: dict[str, str]) -> dict:
    def decision(statement: str, action: str, new: str | None, reason: str) -> dict:
        return {"id": ids[statement], "action": action, "statement": new, "evidence": None, "reason": reason}

    return {
        "claims": [
            decision(TRIED, "update", "A failing task is tried 5 times.", "MAX_ATTEMPTS is 5 now"),
            decision(BACKOFF, "update", "Retries wait twice as long each time.", "backoff is 0.1 * 2**attempt"),
            decision(SEQUENTIAL, "retract", None, "legacy.py was deleted"),
        ],
        "edits": [
            {
                "file": WORKERS_PAGE,
                "search": "A failing task is tried 3 times, waiting 0.1 s, 0.2 s, 0.3 s.",
                "replace": "A failing task is tried 5 times, waiting twice as long each time.",
            },
            {"file": WORKERS_PAGE, "search": " `run_sequentially` runs tasks one by one.", "replace": ""},
        ],
    }


# -- without a model -------------------------------------------------------------------------------------


def test_fix_without_a_model_reanchors_and_lists_what_needs_a_person(demo: Path, cli) -> None:
    before = claim_ids(demo)
    run = cli("fix", "--repo", demo, "--base", "HEAD~1")

    assert run.code == 1, run.err  # claims still need a person
    assert run.err == ""
    assert status(demo) == CHANGED
    lines = run.out.splitlines()
    assert lines[0] == "openwiki/configuration.md"
    assert f"Wrote 6 files: {', '.join(CHANGED)}" in lines
    assert lines[-2:] == ["4 claims still need a person.", "1 reference still needs a person."]
    assert "! openwiki/workers.md:8  run_sequentially" in run.out  # removed: as check says, for a person
    assert run.out.count("↪ re-anchored") == 4
    assert run.out.count("! still flagged") == 4
    assert run.out.count("no model is configured: a person must confirm, update or retract it") == 3
    assert "its evidence cannot be evaluated: src/taskq/current.py is a symlink" in run.out
    assert "      evidence: repo://src/taskq/util.py#L4-L9" in run.out  # drain moved to another file
    assert "Model " not in run.out

    queue = json.loads((demo / "openwiki/.claims/queue.json").read_text())
    resources = [e["resource"] for c in queue["claims"] for e in c["evidence"]]
    assert "repo://src/taskq/util.py#L4-L9" in resources
    assert "repo://src/taskq/queue.py#L19-L20" in resources  # pop, below the new peek
    workers = (demo / WORKERS_PAGE).read_text()
    assert "resource: repo://src/taskq/workers.py" in workers  # the renamed pool.py
    assert "verified:" not in workers
    assert "verified:" in (demo / "openwiki/queue.md").read_text()  # every claim of queue.md holds again
    assert claim_ids(demo) == before  # nothing decided without a model
    # Claims still need a person, so OpenWiki's `.last-update.json` is left alone (this wiki never had one).
    assert not (demo / "openwiki/.last-update.json").exists()

    again = cli("fix", "--repo", demo, "--base", "HEAD~1")  # a second run finds nothing more to re-anchor
    assert again.code == 1
    assert "Wrote 0 files." in again.out
    assert "re-anchored" not in again.out


def test_fix_dry_run_without_a_model_writes_nothing(demo: Path, cli) -> None:
    run = cli("fix", "--repo", demo, "--base", "HEAD~1", "--dry-run")
    assert run.code == 1
    assert status(demo) == []
    # the fix's report says what it would do ("re-anchored"), under a first line saying nothing was written
    assert run.out.splitlines()[0] == "dry run: nothing was written; this is what the fix would do"
    assert run.out.count("↪ re-anchored") == 4
    assert "Wrote 0 files." in run.out
    assert run.out.endswith(f"dry run: would write {', '.join(CHANGED)}\n")


def test_fix_without_a_base_checks_every_claim(demo: Path, cli) -> None:
    """No base: a full sweep, OpenWiki's algorithm. Renames and line-ending changes are no longer recognised
    as such, so more claims need a person; exact moves within a file are still re-anchored."""
    run = cli("fix", "--repo", demo)
    assert run.code == 1
    assert run.out.count("↪ re-anchored") == 1
    assert run.out.endswith("7 claims still need a person.\n")
    assert status(demo) == CHANGED


def test_fix_usage_errors(demo: Path, cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    run = cli("fix", "--repo", demo, "--max-claims", "0")
    assert (run.code, run.err) == (2, "wikiwarden: error: --max-claims must be at least 1\n")
    monkeypatch.setenv("WIKIWARDEN_MODEL_TIMEOUT_SECONDS", "-1")
    run = cli("fix", "--repo", demo)
    assert run.code == 2
    assert run.err.startswith("wikiwarden: error: invalid model settings: model_timeout_seconds: ")
    monkeypatch.delenv("WIKIWARDEN_MODEL_TIMEOUT_SECONDS")
    run = cli("fix", "--repo", demo, "--base", "no-such-rev")
    assert run.code == 2 and run.err.startswith("wikiwarden: error: ")
    (tmp_path / "empty").mkdir()
    assert cli("fix", "--repo", tmp_path / "empty").code == 2
    assert status(demo) == []


# -- with a model ----------------------------------------------------------------------------------------


async def test_fix_with_a_model_from_the_environment(
    demo: Path, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_fake(monkeypatch, fake_openai)
    ids = claim_ids(demo)
    fake_openai.reply_json(workers_answer(ids))

    run = await cli_in_thread("fix", "--repo", demo, "--base", "HEAD~1")

    assert run.code == 1, run.err  # the symlinked evidence of configuration.md still needs a person
    assert len(fake_openai.requests) == 1  # one page had claims to decide
    sent = fake_openai.requests[0]
    assert sent["model"] == "test-model"
    assert "Page: openwiki/workers.md" in sent["messages"][1]["content"]
    assert fake_openai.headers[0]["Authorization"] == f"Bearer {fake_openai.api_key}"
    assert status(demo) == CHANGED
    assert "✎ updated" in run.out and "✗ retracted" in run.out
    assert "      now: A failing task is tried 5 times." in run.out
    assert (
        f"Model test-model: {fake_openai.usage['prompt_tokens'] + fake_openai.usage['completion_tokens']:,} tokens"
        in run.out
    )
    assert run.out.endswith("1 claim still needs a person.\n1 reference still needs a person.\n")

    page = (demo / WORKERS_PAGE).read_text()
    assert "A failing task is tried 5 times, waiting twice as long each time." in page
    assert "run_sequentially" not in page
    assert "generated: {by: " in page  # the prose changed
    assert "verified:" in page  # every claim of the page holds again
    statements = set(claim_ids(demo))
    assert statements == {
        "run_all runs tasks on 4 threads by default.",
        "A failing task is tried 5 times.",
        "Retries wait twice as long each time.",
    }
    assert not (demo / "openwiki/.last-update.json").exists()  # a claim still needs a person


async def test_fix_dry_run_with_a_model_asks_but_writes_nothing(
    demo: Path, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_fake(monkeypatch, fake_openai)
    fake_openai.reply_json(workers_answer(claim_ids(demo)))
    run = await cli_in_thread("fix", "--repo", demo, "--base", "HEAD~1", "--dry-run")
    assert len(fake_openai.requests) == 1
    assert status(demo) == []
    assert "✎ updated" in run.out
    assert "Wrote 0 files." in run.out
    assert f"dry run: would write {', '.join(CHANGED)}" in run.out


async def test_fix_model_none_overrides_the_environment(
    demo: Path, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_fake(monkeypatch, fake_openai)
    run = await cli_in_thread("fix", "--repo", demo, "--base", "HEAD~1", "--model", "none")
    assert fake_openai.requests == []
    assert run.out.count("no model is configured") == 3


@pytest.mark.parametrize("none", ["none", "None", " NONE "])
async def test_wikiwarden_model_none_is_no_model_for_fix_and_ground(
    demo: Path, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, none: str
) -> None:
    """WIKIWARDEN_MODEL=none says no model, as `--model none` does: it used to be taken as a model's name, and
    `fix --dry-run` asked the model server for a model called `none`."""
    use_fake(monkeypatch, fake_openai)
    monkeypatch.setenv("WIKIWARDEN_MODEL", none)
    run = await cli_in_thread("fix", "--repo", demo, "--base", "HEAD~1", "--dry-run")
    assert fake_openai.requests == []
    assert run.out.count("no model is configured") == 3
    grounding = await cli_in_thread("ground", "--repo", demo, "--dry-run")
    assert fake_openai.requests == [] and grounding.code in (0, 1), grounding.err
    fake_openai.reply_json(workers_answer(claim_ids(demo)))
    named = await cli_in_thread("fix", "--repo", demo, "--base", "HEAD~1", "--dry-run", "--model", "test-model")
    assert len(fake_openai.requests) == 1 and "✎ updated" in named.out  # a model named by the flag still is one


async def test_fix_with_a_failing_model_flags_and_still_reanchors(
    demo: Path, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_fake(monkeypatch, fake_openai)
    fake_openai.script(Failure(500))
    run = await cli_in_thread("fix", "--repo", demo, "--base", "HEAD~1")
    assert run.code == 1
    assert run.out.count("the model's server answered 500") == 3
    assert run.out.count("↪ re-anchored") == 4
    assert status(demo) == CHANGED


async def test_fix_max_claims(
    demo: Path, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_fake(monkeypatch, fake_openai)
    ids = claim_ids(demo)
    fake_openai.reply_json(
        {"claims": [{"id": ids[TRIED], "action": "update", "statement": "A failing task is tried 5 times.",
                     "evidence": None, "reason": "MAX_ATTEMPTS is 5"}], "edits": []}
    )  # fmt: skip
    run = await cli_in_thread("fix", "--repo", demo, "--base", "HEAD~1", "--max-claims", "1")
    assert ids[BACKOFF] not in json.dumps(fake_openai.requests)
    assert run.out.count("left for the next run: at most 1 claims are decided per run") == 2
    assert "✎ updated" in run.out


async def test_the_console_script_against_the_fake(demo: Path, fake_openai: FakeOpenAI) -> None:
    """The real process: settings read from its environment, its own event loop, its exit status."""
    fake_openai.reply_json(workers_answer(claim_ids(demo)))
    env = {
        **os.environ,
        "WIKIWARDEN_OPENAI_BASE_URL": fake_openai.base_url,
        "WIKIWARDEN_OPENAI_API_KEY": fake_openai.api_key,
        "WIKIWARDEN_MODEL": "test-model",
        "WIKIWARDEN_MODEL_MAX_RETRIES": "0",
        "PYTHONPATH": str(ROOT),
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "fix", "--repo", str(demo), "--base", "HEAD~1",
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 1, err.decode()
    assert len(fake_openai.requests) == 1
    assert "A failing task is tried 5 times" in (demo / WORKERS_PAGE).read_text()
    assert out.decode().endswith("1 claim still needs a person.\n1 reference still needs a person.\n")
