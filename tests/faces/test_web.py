"""The web process face (`POST /webhook`), as anyone on the internet can reach it: every malformed signature is a 401,
only `sha256=` signatures count, a signed payload of the wrong shape is a 400 with the reason (never a 5xx), metric
labels never come from an unauthenticated request, and one delivery is accepted once however many copies race."""

from __future__ import annotations

import asyncio
import copy
import gc
import hashlib
import hmac
import json
import urllib.error
import urllib.request
import uuid
import weakref
from typing import Any, get_args, get_origin

import aiohttp
import pytest
from apptools import example, grounded, push_payload, queue_of, runs_of, settings_for, sign, start_app
from fakegithub import FakeGitHub
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from processes import app_environment, metric, redis_server, redis_url, start_process
from pydantic import BaseModel, ValidationError

from bot.github.handlers import Envelope, routes
from bot.jobs import Job
from bot.jobs.memory import InProcessQueue
from bot.settings import SettingsError
from bot.web import LINGER_SECONDS

__all__ = ["redis_server", "redis_url"]  # fixtures, used by name
SIGNED_HEADERS = {"Content-Type": "application/json", "User-Agent": "GitHub-Hookshot/5d2c2ad"}


@pytest.fixture
def repo(fake: FakeGitHub):
    repo = fake.create_repo("acme", "widgets", 77)
    repo.base = repo.commit(grounded({"a.py": "A = 1\n"}, {"a.md": [("a is one", ["repo://a.py#L1"])]}), message="x")
    return repo


async def post(
    app: Any,
    body: bytes,
    *,
    event: str | None = "push",
    delivery: str | None = None,
    signature: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any]]:
    """POST `body` with GitHub's headers; `signature` None leaves the header out."""
    sent = dict(SIGNED_HEADERS)
    if event is not None:
        sent["X-GitHub-Event"] = event
    sent["X-GitHub-Delivery"] = delivery or str(uuid.uuid4())
    if signature is not None:
        sent["X-Hub-Signature-256"] = signature
    sent.update(headers or {})
    response = await app.post("/webhook", data=body, headers=sent)
    return response.status, await response.json()


