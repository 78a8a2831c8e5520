"""The fake OpenAI's state: the scripted answers, what was asked, the tokens counted, the violations."""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import math
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from multidict import CIMultiDict

from .steps import STEP_TYPES, Reply, Step, ToolCall
from .validation import content_texts

Responder = Callable[[dict[str, Any]], Step | Awaitable[Step]]


class FakeOpenAI:
    """An OpenAI-compatible chat-completions server's state, served by `fakeopenai.server.create_app`.

    - `script(*steps)` queues answers, first in first out, one per accepted request; `responder(body)` is
      asked when the queue is empty; with neither, the answer is 500 and a violation.
    - `requests` holds every JSON body posted to the chat endpoint (a `str` when it was not JSON), in order,
      and `headers` the matching request headers (case-insensitive).
    - `usage` sums `prompt_tokens`, `completion_tokens` and `requests` over the completions answered.
    - `violations` lists what OpenAI would have refused, and what this fake cannot answer.
    - `disconnects` counts requests whose client went away before the answer (a `Hang` beyond its timeout).
    """

    def __init__(self, models: Iterable[str] = ("test-model",), api_key: str = "sk-test") -> None:
        self.models: tuple[str, ...] = tuple(models)
        self.api_key = api_key
        self.base_url = ""  # http://127.0.0.1:<port>/v1, set once served (the `fake_openai` fixture does it)
        self.requests: list[Any] = []
        self.headers: list[CIMultiDict[str]] = []
        self.usage: dict[str, int] = {"prompt_tokens": 0, "completion_tokens": 0, "requests": 0}
        self.violations: list[str] = []
        self.responder: Responder | None = None
        self.disconnects = 0
        self.created = 1_700_000_000  # the `created` of every answer, for stable snapshots
        self._queue: deque[Step] = deque()
        self._call_ids = itertools.count(1)
        self._completion_ids = itertools.count(1)
        self.closing = asyncio.Event()  # set at teardown: cuts every Hang short

    # -- scripting ---------------------------------------------------------------------------------------
    def script(self, *steps: Step) -> FakeOpenAI:
        """Queue answers, one per accepted request (a `str` is short for `Reply(content=...)`)."""
        for step in steps:
            if not isinstance(step, STEP_TYPES):
                raise TypeError(f"not a fakeopenai step: {step!r}")
        self._queue.extend(steps)
        return self

    def reply_json(self, obj: Any, **kwargs: Any) -> FakeOpenAI:
        """Queue a reply whose content is `json.dumps(obj)`."""
        return self.script(Reply.json(obj, **kwargs))

    @property
    def pending(self) -> int:
        """How many scripted steps no request has consumed yet."""
        return len(self._queue)

    @property
    def last_request(self) -> Any:
        return self.requests[-1]

    async def next_step(self, body: dict[str, Any]) -> Step | None:
        """The next scripted step, else the responder's answer to `body`, else None."""
        if self._queue:
            return self._queue.popleft()
        if self.responder is None:
            return None
        step = self.responder(body)
        if inspect.isawaitable(step):
            step = await step
        return step

    def violation(self, text: str) -> None:
        self.violations.append(text)

    # -- answers -----------------------------------------------------------------------------------------
    def new_call_id(self) -> str:
        return f"call_{next(self._call_ids)}"

    def completion(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        """The chat.completion object for `reply` to the request `body`; counts its usage."""
        calls = [self._tool_call(call) for call in reply.tool_calls]
        message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None, "annotations": []}
        if calls:
            message["tool_calls"] = calls
        if reply.usage is not None:
            prompt = int(reply.usage.get("prompt_tokens", 0))
            completion = int(reply.usage.get("completion_tokens", 0))
            usage = {"total_tokens": prompt + completion, **reply.usage}
        else:
            prompt = prompt_tokens(body)
            completion = completion_tokens(reply)
            usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        self.usage["prompt_tokens"] += prompt
        self.usage["completion_tokens"] += completion
        self.usage["requests"] += 1
        return {
            "id": f"chatcmpl-fake{next(self._completion_ids)}",
            "object": "chat.completion",
            "created": self.created,
            "model": body["model"],
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": reply.resolved_finish_reason()}
            ],
            "usage": usage,
            "service_tier": "default",
            "system_fingerprint": "fp_fakeopenai",
        }

    def _tool_call(self, call: ToolCall) -> dict[str, Any]:
        return {
            "id": call.id or self.new_call_id(),
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments_text()},
        }

    def models_list(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [
                {"id": m, "object": "model", "created": self.created, "owned_by": "fakeopenai"} for m in self.models
            ],
        }


def prompt_tokens(body: dict[str, Any]) -> int:
    """ceil(characters / 4) over the text of every message's content (tool results included) and the JSON
    of every tool schema (`json.dumps(tool, sort_keys=True)`)."""
    chars = 0
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            chars += sum(len(text) for text in content_texts(message.get("content")))
    for tool in body.get("tools") or []:
        chars += len(json.dumps(tool, sort_keys=True))
    return math.ceil(chars / 4)


def completion_tokens(reply: Reply) -> int:
    """ceil((len(content) + the length of every tool call's arguments text) / 4)."""
    chars = len(reply.content or "") + sum(len(call.arguments_text()) for call in reply.tool_calls)
    return math.ceil(chars / 4)
