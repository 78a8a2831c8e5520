"""What a failure means for a job (`AppRuntime.permanent_failure`), against the fake GitHub: GitHub is asked about
the repository itself, once and with a fresh token, only when the refusal cannot tell what is missing (401, 404,
410); only its answer makes the failure permanent."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator

import aiohttp
import pytest
from apptools import settings_for
from fakegithub import FakeGitHub
from gidgethub import RateLimitExceeded
from gidgethub.sansio import RateLimit, decipher_response

from bot.agent.factory import app_agents
from bot.github.runtime import AppRuntime
from bot.jobs import Job, JobAbandoned, PermanentFailure
from bot.jobs.requests import CheckRequest, FixRequest, GroundRequest, RepoRef

REPO = RepoRef(installation_id=77, full_name="acme/widgets", id=1)
GONE = "the repository acme/widgets no longer exists, or installation 77 can no longer see it"
NO_ACCESS = (
    "GitHub refused access to acme/widgets (403 Forbidden: Resource not accessible by integration): a permission the "
    "App needs was not granted, or the repository is archived"
)


@pytest.fixture
async def rt(fake_github: FakeGitHub) -> AsyncIterator[AppRuntime]:
    fake_github.add_installation(77, "acme")
    fake_github.create_repo("acme", "widgets", 77)
    async with aiohttp.ClientSession() as session:
        settings = settings_for(fake_github, max_retries=1)
        runtime = AppRuntime(settings, session, runners={}, agents=app_agents(settings))
        yield runtime
        await runtime.close()


def refused(status: int, message: str = "Not Found") -> BaseException:
    """The exception gidgethub raises for GitHub's answer."""
    headers = {"content-type": "application/json", "x-ratelimit-remaining": "4999"}
    try:
        decipher_response(status, headers, json.dumps({"message": message}).encode())
    except Exception as exc:
        return exc
    raise AssertionError("no exception")


def probes(fake: FakeGitHub) -> list[int]:
    """The answers to the App's questions about the repository itself."""
    return [r.status for r in fake.requests if r.method == "GET" and re.fullmatch(r"/repos/acme/widgets", r.path)]


async def test_a_permanent_failure_stays_one_and_what_a_retry_may_cure_is_none(
    rt: AppRuntime, fake_github: FakeGitHub
) -> None:
    permanent = PermanentFailure("given up")
    assert await rt.permanent_failure(REPO, permanent) is permanent
    limit = RateLimit(limit=5000, remaining=0, reset_epoch=0)
    for exc in (RuntimeError("a bug"), TimeoutError(), RateLimitExceeded(limit), refused(422, "No commit found")):
        assert await rt.permanent_failure(REPO, exc) is None
    assert fake_github.requests == []  # nothing to ask GitHub


async def test_access_refused_is_permanent_without_asking(rt: AppRuntime, fake_github: FakeGitHub) -> None:
    failure = await rt.permanent_failure(REPO, refused(403, "Resource not accessible by integration"))
    assert isinstance(failure, PermanentFailure) and str(failure) == NO_ACCESS
    assert fake_github.requests == []


@pytest.mark.parametrize("status", [401, 404, 410])
async def test_a_refusal_that_cannot_tell_asks_for_the_repository_with_a_fresh_token(
    rt: AppRuntime, fake_github: FakeGitHub, status: int
) -> None:
    await rt.client(77)
    assert fake_github.token_mints == 1
    assert await rt.permanent_failure(REPO, refused(status)) is None  # it is there: something else was missing
    assert probes(fake_github) == [200] and fake_github.token_mints == 2  # the held token was dropped


@pytest.mark.parametrize("status", [404, 410])
async def test_a_repository_gone_is_permanent(rt: AppRuntime, fake_github: FakeGitHub, status: int) -> None:
    fake_github.fail_next("GET", r"^/repos/acme/widgets$", status)
    failure = await rt.permanent_failure(REPO, refused(404))
    assert isinstance(failure, PermanentFailure) and str(failure) == GONE
    assert probes(fake_github) == [status]


