"""The in-process queue of `wikiwarden serve`: a failing job is tried again with backoff, one that can never succeed
(a permanent failure) is not, and says so in one log line naming its repository and installation."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.jobs import Attempt, Job, PermanentFailure, RetryPolicy, TookTooLong
from bot.jobs.memory import InProcessQueue
from bot.jobs.requests import CheckRequest, RepoRef


def check_job(delivery: str = "d-1") -> Job:
    repo = RepoRef(installation_id=77, full_name="acme/widgets", id=5)
    return Job("5:branch:main", delivery, CheckRequest(repo=repo, head_sha="a" * 40))


async def run_one(job: Job, error: BaseException, tries: int = 3) -> tuple[list[Attempt], list[BaseException]]:
    """Run `job` on a queue whose handler fails with `error`; the tries made and the failures reported."""
    tries_made: list[Attempt] = []
    reported: list[BaseException] = []

    async def handler(job: Job, attempt: Attempt) -> None:
        tries_made.append(attempt)
        raise error

    async def on_failure(job: Job, exc: BaseException) -> None:
        reported.append(exc)

    queue = InProcessQueue(handler, workers=1, on_failure=on_failure, retry=RetryPolicy(tries, 0.001))
    await queue.start()
    try:
        assert await queue.submit(job)
        await queue.wait_idle(10)
    finally:
        await queue.close()
    return tries_made, reported


async def test_an_ordinary_failure_is_tried_max_tries_times_then_reported(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    tries, reported = await run_one(check_job(), RuntimeError("GitHub is down"))
    assert tries == [Attempt(1, False), Attempt(2, False), Attempt(3, True)]
    assert [str(exc) for exc in reported] == ["GitHub is down"]
    assert any(r.levelno == logging.ERROR and r.exc_info for r in caplog.records)  # unexpected: a traceback


async def test_a_permanent_failure_is_tried_once_and_logged_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    tries, reported = await run_one(check_job(), PermanentFailure("the repository no longer exists"))
    assert tries == [Attempt(1, False)]
    assert reported == []  # the job said on the check run what it could; nothing more to report
    lines = [r for r in caplog.records if r.name.startswith("bot.") and r.levelno >= logging.WARNING]
    [line] = lines
    assert line.levelno == logging.WARNING and line.exc_info is None
    assert line.getMessage() == (
        "check job for acme/widgets (installation 77) not retried: the repository no longer exists"
    )
    assert (line.repo, line.installation, line.delivery, line.job_kind) == ("acme/widgets", 77, "d-1", "check")


async def test_a_permanent_failure_on_the_last_try_is_still_not_reported_as_a_crash(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    tries, reported = await run_one(check_job(), PermanentFailure("installation 77 no longer exists"), tries=1)
    assert tries == [Attempt(1, True)] and reported == []
    assert not any(r.levelno >= logging.ERROR for r in caplog.records)


async def test_a_try_past_the_timeout_took_too_long_and_is_not_tried_again() -> None:
    tries: list[int] = []
    failures: list[BaseException] = []

    async def slow(job: Job, attempt: Attempt) -> None:
        tries.append(attempt.number)
        await asyncio.sleep(30)

    async def failed(job: Job, exc: BaseException) -> None:
        failures.append(exc)

    queue = InProcessQueue(slow, workers=1, on_failure=failed, retry=RetryPolicy(3, 0.01), timeout=0.2)
    await queue.start()
    try:
        await queue.submit(check_job("d-slow"))
        await queue.wait_idle(timeout=10)
    finally:
        await queue.close()
    assert tries == [1]  # not tried again
    [failure] = failures
    assert isinstance(failure, TookTooLong) and "0.2-second job timeout" in str(failure)


async def test_a_handlers_own_timeout_is_a_failure_tried_again_not_too_long() -> None:
    tries: list[int] = []
    failures: list[BaseException] = []

    async def times_out(job: Job, attempt: Attempt) -> None:
        tries.append(attempt.number)
        raise TimeoutError("GitHub did not answer")

    async def failed(job: Job, exc: BaseException) -> None:
        failures.append(exc)

    queue = InProcessQueue(times_out, workers=1, on_failure=failed, retry=RetryPolicy(3, 0.01), timeout=30)
    await queue.start()
    try:
        await queue.submit(check_job("d-own"))
        await queue.wait_idle(timeout=10)
    finally:
        await queue.close()
    assert tries == [1, 2, 3]
    [failure] = failures
    assert type(failure) is TimeoutError