async def post_signed(app: Any, fake: FakeGitHub, payload: Any, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    body = json.dumps(payload).encode()
    return await post(app, body, signature=sign(body, fake.webhook_secret), **kwargs)


def deliveries(text: str) -> list[dict[str, str]]:
    """The label sets of `wikiwarden_deliveries_total` in a /metrics text."""
    found = []
    for line in text.splitlines():
        if line.startswith("wikiwarden_deliveries_total{"):
            labels = line[line.index("{") + 1 : line.index("}")]
            found.append(dict(part.split("=", 1) for part in labels.split(",")))
    return [{k: v.strip('"') for k, v in labels.items()} for labels in found]


async def raw_post(port: int, head: bytes, body: bytes = b"", length: int | None = None) -> int:
    """POST with header bytes exactly as given (no client would send a byte that is not ASCII), announcing
    `length` bytes (the body's by default) and sending `body`; the status."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = b"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
    announced = len(body) if length is None else length
    writer.write(request + head + f"Content-Length: {announced}\r\n\r\n".encode() + body)
    await writer.drain()
    status_line = await reader.readline()
    writer.close()
    await writer.wait_closed()
    return int(status_line.split()[1])


# -- signatures ------------------------------------------------------------------------------------------------


async def test_a_signature_with_a_non_ascii_byte_is_a_401(app, fake: FakeGitHub, repo) -> None:
    body = json.dumps(push_payload(repo, before=repo.base, after=repo.base)).encode()
    valid = sign(body, fake.webhook_secret)
    for signature in ("sha256=" + "é" * 64, valid[:-1] + "é", "sha256=\udcff" + valid[8:]):
        status, answer = await post(app, body, signature=signature)
        assert (status, answer["message"]) == (401, "the signature is missing or does not match the webhook secret")


async def test_a_valid_sha1_signature_is_refused(app, fake: FakeGitHub, repo) -> None:
    body = json.dumps(push_payload(repo, before=repo.base, after=repo.base)).encode()
    sha1 = "sha1=" + hmac.new(fake.webhook_secret.encode(), body, hashlib.sha1).hexdigest()
    assert (await post(app, body, signature=sha1))[0] == 401
    assert (await post(app, body, signature=sha1, headers={"X-Hub-Signature": sha1}))[0] == 401
    await queue_of(app).wait_idle()
    assert fake.token_mints == 0


@pytest.mark.parametrize(
    "mangle",
    [
        lambda s: "",
        lambda s: "sha256=",
        lambda s: s[:-1],  # 63 hex digits
        lambda s: s + "0",  # 65
        lambda s: s.replace("sha256=", "SHA256="),
        lambda s: s.replace("sha256=", "sha256 ="),
        lambda s: s.replace("sha256=", "sha256:"),
        lambda s: s.replace("sha256=", ""),
        lambda s: s + ",sha256=" + "0" * 64,
        lambda s: s[:-1] + "g",
        lambda s: s[:-2] + "\u0660\u0661",  # Arabic-Indic digits: str.isdigit() says yes, hex says no
        lambda s: "sha256=" + "0" * 64,
    ],
)
async def test_every_malformed_or_wrong_signature_is_a_401(app, fake: FakeGitHub, repo, mangle) -> None:
    body = json.dumps(push_payload(repo, before=repo.base, after=repo.base)).encode()
    status, _ = await post(app, body, signature=mangle(sign(body, fake.webhook_secret)))
    assert status == 401


async def test_upper_case_hex_digits_are_a_valid_signature(app, fake: FakeGitHub, repo) -> None:
    body = json.dumps(push_payload(repo, before=repo.base, after=repo.base)).encode()
    signature = sign(body, fake.webhook_secret)
    assert (await post(app, body, signature="sha256=" + signature[7:].upper()))[0] == 202


async def test_the_signature_is_checked_before_anything_else(app, fake: FakeGitHub) -> None:
    assert (await post(app, b"not json", event=None, headers={"Content-Type": "text/plain"}))[0] == 401
    assert (await post(app, b"[1, 2", event="push", signature="sha256=" + "0" * 64))[0] == 401


# -- refusals of signed requests --------------------------------------------------------------------------------


async def test_a_body_over_the_limit_is_a_413_whether_announced_or_streamed(aiohttp_client, fake: FakeGitHub) -> None:
    app = await start_app(aiohttp_client, fake, max_body_bytes=1000)
    body = b'{"zen": "' + b"x" * 2000 + b'"}'
    headers = {**SIGNED_HEADERS, "X-GitHub-Event": "push", "X-GitHub-Delivery": "d-big"}
    headers["X-Hub-Signature-256"] = sign(body, fake.webhook_secret)
    announced = await app.post("/webhook", data=body, headers=headers)
    assert (announced.status, await announced.json()) == (413, {"message": "payload too large"})

    async def chunks():  # no Content-Length: the limit is found while reading
        for start in range(0, len(body), 100):
            yield body[start : start + 100]

    streamed = await app.post("/webhook", data=chunks(), headers=headers)
    assert streamed.status == 413
    small = b'{"zen": "ok"}'
    headers["X-Hub-Signature-256"] = sign(small, fake.webhook_secret)
    assert (await app.post("/webhook", data=small, headers=headers)).status == 202  # under the limit: read


# -- what an unauthenticated request may cost: memory and time -------------------------------------------------
#
# Anyone can send a body, and its signature can only be checked once all of it has been read. So a request without a
# signature is refused before its body is read; the bodies read at once are bounded in bytes
# (`WIKIWARDEN_BODY_MEMORY_BYTES`, a quarter kept for small ones, as GitHub's usual deliveries are), beyond which a
# request is refused at once with a 503 and Retry-After; and a body that does not arrive in time is cut off.

BAD_SIGNATURE = b"X-Hub-Signature-256: sha256=" + b"0" * 64 + b"\r\n"


async def open_post(port: int, head: bytes, length: int, body: bytes = b"") -> tuple[asyncio.StreamReader, Any]:
    """Start a POST announcing `length` bytes and send only `body` of them; the connection, to go on with."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = b"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    request += b"X-GitHub-Event: push\r\nX-GitHub-Delivery: d-slow\r\n" + head
    writer.write(request + f"Content-Length: {length}\r\n\r\n".encode() + body)
    await writer.drain()
    return reader, writer


async def answer_of(reader: asyncio.StreamReader, within: float) -> tuple[int, dict[str, str]]:
    """The status and headers of the response, which must come within `within` seconds."""
    status_line = await asyncio.wait_for(reader.readline(), within)
    headers = {}
    while (line := await asyncio.wait_for(reader.readline(), within)) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers


async def test_a_request_without_a_signature_is_refused_before_its_body_is_read(aiohttp_client, fake) -> None:
    app = await start_app(aiohttp_client, fake, max_body_bytes=1_000_000)
    reader, writer = await open_post(app.server.port, b"", 1_000_000)  # the body is not even sent
    assert (await answer_of(reader, 2))[0] == 401
    writer.close()


async def test_large_bodies_beyond_the_memory_bound_are_refused_at_once_and_small_signed_deliveries_get_through(
    aiohttp_client, fake: FakeGitHub, repo
) -> None:
    app = await start_app(aiohttp_client, fake, max_body_bytes=1_000_000, body_memory_bytes=4_000_000)
    # Three bodies of a megabyte with a signature of the right shape, arriving slowly: read, and held, for now.
    held = [await open_post(app.server.port, BAD_SIGNATURE, 1_000_000, b'{"zen": "') for _ in range(3)]
    await asyncio.sleep(0.2)
    # A fourth would take the memory over its bound: refused at once, without waiting for its body.
    reader, writer = await open_post(app.server.port, BAD_SIGNATURE, 1_000_000, b'{"zen": "')
    status, headers = await answer_of(reader, 2)
    assert status == 503 and int(headers["retry-after"]) > 0
    writer.close()
    # GitHub's deliveries, small, still get through while the large bodies are held.
    head = repo.commit({"a.py": "A = 2\n"}, message="y")
    assert (await post_signed(app, fake, push_payload(repo, before=repo.base, after=head)))[0] == 202
    # The held bodies, once they have all arrived, get their answer: their signatures are wrong.
    for _, writer in held:
        writer.write(b"x" * (1_000_000 - len(b'{"zen": "')))
        await writer.drain()
    assert [(await answer_of(reader, 5))[0] for reader, _ in held] == [401, 401, 401]
    for _, writer in held:
        writer.close()
    # The bound was given back: a large body is read again.
    reader, writer = await open_post(app.server.port, BAD_SIGNATURE, 1_000_000, b"x" * 1_000_000)
    assert (await answer_of(reader, 5))[0] == 401
    writer.close()
    text = await (await app.get("/metrics")).text()
    assert metric(text, "wikiwarden_deliveries_total", event="unverified", outcome="busy") == 1


async def test_a_body_that_does_not_arrive_in_time_is_cut_off(aiohttp_client, fake: FakeGitHub) -> None:
    app = await start_app(aiohttp_client, fake, body_timeout_seconds=0.5)
    reader, writer = await open_post(app.server.port, BAD_SIGNATURE, 1000)
    started = asyncio.get_running_loop().time()

    async def trickle() -> None:  # a byte every tenth of a second: it would take 100 s
        for _ in range(1000):
            writer.write(b" ")
            await writer.drain()
            await asyncio.sleep(0.1)

    sending = asyncio.create_task(trickle())
    try:
        status, headers = await answer_of(reader, 3)
    finally:
        sending.cancel()
        await asyncio.gather(sending, return_exceptions=True)
    assert (status, headers.get("connection")) == (408, "close")
    assert asyncio.get_running_loop().time() - started < 2
    writer.close()
    text = await (await app.get("/metrics")).text()
    assert metric(text, "wikiwarden_deliveries_total", event="unverified", outcome="timeout") == 1


async def test_a_serve_process_closes_a_connection_whose_headers_or_body_come_too_slowly_or_never(
    fake: FakeGitHub, tmp_path
) -> None:
    env = app_environment(
        fake, "redis://127.0.0.1:9/0", QUEUE_BACKEND="memory", APP_SLUG=fake.app_slug, WORKERS=1,
        HEADER_TIMEOUT_SECONDS=1, BODY_TIMEOUT_SECONDS=1,
    )  # fmt: skip
    web = await start_process("web", env, tmp_path)
    loop = asyncio.get_running_loop()
    try:

        async def trickle(writer: Any, data: bytes) -> None:  # a byte every fifth of a second
            for byte in data:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(0.2)

        # Headers a byte at a time: the connection is closed once the header timeout has passed, unanswered.
        reader, writer = await asyncio.open_connection("127.0.0.1", web.port)
        started = loop.time()
        sending = asyncio.create_task(trickle(writer, b"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\n" * 10))
        assert await asyncio.wait_for(reader.read(), 5) == b""
        assert 0.9 < loop.time() - started < 3
        sending.cancel()
        await asyncio.gather(sending, return_exceptions=True)
        writer.close()

        # A signed-looking body a byte at a time: a 408 once the body timeout has passed, and the connection closed.
        reader, writer = await open_post(web.port, BAD_SIGNATURE, 1000)
        started = loop.time()
        sending = asyncio.create_task(trickle(writer, b" " * 1000))
        status, headers = await answer_of(reader, 5)
        assert (status, headers.get("connection")) == (408, "close")
        await asyncio.wait_for(reader.read(), 5)  # the rest of the answer, then the end: closed
        assert loop.time() - started < 1 + LINGER_SECONDS + 1.5
        sending.cancel()
        await asyncio.gather(sending, return_exceptions=True)
        writer.close()

        # A sender going away before its body has arrived: refused, and no error of the App's (anyone can do it).
        _, writer = await open_post(web.port, BAD_SIGNATURE, 1000, b"{")
        await asyncio.sleep(0.2)
        writer.close()
        await asyncio.sleep(0.3)
        await web.wait_healthy()
        text = await web.metrics()
        assert metric(text, "wikiwarden_deliveries_total", event="unverified", outcome="timeout") == 1
        assert metric(text, "wikiwarden_deliveries_total", event="unverified", outcome="bad_request") == 1
    finally:
        assert await web.stop() == 0
    lines = [json.loads(line) for line in web.logs().splitlines() if line.startswith("{")]
    assert [line for line in lines if "exc_info" in line or line["level"] == "ERROR"] == []


def test_the_body_memory_bound_must_hold_the_largest_body(fake: FakeGitHub) -> None:
    with pytest.raises(SettingsError, match="WIKIWARDEN_BODY_MEMORY_BYTES"):
        settings_for(fake, max_body_bytes=1_000_000, body_memory_bytes=1_000_000)


@pytest.mark.parametrize(
    ("body", "headers", "reason"),
    [
        (b"not json", {}, "the body is not JSON"),
        (b"[1, 2, 3]", {}, "the body is not a JSON object"),
        (b'"a string"', {}, "the body is not a JSON object"),
        (b'{"zen": "ok"}', {"Content-Type": "application/x-www-form-urlencoded"}, "expected application/json"),
        (b'{"zen": "ok"}', {"X-GitHub-Event": ""}, "X-GitHub-Event"),
        (b'{"zen": "ok"}', {"X-GitHub-Delivery": ""}, "X-GitHub-Delivery"),
        (b'{"zen": "ok"}', {"X-GitHub-Delivery": "d" * 300}, "X-GitHub-Delivery"),
    ],
)
async def test_a_signed_request_that_is_not_a_delivery_is_a_400_saying_why(
    app, fake: FakeGitHub, body: bytes, headers: dict[str, str], reason: str
) -> None:
    status, answer = await post(app, body, signature=sign(body, fake.webhook_secret), headers=headers)
    assert status == 400 and reason in answer["message"], answer


def _without(payload: dict[str, Any], *path: str) -> dict[str, Any]:
    node = payload
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return payload


def _with(payload: dict[str, Any], value: Any, *path: str) -> dict[str, Any]:
    node = payload
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return payload


WRONG_SHAPES = {
    "installation without repository": lambda p: _without(p, "repository"),
    "sender a string": lambda p: _with(p, "octocat", "sender"),
    "installation a list": lambda p: _with(p, [77], "installation"),
    "installation id a string": lambda p: _with(p, "77", "installation", "id"),
    "installation id a boolean": lambda p: _with(p, True, "installation", "id"),
    "repository a string": lambda p: _with(p, "acme/widgets", "repository"),
    "repository id missing": lambda p: _without(p, "repository", "id"),
    "full name without owner": lambda p: _with(p, "widgets", "repository", "full_name"),
    "ref a number": lambda p: _with(p, 7, "ref"),
    "after not a sha": lambda p: _with(p, "HEAD", "after"),
    "action a list": lambda p: _with(p, ["opened"], "action"),
    "action an object": lambda p: _with(p, {"a": 1}, "action"),
}


@pytest.mark.parametrize("shape", sorted(WRONG_SHAPES))
async def test_a_signed_push_of_the_wrong_shape_is_a_400_with_the_reason(app, fake: FakeGitHub, repo, shape) -> None:
    payload = WRONG_SHAPES[shape](push_payload(repo, before=repo.base, after=repo.base))
    status, answer = await post_signed(app, fake, payload)
    assert status == 400, (shape, answer)
    assert answer["message"].startswith("the push payload does not fit"), answer
    await queue_of(app).wait_idle()
    assert repo.check_runs == []


@pytest.mark.parametrize(
    ("event", "name", "path"),
    [
        ("pull_request", "pull_request.opened.2", ("pull_request", "head")),
        ("pull_request", "pull_request.synchronize.1", ("pull_request", "number")),
        ("check_suite", "check_suite.rerequested.1", ("check_suite", "head_sha")),
        ("check_run", "check_run.rerequested.1", ("check_run", "check_suite")),
        ("check_run", "check_run.requested_action.1", ("requested_action",)),
        ("installation", "installation.deleted.1", ("installation", "id")),
    ],
)
async def test_every_handled_event_of_the_wrong_shape_is_a_400(app, fake: FakeGitHub, event, name, path) -> None:
    payload = example(name)
    payload["installation"] = {"id": 77}
    status, answer = await post_signed(app, fake, _without(payload, *path), event=event)
    assert status == 400 and answer["message"].startswith(f"the {event} payload does not fit"), answer
    assert ".".join(path) in answer["message"]


async def test_what_wikiwarden_does_not_handle_is_ignored_whatever_its_shape(app, fake: FakeGitHub) -> None:
    for event, payload in [
        ("issues", {"action": ["odd"], "installation": "not an object"}),
        ("pull_request", {**example("pull_request.closed.1"), "installation": {"id": 77}}),
        ("push", {"ref": "refs/heads/main"}),  # no installation: a repository webhook, not the App's
    ]:
        status, answer = await post_signed(app, fake, payload, event=event)
        assert status == 202 and answer["message"].startswith("ignored"), (event, answer)


# -- metrics ----------------------------------------------------------------------------------------------------

EVENT_LABELS = {"push", "pull_request", "check_suite", "check_run", "installation", "ping", "other", "unverified"}


async def test_no_metric_label_comes_from_an_unauthenticated_request(app, fake: FakeGitHub) -> None:
    names = [f"evil-{uuid.uuid4().hex}" for _ in range(50)]
    for name in names:
        await post(app, b"{}", event=name)  # unsigned
        await post(app, b"{}", event=name, signature="sha256=" + "0" * 64)
        # Headers only, announcing a body over the limit: refused before anything is read.
        assert await raw_post(app.server.port, f"X-GitHub-Event: {name}\r\n".encode(), length=10**9) == 413
    signed = b'{"zen": "ok"}'  # a signed body does not vouch for the event header
    await post(app, signed, event=names[0], signature=sign(signed, fake.webhook_secret))
    text = await (await app.get("/metrics")).text()
    labels = deliveries(text)
    assert labels and {found["event"] for found in labels} <= EVENT_LABELS
    assert not any(name in text for name in names)
    assert metric(text, "wikiwarden_deliveries_total", event="unverified", outcome="bad_signature") >= 100
    assert metric(text, "wikiwarden_deliveries_total", event="unverified", outcome="too_large") >= 50
    assert metric(text, "wikiwarden_deliveries_total", event="other", outcome="ignored") >= 1


# -- replays ----------------------------------------------------------------------------------------------------


async def test_fifty_concurrent_copies_of_one_delivery_are_accepted_once(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"a.py": "A = 2\n"}, message="y")
    payload = push_payload(repo, before=repo.base, after=head)
    answers = await asyncio.gather(*(post_signed(app, fake, payload, delivery="d-race") for _ in range(50)))
    accepted = [answer for status, answer in answers if status == 202]
    assert len(accepted) == 1 and accepted[0]["jobs"] == ["check"]
    assert sorted({(status, answer["message"]) for status, answer in answers}) == [
        (200, "already received"),
        (202, "accepted"),
    ]
    await queue_of(app).wait_idle()
    assert len(runs_of(repo, head)) == 1


