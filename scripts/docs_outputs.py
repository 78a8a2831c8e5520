"""The outputs the docs and the README show, made by running the commands: the getting-started walkthrough (a
script: an example repository taken from `init` to `fix`, each command run as a user runs it), each command page's
example, and the README's and the home page's excerpt of `wikiwarden demo`.

Each output stands in its page between two markers, written by `scripts/docs_reference.py` like the reference's
generated parts (`python scripts/docs_reference.py --write`); the test suite compares them
(tests/test_docs_site.py), so a command whose output changes fails CI, naming the page, until the pages are
regenerated. What differs from run to run is normalized: claim ids (random), commit ids, dates and times, and the
temporary folder the example lives in (no output shown prints a timing; the demo's "0.1 s" is its text, kept).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GETTING_STARTED = DOCS / "getting-started.md"
COMMANDS = DOCS / "reference" / "commands"

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Example",
    "GIT_AUTHOR_EMAIL": "example@example.invalid",
    "GIT_COMMITTER_NAME": "Example",
    "GIT_COMMITTER_EMAIL": "example@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-05T10:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-05T10:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,  # a person's own git settings (signing, hooks, default branch) change nothing
}

QUEUE_V1 = '''"""A bounded task queue."""
from collections import deque

class TaskQueue:
    def __init__(self, max_items=1000):
        self.max_items = max_items
        self._items = deque()

    def push(self, task):
        if len(self._items) >= self.max_items:
            raise OverflowError("the queue is full")
        self._items.append(task)

    def pop(self):
        return self._items.popleft()
'''

# The commit of step 4: the default lowered to 500 and a `peek` method added above `pop`.
QUEUE_V2 = QUEUE_V1.replace("max_items=1000", "max_items=500").replace(
    "    def pop(self):", "    def peek(self):\n        return self._items[0]\n\n    def pop(self):"
)

PAGE = """# The queue

`TaskQueue` holds at most 1000 tasks by default; `push` refuses more with `OverflowError`.

