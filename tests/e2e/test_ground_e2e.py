"""Grounding end to end: signed deliveries to the real App, the fake GitHub holding a repository whose wiki has no
claims, the fake OpenAI-compatible server answering as the model. The assertions are on the check run, the
grounding branch, its commit, the files and the pull request GitHub ends up with."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from apptools import check_payload, deliver, grounded, push_payload, queue_of, runs_of, runtime_of, start_app
from fakegithub import FakeGitHub
from fakeopenai import FakeOpenAI, Reply
from groundtools import DRAIN, FIFO, LIMIT, QUEUE_MD, QUEUE_PY, SETUP_MD, answer, claim
from inertcheck import assert_inert_markdown, assert_inert_plain, visible

from bot.claims import resolve_evidence
from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, parse_sidecar, render_sidecar
from bot.ground.check import claim_id
from bot.okf.frontmatter import Page
from bot.okf.project import ACTOR

WIKI = {"openwiki/queue.md": QUEUE_MD, "openwiki/setup.md": SETUP_MD}
CONFIG = ".github/wikiwarden.yml"
BRANCH = "refs/heads/wikiwarden/ground/main"


GOOD = {
    "openwiki/queue.md": answer(
        claim(FIFO, "`TaskQueue` in `src/taskq/queue.py` keeps tasks first in, first out.", "repo://src/taskq/queue.py#L6-L19"),
        claim(LIMIT, "A queue holds at most 100 items;", "repo://src/taskq/queue.py#L3"),
        claim(DRAIN, "`drain()` empties the queue and returns\n what it held.", "repo://src/taskq/queue.py#L17-L19"),
    ),
    "openwiki/setup.md": answer(),  # states nothing the code shows
}  # fmt: skip


def answering(plan: dict[str, dict[str, Any]]):
    """The model: answers each page's prompt from `plan` (page → answer)."""

    def respond(body: dict[str, Any]) -> Reply:
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return Reply.json(plan[re.search(r"^Page: (\S+)$", prompt, re.M)[1]])

    return respond


def asked(fake_openai: FakeOpenAI) -> list[str]:
    """The pages the model was asked about, in order (each conversation's first prompt)."""
    pages = []
    for request in fake_openai.requests:
        prompt = next(m["content"] for m in request["messages"] if m["role"] == "user")
        pages.append(re.search(r"^Page: (\S+)$", prompt, re.M)[1])
    return pages


def make_repo(fake: FakeGitHub, config: str | None = None, wiki: dict[str, str] = WIKI, name: str = "widgets"):
    repo = fake.create_repo("acme", name, 77)
    repo.base = repo.commit({"src/taskq/queue.py": QUEUE_PY}, message="code")
    files: dict[str, str] = dict(wiki)
    if config is not None:
        files[CONFIG] = config
    repo.head = repo.commit(files, message="a wiki without claims")
    return repo


@pytest.fixture
def repo(fake: FakeGitHub):
    return make_repo(fake)


async def start(aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI | None, **overrides: Any):
    if fake_openai is not None:
        overrides = {
            "openai_base_url": fake_openai.base_url, "openai_api_key": fake_openai.api_key, "model": "test-model",
            "model_max_retries": 0, "model_timeout_seconds": 5, **overrides,
        }  # fmt: skip
    return await start_app(aiohttp_client, fake, **overrides)


async def push(app, fake: FakeGitHub, repo, before: str, after: str) -> None:
    await deliver(app, "push", push_payload(repo, before=before, after=after), secret=fake.webhook_secret)
    await queue_of(app).wait_idle()


async def press(app, fake: FakeGitHub, repo, head: str, identifier: str = "ground_wiki", **fields: Any) -> dict:
    """Press a button of the check run on `head` (the App's own run)."""
    [run] = runs_of(repo, head)
    payload = check_payload(
        "check_run", "requested_action", repo, head_sha=head, run_id=run["id"], identifier=identifier, **fields
    )
    status, body = await deliver(app, "check_run", payload, secret=fake.webhook_secret)
    assert status == 202, body
    await queue_of(app).wait_idle()
    return run


