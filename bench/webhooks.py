"""The App under load, against the fake GitHub over loopback: acknowledgement latency of concurrent webhook
deliveries, and what one push costs in GitHub requests as the change and the wiki grow.

    python bench/webhooks.py                 # 200 concurrent deliveries; costs for 1/10/50 files × 10/100/1000 pages
    python bench/webhooks.py --deliveries 500 --bursts 9

Targets: p99 acknowledgement under 50 ms, and at most 1.5 times a bare aiohttp application's answering 202 in the
same harness (the floor), measured for the web application with a queue that runs nothing and for the web process as
deployed (its jobs to a real Redis, when redis-server is installed), which take their bursts by turns with the floor,
and for the single-process App whose in-process workers check the pushes while the burst arrives (after them: its
checks run on); a push touching k evidence files costs O(k) file
fetches plus a small constant, whatever the wiki's size: the first push of a repository reads its sidecars once, and
a new worker's first push reads only those the shared evidence index shows cite the change, from Redis where another
worker shared them (the costs table's workers share through a throwaway redis-server when one is installed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import aiohttp
from aiohttp import web

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "fakes")]

from apptools import grounded, push_payload, settings_for  # noqa: E402
from fakegithub import FakeGitHub  # noqa: E402
from fakegithub import create_app as fake_app  # noqa: E402

from bench.machine import speed_line  # noqa: E402
from bench.webhook_client import post  # noqa: E402
from bot.web import QUEUE, RUNTIME, create_app  # noqa: E402

CLAIMS_PER_PAGE = 10


async def serve(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


def wiki(files: int, pages: int) -> dict[str, bytes]:
    code = {f"src/m{n}.py": "".join(f"def f{n}_{i}():\n    return {i}\n\n" for i in range(30)) for n in range(files)}
    claims = {
        f"p{p}.md": [
            (f"claim {p}.{c}", [f"repo://src/m{(p * CLAIMS_PER_PAGE + c) % files}.py#L{3 * c + 1}-L{3 * c + 2}"])
            for c in range(CLAIMS_PER_PAGE)
        ]
        for p in range(pages)
    }
    return grounded(code, claims)


CLIENT_PROCESSES = 4


async def burst(
    url: str, payloads: list[dict], secret: str, folder: str, at_start: Callable[[], None] | None = None
) -> list[float]:
    """Deliver `payloads` at the same instant from several processes; the acknowledgement times. `at_start` runs
    just before that instant, once the clients have opened their connections."""
    start_at = time.time() + 2.0
    if at_start is not None:
        threading.Timer(start_at - time.time() - 0.05, at_start).start()
    clients = []
    for n in range(CLIENT_PROCESSES):
        share, out = f"{folder}/share-{n}.json", f"{folder}/times-{n}.json"
        Path(share).write_text(json.dumps(payloads[n::CLIENT_PROCESSES]))
        command = [sys.executable, str(ROOT / "bench" / "webhook_client.py"), url, secret, str(start_at), share, out]
        clients.append((subprocess.Popen(command), out))
    times = []
    for client, out in clients:
        if client.wait(120) != 0:
            raise RuntimeError("a client process failed")
        times += json.loads(Path(out).read_text())
    return times


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def serve_fake(setup_file: str, port: int) -> FakeGitHub:
    """The fake GitHub with 20 repositories of 10 branches each, served on `port`; what a client needs to drive
    it (its URL, the App's key and webhook secret, 200 push payloads) is written to `setup_file`."""
    fake = FakeGitHub()
    fake.add_installation(1, "acme")
    pushes = []
    for n in range(20):
        repo = fake.create_repo("acme", f"r{n}", 1)
        base = repo.commit(wiki(files=20, pages=5), message="init")
        for k in range(10):
            head = repo.commit({"src/m0.py": f"X = {k}\n"}, message=str(k), branch=f"b{k}", start_from=base)
            pushes.append(push_payload(repo, branch=f"b{k}", before=base, after=head))
    runner = web.AppRunner(fake_app(fake), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    fake.base_url = f"http://127.0.0.1:{port}"
    Path(setup_file).write_text(
        json.dumps({"url": fake.base_url, "key": fake.private_key_pem, "secret": fake.webhook_secret, "pushes": pushes})
    )
    return fake


async def _fake_process(setup_file: str, port: int) -> None:
    """Runs in its own process: the fake GitHub, until terminated."""
    await serve_fake(setup_file, port)
    await asyncio.Event().wait()


def _wait_for(url: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not start")


def wait_for_fake(fake: subprocess.Popen, setup_file: str, timeout: float = 120) -> dict:
    """What `serve_fake` wrote once the fake GitHub's process is up."""
    deadline = time.monotonic() + timeout
    while not Path(setup_file).exists():
        if time.monotonic() > deadline or fake.poll() is not None:
            raise RuntimeError("the fake GitHub did not start")
        time.sleep(0.2)
    return json.loads(Path(setup_file).read_text())


def app_environment(setup: dict, **settings: object) -> dict[str, str]:
    """An App process's environment pointed at the fake GitHub of `setup`, with `settings` (`PORT=...`) on top.
    GitHub's pause between writes is off: it would hold one installation's 200 checks to 400 s by design."""
    values: dict[str, object] = {
        "APP_ID": 1234,
        "PRIVATE_KEY": setup["key"],
        "WEBHOOK_SECRET": setup["secret"],
        "GITHUB_API_URL": setup["url"],
        "HOST": "127.0.0.1",
        "MUTATION_SPACING_SECONDS": 0,
        **settings,
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIKIWARDEN_")}
    return env | {f"WIKIWARDEN_{k}": str(v) for k, v in values.items()}


async def _completed(fake_url: str, key: str, pushes: list[dict]) -> int:
    """How many pushes have a completed check run, asked of the fake through its API (as the App)."""
    from gidgethub import apps
    from gidgethub.aiohttp import GitHubAPI

    done = 0
    async with aiohttp.ClientSession() as session:
        gh = GitHubAPI(session, "bench", base_url=fake_url)
        token = (await apps.get_installation_access_token(gh, installation_id="1", app_id="1234", private_key=key))[
            "token"
        ]
        gh = GitHubAPI(session, "bench", oauth_token=token, base_url=fake_url)
        for push in pushes:
            runs = await gh.getitem(f"/repos/{push['repository']['full_name']}/commits/{push['after']}/check-runs")
            done += any(r["status"] == "completed" for r in runs["check_runs"])
    return done


def _web_only_process() -> None:
    from bot.settings import load_settings

    class DiscardingQueue:
        runs_jobs = False  # as the web process with Redis: it only acknowledges

        async def submit(self, job: object) -> bool:
            return True

        async def start(self) -> None: ...

        async def close(self) -> None: ...

    settings = load_settings()
    web.run_app(
        create_app(settings, lambda runtime: DiscardingQueue()),
        host=settings.host,
        port=settings.port,
        print=None,
        access_log=None,  # as `wikiwarden serve`
    )


def _redis_server(port: int) -> subprocess.Popen | None:
    """A throwaway redis-server on `port` (no persistence), or None when none is installed."""
    binary = shutil.which("redis-server")
    if binary is None:
        return None
    server = subprocess.Popen(
        [binary, "--port", str(port), "--save", "", "--appendonly", "no", "--bind", "127.0.0.1"],
        stdout=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.1).close()
            return server
        except OSError:
            time.sleep(0.02)
    server.terminate()
    raise SystemExit("redis-server did not start")


def _mark_cpu(marks: list[float | None], pid: int) -> None:
    marks.append(_cpu_seconds(pid))


def _cpu_seconds(pid: int) -> float | None:
    """CPU time a process has used, all its threads, to the nanosecond (Linux's schedstat; None elsewhere)."""
    try:
        tasks = Path(f"/proc/{pid}/task").iterdir()
        return sum(int((task / "schedstat").read_text().split()[0]) for task in tasks) / 1e9
    except (OSError, ValueError, IndexError):
        return None


KINDS = {
    "bare": "a bare aiohttp application answering 202 (the floor)",
    "web": "the web path alone (a queue that runs nothing)",
    "redis": "the web process as deployed (jobs to a real Redis, for workers in other processes)",
    "app": "the App with its in-process workers (one process: the checks compete for the CPU)",
}


class Measured:
    """One application's bursts: each burst's p50 and p99 in milliseconds and the CPU a delivery cost the App."""

    def __init__(self) -> None:
        self.p50s: list[float] = []
        self.p99s: list[float] = []
        self.cpu: list[float] = []

    @property
    def p99(self) -> float:
        return statistics.median(self.p99s)

    @property
    def per_delivery(self) -> float | None:
        return statistics.median(self.cpu) if self.cpu else None

    def line(self, deliveries: int) -> str:
        spent = f", the App's CPU {self.per_delivery:.0f} µs a delivery" if self.per_delivery is not None else ""
        return (
            f"{deliveries} concurrent deliveries, {len(self.p99s)} burst(s) from {CLIENT_PROCESSES} client processes: "
            f"ack p50 {statistics.median(self.p50s):.1f} ms, p99 {self.p99:.1f} ms (median; each burst "
            f"{' / '.join(f'{x:.1f}' for x in self.p99s)}){spent}"
        )


def _start_app(kind: str, setup: dict, folder: str) -> tuple[list[subprocess.Popen], subprocess.Popen, str]:
    """Start application `kind` (with its redis-server for "redis"); the processes to stop, the App's process and
    its URL."""
    app_port = _free_port()
    env = app_environment(setup, PORT=app_port, WORKERS=4)
    started: list[subprocess.Popen] = []
    if kind == "redis":  # the web process as deployed: each delivery's jobs go to Redis, for workers elsewhere
        redis_port = _free_port()
        server = _redis_server(redis_port)
        assert server is not None
        started.append(server)
        env |= {"WIKIWARDEN_QUEUE_BACKEND": "redis", "WIKIWARDEN_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0"}
    command = {
        "bare": [sys.executable, str(ROOT / "bench" / "bare_app.py"), str(app_port)],
        "web": [sys.executable, __file__, "--web-only-process"],  # the web application, a queue that runs nothing
    }.get(kind, [sys.executable, "-m", "bot", "serve"])
    if os.environ.get("BENCH_PROFILE"):  # py-spy the App while it answers
        rate, out = os.environ.get("BENCH_PROFILE_RATE", "1000"), f"{os.environ['BENCH_PROFILE']}.{kind}"
        command = ["py-spy", "record", "-r", rate, "-f", "raw", "-o", out, "--", *command]
    app = subprocess.Popen(command, env=env, cwd=ROOT, stderr=subprocess.DEVNULL)
    started.append(app)
    url = f"http://127.0.0.1:{app_port}"
    _wait_for(url)
    return started, app, url


def _stop(process: subprocess.Popen) -> None:
    """Stop one of the bench's processes; a py-spy recording is stopped as Ctrl-C would (SIGTERM kills it before it
    writes its profile), which ends the App under it too."""
    profiling = isinstance(process.args, list) and process.args[:1] == ["py-spy"]
    process.send_signal(signal.SIGINT if profiling else signal.SIGTERM)
    process.wait(60 if profiling else 10)


async def _burst_into(
    measured: Measured, app: subprocess.Popen, url: str, payloads: list[dict], secret: str, folder: str
) -> None:
    # the App's CPU from just before the burst: the clients' connections and their first requests are not its cost
    marks: list[float | None] = []
    profiled = bool(os.environ.get("BENCH_PROFILE"))
    times = await burst(
        url, payloads, secret, folder, at_start=None if profiled else partial(_mark_cpu, marks, app.pid)
    )
    cpu_before = marks[0] if marks else None
    cpu_after = None if profiled else _cpu_seconds(app.pid)
    if cpu_before is not None and cpu_after is not None:
        measured.cpu.append((cpu_after - cpu_before) / len(payloads) * 1e6)
    times_ms = sorted(t * 1000 for t in times)
    measured.p50s.append(statistics.median(times_ms))
    measured.p99s.append(times_ms[max(0, int(len(times_ms) * 0.99) - 1)])


async def latency(deliveries: int, bursts: int, kinds: list[str]) -> dict[str, Measured]:
    """Acknowledgement times of `bursts` bursts of `deliveries` into each application of `kinds`, all started at
    once and taking their bursts by turns (one burst to each, then again), so that the machine's drift through the
    run (a quick loop can take half as long again a minute later) falls on every application alike; the floor,
    measured first and alone, had the quickest minutes. Each application's median of its bursts' p99, and the
    CPU a delivery cost it.

    One burst's p99 varies from run to run by as much as the margin being measured; the median of several is
    steadier, and the CPU a delivery costs the App (what a burst's queue of requests waits on) steadier still."""
    with tempfile.TemporaryDirectory() as folder:
        setup_file = f"{folder}/setup.json"
        fake = subprocess.Popen([sys.executable, __file__, "--fake-process", setup_file, str(_free_port())])
        started: list[subprocess.Popen] = []
        try:
            setup = wait_for_fake(fake, setup_file)
            apps = {}
            for kind in kinds:
                processes, app, url = _start_app(kind, setup, folder)
                started += processes
                apps[kind] = (app, url)
            payloads = (setup["pushes"] * (deliveries // len(setup["pushes"]) + 1))[:deliveries]
            async with aiohttp.ClientSession() as session:
                for _, url in apps.values():
                    await post(
                        session, url, {"zen": "warm-up", "hook_id": 1}, setup["secret"], event="ping", expect=200
                    )
            measured = {kind: Measured() for kind in kinds}
            started_at = time.perf_counter()
            for _ in range(bursts):
                for kind, (app, url) in apps.items():
                    await _burst_into(measured[kind], app, url, payloads, setup["secret"], folder)
            if "app" in apps:
                distinct = setup["pushes"][: min(deliveries, len(setup["pushes"]))]
                for _ in range(600):
                    done = await _completed(setup["url"], setup["key"], distinct)
                    if done == len(distinct):
                        break
                    await asyncio.sleep(1)
                print(
                    f"  {done} of {len(distinct)} pushes checked by the App's 4 in-process workers "
                    f"{time.perf_counter() - started_at:.1f} s after the first delivery"
                )
            return measured
        finally:
            for process in [*reversed(started), fake]:
                _stop(process)


async def costs() -> None:
    """Requests and file fetches of one push: cold (a new repository), warm (the same worker again), and the first
    push a new worker sees while what the workers share is warm: the evidence index and the sidecars read, through a
    throwaway redis-server as `wikiwarden worker` shares them (without redis-server, the index alone, the same object
    behind both runtimes)."""
    port = _free_port()
    server = _redis_server(port)
    try:
        await _costs(server is not None and f"redis://127.0.0.1:{port}/0")
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)


async def _costs(redis: str | bool) -> None:
    from arq import create_pool

    from bot.jobs.redis import redis_settings

    pool = await create_pool(redis_settings(redis)) if isinstance(redis, str) else None
    print()
    print("the new worker shares with the first " + ("through Redis" if pool else "its evidence index only"))
    head = ["pages", "claims", "changed", "cold: requests", "files", "warm: requests", "files", "new worker: requests"]
    print("{:>6} {:>7} {:>8}  {:>15} {:>6}  {:>15} {:>6}  {:>21} {:>6}".format(*head, "files"))
    for pages in (10, 100, 1000):
        for changed in (1, 10, 50):
            fake = FakeGitHub()
            fake_runner, fake.base_url = await serve(fake_app(fake))
            fake.add_installation(1, "acme")
            repo = fake.create_repo("acme", "wiki", 1)
            files = max(50, changed)
            base = repo.commit(wiki(files=files, pages=pages), message="init")
            first = create_app(settings_for(fake, workers=1))
            first_runner, first_url = await serve(first)
            second = create_app(settings_for(fake, workers=1))
            second_runner, second_url = await serve(second)
            if pool is not None:
                await pool.flushdb()
                first[RUNTIME].share_through(pool)
                second[RUNTIME].share_through(pool)
            else:
                second[RUNTIME].evidence = first[RUNTIME].evidence
            row = []
            async with aiohttp.ClientSession() as session:
                before = base
                # cold caches, then warm ones, then a new worker (its own caches cold) with the index warm
                for round_, (app, url) in enumerate([(first, first_url), (first, first_url), (second, second_url)]):
                    body = "".join(f"def f_{i}():\n    return {i + 1}\n\n" for i in range(30))
                    touched = {f"src/m{n}.py": f"# round {round_} of file {n}\n{body}" for n in range(changed)}
                    head = repo.commit(touched, message=f"touch {changed}")
                    requests, fetched = len(fake.requests), app[RUNTIME].cache.fetched_blobs
                    await post(session, url, push_payload(repo, before=before, after=head), fake.webhook_secret)
                    await app[QUEUE].wait_idle(timeout=600)
                    row += [len(fake.requests) - requests, app[RUNTIME].cache.fetched_blobs - fetched]
                    before = head
            print(
                f"{pages:>6} {pages * CLAIMS_PER_PAGE:>7} {changed:>8}  {row[0]:>15} {row[1]:>6}"
                f"  {row[2]:>15} {row[3]:>6}  {row[4]:>21} {row[5]:>6}"
            )
            await second_runner.cleanup()
            await first_runner.cleanup()
            await fake_runner.cleanup()
    if pool is not None:
        await pool.aclose()


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--fake-process":
        asyncio.run(_fake_process(sys.argv[2], int(sys.argv[3])))
        return
    if sys.argv[1:] == ["--web-only-process"]:
        _web_only_process()
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deliveries", type=int, default=200)
    parser.add_argument("--bursts", type=int, default=5, help="bursts per application (the median is reported)")
    parser.add_argument("--skip-costs", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args()
    print(speed_line("before"))
    if not args.skip_latency:
        n, bursts = args.deliveries, args.bursts
        kinds = ["bare", "web", "redis"] if shutil.which("redis-server") else ["bare", "web"]
        if len(kinds) == 2:
            print("redis-server is not installed: the web process as deployed is skipped")
        # The in-process App's checks run on after its bursts (about 25 s of CPU for 200 pushes): its bursts come
        # after the others', not between them.
        measured = asyncio.run(latency(n, bursts, kinds)) | asyncio.run(latency(n, bursts, ["app"]))
        print(f"by turns, {bursts} burst(s) each: {', '.join(KINDS[k].split(' (')[0] for k in kinds)}; then alone:")
        for kind, m in measured.items():
            print(f"{KINDS[kind]}:")
            print(m.line(n))
        floor = measured.pop("bare")
        names = {"web": "web path", "redis": "web process with Redis", "app": "App with in-process workers"}
        print(
            "p99 over the bare application's: "
            + ", ".join(f"{names[k]} {m.p99 / floor.p99:.2f}x" for k, m in measured.items())
            + " (target: at most 1.5x)"
        )
        # Burst by burst against the floor's burst of the same round (the applications taken by turns): the drift
        # of the machine falls on both sides of each ratio, though one burst's p99, nearly its slowest delivery,
        # still varies a lot; the in-process App, alone after the others, has no round to pair with.
        paired = {
            k: sorted(m.p99s[i] / floor.p99s[i] for i in range(len(m.p99s))) for k, m in measured.items() if k in kinds
        }
        if paired:
            print(
                "burst by burst, p99 over the bare application's burst of the same round: "
                + ", ".join(
                    f"{names[k]} median {statistics.median(r):.2f}x (from {r[0]:.2f}x to {r[-1]:.2f}x)"
                    for k, r in paired.items()
                )
            )
        if floor.per_delivery is not None:
            print(
                f"the App's CPU a delivery over the bare application's ({floor.per_delivery:.0f} µs): "
                + ", ".join(
                    f"{names[k]} {m.per_delivery / floor.per_delivery:.2f}x"
                    for k, m in measured.items()
                    if m.per_delivery
                )
            )
    if not args.skip_costs:
        asyncio.run(costs())
    print(speed_line("after"))


if __name__ == "__main__":
    main()
