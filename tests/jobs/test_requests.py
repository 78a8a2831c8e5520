"""Typed job requests through the queue's JSON edge: every kind comes back as itself, and what is not a request
of this version is refused, not guessed at."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.jobs import Job
from bot.jobs.requests import CheckRequest, FixRequest, GroundRequest, RepoRef, request_from_json, request_to_json

REPO = RepoRef(installation_id=7, full_name="acme/widgets", id=42, html_url="https://github.com/acme/widgets")
HEAD = "a" * 40


@pytest.mark.parametrize(
    "request_",
    [
        CheckRequest(repo=REPO, head_sha=HEAD, base="b" * 40, branch="main", default_branch=True),
        FixRequest(repo=REPO, head_sha=HEAD, check_run_id=5, target="main", trigger="auto_fix"),
        GroundRequest(repo=REPO, head_sha=HEAD, check_run_id=5, target="docs", pr_number=3, requested_by="alice"),
        GroundRequest(repo=REPO, head_sha=HEAD, trigger="auto"),
    ],
)
def test_every_kind_of_request_comes_back_from_json_as_itself(
    request_: CheckRequest | FixRequest | GroundRequest,
) -> None:
    job = Job("42:x", "delivery-1", request_)
    back = Job.from_json(job.to_json())
    assert back == job and type(back.request) is type(request_) and back.kind == request_.kind


def test_a_grounding_without_a_branch_is_a_forks() -> None:
    assert GroundRequest(repo=REPO, head_sha=HEAD).fork
    assert not GroundRequest(repo=REPO, head_sha=HEAD, target="main").fork


@pytest.mark.parametrize(
    "value",
    [
        {"kind": "ground", "repo": request_to_json(GroundRequest(repo=REPO, head_sha=HEAD))["repo"]},  # no head
        {**request_to_json(GroundRequest(repo=REPO, head_sha=HEAD)), "trigger": "auto_fix"},  # a fix's trigger
        {**request_to_json(GroundRequest(repo=REPO, head_sha=HEAD)), "since": None},  # a field it does not have
        {**request_to_json(GroundRequest(repo=REPO, head_sha=HEAD)), "kind": "audit"},  # another version's kind
    ],
)
def test_what_is_not_a_request_of_this_version_is_refused(value: dict) -> None:
    with pytest.raises(ValidationError):
        request_from_json(value)