def ground_pulls(repo, branch: str = "main") -> list[dict]:
    return [p for p in repo.pulls if p["head"]["ref"] == f"wikiwarden/ground/{branch}"]


def committed_at(repo, sha: str) -> str:
    """The commit's committer date as the grounding stamps it (toISOString)."""
    seconds = repo.store.read_commit(sha).committer.timestamp
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def changed(repo, before: str, after: str) -> dict[str, bytes]:
    old, new = repo.files_at(before), repo.files_at(after)
    return {path: data for path, data in new.items() if old.get(path) != data}


def records(*resources: str) -> tuple[EvidenceRecord, ...]:
    """Evidence as OpenWiki's own resolver anchors it in the code: the versions grounding must compute."""
    found = [resolve_evidence(r, QUEUE_PY.encode()) for r in resources]
    return tuple(EvidenceRecord(f.resource, f.version) for f in found)


def quotes_file(quotes: dict[str, str], page: bytes) -> bytes:
    import json

    document = {"schemaVersion": 1, "quotes": dict(sorted(quotes.items())), "groundedPage": page_version(page)}
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


# -- the button, the pull request, the files -------------------------------------------------------------------


async def test_an_ungrounded_wiki_gets_the_button_then_a_grounding_pull_request_with_exactly_the_expected_files(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI, repo
) -> None:
    fake_openai.responder = answering(GOOD)
    app = await start(aiohttp_client, fake, fake_openai)
    await push(app, fake, repo, repo.base, repo.head)

    [run] = runs_of(repo, repo.head)
    assert [a["identifier"] for a in run["actions"]] == ["ground_wiki"]
    assert run["conclusion"] == "success"
    assert run["output"]["title"] == "No wiki claim cites what this change touched · 2 pages without claims"
    assert "### Pages without claims (2)\n\n- `openwiki/queue.md`\n- `openwiki/setup.md`\n" in run["output"]["summary"]
    assert ground_pulls(repo) == [] and fake_openai.requests == []  # the button asks; nothing happens before

    await press(app, fake, repo, repo.head)

    [pull] = ground_pulls(repo)
    assert pull["state"] == "open" and pull["base"]["ref"] == "main" and pull["user"]["login"] == fake.bot_login
    sha = repo.refs[BRANCH]
    assert repo.store.read_commit(sha).parents == (repo.head,) and sha in repo.signed_commits
    files = changed(repo, repo.head, sha)
    assert sorted(files) == [
        "openwiki/.claims/queue.json",
        "openwiki/.wikiwarden/quotes/queue.json",
        "openwiki/.wikiwarden/quotes/setup.json",
        "openwiki/queue.md",
    ]
    at = committed_at(repo, repo.head)

    # the page: its prose as it was, OKF sources projected from the claims, verified (every claim grounded)
    page = Page.parse(files["openwiki/queue.md"].decode())
    assert page.body == Page.parse(QUEUE_MD).body
    fields = page.fields()
    assert [s["resource"] for s in fields["sources"]] == ["repo://src/taskq/queue.py"]
    assert fields["verified"] == [{"by": ACTOR, "at": at}]
    assert fields["title"] == "The queue" and "generated" not in fields  # the body did not change

    # the sidecar, byte for byte as OpenWiki writes it: deterministic ids, versions computed from the code
    ids = [claim_id("openwiki/queue.md", s, ()) for s in (FIFO, LIMIT, DRAIN)]
    expected = Sidecar(
        page_version(files["openwiki/queue.md"]),
        (
            Claim(ids[0], FIFO, records("repo://src/taskq/queue.py#L6-L19")),
            Claim(ids[1], LIMIT, records("repo://src/taskq/queue.py#L3")),
            Claim(ids[2], DRAIN, records("repo://src/taskq/queue.py#L17-L19")),
        ),
        None,  # the sidecar's `verification` is OpenWiki's record; Wikiwarden's word is the page's `verified`
    )
    assert files["openwiki/.claims/queue.json"] == render_sidecar(expected)
    quotes = dict(zip(ids, [c["quote"] for c in GOOD["openwiki/queue.md"]["claims"]], strict=True))
    assert files["openwiki/.wikiwarden/quotes/queue.json"] == quotes_file(quotes, files["openwiki/queue.md"])
    # setup.md states nothing the code shows: no sidecar, and not asked about again until it changes
    assert files["openwiki/.wikiwarden/quotes/setup.json"] == quotes_file({}, SETUP_MD.encode())

    # the body lists every page; the check run links to the pull request
    body = pull["body"]
    assert body.startswith("<!-- wikiwarden:ground since=none change=")
    assert "## Wikiwarden: grounding the wiki of `main`\n\n2 pages, 3 claims added.\n" in body
    assert f"- [x] **added** “{FIFO}” · `{ids[0]}`" in body
    assert (
        "  Quote: “\\`TaskQueue\\` in \\`src/taskq/queue.py\\` keeps tasks first in, first out.”. Evidence: "
        f"`repo://src/taskq/queue.py#L6-L19` ([now](https://github.com/acme/widgets/blob/{repo.head}/src/taskq/queue.py#L6-L19))"
    ) in body
    assert "### `openwiki/setup.md`\n\nNothing to claim: the page states nothing the code shows" in body
    assert "Model: `test-model`" in body and "in 2 calls" in body
    assert pull["title"] == f"Wiki grounding of main {repo.head[:7]}: 2 pages, 3 claims added"
    assert run["details_url"] == f"https://github.com/acme/widgets/pull/{pull['number']}"
    assert (
        f"> **Grounding:** Grounding pull request #{pull['number']} opened: 2 pages, 3 claims added."
        in (run["output"]["summary"])
    )
    assert asked(fake_openai) == ["openwiki/queue.md", "openwiki/setup.md"]
    # the same token budget as the fix: the repository's day counts what grounding spent
    spent = fake_openai.usage["prompt_tokens"] + fake_openai.usage["completion_tokens"]
    assert await runtime_of(app).agents.ledger.spent("acme/widgets") == spent > 0


