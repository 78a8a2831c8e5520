"""GitHub's documented webhook payloads (tests/data/webhooks) carry the fields the bot reads, where they exist, and
parse into the App's payload models."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.github.handlers import Envelope, parse_payload, routes
from bot.github.payloads import CheckSuiteEvent, PullRequestEvent, PushEvent, RequestedActionEvent

HERE = Path(__file__).parents[2] / "data" / "webhooks"
FILES = sorted(path.name for path in HERE.glob("*.json") if path.name != "index.json")
SHA = re.compile(r"[0-9a-f]{40}")
ZERO = "0" * 40

# Events whose payload is about an installation, not a repository: no `repository` by design.
NO_REPOSITORY = {"installation", "installation_repositories"}
# A webhook's ping is about the hook: no `installation` by design.
NO_INSTALLATION = {"ping"}
# Gaps in the examples themselves: payloads recorded from repository webhooks, not from a GitHub App (which
# always gets `installation`), and an organization hook's ping. Asserted, so the list stays true.
LACKS = {
    "installation.id": {
        "check_run.created.1.json",
        "check_run.created.2.json",
        "check_run.created.3.json",
        "pull_request.opened.1.json",
        "push.1.json",
        "push.2.json",
        "push.3.json",
        "push.7.json",
    },
    "repository.full_name": {"ping.4.json"},
    "repository.default_branch": {"ping.4.json"},
}


def load(name: str) -> dict[str, Any]:
    return json.loads((HERE / name).read_text(encoding="utf-8"))


def dig(payload: dict[str, Any], path: str) -> Any:
    node: Any = payload
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            raise KeyError(path)
        node = node[key]
    return node


def has(payload: dict[str, Any], path: str) -> bool:
    try:
        dig(payload, path)
    except KeyError:
        return False
    return True


def event_of(name: str) -> str:
    return name.split(".", 1)[0]


def action_of(name: str) -> str | None:
    parts = name.removesuffix(".json").split(".")
    return parts[1] if len(parts) == 3 else None


def files_of(event: str, action: str | None = None) -> list[str]:
    return [name for name in FILES if event_of(name) == event and (action is None or action_of(name) == action)]


def test_the_index_lists_every_file_and_what_is_missing() -> None:
    index = load("index.json")
    assert sorted(entry["file"] for entry in index["files"]) == FILES
    assert index["missing"] == ["pull_request.fork: no example whose head repository differs from its base"]
    for event, actions in {
        "push": [None],
        "pull_request": ["opened", "synchronize", "reopened", "closed"],
        "check_suite": ["requested", "rerequested"],
        "check_run": ["rerequested", "requested_action", "created"],
        "installation": ["created", "deleted"],
        "installation_repositories": ["added", "removed"],
        "ping": [None],
    }.items():
        for action in actions:
            assert files_of(event, action), (event, action)


@pytest.mark.parametrize("name", FILES)
def test_every_example_loads_and_names_its_source(name: str) -> None:
    payload = load(name)
    source = re.fullmatch(
        r"@octokit/webhooks-examples@\d+\.\d+\.\d+ api\.github\.com/index\.json: (\w+) examples\[(\d+)\]",
        payload["_source"],
    )
    assert source is not None
    assert source.group(1) == event_of(name)
    assert payload.get("action") == action_of(name)
    assert next(iter(payload)) == "_source"


@pytest.mark.parametrize("name", FILES)
def test_the_fields_every_event_carries(name: str) -> None:
    payload = load(name)
    event = event_of(name)
    wanted = {"sender.login": str, "sender.type": str}
    if event not in NO_INSTALLATION:
        wanted["installation.id"] = int
    if event not in NO_REPOSITORY:
        wanted |= {"repository.full_name": str, "repository.default_branch": str}
    for path, kind in wanted.items():
        if name in LACKS.get(path, ()):
            assert not has(payload, path), f"{name} has {path} now: take it off LACKS"
        else:
            assert isinstance(dig(payload, path), kind), (name, path)
    assert payload["sender"]["type"] in {"User", "Bot", "Organization"}


@pytest.mark.parametrize("name", files_of("push"))
def test_push(name: str) -> None:
    payload = load(name)
    assert payload["ref"].startswith(("refs/heads/", "refs/tags/"))
    assert SHA.fullmatch(payload["before"]) and SHA.fullmatch(payload["after"])
    for flag in ("created", "deleted", "forced"):
        assert isinstance(payload[flag], bool)
    assert payload["created"] == (payload["before"] == ZERO)
    assert payload["deleted"] == (payload["after"] == ZERO)


@pytest.mark.parametrize("name", files_of("pull_request"))
def test_pull_request(name: str) -> None:
    payload = load(name)
    pull = payload["pull_request"]
    assert payload["action"] == action_of(name)
    assert isinstance(payload["number"], int) and payload["number"] == pull["number"]
    for side in ("head", "base"):
        assert SHA.fullmatch(pull[side]["sha"])
        assert isinstance(pull[side]["ref"], str)
    assert isinstance(pull["head"]["repo"]["full_name"], str)
    # Every example is a same-repository pull request (so index.json lists the fork as missing).
    assert pull["head"]["repo"]["full_name"] == payload["repository"]["full_name"]
    if payload["action"] == "synchronize":
        assert SHA.fullmatch(payload["before"]) and payload["after"] == pull["head"]["sha"]


@pytest.mark.parametrize("name", files_of("check_suite"))
def test_check_suite(name: str) -> None:
    suite = load(name)["check_suite"]
    assert SHA.fullmatch(suite["head_sha"])
    assert isinstance(suite["head_branch"], str)
    assert SHA.fullmatch(suite["before"])
    assert isinstance(suite["app"]["id"], int)
    for pull in suite["pull_requests"]:
        assert isinstance(pull["number"], int)
        assert isinstance(pull["base"]["repo"]["id"], int)
        assert SHA.fullmatch(pull["base"]["sha"]) and isinstance(pull["base"]["ref"], str)


@pytest.mark.parametrize("name", files_of("check_run"))
def test_check_run(name: str) -> None:
    payload = load(name)
    run = payload["check_run"]
    assert SHA.fullmatch(run["head_sha"])
    assert isinstance(run["id"], int) and isinstance(run["name"], str)
    assert isinstance(run["check_suite"], dict)
    assert isinstance(run["check_suite"]["head_branch"], str)
    assert SHA.fullmatch(run["check_suite"]["before"])
    assert isinstance(run["pull_requests"], list)
    if payload["action"] == "requested_action":
        assert isinstance(payload["requested_action"]["identifier"], str)
    else:
        assert "requested_action" not in payload


@pytest.mark.parametrize("name", files_of("installation") + files_of("installation_repositories"))
def test_installation_events(name: str) -> None:
    payload = load(name)
    assert isinstance(payload["installation"]["account"]["login"], str)
    if event_of(name) == "installation_repositories":
        assert isinstance(payload["repositories_added"], list) and isinstance(payload["repositories_removed"], list)
        assert payload["repository_selection"] in {"all", "selected"}


# -- the App's payload models (bot/github/payloads.py) read every example -----------------------------

# What the App receives but does nothing with (a 202 "ignored" without reading further).
UNROUTED = {
    ("ping", None),
    ("installation_repositories", "added"),
    ("installation_repositories", "removed"),
    ("pull_request", "closed"),
    ("check_suite", "requested"),
    ("check_run", "created"),
}


@pytest.mark.parametrize("name", FILES)
def test_every_example_parses_into_the_model_of_its_route(name: str) -> None:
    payload = load(name)
    event, action = event_of(name), action_of(name)
    if name in LACKS["installation.id"]:
        # Recorded from a repository webhook: the door ignores it; given the installation an App gets, it fits.
        assert parse_payload(Envelope, event, payload).installation is None
        payload["installation"] = {"id": 1}
    route = routes.find(event, action) if event in routes.events else None
    if route is None:
        assert (event, action) in UNROUTED
        return
    parsed = parse_payload(route.model, event, payload)
    assert parsed.installation.id == payload["installation"]["id"]
    if event != "installation":
        assert parsed.repository.full_name == payload["repository"]["full_name"]
        assert parsed.repository.id == payload["repository"]["id"]


def test_every_route_has_an_example() -> None:
    routed = {(event, action) for name in FILES for event, action in [(event_of(name), action_of(name))]}
    for event in routes.events:
        assert any(e == event and routes.find(event, a) is not None for e, a in routed - UNROUTED), event


def test_the_examples_fields_reach_the_models() -> None:
    push = parse_payload(PushEvent, "push", load("push.5.json"))
    raw = load("push.5.json")
    assert (push.ref, push.before, push.after, push.created, push.deleted, push.forced) == (
        raw["ref"], raw["before"], raw["after"], raw["created"], raw["deleted"], raw["forced"],
    )  # fmt: skip
    assert push.repository.default_branch == raw["repository"]["default_branch"]
    pull = parse_payload(PullRequestEvent, "pull_request", load("pull_request.opened.2.json")).pull_request
    raw_pull = load("pull_request.opened.2.json")["pull_request"]
    assert (pull.number, pull.head.sha, pull.head.ref, pull.base.sha, pull.base.ref) == (
        raw_pull["number"], raw_pull["head"]["sha"], raw_pull["head"]["ref"], raw_pull["base"]["sha"], raw_pull["base"]["ref"],
    )  # fmt: skip
    assert pull.head.repo is not None and pull.head.repo.full_name == raw_pull["head"]["repo"]["full_name"]
    action = parse_payload(RequestedActionEvent, "check_run", load("check_run.requested_action.1.json"))
    raw_run = load("check_run.requested_action.1.json")["check_run"]
    assert (action.check_run.id, action.check_run.name, action.check_run.head_sha) == (
        raw_run["id"], raw_run["name"], raw_run["head_sha"],
    )  # fmt: skip
    assert [p.number for p in action.check_run.pull_requests] == [p["number"] for p in raw_run["pull_requests"]]
    assert action.check_run.check_suite.head_branch == raw_run["check_suite"]["head_branch"]
    suite = parse_payload(CheckSuiteEvent, "check_suite", load("check_suite.rerequested.1.json")).check_suite
    raw_suite = load("check_suite.rerequested.1.json")["check_suite"]
    assert (suite.head_sha, suite.before, suite.head_branch) == (
        raw_suite["head_sha"],
        raw_suite["before"],
        raw_suite["head_branch"],
    )
    assert [(p.number, p.base.sha, p.base.repo.id) for p in suite.pull_requests] == [
        (p["number"], p["base"]["sha"], p["base"]["repo"]["id"]) for p in raw_suite["pull_requests"]
    ]
