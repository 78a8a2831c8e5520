"""One load-generating process of `bench/webhooks.py`: opens its connections, waits for the burst's common start
instant, sends its share of the deliveries at once and writes their acknowledgement times (seconds, JSON).

A script of its own that imports aiohttp alone: started as the bench itself (multiprocessing's spawn imports the
parent's main module), each client took 1.5 s of CPU importing the App, four of them on two cores, and some were
still importing at the instant, competing with the App they were timing and sending late.

    python bench/webhook_client.py URL SECRET START_AT PAYLOADS_JSON OUT_JSON
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import sys
import time
import uuid
from pathlib import Path

import aiohttp


def sign(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def delivery_headers(body: bytes, secret: str, event: str = "push") -> dict[str, str]:
    """GitHub's headers for delivering `body`: the event, a fresh delivery id, the signature."""
    return {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": sign(body, secret),
        "Content-Type": "application/json",
    }


async def post(
    session: aiohttp.ClientSession, url: str, payload: dict, secret: str, event: str = "push", expect: int = 202
) -> float:
    """Deliver `payload` as GitHub does (signed, with a fresh delivery id); the seconds to its acknowledgement."""
    body = json.dumps(payload).encode()
    started = time.perf_counter()
    async with session.post(f"{url}/webhook", data=body, headers=delivery_headers(body, secret, event)) as response:
        await response.read()
        assert response.status == expect, response.status
    return time.perf_counter() - started


async def send_at(url: str, secret: str, start_at: float, payloads: list[dict]) -> list[float]:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        # Open the connections before the start, so the burst measures the App, not TCP handshakes.
        await asyncio.gather(*(session.get(f"{url}/healthz") for _ in payloads))
        await asyncio.sleep(max(0.0, start_at - time.time()))
        return await asyncio.gather(*(post(session, url, p, secret) for p in payloads))


def main(url: str, secret: str, start_at: str, payloads: str, out: str) -> None:
    times = asyncio.run(send_at(url, secret, float(start_at), json.loads(Path(payloads).read_text())))
    Path(out).write_text(json.dumps(times))


if __name__ == "__main__":
    main(*sys.argv[1:])
