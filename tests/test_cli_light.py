"""The command line stays light: `--version`, `--help` and `check` (a pre-commit hook runs it on every commit)
import nothing of the model's client, the web server or the queue. Each case runs in a fresh interpreter, since
this test session has imported everything already."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import GitRepo

HEAVY = ("openai", "aiohttp", "arq", "gidgethub", "redis", "prometheus_client", "jwt", "httpx", "pyuca")


def _imported_by(*argv: str) -> dict[str, object]:
    """Run `wikiwarden ARGV...` in a fresh interpreter; the heavy modules it imported, and its exit status."""
    code = (
        "import json, sys\n"
        "from bot.cli import main\n"
        "try:\n"
        f"    status = main({list(argv)!r})\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        f"heavy = sorted(m for m in {HEAVY!r} if m in sys.modules)\n"
        "print(json.dumps({'status': status, 'heavy': heavy}), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [("--version",), ("--help",), ("check", "--help")])
def test_version_and_help_import_nothing_heavy(argv: tuple[str, ...]) -> None:
    assert _imported_by(*argv) == {"status": 0, "heavy": []}


def test_check_imports_nothing_of_the_agent_the_web_server_or_the_queue(repo: GitRepo) -> None:
    repo.write("src/a.py", "def f():\n    return 1\n")
    repo.write("openwiki/a.md", "# A\n\n`f` returns 1; see `src/a.py`.\n")
    repo.commit("a wiki")
    for argv in (("check", "--repo", str(repo.root)), ("check", "--repo", str(repo.root), "--base", "HEAD")):
        assert _imported_by(*argv) == {"status": 0, "heavy": []}, argv
