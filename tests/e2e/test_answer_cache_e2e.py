"""The answers the App pays for are its tenants' own: end to end, two installations on the fake GitHub, one App, one
model (the fake OpenAI counting the calls). An answer is reused only for the repository it was paid for and only while
the code it was about is the same: another installation's copy of a public page, with other code behind it, gets its
own answer, never the first one's claims and prose."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from apptools import check_payload, deliver, grounded, push_payload, queue_of, runs_of, start_app
from fakegithub import FakeGitHub
from fakeopenai import FakeOpenAI, Reply
from fixrepo import CLAIMS, GOOD, POOL, POOL_PAGE, RETRY, RETRY_NOW, RETRY_PAGE, model_answer
from groundtools import DRAIN, FIFO, LIMIT, QUEUE_MD, QUEUE_PY, answer, claim

CONFIG = ".github/wikiwarden.yml"
ATTACKER = "mallory.example"
GROUND_BRANCH = "refs/heads/wikiwarden/ground/main"
FIX_BRANCH = "refs/heads/wikiwarden/fix/main"


@pytest.fixture
def fake(fake_github: FakeGitHub) -> FakeGitHub:
    fake_github.add_installation(77, "acme")  # the victim
    fake_github.add_installation(88, "mallory")  # another tenant of the same App
    return fake_github


async def start(aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI):
    return await start_app(
        aiohttp_client, fake, openai_base_url=fake_openai.base_url, openai_api_key=fake_openai.api_key,
        model="test-model", model_max_retries=0, model_timeout_seconds=5,
    )  # fmt: skip


async def push(app, fake: FakeGitHub, repo, before: str, after: str) -> None:
    await deliver(app, "push", push_payload(repo, before=before, after=after), secret=fake.webhook_secret)
    await queue_of(app).wait_idle()


async def press(app, fake: FakeGitHub, repo, head: str, identifier: str) -> None:
    [run] = runs_of(repo, head)
    payload = check_payload(
        "check_run", "requested_action", repo, head_sha=head, run_id=run["id"], identifier=identifier
    )
    status, body = await deliver(app, "check_run", payload, secret=fake.webhook_secret)
    assert status == 202, body
    await queue_of(app).wait_idle()


def changed(repo, before: str, after: str) -> dict[str, bytes]:
    old, new = repo.files_at(before), repo.files_at(after)
    return {path: data for path, data in new.items() if old.get(path) != data}


def first_then(first: Callable[[dict[str, Any]], Reply], then: Callable[[dict[str, Any]], Reply]):
    """The model: `first` answers the first request (the first tenant's page), `then` every later one."""
    asked: list[dict[str, Any]] = []

    def respond(body: dict[str, Any]) -> Reply:
        asked.append(body)
        return first(body) if len(asked) == 1 else then(body)

    return respond


# -- grounding ---------------------------------------------------------------------------------------------------

# The attacker's copy of the victim's public page, over code of its own: the same definitions on the same lines,
# so the page's candidate evidence is the same list of resources; what the lines hold is not.
MALLORY_PY = QUEUE_PY.replace('"""First in, first out."""', '"""First in, first out; see mallory.example."""')
# What the attacker's model says about its own repository: a claim, and a prose edit the checks accept there.
ATTACK = answer(
    claim(FIFO, "`TaskQueue` in `src/taskq/queue.py` keeps tasks first in, first out.", "repo://src/taskq/queue.py#L6-L19"),
    edits=[{"file": "openwiki/queue.md", "search": "returns what it held.", "replace": f"returns what it held; report bugs to {ATTACKER}."}],
)  # fmt: skip
OWN = answer(
    claim(LIMIT, "A queue holds at most 100 items;", "repo://src/taskq/queue.py#L3"),
    claim(DRAIN, "`drain()` empties the queue and returns what it held.", "repo://src/taskq/queue.py#L17-L19"),
)


def ungrounded(fake: FakeGitHub, owner: str, installation: int, code: str):
    repo = fake.create_repo(owner, "widgets", installation)
    repo.base = repo.commit({"src/taskq/queue.py": code}, message="code")
    repo.head = repo.commit({"openwiki/queue.md": QUEUE_MD}, message="a page without claims")
    return repo


async def test_a_grounding_answer_is_never_reused_for_another_repository_and_only_while_its_code_is_the_same(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    mallory = ungrounded(fake, "mallory", 88, MALLORY_PY)
    victim = ungrounded(fake, "acme", 77, QUEUE_PY)
    fake_openai.responder = first_then(lambda body: Reply.json(ATTACK), lambda body: Reply.json(OWN))
    app = await start(aiohttp_client, fake, fake_openai)

    await push(app, fake, mallory, mallory.base, mallory.head)
    await press(app, fake, mallory, mallory.head, "ground_wiki")
    assert len(fake_openai.requests) == 1
    assert ATTACKER in changed(mallory, mallory.head, mallory.refs[GROUND_BRANCH])["openwiki/queue.md"].decode()

    await push(app, fake, victim, victim.base, victim.head)
    await press(app, fake, victim, victim.head, "ground_wiki")

    assert len(fake_openai.requests) == 2  # the victim paid for its own answer
    files = changed(victim, victim.head, victim.refs[GROUND_BRANCH])
    assert all(ATTACKER.encode() not in data for data in files.values())
    [pull] = [p for p in victim.pulls if p["head"]["ref"] == "wikiwarden/ground/main"]
    assert ATTACKER not in pull["body"] and FIFO not in pull["body"]  # none of the attacker's claims or prose
    assert LIMIT in pull["body"] and "empties the queue and returns what it held." in pull["body"]  # its own

    # the same repository and the same code: the answer it paid for is reused
    await press(app, fake, victim, victim.head, "ground_wiki")
    assert len(fake_openai.requests) == 2

    # the same repository, the same page and candidates, other contents in the candidates' lines: asked again
    later = victim.commit({"src/taskq/queue.py": QUEUE_PY.replace("First in, first out.", "Oldest first.")})
    await push(app, fake, victim, victim.head, later)
    await press(app, fake, victim, later, "ground_wiki")
    assert len(fake_openai.requests) == 3


# -- the fix -------------------------------------------------------------------------------------------------------

HIJACK = {
    **GOOD,
    "A failing task is tried 3 times.": {
        "action": "update",
        "statement": "A failing task is tried 5 times.",
        "edits": [("tried 3 times.", f"tried 5 times; report failures to {ATTACKER}.")],
    },
}


def wiki_repo(fake: FakeGitHub, owner: str, installation: int):
    repo = fake.create_repo(owner, "widgets", installation)
    files = grounded({"src/retry.py": RETRY, "src/pool.py": POOL}, CLAIMS, texts={"retry.md": RETRY_PAGE, "pool.md": POOL_PAGE})
    files[CONFIG] = b"auto_fix: true\n"
    repo.base = repo.commit(files, message="code and wiki")
    return repo


async def test_a_fix_answer_is_never_reused_for_another_repository(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    # The attacker copies the victim's public repository and makes the same change: the same page, the same claims,
    # the same evidence before and after. Its model's answer hides a line of its own in the prose.
    mallory, victim = wiki_repo(fake, "mallory", 88), wiki_repo(fake, "acme", 77)
    fake_openai.responder = first_then(lambda body: model_answer(body, HIJACK), lambda body: model_answer(body, GOOD))
    app = await start(aiohttp_client, fake, fake_openai)

    head = mallory.commit({"src/retry.py": RETRY_NOW}, message="retry harder")
    await push(app, fake, mallory, mallory.base, head)
    assert len(fake_openai.requests) == 1
    assert ATTACKER in mallory.files_at(mallory.refs[FIX_BRANCH])["openwiki/retry.md"].decode()

    head = victim.commit({"src/retry.py": RETRY_NOW}, message="retry harder")
    await push(app, fake, victim, victim.base, head)

    assert len(fake_openai.requests) == 2  # the victim paid for its own answer
    fixed = victim.files_at(victim.refs[FIX_BRANCH])
    assert ATTACKER not in fixed["openwiki/retry.md"].decode()
    assert "A failing task is tried 5 times. The wait doubles after each retry." in fixed["openwiki/retry.md"].decode()
    [pull] = [p for p in victim.pulls if p["head"]["ref"] == "wikiwarden/fix/main"]
    assert ATTACKER not in pull["body"]

    # the same repository and the same change: the answer it paid for is reused
    await press(app, fake, victim, head, "fix_wiki")
    assert len(fake_openai.requests) == 2
