"""The job timeout as a hard deadline, with the in-process queue: a check that a large (legal) wiki makes slower
than the timeout is killed in its process, the check run concludes `timed_out` saying it took too long, it is not
tried again, and the web process answers `/healthz` all along (real HTTP on loopback, the fake GitHub)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from apptools import ZERO, deliver, grounded, push_payload, queue_of, runs_of, start_app
from fakegithub import FakeGitHub, FakeRepo
from prometheus_client import REGISTRY

from bot.github.content.check_output import TOOK_TOO_LONG

TIMEOUT = 0.5  # seconds: the wiki below takes several times as long to check
PAGES = 400


def large_wiki() -> dict[str, bytes]:
    """PAGES pages, each citing its own module: every page, sidecar and module is read by a full check."""
    code = {f"src/m{n}.py": f"def f_{n}():\n    return {n}\n" for n in range(PAGES)}
    claims = {f"p{n}.md": [(f"f_{n} returns {n}", [f"repo://src/m{n}.py#L1-L2"])] for n in range(PAGES)}
    return grounded(code, claims)


def jobs_counted(outcome: str) -> float:
    return REGISTRY.get_sample_value("wikiwarden_jobs_total", {"kind": "check", "outcome": outcome}) or 0.0


async def healthz_seconds(app: Any) -> float:
    started = time.monotonic()
    async with asyncio.timeout(2):  # generous: the bench measures the real latency
        response = await app.get("/healthz")
        assert response.status == 200 and (await response.json())["status"] == "ok"
    return time.monotonic() - started


async def test_a_job_past_its_deadline_is_killed_reported_as_too_long_and_not_tried_again(
    aiohttp_client: Any, fake: FakeGitHub
) -> None:
    repo: FakeRepo = fake.create_repo("acme", "widgets", 77)
    head = repo.commit(large_wiki(), message="a large wiki")
    app = await start_app(aiohttp_client, fake, job_timeout_seconds=TIMEOUT, job_max_tries=3)
    timed_out, retried = jobs_counted("timed_out"), jobs_counted("retried")

    # a new default branch: no base, every claim of the wiki is checked
    status, _ = await deliver(
        app, "push", push_payload(repo, before=ZERO, after=head, created=True), secret=fake.webhook_secret
    )
    assert status == 202
    while not runs_of(repo, head):  # the job's process has started the check run: it is running now
        await asyncio.sleep(0.02)
    await healthz_seconds(app)  # the web process answers while the job runs
    await queue_of(app).wait_idle(timeout=30)

    [run] = runs_of(repo, head)
    assert run["status"] == "completed" and run["conclusion"] == "timed_out"
    assert run["output"]["title"] == TOOK_TOO_LONG
    assert f"{TIMEOUT:g}-second job timeout" in run["output"]["summary"]
    assert "not tried again" in run["output"]["summary"]
    assert jobs_counted("timed_out") == timed_out + 1
    assert jobs_counted("retried") == retried  # one try, however many tries a failing job gets

    # The job's process was killed, not left running: GitHub hears nothing more from it.
    heard = len(fake.requests)
    await asyncio.sleep(1.0)
    assert len(fake.requests) == heard
    assert len([r for r in fake.requests if r.method == "POST" and r.path.endswith("/check-runs")]) == 1


async def test_the_same_wiki_is_checked_within_a_timeout_long_enough(aiohttp_client: Any, fake: FakeGitHub) -> None:
    """The control: what the timeout cut short is a check that completes, and the web process answered meanwhile."""
    repo: FakeRepo = fake.create_repo("acme", "widgets", 77)
    head = repo.commit(large_wiki(), message="a large wiki")
    app = await start_app(aiohttp_client, fake, job_timeout_seconds=120)
    status, _ = await deliver(
        app, "push", push_payload(repo, before=ZERO, after=head, created=True), secret=fake.webhook_secret
    )
    assert status == 202
    while not runs_of(repo, head):
        await asyncio.sleep(0.02)
    await healthz_seconds(app)
    await queue_of(app).wait_idle(timeout=120)
    [run] = runs_of(repo, head)
    assert run["status"] == "completed" and run["conclusion"] == "success", run["output"]["title"]
    assert run["output"]["title"] == f"All {PAGES} affected claims hold"
