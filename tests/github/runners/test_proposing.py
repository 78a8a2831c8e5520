"""Around a proposal's work (the fix, the grounding: `bot/github/runners/proposing.py`), against the fake GitHub: the check
run it reports on, found by the head commit when the request does not name it; what came of the work said on it;
and a failure said there once, in words, on the last try only, or at once when no retry can cure it."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from apptools import settings_for
from fakegithub import FakeGitHub, FakeRepo
from gidgethub.sansio import decipher_response

from bot.agent.factory import app_agents
from bot.github.api.client import GitHubClient
from bot.github.content.pull_requests import FIX, GROUND, ProposalStatus
from bot.github.runners.proposing import run_proposal
from bot.github.runtime import AppRuntime
from bot.jobs import Attempt, Job, PermanentFailure
from bot.jobs.requests import FixRequest, GroundRequest, RepoRef

SUMMARY = "3 claims checked."
LAST, EARLIER = Attempt(3, final=True), Attempt(1, final=False)


@dataclass
class Setting:
    fake: FakeGitHub
    repo: FakeRepo
    ref: RepoRef
    head: str
    run: dict[str, Any]
    rt: AppRuntime

    def job(self, run_id: int | None = None, kind: str = "fix") -> Job:
        request = FixRequest if kind == "fix" else GroundRequest
        return Job(
            f"{kind}:acme/widgets", "delivery-1", request(repo=self.ref, head_sha=self.head, check_run_id=run_id)
        )

    @property
    def summary(self) -> str:
        return str(self.run["output"]["summary"])


@pytest.fixture
async def setting(fake_github: FakeGitHub) -> AsyncIterator[Setting]:
    fake_github.add_installation(77, "acme")
    repo = fake_github.create_repo("acme", "widgets", 77)
    head = repo.commit({"a.txt": "a\n"}, message="x")
    run = repo.add_check_run(
        "Wikiwarden", head, conclusion="neutral", output={"title": "Wiki: 3 fresh", "summary": SUMMARY, "text": None}
    )
    async with aiohttp.ClientSession() as session:
        settings = settings_for(fake_github, max_retries=1)
        rt = AppRuntime(settings, session, runners={}, agents=app_agents(settings))
        yield Setting(
            fake_github, repo, RepoRef(installation_id=77, full_name="acme/widgets", id=repo.id), head, run, rt
        )
        await rt.close()


def refused(status: int, message: str) -> BaseException:
    """The exception gidgethub raises for GitHub's answer."""
    headers = {"content-type": "application/json", "x-ratelimit-remaining": "4999"}
    try:
        decipher_response(status, headers, json.dumps({"message": message}).encode())
    except Exception as exc:
        return exc
    raise AssertionError("no exception")


def failing(exc: BaseException) -> Any:
    async def work(gh: GitHubClient) -> ProposalStatus:
        raise exc

    return work


def note(label: str, text: str, name: str = "fix") -> str:
    return f"<!-- wikiwarden:{name}-note -->\n> **{label}:** {text}\n<!-- /wikiwarden:{name}-note -->\n\n"


def bot_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str, bool]]:
    """The proposal's log lines: level, message, whether a traceback goes with it."""
    return [
        (r.levelno, r.getMessage(), r.exc_info is not None) for r in caplog.records if r.name == "bot.github.runners.proposing"
    ]


async def test_what_came_of_the_work_is_said_on_the_run_found_by_the_head_commit(setting: Setting) -> None:
    async def work(gh: GitHubClient) -> ProposalStatus:
        return ProposalStatus("Opened the fix.", "https://github.com/acme/widgets/pull/5")

    await run_proposal(setting.rt, setting.job(), LAST, FIX, work)
    assert setting.summary == (
        "<!-- wikiwarden:fix-note -->\n> **Fix:** Opened the fix. [Open the pull request]"
        "(https://github.com/acme/widgets/pull/5).\n<!-- /wikiwarden:fix-note -->\n\n" + SUMMARY
    )
    assert setting.run["details_url"] == "https://github.com/acme/widgets/pull/5"


