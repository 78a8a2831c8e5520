"""The `github_violations_expected` marker, registered as early as a test module can need it."""

from __future__ import annotations

import pytest

MARKER = "github_violations_expected"
MARKER_HELP = f"{MARKER}: the test provokes requests the fake GitHub records as violations, on purpose"


def register_marker_early() -> None:
    """Register the marker with the running pytest, if any, before a test module's decorators use it.

    `pytest_plugins = ["fakegithub.fixtures"]` in a test module loads the plugin only after the module was
    imported, but `@pytest.mark.github_violations_expected` is looked up while it is imported, and
    `--strict-markers` refuses an unknown marker. `fakegithub/__init__.py` calls this, so a module that
    imports `fakegithub` before using the marker is fine. (Listing the plugin in the root conftest.py avoids
    the question altogether.) pytest keeps its config on `pytest.mark` once configured; without one, nothing.
    """
    config = getattr(pytest.mark, "_config", None)
    if config is not None and not any(str(line).startswith(f"{MARKER}:") for line in config.getini("markers")):
        config.addinivalue_line("markers", MARKER_HELP)
