"""gidgethub, carefully: one shared aiohttp session, GitHub's retry rules, and every request counted.

GitHub's rules (REST best practices): retry 5xx with backoff; on 403/429 wait `retry-after` seconds when
given, else until `x-ratelimit-reset` when the quota is spent, else at least a minute for a secondary
limit; never retry a plain permission error. A wait longer than the configured maximum gives up, so a job
fails visibly instead of hanging for an hour.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from gidgethub import BadGraphQLRequest, GitHubBroken, HTTPException, QueryError
from gidgethub.aiohttp import GitHubAPI

from ... import __version__
from ...metrics import GITHUB_RATE_LIMIT_REMAINING, GITHUB_REQUESTS

# The User-Agent of every request (gidgethub sends the requester as it): GitHub asks for the App's name, and the
# version tells an operator's logs (and GitHub's support) which release made a request.
REQUESTER = f"wikiwarden/{__version__}"
SECONDARY_LIMIT_MIN_SECONDS = 60.0


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 5
    base_seconds: float = 1.0
    max_wait_seconds: float = 900.0
    secondary_min_seconds: float = SECONDARY_LIMIT_MIN_SECONDS


@dataclass
class RequestStats:
    """What one process asked of GitHub: for metrics, the benchmark and tests."""

    requests: Counter[str] = field(default_factory=Counter)  # "GET /repos/{owner}/{repo}/git/trees" → count
    retries: int = 0
    rate_limit_remaining: int | None = None

    @property
    def total(self) -> int:
        return sum(self.requests.values())


class MutationGate:
    """GitHub asks integrators to leave about a second between writes of one installation, or its secondary
    rate limits kick in: every POST, PATCH, PUT or DELETE of the installation's clients passes this gate."""

    def __init__(self, spacing: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.spacing = spacing
        self._clock = clock
        self._lock = asyncio.Lock()
        self._last = float("-inf")

    async def wait(self, sleep: Callable[[float], Any]) -> None:
        if self.spacing <= 0:
            return
        async with self._lock:
            delay = self._last + self.spacing - self._clock()
            if delay > 0:
                await sleep(delay)
            self._last = self._clock()


_WRITES = frozenset({"POST", "PATCH", "PUT", "DELETE"})


def retry_delay(
    status: int, headers: Mapping[str, str], message: str, attempt: int, policy: RetryPolicy, now: float
) -> float | None:
    """How long to wait before retrying a failed request, or None to give up (GitHub's documented rules)."""
    if attempt > policy.max_retries:
        return None
    backoff = policy.base_seconds * 2 ** (attempt - 1)
    if status >= 500:
        delay = backoff
    elif status in (403, 429):
        lowered = {k.lower(): v for k, v in headers.items()}
        retry_after = lowered.get("retry-after")
        remaining = lowered.get("x-ratelimit-remaining")
        if retry_after is not None and retry_after.strip().isdigit():
            delay = float(retry_after)
        elif remaining == "0" and lowered.get("x-ratelimit-reset", "").isdigit():
            delay = max(float(lowered["x-ratelimit-reset"]) - now, 0.0) + 1.0
        elif "rate limit" in message.lower() or status == 429:
            delay = max(policy.secondary_min_seconds, backoff)
        else:
            return None  # a permission problem: retrying cannot help
    else:
        return None
    return delay if delay <= policy.max_wait_seconds else None


# Under /repos/{owner}/{repo}/: the parameter that follows each of these, which a repository names (a branch, a
# ref, two commits): blurred like ids, so a metric label never carries a name, however many branches there are.
_NAMED = {("compare",): "{basehead}", ("git", "ref"): "{ref}", ("git", "refs"): "{ref}", ("commits",): "{ref}"}


def route_of(url: str, base_url: str) -> str:
    """A request's route with ids, shas and names blurred, for counting: /repos/{owner}/{repo}/git/trees/{id}."""
    path = url.removeprefix(base_url).split("?", 1)[0]
    parts = path.strip("/").split("/")
    if len(parts) >= 3 and parts[0] == "repos":
        parts[1:3] = ["{owner}", "{repo}"]
        for prefix, name in _NAMED.items():
            at = 3 + len(prefix)
            if tuple(parts[3:at]) == prefix and len(parts) > at:
                end = len(parts) if prefix in (("git", "ref"), ("git", "refs")) else at + 1
                parts[at:end] = [name]  # a ref spans the rest of the path (heads/feature/x)
                break
    return "/" + "/".join("{id}" if _is_id(p) else p for p in parts)


def _is_id(part: str) -> bool:
    return part.isdigit() or (len(part) == 40 and all(c in "0123456789abcdef" for c in part))


class GitHubClient(GitHubAPI):
    """A gidgethub client that retries as GitHub asks, and counts what it sends."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        *,
        policy: RetryPolicy | None = None,
        stats: RequestStats | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
        cache: MutableMapping[str, Any] | None = None,
        gate: MutationGate | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(session, REQUESTER, cache=cache, **kwargs)
        self.policy = policy or RetryPolicy()
        self.stats = stats if stats is not None else RequestStats()
        self._sleep = sleep
        self._gate = gate

    async def sleep(self, seconds: float) -> None:
        await self._sleep(seconds)

    async def _request(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes = b""
    ) -> tuple[int, Mapping[str, str], bytes]:
        attempt = 0
        route = route_of(url, self.base_url)
        while True:
            attempt += 1
            if self._gate is not None and method in _WRITES and not route.endswith("/graphql"):  # a query reads
                await self._gate.wait(self.sleep)
            self.stats.requests[f"{method} {route}"] += 1
            try:
                status, response_headers, data = await super()._request(method, url, headers, body)
            except (TimeoutError, aiohttp.ClientConnectionError):
                if attempt > self.policy.max_retries:
                    raise
                self.stats.retries += 1
                await self.sleep(self.policy.base_seconds * 2 ** (attempt - 1))
                continue
            GITHUB_REQUESTS.labels(method, route, f"{status // 100}xx").inc()
            remaining = response_headers.get("x-ratelimit-remaining")
            if remaining is not None and remaining.isdigit():
                self.stats.rate_limit_remaining = int(remaining)
                GITHUB_RATE_LIMIT_REMAINING.set(int(remaining))
            return status, response_headers, data

    async def handle_rate_limit_error(self, *, method: str, url: str, exception: HTTPException, attempt: int) -> bool:
        message = str(exception.args[0]) if exception.args else ""
        delay = retry_delay(int(exception.status_code), exception.headers, message, attempt, self.policy, time.time())
        if delay is None:
            return False
        self.stats.retries += 1
        await self.sleep(delay)
        return True

    async def graphql_query(self, query: str, *, endpoint: str, **variables: Any) -> Any:
        """gidgethub's GraphQL call (which never retries) under the same retry rules as REST."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return await self.graphql(query, endpoint=endpoint, **variables)
            except (GitHubBroken, BadGraphQLRequest) as exc:
                headers = getattr(exc, "headers", None) or {}
                delay = retry_delay(int(exc.status_code), headers, str(exc), attempt, self.policy, time.time())
                if delay is None:
                    raise
            except QueryError as exc:
                if "RATE_LIMITED" not in str(exc.response):
                    raise
                delay = retry_delay(429, {}, "rate limit", attempt, self.policy, time.time())
                if delay is None:
                    raise
            self.stats.retries += 1
            await self.sleep(delay)