async def test_a_failure_on_an_earlier_try_is_raised_again_and_not_said(
    setting: Setting, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    with pytest.raises(RuntimeError, match="boom"):
        await run_proposal(setting.rt, setting.job(setting.run["id"]), EARLIER, FIX, failing(RuntimeError("boom")))
    assert setting.summary == SUMMARY  # the next try may yet succeed
    assert bot_lines(caplog) == [(logging.WARNING, "fix failed, to be tried again: RuntimeError", False)]


async def test_a_failure_on_the_last_try_is_said_on_the_run_and_logged_with_its_traceback(
    setting: Setting, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    with pytest.raises(RuntimeError, match="boom"):
        await run_proposal(setting.rt, setting.job(setting.run["id"]), LAST, FIX, failing(RuntimeError("boom")))
    internal = "Wikiwarden hit an internal error (RuntimeError); the maintainers have the details in its logs."
    assert setting.summary == note("Fix", f"Wikiwarden could not propose a fix: {internal}") + SUMMARY
    assert bot_lines(caplog) == [(logging.ERROR, "fix failed", True)]


async def test_a_grounding_that_github_refused_for_good_is_said_at_once_and_not_tried_again(
    setting: Setting, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    exc = refused(403, "Resource not accessible by integration")
    with pytest.raises(PermanentFailure) as raised:
        await run_proposal(setting.rt, setting.job(kind="ground"), EARLIER, GROUND, failing(exc))
    assert raised.value.__cause__ is exc
    cause = (
        "GitHub refused access to acme/widgets (403 Forbidden: Resource not accessible by integration): a "
        "permission the App needs was not granted, or the repository is archived"
    )
    assert str(raised.value) == cause
    said = f"Wikiwarden could not propose a grounding: Wikiwarden gave up without trying again: {cause}. Re-run the "
    said += "check once that is put right."
    assert setting.summary == note("Grounding", said, "ground") + SUMMARY  # found by the head commit
    assert bot_lines(caplog) == []  # the queue's one line says it


async def test_without_a_run_to_say_it_on_the_failure_is_only_raised(
    setting: Setting, caplog: pytest.LogCaptureFixture
) -> None:
    setting.repo.check_runs.clear()
    with pytest.raises(RuntimeError, match="boom"):
        await run_proposal(setting.rt, setting.job(), LAST, FIX, failing(RuntimeError("boom")))
    assert not any(r.method == "PATCH" for r in setting.fake.requests)
    assert bot_lines(caplog) == [(logging.ERROR, "fix failed", True)]


async def test_a_note_that_cannot_be_written_is_logged_and_the_failure_still_raised(
    setting: Setting, caplog: pytest.LogCaptureFixture
) -> None:
    setting.fake.fail_next("PATCH", r"/check-runs/", 500, times=10)
    with pytest.raises(RuntimeError, match="boom"):
        await run_proposal(setting.rt, setting.job(setting.run["id"]), LAST, FIX, failing(RuntimeError("boom")))
    assert setting.summary == SUMMARY
    assert bot_lines(caplog) == [
        (logging.ERROR, "fix failed", True),
        (logging.ERROR, "could not report the failed fix on the check run", True),
    ]


async def test_a_permanent_refusal_of_the_note_too_is_not_logged_twice(
    setting: Setting, caplog: pytest.LogCaptureFixture
) -> None:
    """GitHub refusing the work for good refuses the note alike: the queue's line says it once."""
    setting.fake.fail_next("GET", r"/check-runs/", 403, body={"message": "Resource not accessible by integration"})
    exc = refused(403, "Resource not accessible by integration")
    with pytest.raises(PermanentFailure):
        await run_proposal(setting.rt, setting.job(setting.run["id"]), LAST, FIX, failing(exc))
    assert setting.summary == SUMMARY and bot_lines(caplog) == []
