"""The agent, built in one place for every face: the model, its client (one per process, connections reused),
the budgets (the lower of the operator's and the repository's), the daily ledger and the answers paid for."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import openai

from ..settings import ModelSettings, Settings
from .agent import Agent, make_client
from .budget import AnswerCache, Budget, DailyLedger, Ledger, RedisAnswerCache, RedisLedger


class AgentFactory:
    def __init__(
        self,
        settings: ModelSettings,
        *,
        ledger: Ledger | None = None,
        answers: AnswerCache | None = None,
        http_client: openai.DefaultAsyncHttpxClient | None = None,
        offered: Collection[str] | None = None,
    ) -> None:
        """`offered`: the only models an agent may be made with (the App's), whatever a caller asks for; None: any
        (the command line's and the Action's own choice)."""
        self.settings = settings
        self.offered = offered
        self.ledger: Ledger = ledger or DailyLedger()
        self.answers: AnswerCache = answers or AnswerCache()
        self._http_client = http_client
        self._client: openai.AsyncOpenAI | None = None

    def share_through(self, redis: Any) -> None:
        """Keep the daily token budgets and the paid answers in Redis, shared by every worker."""
        self.ledger = RedisLedger(redis)
        self.answers = RedisAnswerCache(redis)

    def agent(
        self,
        repo: str,
        model: str | None = None,
        *,
        per_run: int | None = None,
        per_day: int | None = None,
        repo_id: int | None = None,
    ) -> Agent | None:
        """The agent for one fix of `repo` (`repo_id`: GitHub's id of it, which a rename or a new repository of the
        same name does not share; the answers it pays for serve it alone): `model` (else the configured one),
        budgets no higher than the configured ones. None without a model: the fix then does the deterministic work
        only."""
        model = model or self.settings.model
        if not model or (self.offered is not None and model not in self.offered):
            return None
        if self._client is None:
            self._client = make_client(self.settings, self._http_client)
        budget = Budget(
            per_run=min(per_run, self.settings.tokens_per_run) if per_run else self.settings.tokens_per_run,
            per_day=min(per_day, self.settings.tokens_per_day) if per_day else self.settings.tokens_per_day,
            repo=repo,
            ledger=self.ledger,
        )
        scope = f"github:{repo_id}" if repo_id is not None else repo
        return Agent(self._client, model, budget, self.answers, scope=scope)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def app_agents(settings: Settings) -> AgentFactory:
    """The App's agents, which `web.py` and `worker.py` build and hand to its runtime: only the models the operator
    offers, whatever a repository's config asks for."""
    return AgentFactory(settings, offered=settings.offered_models)
