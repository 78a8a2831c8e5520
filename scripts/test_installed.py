"""Wikiwarden tested as a user installs it: the sdist and the wheel built from this checkout, checked by twine, the
wheel installed with its `[app]` extra into a fresh virtual environment, and the console script run from an empty
folder outside the checkout: `--version`, `demo`, `init` and `check` on a scratch repository, `manifest`, and `serve`
against the fake GitHub (tests/fakes/fakegithub, served by this script on loopback) until `/healthz` answers.

    .venv/bin/python scripts/test_installed.py

It prints each command and its exit status, and exits non-zero at the first command that does not do what a user
would see it do. It needs the dev extra (`build`, `twine`, and the fake's aiohttp) and the package index, through
pip's cache (nothing else of the network: the App's GitHub is the fake, on 127.0.0.1). The README's test command
runs it, so `.ci/run` does.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fakes"))

HEALTH_TIMEOUT_SECONDS = 60
COMMAND_TIMEOUT_SECONDS = 300


class Failed(Exception):
    """A command did not do what a user would see it do."""


def source_version() -> str:
    """The one version source, read as text: what the installed package must say it is."""
    found = re.search(r'^__version__ = "([^"]+)"$', (ROOT / "bot" / "__init__.py").read_text(), re.MULTILINE)
    if found is None:
        raise Failed("bot/__init__.py has no __version__")
    return found.group(1)


def run(
    command: list[str], cwd: Path, env: dict[str, str] | None = None, expect: int | tuple[int, ...] = 0
) -> subprocess.CompletedProcess[str]:
    """Run one command, print it and its exit status (and its output when the status is not the expected one)."""
    print(f"$ (cd {shlex.quote(str(cwd))} && {shlex.join(command)})", flush=True)
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_SECONDS, check=False
    )
    print(f"  exit status {done.returncode}", flush=True)
    if done.returncode not in ((expect,) if isinstance(expect, int) else expect):
        sys.stdout.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise Failed(f"{command[0]} exited {done.returncode}, expected {expect}")
    return done


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(venv_dir: Path, home: Path) -> dict[str, str]:
    """The user's environment: the fresh virtual environment first on PATH, no WIKIWARDEN_* and no PYTHONPATH of
    the checkout's, git without the machine's configuration, a HOME of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WIKIWARDEN_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(
        PATH=f"{venv_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(home),
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Installed Test",
        GIT_AUTHOR_EMAIL="installed@example.org",
        GIT_COMMITTER_NAME="Installed Test",
        GIT_COMMITTER_EMAIL="installed@example.org",
    )
    return env


def build(work: Path) -> tuple[Path, Path]:
    """The sdist and the wheel, by the standard front end (an isolated build, as PyPI's users' pip would), checked
    by twine as PyPI checks an upload; the wheel must hold what commands read at run time."""
    dist = work / "dist"
    run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(dist), str(ROOT)], cwd=work)
    sdists, wheels = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
    if len(sdists) != 1 or len(wheels) != 1:
        raise Failed(f"expected one sdist and one wheel in {dist}, found {[p.name for p in dist.iterdir()]}")
    run([sys.executable, "-m", "twine", "check", "--strict", str(sdists[0]), str(wheels[0])], cwd=work)
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = set(wheel.namelist())
    for needed in ("bot/app.yml", "bot/cli/__init__.py"):
        if needed not in names:
            raise Failed(f"the wheel lacks {needed}")
    leaked = sorted(name for name in names if name.startswith(("tests/", "bench/", "docs/", "scripts/")))
    if leaked:
        raise Failed(f"the wheel ships files that are not the package: {leaked[:5]}")
    print(f"  built {sdists[0].name} and {wheels[0].name} ({len(names)} files, bot/app.yml among them)")
    return sdists[0], wheels[0]


def install(work: Path, wheel: Path) -> Path:
    """A fresh virtual environment holding the wheel with its `[app]` extra, from the package index (pip's cache)."""
    venv_dir = work / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(venv_dir)
    python = venv_dir / "bin" / "python"
    run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", f"{wheel}[app]"], cwd=work)
    return venv_dir


def scratch_repository(where: Path, env: dict[str, str]) -> Path:
    """A small repository with docs pages, as a user's would be: `init` writes its settings, `check` reads it."""
    repo = where / "scratch"
    (repo / "docs").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n")
    (repo / "docs" / "index.md").write_text("# Scratch\n\n`greet` in [the code](../src/app.py) says hello.\n")
    run(["git", "init", "-q", "-b", "main"], cwd=repo, env=env)
    run(["git", "add", "-A"], cwd=repo, env=env)
    run(["git", "commit", "-q", "-m", "scratch"], cwd=repo, env=env)
    return repo


