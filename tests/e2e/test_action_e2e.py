"""The GitHub Action end to end, as a runner runs it: action.yml's `check` step, its `env:` expressions
evaluated the way Actions does, its script run by `bash` in a simulated Actions environment (the event payload
at GITHUB_EVENT_PATH, GITHUB_STEP_SUMMARY and GITHUB_OUTPUT files, a real git checkout), and its outputs
resolved through action.yml's `outputs:`. The workflow's GITHUB_TOKEN is what it really is, an installation token
of the GitHub Actions app: here of the fake GitHub's App named `github-actions`, so its commits and pull
requests are `github-actions[bot]`'s. The fix goes over real HTTP to the fake GitHub (and the fake model).

The event payloads are GitHub's own examples (tests/data/webhooks, from @octokit/webhooks-examples):
`push.5` and `pull_request.opened.2`, for the repository they name, Codertocat/Hello-World (default branch
`master`, pull request head `changes`). Only the commits are adapted: `before`/`after` of the push and
`base.sha`/`head.sha` of the pull request are set to the test repository's commits (and `created` to false:
the examples hold no push to an existing branch), the pull request's number to the fake's.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import oneconfig
import pytest
from apptools import example, grounded
from citools import parse_output_file
from conftest import GitRepo
from fakegithub import FakeGitHub, FakeRepo, create_app
from fakeopenai import FakeOpenAI
from fixrepo import CLAIMS, GOOD, POOL, POOL_PAGE, RETRY, RETRY_NOW, RETRY_PAGE, model_answer
from forgery import forge
from ruamel.yaml import YAML

from bot.okf.frontmatter import Page
from bot.report.check import render
from bot.source.git import GitRepository
from bot.usecases.check import check_repository

ROOT = Path(__file__).resolve().parents[2]
ACTION = YAML(typ="safe").load((ROOT / "action.yml").read_text())
INSTALLATION = 7
OWNER, NAME = "Codertocat", "Hello-World"
ACTIONS_BOT = "github-actions[bot]"
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@pytest.fixture
async def actions_github(aiohttp_server: Callable[..., Awaitable[Any]]) -> AsyncIterator[FakeGitHub]:
    """The fake GitHub, its App being GitHub Actions: the tokens it mints are workflow tokens."""
    fake = FakeGitHub(app_slug="github-actions", app_name="GitHub Actions")
    server = await aiohttp_server(create_app(fake), host="127.0.0.1")
    fake.base_url = str(server.make_url("")).rstrip("/")
    fake.add_installation(INSTALLATION, OWNER, account_type="User")
    yield fake
    assert fake.violations == [], "requests GitHub would have rejected"


def publish(fake_repo: FakeRepo, local: GitRepo, *branches: str) -> None:
    """Put every object of the local repository into the fake (the same object ids) and point `branches` at the
    local ones: what `git push` does."""
    raw = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=local.root, capture_output=True, check=True
    ).stdout
    at = 0
    while at < len(raw):
        end = raw.index(b"\n", at)
        sha, kind, size = raw[at:end].decode().split()
        data = raw[end + 1 : end + 1 + int(size)]
        assert fake_repo.store.put(kind, data) == sha
        at = end + 1 + int(size) + 1
    for branch in branches:
        fake_repo.set_ref(branch, local.git("rev-parse", branch).strip())


@dataclass
class Shop:
    """The checkout (a real repository) and the fake GitHub's copy of it, with the change's two commits."""

    local: GitRepo
    remote: FakeRepo
    base: str
    head: str


def write(local: GitRepo, files: dict[str, bytes]) -> None:
    for path, content in files.items():
        local.write(path, content)


@pytest.fixture
def shop(actions_github: FakeGitHub, make_repo: Callable[..., GitRepo]) -> Shop:
    """The fix's scenario of tests/e2e/test_fix_e2e.py: retries and a pool, grounded; then a change that makes both
    claims of the retry page stale and moves the pool's evidence."""
    local = make_repo("checkout")
    local.git("branch", "-m", "master")
    write(
        local,
        grounded(
            {"src/retry.py": RETRY, "src/pool.py": POOL}, CLAIMS, texts={"retry.md": RETRY_PAGE, "pool.md": POOL_PAGE}
        ),
    )
    base = local.commit("code and wiki")
    local.git("checkout", "-q", "-b", "changes")
    write(local, {"src/retry.py": RETRY_NOW.encode(), "src/pool.py": b"# the pool\n" + POOL.encode()})
    head = local.commit("retry harder")
    remote = actions_github.create_repo(OWNER, NAME, INSTALLATION, default_branch="master")
    return Shop(local, remote, base, head)


