"""pytest plugin: the `fake_openai` fixture, a FakeOpenAI served on 127.0.0.1 for one test.

Enable it in a test module with `pytest_plugins = ["fakeopenai.fixtures"]` (or in the root conftest.py).
`fake_openai.base_url` is `http://127.0.0.1:<port>/v1`, ready for `openai.AsyncOpenAI(base_url=...,
api_key=fake_openai.api_key)`. At teardown the test fails if the fake recorded violations (requests OpenAI
would reject, routes the fake lacks, requests nothing was scripted for) unless the test is marked
`@pytest.mark.openai_violations_expected`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web

from .markers import MARKER, MARKER_HELP
from .server import create_app
from .state import FakeOpenAI


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)


@pytest.fixture
async def fake_openai(
    aiohttp_server: Callable[..., Awaitable[Any]], request: pytest.FixtureRequest
) -> AsyncIterator[FakeOpenAI]:
    fake = FakeOpenAI()
    app: web.Application = create_app(fake)
    server = await aiohttp_server(app, host="127.0.0.1")
    fake.base_url = str(server.make_url("/v1"))
    yield fake
    fake.closing.set()  # wake any Hang still sleeping, so the server closes at once
    if fake.violations and request.node.get_closest_marker(MARKER) is None:
        listed = "\n".join(f"  - {v}" for v in fake.violations)
        pytest.fail(f"the fake OpenAI recorded {len(fake.violations)} violation(s):\n{listed}", pytrace=False)
