"""pytest plugin: the App's usual test setting, once for every module that needs it.

`fake` is the fake GitHub with the App installed (installation 77) on the account `acme`; `app` is the real web
application served on loopback and pointed at it. A module wanting another setting (another installation, two
tenants) defines its own `fake`, which takes precedence; the Redis server the queue tests share is
`processes.redis_server`.
"""

from __future__ import annotations

from typing import Any

import pytest
from apptools import start_app
from fakegithub import FakeGitHub

INSTALLATION = 77


@pytest.fixture
def fake(fake_github: FakeGitHub) -> FakeGitHub:
    fake_github.add_installation(INSTALLATION, "acme")
    return fake_github


@pytest.fixture
async def app(aiohttp_client: Any, fake: FakeGitHub) -> Any:
    return await start_app(aiohttp_client, fake)