async def _requests_to_app(fake: FakeGitHub, count: int) -> list[int]:
    """The statuses of GET /app, once there are `count` of them (at most 5 seconds)."""
    for _ in range(500):
        asked = [r.status for r in fake.requests if r.path == "/app"]
        if len(asked) >= count:
            return asked
        await asyncio.sleep(0.01)
    return [r.status for r in fake.requests if r.path == "/app"]


async def test_who_the_app_is_is_asked_at_start_up_not_by_the_first_delivery(app, fake: FakeGitHub, repo) -> None:
    assert await _requests_to_app(fake, 1) == [200]  # no delivery yet
    head = repo.commit({"a.py": "A = 2\n"}, message="y")
    status, answer = await post_signed(app, fake, push_payload(repo, before=repo.base, after=head))
    assert (status, answer["jobs"]) == (202, ["check"])
    assert [r.status for r in fake.requests if r.path == "/app"] == [200]  # the delivery did not ask again


async def test_when_github_cannot_say_who_the_app_is_at_start_up_the_first_delivery_asks(
    aiohttp_client, fake: FakeGitHub, repo, caplog
) -> None:
    fake.fail_next("GET", "^/app$", 401, times=1)
    app = await start_app(aiohttp_client, fake)
    assert await _requests_to_app(fake, 1) == [401]
    for _ in range(500):
        if "who the App is at start-up" in caplog.text:
            break
        await asyncio.sleep(0.01)
    assert "the first delivery asks again" in caplog.text
    head = repo.commit({"a.py": "A = 2\n"}, message="y")
    status, answer = await post_signed(app, fake, push_payload(repo, before=repo.base, after=head))
    assert (status, answer["jobs"]) == (202, ["check"])
    assert [r.status for r in fake.requests if r.path == "/app"] == [401, 200]


