"""Webhook routes: one gidgethub Router per feature, combined here. Handlers only turn an event into jobs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from gidgethub.routing import Router

from ...jobs import Job
from . import checks, installation, pull_request, push


@dataclass
class WebhookContext:
    """What a handler may do: read the delivery id, and hand jobs to the queue."""

    delivery: str
    submit: Callable[[Job], Awaitable[bool]]
    forget_installation: Callable[[int], None] = lambda installation_id: None
    jobs: list[Job] = field(default_factory=list)

    async def enqueue(self, job: Job) -> None:
        if await self.submit(job):
            self.jobs.append(job)


router = Router(push.router, pull_request.router, checks.router, installation.router)
