"""The Redis queue with real processes: `wikiwarden serve` and `wikiwarden worker` as child processes, a real
redis-server, the fake GitHub served by the test. Jobs cross processes, survive a killed worker, run once
however many web processes receive a delivery, retry with backoff and end visibly."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import signal
import socket
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis
from apptools import ZERO, grounded, push_payload, runs_of, sign
from arq.connections import ArqRedis
from arq.constants import job_key_prefix
from arq.jobs import deserialize_job
from arq.worker import Worker, func
from fakegithub import FakeGitHub
from processes import Process, app_environment, eventually, metric, redis_server, redis_url, start_process

from bot.github.content.check_output import TOOK_TOO_LONG
from bot.jobs import Attempt, Job, PermanentFailure, RetryPolicy
from bot.jobs.redis import FUNCTION, NEWER_JOB_WAIT_SECONDS, QUEUE_NAME, REQUEUE_SECONDS, RedisQueue, job_function
from bot.jobs.requests import JOB_FORMAT, CheckRequest, RepoRef

__all__ = ["redis_server", "redis_url"]  # fixtures, used by name

CODE = {"src/queue.py": "def push(x):\n    items.append(x)\n", "src/keep.py": "KEEP = 1\n"}
CLAIMS = {
    "queue.md": [("push appends", ["repo://src/queue.py#L1-L2"])],
    "keep.md": [("keep", ["repo://src/keep.py#L1"])],
}


CAPTURED_JOB = Path(__file__).parents[1] / "data" / "jobs" / "check-edc4838.json"


def large_wiki(pages: int = 400) -> dict[str, bytes]:
    """`pages` pages, each citing its own module: a full check reads them all (slower than a short timeout)."""
    code = {f"src/m{n}.py": f"def f_{n}():\n    return {n}\n" for n in range(pages)}
    claims = {f"p{n}.md": [(f"f_{n} returns {n}", [f"repo://src/m{n}.py#L1-L2"])] for n in range(pages)}
    return grounded(code, claims)


@pytest.fixture
def repo(fake: FakeGitHub):
    repo = fake.create_repo("acme", "widgets", 77)
    repo.base = repo.commit(grounded(CODE, CLAIMS), message="code and wiki")
    return repo


@pytest.fixture
async def start(fake: FakeGitHub, redis_url: str, tmp_path: Path) -> AsyncIterator[Callable[..., Awaitable[Process]]]:
    started: list[Process] = []

    async def start_one(role: str, **overrides: Any) -> Process:
        process = await start_process(role, app_environment(fake, redis_url, **overrides), tmp_path)
        started.append(process)
        return process

    yield start_one
    for process in started:
        if process.proc.returncode is None:
            process.proc.kill()
            await process.proc.wait()


async def post(web: Process, payload: dict, secret: str, delivery: str, event: str = "push") -> tuple[int, dict]:
    body = json.dumps(payload).encode()
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": sign(body, secret),
        "Content-Type": "application/json",
    }
    async with aiohttp.ClientSession() as session, session.post(f"{web.url}/webhook", data=body, headers=headers) as r:
        return r.status, await r.json()


def completed_run(repo, head: str) -> dict | None:
    runs = runs_of(repo, head)
    return runs[0] if len(runs) == 1 and runs[0]["status"] == "completed" else None


async def test_a_job_enqueued_by_the_web_process_runs_in_a_worker_process(start, fake: FakeGitHub, repo) -> None:
    web = await start("web")
    worker = await start("worker")
    head = repo.commit({"src/queue.py": "def push(x):\n    items.insert(0, x)\n"}, message="x")
    status, body = await post(web, push_payload(repo, before=repo.base, after=head), fake.webhook_secret, "d-1")
    assert (status, body["jobs"]) == (202, ["check"])

    run = await eventually(lambda: completed_run(repo, head), what="the check run")
    assert run["conclusion"] == "neutral" and "1 stale" in run["output"]["title"]
    assert await worker.settled_metric("wikiwarden_jobs_total", 1, kind="check", outcome="completed") == 1
    web_metrics = await web.metrics()
    assert metric(web_metrics, "wikiwarden_jobs_total", kind="check", outcome="completed") == 0  # not run there
    assert metric(web_metrics, "wikiwarden_deliveries_total", event="push", outcome="accepted") == 1
    assert metric(await worker.metrics(), "wikiwarden_github_requests_total", method="POST", route="/repos/{owner}/{repo}/check-runs", status="2xx") == 1  # fmt: skip

    lines = [json.loads(line) for line in worker.logs().splitlines() if line.startswith("{")]
    assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    assert any(line.get("delivery") == "d-1" and line.get("repo") == "acme/widgets" for line in lines)
    for secret in (fake.webhook_secret, *fake.private_key_pem.splitlines()[1:3]):
        assert secret not in worker.logs() and secret not in web.logs()
    assert await worker.stop() == 0 and await web.stop() == 0


async def test_the_web_process_writes_the_lines_it_holds_when_it_stops(start, fake: FakeGitHub, repo) -> None:
    """`serve` holds its informational lines up to a second (`bot.logs.Batched`); stopped at once after a
    delivery, it still writes the delivery's line."""
    web = await start("web")
    head = repo.commit({"src/queue.py": "def push(x):\n    items.insert(0, x)\n"}, message="x")
    status, _ = await post(web, push_payload(repo, before=repo.base, after=head), fake.webhook_secret, "d-held")
    assert status == 202
    assert "d-held" not in web.logs()  # held
    assert await web.stop() == 0
    lines = [json.loads(line) for line in web.logs().splitlines() if line.startswith("{")]
    assert [(line["message"], line["delivery"]) for line in lines if line["level"] == "INFO"] == [
        ("delivery accepted", "d-held")
    ]


