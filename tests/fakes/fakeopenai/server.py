"""The fake OpenAI as an aiohttp application: `POST /v1/chat/completions` and `GET /v1/models`.

A chat request runs through these stages, in order:

1. Record the body (parsed JSON, or the text when it is not JSON) in `fake.requests` and its headers in
   `fake.headers`.
2. Authenticate: `Authorization: Bearer <fake.api_key>`, else 401 as OpenAI answers it (not a violation,
   since a wrong key is something a test may want to provoke).
3. Validate (`fakeopenai.validation`): 400, or 404 for an unknown model, recorded in `fake.violations`.
4. Take the next scripted step, else ask `fake.responder`, else 500 and a violation ("no scripted answer").
   Only requests that pass 2 and 3 consume a step.
5. Answer the step: a completion for `Reply` (its usage added to `fake.usage`), the error for `Failure`, the
   raw bytes for `Malformed`; `Hang` sleeps first. A client that gives up meanwhile cancels the handler
   (pytest-aiohttp's test server cancels handlers on disconnect), which `fake.disconnects` counts.

Every other method or path answers 404 `Invalid URL (<METHOD> <path>)`, as OpenAI does, and is a violation.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from multidict import CIMultiDict

from .state import FakeOpenAI
from .steps import Failure, Hang, Malformed, Reply, Step
from .validation import ApiError, validate_chat

FAKE_KEY = web.AppKey("fake_openai", FakeOpenAI)
_REQUEST_IDS = web.AppKey("fake_openai_request_ids", itertools.count)

NO_KEY = (
    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth "
    "(i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the "
    "API from your browser and are prompted for a username and password. You can obtain an API key from "
    "https://platform.openai.com/account/api-keys."
)


async def serve_on_loopback(fake: FakeOpenAI) -> web.AppRunner:
    """Serve `fake` on 127.0.0.1 (a free port) outside pytest, as the benchmarks do; sets `fake.base_url`.
    Stop it with `await runner.cleanup()`."""
    runner = web.AppRunner(create_app(fake), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    fake.base_url = f"http://127.0.0.1:{port}/v1"
    return runner


def create_app(fake: FakeOpenAI) -> web.Application:
    """An aiohttp application serving `fake` (start it with pytest-aiohttp's `aiohttp_server`)."""
    app = web.Application(client_max_size=64 * 1024 * 1024, middlewares=[_openai_errors])
    app[FAKE_KEY] = fake
    app[_REQUEST_IDS] = itertools.count(1)
    app.router.add_post("/v1/chat/completions", _chat_completions)
    app.router.add_get("/v1/models", _models)
    return app


def _json(request: web.Request, status: int, body: Any, headers: dict[str, str] | None = None) -> web.Response:
    out = {
        "x-request-id": f"req_fake{next(request.app[_REQUEST_IDS])}",
        "openai-processing-ms": "1",
        "openai-version": "2020-10-01",
    }
    out.update(headers or {})
    return web.json_response(body, status=status, headers=out)


def _error(request: web.Request, error: ApiError) -> web.Response:
    return _json(request, error.status, error.body())


@web.middleware
async def _openai_errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status not in (404, 405):
            raise
        fake = request.app[FAKE_KEY]
        fake.violation(f"{request.method} {request.path_qs}: the fake OpenAI has no such route")
        return _error(request, ApiError(404, f"Invalid URL ({request.method} {request.path})", None, None))


def _authenticate(fake: FakeOpenAI, request: web.Request) -> ApiError | None:
    header = request.headers.get("Authorization")
    if header is None:
        return ApiError(401, NO_KEY, None, None)
    scheme, _, key = header.partition(" ")
    if scheme.lower() != "bearer" or key.strip() != fake.api_key:
        key = key.strip()
        masked = key[:3] + "*" * max(len(key) - 7, 0) + key[-4:] if len(key) > 7 else key
        return ApiError(
            401,
            f"Incorrect API key provided: {masked}. You can find your API key at https://platform.openai.com/account/api-keys.",
            None,
            "invalid_api_key",
        )
    return None


async def _models(request: web.Request) -> web.Response:
    fake = request.app[FAKE_KEY]
    error = _authenticate(fake, request)
    if error is not None:
        return _error(request, error)
    return _json(request, 200, fake.models_list())


async def _chat_completions(request: web.Request) -> web.StreamResponse:
    fake = request.app[FAKE_KEY]
    text = await request.text()
    try:
        body: Any = json.loads(text)
    except ValueError:
        body = text
    fake.requests.append(body)
    fake.headers.append(CIMultiDict(request.headers))
    number = len(fake.requests)

    error = _authenticate(fake, request)
    if error is not None:
        return _error(request, error)
    if isinstance(body, str):
        fake.violation(f"request {number}: the body is not JSON")
        return _error(
            request,
            ApiError(
                400,
                "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
                None,
                None,
            ),
        )
    error = validate_chat(body, fake.models)
    if error is not None:
        fake.violation(f"request {number}: {error.status} {error.message} (param {error.param})")
        return _error(request, error)

    step = await fake.next_step(body)
    if step is None:
        fake.violation(f"request {number}: no scripted answer (script a step or set a responder)")
        return _error(
            request,
            ApiError(
                500,
                "no scripted answer: the fake OpenAI's queue is empty and it has no responder",
                None,
                None,
                "server_error",
            ),
        )
    try:
        return await _answer(request, fake, body, step, number)
    except asyncio.CancelledError:
        fake.disconnects += 1
        raise


async def _answer(
    request: web.Request, fake: FakeOpenAI, body: dict[str, Any], step: Step, number: int
) -> web.StreamResponse:
    if isinstance(step, str):
        step = Reply(content=step)
    if isinstance(step, Reply):
        return _json(request, 200, fake.completion(step, body))
    if isinstance(step, Failure):
        return _json(request, step.status, step.body(), step.headers)
    if isinstance(step, Malformed):
        return web.Response(body=step.body, status=step.status, headers={"Content-Type": step.content_type})
    if isinstance(step, Hang):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(fake.closing.wait(), step.seconds)
        return await _answer(request, fake, body, step.then if step.then is not None else Reply(content=""), number)
    fake.violation(f"request {number}: the responder gave {step!r}, not a fakeopenai step")
    return _error(request, ApiError(500, f"not a fakeopenai step: {step!r}", None, None, "server_error"))
