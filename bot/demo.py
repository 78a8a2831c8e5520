"""`wikiwarden demo`: build a small repository whose history moves, renames, reformats, changes and
deletes the evidence behind its wiki, then check it. Needs git, nothing else (no network, no account)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .report.check import render
from .report.nextsteps import next_steps
from .source.git import GitRepository
from .usecases.check import check_repository
from .usecases.claims import HandKeptClaims

_ENV = {
    "GIT_AUTHOR_NAME": "Wikiwarden Demo",
    "GIT_AUTHOR_EMAIL": "demo@wikiwarden.invalid",
    "GIT_COMMITTER_NAME": "Wikiwarden Demo",
    "GIT_COMMITTER_EMAIL": "demo@wikiwarden.invalid",
    "GIT_AUTHOR_DATE": "2026-01-05T10:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-05T10:00:00Z",
}

QUEUE_V1 = '''"""A small task queue."""

from collections import deque


class TaskQueue:
    """Tasks come out in the order they went in."""

    def __init__(self):
        self._items = deque()

    def push(self, task):
        self._items.append(task)

    def pop(self):
        return self._items.popleft()

    def __len__(self):
        return len(self._items)


def drain(queue):
    """Pop every task, oldest first."""
    out = []
    while len(queue):
        out.append(queue.pop())
    return out
'''

QUEUE_V2 = '''"""A small task queue."""

from collections import deque


class TaskQueue:
    """Tasks come out in the order they went in."""

    def __init__(self):
        self._items = deque()

    def push(self, task):
        self._items.append(task)

    def peek(self):
        """The next task, left in the queue."""
        return self._items[0]

    def pop(self):
        return self._items.popleft()

    def __len__(self):
        return len(self._items)
'''

UTIL_V2 = '''"""Helpers around the queue."""


def drain(queue):
    """Pop every task, oldest first."""
    out = []
    while len(queue):
        out.append(queue.pop())
    return out
'''

POOL = '''"""Runs tasks on a fixed number of threads."""

from concurrent.futures import ThreadPoolExecutor

DEFAULT_WORKERS = 4


def run_all(tasks, workers=DEFAULT_WORKERS):
    with ThreadPoolExecutor(max_workers=workers) as executor:
        return list(executor.map(lambda task: task(), tasks))
'''

RETRY_V1 = '''"""Retrying failed tasks."""

import time

MAX_ATTEMPTS = 3


def backoff(attempt):
    return 0.1 * attempt


def with_retry(task):
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            return task()
        except Exception:
            time.sleep(backoff(attempt))
    raise RuntimeError("task kept failing")
'''

RETRY_V2 = RETRY_V1.replace("MAX_ATTEMPTS = 3", "MAX_ATTEMPTS = 5").replace("0.1 * attempt", "0.1 * 2**attempt")

CONFIG = '''"""Settings read from the environment."""

import os

QUEUE_LIMIT = int(os.environ.get("TASKQ_LIMIT", "1000"))
'''

LEGACY = '''"""The old synchronous runner, kept for compatibility."""


def run_sequentially(tasks):
    return [task() for task in tasks]
'''

PAGES = {
    "openwiki/queue.md": "---\ntype: Concept\ntitle: The task queue\n---\n\n# The task queue\n\n"
    "`TaskQueue` is first in, first out: `push` appends and `pop` takes the oldest task. "
    "`drain` empties a queue, oldest task first.\n",
    "openwiki/workers.md": "---\ntype: Concept\ntitle: Workers and retries\n---\n\n# Workers and retries\n\n"
    "`run_all` runs tasks on 4 threads by default. A failing task is tried 3 times, waiting 0.1 s, "
    "0.2 s, 0.3 s. `run_sequentially` runs tasks one by one.\n",
    "openwiki/configuration.md": "---\ntype: Reference\ntitle: Configuration\n---\n\n# Configuration\n\n"
    "`TASKQ_LIMIT` caps the queue at 1000 tasks unless set.\n",
    "openwiki/index.md": '---\nokf_version: "0.2"\n---\n\n# Files\n\n- [Configuration](configuration.md)\n'
    "- [The task queue](queue.md)\n- [Workers and retries](workers.md)\n",
}


def _lines(text: str, first: str, last: str | None = None) -> str:
    """`#Lx-Ly` of the first line containing `first` through the next line containing `last`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if first in line)
    end = start if last is None else next(i for i in range(start, len(lines)) if last in lines[i])
    return f"#L{start + 1}-L{end + 1}"


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, **_ENV}
    subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", *args],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
    )


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for path, content in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)


