"""The fake GitHub as an aiohttp application: every request runs through one pipeline, in GitHub's order.

1. Parse the JSON body (400 "Problems parsing JSON" when it is not JSON).
2. Validate against GitHub's OpenAPI description through `fakegithub.openapi.validate_request`, when that
   module exists and `fake.validate_requests` is true: an operation the description does not have answers
   501, a query or body GitHub would not accept answers 422; both are recorded in `fake.violations`. An
   operation this fake lacks also answers 501 and is recorded, and so are query parameters it would ignore
   and media types it cannot produce (it still answers).
3. Authenticate: the App's JWT (RS256 against the App's public key, `iss` the App id, `exp - iat <= 600`,
   unexpired) on `/app...` and `GET /repos/{o}/{r}/installation`; an installation token elsewhere, whose
   installation must cover the repository (404 otherwise) and hold the route's permission (403).
4. Rate limits: the bucket is decremented per authenticated request; when it is spent, 403 until reset.
5. Faults queued with `fake.fail_next(...)` replace the answer.
6. The handler (`rest.py`, or `fakegithub.graphql.execute` for POST /graphql when that module exists).
7. GETs get a weak ETag; a matching `If-None-Match` answers 304, which costs no rate limit.

Every response carries `x-ratelimit-*` headers, and every request is logged in `fake.requests`.
"""

from __future__ import annotations

import asyncio
import hashlib
import http
import importlib
import inspect
import json
import re
import uuid
from types import ModuleType
from typing import Any

import jwt
from aiohttp import web
from multidict import CIMultiDict

from .rest import ROUTES, ApiError, Ctx, NotImplementedByFake, Reply, RouteInfo
from .state import FakeGitHub, RequestRecord, Token

FAKE_KEY = web.AppKey("fake_github", FakeGitHub)
OPENAPI_KEY = web.AppKey("fake_github_openapi", object)
GRAPHQL_KEY = web.AppKey("fake_github_graphql", object)
JWT_MAX_LIFETIME = 600
JWT_CLOCK_SKEW = 60
_BAD_JWT = "A JSON web token could not be decoded"
_SUPPORTED_MEDIA = re.compile(
    r"\*/\*|application/json|application/vnd\.github(\.v3)?(\+json)?|application/vnd\.github\.[\w-]+-preview(\+json)?"
)


def _optional_module(name: str) -> ModuleType | None:
    """`fakegithub.<name>` if it exists (written separately); None while it does not."""
    full = f"{__package__}.{name}"
    try:
        return importlib.import_module(full)
    except ModuleNotFoundError as exc:
        if exc.name == full:
            return None
        raise


def _graphql(ctx: Ctx) -> Any:
    module = ctx.request.app[GRAPHQL_KEY]
    if module is None:
        raise NotImplementedByFake("POST /graphql (fakegithub/graphql.py is missing)")
    assert ctx.token is not None
    body = ctx.body if isinstance(ctx.body, dict) else {}
    return module.execute(ctx.fake, ctx.token.installation_id, body)  # type: ignore[attr-defined]


GRAPHQL_ROUTE = RouteInfo("POST", "/graphql", "graphql", "token", (), frozenset(), _graphql, bucket="graphql")


def create_app(fake: FakeGitHub) -> web.Application:
    """An aiohttp application serving `fake` (start it with pytest-aiohttp's `aiohttp_server`)."""
    app = web.Application(client_max_size=100 * 1024 * 1024)
    app[FAKE_KEY] = fake
    app[OPENAPI_KEY] = _optional_module("openapi")
    app[GRAPHQL_KEY] = _optional_module("graphql")
    for info in [GRAPHQL_ROUTE, *ROUTES]:
        app.router.add_route(info.method, info.pattern, _handler(info))
    app.router.add_route("*", "/{tail:.*}", _handler(None))
    return app


def _handler(info: RouteInfo | None) -> Any:
    async def handle(request: web.Request) -> web.StreamResponse:
        return await _dispatch(request, info)

    return handle


class _Outcome:
    """What the log records about a request as the pipeline learns it."""

    def __init__(self, op_id: str | None) -> None:
        self.op_id = op_id
        self.status = 500
        self.body: Any = None


async def _dispatch(request: web.Request, info: RouteInfo | None) -> web.StreamResponse:
    fake = request.app[FAKE_KEY]
    query = {key: request.query.getall(key) for key in dict.fromkeys(request.query.keys())}
    outcome = _Outcome(info.op_id if info else None)
    try:
        response = await _pipeline(request, fake, info, query, outcome)
        outcome.status = response.status
        return response
    finally:
        record = RequestRecord(request.method, request.path, query, outcome.status, outcome.op_id, outcome.body)
        fake.requests.append(record)