@dataclass
class Step:
    status: int
    stdout: str
    stderr: str
    summary: str
    outputs: dict[str, str]  # the action's, through action.yml's `outputs:`


def evaluate(text: str, context: dict[str, Any]) -> str:
    """Actions' `${{ a.b.c }}` for the property lookups action.yml uses; any other expression fails the test."""

    def value(found: re.Match[str]) -> str:
        expression = found.group(1)
        assert re.fullmatch(r"[a-z_]+(\.[A-Za-z0-9_-]+)+", expression), f"unsupported expression {expression!r}"
        current: Any = context
        for part in expression.split("."):
            current = current.get(part, "") if isinstance(current, dict) else ""
        return str(current)

    return _EXPRESSION.sub(value, text)


async def run_check_step(
    tmp_path: Path, workspace: Path, event: str, payload: dict[str, Any], with_: dict[str, str], env: dict[str, str]
) -> Step:
    """The action's `check` step as the runner runs it; the setup-python and install steps' outputs are this test
    interpreter, which has Wikiwarden installed."""
    event_path, summary_path, output_path = tmp_path / "event.json", tmp_path / "summary.md", tmp_path / "output"
    event_path.write_text(json.dumps(payload))
    summary_path.write_text("")
    output_path.write_text("")
    inputs = {name: spec["default"] for name, spec in ACTION["inputs"].items()}
    context: dict[str, Any] = {"github": {"token": env["GITHUB_TOKEN"]}, "steps": {"install": {"outputs": {}}}}
    inputs = {name: evaluate(value, context) for name, value in {**inputs, **with_}.items()}
    context["inputs"] = inputs
    context["steps"]["install"]["outputs"]["python"] = sys.executable
    step = next(s for s in ACTION["runs"]["steps"] if s.get("id") == "check")
    assert step["shell"] == "bash"
    script = tmp_path / "check.sh"
    script.write_text(step["run"])
    runner_env = {
        "PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
        "GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_STEP_SUMMARY": str(summary_path), "GITHUB_OUTPUT": str(output_path), "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": f"{OWNER}/{NAME}", "GITHUB_SERVER_URL": "https://github.com", "RUNNER_TEMP": str(tmp_path),
        "GITHUB_ACTION_PATH": str(ROOT), "WIKIWARDEN_MUTATION_SPACING_SECONDS": "0",
        **{k: v for k, v in env.items() if k != "GITHUB_TOKEN"},  # the token reaches the step as an input only
        **{name: evaluate(value, context) for name, value in step["env"].items()},
    }  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        "bash", "--noprofile", "--norc", "-eo", "pipefail", str(script),
        cwd=workspace, env=runner_env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    context["steps"]["check"] = {"outputs": parse_output_file(output_path.read_text())}
    outputs = {name: evaluate(spec["value"], context) for name, spec in ACTION["outputs"].items()}
    return Step(process.returncode, out.decode(), err.decode(), summary_path.read_text(), outputs)


def github_env(fake: FakeGitHub, token: str, **more: str) -> dict[str, str]:
    return {
        "GITHUB_API_URL": fake.base_url, "GITHUB_GRAPHQL_URL": f"{fake.base_url}/graphql", "GITHUB_TOKEN": token,
        **more,
    }  # fmt: skip


def workflow_token(fake: FakeGitHub) -> str:
    return fake.issue_token(INSTALLATION, repos=[f"{OWNER}/{NAME}"]).token


