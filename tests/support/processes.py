"""Real Wikiwarden processes for tests: a Redis server, `wikiwarden serve` and `wikiwarden worker` as child
processes configured through the environment, talking to the fake GitHub served by the test on loopback.

Redis: `WIKIWARDEN_TEST_REDIS_URL` names a running server (CI starts one); otherwise a `redis-server` on the
PATH is started for the session; otherwise the Redis tests are skipped, unless `WIKIWARDEN_REQUIRE_REDIS=1`
(CI), which makes that a failure.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from fakegithub import FakeGitHub

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _redis_answers(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    """The URL of a Redis server for this test session."""
    given = os.environ.get("WIKIWARDEN_TEST_REDIS_URL")
    if given:
        if not _redis_answers(given):
            pytest.fail(f"WIKIWARDEN_TEST_REDIS_URL={given} does not answer PING")
        yield given
        return
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("WIKIWARDEN_REQUIRE_REDIS") == "1":
            pytest.fail("redis-server is required (WIKIWARDEN_REQUIRE_REDIS=1) but is not installed")
        pytest.skip("redis-server is not installed: the Redis queue tests need it (apt install redis-server)")
    port = free_port()
    folder = tempfile.mkdtemp(prefix="wikiwarden-redis-")
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 10
    while not _redis_answers(url):
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            pytest.fail("redis-server did not start")
        time.sleep(0.05)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def redis_url(redis_server: str) -> str:
    """A Redis database emptied for this test."""
    import redis

    redis.Redis.from_url(redis_server).flushdb()
    return redis_server


@pytest.fixture
async def redis_pool(redis_url: str) -> AsyncIterator[Any]:
    """The connection pool a worker shares its runtime through (`bot/worker.py`), on a Redis emptied for this test."""
    from arq import create_pool

    from bot.jobs.redis import redis_settings

    redis = await create_pool(redis_settings(redis_url))
    yield redis
    await redis.aclose()


def app_environment(fake: FakeGitHub, redis_url: str, **overrides: Any) -> dict[str, str]:
    """The environment of an App process pointed at the fake GitHub and the Redis queue."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIKIWARDEN_")}
    values: dict[str, Any] = {
        "APP_ID": fake.app_id,
        "PRIVATE_KEY": fake.private_key_pem,
        "WEBHOOK_SECRET": fake.webhook_secret,
        "GITHUB_API_URL": fake.base_url,
        "QUEUE_BACKEND": "redis",
        "REDIS_URL": redis_url,
        "HOST": "127.0.0.1",
        "RETRY_BASE_SECONDS": 0.01,
        "MAX_WAIT_SECONDS": 2,
        "MUTATION_SPACING_SECONDS": 0,
        "JOB_RETRY_BASE_SECONDS": 0.1,
        "LOG_FORMAT": "json",
        **overrides,
    }
    env.update({f"WIKIWARDEN_{k}": str(v) for k, v in values.items()})
    return env


@dataclass
class Process:
    """A child `wikiwarden` process, its port, and what it logged (stderr, JSON lines)."""

    role: str
    port: int
    proc: asyncio.subprocess.Process
    log_path: Path
    log: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def logs(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    async def wait_healthy(self, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as session:
            while True:
                if self.proc.returncode is not None:
                    raise AssertionError(f"{self.role} exited with {self.proc.returncode}:\n{self.logs()}")
                try:
                    async with session.get(f"{self.url}/healthz") as response:
                        if response.status == 200:
                            return
                except aiohttp.ClientError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError(f"{self.role} did not become healthy:\n{self.logs()}")
                await asyncio.sleep(0.1)

    async def metrics(self) -> str:
        async with aiohttp.ClientSession() as session, session.get(f"{self.url}/metrics") as response:
            return await response.text()

    async def settled_metric(self, name: str, expected: float, timeout: float = 10, **labels: str) -> float:
        """A sample's value once it reaches `expected` (or its last value after `timeout`).

        A job's counters move after its last GitHub request, so a test that saw the check run complete
        may read them a moment too early.
        """
        deadline = time.monotonic() + timeout
        while True:
            value = metric(await self.metrics(), name, **labels)
            if value == expected or time.monotonic() > deadline:
                return value
            await asyncio.sleep(0.1)

    async def stop(self, sig: int = signal.SIGTERM, timeout: float = 40) -> int:
        if self.proc.returncode is None:
            self.proc.send_signal(sig)
            await asyncio.wait_for(self.proc.wait(), timeout)
        return int(self.proc.returncode or 0)


async def start_process(role: str, env: dict[str, str], tmp_path: Path) -> Process:
    """`wikiwarden serve` (role "web") or `wikiwarden worker` (role "worker") on a free port."""
    port = free_port()
    env = {**env, "WIKIWARDEN_PORT" if role == "web" else "WIKIWARDEN_WORKER_PORT": str(port)}
    command = "serve" if role == "web" else "worker"
    log_path = tmp_path / f"{role}-{port}.log"
    with log_path.open("wb") as log_file:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", command, env=env, cwd=ROOT, stdout=log_file, stderr=log_file
        )
    process = Process(role, port, proc, log_path)
    await process.wait_healthy()
    return process


def metric(text: str, name: str, **labels: str) -> float:
    """A sample's value from Prometheus text (0 when absent)."""
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        sample, _, value = line.rpartition(" ")
        if sample.split("{")[0] != name:
            continue
        found = sample[len(name) :].strip("{}")
        if ",".join(sorted(found.split(","))) == wanted or (not labels and not found):
            return float(value)
    return 0.0


async def eventually(check: Any, timeout: float = 30, what: str = "the condition") -> Any:
    """Poll `check()` (sync) until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)