async def test_two_web_processes_receiving_the_same_delivery_run_it_once(start, fake: FakeGitHub, repo) -> None:
    web_a, web_b = await start("web"), await start("web")
    await start("worker")
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    payload = push_payload(repo, before=repo.base, after=head)
    answers = await asyncio.gather(
        post(web_a, payload, fake.webhook_secret, "same"), post(web_b, payload, fake.webhook_secret, "same")
    )
    assert sorted(len(body["jobs"]) for _, body in answers) == [0, 1]  # one of them enqueued it
    await eventually(lambda: completed_run(repo, head), what="the check run")
    await asyncio.sleep(1.0)  # give a second run every chance to appear
    assert len(runs_of(repo, head)) == 1
    assert len([r for r in fake.requests if r.method == "POST" and r.path.endswith("/check-runs")]) == 1


async def test_a_delivery_replayed_after_the_web_process_restarts_runs_once(start, fake: FakeGitHub, repo) -> None:
    """The delivery ids the web process saw are kept in Redis (three days, as long as GitHub redelivers): a web
    process started after a restart finds a replay seen and enqueues nothing."""
    web = await start("web")
    worker = await start("worker")
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    payload = push_payload(repo, before=repo.base, after=head)
    status, body = await post(web, payload, fake.webhook_secret, "d-before-restart")
    assert (status, body["jobs"]) == (202, ["check"])
    await eventually(lambda: completed_run(repo, head), what="the check run")
    assert await web.stop() == 0 and await worker.stop() == 0
    restarted = await start("web")  # a new process, its memory empty: only Redis remembers
    await start("worker")
    status, body = await post(restarted, payload, fake.webhook_secret, "d-before-restart")
    assert (status, body["jobs"]) == (202, [])  # accepted, and nothing enqueued: seen before
    await asyncio.sleep(1.0)  # give a second run every chance to appear
    assert len(runs_of(repo, head)) == 1
    assert len([r for r in fake.requests if r.method == "POST" and r.path.endswith("/check-runs")]) == 1


