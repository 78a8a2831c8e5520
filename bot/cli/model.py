"""The model a command uses (`--model`, else WIKIWARDEN_MODEL's), and the event loop its work runs in."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from ..extras import missing_extra
from .common import UsageError

if TYPE_CHECKING:
    from ..agent.agent import Agent
    from ..agent.factory import AgentFactory
    from ..settings import ModelSettings
    from ..source.git import GitRepository

T = TypeVar("T")


def with_agent(args: argparse.Namespace, repo: GitRepository, work: Callable[[Agent | None], Awaitable[T]]) -> T:
    """Run `work` with the agent `--model` names (else WIKIWARDEN_MODEL's; None with no model, and with `none` in
    either: `chosen_model`), in an event loop of its own, and close the model's client after. Without a model, the
    model's client (the `agent` extra) is not needed, nor imported."""
    import asyncio  # noqa: PLC0415

    from ..settings import chosen_model  # noqa: PLC0415
    from ..source.git import GitError  # noqa: PLC0415

    settings = _model_settings()
    model = chosen_model(args.model) if args.model is not None else settings.model

    async def run() -> T:
        if model is None:
            return await work(None)
        factory = _agent_factory(settings)
        try:
            return await work(factory.agent(str(repo.root), model))
        finally:
            await factory.close()

    try:
        return asyncio.run(run())
    except GitError as exc:
        raise UsageError(str(exc)) from exc


def _agent_factory(settings: ModelSettings) -> AgentFactory:
    try:
        from ..agent.factory import AgentFactory  # noqa: PLC0415 - the model's client only for a model
    except ModuleNotFoundError as exc:
        raise UsageError(missing_extra(exc, "agent", "a model")) from exc
    return AgentFactory(settings)


def _model_settings() -> ModelSettings:
    from pydantic import ValidationError  # noqa: PLC0415 - settings are only read by the commands using a model

    from ..settings import ModelSettings  # noqa: PLC0415

    try:
        return ModelSettings()
    except ValidationError as exc:
        raise UsageError(f"invalid model settings: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}") from exc
