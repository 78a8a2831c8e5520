"""The follow-up pull request, decided without I/O (`bot.github.content.pull_requests`): every branch of the publication plan
(create, update in place, nothing to do, hand over after a person's commit, a fix closed without merging, a
merged one), the comparison of trees, the marker, the title and body, and what the check run says."""

from __future__ import annotations

from typing import Any

from inertcheck import assert_inert_markdown, assert_inert_plain, visible

from bot.claims.snapshot import git_blob_id
from bot.fix.engine import Action, ClaimOutcome, FixResult
from bot.github.content.pull_requests import (
    FIX_PREFIX,
    BranchState,
    PublicationPlan,
    change_key,
    describe,
    evidence_links,
    fix_branch_for,
    flagged_reasons,
    holds_fix,
    iso_time,
    marker,
    plan_publication,
    proposal,
    read_marker,
)
from bot.source.github import TreeEntry

SINCE = "a" * 40
BRANCH = fix_branch_for("main")


def result(*outcomes: ClaimOutcome) -> FixResult:
    return FixResult(files={"openwiki/q.md": b"new\n"}, outcomes=list(outcomes), model="m")


UPDATED = ClaimOutcome("openwiki/q.md", "claim_1", "pop takes the oldest", Action.UPDATED, "the code changed",
                       "pop takes the newest", ("repo://src/q.py#L3-L4",), ("repo://src/q.py#L3-L5",))  # fmt: skip
FLAGGED = ClaimOutcome("openwiki/q.md", "claim_2", "push appends", Action.FLAGGED, "no model is configured")
KEY = change_key(result(UPDATED))


def pull(number: int, *, state: str = "open", key: str = KEY, merged: bool = False) -> dict[str, Any]:
    return {
        "number": number, "state": state, "html_url": f"https://github.com/acme/q/pull/{number}",
        "body": marker(SINCE, key) + "\n## the fix", "merged_at": "2026-01-02T03:04:05Z" if merged else None,
    }  # fmt: skip


# -- the plan ---------------------------------------------------------------------------------------------


def test_the_first_fix_creates_the_branch_and_opens_a_pull_request() -> None:
    assert plan_publication(BranchState(BRANCH), KEY) == PublicationPlan("opened", None, create_branch=True)


def test_an_open_fix_is_updated_in_place() -> None:
    open_pull = pull(7)
    state = BranchState(BRANCH, sha="b" * 40, open_pull=open_pull)
    assert plan_publication(state, KEY) == PublicationPlan("updated", open_pull, create_branch=False)


def test_an_open_fix_whose_branch_was_deleted_gets_the_branch_again() -> None:
    open_pull = pull(7)
    assert plan_publication(BranchState(BRANCH, open_pull=open_pull), KEY) == PublicationPlan(
        "updated", open_pull, create_branch=True
    )


def test_a_branch_that_already_holds_the_fix_is_left_as_it_is() -> None:
    open_pull = pull(7)
    state = BranchState(BRANCH, sha="b" * 40, open_pull=open_pull)
    assert state.may_hold_fix
    plan = plan_publication(state, KEY, holds=True)
    assert plan == PublicationPlan("unchanged", open_pull) and not plan.writes


def test_a_persons_commit_hands_the_branch_over() -> None:
    open_pull = pull(7)
    state = BranchState(BRANCH, sha="b" * 40, person="octocat", open_pull=open_pull)
    assert not state.may_hold_fix  # nothing of theirs is compared, let alone overwritten
    plan = plan_publication(state, KEY, holds=True)
    assert plan == PublicationPlan("handed-off", open_pull) and not plan.writes


def test_a_fix_closed_without_merging_is_not_proposed_again() -> None:
    closed = pull(5, state="closed")
    state = BranchState(BRANCH, sha="b" * 40, closed_pulls=[closed])
    plan = plan_publication(state, KEY)
    assert plan == PublicationPlan("declined", closed) and not plan.writes
    other = plan_publication(state, "f" * 32)  # another change: a new proposal
    assert other == PublicationPlan("opened", None, create_branch=False)


