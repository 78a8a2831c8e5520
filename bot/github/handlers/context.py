"""What a webhook handler may do: read the delivery id, and hand jobs to the queue."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from ...jobs import Job


@dataclass
class WebhookContext:
    delivery: str
    submit: Callable[[Job], Awaitable[bool]]
    forget_installation: Callable[[int], None] = lambda installation_id: None
    jobs: list[Job] = field(default_factory=list)

    async def enqueue(self, job: Job) -> None:
        if await self.submit(job):
            self.jobs.append(job)
