"""What anyone on the internet can make the web process spend before a signature says who they are: its memory under
concurrent large bodies, and how long slow connections stay open.

    python bench/unauthenticated.py                          # this checkout's `wikiwarden serve`
    python bench/unauthenticated.py --root /path/to/checkout # another checkout's (the same measurements, before/after)
    python bench/unauthenticated.py --bodies 50 --mb 25 --slow 600

`wikiwarden serve` runs as deployed (its jobs to a throwaway redis-server when one is installed, else in-process) in
a process of its own; its resident memory is sampled every 5 ms from /proc (and its peak, VmHWM, read at the end).
Each scenario sends `--bodies` concurrent bodies of `--mb` MB from one client process, as fast as loopback takes
them, plus a signed ping every 50 ms while they arrive (GitHub's deliveries must still get through):

- unsigned: no signature header at all;
- bad signature: a header of the right shape (`sha256=` and 64 hex digits) that does not match: such a body must be
  read whole before it can be refused, so this is what bounds the memory.

Then the slow connections: `--slow` connections each sending its headers a byte a second, and one sending a
signed-looking body a byte a second: how long until the process closes them (the web pod has 512 MiB: the peak must
stay well under it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import hmac
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-webhook-secret-0123456789"
POD_LIMIT_MIB = 512
GIVE_UP_SECONDS = 100  # a slow connection still open then is reported as such


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _private_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return pem.decode()


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


class Sampler:
    """The process's resident memory, sampled every 5 ms on a thread: the peak of each scenario."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, _status_kib(self.pid, "VmRSS"))
            except (OSError, KeyError):
                return
            time.sleep(0.005)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _start(root: Path, port: int, redis_port: int | None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIKIWARDEN_")}
    env |= {
        "WIKIWARDEN_APP_ID": "1234",
        "WIKIWARDEN_APP_SLUG": "bench",  # no lookup of who the App is: GitHub is not needed here
        "WIKIWARDEN_PRIVATE_KEY": _private_key(),
        "WIKIWARDEN_WEBHOOK_SECRET": SECRET,
        "WIKIWARDEN_GITHUB_API_URL": "http://127.0.0.1:9",
        "WIKIWARDEN_HOST": "127.0.0.1",
        "WIKIWARDEN_PORT": str(port),
        "WIKIWARDEN_LOG_LEVEL": "ERROR",
        "PYTHONPATH": str(root),
    }
    if redis_port is not None:
        env |= {"WIKIWARDEN_QUEUE_BACKEND": "redis", "WIKIWARDEN_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0"}
    process = subprocess.Popen([sys.executable, "-m", "bot", "serve"], env=env, cwd=root, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("wikiwarden serve did not start")


def _redis(port: int) -> subprocess.Popen | None:
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
    raise SystemExit("redis-server did not start")


HEAD = (
    "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
    "X-GitHub-Event: push\r\nX-GitHub-Delivery: {delivery}\r\n{signature}Content-Length: {length}\r\n\r\n"
)


async def _status(reader: asyncio.StreamReader, timeout: float) -> int | str:
    try:
        line = await asyncio.wait_for(reader.readline(), timeout)
    except TimeoutError:
        return "no answer"
    except (ConnectionError, OSError):
        return "reset"
    return int(line.split()[1]) if line else "closed"


async def _send_body(port: int, body: memoryview, signature: str, n: int) -> tuple[int | str, float]:
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = HEAD.format(delivery=f"flood-{n}", signature=signature, length=len(body)).encode()
    writer.write(head)
    sending = asyncio.create_task(_write_all(writer, body))
    status = await _status(reader, 120)
    sending.cancel()
    await asyncio.gather(sending, return_exceptions=True)
    writer.close()
    return status, time.perf_counter() - started


async def _write_all(writer: asyncio.StreamWriter, body: memoryview) -> None:
    for start in range(0, len(body), 1 << 20):
        writer.write(body[start : start + (1 << 20)])
        await writer.drain()


async def _pings(port: int, stop: asyncio.Event) -> list[tuple[int | str, float]]:
    """Signed pings, one every 50 ms, while the flood lasts: GitHub's own deliveries."""
    body = b'{"zen": "Keep it logically awesome.", "hook_id": 1}'
    signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    answers = []
    n = 0
    while not stop.is_set():
        n += 1
        started = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head = HEAD.replace("push", "ping").format(
            delivery=f"ping-{n}", signature=f"X-Hub-Signature-256: {signature}\r\n", length=len(body)
        )
        writer.write(head.encode() + body)
        answers.append((await _status(reader, 30), time.perf_counter() - started))
        writer.close()
        await asyncio.sleep(0.05)
    return answers


async def flood(port: int, pid: int, bodies: int, megabytes: int, signature: str) -> str:
    body = memoryview(b"x" * (megabytes * 1_000_000))
    stop = asyncio.Event()
    with Sampler(pid) as sampler:
        pinging = asyncio.create_task(_pings(port, stop))
        started = time.perf_counter()
        results = await asyncio.gather(*(_send_body(port, body, signature, n) for n in range(bodies)))
        elapsed = time.perf_counter() - started
        stop.set()
        pings = await pinging
    statuses = Counter(str(status) for status, _ in results)
    ping_ok = [seconds for status, seconds in pings if status == 200]
    ping_line = (
        f"signed pings meanwhile: {len(ping_ok)} of {len(pings)} answered 200"
        + (f" (slowest {max(ping_ok) * 1000:.0f} ms)" if ping_ok else "")
    )
    return (
        f"{bodies} concurrent {megabytes} MB bodies: answers {dict(sorted(statuses.items()))} in {elapsed:.1f} s; "
        f"peak RSS {sampler.peak / 1024:.0f} MiB; {ping_line}"
    )


async def _slow_headers(port: int) -> float:
    """A connection sending a request's headers a byte a second: the seconds until the process closes it."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = b"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nX-GitHub-Event: push\r\n" * 10

    async def trickle() -> None:
        for byte in head:
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(1)

    sending = asyncio.create_task(trickle())
    with contextlib.suppress(TimeoutError, ConnectionError, OSError):
        await asyncio.wait_for(reader.read(), GIVE_UP_SECONDS)
    sending.cancel()
    await asyncio.gather(sending, return_exceptions=True)
    writer.close()
    return time.perf_counter() - started


async def _slow_body(port: int) -> tuple[int | str, float, float]:
    """A signed-looking body a byte a second: its answer, the seconds until it came, and until the connection ended."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    signature = "X-Hub-Signature-256: sha256=" + "0" * 64 + "\r\n"
    writer.write(HEAD.format(delivery="slow-body", signature=signature, length=1000).encode())

    async def trickle() -> None:
        for _ in range(1000):
            writer.write(b" ")
            await writer.drain()
            await asyncio.sleep(1)

    sending = asyncio.create_task(trickle())
    status = await _status(reader, GIVE_UP_SECONDS)
    answered = time.perf_counter() - started
    with contextlib.suppress(TimeoutError, ConnectionError, OSError):
        await asyncio.wait_for(reader.read(), GIVE_UP_SECONDS)
    ended = time.perf_counter() - started
    sending.cancel()
    await asyncio.gather(sending, return_exceptions=True)
    writer.close()
    return status, answered, ended


async def slow(port: int, pid: int, connections: int) -> list[str]:
    with Sampler(pid) as sampler:
        headers, body = await asyncio.gather(
            asyncio.gather(*(_slow_headers(port) for _ in range(connections))), _slow_body(port)
        )
    status, answered, ended = body
    if isinstance(status, int):
        answer = f"answered {status} after {answered:.1f} s"
    else:
        answer = f"{status} within {answered:.0f} s"
    closed = f"connection closed after {ended:.1f} s" if ended < 2 * GIVE_UP_SECONDS else "connection still open"
    return [
        f"{connections} connections sending their headers a byte a second: all closed after "
        f"{min(headers):.1f} to {max(headers):.1f} s; peak RSS {sampler.peak / 1024:.0f} MiB",
        f"a signed-looking body sent a byte a second: {answer}, {closed}",
    ]


async def main(root: Path, bodies: int, megabytes: int, connections: int) -> None:
    port = _free_port()
    redis_port = _free_port() if shutil.which("redis-server") else None
    redis = _redis(redis_port) if redis_port is not None else None
    app = _start(root, port, redis_port)
    try:
        await asyncio.sleep(1)
        print(f"`wikiwarden serve` of {root} ({'jobs to Redis' if redis else 'in-process queue'})")
        print(f"at rest: RSS {_status_kib(app.pid, 'VmRSS') / 1024:.0f} MiB")
        print("unsigned:      " + await flood(port, app.pid, bodies, megabytes, ""))
        bad = "X-Hub-Signature-256: sha256=" + "0" * 64 + "\r\n"
        print("bad signature: " + await flood(port, app.pid, bodies, megabytes, bad))
        for line in await slow(port, app.pid, connections):
            print(line)
        hwm = _status_kib(app.pid, "VmHWM") / 1024
        verdict = "within" if hwm < POD_LIMIT_MIB * 0.75 else "NOT within"
        print(f"peak RSS of the whole run (VmHWM): {hwm:.0f} MiB, {verdict} 3/4 of the web pod's {POD_LIMIT_MIB} MiB")
    finally:
        app.terminate()
        app.wait(30)
        if redis is not None:
            redis.terminate()
            redis.wait(10)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose `wikiwarden serve` to measure")
    parser.add_argument("--bodies", type=int, default=50, help="concurrent bodies (default 50)")
    parser.add_argument("--mb", type=int, default=25, help="each body's size in MB (default 25, GitHub's cap)")
    parser.add_argument("--slow", type=int, default=600, help="slow connections (default 600)")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.root.resolve(), arguments.bodies, arguments.mb, arguments.slow))
