"""The web process: `POST /webhook` validates, de-duplicates and enqueues, then answers; `GET /healthz`,
`GET /metrics` (Prometheus).

Nothing slow happens in a request: GitHub gives a delivery 10 seconds and never retries by itself, so the
handler only checks the signature (mandatory), drops replays and the App's own events, and hands jobs to
the queue. Every refusal is a 4xx with a reason, never a 500.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping

import aiohttp
import orjson
from aiohttp import web
from cachetools import TTLCache
from gidgethub import ValidationFailure
from gidgethub.sansio import Event, validate_event

from .github.handlers import WebhookContext, router
from .github.runners import RUNNERS
from .github.runtime import AppRuntime
from .jobs import DELIVERY_MEMORY_SECONDS, Queue, RetryPolicy
from .jobs.memory import InProcessQueue
from .jobs.redis import RedisQueue
from .logs import work_context
from .metrics import DELIVERIES, exposition
from .settings import Settings

log = logging.getLogger(__name__)
SETTINGS = web.AppKey("settings", Settings)
RUNTIME = web.AppKey("runtime", AppRuntime)
QUEUE = web.AppKey("queue", Queue)
SEEN = web.AppKey("seen deliveries", TTLCache)
QueueFactory = Callable[[AppRuntime], Queue]


def _reply(status: int, message: str) -> web.Response:
    return web.Response(status=status, body=orjson.dumps({"message": message}), content_type="application/json")


def parse_delivery(headers: Mapping[str, str], body: bytes, secret: str) -> Event:
    """Check the signature (mandatory, constant-time), then decode: gidgethub's rules, with a faster decoder.

    Raises ValidationFailure for a missing or wrong signature, ValueError for anything else malformed.
    """
    signature = headers.get("X-Hub-Signature-256")
    if not signature:
        raise ValidationFailure("the X-Hub-Signature-256 header is missing")
    validate_event(body, signature=signature, secret=secret)
    event, delivery = headers.get("X-GitHub-Event"), headers.get("X-GitHub-Delivery")
    if not event or not delivery:
        raise ValueError("missing X-GitHub-Event or X-GitHub-Delivery")
    content_type = headers.get("Content-Type", "").split(";", 1)[0].strip()
    if content_type != "application/json":
        raise ValueError(f"expected application/json, got {content_type or 'no content type'}")
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"the body is not JSON: {exc}") from exc
    return Event(data, event=event, delivery_id=delivery)


async def webhook(request: web.Request) -> web.Response:
    event_name = request.headers.get("X-GitHub-Event", "")[:40] or "none"

    def answer(status: int, outcome: str, message: str) -> web.Response:
        DELIVERIES.labels(event_name if outcome != "bad_signature" else "unverified", outcome).inc()
        return _reply(status, message)

    settings = request.app[SETTINGS]
    if request.content_length is not None and request.content_length > settings.max_body_bytes:
        return answer(413, "too_large", "payload too large")
    try:
        body = await request.read()
    except web.HTTPRequestEntityTooLarge:
        return answer(413, "too_large", "payload too large")
    try:
        event = parse_delivery(request.headers, body, settings.webhook_secret.get_secret_value())
    except ValidationFailure:
        return answer(401, "bad_signature", "the signature is missing or does not match the webhook secret")
    except ValueError as exc:
        return answer(400, "bad_request", f"not a GitHub webhook delivery: {exc}")
    if event.event == "ping":
        return answer(200, "ignored", "pong")
    if not event.delivery_id:
        return answer(400, "bad_request", "missing X-GitHub-Delivery")
    seen = request.app[SEEN]
    if event.delivery_id in seen:
        return answer(200, "duplicate", "already received")  # a redelivery keeps its id: do the work once
    if not isinstance(event.data, dict) or "installation" not in event.data:
        return answer(202, "ignored", "ignored: not an App installation event")
    runtime = request.app[RUNTIME]
    sender = (event.data.get("sender") or {}).get("login")
    if sender is not None and sender == await runtime.bot_login():
        seen[event.delivery_id] = True
        return answer(202, "ignored", "ignored: caused by Wikiwarden itself")
    ctx = WebhookContext(
        delivery=event.delivery_id, submit=request.app[QUEUE].submit, forget_installation=runtime.tokens.forget
    )
    with work_context(delivery=event.delivery_id, repo=(event.data.get("repository") or {}).get("full_name")):
        await router.dispatch(event, ctx)
        seen[event.delivery_id] = True
        log.info("delivery accepted", extra={"event": event.event, "jobs": len(ctx.jobs)})
    DELIVERIES.labels(event_name, "accepted").inc()
    body = orjson.dumps({"message": "accepted", "jobs": [j.kind for j in ctx.jobs]})
    return web.Response(status=202, body=body, content_type="application/json")


async def healthz(request: web.Request) -> web.Response:
    return web.Response(body=b'{"status":"ok"}', content_type="application/json")


async def metrics(request: web.Request) -> web.Response:
    body, content_type = exposition()
    return web.Response(body=body, headers={"Content-Type": content_type})


def create_app(settings: Settings, queue_factory: QueueFactory | None = None) -> web.Application:
    """The aiohttp application; its session, runtime and queue live for the application's lifetime."""
    app = web.Application(client_max_size=settings.max_body_bytes)
    app[SETTINGS] = settings
    app[SEEN] = TTLCache(maxsize=100_000, ttl=DELIVERY_MEMORY_SECONDS)

    async def lifetime(app: web.Application) -> AsyncIterator[None]:
        timeout = aiohttp.ClientTimeout(total=120, connect=15)
        async with aiohttp.ClientSession(timeout=timeout, json_serialize=json.dumps) as session:
            runtime = AppRuntime(settings, session, RUNNERS)
            queue = (queue_factory or default_queue(settings))(runtime)
            runtime.submit = queue.submit
            app[RUNTIME] = runtime
            app[QUEUE] = queue
            await queue.start()
            yield
            await queue.close()  # stop taking jobs, let the running ones finish
            await runtime.close()

    app.cleanup_ctx.append(lifetime)
    app.router.add_post("/webhook", webhook)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    return app


def default_queue(settings: Settings) -> QueueFactory:
    """The queue `settings` ask for: jobs run in this process (memory), or go to Redis for the workers."""
    if settings.queue_backend == "redis":
        return lambda runtime: RedisQueue(settings.redis_url.get_secret_value())

    def make(runtime: AppRuntime) -> Queue:
        retry = RetryPolicy(settings.job_max_tries, settings.job_retry_base_seconds)
        return InProcessQueue(
            runtime.run,
            workers=settings.workers,
            on_failure=runtime.job_failed,
            retry=retry,
            timeout=settings.job_timeout_seconds,
        )

    return make
