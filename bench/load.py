"""The App as deployed: one web process and two workers on Redis, against the fake GitHub in its own process.
Prints throughput and end-to-end latency (a delivery sent → its check run completed) for N deliveries.

    python bench/load.py                       # 200 deliveries, 2 workers running 4 jobs each
    python bench/load.py --deliveries 400 --workers 3 --jobs-per-worker 8
    python bench/load.py --redis-url redis://127.0.0.1:6379/0   # an existing Redis (else one is started)
    python bench/load.py --workers 0           # the acknowledgement path alone: web process and Redis

Every delivery is a distinct push (20 repositories × 10 branches, cycled), so nothing is superseded or
de-duplicated: each one costs a full check. GitHub's pause between writes is off, as in the fake's tests
(with it on, one installation's 200 checks take at least 400 s by design).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "fakes"), str(ROOT / "bench")]

from webhook_client import delivery_headers  # noqa: E402
from webhooks import _free_port, _wait_for, app_environment, serve_fake, wait_for_fake  # noqa: E402


async def _fake_process(setup_file: str, port: int, completions_file: str) -> None:
    """Runs in its own process: the fake GitHub of bench/webhooks.py, recording when each check run completes
    (its wall-clock time, to the millisecond)."""
    fake = await serve_fake(setup_file, port)
    completed: dict[str, float] = {}
    while True:  # cheap: a scan of in-memory lists, in this process
        for repo in list(fake.repos.values()):
            for run in repo.check_runs:
                if run["status"] == "completed" and run["head_sha"] not in completed:
                    completed[run["head_sha"]] = time.time()
        Path(completions_file).write_text(json.dumps(completed))
        await asyncio.sleep(0.02)


def _start_redis(folder: str) -> tuple[subprocess.Popen | None, str]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed (apt install redis-server), or pass --redis-url")
    port = _free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder],
        stdout=subprocess.DEVNULL,
    )
    _wait_for(f"http://127.0.0.1:{port}")
    return process, f"redis://127.0.0.1:{port}/0"


async def _send(url: str, payloads: list[dict], secret: str) -> dict[str, tuple[float, float]]:
    """Deliver every payload at once; per head sha, when it was sent and how long the acknowledgement took."""
    sent: dict[str, tuple[float, float]] = {}

    async def one(session: aiohttp.ClientSession, payload: dict) -> None:
        body = json.dumps(payload).encode()
        started = time.time()
        async with session.post(f"{url}/webhook", data=body, headers=delivery_headers(body, secret)) as response:
            await response.read()
            if response.status != 202:
                raise RuntimeError(f"delivery refused: {response.status}")
        sent[payload["after"]] = (started, time.time() - started)

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        await one(session, payloads[0])  # warms the App up (its first delivery looks up the App's own login)
        await asyncio.gather(*(session.get(f"{url}/healthz") for _ in payloads))  # connections opened beforehand
        await asyncio.gather(*(one(session, p) for p in payloads[1:]))
    return sent


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        processes: list[subprocess.Popen] = []
        try:
            redis_url = args.redis_url
            if redis_url is None:
                redis, redis_url = _start_redis(folder)
                processes.append(redis)  # type: ignore[arg-type]
            else:
                import redis as redis_client

                redis_client.Redis.from_url(redis_url).flushdb()
            setup_file, completions_file = f"{folder}/setup.json", f"{folder}/completions.json"
            fake_port = _free_port()
            processes.append(
                subprocess.Popen(
                    [sys.executable, __file__, "--fake-process", setup_file, str(fake_port), completions_file]
                )
            )
            setup = wait_for_fake(processes[-1], setup_file)
            env = app_environment(
                setup, QUEUE_BACKEND="redis", REDIS_URL=redis_url, WORKERS=args.jobs_per_worker, LOG_LEVEL="WARNING"
            )
            web_port = _free_port()
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "bot", "serve"], env={**env, "WIKIWARDEN_PORT": str(web_port)}, cwd=ROOT
                )
            )
            worker_ports = [_free_port() for _ in range(args.workers)]
            for port in worker_ports:
                processes.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "bot", "worker"],
                        env={**env, "WIKIWARDEN_WORKER_PORT": str(port)},
                        cwd=ROOT,
                    )
                )
            url = f"http://127.0.0.1:{web_port}"
            for target in [url, *(f"http://127.0.0.1:{p}" for p in worker_ports)]:
                _wait_for(target)
            payloads = (setup["pushes"] * (args.deliveries // len(setup["pushes"]) + 1))[: args.deliveries]
            distinct = {p["after"] for p in payloads}
            if len(distinct) < len(payloads):
                print(f"note: only {len(distinct)} distinct pushes; repeated ones are separate deliveries of them")

            sent = await _send(url, payloads, setup["secret"])
            acks = [ack * 1000 for _, ack in sent.values()]
            if args.workers == 0:  # the web path with a real Redis queue, nothing running the jobs
                print(f"{len(payloads)} deliveries → 1 web process enqueueing to Redis, no workers")
                print(f"  acknowledged: p50 {statistics.median(acks):.1f} ms, p99 {_percentile(acks, 0.99):.1f} ms")
                return
            first = min(t for t, _ in sent.values())
            completed: dict[str, float] = {}
            deadline = time.monotonic() + args.timeout
            while len(completed) < len(distinct) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
                try:
                    completed = json.loads(Path(completions_file).read_text())
                except ValueError:
                    continue
            done = [sha for sha in distinct if sha in completed]
            latencies = [completed[sha] - sent[sha][0] for sha in done]
            span = max(completed[sha] for sha in done) - first if done else float("nan")
            print(
                f"{len(payloads)} deliveries → 1 web process, {args.workers} workers × {args.jobs_per_worker} jobs, "
                f"Redis queue, fake GitHub in its own process"
            )
            print(f"  acknowledged: p50 {statistics.median(acks):.1f} ms, p99 {_percentile(acks, 0.99):.1f} ms")
            print(f"  checked: {len(done)} of {len(distinct)} in {span:.2f} s → {len(done) / span:.1f} checks/s")
            if latencies:
                print(
                    "  delivery → completed check run: "
                    f"p50 {statistics.median(latencies):.2f} s, p90 {_percentile(latencies, 0.9):.2f} s, "
                    f"p99 {_percentile(latencies, 0.99):.2f} s, max {max(latencies):.2f} s"
                )
        finally:
            for process in reversed(processes):
                process.terminate()
            for process in processes:
                try:
                    process.wait(40)
                except subprocess.TimeoutExpired:
                    process.kill()


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--fake-process":
        asyncio.run(_fake_process(sys.argv[2], int(sys.argv[3]), sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deliveries", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--jobs-per-worker", type=int, default=4)
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--timeout", type=float, default=600)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
