"""The web process: `POST /webhook` authenticates, parses, de-duplicates and enqueues, then answers; `GET /healthz`,
`GET /metrics` (Prometheus).

Anyone on the internet can reach `POST /webhook`, so the order matters: the body's announced size, the signature
header's shape (mandatory, `sha256=` only: a request without one is refused before its body is read), room for the
body in the bounded memory of bodies being read (`BodyMemory`), the body itself within a time limit, its signature,
and only then anything the request says about itself. A signed delivery of an event
Wikiwarden handles is parsed into its route's model before any handler runs, so a payload of the wrong shape is a
400 naming the fields. Nothing slow happens in a request: GitHub gives a delivery 10 seconds and never retries by
itself, so the handler only drops replays and the App's own events and hands jobs to the queue. Every refusal is
a 4xx with a reason; the only 5xx is a 503: when the bodies being read fill their memory (with Retry-After), or when
the queue (or GitHub, asked who the App is) cannot be reached, and then the delivery is forgotten, so GitHub's
redelivery is taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import json
import logging
import re
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson
from aiohttp import web
from prometheus_client import Counter
from pydantic import ValidationError

from .agent.factory import app_agents
from .github.handlers import Envelope, PayloadError, Route, WebhookContext, parse_payload, routes
from .github.handlers.signature import signature_matches, signature_of
from .github.runners.table import RUNNERS
from .github.runtime import AppRuntime
from .jobhost import isolated_jobs, start_job_processes
from .jobs import DELIVERY_MEMORY_SECONDS, DeliveryMemory, Queue, RetryPolicy
from .jobs.memory import InProcessQueue
from .jobs.redis import RedisQueue
from .logs import info_later
from .metrics import DELIVERIES, exposition
from .settings import Settings

log = logging.getLogger(__name__)
SETTINGS = web.AppKey("settings", Settings)
RUNTIME = web.AppKey("runtime", AppRuntime)
QUEUE = web.AppKey("queue", Queue)
SEEN = web.AppKey("seen deliveries", DeliveryMemory)
QueueFactory = Callable[[AppRuntime], Queue]

# Metric labels never come from a request: before the signature is checked nothing of it is known
# ("unverified"), and afterwards the event header (which the signature does not cover) names one of these or is
# counted as "other".
UNVERIFIED = "unverified"
EVENT_LABELS = frozenset(routes.events | {"ping"})
DELIVERY_ID = re.compile(r"[A-Za-z0-9._:-]{1,100}")  # GitHub's are GUIDs


class BodyMemory:
    """The bytes of webhook bodies this process holds at once, while it reads them and until their delivery is
    answered: before its signature is checked, a body is anyone's, so however many arrive together, together they
    take no more than `total` (about twice that at the peak of a read: aiohttp gathers a body, then copies it).

    A body is counted at its announced size (at the largest allowed when it announces none). A quarter of the total is
    kept for small bodies, as GitHub's usual deliveries are (a few kilobytes, at most 1/256 of the total here): large
    ones, the kind that fills memory, are taken only while the total held stays within the other three quarters. A
    body there is no room for is refused at once (503, Retry-After), never waited for: a waiting connection would
    hold its socket's buffers all the same."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.kept = total // 4
        self.small = self.kept // 64
        self.held = 0

    def take(self, size: int) -> bool:
        room = self.total if size <= self.small else self.total - self.kept
        if self.held + size > room:
            return False
        self.held += size
        return True

    def give(self, size: int) -> None:
        self.held -= size


BODIES = web.AppKey("body memory", BodyMemory)
BUSY_RETRY_AFTER = "5"  # seconds: the bodies held now are answered within a body timeout at most
LINGER_SECONDS = 2.0  # a refused body is drained at most this long, so its sender reads the answer, then cut off
BAD_SIGNATURE = "the signature is missing or does not match the webhook secret"


def event_label(event: str | None) -> str:
    return event if event in EVENT_LABELS else "other"