def annotations(stdout: str) -> list[str]:
    """The workflow commands the runner acts on: every `::` line outside a stop-commands block."""
    found, stopped = [], None
    for line in stdout.splitlines():
        if stopped is not None:
            stopped = None if line == f"::{stopped}::" else stopped
        elif line.startswith("::stop-commands::"):
            stopped = line.removeprefix("::stop-commands::")
        elif line.startswith("::") and not line.startswith(("::group::", "::endgroup::")):
            found.append(line)
    return found


def push_event(shop: Shop) -> dict[str, Any]:
    payload = example("push.5")
    payload.update(created=False, before=shop.base, after=shop.head, ref="refs/heads/master")
    payload["head_commit"] = {**payload["head_commit"], "id": shop.head}
    return payload


async def test_a_push_is_checked_annotated_summarized_and_fixed_by_pull_request(
    actions_github: FakeGitHub, fake_openai: FakeOpenAI, shop: Shop, tmp_path: Path
) -> None:
    shop.local.git("checkout", "-q", "master")
    shop.local.git("merge", "-q", "--ff-only", "changes")  # the push: master moves from base to head
    publish(shop.remote, shop.local, "master")
    fake_openai.responder = lambda body: model_answer(body, GOOD)
    token = workflow_token(actions_github)
    model = {
        "model": "test-model", "openai-base-url": fake_openai.base_url, "openai-api-key": fake_openai.api_key,
    }  # fmt: skip
    env = github_env(
        actions_github, token, GITHUB_SHA=shop.head, GITHUB_REF="refs/heads/master",
        WIKIWARDEN_MODEL_MAX_RETRIES="0", WIKIWARDEN_MODEL_TIMEOUT_SECONDS="5",
    )  # fmt: skip

    step = await run_check_step(tmp_path, shop.local.root, "push", push_event(shop), {"fix": "true", **model}, env)

    assert step.status == 1, step.stdout + step.stderr  # claims need attention; the default conclusion is failure
    assert step.stderr == ""
    assert token not in step.stdout + step.summary + json.dumps(step.outputs)
    # the annotations: what `wikiwarden check --format github` says of this change, then the fix's notice
    [pull] = [p for p in shop.remote.pulls if p["head"]["ref"] == "wikiwarden/fix/master"]
    url = f"https://github.com/{OWNER}/{NAME}/pull/{pull['number']}"
    with GitRepository(shop.local.root) as repo:
        report = await asyncio.to_thread(check_repository, repo, shop.base, shop.head)
    found = annotations(step.stdout)
    assert found == [
        *render(report, "github", attention_only=True).splitlines(),
        f"::notice title=Wikiwarden fix::Fix pull request #{pull['number']} opened: 1 re-anchored, 2 updated.",
    ]
    assert [line.split("::")[1] for line in found if " file=" in line] == [
        "error file=src/retry.py,line=1,endLine=1,title=Wiki claim stale%3A openwiki/retry.md",
        "error file=src/retry.py,line=4,endLine=5,title=Wiki claim stale%3A openwiki/retry.md",
    ]

    # the outputs
    assert step.outputs == {
        "fresh": "0", "moved": "1", "cosmetic": "0", "stale": "2", "unresolved": "0", "error": "0", "claims": "3",
        "touched": "3", "broken-references": "0", "unreadable-sidecars": "0", "needs-attention": "true",
        "pull-request": url,
    }  # fmt: skip

    # the job summary: the check run's report, then what came of the fix
    assert step.summary.startswith("**3 claims on 2 pages: 1 moved, 2 stale; 3 touched by this change**")
    assert "A failing task is tried 3 times." in step.summary
    assert step.summary.endswith(
        f"### Wikiwarden fix\n\nFix pull request #{pull['number']} opened: 1 re-anchored, 2 updated.\n\n{url}\n"
    )

    # the pull request: the App's, made with the workflow's token
    assert pull["state"] == "open" and pull["base"]["ref"] == "master" and pull["user"]["login"] == ACTIONS_BOT
    assert pull["title"] == f"Wiki: 1 re-anchored, 2 updated after master {shop.head[:7]}"
    marker, heading = pull["body"].splitlines()[:2]
    assert re.fullmatch(rf"<!-- wikiwarden:fix since={shop.base} change=[0-9a-f]{{32}} -->", marker)
    assert heading == "## Wikiwarden: the wiki, true to `master` again"
    assert f"https://github.com/{OWNER}/{NAME}/blob/{shop.head}/src/retry.py#L4-L5" in pull["body"]
    assert "Model: `test-model`" in pull["body"]
    fix_sha = shop.remote.refs["refs/heads/wikiwarden/fix/master"]
    assert shop.remote.store.read_commit(fix_sha).parents == (shop.head,)
    before, after = shop.remote.files_at(shop.head), shop.remote.files_at(fix_sha)
    assert sorted(p for p in after if before.get(p) != after[p]) == [
        "openwiki/.claims/pool.json", "openwiki/.claims/retry.json", "openwiki/pool.md", "openwiki/retry.md",
    ]  # fmt: skip
    page = Page.parse(after["openwiki/retry.md"].decode())
    assert page.body == "\n# Retries\n\nA failing task is tried 5 times. The wait doubles after each retry.\n"

    # run again on the same push: the branch already holds this fix, nothing is written
    requests = len(actions_github.requests)
    again = await run_check_step(tmp_path, shop.local.root, "push", push_event(shop), {"fix": "true", **model}, env)
    assert again.status == 1 and again.outputs["pull-request"] == url
    assert shop.remote.refs["refs/heads/wikiwarden/fix/master"] == fix_sha and len(shop.remote.pulls) == 1
    made = actions_github.requests[requests:]
    assert [r for r in made if r.method in ("POST", "PATCH", "PUT", "DELETE") and r.path != "/graphql"] == []
    assert f"Fix pull request #{pull['number']} already holds this fix" in again.summary