def test_a_declined_change_still_updates_a_pull_request_open_meanwhile() -> None:
    open_pull = pull(8)
    state = BranchState(BRANCH, sha="b" * 40, open_pull=open_pull, closed_pulls=[pull(5, state="closed")])
    assert plan_publication(state, KEY).outcome == "updated"


def test_after_a_merge_the_next_fix_opens_a_new_pull_request_on_the_same_branch() -> None:
    merged = pull(5, state="closed", merged=True)
    state = BranchState(BRANCH, sha="b" * 40, closed_pulls=[merged])
    assert state.declined(KEY) is None
    assert plan_publication(state, KEY) == PublicationPlan("opened", None, create_branch=False)
    assert plan_publication(BranchState(BRANCH, closed_pulls=[merged]), KEY).create_branch  # branch deleted after


def test_without_an_open_pull_request_the_branch_is_not_worth_comparing() -> None:
    state = BranchState(BRANCH, sha="b" * 40)
    assert not state.may_hold_fix
    assert plan_publication(state, KEY, holds=True).outcome == "opened"


# -- what the plan rests on -----------------------------------------------------------------------------------


def test_holds_fix_compares_blob_ids_locally() -> None:
    fixed = {
        "src/q.py": TreeEntry("100644", git_blob_id(b"code\n"), 5),
        "openwiki/q.md": TreeEntry("100644", git_blob_id(b"old\n"), 4),
    }
    files = {"openwiki/q.md": b"new\n"}
    branch = {**fixed, "openwiki/q.md": TreeEntry("100644", git_blob_id(b"new\n"), 4)}
    assert holds_fix(fixed, branch, files)
    assert not holds_fix(fixed, fixed, files)  # the branch lacks the fix
    assert not holds_fix(fixed, {**branch, "extra.txt": TreeEntry("100644", git_blob_id(b""), 0)}, files)


def test_the_marker_round_trips_and_ignores_lookalikes() -> None:
    assert read_marker("text\n" + marker(SINCE, KEY) + "\nmore") == (SINCE, KEY)
    assert read_marker(marker(None, KEY)) == (None, KEY)
    assert read_marker("<!-- wikiwarden:fix since=zzz change=1 -->") is None
    assert read_marker(None) is None
    assert BranchState(BRANCH, open_pull=pull(7)).since == SINCE
    assert BranchState(BRANCH).since is None


def test_the_change_key_is_what_the_fix_decides_not_how_it_says_it() -> None:
    reworded = ClaimOutcome(**{**UPDATED.__dict__, "reason": "other words"})
    assert change_key(result(UPDATED)) == change_key(result(reworded))
    assert change_key(result(UPDATED)) == change_key(FixResult(outcomes=[UPDATED], model="another"))
    other = ClaimOutcome(**{**UPDATED.__dict__, "new_statement": "pop takes any"})
    assert change_key(result(UPDATED)) != change_key(result(other))


def test_the_proposal_names_its_branch_target_and_marker() -> None:
    key, title, body = proposal(result(UPDATED, FLAGGED), target="main", fixed="c" * 40, since=SINCE, links=None)
    assert key == change_key(result(UPDATED, FLAGGED))
    assert title == "Wiki: 1 updated, 1 still flagged after main ccccccc"
    assert body.startswith(marker(SINCE, key) + "\n## Wikiwarden: the wiki, true to `main` again")
    assert BRANCH == FIX_PREFIX + "main"
    _, long_title, _ = proposal(result(UPDATED), target="b" * 400, fixed="c" * 40, since=None, links=None)
    assert len(long_title) == 250


