"""Driving the real App against the fake GitHub: settings, signed deliveries built from GitHub's own example
payloads (tests/data/webhooks, from @octokit/webhooks-examples), and wikis grounded in a fake repository."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fakegithub import FakeGitHub, FakeRepo

from bot.claims import resolve_evidence
from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar
from bot.settings import Settings, load_settings
from bot.web import QUEUE, RUNTIME, create_app

EXAMPLES = Path(__file__).parents[1] / "data" / "webhooks"
ZERO = "0" * 40
PAGE = "---\ntype: Concept\n---\n\n# {title}\n\nProse.\n"


def settings_for(fake: FakeGitHub, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "app_id": fake.app_id,
        "private_key": fake.private_key_pem,
        "webhook_secret": fake.webhook_secret,
        "github_api_url": fake.base_url,
        "retry_base_seconds": 0.01,
        "max_wait_seconds": 2.0,
        "workers": 2,
        "mutation_spacing_seconds": 0.0,  # the spacing has its own test
        "job_retry_base_seconds": 0.01,
    }
    values.update(overrides)
    return load_settings(**values)


async def start_app(aiohttp_client: Any, fake: FakeGitHub, **overrides: Any) -> Any:
    """The real aiohttp application, served on loopback, pointed at the fake."""
    client = await aiohttp_client(create_app(settings_for(fake, **overrides)))
    return client


def queue_of(client: Any) -> Any:
    return client.server.app[QUEUE]


def runtime_of(client: Any) -> Any:
    return client.server.app[RUNTIME]


def example(name: str) -> dict[str, Any]:
    """One of GitHub's example payloads, e.g. `push.5` or `pull_request.opened.2`."""
    data = json.loads((EXAMPLES / f"{name}.json").read_text())
    data.pop("_source", None)
    return data


def _repository(template: dict[str, Any], repo: FakeRepo) -> dict[str, Any]:
    out = copy.deepcopy(template)
    out.update(
        id=repo.id, name=repo.name, full_name=repo.full_name, default_branch=repo.default_branch, private=False,
        html_url=f"https://github.com/{repo.full_name}",
    )  # fmt: skip
    out["owner"] = {**out.get("owner", {}), "login": repo.owner, "name": repo.owner}
    return out


def _common(data: dict[str, Any], repo: FakeRepo, sender: str) -> dict[str, Any]:
    data["repository"] = _repository(data.get("repository") or {}, repo)
    data["installation"] = {
        "id": repo.installation_id,
        "node_id": f"MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u{repo.installation_id}",
    }
    data["sender"] = {**data.get("sender", {}), "login": sender, "type": "Bot" if sender.endswith("[bot]") else "User"}
    return data


def push_payload(
    repo: FakeRepo,
    *,
    branch: str | None = None,
    before: str = ZERO,
    after: str = ZERO,
    created: bool = False,
    deleted: bool = False,
    forced: bool = False,
    ref: str | None = None,
    sender: str = "octocat",
) -> dict[str, Any]:
    """GitHub's example `push.5` (a branch push) with this push's fields: the examples hold no plain or forced
    branch push, so those are this example with `created`, `forced` and the shas set accordingly."""
    data = example("push.5")
    data.update(
        ref=ref or f"refs/heads/{branch or repo.default_branch}",
        before=before,
        after=after,
        created=created,
        deleted=deleted,
        forced=forced,
        base_ref=None,
        commits=[] if deleted else data.get("commits", []),
        head_commit=None if deleted else {**(data.get("head_commit") or {}), "id": after},
    )
    return _common(data, repo, sender)


def pull_request_payload(
    repo: FakeRepo,
    action: str,
    number: int,
    *,
    head_sha: str,
    head_ref: str,
    base_sha: str,
    base_ref: str | None = None,
    fork: str | None = None,
    sender: str = "octocat",
) -> dict[str, Any]:
    """GitHub's example pull request of `action`. The examples hold no fork pull request: one is this
    example whose head repository is another repository (`fork`)."""
    name = {"opened": "pull_request.opened.2", "synchronize": "pull_request.synchronize.1"}.get(
        action, f"pull_request.{action}.1"
    )
    data = example(name)
    data["action"] = action
    data["number"] = number
    pull = data["pull_request"]
    pull["number"] = number
    head_repo = _repository(pull["head"].get("repo") or {}, repo)
    if fork:
        head_repo.update(id=repo.id + 100_000, full_name=fork, name=fork.split("/")[1], fork=True)
        head_repo["owner"] = {**head_repo["owner"], "login": fork.split("/")[0]}
    pull["head"].update(sha=head_sha, ref=head_ref, repo=head_repo, label=f"{head_repo['owner']['login']}:{head_ref}")
    pull["base"].update(
        sha=base_sha, ref=base_ref or repo.default_branch, repo=_repository(pull["base"].get("repo") or {}, repo)
    )
    return _common(data, repo, sender)


