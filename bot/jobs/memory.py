"""The in-process queue of `wikiwarden serve`: asyncio workers inside the web process."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from ..metrics import JOBS
from . import (
    DELIVERY_MEMORY_SECONDS,
    DeliveryMemory,
    Job,
    JobHandler,
    PermanentFailure,
    RetryPolicy,
    TookTooLong,
    give_up,
    run_try,
)

log = logging.getLogger(__name__)


class InProcessQueue:
    """Workers that run jobs one key at a time; a job queued behind a running one is replaced by a newer one."""

    runs_jobs = True

    def __init__(
        self,
        handler: JobHandler,
        workers: int = 4,
        on_failure: Callable[[Job, BaseException], Awaitable[None]] | None = None,
        remember: int = 100_000,
        retry: RetryPolicy | None = None,
        timeout: float | None = None,
    ) -> None:
        self._handler = handler
        self._timeout = timeout
        self._retry = retry or RetryPolicy(max_tries=1)
        self._workers_wanted = workers
        self._on_failure = on_failure
        self._seen = DeliveryMemory(remember, DELIVERY_MEMORY_SECONDS)
        self._pending: dict[str, Job] = {}  # key → the next job to run for it
        self._running: set[str] = set()
        self._ready: asyncio.Queue[str] = asyncio.Queue()
        self._workers: list[asyncio.Task[None]] = []
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing = False
        self.completed = 0
        self.failed = 0
        self.superseded = 0

    async def submit(self, job: Job) -> bool:
        if self._closing:
            raise RuntimeError("the queue is closing")
        if not self._seen.remember(f"{job.delivery}:{job.kind}:{job.key}"):
            return False
        if job.key in self._pending:
            self.superseded += 1  # a newer head replaces the one still waiting
            JOBS.labels(self._pending[job.key].kind, "superseded").inc()
        elif job.key not in self._running:
            self._ready.put_nowait(job.key)
        self._pending[job.key] = job
        self._idle.clear()
        return True

    async def start(self) -> None:
        if not self._workers:
            self._workers = [
                asyncio.create_task(self._work(), name=f"wikiwarden-worker-{n}") for n in range(self._workers_wanted)
            ]

    async def _work(self) -> None:
        while True:
            key = await self._ready.get()
            job = self._pending.pop(key, None)
            if job is None:
                continue
            self._running.add(key)
            try:
                await self._tries(job)
            finally:
                self._running.discard(key)
                if key in self._pending:
                    self._ready.put_nowait(key)
                if not self._pending and not self._running:
                    self._idle.set()

    async def _tries(self, job: Job) -> None:
        """Run `job` until it succeeds, fails permanently or its tries are spent; a newer job for its key ends the
        retrying."""
        for number in range(1, self._retry.max_tries + 1):
            attempt = self._retry.attempt(number)
            final = attempt.final
            try:
                await run_try(self._handler, job, attempt, self._timeout)
            except asyncio.CancelledError:
                raise
            except PermanentFailure as failure:
                self.failed += 1
                give_up(job, failure)
                return
            except Exception as exc:
                if not final and job.key not in self._pending and not isinstance(exc, TookTooLong):
                    JOBS.labels(job.kind, "retried").inc()
                    await asyncio.sleep(self._retry.delay(number))
                    continue
                final = final or isinstance(exc, TookTooLong)  # a try that took too long is the last
                outcome = "failed" if final else "superseded"
                JOBS.labels(job.kind, outcome).inc()
                if final:
                    self.failed += 1
                    log.exception(
                        "job failed", extra={"job_kind": job.kind, "job_key": job.key, "delivery": job.delivery}
                    )
                    if self._on_failure is not None:
                        try:
                            await self._on_failure(job, exc)
                        except Exception:
                            log.exception("could not report a failed job", extra={"delivery": job.delivery})
                return
            self.completed += 1
            JOBS.labels(job.kind, "completed").inc()
            return

    async def wait_idle(self, timeout: float = 30.0) -> None:
        """Return once every submitted job has run (for tests and graceful shutdown)."""
        await asyncio.wait_for(self._idle.wait(), timeout)

    async def close(self, timeout: float = 30.0) -> None:
        self._closing = True
        try:
            if self._pending or self._running:
                await self.wait_idle(timeout)
        except TimeoutError:
            log.warning("shutting down with jobs still running", extra={"pending": len(self._pending)})
        for worker in self._workers:
            worker.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        self._workers = []