async def test_a_deleted_repository_is_gone(rt: AppRuntime, fake_github: FakeGitHub) -> None:
    fake_github.repos.pop("acme/widgets")
    fake_github.installations[77].repos.discard("acme/widgets")
    failure = await rt.permanent_failure(REPO, refused(404))
    assert isinstance(failure, PermanentFailure) and str(failure) == GONE


async def test_an_uninstalled_app_is_permanent_as_the_token_says(rt: AppRuntime, fake_github: FakeGitHub) -> None:
    del fake_github.installations[77]
    failure = await rt.permanent_failure(REPO, refused(401, "Bad credentials"))
    assert isinstance(failure, PermanentFailure)
    assert str(failure) == "installation 77 no longer exists: the App was uninstalled"
    assert probes(fake_github) == []  # no token to ask with


async def test_the_repository_refused_when_asked_is_access_refused(rt: AppRuntime, fake_github: FakeGitHub) -> None:
    fake_github.fail_next(
        "GET", r"^/repos/acme/widgets$", 403, body={"message": "Resource not accessible by integration"}
    )
    failure = await rt.permanent_failure(REPO, refused(404))
    assert isinstance(failure, PermanentFailure) and str(failure) == NO_ACCESS


@pytest.mark.parametrize(("status", "times"), [(502, 5), (422, 1)])
async def test_an_answer_that_says_nothing_of_the_repository_leaves_the_failure_worth_another_try(
    rt: AppRuntime, fake_github: FakeGitHub, status: int, times: int
) -> None:
    fake_github.fail_next("GET", r"^/repos/acme/widgets$", status, times=times)
    assert await rt.permanent_failure(REPO, refused(404)) is None
    assert probes(fake_github)[-1] == status


# -- a job that never finished ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["check", "fix", "ground"])
async def test_a_job_that_never_finished_is_said_on_its_run_by_the_runtime(
    rt: AppRuntime, fake_github: FakeGitHub, kind: str
) -> None:
    repo = fake_github.repos["acme/widgets"]
    head = repo.commit({"a.txt": "a\n"}, message="x")
    run = repo.add_check_run("Wikiwarden", head, output={"title": "Wiki", "summary": "Checking.", "text": None})
    ref = RepoRef(installation_id=77, full_name="acme/widgets", id=repo.id)
    request = {"check": CheckRequest, "fix": FixRequest, "ground": GroundRequest}[kind](repo=ref, head_sha=head)
    await rt.job_failed(Job(f"{kind}:x", "d", request), JobAbandoned("the job ran past 600 s"))
    said = "Wikiwarden gave up: the job ran past 600 s. Re-run the check to try again."
    if kind == "check":
        assert (run["status"], run["conclusion"]) == ("completed", "failure")
        assert run["output"]["title"] == "Wikiwarden could not check this commit" and run["output"]["summary"] == said
    else:
        label = {"fix": "Fix", "ground": "Grounding"}[kind]
        assert run["output"]["summary"] == (
            f"<!-- wikiwarden:{kind}-note -->\n> **{label}:** {said}\n<!-- /wikiwarden:{kind}-note -->\n\nChecking."
        )
        assert run["conclusion"] is None


async def test_a_job_that_failed_otherwise_has_said_it_itself(rt: AppRuntime, fake_github: FakeGitHub) -> None:
    repo = fake_github.repos["acme/widgets"]
    head = repo.commit({"a.txt": "a\n"}, message="x")
    ref = RepoRef(installation_id=77, full_name="acme/widgets", id=repo.id)
    await rt.job_failed(Job("check:x", "d", CheckRequest(repo=ref, head_sha=head)), RuntimeError("boom"))
    assert fake_github.requests == []


async def test_an_abandoned_job_without_a_run_says_nothing(rt: AppRuntime, fake_github: FakeGitHub) -> None:
    repo = fake_github.repos["acme/widgets"]
    head = repo.commit({"a.txt": "a\n"}, message="x")
    ref = RepoRef(installation_id=77, full_name="acme/widgets", id=repo.id)
    await rt.job_failed(Job("fix:x", "d", FixRequest(repo=ref, head_sha=head)), JobAbandoned("worker gone"))
    assert [r.method for r in fake_github.requests if "/check-runs" in r.path] == ["GET"]  # looked for one: none
