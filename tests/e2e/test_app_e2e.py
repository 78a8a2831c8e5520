"""The App end to end: signed webhooks built from GitHub's example payloads are delivered to the real aiohttp
application, which talks to the fake GitHub over loopback with the real gidgethub client; the assertions are
on the check runs GitHub received."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time

import pytest
from apptools import (
    ZERO,
    check_payload,
    deliver,
    grounded,
    pull_request_payload,
    push_payload,
    queue_of,
    runs_of,
    start_app,
)
from fakegithub import FakeGitHub
from inertcheck import assert_inert_markdown, assert_inert_plain, read, visible
from processes import metric

from bot.claims.sidecar import parse_sidecar, render_sidecar

QUEUE = (
    "class Queue:\n    def push(self, x):\n        self.items.append(x)\n\n"
    "    def pop(self):\n        return self.items.pop(0)\n"
)
POOL = "WORKERS = 4\n\n\ndef run(tasks):\n    return [t() for t in tasks]\n"
CONFIG = "TIMEOUT = 30\n"
LEGACY = "def old():\n    return 0\n"
KEEP = "KEEP = 1\n"

CLAIMS = {
    "queue.md": [
        ("push appends", ["repo://src/queue.py#L2-L3"]),
        ("pop takes the first", ["repo://src/queue.py#L5-L6"]),
    ],
    "pool.md": [("four workers", ["repo://src/pool.py#L1"]), ("run runs all", ["repo://src/pool.py#L4-L5"])],
    "config.md": [("timeout is 30", ["repo://src/config.py#L1"])],
    "legacy.md": [("old returns 0", ["repo://src/legacy.py#L1-L2"])],
    "keep.md": [("keep is one", ["repo://src/keep.py#L1"])],
}


@pytest.fixture
def repo(fake: FakeGitHub):
    repo = fake.create_repo("acme", "widgets", 77)
    code = {
        "src/queue.py": QUEUE,
        "src/pool.py": POOL,
        "src/config.py": CONFIG,
        "src/legacy.py": LEGACY,
        "src/keep.py": KEEP,
    }
    repo.base = repo.commit(grounded(code, CLAIMS), message="code and wiki")
    return repo


async def push(app, fake: FakeGitHub, repo, before: str, after: str, **fields) -> tuple[int, dict]:
    result = await deliver(
        app, "push", push_payload(repo, before=before, after=after, **fields), secret=fake.webhook_secret
    )
    await queue_of(app).wait_idle()
    return result


def claims_in(run: dict) -> str:
    return run["output"]["summary"]


async def test_every_verdict_on_a_push(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit(
        {
            "src/queue.py": "# header\n" + QUEUE.replace("pop(0)", "popleft()"),  # push moved, pop changed
            "src/pool.py": None,
            "src/workers/pool.py": POOL,  # renamed: moved
            "src/config.py": CONFIG.replace("\n", "\r\n"),  # cosmetic
            "src/legacy.py": None,  # unresolved
        },
        message="rework",
    )
    status, body = await push(app, fake, repo, repo.base, head)
    assert (status, body["jobs"]) == (202, ["check"])
    [run] = runs_of(repo, head)
    assert run["status"] == "completed" and run["conclusion"] == "neutral"
    assert run["output"]["title"].startswith("1 stale, 1 unresolved")
    assert "4 to re-anchor" in run["output"]["title"]
    summary = claims_in(run)
    assert "### Made stale by this change (2)" in summary
    assert "### Moved or cosmetic: a fix re-anchors them, nothing to decide (4)" in summary
    assert "repo://src/pool.py#L4-L5` → `repo://src/workers/pool.py#L4-L5`" in summary
    assert "keep is one" not in summary  # cites nothing the push touched
    annotations = {(a["path"], a["start_line"], a["end_line"]): a for a in run["annotations"]}
    stale = annotations[("src/queue.py", 6, 7)]
    assert "pop takes the first" in stale["message"] and "openwiki/queue.md" in stale["title"]
    assert "-        return self.items.pop(0)" in stale["raw_details"]
    assert len(annotations) == 1  # legacy.py was deleted: no line to annotate, the summary lists it
    assert run["actions"] == [
        {"label": "Fix wiki", "description": "Open a pull request fixing the wiki", "identifier": "fix_wiki"}
    ]


async def test_a_push_that_keeps_every_claim_succeeds(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/keep.py": "# a comment\n" + KEEP, "README.md": "hello\n"}, message="docs")
    await push(app, fake, repo, repo.base, head)
    [run] = runs_of(repo, head)
    assert run["conclusion"] == "success"
    assert run["output"]["title"] == "1 to re-anchor"
    assert run.get("actions", []) == [] and run["annotations"] == []


async def test_unresolved_evidence_is_annotated_where_its_text_stood(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/queue.py": QUEUE.split("\n    def pop", maxsplit=1)[0] + "\n"}, message="drop pop")
    await push(app, fake, repo, repo.base, head)
    [run] = runs_of(repo, head)
    [annotation] = run["annotations"]
    assert annotation["path"] == "src/queue.py" and annotation["start_line"] == annotation["end_line"] == 4
    assert "deleted it here" in annotation["message"]


async def test_a_push_of_400_files_goes_past_compares_300_file_cap(app, fake: FakeGitHub, repo) -> None:
    files = {f"gen/file_{n:03}.txt": f"generated {n}\n" for n in range(400)}
    files["src/queue.py"] = QUEUE.replace("append", "insert")
    head = repo.commit(files, message="400 files")
    await push(app, fake, repo, repo.base, head)
    [run] = runs_of(repo, head)
    assert run["conclusion"] == "neutral" and "push appends" in claims_in(run)
    trees = [r for r in fake.requests if r.method == "GET" and "/git/trees/" in r.path]
    assert len(trees) == 2  # the compare listing was capped: the two trees were compared instead


async def test_a_force_push_is_compared_tree_to_tree_with_what_it_replaced(app, fake: FakeGitHub, repo) -> None:
    first = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="stale keep")
    # Force-push: a new commit on top of the original base that never had `first`.
    replacement = repo.commit_tree({"src/pool.py": POOL.replace("4", "8")}, parents=[repo.base], message="replace")
    repo.set_ref("main", replacement)
    await push(app, fake, repo, first, replacement, forced=True)
    [run] = runs_of(repo, replacement)
    summary = claims_in(run)
    # From `first` to the replacement: keep.py went back to KEEP = 1 (fresh again), pool.py changed.
    assert "four workers" in summary and "keep is one" not in summary
    assert not any("/compare/" in r.path for r in fake.requests)


async def test_deleted_branches_and_tags_are_not_checked(app, fake: FakeGitHub, repo) -> None:
    status, body = await push(app, fake, repo, repo.base, ZERO, branch="feature", deleted=True)
    assert (status, body["jobs"]) == (202, [])
    status, body = await push(app, fake, repo, ZERO, repo.base, ref="refs/tags/v1.0", created=True)
    assert (status, body["jobs"]) == (202, [])
    assert repo.check_runs == []


async def test_a_new_branch_is_compared_with_the_default_branch(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 5\n"}, message="branch work", branch="feature", start_from="main")
    await push(app, fake, repo, ZERO, head, branch="feature", created=True)
    [run] = runs_of(repo, head)
    assert "keep is one" in claims_in(run) and run["conclusion"] == "neutral"


async def test_pull_request_and_its_branch_push_share_one_check_run(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 5\n"}, message="work", branch="feature", start_from="main")
    number = repo.open_pull("feature", "main", title="Work")["number"]
    payload = pull_request_payload(repo, "opened", number, head_sha=head, head_ref="feature", base_sha=repo.base)
    status, _ = await deliver(app, "pull_request", payload, secret=fake.webhook_secret)
    await queue_of(app).wait_idle()
    await push(app, fake, repo, repo.base, head, branch="feature")
    runs = runs_of(repo, head)
    assert len(runs) == 1 and status == 202
    assert "keep is one" in claims_in(runs[0])


async def test_fork_pull_request_is_checked_without_a_fix_button(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit_tree({"src/keep.py": "KEEP = 9\n"}, parents=[repo.base], message="from a fork")
    repo.set_ref("refs/pull/7/head", head)
    payload = pull_request_payload(
        repo, "opened", 7, head_sha=head, head_ref="main", base_sha=repo.base, fork="stranger/widgets"
    )
    await deliver(app, "pull_request", payload, secret=fake.webhook_secret)
    await queue_of(app).wait_idle()
    [run] = runs_of(repo, head)
    assert run["conclusion"] == "neutral" and run.get("actions", []) == []
    assert "comes from a fork" in claims_in(run)


async def test_signatures_are_mandatory(app, fake: FakeGitHub, repo) -> None:
    payload = push_payload(repo, before=repo.base, after=repo.base)
    assert (await deliver(app, "push", payload, secret="not-the-secret-at-all"))[0] == 401
    assert (await deliver(app, "push", payload, secret=fake.webhook_secret, signature=""))[0] == 401
    assert (await deliver(app, "push", payload, secret=fake.webhook_secret, signature="sha256=" + "0" * 64))[0] == 401
    response = await app.post("/webhook", data=b"not json", headers={"X-GitHub-Event": "push"})
    assert response.status == 401  # the signature is checked before the body is read as JSON
    await queue_of(app).wait_idle()
    assert repo.check_runs == [] and fake.token_mints == 0


async def test_a_replayed_delivery_runs_once(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    payload = push_payload(repo, before=repo.base, after=head)
    first = await deliver(app, "push", payload, secret=fake.webhook_secret, delivery="d-1")
    again = await deliver(app, "push", payload, secret=fake.webhook_secret, delivery="d-1")
    await queue_of(app).wait_idle()
    assert first[0] == 202 and again == (200, {"message": "already received"})
    assert len(runs_of(repo, head)) == 1
    assert sum(1 for r in fake.requests if r.method == "POST" and r.path.endswith("/check-runs")) == 1


async def test_the_in_process_queue_forgets_its_deliveries_with_its_jobs_when_serve_restarts(
    aiohttp_client, fake: FakeGitHub, repo
) -> None:
    """Without Redis, what the web process saw lives in its memory, as its queued jobs do: a restarted `serve` (a
    new application) takes a replay again, which is how GitHub's redelivery redoes work a restart lost; the commit
    is checked again, into its run. The README says so; only the Redis queue remembers deliveries across restarts
    (tests/jobs/test_redis_queue.py)."""
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    payload = push_payload(repo, before=repo.base, after=head)
    before = await start_app(aiohttp_client, fake)
    first = await deliver(before, "push", payload, secret=fake.webhook_secret, delivery="d-restart")
    await queue_of(before).wait_idle()
    await before.close()
    after = await start_app(aiohttp_client, fake)
    again = await deliver(after, "push", payload, secret=fake.webhook_secret, delivery="d-restart")
    await queue_of(after).wait_idle()
    assert first[0] == again[0] == 202 and again[1]["jobs"] == ["check"]
    [run] = runs_of(repo, head)  # checked twice, into the one run the first check made
    completed = [
        r for r in fake.requests if r.method == "PATCH" and r.path.endswith(f"/check-runs/{run['id']}")
    ]
    assert len(completed) == 2 and run["status"] == "completed"

async def test_events_caused_by_wikiwarden_itself_are_ignored(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit(
        {"openwiki/keep.md": "---\ntype: Concept\n---\nfixed\n"},
        message="fix",
        branch="wikiwarden/fix/main",
        start_from="main",
    )
    status, body = await push(app, fake, repo, repo.base, head, branch="wikiwarden/fix/main", sender=fake.bot_login)
    assert (status, body["message"]) == (202, "ignored: caused by Wikiwarden itself")
    assert repo.check_runs == []


async def test_an_invalid_config_file_fails_the_run_saying_what_is_wrong(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({".github/wikiwarden.yml": "conclusion: red\nlimits: {max_annotations: -1}\n"}, message="cfg")
    await push(app, fake, repo, repo.base, head)
    [run] = runs_of(repo, head)
    assert run["conclusion"] == "failure"
    assert run["output"]["title"] == ".github/wikiwarden.yml is not valid"
    shown = "".join(read(run["output"]["summary"]).texts)  # the file's words are shown as written, not as Markdown
    assert "`conclusion`: Input should be 'neutral', 'failure' or 'action_required'" in shown
    assert "`limits.max_annotations`" in shown


async def test_the_config_chooses_the_conclusion_and_wiki_folder(app, fake: FakeGitHub) -> None:
    repo = fake.create_repo("acme", "docs", 77)
    files = grounded({"lib/a.py": "A = 1\n"}, {"a.md": [("a is one", ["repo://lib/a.py#L1"])]}, wiki="docs/wiki")
    files[".github/wikiwarden.yml"] = "wiki_dir: docs/wiki\nconclusion: failure\n"
    base = repo.commit(files, message="init")
    head = repo.commit({"lib/a.py": "A = 2\n"}, message="edit")
    await push(app, fake, repo, base, head)
    [run] = runs_of(repo, head)
    assert run["conclusion"] == "failure" and "a is one" in claims_in(run)


async def test_github_failing_is_retried_then_reported(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    fake.fail_next("GET", r"/git/trees/", 502, times=2)
    fake.fail_next("POST", r"^/graphql$", 500, times=1)
    await push(app, fake, repo, repo.base, head)
    [run] = runs_of(repo, head)
    assert run["conclusion"] == "neutral" and "keep is one" in claims_in(run)
    # the job ran in its own process: its retries show as the failed answers it got past, at the fake
    assert sum(r.status in (500, 502) for r in fake.requests) >= 3

    later = repo.commit({"src/keep.py": "KEEP = 3\n"}, message="y")
    fake.fail_next("GET", r"/compare/", 503, times=50)
    await push(app, fake, repo, head, later)
    [failed] = runs_of(repo, later)
    assert failed["conclusion"] == "failure"
    assert failed["output"]["title"] == "Wikiwarden could not check this commit"
    assert "GitHub answered 503" in failed["output"]["summary"]
    assert "ghs_" not in json.dumps(failed)  # no token in what users see


async def test_rate_limits_are_honoured(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    fake.fail_next(
        "GET",
        r"/compare/",
        403,
        headers={"retry-after": "1"},
        body={"message": "You have exceeded a secondary rate limit."},
    )
    reset = str(int(time.time()) + 1)
    fake.fail_next(
        "POST",
        r"/check-runs$",
        429,
        headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset},
        body={"message": "API rate limit exceeded"},
    )
    started = time.monotonic()
    await push(app, fake, repo, repo.base, head)
    [run] = runs_of(repo, head)
    assert run["conclusion"] == "neutral"
    assert time.monotonic() - started >= 1.0  # it waited as told


async def test_a_rate_limit_longer_than_the_allowed_wait_fails_visibly(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    fake.fail_next(
        "GET", r"/compare/", 403, headers={"retry-after": "3600"}, body={"message": "secondary rate limit"}, times=3
    )
    await push(app, fake, repo, repo.base, head)
    [run] = runs_of(repo, head)  # three tries, one run: only the last try reports
    assert run["conclusion"] == "failure" and "GitHub answered 403" in run["output"]["summary"]
    assert len([r for r in fake.requests if "/compare/" in r.path]) == 3


async def test_a_job_that_fails_once_is_tried_again_and_succeeds(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    fake.fail_next("GET", r"/compare/", 403, headers={"retry-after": "3600"}, body={"message": "secondary rate limit"})
    await push(app, fake, repo, repo.base, head)
    [run] = runs_of(repo, head)
    assert run["status"] == "completed" and run["conclusion"] == "neutral"
    assert [h["body"].get("conclusion") for h in run["history"] if h["method"] == "PATCH"] == ["neutral"]


async def test_one_token_serves_many_deliveries(app, fake: FakeGitHub, repo) -> None:
    heads = [repo.commit({"src/keep.py": f"KEEP = {n}\n"}, message=str(n)) for n in range(2, 6)]
    before = repo.base
    for head in heads:
        await deliver(app, "push", push_payload(repo, before=before, after=head), secret=fake.webhook_secret)
        before = head
    await queue_of(app).wait_idle()
    assert fake.token_mints == 1
    assert all(runs_of(repo, h) for h in heads[-1:])


async def test_a_newer_push_supersedes_a_queued_older_one(aiohttp_client, fake: FakeGitHub, repo) -> None:
    app = await start_app(aiohttp_client, fake, workers=1)
    heads = [repo.commit({"src/keep.py": f"KEEP = {n}\n"}, message=str(n)) for n in range(2, 7)]
    before = repo.base
    for head in heads:
        await deliver(app, "push", push_payload(repo, before=before, after=head), secret=fake.webhook_secret)
        before = head
    await queue_of(app).wait_idle()
    assert queue_of(app).superseded >= 1
    assert runs_of(repo, heads[-1])  # the newest head is always checked
    assert len(repo.check_runs) < len(heads)


async def test_check_suite_rerequested_makes_a_new_run(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    await push(app, fake, repo, repo.base, head)
    payload = check_payload("check_suite", "rerequested", repo, head_sha=head, before=repo.base)
    await deliver(app, "check_suite", payload, secret=fake.webhook_secret)
    await queue_of(app).wait_idle()
    runs = runs_of(repo, head)
    assert len(runs) == 2 and all(r["conclusion"] == "neutral" for r in runs)


async def test_the_fix_wiki_button_queues_a_fix(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    await push(app, fake, repo, repo.base, head)
    [run] = runs_of(repo, head)
    payload = check_payload(
        "check_run", "requested_action", repo, head_sha=head, run_id=run["id"], identifier="fix_wiki"
    )
    status, body = await deliver(app, "check_run", payload, secret=fake.webhook_secret)
    await queue_of(app).wait_idle()
    assert (status, body["jobs"]) == (202, ["fix"])


async def test_many_stale_claims_are_annotated_in_batches_of_50(aiohttp_client, fake: FakeGitHub) -> None:
    repo = fake.create_repo("acme", "big", 77)
    code = {"src/many.py": "".join(f"VALUE_{n} = {n}\n# {n}\n" for n in range(120))}  # each value its own hunk
    claims = {"many.md": [(f"value {n}", [f"repo://src/many.py#L{2 * n + 1}"]) for n in range(120)]}
    base = repo.commit(grounded(code, claims), message="init")
    changed = "".join(f"VALUE_{n} = {n + 1}\n# {n}\n" for n in range(120))
    head = repo.commit({"src/many.py": changed}, message="all change")
    app = await start_app(aiohttp_client, fake)
    await push(app, fake, repo, base, head)
    [run] = runs_of(repo, head)
    assert [(a["path"], a["start_line"], a["end_line"], a["annotation_level"]) for a in run["annotations"]] == [
        ("src/many.py", 2 * n + 1, 2 * n + 1, "warning") for n in range(120)
    ]  # every stale claim's, in the wiki's order
    assert [a["message"].split("\n\n")[0] for a in run["annotations"]] == [f"value {n}" for n in range(120)]
    assert {a["title"] for a in run["annotations"]} == {"Wiki claim stale: openwiki/many.md"}
    patches = [r.body for r in fake.requests if r.method == "PATCH" and "/check-runs/" in r.path]
    assert [len(p["output"].get("annotations", [])) for p in patches] == [50, 50, 20]
    assert [a for p in patches for a in p["output"]["annotations"]] == run["annotations"]  # sent in order, once
    assert len(run["output"]["summary"]) <= 65_535


async def test_a_huge_payload_is_accepted_and_health_answers(app, fake: FakeGitHub, repo) -> None:
    payload = push_payload(repo, before=repo.base, after=repo.base)
    payload["commits"] = [
        {"id": f"{n:040x}", "message": "x" * 1000, "added": [], "removed": [], "modified": []} for n in range(5000)
    ]
    status, _ = await deliver(app, "push", payload, secret=fake.webhook_secret)
    assert status == 202  # ~5 MB: above aiohttp's default 1 MiB limit
    await queue_of(app).wait_idle()
    health = await app.get("/healthz")
    assert health.status == 200 and (await health.json()) == {"status": "ok"}


async def test_acknowledgement_does_not_wait_for_the_work(aiohttp_client, fake: FakeGitHub, repo) -> None:
    app = await start_app(aiohttp_client, fake)
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    fake.fail_next("GET", r"/git/trees/", 502, times=3)  # slow the job down with retries
    started = time.monotonic()
    status, _ = await deliver(app, "push", push_payload(repo, before=repo.base, after=head), secret=fake.webhook_secret)
    elapsed = time.monotonic() - started
    assert status == 202
    await queue_of(app).wait_idle()
    assert runs_of(repo, head)
    assert elapsed < 5  # a generous bound: the point is that the job ran after the answer
    await asyncio.sleep(0)


async def test_ping_and_installation_events(app, fake: FakeGitHub, repo) -> None:
    from apptools import example

    assert (await deliver(app, "ping", example("ping.1"), secret=fake.webhook_secret)) == (200, {"message": "pong"})
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    await push(app, fake, repo, repo.base, head)
    assert fake.token_mints == 1
    removed = example("installation.deleted.1")
    removed["installation"]["id"] = 77
    status, body = await deliver(app, "installation", removed, secret=fake.webhook_secret)
    assert (status, body["jobs"]) == (202, [])
    later = repo.commit({"src/keep.py": "KEEP = 3\n"}, message="y")
    await push(app, fake, repo, head, later)
    assert fake.token_mints == 2  # the removed installation's token was dropped, a new one minted


# -- what can never succeed is not retried --------------------------------------------------------------------


def job_log(caplog: pytest.LogCaptureFixture) -> tuple[list[logging.LogRecord], list[logging.LogRecord]]:
    """The log records about the job's end: the warnings, and the errors (with tracebacks or not)."""
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and r.name.startswith("bot.")]
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("bot.")]
    return warnings, errors


