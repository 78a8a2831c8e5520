"""The web process: `POST /webhook` validates, de-duplicates and enqueues, then answers; `GET /healthz`.

Nothing slow happens in a request: GitHub gives a delivery 10 seconds and never retries by itself, so the
handler only checks the signature (mandatory), drops replays and the App's own events, and hands jobs to
the queue. Every refusal is a 4xx with a reason, never a 500.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable

import aiohttp
from aiohttp import web
from cachetools import TTLCache
from gidgethub import BadRequest, ValidationFailure
from gidgethub.sansio import Event

from .github.handlers import WebhookContext, router
from .github.runtime import AppRuntime
from .jobs import Job, Queue
from .jobs.memory import DELIVERY_MEMORY_SECONDS, InProcessQueue
from .settings import Settings

log = logging.getLogger(__name__)
SETTINGS = web.AppKey("settings", Settings)
RUNTIME = web.AppKey("runtime", AppRuntime)
QUEUE = web.AppKey("queue", Queue)
SEEN = web.AppKey("seen deliveries", TTLCache)
QueueFactory = Callable[[AppRuntime], Queue]


def _reply(status: int, message: str) -> web.Response:
    return web.json_response({"message": message}, status=status)


async def webhook(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    if request.content_length is not None and request.content_length > settings.max_body_bytes:
        return _reply(413, "payload too large")
    try:
        body = await request.read()
    except web.HTTPRequestEntityTooLarge:
        return _reply(413, "payload too large")
    try:
        event = Event.from_http(request.headers, body, secret=settings.webhook_secret.get_secret_value())
    except ValidationFailure:
        return _reply(401, "the signature is missing or does not match the webhook secret")
    except (BadRequest, ValueError, KeyError) as exc:
        return _reply(400, f"not a GitHub webhook delivery: {exc}")
    if event.event == "ping":
        return _reply(200, "pong")
    if not event.delivery_id:
        return _reply(400, "missing X-GitHub-Delivery")
    seen = request.app[SEEN]
    if event.delivery_id in seen:
        return _reply(200, "already received")  # a redelivery keeps its id: do the work once
    if not isinstance(event.data, dict) or "installation" not in event.data:
        return _reply(202, "ignored: not an App installation event")
    runtime = request.app[RUNTIME]
    sender = (event.data.get("sender") or {}).get("login")
    if sender is not None and sender == await runtime.bot_login():
        seen[event.delivery_id] = True
        return _reply(202, "ignored: caused by Wikiwarden itself")
    ctx = WebhookContext(
        delivery=event.delivery_id, submit=request.app[QUEUE].submit, forget_installation=runtime.tokens.forget
    )
    await router.dispatch(event, ctx)
    seen[event.delivery_id] = True
    log.info(
        "delivery accepted",
        extra={"delivery": event.delivery_id, "event": event.event, "jobs": len(ctx.jobs)},
    )
    return web.json_response({"message": "accepted", "jobs": [j.kind for j in ctx.jobs]}, status=202)


async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


def create_app(settings: Settings, queue_factory: QueueFactory | None = None) -> web.Application:
    """The aiohttp application; its session, runtime and queue live for the application's lifetime."""
    app = web.Application(client_max_size=settings.max_body_bytes)
    app[SETTINGS] = settings
    app[SEEN] = TTLCache(maxsize=100_000, ttl=DELIVERY_MEMORY_SECONDS)

    async def lifetime(app: web.Application) -> AsyncIterator[None]:
        timeout = aiohttp.ClientTimeout(total=120, connect=15)
        async with aiohttp.ClientSession(timeout=timeout, json_serialize=json.dumps) as session:
            runtime = AppRuntime(settings, session)
            queue = (queue_factory or _memory_queue(settings))(runtime)
            app[RUNTIME] = runtime
            app[QUEUE] = queue
            await queue.start()
            yield
            await queue.close()  # stop taking jobs, let the running ones finish

    app.cleanup_ctx.append(lifetime)
    app.router.add_post("/webhook", webhook)
    app.router.add_get("/healthz", healthz)
    return app


def _memory_queue(settings: Settings) -> QueueFactory:
    def make(runtime: AppRuntime) -> Queue:
        async def failed(job: Job, exc: BaseException) -> None:
            log.error("job failed: %s", type(exc).__name__, extra={"delivery": job.delivery, "job_key": job.key})

        return InProcessQueue(runtime.run, workers=settings.workers, on_failure=failed)

    return make
