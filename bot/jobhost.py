"""The App's jobs, each in a process of its own (`bot.jobs.process`): the web process (in-process queue) and
`wikiwarden worker` (Redis queue) hand a job to a child and only wait, so the job timeout can stop it whatever it
is doing, and the parent keeps answering `/healthz` and taking deliveries meanwhile.

The child builds the App's runtime for its one job (an HTTP session, the runners, the agents) from the parent's
settings. What outlives a job stays in the parent and is reached through the channel: the daily token ledger and the
answers paid for (the budgets hold across jobs), the installation tokens (one serves many jobs), the evidence index
and the shared sidecars, and the queue (a check that starts a fix). What a child caches for itself (blobs, trees,
conditional requests' ETags) goes with it.
"""

from __future__ import annotations

import json
import logging
from typing import Any, cast

import aiohttp

from .agent.factory import AgentFactory, app_agents
from .github.api.auth import InstallationTokens
from .github.runners.table import RUNNERS
from .github.runtime import AppRuntime
from .jobs import Attempt, Job, JobHandler
from .jobs.process import Channel, Remote, prepare, run_in_child, warm
from .logs import configure_logging
from .metrics import GITHUB_RATE_LIMIT_REMAINING, JOB_SECONDS, JOBS_RUNNING, Counted, add_counted, counted_here
from .settings import Settings
from .source.memory import SharedIndex
from .source.shared_blobs import SharedBlobs

log = logging.getLogger(__name__)
__all__ = ["isolated_jobs", "start_job_processes"]


async def start_job_processes() -> None:
    """Start the fork server every job's process comes from, with this module (and so the App's code) imported."""
    prepare([__name__])
    await warm()


class _Totals:
    """Where a child hands what its job counted: its metrics, and the files it fetched from GitHub."""

    def __init__(self, runtime: AppRuntime) -> None:
        self._runtime = runtime

    def add(self, counted: Counted, fetched_blobs: int, rate_limit_remaining: int | None) -> None:
        add_counted(counted)
        self._runtime.cache.fetched_blobs += max(0, int(fetched_blobs))
        self._runtime.stats.rate_limit_remaining = rate_limit_remaining or self._runtime.stats.rate_limit_remaining
        if rate_limit_remaining is not None:
            GITHUB_RATE_LIMIT_REMAINING.set(rate_limit_remaining)


class _Submit:
    """The parent's queue as a child's service: a job that follows a job (a check's fix) is queued by the parent."""

    def __init__(self, runtime: AppRuntime) -> None:
        self._runtime = runtime

    async def submit(self, payload: dict[str, Any]) -> bool:
        if self._runtime.submit is None:
            return False
        return await self._runtime.submit(Job.from_json(payload))


def isolated_jobs(settings: Settings, runtime: AppRuntime) -> JobHandler:
    """The job handler of a web process or worker whose runtime is `runtime`: each try in a child process, timed and
    counted here. Cancelling it (the queue's job timeout, shutdown) kills the child."""

    async def run(job: Job, attempt: Attempt) -> None:
        agents = cast(AgentFactory, runtime.agents)
        services = {
            "queue": _Submit(runtime),
            "ledger": agents.ledger,
            "answers": agents.answers,
            "evidence": runtime.evidence,
            "blobs": runtime.cache.shared,
            "tokens": runtime.tokens,
            "totals": _Totals(runtime),
        }
        args = (settings, job.to_json(), attempt, runtime.cache.shared.shared)
        with JOB_SECONDS.labels(job.kind).time(), JOBS_RUNNING.labels(job.kind).track_inprogress():
            await run_in_child(run_one_job, args, services)

    return run


async def run_one_job(
    channel: Channel, settings: Settings, payload: dict[str, Any], attempt: Attempt, blobs_shared: bool
) -> None:
    """In the child: one try of the job, through a runtime of its own whose long-lived parts are the parent's."""
    configure_logging(settings.log_format, settings.log_level, settings.secret_values())
    job = Job.from_json(payload)
    timeout = aiohttp.ClientTimeout(total=120, connect=15)
    async with aiohttp.ClientSession(timeout=timeout, json_serialize=json.dumps) as session:
        agents = app_agents(settings)
        agents.ledger = cast(Any, Remote(channel, "ledger"))
        agents.answers = cast(Any, Remote(channel, "answers"))
        runtime = AppRuntime(settings, session, RUNNERS, agents)
        runtime.evidence = cast(SharedIndex, Remote(channel, "evidence"))
        runtime.cache.shared = cast(SharedBlobs, Remote(channel, "blobs", shared=blobs_shared))
        runtime.tokens = cast(InstallationTokens, Remote(channel, "tokens", notices=("forget",)))

        async def submit(follow_up: Job) -> bool:
            return bool(await channel.call("queue", "submit", follow_up.to_json()))

        runtime.submit = submit
        try:
            await runtime.run(job, attempt)
        finally:
            await runtime.close()
            stats = runtime.stats
            channel.notify("totals", "add", counted_here(), runtime.cache.fetched_blobs, stats.rate_limit_remaining)
