"""The App's long-lived parts, shared by every job of a process: one HTTP session, the token cache, the ETag
and blob caches, request statistics, the agents; and one try of a job, handed to the runner its kind names in the
table the process was built with (`runners/table.py`). The runners and the agents are handed in by `web.py` and
`worker.py`: the App reaches the model only through them, never by importing `bot.agent`."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

import aiohttp
from cachetools import LRUCache
from gidgethub import apps

from ..fix.engine import Decider
from ..fix.view import CodeView
from ..ground.work import GroundWork
from ..jobs import ONLY_TRY, Attempt, Job, JobAbandoned, PermanentFailure, TookTooLong
from ..jobs.requests import FixRequest, GroundRequest, RepoRef
from ..logs import work_context
from ..metrics import JOB_SECONDS, JOBS_RUNNING
from ..report.inert import prose
from ..settings import Settings
from ..source.github import GitHubSnapshot, GitHubSource, SourceCache
from ..source.memory import SharedIndex
from ..usecases.config import read_repo_config
from ..usecases.config_file import RepoConfig
from .api.auth import InstallationTokens
from .api.check_runs import complete_check_run, find_check_run, note_on_check_run
from .api.client import GitHubClient, MutationGate, RequestStats, RetryPolicy
from .api.failures import GONE, access_refused, needs_probe, refusal, repository_gone
from .content.check_output import failure_output, took_too_long_output
from .content.pull_requests import FIX, GROUND

log = logging.getLogger(__name__)

Runner = Callable[["AppRuntime", Job, Attempt], Awaitable[None]]


class Model(Decider, Protocol):
    """The model as the App's jobs ask it: deciding a fix's claims, and grounding a page (the use case's
    `Grounder`)."""

    async def ground(self, work: GroundWork, view: CodeView, wiki_dir: str) -> Any: ...


class Agents(Protocol):
    """Where the App's jobs get their model (`bot.agent.factory.AgentFactory`, built by the face): one per job, within
    the budgets asked for; None without a model."""

    def agent(
        self,
        repo: str,
        model: str | None = None,
        *,
        per_run: int | None = None,
        per_day: int | None = None,
        repo_id: int | None = None,
    ) -> Model | None: ...

    def share_through(self, redis: Any) -> None: ...

    async def close(self) -> None: ...


class AppRuntime:
    def __init__(
        self, settings: Settings, session: aiohttp.ClientSession, runners: Mapping[str, Runner], agents: Agents
    ) -> None:
        """`agents`: the model for every fix and grounding; its daily ledger and paid answers are this process's own
        until `share_through` puts them in Redis for every worker. The runtime closes it."""
        self.settings = settings
        self.session = session
        self.runners = runners
        self.agents = agents
        self.stats = RequestStats()
        self.policy = RetryPolicy(
            max_retries=settings.max_retries,
            base_seconds=settings.retry_base_seconds,
            max_wait_seconds=settings.max_wait_seconds,
            secondary_min_seconds=max(settings.retry_base_seconds, min(60.0, settings.max_wait_seconds)),
        )
        self.etags: LRUCache[str, Any] = LRUCache(maxsize=4096)  # conditional GETs: a 304 costs no quota
        self.cache = SourceCache(blob_bytes=settings.blob_cache_bytes)
        # Which files each sidecar cites: this process's until `share_through` puts it in Redis for every worker.
        self.evidence = SharedIndex()
        self._pem = settings.private_key_pem()
        self.app_client = self._client(app_id=str(settings.app_id), private_key=self._pem)
        self.tokens = InstallationTokens(self.app_client, settings.app_id, self._pem)
        self._bot_login: str | None = f"{settings.app_slug}[bot]" if settings.app_slug else None
        self._bot_login_lock = asyncio.Lock()
        self.gates: LRUCache[int, MutationGate] = LRUCache(maxsize=10_000)  # per installation
        self._note_locks: LRUCache[int, asyncio.Lock] = LRUCache(maxsize=4096)  # per check run
        self.submit: Callable[[Job], Awaitable[bool]] | None = None  # the queue's, for jobs that follow jobs

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
        """A client acting as the installation (its token minted or reused), its writes spaced out."""
        gate = self.gates.get(installation_id)
        if gate is None:
            gate = self.gates[installation_id] = MutationGate(self.settings.mutation_spacing_seconds)
        return self._client(oauth_token=await self.tokens.token(installation_id), gate=gate)

    def note_lock(self, run_id: int) -> asyncio.Lock:
        """One note at a time on a check run: a note reads the summary and writes it back whole, so a fix's and a
        grounding's notes written at once would lose one of them."""
        lock = self._note_locks.get(run_id)
        if lock is None:
            lock = self._note_locks[run_id] = asyncio.Lock()
        return lock

    def source(self, gh: GitHubClient, full_name: str) -> GitHubSource:
        """The repository as the use cases read it, through this installation's client and the shared cache."""
        return GitHubSource(gh, full_name, self.settings.graphql_url, self.cache)

    async def repo_config(self, source: GitHubSource, head: GitHubSnapshot) -> RepoConfig:
        """The repository's `.github/wikiwarden.yml` at `head`, within this App's own limits."""
        return await read_repo_config(source, head, self.settings)

    def share_through(self, redis: Any) -> None:
        """Keep the daily token budgets, the paid answers, the evidence index and the sidecars read in Redis, shared by
        every worker."""
        self.agents.share_through(redis)
        self.evidence.share_through(redis)
        self.cache.shared.share_through(redis)

    async def close(self) -> None:
        await self.agents.close()

    async def bot_login(self) -> str:
        """`<slug>[bot]`: the login of the App's own pushes and pull requests, to ignore their events."""
        if self._bot_login is None:
            async with self._bot_login_lock:  # one lookup, however many deliveries arrive at once
                if self._bot_login is None:
                    jwt = apps.get_jwt(app_id=str(self.settings.app_id), private_key=self._pem)
                    app = await self.app_client.getitem("/app", jwt=jwt)
                    self._bot_login = f"{app['slug']}[bot]"
        return self._bot_login

    async def permanent_failure(self, repo: RepoRef, exc: BaseException) -> PermanentFailure | None:
        """What `exc` means for a job on `repo`: a PermanentFailure when no retry can cure it, else None (try
        again). A 401, 404 or 410 does not say what is missing, so GitHub is asked once, with a fresh token, for
        the installation and the repository themselves (the rules are in `api/failures.py`)."""
        if isinstance(exc, PermanentFailure):
            return exc
        refused = refusal(exc)
        if refused is None:
            return None
        cause = access_refused(repo, refused)
        if cause is not None:
            return PermanentFailure(cause)
        if not needs_probe(refused):
            return None
        self.tokens.forget(repo.installation_id)  # revoked, or minted before the repository was added
        owner, name = repo.full_name.split("/", 1)
        try:
            gh = await self.client(repo.installation_id)
            await gh.getitem("/repos/{owner}/{repo}", url_vars={"owner": owner, "repo": name})
        except PermanentFailure as gone:
            return gone
        except Exception as probe:
            probed = refusal(probe)
            if probed is None:
                return None  # GitHub did not answer: nothing is known yet
            if probed.status in GONE:
                return PermanentFailure(repository_gone(repo))
            cause = access_refused(repo, probed)
            return PermanentFailure(cause) if cause is not None else None
        return None  # both are there: what was missing was something else, which may yet appear

    async def job_failed(self, job: Job, exc: BaseException) -> None:
        """A job's last try failed. The job reports its own failures on the check run; one that never finished
        (past the job timeout, or its worker gone) cannot, so it is reported here."""
        log.error("job failed: %s", type(exc).__name__, extra={"delivery": job.delivery, "job_key": job.key})
        if not isinstance(exc, JobAbandoned):
            return
        request = job.request
        gh = await self.client(request.repo.installation_id)
        repo, head = request.repo.full_name, request.head_sha
        run_id = request.check_run_id if isinstance(request, FixRequest | GroundRequest) else None
        run_id = run_id or await find_check_run(gh, repo, head, self.settings.app_id)
        if isinstance(exc, TookTooLong):
            text = f"Wikiwarden took too long: {exc}, and was stopped. Re-run the check to try again."
        else:
            text = f"Wikiwarden gave up: {exc}. Re-run the check to try again."
        if job.kind == "check" and run_id is not None:
            if isinstance(exc, TookTooLong):
                output = took_too_long_output(self.settings.job_timeout_seconds)
            else:
                output = failure_output("Wikiwarden could not check this commit", text)
            await complete_check_run(gh, repo, run_id, output)
        elif run_id is not None:
            kind = GROUND if isinstance(request, GroundRequest) else FIX
            async with self.note_lock(run_id):
                await note_on_check_run(gh, repo, run_id, prose(text), None, kind.name, kind.noun.capitalize())

    async def run(self, job: Job, attempt: Attempt = ONLY_TRY) -> None:
        """Run one try of a job, timed and counted, its log lines carrying the delivery and repository."""
        runner = self.runners.get(job.kind)
        if runner is None:
            raise ValueError(f"unknown job kind {job.kind!r}")
        context = work_context(
            delivery=job.delivery, repo=job.request.repo.full_name, job_kind=job.kind, job_key=job.key
        )
        with context, JOB_SECONDS.labels(job.kind).time(), JOBS_RUNNING.labels(job.kind).track_inprogress():
            log.info("job started", extra={"try": attempt.number})
            started = time.monotonic()
            await runner(self, job, attempt)
            log.info("job finished", extra={"seconds": round(time.monotonic() - started, 3)})