def pull_request_event(shop: Shop, number: int, **head: Any) -> dict[str, Any]:
    payload = example("pull_request.opened.2")
    payload["number"] = number
    pull = payload["pull_request"]
    pull["number"] = number
    pull["head"].update(sha=shop.head, **head)
    pull["base"]["sha"] = shop.base
    return payload


async def test_a_pull_request_without_a_model_gets_the_re_anchoring_and_a_neutral_step(
    actions_github: FakeGitHub, shop: Shop, tmp_path: Path
) -> None:
    shop.local.write(".github/wikiwarden.yml", "conclusion: neutral\n")  # the App's setting, read by the Action
    shop.head = shop.local.commit("check quietly")
    publish(shop.remote, shop.local, "master", "changes")
    opened = shop.remote.open_pull("changes", "master", title="Retry harder")
    token = workflow_token(actions_github)
    env = github_env(actions_github, token, GITHUB_SHA=shop.head, GITHUB_REF=f"refs/pull/{opened['number']}/merge")

    step = await run_check_step(
        tmp_path, shop.local.root, "pull_request", pull_request_event(shop, opened["number"]), {"fix": "true"}, env
    )

    assert (step.status, step.stderr) == (0, ""), step.stdout  # neutral: the step passes, the annotations remain
    [pull] = [p for p in shop.remote.pulls if p["head"]["ref"] == "wikiwarden/fix/changes"]
    assert pull["base"]["ref"] == "changes" and pull["user"]["login"] == ACTIONS_BOT
    assert pull["number"] != opened["number"]
    found = annotations(step.stdout)
    assert len([line for line in found if line.startswith("::error file=src/retry.py,")]) == 2
    status = f"Fix pull request #{pull['number']} opened: 1 re-anchored, 2 still flagged. 2 claims still need a person."
    assert found[-1] == f"::notice title=Wikiwarden fix::{status}"
    assert step.outputs["needs-attention"] == "true" and step.outputs["stale"] == "2"
    assert step.outputs["pull-request"] == f"https://github.com/{OWNER}/{NAME}/pull/{pull['number']}"
    # no model: only the moved evidence is re-anchored, and the stale claims are left to a person
    fix_sha = shop.remote.refs["refs/heads/wikiwarden/fix/changes"]
    before, after = shop.remote.files_at(shop.head), shop.remote.files_at(fix_sha)
    assert sorted(p for p in after if before.get(p) != after[p]) == [
        "openwiki/.claims/pool.json", "openwiki/.claims/retry.json", "openwiki/pool.md", "openwiki/retry.md",
    ]  # fmt: skip
    assert b'"resource": "repo://src/pool.py#L2-L2"' in after["openwiki/.claims/pool.json"]
    assert [json.loads(after["openwiki/.claims/retry.json"])["claims"][i]["evidence"] for i in (0, 1)] == [
        json.loads(before["openwiki/.claims/retry.json"])["claims"][i]["evidence"] for i in (0, 1)
    ]  # the stale claims are left as they were, for a person
    assert "verified" in Page.parse(after["openwiki/pool.md"].decode()).fields()
    assert "verified" not in Page.parse(after["openwiki/retry.md"].decode()).fields()
    assert f"<!-- wikiwarden:fix since={shop.base} change=" in pull["body"]