async def test_a_second_run_changes_nothing_and_pays_for_nothing(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI, repo
) -> None:
    fake_openai.responder = answering(GOOD)
    app = await start(aiohttp_client, fake, fake_openai)
    await push(app, fake, repo, repo.base, repo.head)
    await press(app, fake, repo, repo.head)
    sha, [pull] = repo.refs[BRANCH], ground_pulls(repo)
    writes = len([r for r in fake.requests if r.method in ("POST", "PATCH") and "/git/" in r.path])
    updated, calls = pull["updated_at"], len(fake_openai.requests)

    run = await press(app, fake, repo, repo.head)

    assert repo.refs[BRANCH] == sha and ground_pulls(repo) == [pull] and pull["updated_at"] == updated
    assert len([r for r in fake.requests if r.method in ("POST", "PATCH") and "/git/" in r.path]) == writes
    assert len(fake_openai.requests) == calls  # the accepted answers were reused
    assert (
        f"Grounding pull request #{pull['number']} already holds this grounding: 2 pages, 3 claims added."
        in (run["output"]["summary"])
    )
    assert run["output"]["summary"].count("<!-- wikiwarden:ground-note -->") == 1  # the note replaced, not piled up


async def test_answers_the_checks_refuse_are_listed_in_the_body_and_not_written(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI, repo
) -> None:
    invented = claim("The queue is thread-safe.", "The queue is thread-safe.", "repo://src/taskq/queue.py#L6-L19")
    unvouched = claim(
        "`clear()` empties the queue.", "`drain()` empties the queue", "repo://src/taskq/queue.py#L12-L15"
    )
    fine = claim(FIFO, "keeps tasks first in, first out.", "repo://src/taskq/queue.py#L6-L19")
    plan = {"openwiki/queue.md": answer(invented, unvouched, fine), "openwiki/setup.md": answer()}
    fake_openai.responder = answering(plan)
    app = await start(aiohttp_client, fake, fake_openai)
    await push(app, fake, repo, repo.base, repo.head)
    run = await press(app, fake, repo, repo.head)

    assert asked(fake_openai) == ["openwiki/queue.md", "openwiki/queue.md", "openwiki/setup.md"]  # sent back once
    [pull] = ground_pulls(repo)
    files = changed(repo, repo.head, repo.refs[BRANCH])
    sidecar = parse_sidecar(files["openwiki/.claims/queue.json"], "queue.json")
    assert [c.statement for c in sidecar.claims] == [FIFO]  # only what passed is written
    assert sidecar.verification is None  # not every statement of the page holds
    assert "verified" not in Page.parse(files["openwiki/queue.md"].decode()).fields()
    body = pull["body"]
    assert (
        "- [ ] **refused** “The queue is thread-safe.”: its quote is not text of the page body (copy it verbatim)"
    ) in body
    assert (
        "- [ ] **refused** “\\`clear()\\` empties the queue.”: the statement quotes \\`clear()\\`, which its "
        "evidence does not contain"
    ) in body
    assert "2 pages, 1 claim added, 2 claims refused" in body
    assert "2 statements need a person." in run["output"]["summary"]


