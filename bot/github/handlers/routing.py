"""Which handler takes which event and action, and the model its payload is parsed into before it runs.

gidgethub's Router dispatches on the raw payload (an action that is a list raises TypeError inside it) and hands
the raw payload on; a route here names its model, so the web process parses first and a handler only ever sees
a payload that fits. One table per feature, combined in one place, as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic

from ..payloads import Envelope, P

if TYPE_CHECKING:
    from .context import WebhookContext

Handler = Callable[[P, "WebhookContext"], Awaitable[None]]


@dataclass(frozen=True)
class Route(Generic[P]):
    model: type[P]
    handler: Handler[P]


class Routes:
    """Routes by event and action (`None`: every action of the event); an exact action wins."""

    def __init__(self, *others: Routes) -> None:
        self._routes: dict[tuple[str, str | None], Route[Any]] = {}
        self._models: dict[str, type[Envelope] | None] = {}  # each event's one model, None where its routes differ
        self.events: frozenset[str] = frozenset()  # the events routed (asked of every delivery: kept, not rebuilt)
        for other in others:
            for (event, action), route in other._routes.items():
                self._add(event, action, route)

    def _add(self, event: str, action: str | None, route: Route[Any]) -> None:
        if (event, action) in self._routes:
            raise ValueError(f"two handlers for {event} {action or '(any action)'}")
        self._routes[(event, action)] = route
        self._models[event] = route.model if self._models.get(event, route.model) is route.model else None
        self.events |= {event}

    def register(self, event: str, *actions: str, model: type[P]) -> Callable[[Handler[P]], Handler[P]]:
        """Decorate a handler of `event` (of these actions only, when any are named) taking `model`."""

        def decorator(handler: Handler[P]) -> Handler[P]:
            for action in actions or (None,):
                self._add(event, action, Route(model, handler))
            return handler

        return decorator

    def find(self, event: str, action: str | None) -> Route[Any] | None:
        return self._routes.get((event, action)) or self._routes.get((event, None))

    def model_of(self, event: str) -> type[Envelope] | None:
        """The model all the routes of `event` take (None when they take different ones, or none routes it): a
        delivery of the event can be read into it before its action is known, and then routed by that action."""
        return self._models.get(event)
