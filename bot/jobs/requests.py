"""What a job is asked to do, as frozen typed requests: built by the webhook handlers, read by the runners, and
turned into JSON only at the queue's edge (the Redis queue), where they are validated again on the way back."""

from __future__ import annotations

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