class Refusal(Exception):
    """A delivery answered without work: its status, the outcome counted, and the reason given."""

    def __init__(self, status: int, outcome: str, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.outcome, self.message, self.headers = status, outcome, message, headers


@dataclass(frozen=True)
class Delivery:
    """A delivery whose signature and headers hold, with its body (not read yet)."""

    event: str
    id: str
    body: bytes


@dataclass(frozen=True)
class Admitted:
    """A delivery of an event and action Wikiwarden acts on, read into its route's model."""

    event: str
    id: str
    route: Route[Any]
    payload: Envelope


def _reply(status: int, message: str, headers: Mapping[str, str] | None = None, **extra: Any) -> web.Response:
    body = orjson.dumps({"message": message, **extra})
    return web.Response(status=status, body=body, content_type="application/json", headers=headers)


def parse_delivery(headers: Mapping[str, str], body: bytes, secret: str, signature: bytes | None = None) -> Delivery:
    """Check the signature first (nothing else of an unauthenticated request is read), then the headers. Raises
    Refusal: 401 for any missing, malformed or wrong signature, 400 for anything else malformed. `signature`: the
    digest the signature header holds, when it was read already (`signature_of`)."""
    given = signature if signature is not None else signature_of(headers.get("X-Hub-Signature-256"))
    if given is None or not signature_matches(given, body, secret):
        raise Refusal(401, "bad_signature", BAD_SIGNATURE)
    event, delivery = headers.get("X-GitHub-Event"), headers.get("X-GitHub-Delivery")
    if not event or not delivery or not DELIVERY_ID.fullmatch(delivery):
        reason = "X-GitHub-Event or X-GitHub-Delivery missing or malformed"
        raise Refusal(400, "bad_request", f"not a GitHub webhook delivery: {reason}")
    content_type = headers.get("Content-Type", "").split(";", 1)[0].strip()
    if content_type != "application/json":
        reason = f"expected application/json, got {content_type[:60] or 'no content type'}"
        raise Refusal(400, "bad_request", f"not a GitHub webhook delivery: {reason}")
    return Delivery(event, delivery, body)


def _json_object(body: bytes) -> dict[str, Any]:
    """The body's JSON object. Raises Refusal (400) for a body that is not one."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise Refusal(400, "bad_request", f"not a GitHub webhook delivery: the body is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise Refusal(400, "bad_request", "not a GitHub webhook delivery: the body is not a JSON object")
    return data


def _body_room(request: web.Request, limit: int, memory: BodyMemory) -> tuple[int, bytes]:
    """The bytes held for the request's body (taken from `memory`), and the digest its signature header holds.
    Raises Refusal, before anything of the body is read: 413 for a body announced over `limit`, 401 for a request
    without a signature of the right shape (its body could never be trusted), 503 when the bodies being read already
    fill the memory they may."""
    announced = request.content_length
    if announced is not None and announced > limit:
        raise Refusal(413, "too_large", "payload too large")
    signature = signature_of(request.headers.get("X-Hub-Signature-256"))
    if signature is None:
        raise Refusal(401, "bad_signature", BAD_SIGNATURE)
    size = limit if announced is None else announced
    if not memory.take(size):
        retry = {"Retry-After": BUSY_RETRY_AFTER}
        raise Refusal(503, "busy", "too many deliveries are being read; redeliver it to try again", retry)
    return size, signature


async def _read_body(request: web.Request, timeout: float) -> bytes:
    """The whole body, within `timeout` seconds when it has not all arrived with the headers (GitHub's deliveries
    usually have). Raises Refusal: 413 for a body growing over the limit, 408 for one too slow, 400 for one whose
    sender went away (anyone can: not an error of the App's, to log with a traceback)."""
    try:
        if request.content.is_eof():  # nothing to wait for: no timer
            return await request.read()
        async with asyncio.timeout(timeout):
            return await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise Refusal(413, "too_large", "payload too large") from None
    except TimeoutError:
        message = f"the body did not arrive within {timeout:g} seconds"
        raise Refusal(408, "timeout", message, {"Connection": "close"}) from None
    except ConnectionError:
        raise Refusal(400, "bad_request", "the connection was lost before the body arrived") from None


async def webhook(request: web.Request) -> web.Response:
    label = UNVERIFIED
    app = request.app
    held = 0
    try:
        settings = app[SETTINGS]
        held, signature = _body_room(request, settings.max_body_bytes, app[BODIES])
        body = await _read_body(request, settings.body_timeout_seconds)
        delivery = parse_delivery(request.headers, body, settings.webhook_secret.get_secret_value(), signature)
        label = event_label(delivery.event)
        outcome, answer = await _take(app, admit(delivery))
    except Refusal as refusal:
        if refusal.status == 400 and label != UNVERIFIED:
            log.warning("delivery refused: %s", refusal.message, extra={"event": label})
        _delivery_counter(label, refusal.outcome).inc()
        return _reply(refusal.status, refusal.message, refusal.headers)
    finally:
        if held:
            app[BODIES].give(held)  # the body (cached on the request) goes with the answer
    _delivery_counter(label, outcome).inc()
    return answer


@functools.cache
def _delivery_counter(label: str, outcome: str) -> Counter:
    """The counter of one event label and outcome (both from fixed sets): `labels` takes a lock and checks its
    arguments on every call."""
    return DELIVERIES.labels(label, outcome)


def admit(delivery: Delivery) -> Admitted:
    """An authenticated delivery, parsed into its route's model. Raises Refusal: 400 for a body that is not a JSON
    object, 200 for a ping, 202 for what Wikiwarden ignores, 400 for a payload that does not fit its model.

    A delivery of an event whose routes all take one model (a push, a pull request) is first read into that model
    straight from its body, in one pass that builds only what the model keeps (pydantic's own parser): about half the
    time of orjson's parse of all of GitHub's JSON (hundreds of objects) and the two models read from it.
    Where that fails, the delivery goes the careful way, which gives the refusal and its reason (the body is not
    JSON, no installation, the fields that do not fit), so a delivery gets the same answer either way. One
    difference is kept: pydantic's parser also reads NaN, Infinity and numbers beyond a float's range, which
    orjson refuses, so a signed delivery carrying one where no model looks is taken rather than refused."""
    model = routes.model_of(delivery.event)
    if model is not None:
        try:
            payload = model.model_validate_json(delivery.body)
        except ValidationError:
            pass  # the careful way says why
        else:
            return Admitted(delivery.event, delivery.id, _route(delivery.event, payload), payload)
    data = _json_object(delivery.body)
    if delivery.event == "ping":
        raise Refusal(200, "ignored", "pong")
    if delivery.event not in routes.events:
        raise Refusal(202, "ignored", "ignored: an event Wikiwarden does not handle")
    try:
        route = _route(delivery.event, parse_payload(Envelope, delivery.event, data))
        payload = parse_payload(route.model, delivery.event, data)
    except PayloadError as exc:
        raise Refusal(400, "bad_request", str(exc)) from None
    return Admitted(delivery.event, delivery.id, route, payload)


def _route(event: str, envelope: Envelope) -> Route[Any]:
    """The route of a delivery of `event` read as `envelope`. Raises Refusal (202) for one Wikiwarden ignores."""
    if envelope.installation is None:
        raise Refusal(202, "ignored", "ignored: not an App installation event")
    route = routes.find(event, envelope.action)
    if route is None:
        raise Refusal(202, "ignored", "ignored: Wikiwarden does nothing on this action")
    return route


async def _take(app: web.Application, delivery: Admitted) -> tuple[str, web.Response]:
    """An admitted delivery: de-duplicated and handed to its route's handler."""
    payload, route = delivery.payload, delivery.route
    # Check and mark in one step, with no await between: of concurrent copies of a delivery only one goes on.
    seen = app[SEEN]
    if not seen.remember(delivery.id):
        raise Refusal(200, "duplicate", "already received")  # a redelivery keeps its id: do the work once
    runtime = app[RUNTIME]
    repo = getattr(payload, "repository", None)
    # The delivery's fields are given to its lines, not set as their work context: no line is logged on the way
    # in but these, and the context (entered and left) cost every delivery.
    fields = {"event": delivery.event, "delivery": delivery.id, "repo": repo.full_name if repo is not None else None}
    ctx = WebhookContext(delivery=delivery.id, submit=app[QUEUE].submit, forget_installation=runtime.tokens.forget)
    try:
        if payload.sender is not None and payload.sender.login == await runtime.bot_login():
            return "ignored", _reply(202, "ignored: caused by Wikiwarden itself")
        await route.handler(payload, ctx)
    except Exception:
        seen.forget(delivery.id)  # so GitHub's redelivery is taken
        log.exception("could not take a delivery", extra=fields)
        raise Refusal(503, "unavailable", "the delivery could not be queued; redeliver it to try again") from None
    info_later(log, "delivery accepted", jobs=len(ctx.jobs), **fields)
    return "accepted", _reply(202, "accepted", jobs=[job.kind for job in ctx.jobs])


async def healthz(request: web.Request) -> web.Response:
    return web.Response(body=b'{"status":"ok"}', content_type="application/json")


async def metrics(request: web.Request) -> web.Response:
    body, content_type = exposition()
    return web.Response(body=body, headers={"Content-Type": content_type})


def create_app(settings: Settings, queue_factory: QueueFactory | None = None) -> web.Application:
    """The aiohttp application; its session, runtime and queue live for the application's lifetime. A web process
    whose jobs run elsewhere (Redis's workers) keeps the cyclic garbage collector out of its deliveries
    (`collector_at_rest`)."""
    app = web.Application(client_max_size=settings.max_body_bytes)
    app[SETTINGS] = settings
    app[SEEN] = DeliveryMemory(100_000, DELIVERY_MEMORY_SECONDS)
    app[BODIES] = BodyMemory(settings.body_memory_bytes)

    async def lifetime(app: web.Application) -> AsyncIterator[None]:
        timeout = aiohttp.ClientTimeout(total=120, connect=15)
        async with aiohttp.ClientSession(timeout=timeout, json_serialize=json.dumps) as session:
            runtime = AppRuntime(settings, session, RUNNERS, app_agents(settings))
            queue = (queue_factory or default_queue(settings))(runtime)
            runtime.submit = queue.submit
            app[RUNTIME] = runtime
            app[QUEUE] = queue
            if queue.runs_jobs:
                await start_job_processes()
            await queue.start()
            warming = asyncio.create_task(learn_who_the_app_is(runtime))
            async with contextlib.nullcontext() if queue.runs_jobs else collector_at_rest():
                yield
            warming.cancel()
            await asyncio.gather(warming, return_exceptions=True)
            await queue.close()  # stop taking jobs, let the running ones finish
            await runtime.close()

    app.cleanup_ctx.append(lifetime)
    app.router.add_post("/webhook", webhook)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    return app


def server_options(settings: Settings) -> dict[str, Any]:
    """How aiohttp's server holds connections, for `web.run_app` or `web.AppRunner`: a connection that has not sent
    a request's headers within `header_timeout_seconds` (or stays idle that long) is closed, and a body the App
    refused is drained at most `LINGER_SECONDS` (so its sender reads the answer) before its connection is closed.
    Headers are GitHub's few lines: at most 64 of them, none longer than 8 KiB."""
    return {
        "keepalive_timeout": settings.header_timeout_seconds,
        "lingering_time": LINGER_SECONDS,
        "max_headers": 64,
    }


COLLECT_EVERY_SECONDS = 1.0


@contextlib.asynccontextmanager
async def collector_at_rest(every: float | None = None) -> AsyncIterator[None]:
    """While it is entered, the cyclic garbage collector leaves the start-up heap alone and runs on the clock, not on
    allocation counts: one collection every `every` seconds (default `COLLECT_EVERY_SECONDS`). For a process that
    only acknowledges deliveries; the collector's state is given back on exit.

    Such a process's heap is what its imports left (about 130,000 objects) plus a little per request, and
    refcounting frees all but a few objects a delivery (about 6 in cycles). Left to itself, the collector ran by
    allocation counts: with 200 deliveries in flight, each holding a hundred container objects, a burst set off
    some 28 young collections and 2 or 3 of the middle generation, these walking every request in flight, and,
    before the start-up heap was frozen (`gc.freeze`), now and then a full one walking it all, while every delivery
    of the burst waited. On the clock it makes one collection of what a second left, not a burst's worth (by turns,
    the CPU a delivery and the p99 were lower). Not for a
    process whose own workers run checks: a check's many long-lived objects are the collector's real work, and
    freezing there was measured to triple the CPU a delivery."""
    enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    collecting = asyncio.create_task(_collect_every(COLLECT_EVERY_SECONDS if every is None else every))
    try:
        yield
    finally:
        collecting.cancel()
        await asyncio.gather(collecting, return_exceptions=True)
        if enabled:
            gc.enable()
        gc.unfreeze()


async def _collect_every(seconds: float) -> None:
    while True:
        await asyncio.sleep(seconds)
        gc.collect()


async def learn_who_the_app_is(runtime: AppRuntime) -> None:
    """Ask GitHub who the App is once at start-up, not on the first delivery: that first lookup (the signing key's
    first use, then a request) is slow, and every delivery of a first burst waited behind it. Best effort:
    when GitHub cannot answer now, the first delivery asks again."""
    try:
        await runtime.bot_login()
    except Exception as exc:  # the delivery path reports it if it persists
        reason = type(exc).__name__
        log.warning("could not ask GitHub who the App is at start-up (%s); the first delivery asks again", reason)


def default_queue(settings: Settings) -> QueueFactory:
    """The queue `settings` ask for: jobs run in this process (memory), or go to Redis for the workers."""
    if settings.queue_backend == "redis":
        return lambda runtime: RedisQueue(settings.redis_url.get_secret_value())

    def make(runtime: AppRuntime) -> Queue:
        retry = RetryPolicy(settings.job_max_tries, settings.job_retry_base_seconds)
        return InProcessQueue(
            isolated_jobs(settings, runtime),  # each job in a child process: this one only waits for it
            workers=settings.workers,
            on_failure=runtime.job_failed,
            retry=retry,
            timeout=settings.job_timeout_seconds,
        )

    return make