async def test_a_page_whose_answer_was_refused_is_not_taken_as_read_and_is_offered_again(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI, repo
) -> None:
    def respond(body: dict[str, Any]) -> Reply:  # setup.md's answer is not JSON, twice
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if "Page: openwiki/setup.md" in prompt:
            return Reply("Nothing to claim here.")
        return Reply.json(GOOD["openwiki/queue.md"])

    fake_openai.responder = respond
    app = await start(aiohttp_client, fake, fake_openai)
    await push(app, fake, repo, repo.base, repo.head)
    run = await press(app, fake, repo, repo.head)

    assert asked(fake_openai) == ["openwiki/queue.md", "openwiki/setup.md", "openwiki/setup.md"]
    [pull] = ground_pulls(repo)
    files = changed(repo, repo.head, repo.refs[BRANCH])
    assert "openwiki/.wikiwarden/quotes/setup.json" not in files  # not read whole: no groundedPage
    assert "its answer was refused twice: the answer is not the required JSON" in pull["body"]
    assert "Nothing to claim: the page states nothing the code shows" not in pull["body"]
    assert "3 claims added, 1 page not grounded. 1 page was not grounded." in run["output"]["summary"]

    # merged: setup.md still has no claims and was never read whole, so the next check offers it again
    merge = repo.merge_pull(pull["number"])
    await push(app, fake, repo, repo.head, merge)
    [after] = runs_of(repo, merge)
    assert [a["identifier"] for a in after["actions"]] == ["ground_wiki"]
    assert "### Pages without claims (1)\n\n- `openwiki/setup.md`\n" in after["output"]["summary"]


