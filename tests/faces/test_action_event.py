"""The workflow's event read as the change the Action checks (bot/action/event.py): what GITHUB_SHA may be, which
names reach git, and how a payload that does not fit is said."""

from __future__ import annotations

from typing import Any

import pytest
from apptools import example

from bot.action.event import EventChange, change_from_event
from bot.action.inputs import ActionError

SHA_A, SHA_B = "a" * 40, "b" * 40


def _push(**fields: Any) -> dict[str, Any]:
    data = example("push.5")  # the creation of the default branch `master`
    data.update(fields)
    return data


def _pull(**base: Any) -> dict[str, Any]:
    data = example("pull_request.opened.2")
    data["pull_request"]["base"].update(base)
    return data


def test_another_event_checks_its_commit_whole_tree_to_tree() -> None:
    sha256 = "c" * 64
    assert change_from_event("schedule", {"sender": {"login": "ana"}}, sha256) == EventChange(
        "schedule", sha256, head_label=sha256[:12], merge_base=False, sender="ana"
    )


@pytest.mark.parametrize("sha", ["c" * 39, "c" * 41, "c" * 63, "c" * 65, "C" * 40, "c" * 40 + "\n"])
def test_a_github_sha_that_is_not_a_commit_id_is_refused(sha: str) -> None:
    with pytest.raises(ActionError, match=r"^the event payload's GITHUB_SHA is not a commit id$"):
        change_from_event("workflow_dispatch", {}, sha)


def test_a_branch_name_of_up_to_1024_characters_is_taken_and_a_longer_one_refused() -> None:
    longest = "refs/heads/" + "x" * (1024 - len("refs/heads/"))
    assert change_from_event("push", _push(ref=longest)).event == "push"
    with pytest.raises(ActionError, match=r"^the event payload's ref is not a branch name$"):
        change_from_event("push", _push(ref=longest + "x"))


def test_a_pull_requests_base_branch_reaches_git_only_as_a_name() -> None:
    with pytest.raises(ActionError, match=r"^the event payload's pull_request\.base\.ref is not a branch name$"):
        change_from_event("pull_request", _pull(ref="--upload-pack=evil"))


def test_the_default_branch_is_checked_only_when_the_push_is_checked() -> None:
    created = _push(repository={**example("push.5")["repository"], "default_branch": "-x"})
    with pytest.raises(ActionError, match=r"repository\.default_branch is not a branch name"):
        change_from_event("push", created)  # a new branch is compared with the default one: its name reaches git
    deleted = {**created, "deleted": True, "after": "0" * 40}
    assert change_from_event("push", deleted).skipped is not None  # nothing checked: the name goes nowhere
    unnamed = _push(created=False, before=SHA_A, after=SHA_B, repository={"id": 7})  # no default branch said
    assert (change_from_event("push", unnamed).base, change_from_event("push", unnamed).repository_id) == (SHA_A, 7)


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        (_push(after=1), "the event payload's after is not a commit id"),
        (_push(before=[]), "the event payload's before is not a commit id"),
        (_push(ref=7), "the event payload's ref is not a branch name"),
        (_push(forced="yes"), "the event payload's forced does not fit its event"),
        (_push(forced="yes", after=1), "the event payload's after is not a commit id"),  # the first field GitHub lists
    ],
)
def test_a_payload_that_does_not_fit_names_its_first_field_in_the_actions_words(payload: Any, said: str) -> None:
    with pytest.raises(ActionError) as refused:
        change_from_event("push", payload)
    assert str(refused.value) == said


def test_a_payload_that_is_no_object_is_said_as_the_body() -> None:
    with pytest.raises(ActionError, match=r"^the event payload's body does not fit its event$"):
        change_from_event("workflow_dispatch", [], SHA_B)  # type: ignore[arg-type]