async def test_a_job_survives_its_worker_being_killed(start, fake: FakeGitHub, repo) -> None:
    web = await start("web", JOB_TIMEOUT_SECONDS=2)
    first = await start("worker", JOB_TIMEOUT_SECONDS=2)
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    fake.delay_next("GET", r"/compare/", 60)  # the job hangs here...
    await post(web, push_payload(repo, before=repo.base, after=head), fake.webhook_secret, "d-kill")
    await eventually(lambda: fake.held == 1, what="the job to reach GitHub")
    first.proc.kill()  # ...and its worker dies without a word
    await first.proc.wait()
    second = await start("worker", JOB_TIMEOUT_SECONDS=2)

    run = await eventually(lambda: completed_run(repo, head), timeout=45, what="the job to be taken up again")
    assert run["conclusion"] == "neutral"
    assert await second.settled_metric("wikiwarden_jobs_total", 1, kind="check", outcome="completed") == 1
    assert len(runs_of(repo, head)) == 1  # the second try finished the run the first one started


async def test_sigterm_lets_the_running_job_finish(start, fake: FakeGitHub, repo) -> None:
    web = await start("web")
    worker = await start("worker")
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    fake.delay_next("GET", r"/compare/", 1.5)
    await post(web, push_payload(repo, before=repo.base, after=head), fake.webhook_secret, "d-term")
    await eventually(lambda: fake.held == 1, what="the job to reach GitHub")
    assert await worker.stop(signal.SIGTERM) == 0  # waits for the job within the grace period
    assert completed_run(repo, head) is not None
    assert "stopping: 1 jobs running" in worker.logs()


async def test_a_failing_job_is_retried_with_backoff_and_ends_visibly(start, fake: FakeGitHub, repo) -> None:
    web = await start("web", MAX_RETRIES=0)
    worker = await start("worker", MAX_RETRIES=0, JOB_MAX_TRIES=3)
    head = repo.commit({"src/keep.py": "KEEP = 2\n"}, message="x")
    fake.fail_next("GET", r"/compare/", 502, times=3)
    await post(web, push_payload(repo, before=repo.base, after=head), fake.webhook_secret, "d-fail")

    run = await eventually(lambda: completed_run(repo, head), what="the failure to be reported")
    assert run["conclusion"] == "failure" and "GitHub answered 502" in run["output"]["summary"]
    assert await worker.settled_metric("wikiwarden_jobs_total", 1, kind="check", outcome="failed") == 1
    text = await worker.metrics()
    assert metric(text, "wikiwarden_jobs_total", kind="check", outcome="retried") == 2
    assert "job failed after 3 tries" in worker.logs()


async def test_a_job_past_its_deadline_in_a_worker_is_killed_and_reported_as_too_long(
    start, fake: FakeGitHub, repo
) -> None:
    """The Redis queue's worker runs the job in a child process too: a large (legal) wiki's full check outlasts a short
    job timeout; the check run says it took too long, after one try, and the worker stays healthy."""
    web = await start("web")
    worker = await start("worker", JOB_TIMEOUT_SECONDS=0.5, JOB_MAX_TRIES=3)
    head = repo.commit(large_wiki(), message="a large wiki", branch="big", start_from=repo.base)
    payload = push_payload(repo, branch="big", before=ZERO, after=head, created=True)
    await post(web, payload, fake.webhook_secret, "d-slow")

    run = await eventually(lambda: completed_run(repo, head), what="the run to be stopped")
    assert run["conclusion"] == "timed_out" and run["output"]["title"] == TOOK_TOO_LONG
    assert await worker.settled_metric("wikiwarden_jobs_total", 1, kind="check", outcome="timed_out") == 1
    assert metric(await worker.metrics(), "wikiwarden_jobs_total", kind="check", outcome="retried") == 0
    await worker.wait_healthy(timeout=2)  # the worker itself was never stopped