async def test_a_statement_the_code_contradicts_is_corrected_and_one_it_cannot_show_left_for_a_person(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    repo = make_repo(fake, wiki={"openwiki/queue.md": QUEUE_MD.replace("at most 100 items", "at most 50 items")})
    plan = {
        "openwiki/queue.md": answer(
            claim(LIMIT, "A queue holds at most 100 items;", "repo://src/taskq/queue.py#L3"),
            edits=[{"file": "openwiki/queue.md", "search": "at most 50 items", "replace": "at most 100 items"}],
            unsupported=[{"quote": "`drain()` empties the queue", "reason": "@octocat says so, closes #1"}],
        )
    }
    fake_openai.responder = answering(plan)
    app = await start(aiohttp_client, fake, fake_openai)
    await push(app, fake, repo, repo.base, repo.head)
    await press(app, fake, repo, repo.head)

    [pull] = ground_pulls(repo)
    page = changed(repo, repo.head, repo.refs[BRANCH])["openwiki/queue.md"].decode()
    assert "A queue holds at most 100 items; `push()` raises" in page
    fields = Page.parse(page).fields()
    assert fields["generated"] == {"by": ACTOR, "at": committed_at(repo, repo.head)}  # the prose changed
    assert "verified" not in fields  # a statement is left unsupported
    body = assert_inert_markdown(
        pull["body"],
        html=r"<!-- wikiwarden:ground since=none change=\w+ -->|<details><summary>what changed</summary>|</details>",
        links=r"https://github\.com/acme/widgets/blob/\w+/src/taskq/queue\.py#L3-L3",
    )
    assert "- [x] **corrected**: the prose now says what the code shows" in pull["body"]
    assert "-A queue holds at most 50 items; `push()` raises `OverflowError` beyond that." in pull["body"]
    assert "+A queue holds at most 100 items; `push()` raises `OverflowError` beyond that." in pull["body"]
    assert "unsupported" in body.strong and "@octocat says so, closes #1" in visible(" ".join(body.texts))


# -- batches ---------------------------------------------------------------------------------------------------


async def test_a_batch_limited_run_continues_on_the_next_in_the_same_pull_request(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    repo = make_repo(fake, config="limits: {max_pages_per_ground: 1}\n")
    fake_openai.responder = answering(GOOD)
    app = await start(aiohttp_client, fake, fake_openai)
    await push(app, fake, repo, repo.base, repo.head)
    run = await press(app, fake, repo, repo.head)

    [pull] = ground_pulls(repo)
    assert sorted(changed(repo, repo.head, repo.refs[BRANCH])) == [
        "openwiki/.claims/queue.json", "openwiki/.wikiwarden/quotes/queue.json", "openwiki/queue.md",
    ]  # fmt: skip
    assert asked(fake_openai) == ["openwiki/queue.md"]
    assert "1 more page without claims waits for the next run" in pull["body"]
    assert "1 more page without claims waits for the next run." in run["output"]["summary"]
    first = repo.files_at(repo.refs[BRANCH])

    await press(app, fake, repo, repo.head)  # the next batch, in the same pull request

    assert ground_pulls(repo) == [pull] and pull["state"] == "open"
    assert asked(fake_openai) == ["openwiki/queue.md", "openwiki/setup.md"]  # queue.md's answer was reused
    files = repo.files_at(repo.refs[BRANCH])
    assert repo.store.read_commit(repo.refs[BRANCH]).parents == (repo.head,)
    for path in ("openwiki/.claims/queue.json", "openwiki/.wikiwarden/quotes/queue.json", "openwiki/queue.md"):
        assert files[path] == first[path]  # the first batch is kept as it was
    assert "openwiki/.wikiwarden/quotes/setup.json" in files
    assert "### `openwiki/queue.md`" in pull["body"] and "### `openwiki/setup.md`" in pull["body"]
    assert "waits for the next run" not in pull["body"] and "1 page reused earlier answers" in pull["body"]

    # merged: the wiki is grounded, and the next check offers nothing more to ground
    merge = repo.merge_pull(pull["number"])
    await push(app, fake, repo, repo.head, merge)
    [after] = runs_of(repo, merge)
    assert after["actions"] == [] and "Pages without claims" not in after["output"]["summary"]
    assert after["output"]["title"] == "All 3 affected claims hold"  # the new claims are checked


async def test_ground_auto_opens_the_pull_request_after_a_push_to_the_default_branch(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    repo = make_repo(fake, config="ground: auto\nlimits: {max_pages_per_ground: 1}\n")
    fake_openai.responder = answering(GOOD)
    app = await start(aiohttp_client, fake, fake_openai)
    await push(app, fake, repo, repo.base, repo.head)

    [pull] = ground_pulls(repo)
    assert asked(fake_openai) == ["openwiki/queue.md"]
    [run] = runs_of(repo, repo.head)
    assert f"Grounding pull request #{pull['number']} opened" in run["output"]["summary"]
    # a push that changes code only: the same pull request takes the next batch
    later = repo.commit({"README.md": "hello\n"}, message="docs")
    await push(app, fake, repo, repo.head, later)
    assert ground_pulls(repo) == [pull] and repo.store.read_commit(repo.refs[BRANCH]).parents == (later,)
    assert asked(fake_openai) == ["openwiki/queue.md", "openwiki/setup.md"]
    # a push to another branch grounds nothing by itself
    feature = repo.commit({"README.md": "hi\n"}, branch="feature", message="feature")
    await push(app, fake, repo, later, feature)
    assert len(fake_openai.requests) == 2 and ground_pulls(repo, "feature") == []


async def test_ground_off_offers_no_button_and_the_job_says_so(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    repo = make_repo(fake, config="ground: off\n")
    app = await start(aiohttp_client, fake, fake_openai)
    await push(app, fake, repo, repo.base, repo.head)
    [run] = runs_of(repo, repo.head)
    assert run["actions"] == [] and "`ground: off`" in run["output"]["summary"]
    await press(app, fake, repo, repo.head)  # an old run's button, pressed after the repository turned it off
    assert "No grounding: `ground` is off in .github/wikiwarden.yml." in run["output"]["summary"]
    assert ground_pulls(repo) == [] and fake_openai.requests == []


async def test_without_a_model_nothing_is_proposed_and_the_check_run_says_why(
    aiohttp_client, fake: FakeGitHub, repo
) -> None:
    app = await start(aiohttp_client, fake, None)
    await push(app, fake, repo, repo.base, repo.head)
    reads = len([r for r in fake.requests if r.path.endswith("/graphql") or "/git/blobs/" in r.path])
    run = await press(app, fake, repo, repo.head)
    assert ground_pulls(repo) == [] and not [r for r in repo.refs if r.startswith("refs/heads/wikiwarden/")]
    assert "No grounding: the App has no model configured (`WIKIWARDEN_MODEL`)." in run["output"]["summary"]
    # no file read: no symbol index is built for nothing
    assert len([r for r in fake.requests if r.path.endswith("/graphql") or "/git/blobs/" in r.path]) == reads


# -- the fix's rules: ownership, declines, forks, pull requests -------------------------------------------------


async def test_a_persons_commit_on_the_grounding_branch_is_respected(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI, repo
) -> None:
    fake_openai.responder = answering(GOOD)
    app = await start(aiohttp_client, fake, fake_openai)
    await push(app, fake, repo, repo.base, repo.head)
    await press(app, fake, repo, repo.head)
    fake.add_user("alice", "alice@example.com")
    theirs = repo.commit(
        {"openwiki/setup.md": SETUP_MD + "\nMore.\n"}, branch="wikiwarden/ground/main", author=("Alice", "alice@example.com")
    )  # fmt: skip
    calls = len(fake_openai.requests)

    run = await press(app, fake, repo, repo.head)
    assert repo.refs[BRANCH] == theirs and len(fake_openai.requests) == calls
    assert "has commits by alice, so Wikiwarden no longer updates it" in run["output"]["summary"]
    assert "will propose groundings again" in run["output"]["summary"]


async def test_a_grounding_closed_without_merging_is_not_proposed_again(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI, repo
) -> None:
    fake_openai.responder = answering(GOOD)
    app = await start(aiohttp_client, fake, fake_openai)
    await push(app, fake, repo, repo.base, repo.head)
    await press(app, fake, repo, repo.head)
    [pull] = ground_pulls(repo)
    pull.update(state="closed", closed_at="2026-11-29T00:00:00Z")  # a person closed it without merging
    sha = repo.refs[BRANCH]

    run = await press(app, fake, repo, repo.head)
    assert ground_pulls(repo) == [pull] and pull["state"] == "closed" and repo.refs[BRANCH] == sha
    assert (
        f"This very grounding was proposed in #{pull['number']} and closed without merging"
        in (run["output"]["summary"])
    )


async def test_the_ground_wiki_button_on_a_pull_request_stacks_the_grounding_onto_its_branch(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    repo = fake.create_repo("acme", "widgets", 77)
    repo.base = repo.commit({"src/taskq/queue.py": QUEUE_PY}, message="code")
    head = repo.commit({"openwiki/queue.md": QUEUE_MD}, branch="docs", message="a page")
    feature = repo.open_pull("docs")
    fake_openai.responder = answering(GOOD)
    app = await start(aiohttp_client, fake, fake_openai)
    run = repo.add_check_run("Wikiwarden", head, conclusion="success", output={"title": "t", "summary": "s"})
    payload = check_payload(
        "check_run", "requested_action", repo, head_sha=head, run_id=run["id"], identifier="ground_wiki", pull=feature
    )
    status, body = await deliver(app, "check_run", payload, secret=fake.webhook_secret)
    await queue_of(app).wait_idle()

    assert (status, body["jobs"]) == (202, ["ground"])
    [pull] = ground_pulls(repo, "docs")
    assert pull["base"]["ref"] == "docs"
    assert repo.store.read_commit(repo.refs["refs/heads/wikiwarden/ground/docs"]).parents == (head,)
    assert run["output"]["summary"].endswith("s") and "Grounding pull request" in run["output"]["summary"]


async def test_the_ground_wiki_button_on_a_fork_explains_instead(aiohttp_client, fake: FakeGitHub, repo) -> None:
    app = await start(aiohttp_client, fake, None)
    head = repo.commit_tree({"openwiki/more.md": "# More\n"}, [repo.head], message="from a fork")
    run = repo.add_check_run("Wikiwarden", head, conclusion="success", output={"title": "t", "summary": "s"})
    payload = check_payload(
        "check_run", "requested_action", repo, head_sha=head, run_id=run["id"], identifier="ground_wiki", branch=None
    )
    await deliver(app, "check_run", payload, secret=fake.webhook_secret)
    await queue_of(app).wait_idle()
    assert (
        "comes from a fork: Wikiwarden cannot push to a fork's branch, so it proposes no grounding"
        in (run["output"]["summary"])
    )
    assert not [r for r in repo.refs if r.startswith("refs/heads/wikiwarden/")]


# -- what grounding writes on GitHub is inert ---------------------------------------------------------------------

HOSTILE_BRANCH = "docs`@acme/core`</details>#1|<b>&x"
HOSTILE_PAGE = "openwiki/@octocat closes #2.md"
HOSTILE_TEXT = "# Queue\n\n`TaskQueue` keeps tasks first in, first out: ask @octocat, fixes #3 <img src=x>.\n"
HOSTILE_STATEMENT = "`TaskQueue` keeps tasks first in, first out (@octocat, closes #4 <b>|**x**)."


async def test_a_grounding_of_a_hostile_page_on_a_hostile_branch_writes_only_inert_text(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    repo = fake.create_repo("acme", "hostile", 77)
    repo.commit({"src/taskq/queue.py": QUEUE_PY}, message="code")
    head = repo.commit({HOSTILE_PAGE: HOSTILE_TEXT}, branch=HOSTILE_BRANCH, message="a hostile page")
    feature = repo.open_pull(HOSTILE_BRANCH)
    plan = {
        HOSTILE_PAGE: answer(
            claim(HOSTILE_STATEMENT, "`TaskQueue` keeps tasks first in, first out", "repo://src/taskq/queue.py#L6-L19"),
            claim("closes #5 @octocat", "ask @octocat, fixes #3", "repo://src/taskq/queue.py#L6-L19"),
        )
    }  # fmt: skip
    fake_openai.responder = lambda body: Reply.json(plan[HOSTILE_PAGE])  # the page name has spaces: no regex
    app = await start(aiohttp_client, fake, fake_openai)
    run = repo.add_check_run("Wikiwarden", head, conclusion="success", output={"title": "t", "summary": "s"})
    payload = check_payload(
        "check_run", "requested_action", repo, head_sha=head, run_id=run["id"], identifier="ground_wiki", pull=feature
    )
    await deliver(app, "check_run", payload, secret=fake.webhook_secret)
    await queue_of(app).wait_idle()

    [pull] = [p for p in repo.pulls if p["head"]["ref"] == f"wikiwarden/ground/{HOSTILE_BRANCH}"]
    assert_inert_plain(pull["title"])
    assert visible(pull["title"]).startswith(f"Wiki grounding of {HOSTILE_BRANCH} ")
    assert_inert_plain(repo.store.read_commit(repo.refs[f"refs/heads/wikiwarden/ground/{HOSTILE_BRANCH}"]).message)
    blob = r"https://github\.com/acme/hostile/blob/[0-9a-f]{40}/src/taskq/queue\.py#L6-L19"
    body = assert_inert_markdown(pull["body"], html=r"<!-- wikiwarden:ground since=none change=\w+ -->", links=blob)
    assert [visible(h) for h in body.headings] == [f"Wikiwarden: grounding the wiki of {HOSTILE_BRANCH}", HOSTILE_PAGE]
    assert HOSTILE_BRANCH in [visible(c) for c in body.codes] and HOSTILE_PAGE in [visible(c) for c in body.codes]
    texts = visible("".join(body.texts))
    assert f"“{HOSTILE_STATEMENT}”" in texts
    summary = run["output"]["summary"]
    assert_inert_markdown(
        summary, html=r"<!-- /?wikiwarden:ground-note -->",
        links=rf"https://github\.com/acme/hostile/pull/{pull['number']}", trusted=[f"#{pull['number']}"],
    )  # fmt: skip


async def test_auto_fix_and_auto_ground_after_one_push_both_say_so_on_the_check_run(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    repo = fake.create_repo("acme", "widgets", 77)
    files = grounded({"src/taskq/queue.py": QUEUE_PY}, {"limit.md": [(LIMIT, ["repo://src/taskq/queue.py#L3"])]})
    repo.base = repo.commit({**files, **WIKI, CONFIG: "auto_fix: true\nground: auto\n"}, message="a wiki")
    head = repo.commit({"src/taskq/queue.py": QUEUE_PY.replace("MAX_ITEMS = 100", "MAX_ITEMS = 50")}, message="50")
    fix = {"claims": [], "edits": []}

    def respond(body: dict[str, Any]) -> Reply:
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        page = re.search(r"^Page: (\S+)$", prompt, re.M)[1]
        if page == "openwiki/limit.md":
            claim_id_ = re.search(r"^claim (claim_[0-9a-f]{32}):", prompt, re.M)[1]
            decision = {"id": claim_id_, "action": "retract", "statement": None, "evidence": None, "reason": "50 now"}
            return Reply.json({**fix, "claims": [decision]})
        return Reply.json(GOOD[page])

    fake_openai.responder = respond
    app = await start(aiohttp_client, fake, fake_openai)
    await push(app, fake, repo, repo.base, head)

    [run] = runs_of(repo, head)
    [fixing] = [p for p in repo.pulls if p["head"]["ref"] == "wikiwarden/fix/main"]
    [grounding] = ground_pulls(repo)
    summary = run["output"]["summary"]
    assert f"> **Fix:** Fix pull request #{fixing['number']} opened" in summary
    assert f"> **Grounding:** Grounding pull request #{grounding['number']} opened" in summary


# -- the check run: references to code that is gone -------------------------------------------------------------


async def test_a_push_removing_or_renaming_what_a_page_names_is_annotated_on_the_check_run(
    aiohttp_client, fake: FakeGitHub, repo
) -> None:
    app = await start(aiohttp_client, fake, None)
    await push(app, fake, repo, repo.base, repo.head)
    renamed = repo.commit({"src/taskq/queue.py": QUEUE_PY.replace("def drain(self)", "def flush(self)")}, message="r")
    await push(app, fake, repo, repo.head, renamed)

    [run] = runs_of(repo, renamed)
    assert run["conclusion"] == "neutral"
    assert run["output"]["title"] == "1 broken reference · 2 pages without claims"
    [note] = run["annotations"]
    assert (note["path"], note["start_line"], note["title"]) == (
        "src/taskq/queue.py", 17, "Wiki reference broken: openwiki/queue.md"
    )  # fmt: skip
    assert note["message"] == (
        "`openwiki/queue.md` mentions `drain()`, renamed to `TaskQueue.flush` here (line 10 of the page)."
    )
    assert "`drain()`" in run["output"]["summary"] and "`openwiki/queue.md`" in run["output"]["summary"]

    without_drain = QUEUE_PY.partition("    def drain")[0]
    removed = repo.commit({"src/taskq/queue.py": without_drain}, message="no drain")
    await push(app, fake, repo, repo.head, removed)
    [run] = runs_of(repo, removed)
    [note] = run["annotations"]
    assert note["path"] == "src/taskq/queue.py" and note["message"].endswith(", removed here (line 10 of the page).")
    assert note["start_line"] <= without_drain.count("\n")  # within what is left of the file
