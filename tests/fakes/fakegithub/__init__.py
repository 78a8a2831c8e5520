"""A stateful fake of GitHub's REST API for Wikiwarden's tests: real git object ids, real HTTP.

    from fakegithub import FakeGitHub

    fake = FakeGitHub()
    fake.add_installation(1, "acme")
    repo = fake.create_repo("acme", "widgets", installation_id=1)
    repo.commit({"README.md": "hello\\n"})

Serve it with `fakegithub.server.create_app(fake)`, or use the `fake_github` fixture of
`fakegithub.fixtures` (`pytest_plugins = ["fakegithub.fixtures"]`), which also fails a test whose requests
GitHub would have rejected.
"""

from .gitobjects import Signature
from .markers import register_marker_early
from .server import create_app
from .state import FakeGitHub, FakeRepo, RequestRecord

register_marker_early()

__all__ = ["FakeGitHub", "FakeRepo", "RequestRecord", "Signature", "create_app"]
