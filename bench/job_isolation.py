"""The App's jobs in child processes: what a job's process costs, and how the web process answers while a job runs,
a legal long one or the hostile push of issue 42. The App runs as `wikiwarden serve` (in-process queue) in its own
process against the fake GitHub over loopback; this process serves the fake and polls `GET /healthz`.

    python bench/job_isolation.py                        # all three parts
    python bench/job_isolation.py --parts hostile --timeout 10
    python bench/job_isolation.py --code /tmp/main       # the App of another checkout (say main), to compare

- overhead: a child from the fork server that does nothing (its start, its answer, its reaping), and a small push's
  check from delivery to the completed check run (median of sequential pushes; compare with `--code` of main, whose
  jobs run in the web process);
- healthz: `/healthz` latency (every 20 ms, from here) while a large wiki's full check runs;
- hostile: the push of issue 42 (`references.exclude: ['**a**a**a**a**a**a**a**a**a**a**b']` and a page whose name is
  40 `a`s): `/healthz` latency and timeouts (2 s each) while its job runs, the check run's conclusion and after how
  long (watched for the job timeout plus 20 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "fakes")]

from apptools import ZERO, grounded, push_payload, sign  # noqa: E402
from fakegithub import FakeGitHub  # noqa: E402
from fakegithub import create_app as fake_app  # noqa: E402

from bench.machine import speed_line  # noqa: E402
from bench.webhooks import _free_port, _wait_for, app_environment  # noqa: E402

HOSTILE_GLOB = "**a**a**a**a**a**a**a**a**a**a**b"


def _ms(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"n={len(values)} p50 {statistics.median(values) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
        f"max {ordered[-1] * 1000:.1f} ms"
    )


class Harness:
    """The fake GitHub served here, and an App process pointed at it."""

    def __init__(self, code: str | None) -> None:
        self.code = code
        self.fake = FakeGitHub()
        self.fake.add_installation(1, "acme")
        self.runner: web.AppRunner | None = None
        self.app: subprocess.Popen[bytes] | None = None
        self.url = ""

    async def __aenter__(self) -> Harness:
        self.runner = web.AppRunner(fake_app(self.fake), access_log=None)
        await self.runner.setup()
        port = _free_port()
        await web.TCPSite(self.runner, "127.0.0.1", port).start()
        self.fake.base_url = f"http://127.0.0.1:{port}"
        return self

    async def start_app(self, **settings: object) -> None:
        setup = {"url": self.fake.base_url, "key": self.fake.private_key_pem, "secret": self.fake.webhook_secret}
        app_port = _free_port()
        env = app_environment(setup, PORT=app_port, APP_ID=self.fake.app_id, **settings)
        if self.code:  # another checkout's App (its `bot` first on the path)
            env["PYTHONPATH"] = self.code
        self.app = subprocess.Popen(
            [sys.executable, "-m", "bot", "serve"], env=env, cwd=self.code or ROOT, stderr=subprocess.DEVNULL
        )
        self.url = f"http://127.0.0.1:{app_port}"
        await asyncio.to_thread(_wait_for, self.url)
        async with aiohttp.ClientSession() as session:  # up: it answers /healthz
            for _ in range(100):
                try:
                    async with session.get(f"{self.url}/healthz") as response:
                        if response.status == 200:
                            return
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.1)

    def stop_app(self) -> None:
        if self.app is not None:
            self.app.kill()  # a frozen App would not stop on SIGTERM
            self.app.wait()
            self.app = None

    async def __aexit__(self, *exc: object) -> None:
        self.stop_app()
        if self.runner is not None:
            await self.runner.cleanup()

    async def push(self, session: aiohttp.ClientSession, payload: dict[str, Any]) -> None:
        """Deliver a push as GitHub does (signed), and see it accepted."""
        body = json.dumps(payload).encode()
        headers = {
            "X-GitHub-Event": "push",
            "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(body, self.fake.webhook_secret),
            "Content-Type": "application/json",
        }
        async with session.post(f"{self.url}/webhook", data=body, headers=headers) as response:
            assert response.status == 202, (response.status, await response.text())

    def run_of(self, repo: Any, head: str) -> dict[str, Any] | None:
        runs = [r for r in repo.check_runs if r["head_sha"] == head and r["name"] == "Wikiwarden"]
        return runs[0] if runs else None


async def _healthz_while(harness: Harness, session: aiohttp.ClientSession, done: Any, every: float,
                         limit: float) -> tuple[list[float], int]:  # fmt: skip
    """`/healthz` latencies (and how many took over 2 s) until `done()` or `limit` seconds."""
    latencies: list[float] = []
    timeouts = 0
    deadline = time.monotonic() + limit
    while not done() and time.monotonic() < deadline:
        started = time.monotonic()
        try:
            async with asyncio.timeout(2), session.get(f"{harness.url}/healthz") as response:
                await response.read()
            latencies.append(time.monotonic() - started)
        except (TimeoutError, aiohttp.ClientError):
            timeouts += 1
        await asyncio.sleep(every)
    return latencies, timeouts


async def overhead(code: str | None, pushes: int) -> None:
    if code is None:
        from bench.job_isolation import _nothing as nothing  # by its module's name, which the fork server loads
        from bot.jobs.process import prepare, run_in_child, warm

        prepare(["bench.job_isolation"])
        await warm()
        spans = []
        for _ in range(50):
            started = time.perf_counter()
            await run_in_child(nothing, (), {})
            spans.append(time.perf_counter() - started)
        print(f"  a child that does nothing (fork server, pipe, reaping): {_ms(spans)}")
    async with Harness(code) as harness:
        repo = harness.fake.create_repo("acme", "small", 1)
        code_files = {f"src/m{n}.py": f"def f_{n}():\n    return {n}\n" for n in range(10)}
        claims = {f"p{n}.md": [(f"f_{n} returns {n}", [f"repo://src/m{n}.py#L1-L2"])] for n in range(10)}
        before = repo.commit(grounded(code_files, claims), message="small wiki")
        await harness.start_app(JOB_TIMEOUT_SECONDS=60)
        spans = []
        async with aiohttp.ClientSession() as session:
            for n in range(pushes + 1):
                head = repo.commit({"src/m0.py": f"def f_0():\n    return {n + 100}\n"}, message=str(n))
                started = time.monotonic()
                await harness.push(session, push_payload(repo, before=before, after=head))
                while (run := harness.run_of(repo, head)) is None or run["status"] != "completed":
                    await asyncio.sleep(0.005)
                if n:  # the first warms the App up
                    spans.append(time.monotonic() - started)
                before = head
        print(f"  a small push (1 file, 10 pages), delivery to completed check run: {_ms(spans)}")


async def _nothing(channel: Any) -> None:
    """What the overhead's child does."""