async def test_a_job_the_previous_version_queued_runs_after_the_upgrade(
    start, fake: FakeGitHub, repo, redis_url: str
) -> None:
    """A check job exactly as main (edc4838, no format number) left it in Redis, put back in Redis as it was, is
    taken by a worker of this version, upgraded and run: its check run is published, nothing is dropped."""
    captured = json.loads(CAPTURED_JOB.read_text())
    head = repo.commit({"src/queue.py": "def push(x):\n    items.insert(0, x)\n"}, message="x")
    assert head == captured["head_sha"]  # the same fake repository, so the captured job's commit
    client = redis.Redis.from_url(redis_url)
    try:
        job_id = captured["job_id"]
        client.set(job_key_prefix + job_id, base64.b64decode(captured["record_base64"]), px=86_400_000)
        client.zadd(QUEUE_NAME, {job_id: captured["score"]})
        for key, value in captured["latest"].items():
            client.set(key, value)
    finally:
        client.close()
    worker = await start("worker")

    run = await eventually(lambda: completed_run(repo, head), what="the old job to run")
    assert run["conclusion"] == "neutral" and "1 stale" in run["output"]["title"]
    assert await worker.settled_metric("wikiwarden_jobs_total", 1, kind="check", outcome="completed") == 1
    assert "cannot read" not in worker.logs() and "no version can read" not in worker.logs()


# -- the queue's semantics, with a real Redis and an arq worker in this process -----------------------------


def check_job(key: str, delivery: str, n: int = 1) -> Job:
    """A check job as the webhook handlers make them (what the queue carries is a typed request)."""
    repo = RepoRef(installation_id=1, full_name="acme/widgets", id=n)
    return Job(key, delivery, CheckRequest(repo=repo, head_sha=f"{n:040x}"))


async def test_deliveries_are_enqueued_once_and_a_newer_job_supersedes_a_queued_older_one(redis_url: str) -> None:
    queue = RedisQueue(redis_url)
    await queue.start()
    ran: list[tuple[str, int]] = []

    async def handler(job: Job, attempt: Attempt) -> None:
        ran.append((job.delivery, attempt.number))

    try:
        assert await queue.submit(check_job("1:branch:main", "d1", 1))
        assert not await queue.submit(check_job("1:branch:main", "d1", 1))  # the same delivery
        assert await queue.submit(check_job("1:branch:main", "d2", 2))  # newer, same key
        assert await queue.submit(check_job("2:branch:main", "d3", 3))  # another key
        assert await queue.depth() == 3
        worker = Worker(
            functions=[func(job_function(handler, RetryPolicy(3, 0.01), 10), name=FUNCTION)],
            queue_name=QUEUE_NAME, redis_pool=queue.pool, burst=True, poll_delay=0.05, handle_signals=False,
        )  # fmt: skip
        await worker.main()
        assert sorted(ran) == [("d2", 1), ("d3", 1)]  # d1 was superseded by d2 before it ran
    finally:
        await queue.close()


async def test_the_enqueueing_script_is_loaded_at_start_and_reloaded_after_a_flush(redis_url: str) -> None:
    queue = RedisQueue(redis_url)
    await queue.start()
    try:
        sha = queue._enqueue.sha
        assert await queue.pool.script_exists(sha) == [True]  # a first burst's EVALSHA finds it
        await queue.pool.script_flush()  # as a restarted Redis has forgotten it
        assert await queue.submit(check_job("k", f"d-{uuid.uuid4()}"))
        assert await queue.pool.script_exists(sha) == [True]
    finally:
        await queue.close()


