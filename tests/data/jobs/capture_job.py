"""Capture a job exactly as a version of Wikiwarden leaves it in Redis, for the upgrade tests (tests/jobs/).

Run with that version's `bot` first on the path, a redis-server on PATH, and the tests' helpers beside it:

    git archive <commit> | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old:tests/support:tests/fakes .venv/bin/python tests/data/jobs/capture_job.py \
        tests/data/jobs/<name>.json "<commit> (what it was)"

It serves a fresh fake GitHub with the repository the upgrade test builds (the same commits, so the same shas),
starts that version's web application with the Redis queue, delivers one signed push, and writes what Redis then
holds for the job: arq's record of it (base64: arq pickles it), its score in the queue and the keys beside it.
"""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis.asyncio
from aiohttp.test_utils import TestClient, TestServer
from apptools import deliver, grounded, push_payload, settings_for
from fakegithub import FakeGitHub
from fakegithub.server import create_app as create_fake

import bot
from bot.web import create_app

CODE = {"src/queue.py": "def push(x):\n    items.append(x)\n", "src/keep.py": "KEEP = 1\n"}
CLAIMS = {
    "queue.md": [("push appends", ["repo://src/queue.py#L1-L2"])],
    "keep.md": [("keep", ["repo://src/keep.py#L1"])],
}
HEAD = {"src/queue.py": "def push(x):\n    items.insert(0, x)\n"}
DELIVERY = "captured-delivery-1"


async def capture(out: Path, port: int, source: str) -> None:
    url = f"redis://127.0.0.1:{port}/0"
    fake = FakeGitHub()
    fake.add_installation(77, "acme")
    repo = fake.create_repo("acme", "widgets", 77)
    base = repo.commit(grounded(CODE, CLAIMS), message="code and wiki")
    head = repo.commit(HEAD, message="x")
    fake_server = TestServer(create_fake(fake), host="127.0.0.1")
    await fake_server.start_server()
    fake.base_url = str(fake_server.make_url("")).rstrip("/")
    web = TestClient(TestServer(create_app(settings_for(fake, queue_backend="redis", redis_url=url))))
    await web.start_server()
    try:
        payload = push_payload(repo, before=base, after=head)
        status, answer = await deliver(web, "push", payload, secret=fake.webhook_secret, delivery=DELIVERY)
        assert status == 202, (status, answer)
    finally:
        await web.close()
        await fake_server.close()
    client = redis.asyncio.Redis.from_url(url)
    try:
        [(job_id, score)] = await client.zrange("wikiwarden:jobs", 0, -1, withscores=True)
        record = await client.get(b"arq:job:" + job_id)
        keys = sorted(k.decode() for k in await client.keys("*"))
        latest = {k: (await client.get(k)).decode() for k in keys if k.startswith("wikiwarden:latest:")}
    finally:
        await client.aclose()
    captured = {
        "about": "a check job as Wikiwarden left it in Redis (tests/data/jobs/capture_job.py)",
        "captured_from": source,
        "version": bot.__version__,
        "head_sha": head,
        "job_id": job_id.decode(),
        "score": score,
        "record_base64": base64.b64encode(record).decode(),
        "latest": latest,
        "keys": keys,
    }
    out.write_text(json.dumps(captured, indent=2) + "\n")


def main() -> None:
    out = Path(sys.argv[1])
    binary = shutil.which("redis-server")
    assert binary, "redis-server is needed"
    folder = tempfile.mkdtemp()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([binary, "--port", str(port), "--save", "", "--dir", folder], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        asyncio.run(capture(out, port, sys.argv[2] if len(sys.argv) > 2 else "unknown"))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
