"""pytest plugin: the `fake_github` fixture, a FakeGitHub served on 127.0.0.1 for one test.

Enable it in a test module with `pytest_plugins = ["fakegithub.fixtures"]`. At teardown the test fails if
the fake recorded violations (requests GitHub would reject, or routes the fake lacks) unless the test is
marked `@pytest.mark.github_violations_expected`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web

from .markers import MARKER, MARKER_HELP
from .server import create_app
from .state import FakeGitHub


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)


@pytest.fixture
async def fake_github(
    aiohttp_server: Callable[..., Awaitable[Any]], request: pytest.FixtureRequest
) -> AsyncIterator[FakeGitHub]:
    fake = FakeGitHub()
    app: web.Application = create_app(fake)
    server = await aiohttp_server(app, host="127.0.0.1")
    fake.base_url = str(server.make_url("")).rstrip("/")
    yield fake
    if fake.violations and request.node.get_closest_marker(MARKER) is None:
        listed = "\n".join(f"  - {v}" for v in fake.violations)
        pytest.fail(f"the fake GitHub recorded {len(fake.violations)} violation(s):\n{listed}", pytrace=False)
