"""The App's long-lived parts, shared by every job of a process: one HTTP session, the token cache, the
ETag and blob caches, request statistics; and the dispatch of a job to the code that runs it."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import aiohttp
from cachetools import LRUCache
from gidgethub import apps

from ..jobs import Job
from ..settings import Settings
from ..source.github import GitHubRepo, SourceCache
from .auth import InstallationTokens
from .checking import run_check
from .client import GitHubClient, RequestStats, RetryPolicy
from .fixing import run_fix

log = logging.getLogger(__name__)


class AppRuntime:
    def __init__(self, settings: Settings, session: aiohttp.ClientSession) -> None:
        self.settings = settings
        self.session = session
        self.stats = RequestStats()
        self.policy = RetryPolicy(
            max_retries=settings.max_retries,
            base_seconds=settings.retry_base_seconds,
            max_wait_seconds=settings.max_wait_seconds,
            secondary_min_seconds=max(settings.retry_base_seconds, min(60.0, settings.max_wait_seconds)),
        )
        self.etags: LRUCache[str, Any] = LRUCache(maxsize=4096)  # conditional GETs: a 304 costs no quota
        self.source = SourceCache(blob_bytes=settings.blob_cache_bytes)
        self._pem = settings.private_key_pem()
        self.app_client = self._client(app_id=str(settings.app_id), private_key=self._pem)
        self.tokens = InstallationTokens(self.app_client, settings.app_id, self._pem)
        self._bot_login: str | None = f"{settings.app_slug}[bot]" if settings.app_slug else None
        self._bot_login_lock = asyncio.Lock()

    def _client(self, **auth: Any) -> GitHubClient:
        return GitHubClient(
            self.session,
            policy=self.policy,
            stats=self.stats,
            cache=self.etags,
            base_url=self.settings.github_api_url,
            **auth,
        )

    async def client(self, installation_id: int) -> GitHubClient:
        """A client acting as the installation (its token minted or reused)."""
        return self._client(oauth_token=await self.tokens.token(installation_id))

    def repo(self, gh: GitHubClient, full_name: str, max_file_bytes: int) -> GitHubRepo:
        return GitHubRepo(gh, full_name, self.settings.graphql_url, self.source, max_file_bytes)

    async def bot_login(self) -> str:
        """`<slug>[bot]`: the login of the App's own pushes and pull requests, to ignore their events."""
        if self._bot_login is None:
            async with self._bot_login_lock:  # one lookup, however many deliveries arrive at once
                if self._bot_login is None:
                    jwt = apps.get_jwt(app_id=str(self.settings.app_id), private_key=self._pem)
                    app = await self.app_client.getitem("/app", jwt=jwt)
                    self._bot_login = f"{app['slug']}[bot]"
        return self._bot_login

    async def run(self, job: Job) -> None:
        runner = {"check": run_check, "fix": run_fix}.get(job.kind)
        if runner is None:
            raise ValueError(f"unknown job kind {job.kind!r}")
        await runner(self, job)
