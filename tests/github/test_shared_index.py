"""The App's evidence index and sidecars shared through a real Redis: a new worker's first push reads only the
sidecars citing the change, and fetches none another worker fetched before (what `bench/webhooks.py` measures), and
its check run says what a worker without any index says."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from apptools import deliver, grounded, push_payload, queue_of, runs_of, runtime_of, start_app
from arq.connections import ArqRedis
from fakegithub import FakeGitHub, FakeRepo
from processes import redis_pool, redis_server, redis_url

from bot.source.memory import REDIS_PREFIX
from bot.source.shared_blobs import REDIS_PREFIX as BLOB_PREFIX

__all__ = ["redis_pool", "redis_server", "redis_url"]  # fixtures, used by name

FILES, PAGES = 8, 40
BODY = "".join(f"def f_{i}():\n    return {i}\n\n" for i in range(6))


def wiki() -> dict[str, bytes]:
    """PAGES pages, page p citing two functions of src/m{p % FILES}.py: each file is cited by PAGES / FILES pages."""
    code = {f"src/m{n}.py": f"# module {n}\n{BODY}" for n in range(FILES)}
    claims = {
        f"p{p}.md": [(f"f_{c} returns {c}", [f"repo://src/m{p % FILES}.py#L{3 * c + 2}-L{3 * c + 3}"]) for c in (1, 4)]
        for p in range(PAGES)
    }
    return grounded(code, claims)


@pytest.fixture
def repo(fake_github: FakeGitHub) -> FakeRepo:
    fake_github.add_installation(77, "acme")
    repo = fake_github.create_repo("acme", "widgets", 77)
    repo.base = repo.commit(wiki(), message="code and wiki")
    return repo


async def push(client: Any, fake: FakeGitHub, repo: FakeRepo, before: str, after: str) -> tuple[dict, int]:
    """Deliver the push to this App and wait for its check: the run, and the files its runtime fetched for it."""
    fetched = runtime_of(client).cache.fetched_blobs
    status, _ = await deliver(
        client, "push", push_payload(repo, before=before, after=after), secret=fake.webhook_secret
    )
    assert status == 202
    await queue_of(client).wait_idle(timeout=60)
    runs = runs_of(repo, after)
    assert len(runs) == 1 and runs[0]["status"] == "completed", runs
    return copy.deepcopy(runs[0]), runtime_of(client).cache.fetched_blobs - fetched


def verdict_of(run: dict) -> tuple[Any, ...]:
    output = run["output"]
    return run["conclusion"], output["title"], output["summary"], output.get("text"), output.get("annotations")


def share(client: Any, redis_pool: ArqRedis, what: str) -> None:
    runtime = runtime_of(client)
    if what == "index":
        runtime.evidence.share_through(redis_pool)
    else:
        runtime.share_through(redis_pool)  # the index and the sidecars read, as `wikiwarden worker` does


@pytest.mark.parametrize("shared", ["index", "index and sidecars"])
async def test_a_new_worker_fetches_only_what_its_first_push_needs_and_no_other_worker_fetched(
    aiohttp_client: Any, fake_github: FakeGitHub, repo: FakeRepo, redis_pool: ArqRedis, shared: str
) -> None:
    first = await start_app(aiohttp_client, fake_github)
    share(first, redis_pool, shared)
    warm = repo.commit({"src/m1.py": f"# touched\n{BODY}"}, message="touch m1")
    await push(first, fake_github, repo, repo.base, warm)
    assert len(await redis_pool.keys(REDIS_PREFIX + "*")) == PAGES  # every sidecar it read, for every worker
    assert len(await redis_pool.keys(BLOB_PREFIX + "*")) == (PAGES if shared != "index" else 0)

    # A new worker: its own caches cold, only Redis in common with the first.
    second = await start_app(aiohttp_client, fake_github)
    share(second, redis_pool, shared)
    edited = BODY.replace("return 4", "return 40")  # page p's claim on f_4 goes stale where p % FILES == 0
    head = repo.commit({"src/m0.py": f"# module 0\n{edited}"}, message="change f_4 of m0")
    shared_run, shared_fetches = await push(second, fake_github, repo, warm, head)

    # A worker without any index, the same push (the run is found by head and written again).
    alone = await start_app(aiohttp_client, fake_github)
    alone_run, alone_fetches = await push(alone, fake_github, repo, warm, head)

    citing = PAGES // FILES
    assert alone_fetches == PAGES + 2  # every sidecar, and src/m0.py at both ends
    if shared == "index":
        assert shared_fetches == citing + 2  # only the citing sidecars, and src/m0.py at both ends
    else:
        assert shared_fetches == 2  # the citing sidecars read from Redis, where the first worker shared them
    assert verdict_of(shared_run) == verdict_of(alone_run)
    assert shared_run["output"]["title"] == f"{citing} stale · this change made claims stale"
