"""What a job is asked to do, as frozen typed requests: built by the webhook handlers, read by the runners, and
turned into JSON only at the queue's edge (the Redis queue, a job's process), where they are validated again on the
way back.

A job in Redis outlives the version that queued it (a deploy replaces the workers, not the queue), so its JSON says
its format (`JOB_FORMAT`), and a job of an older format is upgraded step by step (`upgrade_job`) before it is read.
Changing what a request holds in a way the previous version's JSON does not fit (a field renamed, removed, made
required) takes a new format number and the step from the previous one, with a test on a job captured from the
previous version (tests/data/jobs/)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RepoRef(_Frozen):
    """The repository a job works on, and the installation that lets it."""

    installation_id: int
    full_name: str
    id: int
    html_url: str | None = None


class CheckRequest(_Frozen):
    """Check what a change did to the wiki and publish the check run on its head commit."""

    kind: Literal["check"] = "check"
    repo: RepoRef
    head_sha: str
    head_label: str | None = None
    base: str | None = None  # None: no base (a new default branch), every claim is checked
    base_label: str | None = None
    merge_base: bool = True  # compare from where head left base (three dots); False: tree to tree
    pr_number: int | None = None
    branch: str | None = None
    fork: bool = False  # a pull request from a fork: no fix can be pushed to its branch
    prefer_pull_request: bool = False  # a branch push: compare with its open pull request's base, if any
    default_branch: bool = False  # a push to the default branch, which `auto_fix` may follow with a fix
    new_run: bool = False  # a re-requested check: GitHub wants a new run, not the old one updated


class FixRequest(_Frozen):
    """Fix the wiki after a change and propose the result as the follow-up pull request."""

    kind: Literal["fix"] = "fix"
    repo: RepoRef
    head_sha: str
    check_run_id: int | None = None  # the run to report on (found by head commit when unknown)
    target: str | None = None  # the branch the fix goes to; None for a fork's pull request
    base: str | None = None
    base_label: str | None = None
    merge_base: bool = True
    pr_number: int | None = None
    trigger: Literal["button", "auto_fix"] = "button"
    requested_by: str | None = None

    @property
    def fork(self) -> bool:
        return self.target is None


class GroundRequest(_Frozen):
    """Ground the next pages of the wiki that have no claims and propose them as the grounding pull request."""

    kind: Literal["ground"] = "ground"
    repo: RepoRef
    head_sha: str
    check_run_id: int | None = None  # the run to report on (found by head commit when unknown)
    target: str | None = None  # the branch the grounding goes to; None for a fork's pull request
    pr_number: int | None = None
    trigger: Literal["button", "auto"] = "button"
    requested_by: str | None = None

    @property
    def fork(self) -> bool:
        return self.target is None


AnyRequest = CheckRequest | FixRequest | GroundRequest
Request = Annotated[AnyRequest, Field(discriminator="kind")]
REQUEST: TypeAdapter[AnyRequest] = TypeAdapter(Request)


def request_to_json(request: AnyRequest) -> dict[str, Any]:
    return request.model_dump(mode="json")


def request_from_json(value: Any) -> AnyRequest:
    """A request read back from the queue; pydantic's ValidationError when it is not one (another version's)."""
    return REQUEST.validate_python(value)


JOB_FORMAT = 2  # the format this version writes
FIRST_FORMAT = 1  # the format of a job with no number: what 0.1.0 (up to edc4838) wrote


class UnreadableJob(ValueError):
    """A queued job that is no job of any format: not an object, or a format number that is not one."""


class NewerJob(ValueError):
    """A queued job written by a newer version (a format this version does not know): not to be read here, nor
    dropped; a newer worker reads it."""

    def __init__(self, found: int) -> None:
        super().__init__(f"the job's format is {found}, and this version reads formats up to {JOB_FORMAT}")
        self.found = found


def _from_1(value: dict[str, Any]) -> dict[str, Any]:
    """Format 1 (no number) → 2: the same key, delivery and request, now numbered."""
    return {**value, "format": 2}


UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _from_1}  # format n → n + 1


def job_format(value: Any) -> int:
    """The format of a queued job's JSON. Raises UnreadableJob when it has none that could be one."""
    if not isinstance(value, dict):
        raise UnreadableJob(f"a queued job is a JSON object, not {type(value).__name__}")
    found = value.get("format", FIRST_FORMAT)
    if type(found) is not int or found < FIRST_FORMAT:
        raise UnreadableJob(f"a queued job's format is a number from {FIRST_FORMAT}, not {found!r:.40}")
    return found


def upgrade_job(value: Any) -> dict[str, Any]:
    """A queued job's JSON in this version's format, upgraded from whichever older format it has. Raises
    NewerJob for a job of a newer version, UnreadableJob for what is no job."""
    found = job_format(value)
    if found > JOB_FORMAT:
        raise NewerJob(found)
    job: dict[str, Any] = value
    for step in range(found, JOB_FORMAT):
        job = UPGRADES[step](job)
    return job
