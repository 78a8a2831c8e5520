"""The sidecars workers share through a real Redis: what one shares another recalls, checked against its blob id;
anything else in Redis is ignored, and Redis gone costs fetches, never a check."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from arq.connections import ArqRedis
from processes import free_port, redis_pool, redis_server, redis_url

from bot.claims.snapshot import git_blob_id
from bot.source import shared_blobs
from bot.source.shared_blobs import REDIS_PREFIX, REDIS_SECONDS, SharedBlobs, is_shared

__all__ = ["redis_pool", "redis_server", "redis_url"]  # fixtures, used by name

SIDECAR = b'{\n  "schemaVersion": 1,\n  "pageVersion": "sha256:00",\n  "claims": []\n}\n'
OTHER = b'{\n  "schemaVersion": 1,\n  "claims": ["other"]\n}\n'


def shared_through(redis_pool: Any) -> SharedBlobs:
    blobs = SharedBlobs()
    blobs.share_through(redis_pool)
    return blobs


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("openwiki/.claims/page.json", True),
        ("docs/wiki/.claims/sub/page.json", True),
        (".claims/page.json", True),
        ("openwiki/page.md", False),
        ("openwiki/.claims/page.json.bak", False),
        ("src/claims/page.json", False),
        ("src/x.claims/page.json", False),
    ],
)
def test_only_sidecars_are_shared(path: str, expected: bool) -> None:
    assert is_shared(path) is expected


async def test_what_one_worker_shares_another_recalls_for_a_week(redis_pool: ArqRedis) -> None:
    blob, other = git_blob_id(SIDECAR), git_blob_id(OTHER)
    await shared_through(redis_pool).share({blob: SIDECAR, other: OTHER})
    assert REDIS_SECONDS - 60 < await redis_pool.ttl(REDIS_PREFIX + blob) <= REDIS_SECONDS
    assert await shared_through(redis_pool).recall([blob, other, "0" * 40, blob]) == {blob: SIDECAR, other: OTHER}


async def test_a_large_wiki_is_recalled_in_batches(redis_pool: ArqRedis) -> None:
    blobs = {git_blob_id(data): data for data in (b"%d\n" % n for n in range(450))}
    await shared_through(redis_pool).share(blobs)
    assert await shared_through(redis_pool).recall(list(blobs)) == blobs


async def test_bytes_that_are_not_their_blob_id_or_too_large_are_ignored(
    redis_pool: ArqRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shared_blobs, "MAX_SHARED_BYTES", 64)
    blob, other, large = git_blob_id(SIDECAR), git_blob_id(OTHER), b"x" * 65
    await redis_pool.set(REDIS_PREFIX + blob, OTHER)  # another sidecar's bytes under this id: tampered, or a bug
    await redis_pool.set(REDIS_PREFIX + other, OTHER)
    await redis_pool.set(REDIS_PREFIX + git_blob_id(large), large)  # its own bytes, but over the limit
    assert await shared_through(redis_pool).recall([blob, other, git_blob_id(large)]) == {other: OTHER}
    await shared_through(redis_pool).share({git_blob_id(b"y" * 65): b"y" * 65})  # not shared either
    assert await redis_pool.exists(REDIS_PREFIX + git_blob_id(b"y" * 65)) == 0


async def test_without_redis_nothing_is_shared_or_recalled() -> None:
    blobs = SharedBlobs()
    await blobs.share({git_blob_id(SIDECAR): SIDECAR})
    assert not blobs.shared
    assert await blobs.recall([git_blob_id(SIDECAR)]) == {}


async def test_redis_unreachable_costs_fetches_never_the_check(caplog: pytest.LogCaptureFixture) -> None:
    import redis.asyncio

    gone: Any = redis.asyncio.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=1)
    blobs = shared_through(gone)
    with caplog.at_level(logging.WARNING, logger=shared_blobs.__name__):
        await asyncio.wait_for(blobs.share({git_blob_id(SIDECAR): SIDECAR}), 30)
        assert await asyncio.wait_for(blobs.recall([git_blob_id(SIDECAR)]), 30) == {}
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("could not be written" in s for s in said) and any("could not be read" in s for s in said)
    await gone.aclose()
