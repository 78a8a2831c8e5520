"""`wikiwarden worker`: runs the jobs web processes put on the Redis queue, as many at once as
`WIKIWARDEN_WORKERS`, and answers `GET /healthz` and `GET /metrics` on `WIKIWARDEN_WORKER_PORT`.

On SIGTERM or SIGINT it stops taking jobs, gives the running ones `WIKIWARDEN_SHUTDOWN_GRACE_SECONDS` to
finish, then cancels the rest, which go back to the queue for another worker.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal

import aiohttp
from aiohttp import web
from arq.worker import Worker, func

from .agent.factory import app_agents
from .github.runners.table import RUNNERS
from .github.runtime import AppRuntime
from .jobhost import isolated_jobs, start_job_processes
from .jobs import RetryPolicy
from .jobs.redis import ARQ_MARGIN, FUNCTION, QUEUE_NAME, RedisQueue, job_function
from .metrics import exposition
from .settings import Settings

log = logging.getLogger(__name__)


def build_worker(settings: Settings, runtime: AppRuntime, queue: RedisQueue) -> Worker:
    """The arq worker running Wikiwarden's jobs through `runtime` (signals are left to the caller)."""
    retry = RetryPolicy(settings.job_max_tries, settings.job_retry_base_seconds)
    timeout = settings.job_timeout_seconds
    task = job_function(isolated_jobs(settings, runtime), retry, timeout, on_failure=runtime.job_failed)
    return Worker(
        functions=[func(task, name=FUNCTION, timeout=timeout + ARQ_MARGIN, max_tries=retry.max_tries + 1)],
        queue_name=QUEUE_NAME,
        redis_pool=queue.pool,
        max_jobs=settings.workers,
        job_timeout=timeout + ARQ_MARGIN,
        keep_result=3600,
        poll_delay=0.2,
        retry_jobs=True,
        handle_signals=False,
        job_completion_wait=int(settings.shutdown_grace_seconds),
        health_check_interval=30,
    )


def _health_app(worker: Worker, queue: RedisQueue) -> web.Application:
    async def healthz(request: web.Request) -> web.Response:
        try:
            await asyncio.wait_for(queue.pool.ping(), 2)
        except Exception as exc:
            unhealthy = {"status": "unhealthy", "reason": f"Redis does not answer ({type(exc).__name__})"}
            return web.json_response(unhealthy, status=503)
        body: dict[str, str | int] = {
            "status": "ok" if worker.allow_pick_jobs else "stopping",
            "running": len(worker.tasks),
            "completed": worker.jobs_complete,
            "failed": worker.jobs_failed,
            "retried": worker.jobs_retried,
        }
        return web.json_response(body, status=200 if worker.allow_pick_jobs else 503, dumps=json.dumps)

    async def metrics(request: web.Request) -> web.Response:
        body, content_type = exposition()
        return web.Response(body=body, headers={"Content-Type": content_type})

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    return app


async def run_worker(settings: Settings, stop: asyncio.Event | None = None) -> None:
    """Run until SIGTERM/SIGINT (or `stop` is set), then shut down gracefully."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    timeout = aiohttp.ClientTimeout(total=120, connect=15)
    async with aiohttp.ClientSession(timeout=timeout, json_serialize=json.dumps) as session:
        runtime = AppRuntime(settings, session, RUNNERS, app_agents(settings))
        queue = RedisQueue(settings.redis_url.get_secret_value())
        await queue.start()
        runtime.submit = queue.submit  # a check may be followed by a fix
        runtime.share_through(queue.pool)  # budgets and paid answers, for every worker
        await start_job_processes()
        worker = build_worker(settings, runtime, queue)
        runner = web.AppRunner(_health_app(worker, queue), access_log=None)
        await runner.setup()
        await web.TCPSite(runner, settings.host, settings.worker_port).start()
        log.info("worker started", extra={"jobs_at_once": settings.workers, "port": settings.worker_port})
        main = asyncio.create_task(worker.async_run())
        stopping = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait({main, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if main in done:
            main.result()  # the worker died (Redis gone for good): say why
        await _shut_down(worker, settings.shutdown_grace_seconds)
        main.cancel()
        await asyncio.gather(main, return_exceptions=True)
        await runner.cleanup()
        await runtime.close()
        await queue.close()
        log.info("worker stopped", extra={"completed": worker.jobs_complete, "failed": worker.jobs_failed})


async def _shut_down(worker: Worker, grace: float) -> None:
    """Stop taking jobs; let running ones finish within `grace`; cancel the rest (arq requeues them)."""
    worker.allow_pick_jobs = False
    running = [t for t in worker.tasks.values() if not t.done()]
    log.info("stopping: %d jobs running", len(running), extra={"grace_seconds": grace})
    if running:
        _, pending = await asyncio.wait(running, timeout=grace)
        for task in pending:
            task.cancel()
        if pending:
            log.warning("handing %d unfinished jobs back to the queue", len(pending))
            await asyncio.gather(*pending, return_exceptions=True)


def main(settings: Settings) -> int:
    asyncio.run(run_worker(settings))
    return 0
