"""Which of GitHub's refusals are permanent (`bot/github/api/failures.py`): decided from gidgethub's exceptions alone,
as GitHub's answers produce them (`gidgethub.sansio.decipher_response`)."""

from __future__ import annotations

import json
from http import HTTPStatus

import pytest
from gidgethub import GitHubBroken, GraphQLAuthorizationFailure, QueryError
from gidgethub.sansio import decipher_response

from bot.github.api.failures import (
    Refused,
    access_refused,
    needs_probe,
    permanent_text,
    refusal,
    repository_gone,
    token_refused,
)
from bot.jobs.requests import RepoRef

REPO = RepoRef(installation_id=77, full_name="acme/widgets", id=5)


def answer(status: int, message: str, **headers: str) -> BaseException:
    """The exception gidgethub raises for GitHub's answer."""
    lowered = {"content-type": "application/json", "x-ratelimit-remaining": "4999", **headers}
    try:
        decipher_response(status, lowered, json.dumps({"message": message}).encode())
    except Exception as exc:
        return exc
    raise AssertionError("no exception")


@pytest.mark.parametrize("status", [401, 404, 410])
def test_what_only_a_probe_can_tell(status: int) -> None:
    refused = refusal(answer(status, "Not Found"))
    assert refused == Refused(status, "Not Found") and needs_probe(refused)
    assert access_refused(REPO, refused) is None


def test_a_403_that_is_not_a_rate_limit_is_permanent_and_says_why() -> None:
    refused = refusal(answer(403, "Resource not accessible by integration"))
    assert refused is not None and not needs_probe(refused)
    assert access_refused(REPO, refused) == (
        "GitHub refused access to acme/widgets (403 Forbidden: Resource not accessible by integration): a permission "
        "the App needs was not granted, or the repository is archived"
    )


@pytest.mark.parametrize(
    "exc",
    [
        answer(403, "API rate limit exceeded", **{"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1"}),
        answer(403, "You have exceeded a secondary rate limit"),
        answer(403, "Forbidden", **{"retry-after": "60"}),
        answer(403, "Forbidden", **{"Retry-After": "60"}),  # headers in any case
        answer(403, "Forbidden", **{"X-RateLimit-Remaining": "0"}),
        answer(429, "Too many requests"),  # a 429 is a rate limit, whatever it says
        GitHubBroken(HTTPStatus(503)),
        TimeoutError(),
        RuntimeError("a bug"),
    ],
    ids=["primary", "secondary", "retry-after", "Retry-After", "X-RateLimit-Remaining", "429", "5xx", "timeout", "bug"],
)
def test_rate_limits_5xx_and_everything_else_are_no_refusal(exc: BaseException) -> None:
    assert refusal(exc) is None


def test_a_422_is_a_refusal_worth_another_try() -> None:
    """GitHub answers 422 for a commit it has not caught up with: refused, but neither permanent nor probed."""
    refused = refusal(answer(422, "No commit found for SHA: abc"))
    assert refused == Refused(422, "No commit found for SHA: abc") and refused.phrase == "422 Unprocessable Entity"
    assert not needs_probe(refused) and access_refused(REPO, refused) is None and token_refused(77, refused) is None


@pytest.mark.parametrize("status", [400, 409, 428, 451])
def test_other_4xx_are_refusals_with_their_status(status: int) -> None:
    """Only 403 and 429 can be rate limits: a 4xx whose message says "rate limit" is refused all the same."""
    refused = refusal(answer(status, "rate limit? no"))
    assert refused == Refused(status, "rate limit? no") and not needs_probe(refused)
    assert access_refused(REPO, refused) is None


def test_a_403_rate_limit_needs_more_than_a_remaining_quota() -> None:
    assert refusal(answer(403, "Forbidden", **{"x-ratelimit-remaining": "1"})) == Refused(403, "Forbidden")
    assert Refused(499, "x").phrase == "499"  # a status without a name


def test_graphql_refusals() -> None:
    assert refusal(GraphQLAuthorizationFailure({"message": "Bad credentials"})) == Refused(401, "Bad credentials")
    gone = {"data": {"repository": None}, "errors": [{"type": "NOT_FOUND", "message": "Could not resolve"}]}
    assert refusal(QueryError(gone)) == Refused(404, "Could not resolve")
    assert refusal(QueryError({"errors": [{"type": "MAX_NODE_LIMIT_EXCEEDED", "message": "x"}]})) is None


def test_a_long_message_is_cut() -> None:
    refused = refusal(answer(403, "x" * 5000))
    assert refused is not None and len(refused.message) == 200


def test_token_refusals() -> None:
    assert token_refused(77, Refused(404, "Not Found")) == "installation 77 no longer exists: the App was uninstalled"
    assert token_refused(77, Refused(410, "Gone")) == "installation 77 no longer exists: the App was uninstalled"
    suspended = token_refused(77, Refused(403, "This installation has been suspended"))
    assert (
        suspended == "installation 77 is suspended, or GitHub refuses it tokens (This installation has been suspended)"
    )
    assert "private key" in (token_refused(77, Refused(401, "A JSON web token could not be decoded")) or "")
    assert token_refused(77, Refused(422, "x")) is None


def test_the_words() -> None:
    assert (
        repository_gone(REPO) == "the repository acme/widgets no longer exists, or installation 77 can no longer see it"
    )
    assert permanent_text("installation 77 no longer exists") == (
        "Wikiwarden gave up without trying again: installation 77 no longer exists. Re-run the check once that is "
        "put right."
    )
    assert Refused(499, "x").phrase == "499" and Refused(404, "x").phrase == "404 Not Found"
