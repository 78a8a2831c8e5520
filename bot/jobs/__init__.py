"""The work queue: webhooks enqueue jobs, workers run them. One interface, an in-process backend here and a
Redis one for many workers; both de-duplicate deliveries and run one job at a time per repository branch."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Job:
    """One piece of work, JSON-serialisable so any backend can carry it."""

    kind: str  # "check" or "fix"
    key: str  # jobs with the same key run one at a time, and a newer one replaces a queued older one
    delivery: str  # the webhook delivery that caused it (for de-duplication and logs)
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "key": self.key, "delivery": self.delivery, "data": self.data}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Job:
        return cls(value["kind"], value["key"], value["delivery"], dict(value.get("data") or {}))


JobHandler = Callable[[Job], Awaitable[None]]


class Queue(Protocol):
    async def submit(self, job: Job) -> bool:
        """Enqueue; False when the delivery was seen before (nothing enqueued)."""
        ...

    async def start(self) -> None: ...

    async def close(self) -> None:
        """Stop taking jobs, let running ones finish."""
        ...