async def test_a_fork_pull_request_is_checked_and_gets_no_fix(
    actions_github: FakeGitHub, shop: Shop, tmp_path: Path
) -> None:
    publish(shop.remote, shop.local, "master", "changes")
    payload = pull_request_event(shop, 1)
    payload["pull_request"]["head"]["repo"]["full_name"] = "someone/Hello-World"
    env = github_env(actions_github, workflow_token(actions_github), GITHUB_SHA=shop.head)

    step = await run_check_step(tmp_path, shop.local.root, "pull_request", payload, {"fix": "true"}, env)

    assert step.status == 1 and step.outputs["stale"] == "2" and step.outputs["pull-request"] == ""
    assert annotations(step.stdout)[-1].startswith("::notice title=Wikiwarden fix::This pull request comes from a fork")
    assert shop.remote.pulls == [] and actions_github.requests == []  # not one request: nothing can be pushed there


async def test_a_shallow_checkout_says_to_fetch_the_whole_history(
    actions_github: FakeGitHub, shop: Shop, tmp_path: Path
) -> None:
    shop.local.git("checkout", "-q", "master")
    shop.local.git("merge", "-q", "--ff-only", "changes")
    shallow = tmp_path / "shallow"  # what actions/checkout fetches by default: the pushed commit alone
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", "--branch", "master", f"file://{shop.local.root}", str(shallow)],
        check=True, capture_output=True, env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"},
    )  # fmt: skip
    env = github_env(actions_github, workflow_token(actions_github), GITHUB_SHA=shop.head)

    step = await run_check_step(tmp_path, shallow, "push", push_event(shop), {}, env)

    assert step.status == 2 and step.stderr == ""
    [error] = annotations(step.stdout)
    assert error.startswith(
        "::error title=Wikiwarden::The checkout is too shallow for this check: set `fetch-depth: 0` on "
        "actions/checkout (it fetches one commit by default), so the commits this event compares are in it."
    )
    assert step.summary == "" and set(step.outputs.values()) == {""}


async def test_a_fix_github_refuses_fails_the_step_saying_what_the_token_needs(
    actions_github: FakeGitHub, shop: Shop, tmp_path: Path
) -> None:
    shop.local.git("checkout", "-q", "master")
    shop.local.git("merge", "-q", "--ff-only", "changes")
    publish(shop.remote, shop.local, "master")
    refusal = "GitHub Actions is not permitted to create or approve pull requests."
    actions_github.fail_next("POST", r"/pulls$", 403, body={"message": refusal, "documentation_url": "https://docs"})
    env = github_env(actions_github, workflow_token(actions_github), GITHUB_SHA=shop.head)

    step = await run_check_step(
        tmp_path, shop.local.root, "push", push_event(shop), {"fix": "true", "conclusion": "neutral"}, env
    )

    assert (step.status, step.stderr) == (2, "")
    assert annotations(step.stdout)[-1] == (
        f"::error title=Wikiwarden::Wikiwarden could not propose the fix: GitHub refused it (403 Forbidden: {refusal}). "
        "The token must be allowed to write contents and pull requests (`permissions: contents: write, "
        "pull-requests: write` in the workflow), and for the workflow's GITHUB_TOKEN the repository must allow "
        "GitHub Actions to create pull requests (Settings, Actions, General, Workflow permissions)."
    )
    assert step.outputs["stale"] == "2" and step.outputs["pull-request"] == ""  # the check's report stands
    assert step.summary.startswith("**3 claims on 2 pages") and "Wikiwarden fix" not in step.summary