async def test_a_burst_of_submissions_goes_to_redis_in_one_script_call_in_their_order(redis_url: str) -> None:
    """Concurrent deliveries (each handler at `submit`) are enqueued in one round trip, each answered for itself:
    new ones True, the same deliveries again False, and the last submitted of a key is its latest."""
    from arq.jobs import deserialize_job

    from bot.jobs.redis import _latest_key

    queue = RedisQueue(redis_url)
    await queue.start()
    calls = 0
    evalsha = queue.pool.evalsha

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return evalsha(*args, **kwargs)

    queue.pool.evalsha = counted  # type: ignore[method-assign]
    try:
        jobs = [check_job(f"{n % 5}:branch:main", f"d{n}", n) for n in range(40)]
        assert await asyncio.gather(*(queue.submit(job) for job in jobs)) == [True] * 40
        assert calls == 1
        assert await queue.depth() == 40
        assert await asyncio.gather(*(queue.submit(job) for job in jobs[:10])) == [False] * 10  # seen before
        assert calls == 2 and await queue.depth() == 40
        for key in range(5):  # d35..d39 were the last of their keys
            latest = await queue.pool.get(_latest_key(f"{key}:branch:main"))
            record = await queue.pool.get(job_key_prefix + latest.decode())
            assert deserialize_job(record).args[0]["delivery"] == f"d{35 + key}"
        assert await queue.submit(check_job("k", "alone"))  # one job on its own: a call of one
        assert calls == 3
    finally:
        await queue.close()


async def test_job_ids_are_unique_across_web_processes_sharing_a_redis(redis_url: str) -> None:
    """Each queue (web process) counts its job ids from a random prefix of its own: two of them enqueueing at once,
    as after a restart, never give two jobs one id (one would overwrite the other's record and place in the queue)."""
    first, second = RedisQueue(redis_url), RedisQueue(redis_url)
    await first.start()
    await second.start()
    try:
        from arq.jobs import deserialize_job

        jobs = {
            queue: [check_job(f"{n}:branch:main", f"d{n}-{name}", n) for n in range(60)]
            for name, queue in (("a", first), ("b", second))
        }
        answers = await asyncio.gather(*(queue.submit(job) for queue, its in jobs.items() for job in its))
        assert answers == [True] * 120
        ids = [member.decode() for member in await first.pool.zrange(QUEUE_NAME, 0, -1)]
        assert len(ids) == 120  # no job took another's place in the queue
        records = [deserialize_job(await first.pool.get(job_key_prefix + job_id)) for job_id in ids]
        assert len({record.args[0]["delivery"] for record in records}) == 120  # nor its record
    finally:
        await first.close()
        await second.close()


async def test_a_large_burst_goes_in_script_calls_of_a_bounded_size(redis_url: str) -> None:
    from bot.jobs.redis import MOST_JOBS_A_SCRIPT

    queue = RedisQueue(redis_url)
    await queue.start()
    sizes, _, back = _hold_the_first_call(queue)
    back.set()  # held for no time: only the sizes are wanted
    try:
        jobs = [check_job(f"{n}:branch:main", f"d{n}", n) for n in range(MOST_JOBS_A_SCRIPT * 2 + 3)]
        assert await asyncio.gather(*(queue.submit(job) for job in jobs)) == [True] * len(jobs)
        assert sizes == [MOST_JOBS_A_SCRIPT, MOST_JOBS_A_SCRIPT, 3]
        assert await queue.depth() == len(jobs)
    finally:
        await queue.close()


async def test_a_job_redis_refuses_fails_alone_and_its_delivery_can_come_again(redis_url: str) -> None:
    """Each job of a script call answers for itself: one Redis refuses (here a score that is not a number, as no
    real job has) is its submitter's error, its delivery is not remembered and the latest of its key untouched,
    while the jobs around it are queued."""
    from bot.jobs.redis import _latest_key

    queue = RedisQueue(redis_url)
    await queue.start()
    try:
        assert await queue.submit(check_job("k:branch:main", "before", 0))
        before = await queue.pool.get(_latest_key("k:branch:main"))
        loop = asyncio.get_running_loop()
        batch = []
        for n, score in enumerate([1, "not a number", 3]):
            keys = [f"wikiwarden:delivery:d{n}:check:k:branch:main", _latest_key("k:branch:main"), f"arq:job:j{n}"]
            batch.append((keys, [f"j{n}", b"record", score], loop.create_future()))
        answers = await queue._script(batch)
        assert answers[0] == 1 and answers[2] == 1
        assert isinstance(answers[1], redis.exceptions.ResponseError) and "float" in str(answers[1])
        assert await queue.pool.exists("wikiwarden:delivery:d1:check:k:branch:main") == 0  # forgotten again
        assert await queue.pool.exists("wikiwarden:delivery:d0:check:k:branch:main") == 1
        assert (await queue.pool.get(_latest_key("k:branch:main"))).decode() == "j2"  # j1 never became the latest
        assert before is not None
        assert await queue.depth() == 3  # "before", j0 and j2
    finally:
        await queue.close()


