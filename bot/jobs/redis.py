"""The Redis queue (arq): web processes enqueue, any number of `wikiwarden worker` processes run the jobs.

Everything the in-process queue promises holds across processes because it lives in Redis:

- a delivery is enqueued once, however many web processes receive it (`SET NX` on delivery, kind and key,
  kept three days, as long as GitHub may redeliver);
- one job at a time per key (repository and branch, or pull request): a lock held while it runs;
- a newer job replaces a queued older one for the same key: the older one sees it is no longer the latest and
  ends as superseded;
- jobs survive restarts: arq keeps a job in Redis until it finishes; a worker that dies mid-job leaves it to
  be taken again once its in-progress mark expires (the job timeout plus ten seconds); a worker stopped with
  SIGTERM lets its jobs finish within the grace period and hands back the rest;
- a failing job is tried again with backoff, and its last failure is reported on the check run, logged and
  counted, never dropped silently; a job that can never succeed (a permanent failure) is not tried again;
- a job outlives the version that queued it: one of an older format is upgraded and run (`requests.upgrade_job`),
  one of a newer format (a worker of the older version still running during a rolling deploy) is queued again for
  a newer worker, for up to `NEWER_JOB_WAIT_SECONDS`.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
import uuid
from collections.abc import Iterator
from typing import Any

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from arq.constants import expires_extra_ms, job_key_prefix
from arq.jobs import serialize_job
from arq.utils import timestamp_ms
from arq.worker import Retry
from pydantic import ValidationError

from ..metrics import JOBS
from . import (
    DELIVERY_MEMORY_SECONDS,
    Job,
    JobAbandoned,
    JobHandler,
    PermanentFailure,
    RetryPolicy,
    TookTooLong,
    give_up,
    run_try,
)
from .requests import NewerJob

log = logging.getLogger(__name__)
QUEUE_NAME = "wikiwarden:jobs"
FUNCTION = "run_job"
_PREFIX = "wikiwarden:"
ARQ_MARGIN = 2.0  # arq's own timeout is ours plus this: ours fires first, so the job can say why it stopped
REQUEUE_SECONDS = 30.0  # a newer version's job comes back this much later, for a worker of that version to take
NEWER_JOB_WAIT_SECONDS = 24 * 3600.0  # and keeps coming back this long before it is given up, in a log line


# Enqueue a batch of jobs, each for itself: KEYS the queue, then for each job its delivery, the latest-of-its-key and
# its job record keys; ARGV how long a delivery is remembered and arq's expiry margin, then for each job its id, its
# record and its score. Each job's answer is 1 (queued), 0 (its delivery seen before) or the error Redis gave it, in
# which case its delivery is forgotten again (so GitHub's redelivery is taken) and the latest of its key is untouched.
_ENQUEUE = """
local function failed(reply) return type(reply) == 'table' and reply.err ~= nil end
local out = {}
for i = 0, (#KEYS - 1) / 3 - 1 do
  local k, a = 1 + i * 3, 2 + i * 3
  local reply = redis.pcall('SET', KEYS[k + 1], '1', 'NX', 'EX', ARGV[1])
  if not reply then
    out[i + 1] = 0
  elseif failed(reply) then
    out[i + 1] = reply
  else
    reply = redis.pcall('PSETEX', KEYS[k + 3], ARGV[2], ARGV[a + 2])
    if not failed(reply) then reply = redis.pcall('ZADD', KEYS[1], ARGV[a + 3], ARGV[a + 1]) end
    if not failed(reply) then reply = redis.pcall('SET', KEYS[k + 2], ARGV[a + 1], 'EX', ARGV[1]) end
    if failed(reply) then
      redis.pcall('DEL', KEYS[k + 1])
      out[i + 1] = reply
    else
      out[i + 1] = 1
    end
  end
end
return out
"""
MOST_JOBS_A_SCRIPT = 256  # one script call holds Redis for its whole batch: a few milliseconds at most


def redis_settings(url: str) -> RedisSettings:
    settings = RedisSettings.from_dsn(url)
    settings.conn_retries = 10  # Redis restarting: keep trying for a while rather than failing every request
    return settings


def _job_ids() -> Iterator[str]:
    """Job ids unique across processes and restarts: a random 128-bit prefix drawn once, then a count. A uuid4 for
    each job read the kernel's random source every time, in a burst of deliveries costing as much as parsing the
    delivery's JSON (py-spy on the serving process)."""
    prefix = uuid.uuid4().hex
    return (f"{prefix}{n:x}" for n in itertools.count())


def _latest_key(key: str) -> str:
    return f"{_PREFIX}latest:{key}"


def _lock_key(key: str) -> str:
    return f"{_PREFIX}lock:{key}"


class RedisQueue:
    """The enqueueing side, used by `wikiwarden serve` (and by workers, for jobs that follow jobs)."""

    runs_jobs = False  # `wikiwarden worker` processes run them

    def __init__(self, url: str, pool: ArqRedis | None = None) -> None:
        self._url = url
        self._pool = pool
        self._own_pool = pool is None
        self._enqueue: Any = None
        self._waiting: list[tuple[list[str], list[Any], asyncio.Future[bool]]] = []  # the next pipeline's jobs
        self._sending: asyncio.Task[None] | None = None  # the task that will send them
        self._in_flight: set[asyncio.Task[None]] = set()  # pipelines sent and not answered yet (held: not collected)
        self._job_ids = _job_ids()

    @property
    def pool(self) -> ArqRedis:
        if self._pool is None:
            raise RuntimeError("the Redis queue is not started")
        return self._pool

    async def start(self) -> None:
        """Connect, and load the enqueueing script into Redis now: otherwise every delivery of a first burst finds
        it missing (NOSCRIPT) and sends it again. A Redis restarted later loses it; `submit` then reloads it."""
        if self._pool is None:
            self._pool = await create_pool(redis_settings(self._url), default_queue_name=QUEUE_NAME)
        self._enqueue = self.pool.register_script(_ENQUEUE)
        await self.pool.script_load(_ENQUEUE)

    async def submit(self, job: Job) -> bool:
        """In one script: remember the delivery (or find it seen), enqueue the job exactly as arq's `enqueue_job`
        would (its job record and its place in the queue) and mark it the latest of its key. True once Redis holds
        the job, False for a delivery seen before; a job Redis refuses leaves its delivery unremembered.

        Jobs submitted together (a burst of deliveries, each handler at this await) go to Redis in one script
        call, in the order they were submitted: one round trip and one wake-up of the event loop for all of them
        instead of one each (200 concurrent deliveries: acknowledgement p99 about 30% lower), and those submitted
        while a call is out wait for it to come back, to go in the next (`_send`). Each still answers for itself:
        a job Redis refuses raises for its own submitter only."""
        if self._enqueue is None:
            raise RuntimeError("the Redis queue is not started")
        job_id = next(self._job_ids)
        now = timestamp_ms()
        payload = serialize_job(FUNCTION, (job.to_json(),), {}, None, now)
        keys = [f"{_PREFIX}delivery:{job.delivery}:{job.kind}:{job.key}", _latest_key(job.key), job_key_prefix + job_id]
        args = [job_id, payload, now]
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append((keys, args, answer))
        if self._sending is None:  # no call out: the others of a burst join before the task runs
            self._sending = sending = asyncio.create_task(self._send())
            self._in_flight.add(sending)
            sending.add_done_callback(self._in_flight.discard)
        return await answer

    async def _send(self) -> None:
        """Send the jobs waiting, one script call out at a time, until none waits: the jobs submitted while one is
        out go together in the next (group commit). A lone delivery goes at once; under a burst the batches grow
        and their number shrinks, and each call has a fixed cost in the web process (the connection
        taken from the pool, checked and given back, the send, the wake-up on the answer), whatever it holds. Ends
        with no job waiting: a job submitted after the last check starts a new task."""
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[:MOST_JOBS_A_SCRIPT], self._waiting[MOST_JOBS_A_SCRIPT:]
                await self._answer(batch)
        except BaseException:  # cancelled: the jobs still waiting are not sent, and their submitters hear it
            batch, self._waiting = self._waiting, []
            for _, _, answer in batch:
                if not answer.done():
                    answer.set_exception(RuntimeError("the queue stopped"))
            raise
        finally:
            self._sending = None

    async def _answer(self, batch: list[tuple[list[str], list[Any], asyncio.Future[bool]]]) -> None:
        """Enqueue `batch` in one script call and answer each submitter: True, False (seen before) or the error
        Redis gave its job."""
        try:
            answers = await self._script(batch)
        except BaseException as exc:  # Redis unreachable, or the task cancelled: no submitter waits forever
            for _, _, answer in batch:
                if not answer.done():
                    answer.set_exception(exc if isinstance(exc, Exception) else RuntimeError("the queue stopped"))
            if not isinstance(exc, Exception):
                raise
            return
        for (_, _, answer), value in zip(batch, answers, strict=True):
            if answer.done():  # its submitter was cancelled (the delivery's connection closed): the job is queued
                continue
            if isinstance(value, Exception):
                answer.set_exception(value)
            else:
                answer.set_result(bool(value))

    async def _script(self, batch: list[tuple[list[str], list[Any], asyncio.Future[bool]]]) -> list[Any]:
        """Each job's answer from one call of the enqueueing script (a job Redis refused: its error, in its place),
        the script loaded again first if Redis answers NOSCRIPT (a restarted Redis forgot it: it ran nothing).

        One call for the batch, not one a job in a pipeline: half the web process's time a job (each command's
        packing and answer parsing in redis-py) and a third less of Redis's."""
        keys: list[str] = [QUEUE_NAME]
        args: list[Any] = [DELIVERY_MEMORY_SECONDS, expires_extra_ms]
        for job_keys, job_args, _ in batch:
            keys += job_keys
            args += job_args
        answers = await self._enqueue(keys, args, client=self.pool)  # redis-py's script: loads it on NOSCRIPT
        if not isinstance(answers, list) or len(answers) != len(batch):
            raise RuntimeError(f"the enqueueing script answered {len(batch)} jobs with {answers!r:.80}")
        return answers

    async def depth(self) -> int:
        return int(await self.pool.zcard(QUEUE_NAME))

    async def close(self) -> None:
        """Close the pool once the pipelines already sent are answered (their submitters are owed an answer)."""
        if self._in_flight:
            await asyncio.gather(*self._in_flight, return_exceptions=True)
        if self._pool is not None and self._own_pool:
            await self._pool.aclose()
        self._pool = None


def job_function(handler: JobHandler, retry: RetryPolicy, timeout: float, on_failure: Any = None) -> Any:
    """The arq task running one try of a job: skip it when superseded, take its key's lock, run it under
    `timeout`, and on failure either ask arq to try again later or, on the last try, report it."""

    async def run_job(ctx: dict[str, Any], payload: dict[str, Any], first_seen: float | None = None) -> str:
        redis: ArqRedis = ctx["redis"]
        try:
            job = Job.from_json(payload)
        except NewerJob as newer:  # a newer worker reads it: back to the queue, not dropped
            return await _requeue(redis, ctx["job_id"], payload, newer, first_seen)
        except (KeyError, TypeError, ValueError, ValidationError) as exc:  # no job of any version: corrupt
            JOBS.labels("unknown", "failed").inc()
            log.error("dropped a queued job no version can read: %s", type(exc).__name__, extra={"job": payload})
            return "unreadable"
        number = int(ctx.get("job_try") or 1)
        if number > retry.max_tries:  # the last try itself died with its worker
            JOBS.labels(job.kind, "failed").inc()
            log.error("job abandoned after %d tries", retry.max_tries, extra={"delivery": job.delivery})
            if on_failure is not None:
                await on_failure(job, JobAbandoned(f"its worker stopped during the last of {retry.max_tries} tries"))
            return "failed"
        latest = await redis.get(_latest_key(job.key))
        if latest is not None and latest.decode() != ctx["job_id"]:
            JOBS.labels(job.kind, "superseded").inc()
            return "superseded"
        # The lock lives as long as arq's in-progress mark (job timeout + margin + 10 s): a worker that dies
        # holding it delays the key no longer than it delays the job itself.
        lock = redis.lock(_lock_key(job.key), timeout=timeout + ARQ_MARGIN + 10, blocking_timeout=timeout + 30)
        if not await lock.acquire():
            raise Retry(defer=retry.delay(1))  # the key stayed busy: come back later (a try is spent)
        try:
            await run_try(handler, job, retry.attempt(number), timeout)
        except asyncio.CancelledError:
            raise  # shutdown: arq hands the job back to the queue
        except PermanentFailure as failure:
            give_up(job, failure)
            return "permanent"
        except Exception as exc:
            if number < retry.max_tries and not isinstance(exc, TookTooLong):  # too long: the last try
                JOBS.labels(job.kind, "retried").inc()
                log.warning("job failed; try %d of %d", number, retry.max_tries, extra={"delivery": job.delivery})
                raise Retry(defer=retry.delay(number)) from exc
            JOBS.labels(job.kind, "failed").inc()
            log.exception("job failed after %d tries", number, extra={"delivery": job.delivery})
            if on_failure is not None:
                await on_failure(job, exc)
            return "failed"
        finally:
            try:
                await asyncio.shield(lock.release())
            except Exception:  # expired meanwhile: someone else may hold it now, leave it
                log.warning("the job's lock had expired", extra={"job_key": job.key})
        JOBS.labels(job.kind, "completed").inc()
        return "completed"

    run_job.__qualname__ = FUNCTION
    return run_job


async def _requeue(redis: ArqRedis, job_id: str, payload: Any, newer: NewerJob, first_seen: float | None) -> str:
    """Queue a newer version's job again, `REQUEUE_SECONDS` later, as the latest of its key when it was; given up
    (in an error line) once it has waited `NEWER_JOB_WAIT_SECONDS` for a worker that reads it."""
    now = time.time()
    first_seen = first_seen if isinstance(first_seen, int | float) else now
    key = payload.get("key") if isinstance(payload, dict) else None
    if now - first_seen > NEWER_JOB_WAIT_SECONDS:
        JOBS.labels("unknown", "failed").inc()
        log.error("gave up a job no worker of its version took: %s", newer, extra={"job_key": key})
        return "unreadable"
    again = await redis.enqueue_job(
        FUNCTION, payload, _queue_name=QUEUE_NAME, _defer_by=REQUEUE_SECONDS, first_seen=first_seen
    )
    if again is not None and isinstance(key, str):
        latest = _latest_key(key)
        if (await redis.get(latest) or b"").decode() == job_id:
            await redis.set(latest, again.job_id, ex=DELIVERY_MEMORY_SECONDS)
    JOBS.labels("unknown", "requeued").inc()
    log.warning("queued again for a newer worker: %s", newer, extra={"job_key": key})
    return "requeued"
