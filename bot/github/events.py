"""Which change an event asks to check: the one home of the rules the App's webhook handlers and the Action both
follow (a branch pushed, created, force-pushed or deleted; a pull request from where it left its base; a check
suite asked for again). Pure: parsed payload parts in, a `Change` or a `Skipped` out.

It lives beside the payload models it reads, in `bot/github/`: the rules are GitHub's events' meaning, the App's
handlers sit next to it, and the Action (a face) may import any part below it. The core knows nothing of GitHub's
events, and the use cases run over a change, never over an event.
"""

from __future__ import annotations

from dataclasses import dataclass

from .payloads import PullRequest, PushChange, SuiteChange

ZERO_SHA = "0" * 40  # a push's `before` when the branch is new, its `after` when the branch is gone


@dataclass(frozen=True)
class Change:
    """The commit an event asks to check, the change it is compared through, and the branch it is on."""

    head: str
    head_label: str | None
    base: str | None  # a commit, or (a new branch) the default branch's name; None: every claim is checked
    base_label: str | None
    merge_base: bool  # compare from where head left base, as a pull request does; False: tree to tree
    branch: str | None  # the pushed branch, the pull request's head branch (None: a suite of a fork's commit)
    pr_number: int | None = None
    fork: bool = False  # a fork's pull request: its branch is not the repository's

    @property
    def target(self) -> str | None:
        """The branch a fix goes to: None for a fork's pull request, whose branch is not ours to push."""
        return None if self.fork else self.branch


@dataclass(frozen=True)
class Skipped:
    """An event with nothing to check, and why."""

    reason: str


def push_change(push: PushChange, default_branch: str | None) -> Change | Skipped:
    """A push to a branch: its new commits. A new branch is checked from where it left the default branch (a new
    default branch, or one the payload does not name: every claim); a force-push tree to tree from the commit it
    replaced; any other push from `before`. A tag, or a deleted branch, has nothing to check."""
    if not push.ref.startswith("refs/heads/"):
        return Skipped(f"a push to {push.ref}, not to a branch: nothing to check")
    if push.deleted or push.after == ZERO_SHA:
        return Skipped("the branch was deleted: nothing to check")
    branch = push.ref.removeprefix("refs/heads/")
    before, after = push.before, push.after
    if push.created or before == ZERO_SHA:
        new_default = default_branch is None or branch == default_branch
        base, merge_base, base_label = (None, True, None) if new_default else (default_branch, True, default_branch)
    elif push.forced:
        base, merge_base, base_label = before, False, f"before the force-push ({before[:12]})"
    else:
        base, merge_base, base_label = before, True, before[:12]
    return Change(
        head=after, head_label=f"{branch} ({after[:12]})", base=base, base_label=base_label, merge_base=merge_base,
        branch=branch,
    )  # fmt: skip


def pull_request_skipped(action: str | None, number: int) -> Skipped | None:
    """A closed pull request has nothing to check (the App is not even sent it: its routes take opened,
    synchronize and reopened)."""
    return Skipped(f"#{number} was closed: nothing to check") if action == "closed" else None


def pull_request_change(pull: PullRequest, repository: str | None) -> Change:
    """A pull request of `repository` (owner/name; None when the payload does not say): its head, from where it
    left its base. Its head branch is a fork's when its repository is another, or gone (a deleted fork)."""
    head_repo = pull.head.repo.full_name if pull.head.repo is not None else None
    return Change(
        head=pull.head.sha, head_label=f"#{pull.number} ({pull.head.sha[:12]})", base=pull.base.sha,
        base_label=pull.base.ref, merge_base=True, branch=pull.head.ref, pr_number=pull.number,
        fork=repository is None or head_repo != repository,
    )  # fmt: skip


def suite_change(repository_id: int, suite: SuiteChange, head_sha: str) -> Change:
    """What a check suite's commit changed: a same-repository pull request's change (from its base), else the
    push's (from `before`; everything when there was none: a new branch, or a suite made through the API)."""
    same_repo = [p for p in suite.pull_requests if p.base.repo.id == repository_id]
    if same_repo:
        pull = same_repo[0]
        return Change(
            head=head_sha, head_label=None, base=pull.base.sha, base_label=pull.base.ref, merge_base=True,
            branch=pull.head.ref, pr_number=pull.number,
        )  # fmt: skip
    before = suite.before or ZERO_SHA
    base = None if before == ZERO_SHA else before
    return Change(
        head=head_sha, head_label=None, base=base, base_label=before[:12] if base else None, merge_base=True,
        branch=suite.head_branch,
    )  # fmt: skip