def _hold_the_first_call(queue: RedisQueue) -> tuple[list[int], asyncio.Event, asyncio.Event]:
    """Keep the queue's first script call out until `back` is set (`out` is set once it is out); the size of each
    call is recorded, in the order they go: `(sizes, out, back)`."""
    sizes: list[int] = []
    script = queue._script
    out, back = asyncio.Event(), asyncio.Event()

    async def held(batch: list[Any]) -> list[Any]:
        sizes.append(len(batch))
        if len(sizes) == 1:
            out.set()
            await back.wait()
        return await script(batch)

    queue._script = held  # type: ignore[method-assign]
    return sizes, out, back


async def test_jobs_submitted_while_a_call_is_out_go_together_in_the_next_in_their_order(redis_url: str) -> None:
    """Group commit: one script call out at a time; what arrives meanwhile waits for it, then goes in one call,
    so a newer job of a key always reaches Redis after an older one."""
    from bot.jobs.redis import _latest_key

    queue = RedisQueue(redis_url)
    await queue.start()
    sent, out, back = _hold_the_first_call(queue)  # it stays out while the burst arrives
    try:
        first = asyncio.create_task(queue.submit(check_job("k:branch:main", "first", 0)))
        await out.wait()
        burst = [asyncio.create_task(queue.submit(check_job("k:branch:main", f"d{n}", n + 1))) for n in range(30)]
        await asyncio.sleep(0.05)
        assert sent == [1]  # nothing more goes while the first call is out
        back.set()
        assert await asyncio.gather(first, *burst) == [True] * 31
        assert sent == [1, 30]
        latest = await queue.pool.get(_latest_key("k:branch:main"))
        record = await queue.pool.get(job_key_prefix + latest.decode())
        from arq.jobs import deserialize_job

        assert deserialize_job(record).args[0]["delivery"] == "d29"  # the last submitted is the latest
        assert await queue.submit(check_job("k", "alone"))  # none out, none waiting: a new task sends it
        assert sent == [1, 30, 1]
    finally:
        await queue.close()


async def test_a_stopped_sender_answers_the_jobs_still_waiting(redis_url: str) -> None:
    queue = RedisQueue(redis_url)
    await queue.start()
    _, out, _ = _hold_the_first_call(queue)  # never let back: the sender is stopped meanwhile
    try:
        first = asyncio.create_task(queue.submit(check_job("k", "first", 0)))
        await out.wait()
        waiting = [asyncio.create_task(queue.submit(check_job("k", f"d{n}", n + 1))) for n in range(5)]
        await asyncio.sleep(0)
        sender = queue._sending
        assert sender is not None
        sender.cancel()
        results = await asyncio.wait_for(asyncio.gather(first, *waiting, return_exceptions=True), 10)
        assert all(isinstance(r, RuntimeError) and "stopped" in str(r) for r in results), results
        assert queue._sending is None
    finally:
        await queue.close()