def requests_to(fake: FakeGitHub, method: str, pattern: str) -> int:
    return sum(1 for r in fake.requests if r.method == method and re.search(pattern, r.path))


async def test_a_removed_installation_is_not_retried_and_the_log_says_why(
    app, fake: FakeGitHub, repo, caplog: pytest.LogCaptureFixture
) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    del fake.installations[77]  # uninstalled before the job ran
    caplog.set_level(logging.INFO)
    status, body = await push(app, fake, repo, repo.base, head)
    assert (status, body["jobs"]) == (202, ["check"])
    assert requests_to(fake, "POST", r"/app/installations/77/access_tokens$") == 1  # one try, not three
    warnings, errors = job_log(caplog)
    assert errors == []
    [line] = [r for r in warnings if "not retried" in r.getMessage()]
    message = line.getMessage()
    assert "acme/widgets" in message and "installation 77" in message and "no longer exists" in message
    assert line.exc_info is None and line.repo == "acme/widgets" and line.installation == 77
    assert (
        metric(await (await app.get("/metrics")).text(), "wikiwarden_jobs_total", kind="check", outcome="permanent")
        >= 1
    )


async def test_a_deleted_repository_is_not_retried_and_the_log_says_why(
    app, fake: FakeGitHub, repo, caplog: pytest.LogCaptureFixture
) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    fake.repos.pop("acme/widgets")
    fake.installations[77].repos.discard("acme/widgets")
    caplog.set_level(logging.INFO)
    await push(app, fake, repo, repo.base, head)
    assert requests_to(fake, "GET", r"/check-runs$") == 1
    assert requests_to(fake, "GET", r"^/repos/acme/widgets$") == 1  # asked once whether the repository is gone
    warnings, errors = job_log(caplog)
    assert errors == []
    [line] = [r for r in warnings if "not retried" in r.getMessage()]
    message = line.getMessage()
    assert "acme/widgets" in message and "installation 77" in message and "no longer exists" in message
    assert line.exc_info is None


