"""The command line stays light: `--version`, `--help` and `check` (a pre-commit hook runs it on every commit)
import nothing of the model's client, the web server, the queue or the YAML parser (a check splits a page's front
matter off, it never reads it), nor asyncio (a local repository never waits: its use cases run without a loop).
Each case runs in a fresh interpreter, since this test session has imported everything already."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import GitRepo

HEAVY = (
    "asyncio",
    "openai",
    "aiohttp",
    "arq",
    "gidgethub",
    "redis",
    "prometheus_client",
    "jwt",
    "httpx",
    "pyuca",
    "ruamel",
)


def _imported_by(*argv: str, watched: tuple[str, ...] = HEAVY) -> dict[str, object]:
    """Run `wikiwarden ARGV...` in a fresh interpreter; the `watched` modules it imported, and its exit status."""
    code = (
        "import json, sys\n"
        "from bot.cli import main\n"
        "try:\n"
        f"    status = main({list(argv)!r})\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        f"heavy = sorted(m for m in {watched!r} if m in sys.modules)\n"
        "print(json.dumps({'status': status, 'heavy': heavy}), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [("--version",), ("--help",), ("check", "--help")])
def test_version_and_help_import_nothing_heavy(argv: tuple[str, ...]) -> None:
    assert _imported_by(*argv) == {"status": 0, "heavy": []}


def test_check_imports_nothing_of_the_agent_the_web_server_or_the_queue(repo: GitRepo) -> None:
    repo.write("src/a.py", "def f():\n    return 1\n")
    repo.write("openwiki/a.md", "---\ntype: Concept\ntitle: A\n---\n\n# A\n\n`f` returns 1; see `src/a.py`.\n")
    repo.commit("a wiki")
    for argv in (("check", "--repo", str(repo.root)), ("check", "--repo", str(repo.root), "--base", "HEAD")):
        assert _imported_by(*argv) == {"status": 0, "heavy": []}, argv


def test_a_check_that_knows_every_page_and_learns_nothing_loads_no_markdown_parser_and_no_writer(repo: GitRepo) -> None:
    """The pages' readings are kept by blob id: markdown-it is loaded by the check that reads a page, not by the next
    one; the memory's writer (secrets, for its temporary files' names) and logging only when there is something to
    write or to log."""
    repo.write("src/a.py", "def f():\n    return 1\n")
    repo.write("openwiki/a.md", "---\ntype: Concept\ntitle: A\n---\n\n# A\n\n`f` returns 1; see `src/a.py`.\n")
    repo.commit("a wiki")
    watched = ("markdown_it", "secrets", "logging")
    argv = ("check", "--repo", str(repo.root))
    first = _imported_by(*argv, "--jobs", "1", watched=watched)  # one process: it reads the pages itself
    assert first["status"] == 0 and {"markdown_it", "secrets"} <= set(first["heavy"])  # type: ignore[arg-type]
    assert _imported_by(*argv, watched=watched) == {"status": 0, "heavy": []}


def test_with_a_processor_to_spare_the_pages_are_parsed_by_a_child_and_markdown_it_never_loaded_here(
    repo: GitRepo,
) -> None:
    """Loading markdown-it is 50 ms of a 10k-claim check: a child pays it while this process sweeps."""
    repo.write("src/a.py", "def f():\n    return 1\n")
    repo.write("openwiki/a.md", "---\ntype: Concept\ntitle: A\n---\n\n# A\n\n`f` returns 1; see `src/gone.py`.\n")
    repo.commit("a wiki")
    argv = ("check", "--repo", str(repo.root), "--no-cache")
    assert _imported_by(*argv, "--jobs", "2", watched=("markdown_it",)) == {"status": 1, "heavy": []}
    assert _imported_by(*argv, "--jobs", "1", watched=("markdown_it",)) == {"status": 1, "heavy": ["markdown_it"]}


def _without(modules: tuple[str, ...], *argv: str) -> subprocess.CompletedProcess[str]:
    """`wikiwarden ARGV...` in a fresh interpreter where `modules` cannot be imported (an extra not installed)."""
    code = (
        "import sys\n"
        f"for name in {modules!r}:\n"
        "    sys.modules[name] = None\n"
        "from bot.cli import main\n"
        f"sys.exit(main({list(argv)!r}))\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), check=False)


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("WIKIWARDEN_")}


def test_without_the_agent_extra_fix_runs_without_a_model_and_says_what_a_model_needs(repo: GitRepo) -> None:
    repo.write("src/a.py", "def f():\n    return 1\n")
    repo.write("openwiki/a.md", "# A\n\n`f` returns 1.\n")
    repo.commit("a wiki")
    for argv in (("fix", "--repo", str(repo.root)), ("fix", "--repo", str(repo.root), "--model", "none")):
        done = _without(("openai",), *argv)
        assert (done.returncode, done.stderr) == (0, ""), argv
    done = _without(("openai",), "fix", "--repo", str(repo.root), "--model", "gpt-x")
    assert done.returncode == 2
    assert done.stderr == (
        "wikiwarden: error: a model needs the agent extra (openai is not installed): pip install 'wikiwarden[agent]'\n"
    )
    done = _without(("openai",), "ground", "--repo", str(repo.root), "--model", "gpt-x")
    assert done.returncode == 2 and "pip install 'wikiwarden[agent]'" in done.stderr


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_without_the_app_extra_serve_and_worker_say_what_to_install(command: str) -> None:
    done = _without(("aiohttp", "pythonjsonlogger", "arq", "gidgethub"), command)
    assert done.returncode == 2
    assert done.stderr.startswith("wikiwarden: error: the GitHub App")
    assert done.stderr.endswith("is not installed): pip install 'wikiwarden[app]'\n")


# -- the process itself: it ends as soon as its output is out --------------------------------------------------


def _many_claims(repo: GitRepo, count: int) -> None:
    """One page of `count` fresh claims, one function each: a report far larger than a pipe holds."""
    from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar
    from bot.claims.text import FileText
    from bot.claims.versions import lines_version

    code = "".join(f"def f{n}():\n    return {n}\n" for n in range(count)).encode()
    text = FileText(code)
    page = b"---\ntype: Concept\ntitle: Many\n---\n\n# Many\n\nEvery function returns its number.\n"
    claims = tuple(
        Claim(
            f"claim_{n:032x}",
            f"f{n} returns {n}.",
            (EvidenceRecord(f"repo://src/many.py#L{2 * n + 1}-L{2 * n + 2}", lines_version(text, 2 * n, 2 * n + 2)),),
        )
        for n in range(count)
    )
    repo.write("src/many.py", code)
    repo.write("openwiki/many.md", page)
    repo.write("openwiki/.claims/many.json", render_sidecar(Sidecar(page_version(page), claims)))
    repo.commit("many claims")


def _wikiwarden(*argv: str) -> list[str]:
    return [sys.executable, "-m", "bot", *argv]


def _checked(repo: GitRepo) -> subprocess.CompletedProcess[bytes]:
    command = _wikiwarden("check", "--repo", str(repo.root), "--format", "json")
    return subprocess.run(command, capture_output=True, check=False)


def test_the_command_ends_with_its_status_and_every_byte_of_its_output(repo: GitRepo) -> None:
    _many_claims(repo, 400)
    done = _checked(repo)
    assert (done.returncode, done.stderr) == (0, b"")
    assert len(done.stdout) > 200_000 and json.loads(done.stdout)["summary"]["fresh"] == 400
    repo.write("src/many.py", "# moved down\n" + repo.read("src/many.py").decode().replace("return 7\n", "return 8\n"))
    done = _checked(repo)
    summary = json.loads(done.stdout)["summary"]
    assert (done.returncode, done.stderr, summary["moved"], summary["stale"]) == (1, b"", 399, 1)


def test_a_reader_that_leaves_early_ends_the_command_quietly(repo: GitRepo) -> None:
    _many_claims(repo, 400)
    command = _wikiwarden("check", "--repo", str(repo.root), "--format", "json")
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.read(100).startswith(b"{")
        process.stdout.close()  # `wikiwarden check | head -c 100`
        errors = process.stderr.read()
    assert (process.returncode, errors) == (141, b"")


def test_a_reader_gone_before_the_last_buffered_output_ends_the_command_quietly(repo: GitRepo) -> None:
    _many_claims(repo, 3)  # a report small enough to sit in the output buffer until the command is done
    command = _wikiwarden("claim", "list", "--repo", str(repo.root))
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # the reader left before a byte was written
        errors = process.stderr.read()
    assert (process.returncode, errors) == (141, b"")


def test_a_repository_without_a_config_file_pays_for_neither_pydantic_nor_yaml(repo: GitRepo) -> None:
    """`.github/wikiwarden.yml` is read by every check; only a repository that has one pays for its schema."""
    repo.write("src/a.py", "def f():\n    return 1\n")
    repo.write("openwiki/a.md", "---\ntype: Concept\ntitle: A\n---\n\n# A\n\n`f` returns 1.\n")
    repo.commit("a wiki")
    argv = ("check", "--repo", str(repo.root))
    assert _imported_by(*argv, watched=("pydantic", "ruamel")) == {"status": 0, "heavy": []}
    repo.write(".github/wikiwarden.yml", "wiki_dir: openwiki\n")
    assert _imported_by(*argv, watched=("pydantic", "ruamel")) == {"status": 0, "heavy": ["pydantic", "ruamel"]}