async def test_every_submitter_of_a_burst_hears_redis_refuse_it_and_none_waits(redis_url: str) -> None:
    queue = RedisQueue(redis_url)
    await queue.start()
    try:
        await queue.pool.set(QUEUE_NAME, "not a sorted set")  # every job's ZADD fails: WRONGTYPE
        results = await asyncio.wait_for(
            asyncio.gather(*(queue.submit(check_job("k", f"d{n}", n)) for n in range(8)), return_exceptions=True), 10
        )
        assert all(isinstance(r, redis.exceptions.ResponseError) and "WRONGTYPE" in str(r) for r in results)
        await queue.pool.delete(QUEUE_NAME)
        assert await queue.submit(check_job("k", "d-after", 9))  # the queue works again
        # nothing was remembered of the refused deliveries: GitHub's redeliveries are taken, not dropped as seen
        assert await asyncio.gather(*(queue.submit(check_job("k", f"d{n}", n)) for n in range(8))) == [True] * 8
    finally:
        await queue.close()


async def test_a_burst_sent_when_redis_is_unreachable_fails_for_every_submitter(redis_url: str) -> None:
    queue = RedisQueue(redis_url)
    await queue.start()
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        dead = spare.getsockname()[1]  # nothing listens here once closed
    await queue.pool.aclose()
    queue._pool = ArqRedis(host="127.0.0.1", port=dead)  # Redis gone after the queue started
    try:
        results = await asyncio.wait_for(
            asyncio.gather(*(queue.submit(check_job("k", f"d{n}", n)) for n in range(6)), return_exceptions=True), 60
        )
        assert all(isinstance(r, redis.exceptions.ConnectionError) for r in results), results
    finally:
        await queue.close()


async def test_closing_the_queue_answers_the_submissions_already_sent_first(redis_url: str) -> None:
    queue = RedisQueue(redis_url)
    await queue.start()
    submissions = [asyncio.create_task(queue.submit(check_job("k", f"d{n}", n))) for n in range(20)]
    await asyncio.sleep(0)  # every submitter waits on the script call now
    await queue.close()
    assert await asyncio.gather(*submissions) == [True] * 20
    reader = RedisQueue(redis_url)
    await reader.start()
    try:
        assert await reader.depth() == 20
    finally:
        await reader.close()


async def test_a_failing_job_gets_its_tries_then_the_failure_handler(redis_url: str) -> None:
    queue = RedisQueue(redis_url)
    await queue.start()
    tries: list[Attempt] = []
    failures: list[str] = []

    async def handler(job: Job, attempt: Attempt) -> None:
        tries.append(attempt)
        raise RuntimeError("boom")

    async def failed(job: Job, exc: BaseException) -> None:
        failures.append(str(exc))

    try:
        await queue.submit(check_job("k", f"d-{uuid.uuid4()}"))
        worker = Worker(
            functions=[func(job_function(handler, RetryPolicy(3, 0.05), 10, on_failure=failed), name=FUNCTION, max_tries=4)],
            queue_name=QUEUE_NAME, redis_pool=queue.pool, burst=True, poll_delay=0.05, handle_signals=False,
        )  # fmt: skip
        await worker.main()
        assert tries == [Attempt(1, False), Attempt(2, False), Attempt(3, True)]
        assert failures == ["boom"]
    finally:
        await queue.close()


