"""Installation tokens: minted from the App's JWT, cached until shortly before they expire, one mint per
installation at a time (concurrent jobs of one installation wait for the same token). An installation GitHub will
never mint a token for again (uninstalled, suspended) is a permanent failure of the job that asked."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from cachetools import LRUCache
from gidgethub import BadRequest, apps

from ...jobs import PermanentFailure
from .client import GitHubClient
from .failures import refusal, token_refused

RENEW_MARGIN_SECONDS = 300.0  # renew five minutes before expiry, against clock skew and long jobs


@dataclass(frozen=True)
class InstallationToken:
    token: str
    expires_at: float  # epoch seconds

    def fresh(self, now: float) -> bool:
        return now < self.expires_at - RENEW_MARGIN_SECONDS


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


class InstallationTokens:
    """The token of each installation, shared by every job of the process."""

    def __init__(
        self,
        app_client: GitHubClient,
        app_id: int,
        private_key_pem: str,
        clock: Callable[[], float] = time.time,
        maxsize: int = 10_000,
    ) -> None:
        self._app = app_client
        self._app_id = str(app_id)
        self._key = private_key_pem
        self._clock = clock
        self._tokens: LRUCache[int, InstallationToken] = LRUCache(maxsize=maxsize)
        self._locks: dict[int, asyncio.Lock] = {}
        self.mints = 0

    async def token(self, installation_id: int) -> str:
        cached = self._tokens.get(installation_id)
        if cached is not None and cached.fresh(self._clock()):
            return cached.token
        lock = self._locks.setdefault(installation_id, asyncio.Lock())
        async with lock:  # single flight: the first caller mints, the others reuse its token
            cached = self._tokens.get(installation_id)
            if cached is not None and cached.fresh(self._clock()):
                return cached.token
            try:
                minted = await apps.get_installation_access_token(
                    self._app, installation_id=str(installation_id), app_id=self._app_id, private_key=self._key
                )
            except BadRequest as exc:
                refused = refusal(exc)
                cause = token_refused(installation_id, refused) if refused is not None else None
                if cause is not None:
                    raise PermanentFailure(cause) from exc
                raise
            self.mints += 1
            token = InstallationToken(minted["token"], _epoch(minted["expires_at"]))
            self._tokens[installation_id] = token
            return token.token

    def forget(self, installation_id: int) -> None:
        """Drop a token (the installation was removed, or GitHub said the token is bad)."""
        self._tokens.pop(installation_id, None)
