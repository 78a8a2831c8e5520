"""The event → change rules (bot/github/events.py), by tables of events: which commit a push, a pull request or a
re-requested check suite asks to check, through which change, on which branch; and that the App's handlers and
the Action, reading the same payload with their own models, get the same change from them."""

from __future__ import annotations

from typing import Any

import pytest
from apptools import example

from bot.github.events import Change, Skipped, pull_request_change, pull_request_skipped, push_change, suite_change
from bot.github.payloads import (
    PullRequest,
    PullRequestEvent,
    PushChange,
    PushEvent,
    SuiteChange,
    WorkflowPullRequest,
    WorkflowPush,
)

A, B, ZERO = "a" * 40, "b" * 40, "0" * 40


def push(ref: str = "refs/heads/feature", before: str = A, after: str = B, **flags: bool) -> PushChange:
    return PushChange(ref=ref, before=before, after=after, **flags)


PUSHES: list[tuple[str, PushChange, str | None, Change | Skipped]] = [
    (
        "a push: from before to after",
        push(),
        "main",
        Change(B, f"feature ({B[:12]})", A, A[:12], True, "feature"),
    ),
    (
        "a push to the default branch: the same",
        push(ref="refs/heads/main"),
        "main",
        Change(B, f"main ({B[:12]})", A, A[:12], True, "main"),
    ),
    (
        "a force-push: tree to tree from the commit it replaced",
        push(forced=True),
        "main",
        Change(B, f"feature ({B[:12]})", A, f"before the force-push ({A[:12]})", False, "feature"),
    ),
    (
        "a new branch: from where it left the default branch",
        push(created=True, before=ZERO),
        "main",
        Change(B, f"feature ({B[:12]})", "main", "main", True, "feature"),
    ),
    (
        "a new branch told by the zero sha alone",
        push(before=ZERO),
        "main",
        Change(B, f"feature ({B[:12]})", "main", "main", True, "feature"),
    ),
    (
        "a new branch told by `created` alone: `before` is not compared with",
        push(created=True),
        "main",
        Change(B, f"feature ({B[:12]})", "main", "main", True, "feature"),
    ),
    (
        "a new branch, force-pushed: still from the default branch",
        push(created=True, before=ZERO, forced=True),
        "main",
        Change(B, f"feature ({B[:12]})", "main", "main", True, "feature"),
    ),
    (
        "a new default branch: every claim",
        push(ref="refs/heads/main", created=True, before=ZERO),
        "main",
        Change(B, f"main ({B[:12]})", None, None, True, "main"),
    ),
    (
        "a new branch of a repository whose default branch is not named: every claim",
        push(created=True, before=ZERO),
        None,
        Change(B, f"feature ({B[:12]})", None, None, True, "feature"),
    ),
    (
        "a branch name with slashes",
        push(ref="refs/heads/feature/x/y"),
        "main",
        Change(B, f"feature/x/y ({B[:12]})", A, A[:12], True, "feature/x/y"),
    ),
    ("a deleted branch", push(deleted=True, after=ZERO), "main", Skipped("the branch was deleted: nothing to check")),
    (
        "deleted, told by the zero sha alone",
        push(after=ZERO),
        "main",
        Skipped("the branch was deleted: nothing to check"),
    ),
    (
        "deleted, told by `deleted` alone",
        push(deleted=True),
        "main",
        Skipped("the branch was deleted: nothing to check"),
    ),
    (
        "a tag",
        push(ref="refs/tags/v1.0", created=True, before=ZERO),
        "main",
        Skipped("a push to refs/tags/v1.0, not to a branch: nothing to check"),
    ),
    (
        "a deleted tag: the ref is said first",
        push(ref="refs/tags/v1.0", deleted=True, after=ZERO),
        "main",
        Skipped("a push to refs/tags/v1.0, not to a branch: nothing to check"),
    ),
    (
        "another kind of ref",
        push(ref="refs/notes/commits"),
        "main",
        Skipped("a push to refs/notes/commits, not to a branch: nothing to check"),
    ),
]


@pytest.mark.parametrize(("case", "pushed", "default", "expected"), PUSHES, ids=[case[0] for case in PUSHES])
def test_the_change_a_push_asks_to_check(
    case: str, pushed: PushChange, default: str | None, expected: Change | Skipped
) -> None:
    assert push_change(pushed, default) == expected


def pull(head_repo: str | None = "o/r", number: int = 7) -> PullRequest:
    return PullRequest.model_validate(
        {
            "number": number,
            "head": {"ref": "topic", "sha": B, "repo": None if head_repo is None else {"full_name": head_repo}},
            "base": {"ref": "main", "sha": A},
        }
    )


PULLS: list[tuple[str, PullRequest, str | None, Change]] = [
    ("the repository's own branch", pull(), "o/r", Change(B, f"#7 ({B[:12]})", A, "main", True, "topic", 7)),
    ("a fork's branch", pull("someone/r"), "o/r", Change(B, f"#7 ({B[:12]})", A, "main", True, "topic", 7, True)),
    ("a deleted fork's branch", pull(None), "o/r", Change(B, f"#7 ({B[:12]})", A, "main", True, "topic", 7, True)),
    (
        "a repository the payload does not name",
        pull(),
        None,
        Change(B, f"#7 ({B[:12]})", A, "main", True, "topic", 7, True),
    ),
    ("a large number", pull(number=2**40), "o/r", Change(B, f"#{2**40} ({B[:12]})", A, "main", True, "topic", 2**40)),
]