async def test_the_checkouts_own_code_is_never_run(actions_github: FakeGitHub, shop: Shop, tmp_path: Path) -> None:
    """The step runs in the checkout (the workspace), whose code is untrusted: a repository with a `bot` package of
    its own must not have it imported in Wikiwarden's place."""
    shop.local.git("checkout", "-q", "master")
    shop.local.git("merge", "-q", "--ff-only", "changes")
    ran = tmp_path / "the checkout's code ran"
    for module in ("bot/__init__.py", "bot/__main__.py", "bot/cli.py"):
        shop.local.write(module, f"import pathlib\npathlib.Path({str(ran)!r}).write_text('yes')\n")
    env = github_env(actions_github, workflow_token(actions_github), GITHUB_SHA=shop.head)

    step = await run_check_step(tmp_path, shop.local.root, "push", push_event(shop), {}, env)

    assert not ran.exists()
    assert (step.status, step.stderr, step.outputs["stale"]) == (1, "", "2")


async def test_one_config_file_the_action(
    actions_github: FakeGitHub, make_repo: Callable[..., GitRepo], tmp_path: Path
) -> None:
    """tests/oneconfig.py: `wiki_dir: docs` and an exclude read from the checkout; the same answer as the command
    line, the pre-commit hook and the App give from the same file."""
    local = make_repo("configured")
    local.git("branch", "-m", "master")
    write(local, {path: text.encode() for path, text in oneconfig.BEFORE.items()})
    base = local.commit("before")
    for path in oneconfig.DELETED:
        local.git("rm", "-q", path)
    head = local.commit("after")
    remote = actions_github.create_repo(OWNER, NAME, INSTALLATION, default_branch="master")
    publish(remote, local, "master")
    payload = example("push.5")
    payload.update(created=False, before=base, after=head, ref="refs/heads/master")
    payload["head_commit"] = {**payload["head_commit"], "id": head}
    env = github_env(actions_github, workflow_token(actions_github), GITHUB_SHA=head, GITHUB_REF="refs/heads/master")

    step = await run_check_step(tmp_path, local.root, "push", payload, {}, env)

    assert step.status == 1, step.stdout + step.stderr
    assert step.outputs["broken-references"] == str(len(oneconfig.FAILING))
    found = annotations(step.stdout)
    errors = [line for line in found if line.startswith("::error")]
    assert [line.split("::")[1] for line in errors] == [
        f"error file={page},line={line},endLine={line},title=Wiki reference broken%3A {page}"
        for page, line, _ in oneconfig.FAILING
    ]
    assert "legacy" not in "\n".join(found)
    assert "; 1 broken reference; 1 reference note; the references of 1 page checked**" in step.summary


# -- hostile checkouts and large reports -------------------------------------------------------------------------


async def test_a_page_name_that_is_not_utf8_is_reported_through_every_output(
    make_repo: Callable[..., GitRepo], tmp_path: Path
) -> None:
    """A full check (a scheduled run) of a wiki holding a page whose name is not UTF-8 (git keeps names as bytes):
    the name is written escaped (`\\udce9` for the byte 0xe9), as the command line prints it, and the step ends with
    its outputs set and its summary written."""
    local = make_repo("latin1")
    write(local, grounded({"src/retry.py": RETRY}, {"retry.md": CLAIMS["retry.md"]}, texts={"retry.md": RETRY_PAGE}))
    local.write(os.fsdecode(b"openwiki/caf\xe9.md"), "# Caf\n\nA page of its own, without claims.\n")
    head = local.commit("a page named in Latin-1")
    env = {"GITHUB_TOKEN": "ghs_unused", "GITHUB_SHA": head}

    step = await run_check_step(tmp_path, local.root, "schedule", {"schedule": "0 3 * * *"}, {}, env)

    assert (step.status, step.stderr) == (0, ""), step.stdout
    assert "| openwiki/caf\\udce9.md | 0 | 1 | 0 |" in step.summary  # the coverage table's row
    assert step.outputs["claims"] == "2" and step.outputs["needs-attention"] == "false"