class Cycle:
    """An object only the cyclic collector can free (it refers to itself); weakly referenceable."""

    def __init__(self) -> None:
        self.me = self


@pytest.mark.parametrize("backend", ["memory", "redis"])
async def test_a_web_process_whose_jobs_run_elsewhere_keeps_the_collector_out_of_its_deliveries(
    aiohttp_client,
    fake: FakeGitHub,
    repo,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    backend: str,
) -> None:
    """Only when Redis's workers run the jobs: its start-up heap frozen and the collector off while it serves,
    collecting on the clock instead (a cycle made while it serves is freed), all given back when it stops. A
    process whose own workers run checks is left to the collector as it is."""
    import bot.web

    monkeypatch.setattr(bot.web, "COLLECT_EVERY_SECONDS", 0.05)
    overrides = (
        {"queue_backend": "redis", "redis_url": request.getfixturevalue("redis_url")} if backend == "redis" else {}
    )
    assert gc.isenabled()
    client = await start_app(aiohttp_client, fake, **overrides)
    frozen = gc.get_freeze_count()
    assert gc.isenabled() == (backend == "memory")
    head = repo.commit({"a.py": "A = 2\n"}, message="y")
    status, answer = await post_signed(client, fake, push_payload(repo, before=repo.base, after=head))
    assert (status, answer["jobs"]) == (202, ["check"])
    assert gc.get_freeze_count() <= frozen  # nothing a delivery makes is frozen (a frozen object may die)
    if backend == "redis":
        garbage = weakref.ref(Cycle())
        for _ in range(100):  # only the collector's clock can free it
            if garbage() is None:
                break
            await asyncio.sleep(0.01)
        assert garbage() is None
    await client.close()
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    assert (frozen > 10_000) == (backend == "redis"), frozen