def test_evidence_links_point_at_both_commits() -> None:
    link = evidence_links("https://github.com/acme/q", "1" * 40, "2" * 40)
    assert link is not None
    assert (
        link("repo://src/a%20b.py#L3-L4", "before") == f"https://github.com/acme/q/blob/{'1' * 40}/src/a%20b.py#L3-L4"
    )
    assert link("repo://src/q.py", "now") == f"https://github.com/acme/q/blob/{'2' * 40}/src/q.py"
    assert link("not a resource", "now") is None
    assert evidence_links("https://github.com/acme/q", None, "2" * 40)("repo://src/q.py", "before") is None  # type: ignore[misc]
    assert evidence_links(None, "1" * 40, "2" * 40) is None


def test_the_commit_date_is_the_fixs_now() -> None:
    assert iso_time("2026-03-04T05:06:07Z") == "2026-03-04T05:06:07.000Z"
    assert iso_time("2026-03-04T07:06:07+02:00") == "2026-03-04T05:06:07.000Z"


# -- what the check run says -------------------------------------------------------------------------------


def test_what_the_check_run_says_for_each_outcome() -> None:
    fix = result(UPDATED, FLAGGED)
    state = BranchState(BRANCH, sha="b" * 40, person="octocat", open_pull=pull(7))
    opened = describe(PublicationPlan("opened"), pull(9), BranchState(BRANCH), fix)
    assert opened.text == "Fix pull request #9 opened: 1 updated, 1 still flagged. 1 claim still needs a person."
    assert opened.url == "https://github.com/acme/q/pull/9"
    assert describe(PublicationPlan("updated", pull(7)), pull(7), state, result(UPDATED)).text == (
        "Fix pull request #7 updated: 1 updated."
    )
    assert describe(PublicationPlan("unchanged", pull(7)), pull(7), state, result(UPDATED)).text == (
        "Fix pull request #7 already holds this fix: 1 updated."
    )
    handed = describe(PublicationPlan("handed-off", pull(7)), pull(7), state, fix)
    assert handed.text.startswith(
        f"The branch `{BRANCH}` has commits by octocat, so Wikiwarden no longer updates it (#7)."
    )
    declined = describe(PublicationPlan("declined", pull(5)), pull(5), BranchState(BRANCH), fix)
    assert declined.text.startswith("This very fix was proposed in #5 and closed without merging")
    assert declined.url == "https://github.com/acme/q/pull/5"


HOSTILE_BRANCH = "fix`@acme/core`</details>#1|<b>&x"


def test_a_hostile_branch_name_is_inert_in_the_title_and_stays_in_its_code_span() -> None:
    _, title, body = proposal(result(UPDATED), target=HOSTILE_BRANCH, fixed="c" * 40, since=None, links=None)
    assert_inert_plain(title)
    assert visible(title) == f"Wiki: 1 updated after {HOSTILE_BRANCH} ccccccc"
    reading = assert_inert_markdown(body, html=r"<!-- wikiwarden:fix since=none change=\w+ -->")
    assert [visible(h) for h in reading.headings] == [f"Wikiwarden: the wiki, true to {HOSTILE_BRANCH} again"]


def test_what_the_check_run_says_is_inert_whoever_named_the_branch_and_committed() -> None:
    state = BranchState(
        fix_branch_for(HOSTILE_BRANCH), sha="b" * 40, person="@octocat <b> closes #2", open_pull=pull(7)
    )
    handed = describe(PublicationPlan("handed-off", pull(7)), pull(7), state, result(UPDATED))
    reading = assert_inert_markdown(handed.text, trusted=["#7"])
    assert [visible(c) for c in reading.codes] == [fix_branch_for(HOSTILE_BRANCH)]
    assert "has commits by @octocat <b> closes #2, so" in visible("".join(reading.texts))
    flagged = ClaimOutcome("openwiki/@x #3.md", "claim_2", "cc @octocat | <b>", Action.FLAGGED, "fixes #4\n# h")
    reading = assert_inert_markdown(flagged_reasons(result(flagged)))
    assert [visible(c) for c in reading.codes] == ["openwiki/@x #3.md"]
    assert visible("".join(reading.texts)) == ": “cc @octocat | <b>” (fixes #4 # h)."