async def test_a_permanent_failure_is_not_tried_again(redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    queue = RedisQueue(redis_url)
    await queue.start()
    tries: list[Attempt] = []
    failures: list[BaseException] = []

    async def handler(job: Job, attempt: Attempt) -> None:
        tries.append(attempt)
        raise PermanentFailure("installation 1 no longer exists")

    async def failed(job: Job, exc: BaseException) -> None:
        failures.append(exc)

    caplog.set_level(logging.INFO)
    try:
        await queue.submit(check_job("k", f"d-{uuid.uuid4()}"))
        worker = Worker(
            functions=[func(job_function(handler, RetryPolicy(3, 0.05), 10, on_failure=failed), name=FUNCTION, max_tries=4)],
            queue_name=QUEUE_NAME, redis_pool=queue.pool, burst=True, poll_delay=0.05, handle_signals=False,
        )  # fmt: skip
        await worker.main()
        assert tries == [Attempt(1, False)] and failures == []
        assert (worker.jobs_complete, worker.jobs_retried) == (1, 0)
        [line] = [r for r in caplog.records if r.name.startswith("bot.") and r.levelno >= logging.WARNING]
        assert (
            line.getMessage()
            == "check job for acme/widgets (installation 1) not retried: installation 1 no longer exists"
        )
        assert line.levelno == logging.WARNING and line.exc_info is None
    finally:
        await queue.close()


async def test_a_newer_versions_job_is_queued_again_for_a_newer_worker_not_dropped(redis_url: str) -> None:
    """A worker of this version that takes a job of a newer format (a rolling deploy) puts it back, later, as the
    latest of its key, without running it; once it has waited a day for a worker that reads it, it is given up."""
    queue = RedisQueue(redis_url)
    await queue.start()
    ran: list[Job] = []

    async def handler(job: Job, attempt: Attempt) -> None:
        ran.append(job)

    run_job = job_function(handler, RetryPolicy(3, 0.05), 10)
    newer = {**check_job("9:branch:main", "d-newer").to_json(), "format": JOB_FORMAT + 1, "since": "a field of 3"}
    try:
        pool = queue.pool
        await pool.set("wikiwarden:latest:9:branch:main", "old-id")
        before = time.time()
        assert await run_job({"redis": pool, "job_id": "old-id", "job_try": 1}, newer) == "requeued"
        [(again_id, score)] = await pool.zrange(QUEUE_NAME, 0, -1, withscores=True)
        record = deserialize_job(await pool.get(job_key_prefix + again_id.decode()))
        assert record.function == FUNCTION and record.args == (newer,)  # as it was written: not read, not changed
        assert record.kwargs["first_seen"] >= before
        assert score / 1000 >= before + REQUEUE_SECONDS - 1  # later, for another worker
        assert await pool.get("wikiwarden:latest:9:branch:main") == again_id  # not superseded by its own copy
        assert ran == []

        waited = {"redis": pool, "job_id": again_id.decode(), "job_try": 1}
        gone = before - NEWER_JOB_WAIT_SECONDS - 1
        assert await run_job(waited, newer, first_seen=gone) == "unreadable"
        assert await pool.zcard(QUEUE_NAME) == 1 and ran == []  # given up: nothing more queued, nothing run
    finally:
        await queue.close()


async def test_budgets_and_paid_answers_are_shared_by_every_worker(redis_url: str) -> None:
    """Two workers (two ledgers, two caches, one Redis): a repository's day is one budget, an answer one of them
    paid for is reused by the other, and both survive the process (they live in Redis)."""
    import datetime as dt

    from arq import create_pool

    from bot.agent.budget import Budget, RedisAnswerCache, RedisLedger
    from bot.fix.answer import ClaimDecision, PageAnswer
    from bot.jobs.redis import redis_settings

    pool = await create_pool(redis_settings(redis_url))
    try:
        today = dt.date(2026, 11, 29)
        first, second = RedisLedger(pool, lambda: today), RedisLedger(pool, lambda: today)
        run_a = Budget(per_run=10_000, per_day=5_000, repo="acme/widgets", ledger=first)
        run_b = Budget(per_run=10_000, per_day=5_000, repo="acme/widgets", ledger=second)
        await run_a.spend(3_000)
        assert await run_b.room() == 2_000  # the other worker's run sees the day's spending
        assert await Budget(10_000, 5_000, "acme/other", second).room() == 5_000  # per repository
        today = dt.date(2026, 11, 30)
        assert await run_b.room() == 5_000  # a new day

        answer = PageAnswer(claims=[ClaimDecision(id="claim_1", action="confirm", reason="still true")], edits=[])
        await RedisAnswerCache(pool).put("k", answer)
        assert await RedisAnswerCache(pool).get("k", PageAnswer) == answer
        assert await RedisAnswerCache(pool).get("other", PageAnswer) is None
        await pool.set("wikiwarden:answer:broken", b"{not an answer")
        assert await RedisAnswerCache(pool).get("broken", PageAnswer) is None  # unreadable: asked again, never a crash
    finally:
        await pool.aclose()