`pop()` takes the oldest task first.
"""

README = "# taskq\n\nA bounded task queue.\n"

_CLAIM_ID = re.compile(r"claim_[0-9a-f]{32}")
_HEX = re.compile(r"\b[0-9a-f]{7,40}\b")
_DATE = re.compile(r"\b\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?\b")


def _stable_hex(seed: str, length: int) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:length]


@dataclass
class Normalizer:
    """Rewrites what differs from run to run into what stays: each claim id and commit id to one made from the order
    it first appeared in (the same id is the same everywhere it is shown), the example's folder to a fixed name,
    dates to one date."""

    name: str
    folder: Path
    shown_folder: str
    commits: list[str] = field(default_factory=list)
    _ids: dict[str, str] = field(default_factory=dict)

    def _claim(self, match: re.Match[str]) -> str:
        found = match[0]
        if found not in self._ids:
            self._ids[found] = "claim_" + _stable_hex(f"{self.name} claim {len(self._ids)}", 32)
        return self._ids[found]

    def _commit(self, match: re.Match[str]) -> str:
        found = match[0]
        for number, commit in enumerate(self.commits):
            if commit.startswith(found):
                return _stable_hex(f"{self.name} commit {number}", 40)[: len(found)]
        return found

    def __call__(self, text: str) -> str:
        for folder in {str(self.folder), str(self.folder.resolve())}:
            text = text.replace(folder, self.shown_folder)
        text = _CLAIM_ID.sub(self._claim, text)
        if self.commits:
            text = _HEX.sub(self._commit, text)
        return _DATE.sub("2026-01-05", text)


@dataclass
class Step:
    """One command run: how it is shown (`$ ...`), what it printed (normalized) and its exit status."""

    argv: list[str]
    output: str
    status: int
    raw: str = ""

    def shown(self) -> str:
        return f"$ {shlex.join(['wikiwarden', *self.argv])}\n{self.output}".rstrip("\n")


class Example:
    """A git repository in a temporary folder, and the `wikiwarden` command run in it as a user runs it (a child
    process, the repository as its working directory)."""

    def __init__(self, root: Path, name: str, shown_folder: str) -> None:
        self.root = root
        self.normalize = Normalizer(name, root, shown_folder)
        self.steps: list[Step] = []

    def git(self, *args: str) -> str:
        env = {**os.environ, **_GIT_ENV}
        done = subprocess.run(["git", *args], cwd=self.root, env=env, capture_output=True, text=True, check=True)
        return done.stdout

    def write(self, files: dict[str, str]) -> None:
        for path, text in files.items():
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")

    def commit(self, message: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        self.normalize.commits = self.git("log", "--all", "--reverse", "--format=%H").split()

    def run(self, *argv: str, expect: int = 0) -> Step:
        step = self.run_raw(*argv, expect=expect)
        self.steps.append(step)
        return Step([self.normalize(arg) for arg in argv], self.normalize(step.raw), step.status, step.raw)

    def run_raw(self, *argv: str, expect: int = 0) -> Step:
        env = {
            key: value for key, value in os.environ.items() if not key.startswith(("WIKIWARDEN_", "OPENAI_", "GIT_"))
        }
        env.update(_GIT_ENV, COLUMNS="200", NO_COLOR="1", PYTHONPATH=str(ROOT))
        where = self.root if self.root.is_dir() else self.root.parent  # the demo makes its folder itself
        done = subprocess.run(
            [sys.executable, "-m", "bot.cli", *argv], cwd=where, env=env, capture_output=True, text=True,
            check=False, timeout=300,
        )  # fmt: skip
        output = done.stdout + done.stderr
        if done.returncode != expect:
            raise RuntimeError(
                f"`wikiwarden {shlex.join(argv)}` exited {done.returncode}, the walkthrough expects {expect}:\n{output}"
            )
        return Step(list(argv), output, done.returncode, output)


def _text_block(*steps: Step) -> str:
    return "```text\n" + "\n".join(step.shown() for step in steps) + "\n```"


def _claim_id(step: Step) -> str:
    """The id a `claim add` printed, as it is (not normalized: the commands after it use it)."""
    found = _CLAIM_ID.search(step.raw)
    if not found:
        raise RuntimeError(f"no claim id in the output of `{step.shown().splitlines()[0]}`")
    return found[0]


def walkthrough(root: Path) -> dict[str, str]:
    """Getting started, run: the example repository built in `root`, every command of the page run in order (each
    exit status checked), and the blocks the page shows, by key."""
    ex = Example(root, "getting-started", "/home/you/taskq")
    ex.git("init", "-q", "-b", "main")
    ex.write({"README.md": README, "src/taskq/__init__.py": "", "src/taskq/queue.py": QUEUE_V1, "docs/queue.md": PAGE})
    ex.commit("taskq with its docs")
    blocks = {"getting-started: the page": "```markdown\n" + PAGE.rstrip("\n") + "\n```"}

    init = ex.run("init")
    ex.commit("wikiwarden init")
    blocks["getting-started: init"] = _text_block(init)
    blocks["getting-started: check"] = _text_block(ex.run("check"))
    blocks["getting-started: ground"] = _text_block(ex.run("ground", expect=1))

    def add(statement: str, resource: str) -> tuple[Step, str]:
        step = ex.run("claim", "add", "docs/queue.md", statement, resource)
        return step, _claim_id(step)

    default, default_id = add("TaskQueue holds at most 1000 tasks by default.", "repo://src/taskq/queue.py#L5-L6")
    push, _ = add("push refuses a task when the queue is full, with OverflowError.", "repo://src/taskq/queue.py#L9-L12")
    pop, _ = add("pop takes the oldest task first.", "repo://src/taskq/queue.py#L14-L15")
    blocks["getting-started: claim add"] = _text_block(default, push, pop, ex.run("check"))
    ex.commit("Ground docs/queue.md")

    ex.write({"src/taskq/queue.py": QUEUE_V2})
    ex.commit("A queue holds 500 tasks by default; peek")
    blocks["getting-started: the code moves on"] = _text_block(ex.run("check", "--base", "HEAD~1", expect=1))
    blocks["getting-started: fix"] = _text_block(ex.run("fix", "--base", "HEAD~1", expect=1))

    ex.write({"docs/queue.md": PAGE.replace("at most 1000", "at most 500")})
    retract = ex.run("claim", "retract", default_id)
    corrected, _ = add("TaskQueue holds at most 500 tasks by default.", "repo://src/taskq/queue.py#L5-L6")
    blocks["getting-started: by hand"] = _text_block(retract, corrected, ex.run("check"))
    ex.commit("docs/queue.md: 500 tasks")

    # Each command page's example, on the same repository as it stands at the end of the walkthrough.
    blocks["claim: example"] = _text_block(ex.run("claim", "list"))
    blocks["okf: example"] = _text_block(ex.run("okf", "sync", "--dry-run", "--init", "--wiki-dir", "docs"))
    return blocks


DEMO_FOLDER = "/tmp/wikiwarden-demo-3f9c2a1b"  # noqa: S108 - only shown: the folder the demo says it made

# The demo's claims the README and the home page show, by statement, each with every line of its finding.
DEMO_EXCERPT = (
    "run_all runs tasks on 4 threads by default.",
    "A failing task is tried 3 times.",
    "run_sequentially runs tasks one by one.",
)


def demo(root: Path) -> Step:
    """`wikiwarden demo`, built in `root` (a folder not yet there), its output normalized."""
    ex = Example(root, "demo", DEMO_FOLDER)
    step = ex.run_raw("demo", "--dir", str(root))
    ex.normalize.commits = ex.git("log", "--all", "--reverse", "--format=%H").split()  # the demo's, once built
    return Step(["demo"], ex.normalize(step.raw), step.status, step.raw)  # as `wikiwarden demo` shows its folder


def demo_excerpt(output: str) -> str:
    """The part of the demo's check the README and the home page show: its header, then on openwiki/workers.md the
    findings of DEMO_EXCERPT's claims (every line of each), then the broken references."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("$ wikiwarden check"))
    header = [line.replace(f"--repo {DEMO_FOLDER} ", "") for line in lines[start : start + 4] if line]
    page_at = lines.index("openwiki/workers.md")
    kept: list[str] = ["", "openwiki/workers.md"]
    found: set[str] = set()
    i = page_at + 1
    while i < len(lines) and lines[i].startswith("  "):
        line = lines[i]
        statement = next((s for s in DEMO_EXCERPT if f"  {s}  " in line), None)
        i += 1
        if statement is None:
            continue
        found.add(statement)
        kept.append(line)
        while i < len(lines) and lines[i].startswith("      "):
            kept.append(lines[i])
            i += 1
    missing = set(DEMO_EXCERPT) - found
    if missing:
        raise RuntimeError(f"the demo no longer reports on openwiki/workers.md: {sorted(missing)}")
    broken_at = next(i for i, line in enumerate(lines) if line.startswith("Broken references"))
    broken = ["", *_until_blank(lines[broken_at:])]
    return "```text\n" + "\n".join(header + kept + broken) + "\n```"


