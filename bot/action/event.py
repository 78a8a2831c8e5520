"""The workflow's event, read into the App's payload models, as the change the step checks: by the App's own rules
(`bot.github.events`), with branch names checked again before git's command line sees them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

from ..github.events import Change, Skipped, pull_request_change, pull_request_skipped, push_change
from ..github.payloads import WorkflowEvent, WorkflowPullRequest, WorkflowPullRequestNumber, WorkflowPush
from .inputs import ActionError

_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # SHA-1, or a SHA-256 repository
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
W = TypeVar("W", bound=WorkflowEvent)


@dataclass(frozen=True)
class EventChange:
    """What the workflow's event asks to check, by the rules the App reads the same event with
    (`bot.github.events`): the commit, the change it is compared through, and where a fix would go."""

    event: str
    head: str | None  # None: nothing to check (`skipped` says why)
    head_label: str | None = None
    base: str | None = None  # a commit, or (a new branch) the default branch's name; None: every claim
    base_label: str | None = None
    merge_base: bool = True  # compare from where head left base, as a pull request does; False: tree to tree
    target: str | None = None  # the branch a fix goes to; None for a fork's pull request
    pr_number: int | None = None
    repository_id: int | None = None
    skipped: str | None = None
    sender: str | None = None  # who caused the event


def _name(value: str, where: str) -> None:
    """A branch or ref name git sees on its command line: never an option, nor a control character (its length,
    1 to 1,024 characters, the payload model's `GitRef` has checked)."""
    if _CONTROL.search(value) or value[0] == "-":
        raise ActionError(f"the event payload's {where} is not a branch name")


def _refused(exc: ValidationError) -> ActionError:
    """The first field of the payload that does not fit, named in the Action's words."""
    where = ".".join(str(part) for part in exc.errors()[0]["loc"])
    field = where.rpartition(".")[2]
    if where == "pull_request":
        return ActionError("the event payload has no pull_request")
    if field == "number":
        return ActionError(f"the event payload's {where} is not a number")
    if field in ("sha", "before", "after"):
        return ActionError(f"the event payload's {where} is not a commit id")
    if field in ("ref", "default_branch"):
        return ActionError(f"the event payload's {where} is not a branch name")
    return ActionError(f"the event payload's {where or 'body'} does not fit its event")


def _parsed(model: type[W], payload: Mapping[str, Any]) -> W:
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        raise _refused(exc) from None


def change_from_event(event: str, payload: Mapping[str, Any], sha: str | None = None) -> EventChange:
    """The change to check for `event` (GITHUB_EVENT_NAME) and its payload, by the App's rules
    (`bot.github.events`); `sha` (GITHUB_SHA) is checked as a whole for any other event (a schedule, a manual
    run)."""
    if event == "push":
        return _push(_parsed(WorkflowPush, payload))
    if event == "pull_request":
        return _pull_request(payload)
    surrounding = _parsed(WorkflowEvent, payload)
    if sha and not _SHA.fullmatch(sha):
        raise ActionError("the event payload's GITHUB_SHA is not a commit id")
    if not sha:
        raise ActionError(f"a {event} event names no commit to check (GITHUB_SHA is not set)")
    return EventChange(event, sha, head_label=sha[:12], merge_base=False, **_who(surrounding))


def _who(event: WorkflowEvent) -> dict[str, Any]:
    """The repository's id and the sender's login, where the payload names them."""
    return {
        "repository_id": event.repository.id if event.repository else None,
        "sender": event.sender.login if event.sender else None,
    }


def _from(event: str, change: Change | Skipped, surrounding: WorkflowEvent) -> EventChange:
    if isinstance(change, Skipped):
        return EventChange(event, None, skipped=change.reason)
    return EventChange(
        event, change.head, head_label=change.head_label, base=change.base, base_label=change.base_label,
        merge_base=change.merge_base, target=change.target, pr_number=change.pr_number, **_who(surrounding),
    )  # fmt: skip


def _push(push: WorkflowPush) -> EventChange:
    _name(push.ref, "ref")
    default = push.repository.default_branch if push.repository else None
    change = push_change(push, default)
    if not isinstance(change, Skipped) and default is not None:
        _name(default, "repository.default_branch")
    return _from("push", change, push)


def _pull_request(payload: Mapping[str, Any]) -> EventChange:
    numbered = _parsed(WorkflowPullRequestNumber, payload)  # the number first: even a closed one's skip says it
    number = numbered.pull_request.number
    skipped = pull_request_skipped(numbered.action, number)
    if skipped is not None:
        return EventChange("pull_request", None, pr_number=number, skipped=skipped.reason)
    event = _parsed(WorkflowPullRequest, payload)
    _name(event.pull_request.head.ref, "pull_request.head.ref")
    _name(event.pull_request.base.ref, "pull_request.base.ref")
    own = event.repository.full_name if event.repository else None
    return _from("pull_request", pull_request_change(event.pull_request, own), event)
