"""Which of GitHub's refusals no retry can cure, and how to say so: pure decisions over gidgethub's exceptions.

A job is tried `JOB_MAX_TRIES` times because most failures pass (a 5xx, a timeout, a rate limit the client
gave up waiting for). These do not, and are permanent (`bot.jobs.PermanentFailure`, never retried):

- 404 or 410 on the repository: it was deleted, or the installation can no longer see it. A 404 alone does not
  say which resource is missing (GitHub also answers 404 for a commit it has not replicated yet), so the runtime
  asks once for the repository itself with a fresh token, and only its 404 makes the failure permanent;
- 404 or 410 when minting the installation's token: the App was uninstalled. 403 there: it is suspended. 401
  there: GitHub refuses the App's own credentials (its id, its key, or this machine's clock), which no retry of
  this job fixes;
- 403 that is not a rate limit ("Resource not accessible by integration"): a permission the App needs was not
  granted, or the repository is archived or blocked.

Not permanent: a 401 with an installation token (it may have been revoked: the token is dropped and the next try
mints one; an uninstalled App then shows as the 404 above), a rate limit (403 or 429 with `retry-after`,
`x-ratelimit-remaining: 0` or "rate limit" in the message), and 422: GitHub answers it for a commit it has not
caught up with right after a push ("No commit found for SHA") as well as for a request of ours it cannot take,
which is a bug to see with its traceback, and the two cannot be told apart from the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from gidgethub import BadGraphQLRequest, BadRequest, QueryError, RateLimitExceeded

from ...jobs.requests import RepoRef

GONE = frozenset({404, 410})
MESSAGE_SHOWN = 200  # characters of GitHub's message carried into the cause


@dataclass(frozen=True)
class Refused:
    """A 4xx answer from GitHub: its status and GitHub's message."""

    status: int
    message: str

    @property
    def phrase(self) -> str:
        try:
            return f"{self.status} {HTTPStatus(self.status).phrase}"
        except ValueError:
            return str(self.status)


def _is_rate_limit(status: int, headers: Mapping[str, str], message: str) -> bool:
    lowered = {key.lower(): value for key, value in headers.items()}
    return (
        status == 429
        or "retry-after" in lowered
        or lowered.get("x-ratelimit-remaining") == "0"
        or "rate limit" in message.lower()
    )


def _not_found(response: Any) -> bool:
    errors = response.get("errors") if isinstance(response, Mapping) else None
    return isinstance(errors, list) and any(isinstance(e, Mapping) and e.get("type") == "NOT_FOUND" for e in errors)


def refusal(exc: BaseException) -> Refused | None:
    """The refusal `exc` carries (REST or GraphQL), or None for anything else: a rate limit, a 5xx, a timeout,
    a bug. GraphQL's NOT_FOUND error counts as a 404."""
    if isinstance(exc, RateLimitExceeded):
        return None
    if isinstance(exc, BadRequest):
        status, headers, message = int(exc.status_code), exc.headers, str(exc.args[0]) if exc.args else ""
    elif isinstance(exc, BadGraphQLRequest):
        status, headers, message = int(exc.status_code), {}, str(exc)
    elif isinstance(exc, QueryError) and _not_found(exc.response):
        status, headers, message = 404, {}, str(exc)
    else:
        return None
    if status in (403, 429) and _is_rate_limit(status, headers, message):
        return None
    return Refused(status, message[:MESSAGE_SHOWN])


def needs_probe(refused: Refused) -> bool:
    """Whether only asking GitHub for the repository can tell if the refusal is permanent (401, 404, 410)."""
    return refused.status == 401 or refused.status in GONE


def access_refused(repo: RepoRef, refused: Refused) -> str | None:
    """The cause of a permanent refusal that needs no probe (a 403 that is not a rate limit), or None."""
    if refused.status != 403:
        return None
    return (
        f"GitHub refused access to {repo.full_name} ({refused.phrase}: {refused.message}): a permission the App "
        "needs was not granted, or the repository is archived"
    )


def repository_gone(repo: RepoRef) -> str:
    installation = repo.installation_id
    return f"the repository {repo.full_name} no longer exists, or installation {installation} can no longer see it"


def token_refused(installation_id: int, refused: Refused) -> str | None:
    """The cause when GitHub will not mint the installation's token for good, or None (worth another try)."""
    if refused.status in GONE:
        return f"installation {installation_id} no longer exists: the App was uninstalled"
    if refused.status == 403:
        return f"installation {installation_id} is suspended, or GitHub refuses it tokens ({refused.message})"
    if refused.status == 401:
        return (
            f"GitHub refused the App's own credentials when asked for a token of installation {installation_id} "
            f"({refused.message}): check the App id, its private key and this machine's clock"
        )
    return None


def permanent_text(cause: str) -> str:
    """A permanent failure as the check run says it: the cause, and that waiting will not help."""
    return f"Wikiwarden gave up without trying again: {cause}. Re-run the check once that is put right."
