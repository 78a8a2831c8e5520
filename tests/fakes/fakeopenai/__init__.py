"""A fake OpenAI-compatible chat-completions server for Wikiwarden's tests: scripted answers, real HTTP.

    from fakeopenai import FakeOpenAI, Reply, ToolCall, Failure, Hang, Malformed

    fake_openai.script(Failure(429, headers={"retry-after-ms": "10"}), Reply.json({"ok": True}))
    client = openai.AsyncOpenAI(base_url=fake_openai.base_url, api_key=fake_openai.api_key)

Serve a `FakeOpenAI` with `fakeopenai.server.create_app(fake)`, or use the `fake_openai` fixture of
`fakeopenai.fixtures` (`pytest_plugins = ["fakeopenai.fixtures"]`), which also fails a test whose requests
OpenAI would have rejected. The real `openai.AsyncOpenAI` talks to it unchanged.
"""

from .markers import register_marker_early
from .server import create_app, serve_on_loopback
from .state import FakeOpenAI, completion_tokens, prompt_tokens
from .steps import Failure, Hang, Malformed, Reply, Step, ToolCall
from .validation import ApiError, validate_chat

register_marker_early()

__all__ = [
    "ApiError",
    "Failure",
    "FakeOpenAI",
    "Hang",
    "Malformed",
    "Reply",
    "Step",
    "ToolCall",
    "completion_tokens",
    "create_app",
    "prompt_tokens",
    "serve_on_loopback",
    "validate_chat",
]
