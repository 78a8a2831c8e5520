"""Carrying out a proposal (`bot/github/api/publish.py`) against the fake GitHub, GitHub's refusals included: who owns
the proposal's branch (its commits over the fixed commit, history that no longer meets it), the branch created by
someone else meanwhile (inspected again, once), and a pull request opened meanwhile (updated instead)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import aiohttp
import pytest
from fakegithub import FakeGitHub, FakeRepo
from gidgethub import BadRequest

from bot.github.api.client import GitHubClient, RetryPolicy
from bot.github.api.publish import BranchRace, inspect_branch, propose, publish
from bot.github.content.pull_requests import GROUND, BranchState, PublicationPlan
from bot.source.github import GitHubSource, SourceCache

BRANCH = "wikiwarden/fix/main"
FILES = {"openwiki/q.md": b"# Q\n\nFixed.\n"}
POLICY = RetryPolicy(max_retries=0, base_seconds=0.01, max_wait_seconds=0.1, secondary_min_seconds=0.01)


@dataclass
class Setting:
    fake: FakeGitHub
    repo: FakeRepo
    gh: GitHubClient
    source: GitHubSource
    fixed: str

    @property
    def bot(self) -> str:
        return self.fake.bot_login

    async def state(self, name: str = BRANCH) -> BranchState:
        return await inspect_branch(self.gh, "acme/widgets", name, self.fixed, self.bot)

    async def publish(self, state: BranchState, plan: PublicationPlan) -> tuple[PublicationPlan, dict | None]:
        tree = self.repo.store.read_commit(self.fixed).tree
        return await publish(
            self.gh, self.source, state, plan, target="main", fixed=self.fixed, fixed_tree=tree, files=FILES,
            title="Fix the wiki", body="The fix.",
        )  # fmt: skip

    async def propose(self, state: BranchState) -> tuple[PublicationPlan, dict | None, BranchState]:
        tree = self.repo.store.read_commit(self.fixed).tree
        return await propose(
            self.gh, self.source, state, key="change-1", files=FILES, title="Fix the wiki", body="The fix.",
            target="main", fixed=self.fixed, fixed_tree=tree, bot_login=self.bot,
        )  # fmt: skip

    def requests(self, method: str, ending: str) -> list[int]:
        return [r.status for r in self.fake.requests if r.method == method and r.path.endswith(ending)]


@pytest.fixture
async def setting(fake_github: FakeGitHub) -> AsyncIterator[Setting]:
    fake_github.add_installation(77, "acme")
    repo = fake_github.create_repo("acme", "widgets", 77)
    fixed = repo.commit({"openwiki/q.md": "# Q\n\nStale.\n", "src/q.py": "Q = 1\n"}, message="init")
    token = fake_github.issue_token(77)
    async with aiohttp.ClientSession() as session:
        gh = GitHubClient(session, oauth_token=token.token, base_url=fake_github.base_url, policy=POLICY)
        source = GitHubSource(gh, "acme/widgets", f"{fake_github.base_url}/graphql", SourceCache())
        yield Setting(fake_github, repo, gh, source, fixed)


async def test_a_branch_that_is_not_there_is_the_bots_to_create(setting: Setting) -> None:
    assert await setting.state() == BranchState(BRANCH)


async def test_a_ref_lookup_github_refuses_is_raised(setting: Setting) -> None:
    setting.fake.fail_next("GET", r"/git/ref/", 403, body={"message": "Resource not accessible by integration"})
    with pytest.raises(BadRequest) as raised:
        await setting.state()
    assert int(raised.value.status_code) == 403


async def test_the_bots_own_commit_leaves_the_branch_its_own_and_a_persons_hands_it_off(setting: Setting) -> None:
    plan, pull = await setting.publish(BranchState(BRANCH), PublicationPlan("opened", None, create_branch=True))
    assert plan == PublicationPlan("opened", None, create_branch=True) and pull is not None
    state = await setting.state()
    assert (state.sha, state.person) == (setting.repo.ref(BRANCH), None)
    assert state.open_pull is not None and state.open_pull["number"] == pull["number"] and state.closed_pulls == []
    setting.repo.commit({"openwiki/q.md": "# Q\n\nMine.\n"}, branch=BRANCH, author=("Mona", "mona@example.com"))
    assert (await setting.state()).person == "Mona"  # no GitHub user: the commit's name


async def test_a_branch_that_no_longer_shares_history_is_someones(setting: Setting) -> None:
    setting.repo.commit({"x.txt": "x\n"}, branch=BRANCH, orphan=True)
    state = await setting.state()
    assert state.sha == setting.repo.ref(BRANCH)
    assert state.person == "someone (the branch no longer shares history with the code)"


async def test_a_compare_github_refuses_otherwise_is_raised(setting: Setting) -> None:
    setting.repo.commit({"x.txt": "x\n"}, branch=BRANCH)
    setting.fake.fail_next("GET", r"/compare/", 403, body={"message": "Resource not accessible by integration"})
    with pytest.raises(BadRequest):
        await setting.state()


async def test_the_open_and_the_closed_pull_requests_of_the_branch(setting: Setting) -> None:
    setting.repo.commit({"x.txt": "x\n"}, branch=BRANCH)
    first = setting.repo.open_pull(BRANCH, body="first")
    first.update(state="closed")
    second = setting.repo.open_pull(BRANCH, body="second")
    state = await setting.state()
    assert state.open_pull is not None and state.open_pull["number"] == second["number"]
    assert [p["number"] for p in state.closed_pulls] == [first["number"]]


async def test_a_plan_that_writes_nothing_asks_nothing(setting: Setting) -> None:
    pull = {"number": 9}
    before = len(setting.fake.requests)
    assert await setting.publish(BranchState(BRANCH), PublicationPlan("handed-off", pull)) == (
        PublicationPlan("handed-off", pull), pull,
    )  # fmt: skip
    assert len(setting.fake.requests) == before


async def test_a_branch_created_meanwhile_is_a_race(setting: Setting) -> None:
    setting.fake.fail_next("POST", r"/git/refs$", 422, body={"message": "Reference already exists"})
    with pytest.raises(BranchRace) as raised:
        await setting.publish(BranchState(BRANCH), PublicationPlan("opened", None, create_branch=True))
    assert (
        raised.value.name == BRANCH
        and str(raised.value) == f"the branch {BRANCH} was created by someone else meanwhile"
    )
    assert setting.requests("POST", "/pulls") == []  # no pull request for a branch not ours


async def test_a_branch_github_refuses_to_create_otherwise_is_raised(setting: Setting) -> None:
    setting.fake.fail_next("POST", r"/git/refs$", 403, body={"message": "Resource not accessible by integration"})
    with pytest.raises(BadRequest) as raised:
        await setting.publish(BranchState(BRANCH), PublicationPlan("opened", None, create_branch=True))
    assert int(raised.value.status_code) == 403 and not isinstance(raised.value, BranchRace)


async def test_a_pull_request_opened_meanwhile_is_updated(setting: Setting) -> None:
    setting.repo.commit({"x.txt": "x\n"}, branch=BRANCH)
    theirs = setting.repo.open_pull(BRANCH, title="Someone's", body="theirs")
    setting.fake.fail_next("POST", r"/pulls$", 422, body={"message": "A pull request already exists"})
    plan, pull = await setting.publish(BranchState(BRANCH, sha="x"), PublicationPlan("opened", None))
    assert pull is not None and pull["number"] == theirs["number"]
    assert plan == PublicationPlan("updated", pull)
    assert (theirs["title"], theirs["body"]) == ("Fix the wiki", "The fix.")
    assert setting.repo.ref(BRANCH) != setting.fixed and len(setting.repo.pulls) == 1


async def test_a_pull_request_refused_with_none_open_is_raised(setting: Setting) -> None:
    setting.fake.fail_next("POST", r"/pulls$", 422, body={"message": "Validation Failed"})
    with pytest.raises(BadRequest) as raised:
        await setting.publish(BranchState(BRANCH), PublicationPlan("opened", None, create_branch=True))
    assert int(raised.value.status_code) == 422 and setting.repo.pulls == []
    assert setting.requests("GET", "/pulls") == [200]  # looked for one opened meanwhile: none
    setting.fake.fail_next("POST", r"/pulls$", 403, body={"message": "Resource not accessible by integration"})
    with pytest.raises(BadRequest) as raised:
        await setting.publish(BranchState(BRANCH, sha="x"), PublicationPlan("opened", None))
    assert int(raised.value.status_code) == 403
    assert setting.requests("GET", "/pulls") == [200]  # a 403 is never taken for one opened meanwhile


async def test_a_race_is_inspected_again_once(setting: Setting) -> None:
    """The branch appeared between looking and creating it: looked at again, it is someone's (a commit of theirs)."""
    setting.repo.commit({"x.txt": "x\n"}, branch=BRANCH, author=("Mona", "mona@example.com"))
    plan, pull, state = await setting.propose(BranchState(BRANCH, kind=GROUND))
    assert plan.outcome == "handed-off" and pull is None and state.person == "Mona" and state.kind is GROUND
    assert setting.requests("POST", "/git/refs") == [422]  # GitHub said the branch was there


async def test_a_second_race_is_raised(setting: Setting) -> None:
    setting.fake.fail_next("POST", r"/git/refs$", 422, body={"message": "Reference already exists"}, times=2)
    with pytest.raises(BranchRace):
        await setting.propose(BranchState(BRANCH))
    assert setting.requests("POST", "/git/refs") == [422, 422]


async def test_a_branch_that_holds_the_fix_already_is_left_unchanged(setting: Setting) -> None:
    plan, pull, _ = await setting.propose(BranchState(BRANCH))
    assert plan.outcome == "opened" and pull is not None
    again, same, state = await setting.propose(await setting.state())
    assert again.outcome == "unchanged" and same is not None and same["number"] == pull["number"]
    assert state.may_hold_fix and setting.requests("PATCH", f"/git/refs/heads/{BRANCH}") == []