@pytest.mark.parametrize(("case", "pulled", "repository", "expected"), PULLS, ids=[case[0] for case in PULLS])
def test_the_change_a_pull_request_asks_to_check(
    case: str, pulled: PullRequest, repository: str | None, expected: Change
) -> None:
    assert pull_request_change(pulled, repository) == expected


def test_a_fix_goes_to_the_branch_unless_it_is_a_forks() -> None:
    assert pull_request_change(pull(), "o/r").target == "topic"
    assert pull_request_change(pull("someone/r"), "o/r").target is None
    assert push_change(push(), "main").target == "feature"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("closed", Skipped("#7 was closed: nothing to check")),
        ("opened", None),
        ("synchronize", None),
        ("reopened", None),
        ("edited", None),
        (None, None),
    ],
)
def test_only_a_closed_pull_request_is_skipped(action: str | None, expected: Skipped | None) -> None:
    assert pull_request_skipped(action, 7) == expected


def suite(before: str | None = A, branch: str | None = "topic", *pulls: tuple[int, int, str]) -> SuiteChange:
    return SuiteChange.model_validate(
        {
            "head_branch": branch,
            "before": before,
            "pull_requests": [
                {"number": n, "head": {"ref": ref}, "base": {"ref": "main", "sha": A, "repo": {"id": repo_id}}}
                for n, repo_id, ref in pulls
            ],
        }
    )


SUITES: list[tuple[str, SuiteChange, Change]] = [
    ("a push's suite: from before", suite(B), Change(A, None, B, B[:12], True, "topic")),
    ("a suite made through the API: every claim", suite(None), Change(A, None, None, None, True, "topic")),
    ("a new branch's suite: every claim", suite(ZERO), Change(A, None, None, None, True, "topic")),
    ("a fork's suite names no branch", suite(B, None), Change(A, None, B, B[:12], True, None)),
    (
        "a same-repository pull request: from its base",
        suite(B, "topic", (3, 1, "topic")),
        Change(A, None, A, "main", True, "topic", 3),
    ),
    (
        "another repository's pull request is not this one's",
        suite(B, "topic", (3, 2, "topic")),
        Change(A, None, B, B[:12], True, "topic"),
    ),
    (
        "the first of this repository's pull requests",
        suite(B, "topic", (3, 2, "x"), (4, 1, "y"), (5, 1, "z")),
        Change(A, None, A, "main", True, "y", 4),
    ),
]


@pytest.mark.parametrize(("case", "suited", "expected"), SUITES, ids=[case[0] for case in SUITES])
def test_the_change_a_rerequested_suite_asks_to_check(case: str, suited: SuiteChange, expected: Change) -> None:
    assert suite_change(1, suited, A) == expected


def _example_pushes() -> list[str]:
    return [f"push.{n}" for n in range(1, 8)]


@pytest.mark.parametrize("name", _example_pushes())
def test_the_app_and_the_action_read_a_push_alike(name: str) -> None:
    """GitHub's example pushes, read by the App's model (a delivery) and the Action's (a workflow's event)."""
    data = example(name)
    app = PushEvent.model_validate({**data, "installation": {"id": 1}})  # some examples are a repository's hook's
    action = WorkflowPush.model_validate(data)
    assert action.repository is not None
    assert push_change(app, app.repository.default_branch) == push_change(action, action.repository.default_branch)


@pytest.mark.parametrize("name", ["pull_request.opened.1", "pull_request.opened.2", "pull_request.synchronize.1"])
def test_the_app_and_the_action_read_a_pull_request_alike(name: str) -> None:
    data = example(name)
    app = PullRequestEvent.model_validate({**data, "installation": {"id": 1}})
    action = WorkflowPullRequest.model_validate(data)
    assert action.repository is not None
    expected = pull_request_change(app.pull_request, app.repository.full_name)
    assert pull_request_change(action.pull_request, action.repository.full_name) == expected


def test_a_workflows_payload_is_read_as_far_as_it_goes() -> None:
    """What surrounds the change (repository, sender) is None when absent or of another shape, never a refusal;
    the change itself is read as strictly as the App reads it."""
    data: dict[str, Any] = {"ref": "refs/heads/x", "before": A, "after": B}
    assert WorkflowPush.model_validate(data).repository is None
    odd = {**data, "repository": "o/r", "sender": ["x"], "action": 3}
    read = WorkflowPush.model_validate(odd)
    assert (read.repository, read.sender, read.action) == (None, None, None)
    loose = WorkflowPush.model_validate({**data, "repository": {"id": True, "full_name": 5}, "sender": {"login": 1}})
    assert loose.repository is not None and loose.sender is not None
    assert (loose.repository.id, loose.repository.full_name, loose.sender.login) == (None, None, None)
    with pytest.raises(ValueError, match="after"):
        WorkflowPush.model_validate({**data, "after": "HEAD"})