def check_payload(
    event: str, action: str, repo: FakeRepo, *, head_sha: str, run_id: int | None = None, before: str | None = None,
    identifier: str | None = None, name: str = "Wikiwarden", sender: str = "octocat", branch: str | None = "",
    pull: dict[str, Any] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """GitHub's example check_suite / check_run event for `head_sha`. `branch` is the suite's head_branch (the
    default branch unless given; None as for a fork's commit); `pull` (a FakeRepo pull) fills pull_requests."""
    data = example(f"{event}.{action}.1")
    head_branch = repo.default_branch if branch == "" else branch
    pulls = []
    if pull is not None:
        mini = {"id": repo.id, "url": f"https://api.github.com/repos/{repo.full_name}", "name": repo.name}
        pulls = [
            {
                "id": pull["id"],
                "number": pull["number"],
                "head": {"ref": pull["head"]["ref"], "sha": pull["head"]["sha"], "repo": mini},
                "base": {"ref": pull["base"]["ref"], "sha": pull["base"]["sha"], "repo": mini},
            }
        ]
        head_branch = pull["head"]["ref"]
    suite_fields = {"head_sha": head_sha, "head_branch": head_branch, "before": before or ZERO, "pull_requests": pulls}
    if event == "check_suite":
        data["check_suite"].update(after=head_sha, **suite_fields)
    else:
        run = data["check_run"]
        run.update(head_sha=head_sha, name=name, id=run_id or run.get("id"), pull_requests=pulls)
        run["check_suite"] = {**run.get("check_suite", {}), **suite_fields}
        if identifier is not None:
            data["requested_action"] = {"identifier": identifier}
    return _common(data, repo, sender)


def sign(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


async def deliver(
    client: Any,
    event: str,
    payload: dict[str, Any],
    *,
    secret: str,
    delivery: str | None = None,
    signature: str | None = None,
) -> tuple[int, dict[str, Any]]:
    """POST a delivery exactly as GitHub does: the body signed with HMAC-SHA256 of the webhook secret."""
    body = json.dumps(payload).encode()
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "Content-Type": "application/json",
        "User-Agent": "GitHub-Hookshot/5d2c2ad",
    }
    if signature != "":
        headers["X-Hub-Signature-256"] = signature or sign(body, secret)
    response = await client.post("/webhook", data=body, headers=headers)
    return response.status, await response.json()


def grounded(
    code: dict[str, str],
    claims: dict[str, list[tuple[str, Iterable[str]]]],
    wiki: str = "openwiki",
    texts: dict[str, str] | None = None,
) -> dict[str, bytes]:
    """Code plus a wiki whose pages hold `claims` (page → [(statement, resources)]), versions from the code;
    a page's text is `texts[page]` when given."""
    files: dict[str, bytes] = {path: text.encode() for path, text in code.items()}
    number = 0
    for page, items in claims.items():
        page_bytes = (texts or {}).get(page, PAGE.format(title=page)).encode()
        files[f"{wiki}/{page}"] = page_bytes
        sidecar_claims = []
        for statement, resources in items:
            evidence = []
            for resource in resources:
                path = resource.removeprefix("repo://").split("#", 1)[0]
                found = resolve_evidence(resource, files[path])
                assert found is not None, resource
                evidence.append(EvidenceRecord(found.resource, found.version))
            number += 1
            sidecar_claims.append(Claim(f"claim_{number:032x}", statement, tuple(evidence)))
        files[f"{wiki}/.claims/{page[:-3]}.json"] = render_sidecar(
            Sidecar(page_version(page_bytes), tuple(sidecar_claims))
        )
    return files


def runs_of(repo: FakeRepo, head_sha: str | None = None, name: str = "Wikiwarden") -> list[dict[str, Any]]:
    return [r for r in repo.check_runs if r["name"] == name and (head_sha is None or r["head_sha"] == head_sha)]
