"""Which model a repository's `model:` may pick, end to end: only one the App offers (`WIKIWARDEN_MODEL`, its default,
and `WIKIWARDEN_MODELS`), never one the operator's endpoint merely serves; another is replaced by the App's default
(or by none) and the check run and the fix say so; and no `model:` turns a model on where the App configured none."""

from __future__ import annotations

from typing import Any

import pytest
from apptools import check_payload, deliver, grounded, push_payload, queue_of, runs_of, start_app
from fakegithub import FakeGitHub
from fakeopenai import FakeOpenAI, Reply
from fixrepo import CLAIMS, GOOD, POOL, POOL_PAGE, RETRY, RETRY_NOW, RETRY_PAGE, model_answer
from groundtools import QUEUE_MD, QUEUE_PY, answer

from bot.settings import load_settings

CONFIG = ".github/wikiwarden.yml"
FIX_NOTE = "<!-- wikiwarden:fix-note -->"


async def start(aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI, **overrides: Any):
    """The App with the fake's endpoint, which serves more models than the App offers."""
    fake_openai.models = ("test-model", "big-model", "gpt-expensive")
    values = {
        "openai_base_url": fake_openai.base_url, "openai_api_key": fake_openai.api_key, "model": "test-model",
        "model_max_retries": 0, "model_timeout_seconds": 5, **overrides,
    }  # fmt: skip
    return await start_app(aiohttp_client, fake, **values)


def wiki_repo(fake: FakeGitHub, config: str):
    repo = fake.create_repo("acme", "widgets", 77)
    files = grounded({"src/retry.py": RETRY, "src/pool.py": POOL}, CLAIMS, texts={"retry.md": RETRY_PAGE, "pool.md": POOL_PAGE})
    files[CONFIG] = config.encode()
    repo.base = repo.commit(files, message="code and wiki")
    return repo


async def push_change(app, fake: FakeGitHub, repo) -> str:
    head = repo.commit({"src/retry.py": RETRY_NOW}, message="retry harder")
    await deliver(app, "push", push_payload(repo, before=repo.base, after=head), secret=fake.webhook_secret)
    await queue_of(app).wait_idle()
    return head