async def test_access_refused_is_not_retried_and_the_check_run_says_so(
    app, fake: FakeGitHub, repo, caplog: pytest.LogCaptureFixture
) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    fake.fail_next("GET", r"/compare/", 403, body={"message": "Resource not accessible by integration"})
    caplog.set_level(logging.INFO)
    await push(app, fake, repo, repo.base, head)
    assert requests_to(fake, "GET", r"/compare/") == 1
    [run] = runs_of(repo, head)
    assert run["conclusion"] == "failure" and "403" in run["output"]["summary"]
    assert "permission" in run["output"]["summary"]
    warnings, errors = job_log(caplog)
    assert errors == [] and any(
        "not retried" in r.getMessage() and "installation 77" in r.getMessage() for r in warnings
    )


async def test_a_404_of_something_else_than_the_repository_is_tried_again(app, fake: FakeGitHub, repo) -> None:
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    fake.fail_next("GET", r"/git/trees/", 404)  # GitHub not yet showing a commit it just received
    await push(app, fake, repo, repo.base, head)
    [run] = runs_of(repo, head)
    assert run["conclusion"] == "neutral" and "keep is one" in claims_in(run)


async def test_a_revoked_token_is_dropped_and_the_next_try_succeeds(app, fake: FakeGitHub, repo) -> None:
    first = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    await push(app, fake, repo, repo.base, first)
    fake.expire_tokens(77)  # GitHub revoked the token the App still holds
    head = repo.commit({"src/keep.py": "KEEP = 3\n"}, message="y")
    await push(app, fake, repo, repo.base, head)
    [run] = runs_of(repo, head)
    assert run["conclusion"] == "neutral" and "keep is one" in claims_in(run)
    assert fake.token_mints == 2


