"""Token budgets (per run, and per repository per day) and the cache that keeps a paid answer from being paid
for twice. Both have an in-process form and a Redis form: with several workers, a repository's day and the
answers already paid for are shared by all of them, and survive restarts."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from cachetools import LRUCache
from pydantic import BaseModel, ValidationError

_PREFIX = "wikiwarden:"
ANSWER_SECONDS = 30 * 24 * 3600  # an answer stays good as long as its claims and evidence versions do


def _utc_today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


class Ledger(Protocol):
    async def spent(self, repo: str) -> int: ...

    async def spend(self, repo: str, tokens: int) -> None: ...


class DailyLedger:
    """Tokens spent per repository per UTC day, in this process."""

    def __init__(self, today: Callable[[], dt.date] = _utc_today) -> None:
        self._today = today
        self._spent: dict[tuple[str, dt.date], int] = {}

    async def spent(self, repo: str) -> int:
        return self._spent.get((repo, self._today()), 0)

    async def spend(self, repo: str, tokens: int) -> None:
        key = (repo, self._today())
        self._spent[key] = self._spent.get(key, 0) + tokens


class RedisLedger:
    """Tokens spent per repository per UTC day, shared by every worker (a counter per repository and day)."""

    def __init__(self, redis: Any, today: Callable[[], dt.date] = _utc_today) -> None:
        self._redis = redis
        self._today = today

    def _key(self, repo: str) -> str:
        return f"{_PREFIX}tokens:{repo}:{self._today().isoformat()}"

    async def spent(self, repo: str) -> int:
        return int(await self._redis.get(self._key(repo)) or 0)

    async def spend(self, repo: str, tokens: int) -> None:
        key = self._key(repo)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.incrby(key, tokens)
            pipe.expire(key, 2 * 24 * 3600)
            await pipe.execute()


@dataclass
class Budget:
    per_run: int
    per_day: int
    repo: str = ""
    ledger: Ledger = field(default_factory=DailyLedger)
    spent: int = 0  # by this run

    async def room(self) -> int:
        return min(self.per_run - self.spent, self.per_day - await self.ledger.spent(self.repo))

    async def spend(self, tokens: int) -> None:
        self.spent += tokens
        await self.ledger.spend(self.repo, tokens)


Answer = TypeVar("Answer", bound=BaseModel)


class AnswerCache:
    """Answers by what they were answers to (the model, the repository, the page, its claims and their evidence
    versions, or the page and its candidates with their files' contents for a grounding), of whichever answer model
    the question wants. Keys are built by the agent (`Agent._cache_key`): one repository's answer is never looked up
    for another's question."""

    def __init__(self, maxsize: int = 2048) -> None:
        self._answers: LRUCache[str, BaseModel] = LRUCache(maxsize=maxsize)

    @staticmethod
    def key(*parts: Any) -> str:
        return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()

    async def get(self, key: str, kind: type[Answer]) -> Answer | None:
        found = self._answers.get(key)
        return found if isinstance(found, kind) else None

    async def put(self, key: str, answer: BaseModel) -> None:
        self._answers[key] = answer


class RedisAnswerCache(AnswerCache):
    """The same, in Redis: an answer one worker paid for serves every worker."""

    def __init__(self, redis: Any, seconds: int = ANSWER_SECONDS) -> None:
        super().__init__()
        self._redis = redis
        self._seconds = seconds

    async def get(self, key: str, kind: type[Answer]) -> Answer | None:
        data = await self._redis.get(f"{_PREFIX}answer:{key}")
        if data is None:
            return None
        try:
            return kind.model_validate_json(data)
        except ValidationError:  # written by another version, or for another kind of question: ask again
            return None

    async def put(self, key: str, answer: BaseModel) -> None:
        await self._redis.set(f"{_PREFIX}answer:{key}", answer.model_dump_json(), ex=self._seconds)