def build_demo_repository(root: Path) -> None:
    """Two tagged commits, `v1` (wiki grounded in the code) and `v2` (the code moved on)."""
    if root.exists() and not root.is_dir():
        raise NotADirectoryError(f"{root} is not a folder; give the demo an empty or new folder")
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty; give the demo an empty or new folder")
    _git(root, "init", "-q", "-b", "main")
    _write(
        root,
        {
            "src/taskq/queue.py": QUEUE_V1,
            "src/taskq/pool.py": POOL,
            "src/taskq/retry.py": RETRY_V1,
            "src/taskq/config.py": CONFIG,
            "src/taskq/legacy.py": LEGACY,
            **PAGES,
        },
    )
    _write(root, {"src/taskq/current.py": "from .queue import TaskQueue as Current\n"})
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "taskq 1.0 with its wiki")

    with GitRepository(root) as repo:
        claims = HandKeptClaims(repo, "openwiki")
        add = claims.add
        add(
            "queue.md",
            "TaskQueue is first in, first out: push appends, pop takes the oldest task.",
            [
                f"repo://src/taskq/queue.py{_lines(QUEUE_V1, 'def push', 'append')}",
                f"repo://src/taskq/queue.py{_lines(QUEUE_V1, 'def pop', 'popleft')}",
            ],
        )
        add(
            "queue.md",
            "The queue is documented as handing tasks out in the order they went in.",
            [f"repo://src/taskq/queue.py{_lines(QUEUE_V1, 'class TaskQueue', 'Tasks come out')}"],
        )
        add(
            "queue.md",
            "drain empties a queue, oldest task first.",
            [f"repo://src/taskq/queue.py{_lines(QUEUE_V1, 'def drain', 'return out')}"],
        )
        add(
            "workers.md",
            "run_all runs tasks on 4 threads by default.",
            [
                f"repo://src/taskq/pool.py{_lines(POOL, 'DEFAULT_WORKERS = 4')}",
                f"repo://src/taskq/pool.py{_lines(POOL, 'def run_all', 'executor.map')}",
            ],
        )
        add(
            "workers.md",
            "A failing task is tried 3 times.",
            [f"repo://src/taskq/retry.py{_lines(RETRY_V1, 'MAX_ATTEMPTS = 3')}"],
        )
        add(
            "workers.md",
            "Retries wait 0.1 s, 0.2 s, 0.3 s: the wait grows linearly.",
            [f"repo://src/taskq/retry.py{_lines(RETRY_V1, 'def backoff', 'return 0.1')}"],
        )
        add(
            "workers.md",
            "run_sequentially runs tasks one by one.",
            [f"repo://src/taskq/legacy.py{_lines(LEGACY, 'def run_sequentially', 'return')}"],
        )
        add(
            "configuration.md",
            "TASKQ_LIMIT caps the queue at 1000 tasks unless set.",
            [f"repo://src/taskq/config.py{_lines(CONFIG, 'QUEUE_LIMIT')}"],
        )
        add("configuration.md", "current.py names the queue in use.", ["repo://src/taskq/current.py#L1"])
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "Ground the wiki in the code")
    _git(root, "tag", "v1")

    _write(
        root,
        {
            "src/taskq/queue.py": QUEUE_V2,  # peek inserted above pop (moved), drain moved out (moved, other file)
            "src/taskq/util.py": UTIL_V2,
            "src/taskq/retry.py": RETRY_V2,  # more attempts, exponential backoff (stale)
            "src/taskq/config.py": CONFIG.replace("\n", "\r\n").encode(),  # an editor switched to CRLF (cosmetic)
        },
    )
    (root / "src/taskq/legacy.py").unlink()  # the claim's evidence is gone (unresolved)
    (root / "src/taskq/current.py").unlink()
    os.symlink("queue.py", root / "src/taskq/current.py")  # evidence through a symlink is refused (error)
    _git(root, "mv", "src/taskq/pool.py", "src/taskq/workers.py")  # a rename (moved)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "taskq 2.0: peek, exponential backoff, drop the legacy runner")
    _git(root, "tag", "v2")


def run_demo(directory: str | None, fmt: str = "text") -> int:
    root = Path(directory) if directory else Path(tempfile.mkdtemp(prefix="wikiwarden-demo-"))
    build_demo_repository(root)
    with GitRepository(root) as repo:
        report = check_repository(repo, base="v1", head="v2")
    if fmt != "text":
        sys.stdout.write(render(report, fmt))
        return 0
    print(f"Built a demo repository in {root}: tag v1 grounds the wiki in the code, tag v2 moves the code on.")
    print("Between them: a method inserted above `pop`, `drain` moved to a new file, pool.py renamed,")
    print("config.py switched to CRLF, the retry policy changed, legacy.py deleted, current.py made a symlink.")
    print(f"\n$ wikiwarden check --repo {root} --base v1 --head v2\n")
    sys.stdout.write(render(report, "text"))
    print("\n" + "\n".join(next_steps(report, ["--repo", str(root)], "v1")))  # as the check ends its report
    print("\nfresh, moved and cosmetic need no decision: `wikiwarden fix` re-anchors moved and cosmetic evidence;")
    print("stale, unresolved and error need a person, or (stale) a model.")
    print(f"Try: wikiwarden check --repo {root} --base v1 --head v2 --format json")
    print(f"     wikiwarden claim list --repo {root}")
    return 0
