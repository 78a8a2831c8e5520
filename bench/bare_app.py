"""The floor `bench/webhooks.py` measures the App against: a bare aiohttp application that reads each delivery and
answers 202, nothing else. A module of its own so that its process imports aiohttp alone (started from the bench,
it carried the bench's imports of the App: 130,000 objects for its garbage collector to walk, a floor raised by
the very thing measured against it).

    python bench/bare_app.py PORT
"""

from __future__ import annotations

import sys

from aiohttp import web


async def webhook(request: web.Request) -> web.Response:
    await request.read()
    status = 200 if request.headers.get("X-GitHub-Event") == "ping" else 202
    return web.json_response({"ok": True}, status=status)


async def healthz(request: web.Request) -> web.Response:
    return web.Response(text="ok")


def main(port: int) -> None:
    app = web.Application()
    app.router.add_post("/webhook", webhook)
    app.router.add_get("/healthz", healthz)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


if __name__ == "__main__":
    main(int(sys.argv[1]))