async def test_the_collector_at_rest_gives_back_a_collector_that_was_off() -> None:
    from bot.web import collector_at_rest

    gc.disable()
    try:
        async with collector_at_rest(every=0.01):
            garbage = weakref.ref(Cycle())
            await asyncio.sleep(0.1)
            assert garbage() is None and not gc.isenabled() and gc.get_freeze_count() > 0
        assert not gc.isenabled() and gc.get_freeze_count() == 0
        assert asyncio.all_tasks() == {asyncio.current_task()}  # its clock stopped, not left pending
    finally:
        gc.enable()


class RefusingOnce:
    """A queue whose first submission fails as a queue that cannot be reached does, then works (a real
    in-process queue behind it)."""

    runs_jobs = True

    def __init__(self, queue: InProcessQueue) -> None:
        self.queue = queue
        self.refusals = 0

    async def submit(self, job: Job) -> bool:
        if self.refusals == 0:
            self.refusals += 1
            raise ConnectionError("the queue is unreachable")
        return await self.queue.submit(job)

    async def start(self) -> None:
        await self.queue.start()

    async def close(self) -> None:
        await self.queue.close()


class TrackedJSON(dict):
    """A JSON object that can be weakly referenced: whether the web process still holds a delivery's JSON."""


def tracking_json(monkeypatch: pytest.MonkeyPatch) -> list[weakref.ref[TrackedJSON]]:
    """The JSON objects the web process parses with orjson from now on, weakly referenced."""
    import types

    import orjson

    import bot.web

    parsed: list[weakref.ref[TrackedJSON]] = []

    def loads(body: bytes) -> Any:
        value = orjson.loads(body)
        if isinstance(value, dict):
            value = TrackedJSON(value)
            parsed.append(weakref.ref(value))
        return value

    monkeypatch.setattr(bot.web, "orjson", types.SimpleNamespace(**(vars(orjson) | {"loads": loads})))
    return parsed