async def healthz_during_a_long_job(code: str | None, pages: int) -> None:
    async with Harness(code) as harness:
        repo = harness.fake.create_repo("acme", "large", 1)
        code_files = {f"src/m{n}.py": f"def f_{n}():\n    return {n}\n" for n in range(pages)}
        claims = {f"p{n}.md": [(f"f_{n} returns {n}", [f"repo://src/m{n}.py#L1-L2"])] for n in range(pages)}
        head = repo.commit(grounded(code_files, claims), message="large wiki")
        await harness.start_app(JOB_TIMEOUT_SECONDS=600)
        async with aiohttp.ClientSession() as session:
            started = time.monotonic()
            await harness.push(session, push_payload(repo, before=ZERO, after=head, created=True))
            latencies, timeouts = await _healthz_while(
                harness, session, lambda: (r := harness.run_of(repo, head)) and r["status"] == "completed", 0.02, 600
            )
            took = time.monotonic() - started
        run = harness.run_of(repo, head) or {}
        print(f"  a full check of {pages} pages: {run.get('conclusion')} after {took:.1f} s")
        print(f"  /healthz meanwhile: {_ms(latencies)}; over 2 s: {timeouts}")


async def hostile_push(code: str | None, timeout: float) -> None:
    async with Harness(code) as harness:
        repo = harness.fake.create_repo("acme", "hostile", 1)
        base = repo.commit({"src/x.py": "X = 1\n"}, message="code")
        files = {
            f"openwiki/{'a' * 40}.md": "---\ntype: Concept\n---\n\n# A\n\nSee [x](../src/x.py).\n",
            ".github/wikiwarden.yml": f"references:\n  exclude: ['{HOSTILE_GLOB}']\n",
        }
        head = repo.commit(files, message="the hostile push", branch="hostile", start_from=base)
        await harness.start_app(JOB_TIMEOUT_SECONDS=timeout, JOB_MAX_TRIES=3)
        watched = timeout + 20
        async with aiohttp.ClientSession() as session:
            started = time.monotonic()
            await harness.push(session, push_payload(repo, branch="hostile", before=base, after=head))
            concluded: list[float] = []

            def done() -> bool:
                run = harness.run_of(repo, head)
                if run is not None and run["status"] == "completed" and not concluded:
                    concluded.append(time.monotonic() - started)
                return bool(concluded)

            latencies, timeouts = await _healthz_while(harness, session, done, 0.05, watched)
            if concluded:  # a few more seconds: the App after the job
                after, late = await _healthz_while(harness, session, lambda: False, 0.05, 3)
                latencies += after
                timeouts += late
        run = harness.run_of(repo, head) or {}
        status = run.get("status", "no run")
        when = f"after {concluded[0]:.1f} s" if concluded else f"not within {watched:g} s"
        print(f"  job timeout {timeout:g} s: check run {status}, conclusion {run.get('conclusion')} {when}")
        print(f"  title: {run.get('output', {}).get('title')!r}")
        print(f"  /healthz during and after: {_ms(latencies)}; over 2 s (or refused): {timeouts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", nargs="*", default=["overhead", "healthz", "hostile"])
    parser.add_argument("--code", help="run the App from this checkout (its bot/ package)")
    parser.add_argument("--pushes", type=int, default=20)
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--timeout", type=float, default=10.0, help="the job timeout for the hostile push")
    args = parser.parse_args()
    print(speed_line("before"))
    print(f"App code: {args.code or ROOT} (pid {os.getpid()} serves the fake GitHub and polls)")
    if "overhead" in args.parts:
        print("overhead:")
        asyncio.run(overhead(args.code, args.pushes))
    if "healthz" in args.parts:
        print("healthz during a long legal job:")
        asyncio.run(healthz_during_a_long_job(args.code, args.pages))
    if "hostile" in args.parts:
        print("the hostile push of issue 42:")
        asyncio.run(hostile_push(args.code, args.timeout))
    print(speed_line("after"))


if __name__ == "__main__":
    main()