async def test_the_job_summary_with_the_fix_stays_within_githubs_limit(
    actions_github: FakeGitHub, shop: Shop, tmp_path: Path
) -> None:
    """A report larger than a job summary holds (12,000 broken references: 1.07 MB of Markdown) is cut so that
    the fix's section, written after the fix, still fits: the whole summary stays within GitHub's 1 MiB."""
    shop.local.write(
        "openwiki/gone.md",
        "# Gone\n\n" + "".join(f"See `src/gone/file_{n:05d}.py`.\n" for n in range(12_000)),
    )
    shop.head = shop.local.commit("a page of paths that do not exist")
    shop.local.git("checkout", "-q", "master")
    shop.local.git("merge", "-q", "--ff-only", "changes")
    publish(shop.remote, shop.local, "master")
    env = github_env(actions_github, workflow_token(actions_github), GITHUB_SHA=shop.head)
    payload = push_event(shop)
    payload.update(created=True, before="0" * 40)  # the default branch's first push: every page is checked

    step = await run_check_step(
        tmp_path, shop.local.root, "push", payload, {"fix": "true", "conclusion": "neutral"}, env
    )

    assert (step.status, step.stderr) == (0, ""), step.stdout
    assert step.outputs["broken-references"] == "12000"
    [pull] = [p for p in shop.remote.pulls if p["head"]["ref"] == "wikiwarden/fix/master"]
    assert "_…the report was cut here to fit; run `wikiwarden check` locally for the rest._" in step.summary
    assert step.summary.endswith(f"https://github.com/{OWNER}/{NAME}/pull/{pull['number']}\n")
    assert len(step.summary.encode()) <= 1 << 20


@pytest.mark.parametrize("key", ["", "0123456789abcdef" * 4], ids=["no-cache-key", "cache-key"])
async def test_a_forged_memory_in_the_checkout_gives_the_step_of_cache_false(
    actions_github: FakeGitHub, shop: Shop, tmp_path: Path, key: str
) -> None:
    """Issue 42: a step before the check (or a restored cache) empties the evidence index the base's check kept; the
    push's check, run as action.yml runs it (`-I -m bot action` in bash, `cache-key` mapped through `env:`), gives
    the outputs and the exit status of `cache: false`, and says which file it did not use."""
    publish(shop.remote, shop.local, "master", "changes")
    inputs = {"cache-key": key}
    env = github_env(actions_github, workflow_token(actions_github), GITHUB_SHA=shop.base)
    first = await run_check_step(tmp_path, shop.local.root, "workflow_dispatch", {"repository": {"id": 7}}, inputs, env)
    assert first.status == 0 and first.outputs["claims"] == "3"  # the base's memory is kept
    forge(shop.local.root / ".git" / "wikiwarden", "index", "plain digest" if key else "edited", {})
    env["GITHUB_SHA"] = shop.head
    expected = await run_check_step(
        tmp_path, shop.local.root, "push", push_event(shop), inputs | {"cache": "false"}, env
    )
    assert expected.status == 1 and expected.outputs["stale"] == "2"

    step = await run_check_step(tmp_path, shop.local.root, "push", push_event(shop), inputs, env)

    assert (step.status, step.stderr, step.outputs) == (expected.status, "", expected.outputs)
    said = [line for line in annotations(step.stdout) if "evidence-index-v1.json is " in line]
    assert len(said) == 1 and said[0].startswith("::notice title=Wikiwarden cache::")
