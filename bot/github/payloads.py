"""The parts of GitHub's webhook payloads Wikiwarden reads, as typed models: the App's deliveries, and the same
events as a workflow hands them to the Action.

A delivery is parsed into its route's model before any handler runs, so a payload of the wrong shape (a field
missing, a string where an object belongs, an id that is not a number) is refused at the door with the field
named, instead of failing inside a handler. Only what the handlers read is declared, strictly (no "77" for 77);
GitHub's many other fields are ignored. Names and shas are checked against GitHub's own forms, since they end up
in API paths and job keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, ValidationError

GitHubId = Annotated[int, Field(ge=1, le=2**63 - 1)]
Sha = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")]  # SHA-1, or a SHA-256 repository
GitRef = Annotated[str, StringConstraints(min_length=1, max_length=1024)]


def _no_dot_segment(full_name: str) -> str:
    if any(part in {".", ".."} for part in full_name.split("/")):
        raise ValueError("`.` and `..` are not repository or owner names")
    return full_name


FullName = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$"), AfterValidator(_no_dot_segment)
]


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)


class Installation(_Part):
    id: GitHubId


class Sender(_Part):
    login: str


class Repository(_Part):
    id: GitHubId
    full_name: FullName
    html_url: str | None = None
    default_branch: GitRef | None = None


class Envelope(_Part):
    """What the door reads of every delivery of an event Wikiwarden handles, before choosing its route: a
    delivery without an installation comes from a repository webhook, not from the App, and is ignored."""

    action: str | None = None
    installation: Installation | None = None
    sender: Sender | None = None


class AppEvent(Envelope):
    """A delivery to the App: it names the installation whose token does the work."""

    installation: Installation


class RepositoryEvent(AppEvent):
    repository: Repository


class PushChange(_Part):
    """What a push says of its change: the ref it moved, from which commit to which, and how."""

    ref: GitRef
    before: Sha
    after: Sha
    created: bool = False
    deleted: bool = False
    forced: bool = False


class PushEvent(RepositoryEvent, PushChange):
    pass


class RepositoryName(_Part):
    full_name: FullName


class PullRequestHead(_Part):
    ref: GitRef
    sha: Sha
    repo: RepositoryName | None = None  # None once a fork's repository is deleted


class PullRequestBase(_Part):
    ref: GitRef
    sha: Sha


class PullRequestNumber(_Part):
    number: GitHubId


class PullRequest(PullRequestNumber):
    head: PullRequestHead
    base: PullRequestBase


class PullRequestEvent(RepositoryEvent):
    action: str
    pull_request: PullRequest


class RepositoryId(_Part):
    id: GitHubId


class SuitePullBase(_Part):
    ref: GitRef
    sha: Sha
    repo: RepositoryId


class SuitePullHead(_Part):
    ref: GitRef


class SuitePullRequest(_Part):
    """A pull request as a check suite or run lists it (only those of the App's own repository are listed)."""

    number: GitHubId
    head: SuitePullHead
    base: SuitePullBase


class SuiteChange(_Part):
    """What a check suite says of the change it checks: its branch (null for a fork's), the commit before it
    (null for a suite made through the API), and its pull requests. GitHub always sends all three, so each must
    be there, null or not: a suite with none of them is not a suite."""

    head_branch: GitRef | None
    before: Sha | None
    pull_requests: list[SuitePullRequest]


class CheckSuite(SuiteChange):
    head_sha: Sha


class CheckSuiteEvent(RepositoryEvent):
    check_suite: CheckSuite


class CheckRun(_Part):
    id: GitHubId
    name: str
    head_sha: Sha
    check_suite: SuiteChange
    pull_requests: list[SuitePullRequest]


class CheckRunEvent(RepositoryEvent):
    check_run: CheckRun


class RequestedAction(_Part):
    identifier: str


class RequestedActionEvent(CheckRunEvent):
    requested_action: RequestedAction


class InstallationEvent(AppEvent):
    action: str


# -- a workflow's event, as the Action reads it --------------------------------------------------------------
# A workflow's payload names no installation, and what surrounds the change (the repository, the sender, a manual
# run's few fields) is read as far as it is there: a part missing or of another shape is None, never a refusal.
# The change itself (a push's ref and commits, a pull request) is read with the App's models, as strictly.


def _kept_if(fits: Callable[[Any], bool]) -> BeforeValidator:
    return BeforeValidator(lambda value: value if fits(value) else None)


_OptionalText = Annotated[str | None, _kept_if(lambda value: isinstance(value, str))]
_OptionalId = Annotated[
    int | None, _kept_if(lambda value: isinstance(value, int) and not isinstance(value, bool) and value > 0)
]
_is_object = _kept_if(lambda value: isinstance(value, Mapping))


class WorkflowRepository(_Part):
    id: _OptionalId = None
    full_name: _OptionalText = None
    default_branch: GitRef | None = None


class WorkflowSender(_Part):
    login: _OptionalText = None


class WorkflowEvent(_Part):
    """Any workflow event: the repository it runs for and who caused it, as far as the payload says."""

    action: _OptionalText = None
    repository: Annotated[WorkflowRepository | None, _is_object] = None
    sender: Annotated[WorkflowSender | None, _is_object] = None


class WorkflowPush(WorkflowEvent, PushChange):
    pass


class WorkflowPullRequestNumber(WorkflowEvent):
    """A pull request event read only as far as its number: what a closed one's skip says."""

    pull_request: PullRequestNumber


class WorkflowPullRequest(WorkflowEvent):
    pull_request: PullRequest


P = TypeVar("P", bound=Envelope)


class PayloadError(ValueError):
    """A delivery whose payload does not fit its event's model; the message names the fields, never their values."""


def parse_payload(model: type[P], event: str, data: Any, shown: int = 3) -> P:
    """`data` as `model`, or PayloadError saying which fields do not fit (the first `shown` of them)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(part) for part in error['loc']) or 'the body'}: {error['msg']}"
            for error in exc.errors(include_url=False, include_input=False, include_context=False)
        ]
        more = f" (and {len(problems) - shown} more)" if len(problems) > shown else ""
        raise PayloadError(f"the {event} payload does not fit: {'; '.join(problems[:shown])}{more}") from None