async def test_a_push_or_a_pull_request_is_read_into_its_model_without_parsing_all_of_githubs_json(
    aiohttp_client, fake: FakeGitHub, repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Events whose routes take one model are read straight into it: GitHub's JSON is never built."""
    from apptools import pull_request_payload, start_app

    parsed = tracking_json(monkeypatch)
    client = await start_app(aiohttp_client, fake)
    head = repo.commit({"a.py": "A = 2\n"}, message="y", branch="feature", start_from=repo.base)
    status, answer = await post_signed(client, fake, push_payload(repo, before=repo.base, after=head))
    assert (status, answer["jobs"]) == (202, ["check"])
    pull = pull_request_payload(repo, "opened", 1, head_sha=head, head_ref="feature", base_sha=repo.base)
    status, answer = await post_signed(client, fake, pull, event="pull_request")
    assert (status, answer["jobs"]) == (202, ["check"])
    status, answer = await post_signed(client, fake, pull | {"action": "labeled"}, event="pull_request")
    assert (status, answer["message"]) == (202, "ignored: Wikiwarden does nothing on this action")
    assert parsed == []
    await queue_of(client).wait_idle()


async def test_a_push_carrying_nan_where_no_model_looks_is_taken_and_a_ping_carrying_it_is_refused(
    aiohttp_client, fake: FakeGitHub, repo
) -> None:
    """The one difference between reading a push in one pass (pydantic's parser) and the careful way (orjson's):
    the first reads NaN; where a model looks, the delivery is refused as before."""
    from apptools import start_app

    client = await start_app(aiohttp_client, fake)
    head = repo.commit({"a.py": "A = 2\n"}, message="y")
    push = push_payload(repo, before=repo.base, after=head) | {"size": float("nan")}
    status, answer = await post_signed(client, fake, push)
    assert (status, answer["jobs"]) == (202, ["check"])
    status, answer = await post_signed(client, fake, push | {"forced": float("nan")})  # refused the careful way
    assert status == 400 and "the body is not JSON" in answer["message"]
    status, answer = await post_signed(client, fake, {"zen": float("nan")}, event="ping")
    assert status == 400 and "the body is not JSON" in answer["message"]
    await queue_of(client).wait_idle()


async def test_a_delivery_read_the_careful_way_lets_go_of_its_json_before_its_jobs_are_queued(
    aiohttp_client, fake: FakeGitHub, repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While its jobs wait on the queue (Redis, under a burst) a delivery holds its model, not GitHub's JSON: a
    check run's event, whose routes take different models, is parsed as JSON first."""
    from apptools import check_payload, settings_for

    from bot.web import create_app

    parsed = tracking_json(monkeypatch)
    held_when_queued: list[bool] = []

    class Watching(RefusingOnce):
        async def submit(self, job: Job) -> bool:
            held_when_queued.append(parsed[-1]() is not None)
            return await self.queue.submit(job)

    client = await aiohttp_client(create_app(settings_for(fake), lambda rt: Watching(InProcessQueue(rt.run))))
    payload = check_payload("check_run", "rerequested", repo, head_sha=repo.base)
    status, answer = await post_signed(client, fake, payload, event="check_run")
    assert (status, answer["jobs"]) == (202, ["check"])
    assert held_when_queued == [False]
    await queue_of(client).queue.wait_idle()


async def test_a_delivery_the_queue_could_not_take_is_taken_when_redelivered(
    aiohttp_client, fake: FakeGitHub, repo
) -> None:
    from apptools import settings_for

    from bot.web import create_app

    def queue_factory(runtime: Any) -> RefusingOnce:
        return RefusingOnce(InProcessQueue(runtime.run, workers=1))

    app = await aiohttp_client(create_app(settings_for(fake), queue_factory))
    head = repo.commit({"a.py": "A = 2\n"}, message="y")
    payload = push_payload(repo, before=repo.base, after=head)
    status, answer = await post_signed(app, fake, payload, delivery="d-retry")
    assert status == 503 and "try again" in answer["message"]
    status, answer = await post_signed(app, fake, payload, delivery="d-retry")  # GitHub's redelivery: same id
    assert (status, answer["jobs"]) == (202, ["check"])
    await queue_of(app).queue.wait_idle()
    assert len(runs_of(repo, head)) == 1


# -- wrong shapes, generated from the payload models ----------------------------------------------------------

Path = tuple[str | int, ...]
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _models_in(annotation: Any) -> list[tuple[type[BaseModel], bool]]:
    """The models a field holds: (model, as the items of a list)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [(annotation, False)]
    if get_origin(annotation) is list:
        return [(model, True) for model, _ in _models_in(get_args(annotation)[0])]
    return [found for arg in get_args(annotation) for found in _models_in(arg)]


def model_paths(model: type[BaseModel], prefix: Path = ()) -> list[tuple[Path, bool]]:
    """Every field path a model declares, nested models and list items included, and whether it is required."""
    paths: list[tuple[Path, bool]] = []
    for name, field in model.model_fields.items():
        path = (*prefix, name)
        paths.append((path, field.is_required()))
        for inner, listed in _models_in(field.annotation):
            paths.extend(model_paths(inner, (*path, 0) if listed else path))
    return paths


def _parent(payload: Any, path: Path) -> Any:
    node = payload
    for key in path[:-1]:
        if isinstance(key, int):
            if not isinstance(node, list) or len(node) <= key:
                return None
        elif not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def mutate(payload: Any, path: Path, how: str, value: Any) -> bool:
    """Change `payload` in place at `path` (drop the field, give it another value, or nest it one level deeper);
    False when the path is not there."""
    parent = _parent(payload, path)
    key = path[-1]
    if isinstance(key, int):
        if not isinstance(parent, list) or len(parent) <= key:
            return False
    elif not isinstance(parent, dict) or key not in parent:
        return False
    if how == "drop":
        del parent[key]
    elif how == "retype":
        parent[key] = value
    elif how == "list":
        parent[key] = [parent[key]]
    else:
        parent[key] = {str(key): parent[key]}
    return True


def routed_examples() -> list[tuple[str, str | None, type[BaseModel], dict[str, Any]]]:
    """For each route: its event, action, model, and one of GitHub's examples of it, delivered to installation 77."""
    found = []
    for event, action, name in [
        ("push", None, "push.5"),
        ("pull_request", "opened", "pull_request.opened.2"),
        ("pull_request", "synchronize", "pull_request.synchronize.1"),
        ("check_suite", "rerequested", "check_suite.rerequested.1"),
        ("check_run", "rerequested", "check_run.rerequested.1"),
        ("check_run", "requested_action", "check_run.requested_action.1"),
        ("installation", "deleted", "installation.deleted.1"),
    ]:
        route = routes.find(event, action)
        assert route is not None, (event, action)
        payload = example(name)
        payload["installation"] = {**payload.get("installation", {}), "id": 77}
        found.append((event, action, route.model, payload))
    return found


ROUTED = routed_examples()


def expected_status(event: str, payload: Any) -> int:
    """What the door answers a signed delivery, from the models alone: 400 when it does not fit, else 202."""
    try:
        envelope = Envelope.model_validate(payload)
    except ValidationError:
        return 400
    route = routes.find(event, envelope.action) if envelope.installation is not None else None
    if route is None:
        return 202  # ignored
    try:
        route.model.model_validate(payload)
    except ValidationError:
        return 400
    return 202


@st.composite
def wrong_shapes(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[tuple[Path, str, bool]]]:
    """A routed example with one to three of its modelled fields dropped, given a value of any JSON type, or
    nested; which mutations took."""
    event, _, model, payload = draw(st.sampled_from(ROUTED))
    payload = copy.deepcopy(payload)
    paths = model_paths(model)
    done = []
    for _ in range(draw(st.integers(1, 3))):
        path, required = draw(st.sampled_from(paths))
        how = draw(st.sampled_from(["drop", "retype", "list", "dict"]))
        if mutate(payload, path, how, draw(JSON_VALUES)):
            done.append((path, how, required))
    return event, payload, done


def post_sync(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """A blocking POST (hypothesis drives the examples synchronously, in a thread beside the event loop)."""
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def check_wrong_shapes(url: str, secret: str, examples: int) -> list[int]:
    """Send `examples` generated wrong-shaped payloads, signed, to `url`; each answer must be what the models
    say: a 400 naming the payload, or a 202; never a 5xx. The statuses seen, in order."""
    seen: list[int] = []

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(wrong_shapes())
    def one(case: tuple[str, dict[str, Any], list[tuple[Path, str, bool]]]) -> None:
        event, payload, done = case
        body = json.dumps(payload).encode()
        headers = {**SIGNED_HEADERS, "X-GitHub-Event": event, "X-GitHub-Delivery": str(uuid.uuid4())}
        headers["X-Hub-Signature-256"] = sign(body, secret)
        status, answer = post_sync(url, body, headers)
        seen.append(status)
        assert status == expected_status(event, payload), (done, answer)
        if status == 400:
            assert answer["message"].startswith(f"the {event} payload does not fit: "), answer
        if len(done) == 1 and done[0][1] in ("drop", "list", "dict") and done[0][2]:
            path = done[0][0]
            # A required field gone or turned into a list or an object is always refused, naming it (a missing
            # installation or action only makes the delivery one the App does not act on).
            if path not in {("installation",), ("action",)}:
                assert status == 400 and ".".join(map(str, path)) in answer["message"], (done, answer)

    one()
    return seen


async def test_generated_wrong_shapes_are_refused_as_the_models_say(app, fake: FakeGitHub) -> None:
    seen = await asyncio.to_thread(check_wrong_shapes, str(app.make_url("/webhook")), fake.webhook_secret, 200)
    assert 400 in seen and 202 in seen  # both sides of the line were exercised
    await queue_of(app).wait_idle()


def test_model_paths_cover_every_field_the_handlers_read() -> None:
    paths = {path for path, _ in model_paths(routes.find("check_run", "requested_action").model)}
    for wanted in [
        ("installation", "id"),
        ("repository", "full_name"),
        ("check_run", "check_suite", "pull_requests", 0, "base", "repo", "id"),
        ("check_run", "pull_requests", 0, "number"),
        ("requested_action", "identifier"),
        ("sender", "login"),
    ]:
        assert wanted in paths, wanted


# -- a real `wikiwarden serve`, attacked over HTTP -------------------------------------------------------------

OUTCOMES = {
    "accepted", "duplicate", "ignored", "bad_signature", "bad_request", "too_large", "unavailable", "busy", "timeout",
}  # fmt: skip


async def test_a_serve_process_under_hostile_http_answers_no_5xx_and_keeps_its_metrics_small(
    fake: FakeGitHub, tmp_path
) -> None:
    env = app_environment(
        fake, "redis://127.0.0.1:9/0", QUEUE_BACKEND="memory", APP_SLUG=fake.app_slug, WORKERS=1, LOG_LEVEL="INFO"
    )
    web = await start_process("web", env, tmp_path)
    try:
        # Malformed signatures, bytes that are not ASCII included: each a 401. A byte HTTP itself forbids in a
        # header (NUL) is refused by aiohttp's parser before the App sees the request: a 400, never a 5xx.
        body = json.dumps(ROUTED[0][3]).encode()
        digits = sign(body, fake.webhook_secret)[7:].encode()
        sha1 = hmac.new(fake.webhook_secret.encode(), body, hashlib.sha1).hexdigest().encode()
        for signature, status in [
            (b"sha256=" + digits[:-1] + b"\xff", 401),
            (b"sha256=\xc3\xa9" + digits[2:], 401),
            (b"sha256=" + digits + b"\x80", 401),
            (b"sha1=" + sha1, 401),
            (b"sha256=" + digits.upper()[:-1] + b"G", 401),
            (b"sha256=" + b"0" * 64, 401),
            (b"", 401),
            (b"sha256=" + digits + b"\x00", 400),
        ]:
            head = b"X-GitHub-Event: push\r\nX-GitHub-Delivery: d-sig\r\nX-Hub-Signature-256: " + signature + b"\r\n"
            assert await raw_post(web.port, head, body) == status, signature
        head = b"X-GitHub-Event: push\r\nX-GitHub-Delivery: d-sig\r\nX-Hub-Signature-256: sha256=" + digits + b"\r\n"
        assert await raw_post(web.port, head, body) == 202  # the same request, rightly signed

        # Signed payloads of generated wrong shapes: each what the models say, never a 5xx.
        seen = await asyncio.to_thread(check_wrong_shapes, f"{web.url}/webhook", fake.webhook_secret, 150)
        assert 400 in seen and max(seen) < 500

        # A flood of unsigned requests, each naming another event: half send no body, half only headers
        # announcing a body over the limit (refused before the signature could be checked).
        before = await web.metrics()
        semaphore = asyncio.Semaphore(32)
        statuses: list[int] = []
        async with aiohttp.ClientSession() as session:

            async def unsigned(n: int) -> None:
                headers = {"X-GitHub-Event": f"event-{uuid.uuid4().hex}", "X-GitHub-Delivery": f"flood-{n}"}
                async with semaphore, session.post(f"{web.url}/webhook", headers=headers) as response:
                    statuses.append(response.status)

            async def announcing_too_much(n: int) -> None:
                head = f"X-GitHub-Event: event-{uuid.uuid4().hex}\r\nX-GitHub-Delivery: flood-{n}\r\n".encode()
                async with semaphore:
                    statuses.append(await raw_post(web.port, head, length=10**9))

            await asyncio.gather(*(unsigned(n) for n in range(1500)), *(announcing_too_much(n) for n in range(1500)))
        assert sorted(set(statuses)) == [401, 413]
        after = await web.metrics()
        series = deliveries(after)
        assert {labels["event"] for labels in series} <= EVENT_LABELS
        assert {labels["outcome"] for labels in series} <= OUTCOMES
        assert len(series) <= len(EVENT_LABELS) * len(OUTCOMES)
        assert len(after) - len(before) < 2000, len(after) - len(before)  # the same few series, counted up
        assert metric(after, "wikiwarden_deliveries_total", event="unverified", outcome="bad_signature") >= 1500 + 7
        assert metric(after, "wikiwarden_deliveries_total", event="unverified", outcome="too_large") == 1500
        await web.wait_healthy()
    finally:
        assert await web.stop() == 0
    logs = web.logs()
    assert fake.webhook_secret not in logs
    lines = [json.loads(line) for line in logs.splitlines() if line.startswith("{")]
    assert [line for line in lines if "exc_info" in line] == []  # no traceback: none is Wikiwarden's, and ...
    # ... aiohttp's own, on the request whose header held a NUL byte, is one line: anyone can send those.
    refused = [(line["level"], line["message"]) for line in lines if line["logger"] == "aiohttp.server"]
    assert refused == [("WARNING", "malformed HTTP request refused: BadHttpMessage")]
    assert any(line["message"].startswith("delivery refused: the ") for line in lines)