async def serve_against_fake(venv_dir: Path, cwd: Path, env: dict[str, str]) -> None:
    """`wikiwarden serve` with its settings pointing at the fake GitHub served here, until `/healthz` answers; then
    a signed `ping` delivery it must accept, and SIGTERM, on which it must stop cleanly."""
    from aiohttp import web  # noqa: PLC0415 - the dev extra's, and the fake's from the checkout's tests/fakes
    from fakegithub import FakeGitHub, create_app  # noqa: PLC0415

    fake = FakeGitHub()
    fake.add_installation(1, "acme")
    runner = web.AppRunner(create_app(fake))
    await runner.setup()
    fake_port = free_port()
    await web.TCPSite(runner, "127.0.0.1", fake_port).start()
    fake.base_url = f"http://127.0.0.1:{fake_port}"
    port = free_port()
    env = {
        **env,
        "WIKIWARDEN_APP_ID": str(fake.app_id),
        "WIKIWARDEN_PRIVATE_KEY": fake.private_key_pem,
        "WIKIWARDEN_WEBHOOK_SECRET": fake.webhook_secret,
        "WIKIWARDEN_GITHUB_API_URL": fake.base_url,
        "WIKIWARDEN_HOST": "127.0.0.1",
        "WIKIWARDEN_PORT": str(port),
    }
    command = [str(venv_dir / "bin" / "wikiwarden"), "serve"]
    print(f"$ (cd {shlex.quote(str(cwd))} && WIKIWARDEN_GITHUB_API_URL={fake.base_url} {shlex.join(command)})")
    log = cwd / "serve.log"
    with log.open("wb") as stderr:
        proc = await asyncio.create_subprocess_exec(*command, cwd=cwd, env=env, stdout=stderr, stderr=stderr)
        try:
            deadline = time.monotonic() + HEALTH_TIMEOUT_SECONDS
            while True:
                if proc.returncode is not None:
                    raise Failed(f"serve exited {proc.returncode} before /healthz answered:\n{log.read_text()}")
                try:
                    body = await asyncio.to_thread(get, f"http://127.0.0.1:{port}/healthz")
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise Failed(f"/healthz did not answer in {HEALTH_TIMEOUT_SECONDS}s") from None
                    await asyncio.sleep(0.2)
            print(f"  GET /healthz: {body}", flush=True)
            if json.loads(body) != {"status": "ok"}:
                raise Failed(f"/healthz answered {body}")
            payload = json.dumps({"zen": "Keep it logically awesome.", "hook_id": 1}).encode()
            signature = "sha256=" + hmac.new(fake.webhook_secret.encode(), payload, hashlib.sha256).hexdigest()
            headers = {
                "Content-Type": "application/json",
                "X-GitHub-Event": "ping",
                "X-GitHub-Delivery": "installed-1",
                "X-Hub-Signature-256": signature,
            }
            status = await asyncio.to_thread(post, f"http://127.0.0.1:{port}/webhook", payload, headers)
            print(f"  POST /webhook (a signed ping): {status}", flush=True)
            if not 200 <= status < 300:
                raise Failed(f"a signed ping was answered {status}:\n{log.read_text()}")
        finally:
            if proc.returncode is None:
                proc.terminate()
            code = await asyncio.wait_for(proc.wait(), 40)
            await runner.cleanup()
    print(f"  exit status {code} (after SIGTERM)", flush=True)
    if code != 0:
        raise Failed(f"serve exited {code} on SIGTERM:\n{log.read_text()}")
    if fake.violations:
        raise Failed(f"the fake GitHub recorded requests GitHub would refuse: {fake.violations}")


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - loopback
        return str(response.read().decode())


def post(url: str, body: bytes, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")  # noqa: S310 - loopback
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - loopback
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def main() -> int:
    started = time.monotonic()
    version = source_version()
    with tempfile.TemporaryDirectory(prefix="wikiwarden-installed-") as temporary:
        work = Path(temporary)
        _, wheel = build(work)
        venv_dir = install(work, wheel)
        empty = work / "empty"
        empty.mkdir()
        home = work / "home"
        home.mkdir()
        env = clean_env(venv_dir, home)
        wikiwarden = str(venv_dir / "bin" / "wikiwarden")

        where = run([str(venv_dir / "bin" / "python"), "-c", "import bot; print(bot.__file__)"], cwd=empty, env=env)
        if not where.stdout.startswith(str(venv_dir)):
            raise Failed(f"`import bot` found {where.stdout.strip()}, not the installed package")
        said = run([wikiwarden, "--version"], cwd=empty, env=env).stdout.strip()
        if said != f"wikiwarden {version}":
            raise Failed(f"--version says {said!r}, the source says {version}")
        print(f"  {said}")

        demo = run([wikiwarden, "demo", "--dir", str(empty / "demo")], cwd=empty, env=env)
        for verdict in ("moved", "cosmetic", "stale", "unresolved"):
            if verdict not in demo.stdout:
                raise Failed(f"the demo's report has no {verdict} claim:\n{demo.stdout}")

        repo = scratch_repository(empty, env)
        init = run([wikiwarden, "init"], cwd=repo, env=env)
        written = (repo / ".github" / "workflows" / "wikiwarden.yml").read_text()
        if f"wikiwarden/wikiwarden@v{version.split('.')[0]}" not in written:
            raise Failed(f"init's workflow does not pin this release's major tag:\n{written}")
        print("  " + init.stdout.strip().replace("\n", "\n  "))
        check = run([wikiwarden, "check"], cwd=repo, env=env)
        print("  " + check.stdout.strip().splitlines()[0])

        manifest = run([wikiwarden, "manifest", "--webhook-url", "https://bot.example.org/webhook"], cwd=empty, env=env)
        document = json.loads(manifest.stdout)
        if document["hook_attributes"]["url"] != "https://bot.example.org/webhook" or not document["default_events"]:
            raise Failed(f"manifest printed {manifest.stdout}")
        print(f"  events {document['default_events']}, permissions {document['default_permissions']}")

        asyncio.run(serve_against_fake(venv_dir, empty, env))
    print(f"installed wheel: every command as expected ({time.monotonic() - started:.0f}s)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (Failed, subprocess.TimeoutExpired) as exc:
        print(f"test_installed: FAILED: {exc}", file=sys.stderr)
        sys.exit(1)
