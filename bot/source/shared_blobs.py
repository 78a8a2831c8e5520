"""The App's sidecars, shared between its workers through Redis: a new worker's first push reads from Redis the
sidecars other workers fetched from GitHub, instead of fetching them again (with the shared evidence index, it
fetches only the sidecars citing the change; with this, not even those, once any worker has read them).

Entries are content-addressed: a blob id always names the same bytes, so an entry never goes stale and serves every
repository; the bytes read back are hashed again and anything else is ignored (Redis is a shortcut, never trusted
with content). Only sidecars are shared (`<wiki>/.claims/*.json`: the files every push of a wiki may read), each up
to `MAX_SHARED_BYTES`, and Redis forgets one a week after it was last shared. Redis unreachable costs fetches from
GitHub, never a check.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from ..claims.snapshot import git_blob_id

REDIS_PREFIX = "wikiwarden:blob:v1:"
REDIS_SECONDS = 7 * 86_400
REDIS_BATCH = 200  # keys per MGET: a sidecar is tens of kilobytes, a batch a few megabytes
MAX_SHARED_BYTES = 4 << 20  # a sidecar of 10,000 claims is about 3 MB

log = logging.getLogger(__name__)


def is_shared(path: str) -> bool:
    """Whether the file at `path` is one a worker shares: a sidecar, in any wiki folder."""
    return path.endswith(".json") and ("/.claims/" in path or path.startswith(".claims/"))


class SharedBlobs:
    """Blobs by id, in Redis once `share_through` is called (until then, and without Redis, it holds nothing)."""

    def __init__(self) -> None:
        self._redis: Any = None

    def share_through(self, redis: Any) -> None:
        self._redis = redis

    @property
    def shared(self) -> bool:
        return self._redis is not None

    async def recall(self, blob_ids: Iterable[str]) -> dict[str, bytes]:
        """The bytes Redis holds for these blob ids, each checked to be its id's (anything else is left out)."""
        if self._redis is None:
            return {}
        wanted = list(dict.fromkeys(blob_ids))
        found: dict[str, bytes] = {}
        try:
            for start in range(0, len(wanted), REDIS_BATCH):
                chunk = wanted[start : start + REDIS_BATCH]
                for blob, data in zip(chunk, await self._redis.mget([REDIS_PREFIX + b for b in chunk]), strict=True):
                    if isinstance(data, bytes) and len(data) <= MAX_SHARED_BYTES and git_blob_id(data) == blob:
                        found[blob] = data
        except Exception as exc:  # a shortcut: Redis gone costs fetches, never the check
            log.warning("shared sidecars could not be read (%s): fetched from GitHub", type(exc).__name__)
        return found

    async def share(self, blobs: dict[str, bytes]) -> None:
        """Keep these blobs (by id) for every worker, those within the size limit."""
        kept = {blob: data for blob, data in blobs.items() if len(data) <= MAX_SHARED_BYTES}
        if self._redis is None or not kept:
            return
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for blob, data in kept.items():
                    pipe.set(REDIS_PREFIX + blob, data, ex=REDIS_SECONDS)
                await pipe.execute()
        except Exception as exc:
            log.warning("shared sidecars could not be written (%s)", type(exc).__name__)