async def test_a_model_the_app_does_not_offer_is_replaced_by_its_default_and_both_runs_say_so(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    repo = wiki_repo(fake, "auto_fix: true\nmodel: gpt-expensive\n")
    fake_openai.responder = lambda body: model_answer(body, GOOD)
    app = await start(aiohttp_client, fake, fake_openai)
    head = await push_change(app, fake, repo)

    assert fake_openai.requests and {r["model"] for r in fake_openai.requests} == {"test-model"}
    [run] = runs_of(repo, head)
    summary = run["output"]["summary"]
    said = (
        "The model `gpt-expensive` that `.github/wikiwarden.yml` asks for is not offered by this App (it offers: "
        "`test-model`); the fix and the grounding use the App's default, `test-model`."
    )
    assert f"_{said}_" in summary  # the check's own words
    note = summary[summary.index(FIX_NOTE) :]
    assert "Fix pull request #" in note and said in note  # and the fix's
    [pull] = [p for p in repo.pulls if p["head"]["ref"] == "wikiwarden/fix/main"]
    assert "Model: `test-model`" in pull["body"] and "gpt-expensive" not in pull["body"]


async def test_a_model_among_those_the_app_offers_is_the_repositorys_to_choose(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    repo = wiki_repo(fake, "auto_fix: true\nmodel: big-model\n")
    fake_openai.responder = lambda body: model_answer(body, GOOD)
    app = await start(aiohttp_client, fake, fake_openai, models="big-model, other-model")
    head = await push_change(app, fake, repo)

    assert fake_openai.requests and {r["model"] for r in fake_openai.requests} == {"big-model"}
    [run] = runs_of(repo, head)
    assert "is not offered by this App" not in run["output"]["summary"]


async def test_no_model_line_turns_a_model_on_where_the_app_configured_none(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    repo = fake.create_repo("acme", "widgets", 77)
    repo.base = repo.commit({"src/taskq/queue.py": QUEUE_PY}, message="code")
    head = repo.commit({"openwiki/queue.md": QUEUE_MD, CONFIG: "model: test-model\n"}, message="a page, a model")
    fake_openai.responder = lambda body: Reply.json(answer())
    app = await start(aiohttp_client, fake, fake_openai, model=None)  # an endpoint, but no model of the App's
    await deliver(app, "push", push_payload(repo, before=repo.base, after=head), secret=fake.webhook_secret)
    await queue_of(app).wait_idle()
    [run] = runs_of(repo, head)
    payload = check_payload("check_run", "requested_action", repo, head_sha=head, run_id=run["id"], identifier="ground_wiki")
    await deliver(app, "check_run", payload, secret=fake.webhook_secret)
    await queue_of(app).wait_idle()

    assert fake_openai.requests == []  # nothing was asked of any model
    summary = run["output"]["summary"]
    assert "No grounding: the App has no model configured (`WIKIWARDEN_MODEL`)." in summary
    assert (
        "The model `test-model` that `.github/wikiwarden.yml` asks for is not offered by this App (it offers: none); "
        "the App has no default model, so the fix and the grounding use none."
    ) in summary
    assert not [p for p in repo.pulls if p["head"]["ref"].startswith("wikiwarden/")]


def test_the_models_the_app_offers_are_its_default_and_the_list(monkeypatch: pytest.MonkeyPatch, fake_github) -> None:
    base = {
        "app_id": fake_github.app_id, "private_key": fake_github.private_key_pem,
        "webhook_secret": fake_github.webhook_secret,
    }  # fmt: skip
    monkeypatch.setenv("WIKIWARDEN_MODELS", " big-model , test-model,,other ")
    settings = load_settings(**base, model="test-model")
    assert settings.models == ("big-model", "test-model", "other")
    assert settings.offered_models == ("test-model", "big-model", "other")  # the default first, once
    monkeypatch.delenv("WIKIWARDEN_MODELS")
    assert load_settings(**base, model="test-model").offered_models == ("test-model",)  # by default: the one model
    assert load_settings(**base).offered_models == ()  # none configured: none offered


@pytest.mark.parametrize("none", ["none", "NONE"])
async def test_wikiwarden_model_none_is_no_model_for_the_app(
    aiohttp_client, fake: FakeGitHub, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, none: str
) -> None:
    """WIKIWARDEN_MODEL=none (read from the environment, as `serve` reads it) is no model: the fix of a stale claim
    does the deterministic work, grounding says the App has no model, and no model called `none` is asked."""
    monkeypatch.setenv("WIKIWARDEN_MODEL", none)
    monkeypatch.setenv("WIKIWARDEN_MODELS", f"{none}, ")
    repo = wiki_repo(fake, "auto_fix: true\n")
    fake_openai.models = ("test-model", "none")  # an endpoint that would even answer to `none`
    fake_openai.responder = lambda body: model_answer(body, GOOD)
    app = await start_app(
        aiohttp_client, fake, openai_base_url=fake_openai.base_url, openai_api_key=fake_openai.api_key
    )
    head = await push_change(app, fake, repo)
    [run] = runs_of(repo, head)
    payload = check_payload(
        "check_run", "requested_action", repo, head_sha=head, run_id=run["id"], identifier="ground_wiki"
    )
    await deliver(app, "check_run", payload, secret=fake.webhook_secret)
    await queue_of(app).wait_idle()

    assert fake_openai.requests == []
    [pull] = [p for p in repo.pulls if p["head"]["ref"] == "wikiwarden/fix/main"]
    assert "Model: `" not in pull["body"]
    summary = runs_of(repo, head)[0]["output"]["summary"]
    assert "No grounding: the App has no model configured (`WIKIWARDEN_MODEL`)." in summary


def test_none_is_no_model_among_the_settings(monkeypatch: pytest.MonkeyPatch, fake_github) -> None:
    base = {
        "app_id": fake_github.app_id, "private_key": fake_github.private_key_pem,
        "webhook_secret": fake_github.webhook_secret,
    }  # fmt: skip
    monkeypatch.setenv("WIKIWARDEN_MODEL", " None ")
    monkeypatch.setenv("WIKIWARDEN_MODELS", "none, big-model")
    settings = load_settings(**base)
    assert (settings.model, settings.models, settings.offered_models) == (None, ("big-model",), ("big-model",))
    assert load_settings(**base, model="gpt-none").model == "gpt-none"  # only the word itself says no model
