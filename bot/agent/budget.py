"""Token budgets (per run, and per repository per day) and the cache that keeps a paid answer from being
paid for twice."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache


class DailyLedger:
    """Tokens spent per repository per UTC day, shared by every run of the process."""

    def __init__(self, today: Callable[[], dt.date] = lambda: dt.datetime.now(dt.UTC).date()) -> None:
        self._today = today
        self._spent: dict[tuple[str, dt.date], int] = {}

    def spent(self, repo: str) -> int:
        return self._spent.get((repo, self._today()), 0)

    def spend(self, repo: str, tokens: int) -> None:
        key = (repo, self._today())
        self._spent[key] = self._spent.get(key, 0) + tokens


@dataclass
class Budget:
    per_run: int
    per_day: int
    repo: str = ""
    ledger: DailyLedger = field(default_factory=DailyLedger)
    spent: int = 0

    @property
    def room(self) -> int:
        return min(self.per_run - self.spent, self.per_day - self.ledger.spent(self.repo))

    def spend(self, tokens: int) -> None:
        self.spent += tokens
        self.ledger.spend(self.repo, tokens)


class AnswerCache:
    """Answers by what they were answers to (the model, the page, its claims and their evidence versions)."""

    def __init__(self, maxsize: int = 2048) -> None:
        self._answers: LRUCache[str, Any] = LRUCache(maxsize=maxsize)

    @staticmethod
    def key(*parts: Any) -> str:
        return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()

    def get(self, key: str) -> Any:
        return self._answers.get(key)

    def put(self, key: str, answer: Any) -> None:
        self._answers[key] = answer
