"""Typed job requests through the queue's JSON edge: every kind comes back as itself, and what is not a request
of this version is refused, not guessed at; a job an older version queued (captured from main in
tests/data/jobs/) is upgraded to this version's format and read."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from arq.jobs import deserialize_job
from pydantic import ValidationError

from bot.jobs import Job
from bot.jobs.redis import FUNCTION
from bot.jobs.requests import (
    FIRST_FORMAT,
    JOB_FORMAT,
    UPGRADES,
    CheckRequest,
    FixRequest,
    GroundRequest,
    NewerJob,
    RepoRef,
    UnreadableJob,
    job_format,
    request_from_json,
    request_to_json,
    upgrade_job,
)

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


# -- the job format: a job queued by an older version is upgraded and read -----------------------------------

CAPTURED = Path(__file__).parents[1] / "data" / "jobs" / "check-edc4838.json"


def captured_payload() -> dict:
    """The job's JSON in the record main (edc4838) left in Redis, as arq reads it back."""
    captured = json.loads(CAPTURED.read_text())
    record = deserialize_job(base64.b64decode(captured["record_base64"]))
    assert record.function == FUNCTION
    [payload] = record.args
    return payload


def test_a_job_the_previous_version_queued_is_upgraded_and_read() -> None:
    payload = captured_payload()
    assert job_format(payload) == FIRST_FORMAT and "format" not in payload  # it is the unnumbered format
    job = Job.from_json(payload)
    assert (
        isinstance(job.request, CheckRequest) and job.request.head_sha == json.loads(CAPTURED.read_text())["head_sha"]
    )
    assert (job.key, job.delivery, job.request.repo.full_name) == (
        "1000:branch:main",
        "captured-delivery-1",
        "acme/widgets",
    )
    assert job.request.default_branch and job.request.branch == "main"
    written = job.to_json()
    assert written["format"] == JOB_FORMAT == 2
    assert Job.from_json(written) == job  # the upgraded job is this version's job


def test_every_format_before_this_one_has_its_upgrade_step() -> None:
    assert sorted(UPGRADES) == list(range(FIRST_FORMAT, JOB_FORMAT))
    assert upgrade_job(captured_payload())["format"] == JOB_FORMAT


def test_a_newer_versions_job_is_told_apart_from_what_is_no_job() -> None:
    newer = {**Job("k", "d", CheckRequest(repo=REPO, head_sha=HEAD)).to_json(), "format": JOB_FORMAT + 1}
    with pytest.raises(NewerJob) as caught:
        Job.from_json(newer)
    assert caught.value.found == JOB_FORMAT + 1


@pytest.mark.parametrize("value", [[], "job", {"format": "2"}, {"format": 0}, {"format": True}, {"format": 1.5}])
def test_what_is_no_job_of_any_format_is_unreadable(value: object) -> None:
    with pytest.raises(UnreadableJob):
        Job.from_json(value)


@pytest.mark.parametrize("value", [{"format": 2, "key": "k"}, {"format": 2, "key": 1, "delivery": "d", "request": {}}])
def test_a_job_of_this_format_missing_or_misfitting_fields_is_refused(value: dict) -> None:
    with pytest.raises((KeyError, TypeError)):
        Job.from_json(value)
