"""What the fake OpenAI answers: one step per request, plain dataclasses.

    Reply("hello")                                   # a chat.completion, finish_reason "stop"
    Reply.json({"verdict": "ok"})                    # content = json.dumps(obj)
    Reply(tool_calls=[ToolCall("lookup", {"q": 1})])  # finish_reason "tool_calls"
    Failure(429, headers={"retry-after-ms": "10"})   # an OpenAI-shaped error body
    Hang(0.5)                                        # sleep, then answer Reply("") (or `then`)
    Malformed(b"{not json")                          # a body that is not a completion

A plain `str` given to `FakeOpenAI.script` or returned by a responder is short for `Reply(content=...)`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any


@dataclass
class ToolCall:
    """One tool call of an assistant reply. A `str` `arguments` is sent verbatim (malformed JSON included);
    a dict is sent as `json.dumps(arguments)`. The id defaults to `call_<n>`, n counting from 1 per fake."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_text(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


@dataclass
class Reply:
    """A normal chat.completion. `finish_reason` defaults to "tool_calls" when there are tool calls, else
    "stop". `usage` (prompt_tokens, completion_tokens, optional total_tokens) replaces the fake's count."""

    content: str | None = None
    tool_calls: Sequence[ToolCall] = ()
    finish_reason: str | None = None
    usage: dict[str, int] | None = None

    @classmethod
    def json(cls, obj: Any, **kwargs: Any) -> Reply:
        """A reply whose content is `json.dumps(obj)` (structured output)."""
        return cls(content=json.dumps(obj), **kwargs)

    def resolved_finish_reason(self) -> str:
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


_STOCK_MESSAGES = {
    429: "Rate limit reached for requests. Please try again later.",
    500: "The server had an error while processing your request. Sorry about that!",
    502: "Bad gateway.",
    503: "The engine is currently overloaded, please try again later.",
}


@dataclass
class Failure:
    """An error answer shaped like OpenAI's: `{"error": {"message", "type", "param": null, "code"}}`.

    `headers` go out as given (`retry-after`, `retry-after-ms`, `x-should-retry`, ...). An empty `message`
    becomes OpenAI's usual text for the status."""

    status: int
    message: str = ""
    headers: dict[str, str] | None = None
    type: str = "server_error"
    code: str | None = None

    def body(self) -> dict[str, Any]:
        message = self.message or _STOCK_MESSAGES.get(self.status) or HTTPStatus(self.status).phrase
        return {"error": {"message": message, "type": self.type, "param": None, "code": self.code}}


@dataclass
class Hang:
    """Sleep `seconds` before answering `then` (by default `Reply(content="")`), to trigger client timeouts.
    When the client gives up first, the handler is cancelled and `FakeOpenAI.disconnects` counts it."""

    seconds: float
    then: Reply | Failure | Malformed | str | None = None


@dataclass
class Malformed:
    """A raw body that is not a valid completion (broken JSON, HTML from a proxy, a JSON object of the
    wrong shape, ...), sent with `status` and `content_type`."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"


Step = Reply | Failure | Hang | Malformed | str
STEP_TYPES = (Reply, Failure, Hang, Malformed, str)