async def _pipeline(
    request: web.Request, fake: FakeGitHub, info: RouteInfo | None, query: dict[str, list[str]], outcome: _Outcome
) -> web.StreamResponse:
    where = f"{request.method} {request.path}"
    bucket = fake.rate_limit
    raw = await request.read()
    body: Any = None
    if raw.strip():
        try:
            body = json.loads(raw)
        except ValueError:
            return _respond(fake, ApiError(400, "Problems parsing JSON").reply(), bucket)
        outcome.body = body

    validator = request.app[OPENAPI_KEY]
    if validator is not None and fake.validate_requests and not (info is not None and info.op_id == "graphql"):
        raw_path = request.raw_path.split("?", 1)[0]
        op_id, problem = validator.validate_request(request.method, raw_path, query, body)  # type: ignore[attr-defined]
        outcome.op_id = op_id
        if op_id is None:
            fake.violation(f"{where}: {problem or 'no such operation'} (not in the OpenAPI description)")
            return _respond(fake, Reply(501, {"message": f"No operation in the OpenAPI description: {where}"}), bucket)
        if problem:
            fake.violation(f"{where} ({op_id}): {problem}")
            return _respond(fake, ApiError(422, f"Invalid request.\n\n{problem}").reply(), bucket)
        if info is not None and info.op_id != op_id:
            fake.violation(f"{where}: the fake routed {info.op_id}, but GitHub's operation is {op_id}")
    if info is None:
        fake.violation(
            f"{where}: not implemented by the fake GitHub" + (f" ({outcome.op_id})" if outcome.op_id else "")
        )
        return _respond(fake, Reply(501, {"message": f"Not implemented by the fake GitHub: {where}"}), bucket)

    _check_request_shape(request, fake, info, query, where)

    ctx = Ctx(request, fake, body, query, info)
    try:
        _authenticate(ctx)
    except ApiError as error:
        return _respond(fake, error.reply(), bucket)
    bucket = _bucket(fake, ctx)

    if bucket is not None:
        now = fake.now()
        if now >= bucket["reset"]:
            bucket["remaining"] = bucket["limit"]
            bucket["reset"] = int(now) + 3600
        if bucket["remaining"] <= 0:
            who = f"installation ID {ctx.token.installation_id}" if ctx.token else f"app ID {fake.app_id}"
            error = ApiError(
                403,
                f"API rate limit exceeded for {who}. If you reach out to GitHub Support for help, please include "
                "the request ID.",
                docs="https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
            )
            return _respond(fake, error.reply(), bucket)

    held = fake.take_delay(request.method, request.path)
    if held:
        fake.held += 1
        try:
            await asyncio.sleep(held)  # cancelled when the client goes away (a killed worker)
        finally:
            fake.held -= 1
    fault = fake.take_fault(request.method, request.path)
    if fault is not None:
        _spend(bucket)
        reply = Reply(fault.status, fault.body, dict(fault.headers))
        if fault.body is None:
            reply.body = {
                "message": _fault_message(fault.status, fault.headers, ctx),
                "documentation_url": "https://docs.github.com/rest",
            }
        return _respond(fake, reply, bucket)

    try:
        result: Any = info.handler(ctx)
        if inspect.isawaitable(result):
            result = await result
        reply = result if isinstance(result, Reply) else Reply(*result)
    except ApiError as error:
        reply = error.reply()
    except NotImplementedByFake as missing:
        fake.violation(f"{where}: not implemented by the fake GitHub ({missing})")
        reply = Reply(501, {"message": f"Not implemented by the fake GitHub: {missing}"})

    if request.method == "GET" and reply.status == 200:
        payload = _encode(reply.body)
        etag = 'W/"' + hashlib.sha256(payload).hexdigest() + '"'
        reply.headers.setdefault("ETag", etag)
        if _etag_matches(request.headers.get("If-None-Match"), etag):
            return _respond(fake, Reply(304, None, {"ETag": etag}), bucket)
    _spend(bucket)
    return _respond(fake, reply, bucket)


def _check_request_shape(
    request: web.Request, fake: FakeGitHub, info: RouteInfo, query: dict[str, list[str]], where: str
) -> None:
    """Report what the fake would silently get wrong: query parameters it ignores, media types it lacks."""
    ignored = sorted(set(query) - info.query)
    if ignored:
        fake.violation(f"{where}: the fake ignores query parameter(s) {', '.join(ignored)} of {info.op_id}")
    accept = request.headers.get("Accept")
    if accept and info.op_id != "graphql":
        for value in accept.split(","):
            media = value.split(";", 1)[0].strip()
            if media and not _SUPPORTED_MEDIA.fullmatch(media):
                fake.violation(f"{where}: media type {media} is not supported by the fake (it answers JSON)")


def _authorization(request: web.Request) -> tuple[str, str]:
    scheme, _, credentials = request.headers.get("Authorization", "").strip().partition(" ")
    return scheme.lower(), credentials.strip()