def _until_blank(lines: list[str]) -> Iterator[str]:
    for line in lines:
        if not line:
            return
        yield line


def output_blocks() -> dict[Path, dict[str, str]]:
    """Every shown output, by page and key: the commands run anew."""
    with tempfile.TemporaryDirectory(prefix="wikiwarden-docs-") as folder:
        root = Path(folder) / "taskq"
        root.mkdir()
        shown = walkthrough(root)
        demo_run = demo(Path(folder) / "demo")
    excerpt = demo_excerpt(demo_run.output)
    pages: dict[Path, dict[str, str]] = {
        GETTING_STARTED: {key: block for key, block in shown.items() if key.startswith("getting-started: ")},
        ROOT / "README.md": {"demo excerpt": excerpt},
        DOCS / "index.md": {"demo excerpt": excerpt},
        COMMANDS / "demo.md": {"demo: example": _text_block(demo_run)},
    }
    for command, key in (("init", "init"), ("check", "the code moves on"), ("ground", "ground"), ("fix", "fix")):
        pages[COMMANDS / f"{command}.md"] = {f"{command}: example": shown[f"getting-started: {key}"]}
    pages[COMMANDS / "claim.md"] = {"claim: example": shown["claim: example"]}
    pages[COMMANDS / "okf.md"] = {"okf: example": shown["okf: example"]}
    return pages


if __name__ == "__main__":  # print every block, to read them without writing a page
    json.dump({str(p.relative_to(ROOT)): parts for p, parts in output_blocks().items()}, sys.stdout, indent=1)
