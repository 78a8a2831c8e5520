"""The route table: which handler takes which event and action, and the one model of an event, if it has one."""

from __future__ import annotations

import pytest

from bot.github.handlers import routes
from bot.github.handlers.routing import Routes
from bot.github.payloads import AppEvent, InstallationEvent, PullRequestEvent, PushEvent


async def first(payload: object, ctx: object) -> None: ...


async def second(payload: object, ctx: object) -> None: ...


def test_an_exact_action_wins_over_the_events_every_action_route() -> None:
    table = Routes()
    table.register("installation", model=AppEvent)(first)
    table.register("installation", "deleted", model=AppEvent)(second)
    assert table.find("installation", "deleted").handler is second  # type: ignore[union-attr]
    assert table.find("installation", "created").handler is first  # type: ignore[union-attr]
    assert table.find("installation", None).handler is first  # type: ignore[union-attr]
    assert table.find("push", None) is None


def test_an_events_routes_of_one_model_name_it_and_routes_of_two_do_not() -> None:
    table = Routes()
    table.register("pull_request", "opened", "synchronize", model=PullRequestEvent)(first)
    table.register("pull_request", "reopened", model=PullRequestEvent)(second)
    table.register("check_run", "rerequested", model=AppEvent)(first)
    table.register("check_run", "requested_action", model=InstallationEvent)(second)
    table.register("check_run", "created", model=AppEvent)(second)  # a third route does not bring it back
    assert table.model_of("pull_request") is PullRequestEvent
    assert table.model_of("check_run") is None
    assert table.model_of("push") is None  # not routed
    combined = Routes(table)
    assert (combined.model_of("pull_request"), combined.model_of("check_run")) == (PullRequestEvent, None)


def test_two_handlers_of_one_event_and_action_are_refused() -> None:
    table = Routes()
    table.register("push", model=PushEvent)(first)
    with pytest.raises(ValueError, match="two handlers for push"):
        table.register("push", model=PushEvent)(second)


def test_the_apps_own_table_reads_pushes_and_pull_requests_in_one_pass() -> None:
    assert routes.model_of("push") is PushEvent
    assert routes.model_of("pull_request") is PullRequestEvent
    assert routes.model_of("check_run") is None  # a re-run and a button press carry different fields