def _authenticate(ctx: Ctx) -> None:
    fake, info, request = ctx.fake, ctx.info, ctx.request
    scheme, credentials = _authorization(request)
    owner, name = request.match_info.get("owner"), request.match_info.get("repo")
    if info.auth == "jwt":
        if scheme != "bearer" or not _valid_jwt(fake, credentials):
            raise ApiError(401, _BAD_JWT)
        if owner is not None and name is not None:
            repo = fake.find_repo(owner, name)
            if repo is None:
                raise ApiError(404, "Not Found")
            ctx.repo_or_none = repo
        return
    if info.auth == "none":
        return
    token = fake.tokens.get(credentials) if scheme in ("token", "bearer") else None
    if token is None or token.expires_at <= fake.now() or token.installation_id not in fake.installations:
        raise ApiError(401, "Bad credentials")
    ctx.token = token
    ctx.installation = fake.installations[token.installation_id]
    if owner is not None and name is not None:
        repo = fake.find_repo(owner, name)
        key = f"{owner}/{name}".lower()
        if repo is None or key not in ctx.installation.repos or (token.repos is not None and key not in token.repos):
            raise ApiError(404, "Not Found")
        ctx.repo_or_none = repo
    if info.perm and not any(_grants(token, perm, level) for perm, level in info.perm):
        raise ApiError(403, "Resource not accessible by integration")


def _grants(token: Token, permission: str, level: str) -> bool:
    granted = token.permissions.get(permission)
    return granted == "write" or (granted == "read" and level == "read")


def _valid_jwt(fake: FakeGitHub, encoded: str) -> bool:
    try:
        claims = jwt.decode(
            encoded,
            fake.public_key,  # type: ignore[arg-type]
            algorithms=["RS256"],
            options={"verify_exp": False, "verify_iat": False, "verify_nbf": False, "require": ["iat", "exp", "iss"]},
        )
    except jwt.PyJWTError:
        return False
    iat, exp, iss = claims["iat"], claims["exp"], claims["iss"]
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (iat, exp)):
        return False
    if str(iss) not in (str(fake.app_id), fake.client_id):
        return False
    now = fake.now()
    return exp - iat <= JWT_MAX_LIFETIME and exp > now and iat <= now + JWT_CLOCK_SKEW


def _bucket(fake: FakeGitHub, ctx: Ctx) -> dict[str, int] | None:
    if ctx.info.bucket == "none":
        return None
    if ctx.info.auth == "jwt":
        return fake.app_rate_limit
    if ctx.info.bucket == "graphql":
        return fake.graphql_rate_limit
    return fake.rate_limit


def _spend(bucket: dict[str, int] | None) -> None:
    if bucket is not None:
        bucket["remaining"] = max(bucket["remaining"] - 1, 0)


def _fault_message(status: int, headers: dict[str, str], ctx: Ctx) -> str:
    lowered = {k.lower(): v for k, v in headers.items()}
    if status in (403, 429):
        if lowered.get("x-ratelimit-remaining") == "0":
            who = f"installation ID {ctx.token.installation_id}" if ctx.token else f"app ID {ctx.fake.app_id}"
            return f"API rate limit exceeded for {who}."
        return (
            "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you "
            "reach out to GitHub Support for help, please include the request ID."
        )
    return {
        401: "Bad credentials",
        404: "Not Found",
        409: "Git Repository is empty.",
        422: "Validation Failed",
        500: "Server Error",
        502: "Server Error",
        503: "Service Unavailable",
    }.get(status, http.HTTPStatus(status).phrase)


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    if header.strip() == "*":
        return True

    def bare(tag: str) -> str:
        return tag.strip().removeprefix("W/").strip('"')

    return any(bare(tag) == bare(etag) for tag in header.split(","))


def _encode(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode()
    return json.dumps(body).encode()


def _respond(fake: FakeGitHub, reply: Reply, bucket: dict[str, int] | None) -> web.Response:
    shown = bucket if bucket is not None else fake.rate_limit
    resource = "graphql" if shown is fake.graphql_rate_limit else "core"
    headers = CIMultiDict(
        {
            "x-ratelimit-limit": str(shown["limit"]),
            "x-ratelimit-remaining": str(shown["remaining"]),
            "x-ratelimit-used": str(shown["limit"] - shown["remaining"]),
            "x-ratelimit-reset": str(int(shown["reset"])),
            "x-ratelimit-resource": resource,
            "x-github-request-id": uuid.uuid4().hex[:20].upper(),
            "x-github-api-version-selected": "2022-11-28",
        }
    )
    for key, value in reply.headers.items():
        headers[key] = value
    if reply.status in (204, 304) or reply.body is None:
        return web.Response(status=reply.status, headers=headers)
    if isinstance(reply.body, str | bytes):
        content_type = "text/html; charset=utf-8"
    else:
        content_type = "application/json; charset=utf-8"
    headers["Content-Type"] = content_type
    return web.Response(status=reply.status, body=_encode(reply.body), headers=headers)
