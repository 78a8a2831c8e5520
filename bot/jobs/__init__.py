"""The work queue: webhooks enqueue jobs, workers run them. One interface, an in-process backend here and a
Redis one for many workers; both de-duplicate deliveries and run one job at a time per repository branch."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..metrics import JOBS
from .requests import JOB_FORMAT, AnyRequest, request_from_json, request_to_json, upgrade_job

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    """One piece of work: a typed request, and what the queue needs to carry it."""

    key: str  # jobs with the same key run one at a time, and a newer one replaces a queued older one
    delivery: str  # the webhook delivery that caused it (for de-duplication and logs)
    request: AnyRequest

    @property
    def kind(self) -> str:
        return self.request.kind

    def to_json(self) -> dict[str, Any]:
        """The job as JSON in this version's format, for a queue that leaves the process."""
        request = request_to_json(self.request)
        return {"format": JOB_FORMAT, "key": self.key, "delivery": self.delivery, "request": request}

    @classmethod
    def from_json(cls, value: Any) -> Job:
        """A job read back, upgraded from an older version's format. Raises NewerJob for a newer version's,
        UnreadableJob, KeyError, TypeError or pydantic's ValidationError for what is no job."""
        value = upgrade_job(value)
        key, delivery = value["key"], value["delivery"]
        if not isinstance(key, str) or not isinstance(delivery, str):
            raise TypeError("a job's key and delivery are strings")
        return cls(key, delivery, request_from_json(value["request"]))


@dataclass(frozen=True)
class Attempt:
    """Which try of a job this is. Only the final try reports a failure (on the check run): an earlier one
    leaves the run as it is for the next try."""

    number: int = 1
    final: bool = True


ONLY_TRY = Attempt()
DELIVERY_MEMORY_SECONDS = 3 * 24 * 3600  # GitHub redelivers (with the same id) for up to three days


class DeliveryMemory:
    """Which keys (deliveries) were seen in the last `seconds`, at most `size` of them, the oldest let go first.

    Every key lives as long, so keys expire in the order they came: an ordered dict is the whole structure, and
    expiring or evicting pops its front. cachetools' TTLCache, which keeps a linked list for any order of expiry,
    cost several times as much a delivery at the door."""

    def __init__(self, size: int, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        if size < 1:
            raise ValueError("a delivery memory holds at least one key")
        self._until: OrderedDict[str, float] = OrderedDict()
        self._size, self._seconds, self._clock = size, seconds, clock

    def remember(self, key: str) -> bool:
        """True when `key` is new, and remember it; False when it was seen within the lifetime (no change)."""
        now = self._clock()
        until = self._until
        while until:
            oldest = next(iter(until))
            if until[oldest] > now:
                break
            del until[oldest]
        if key in until:
            return False
        if len(until) >= self._size:
            until.popitem(last=False)
        until[key] = now + self._seconds
        return True

    def forget(self, key: str) -> None:
        """Let `key` be taken again (a delivery that could not be queued: GitHub's redelivery must be)."""
        self._until.pop(key, None)

    def __len__(self) -> int:
        return len(self._until)


class PermanentFailure(Exception):
    """A job that can never succeed as asked: its installation or repository is gone, or GitHub refuses the App
    access. Neither queue tries it again, and it ends in one log line, not a traceback: it is expected, and the
    job has already said on the check run what it could. The message is the cause in words."""


def give_up(job: Job, failure: PermanentFailure) -> None:
    """Count, and log in one line naming the repository, the installation and the cause, a job not retried."""
    JOBS.labels(job.kind, "permanent").inc()
    repo = job.request.repo
    log.warning(
        "%s job for %s (installation %d) not retried: %s",
        job.kind,
        repo.full_name,
        repo.installation_id,
        failure,
        extra={
            "repo": repo.full_name,
            "installation": repo.installation_id,
            "delivery": job.delivery,
            "job_kind": job.kind,
            "job_key": job.key,
        },
    )


class JobAbandoned(Exception):
    """A job's last try never finished (it ran past the job timeout, or its worker stopped): the job itself could
    not say so on the check run, so the queue does."""


class TookTooLong(JobAbandoned):
    """A try ran past the job timeout and was stopped (its process killed). It is not tried again: what made it slow
    is the repository's content, which the next try would read again. The check run says it took too long."""


@dataclass(frozen=True)
class RetryPolicy:
    """A failing job is tried `max_tries` times, waiting `base_seconds`, then twice as long, and so on."""

    max_tries: int = 3
    base_seconds: float = 5.0

    def delay(self, failed_tries: int) -> float:
        return self.base_seconds * 2.0 ** (failed_tries - 1)

    def attempt(self, number: int) -> Attempt:
        return Attempt(number, number >= self.max_tries)


JobHandler = Callable[[Job, Attempt], Awaitable[None]]


class Queue(Protocol):
    runs_jobs: bool  # whether the jobs it takes run in this process (else: elsewhere, as Redis's workers do)

    async def submit(self, job: Job) -> bool:
        """Enqueue; False when the delivery was seen before (nothing enqueued)."""
        ...

    async def start(self) -> None: ...

    async def close(self) -> None:
        """Stop taking jobs, let running ones finish."""
        ...


async def run_try(handler: JobHandler, job: Job, attempt: Attempt, timeout: float | None) -> None:
    """One try of `job`, cut off after `timeout` seconds (the App's handler then kills the try's process); a try cut
    off raises TookTooLong, which says why."""
    deadline = asyncio.timeout(timeout)
    try:
        async with deadline:
            await handler(job, attempt)
    except TimeoutError as exc:
        if not deadline.expired():  # the handler's own timeout (a GitHub call's): a failure like any other
            raise
        JOBS.labels(job.kind, "timed_out").inc()
        raise TookTooLong(f"it ran longer than the {timeout:g}-second job timeout") from exc