async def test_hostile_statements_ids_and_page_names_get_an_inert_check_run(app, fake: FakeGitHub) -> None:
    """A wiki written to make the check run notify people, close issues, inject HTML or break its layout."""
    page = "@octocat closes #1 `x` </details>|<b>.md"
    statement = "pop takes the first: cc @acme/core, fixes other/repo#2 <img src=x onerror=alert(1)> | **b** ```"
    claim_id = "claim_`@octocat`</details>#3|GH-4"
    repo = fake.create_repo("acme", "hostile", 77)
    files = grounded({"src/queue.py": QUEUE}, {page: [(statement, ["repo://src/queue.py#L5-L6"])]})
    sidecar_path = "openwiki/.claims/" + page[:-3] + ".json"
    sidecar = parse_sidecar(files[sidecar_path], sidecar_path)
    [claim] = sidecar.claims
    files[sidecar_path] = render_sidecar(sidecar.with_claims([claim._replace(id=claim_id)]))
    base = repo.commit(files, message="a hostile wiki")
    broken = "openwiki/.claims/see https:__github.com_acme_hostile_issues_5 @octocat.json"
    change = {
        "src/queue.py": QUEUE.replace("pop(0)", "popleft()"),
        "openwiki/see https:__github.com_acme_hostile_issues_5 @octocat.md": "# broken\n",
        broken: '{"schemaVersion": 1, "claims": [{"id": "@octocat #6 <b>"',
    }
    head = repo.commit(change, message="rework")
    await push(app, fake, repo, base, head)

    [run] = runs_of(repo, head)
    assert run["conclusion"] == "neutral"
    assert_inert_plain(run["output"]["title"])
    details = r"<details><summary>what changed</summary>|</details>"
    summary = assert_inert_markdown(run["output"]["summary"], html=details)
    assert [visible(s) for s in summary.strong][1:] == [statement]  # after the counts, the statement, whole
    codes = [visible(c) for c in summary.codes]
    assert {"openwiki/" + page, claim_id, "repo://src/queue.py#L5-L6", broken} <= set(codes)
    [annotation] = run["annotations"]
    for field in ("title", "message"):
        assert_inert_plain(annotation[field])
    assert visible(annotation["title"]) == f"Wiki claim stale: openwiki/{page}"
    assert visible(annotation["message"]).startswith(f"{statement}\n\nThis code was the evidence for claim {claim_id} ")
    # the diff is code, shown verbatim (GitHub makes no reference in it)
    assert annotation["raw_details"].splitlines()[-2:] == [
        "-        return self.items.pop(0)", "+        return self.items.popleft()",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "name", ["src/ex#tra.py", "src/ex%tra.py", "src/ex%20tra.py", "src/ex?tra.py", "src/éx tra.py"]
)
async def test_a_rename_to_a_name_with_url_special_characters_is_checked(app, fake: FakeGitHub, repo, name) -> None:
    """A page names a file (and a function in it) that a push renames to a name holding `#`, `%`, `?`, a space or
    a non-ASCII letter: the App fetches the new file like any other, so the check says where the file went (it
    used to fail the run with NotFetched: the name was read as a resource cut at its `#`, or a bad escape)."""
    extra = "def extra_work():\n    return 1\n"
    page = "# Extra\n\nSee `src/extra.py` and its `extra_work()`.\n"
    base = repo.commit({"src/extra.py": extra, "openwiki/extra.md": page}, message="extra")
    head = repo.commit({"src/extra.py": None, name: extra}, message="rename")
    await push(app, fake, repo, base, head)
    [run] = runs_of(repo, head)
    assert (run["conclusion"], run["output"]["title"]) == ("neutral", "1 broken reference · 1 page without claims")
    shown = name.replace("#", "\\#")  # the summary is Markdown: `#` is escaped outside code
    assert f"- `openwiki/extra.md` line 3: `src/extra.py`: renamed by this change to {shown}\n" in claims_in(run)
    assert "extra_work" not in claims_in(run)  # still defined, in the renamed file
    [annotation] = run["annotations"]
    assert (annotation["path"], annotation["start_line"]) == (name, 1)
