"""How long the command line takes to start, as a pre-commit hook or a CI step pays it on every run.

    python bench/startup.py               # 15 runs of each command, median and best
    python bench/startup.py --runs 40

Wall time of a fresh interpreter for `wikiwarden --version`, `wikiwarden check --help`, and `wikiwarden check` on a
small grounded repository (one page, two claims; the check itself is a few milliseconds), then the modules that
cost most at import for `check --help` (`python -X importtime`). Target: start-up at most 0.25 s on the 2-core
development machine. Nothing is asserted: the figures are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar  # noqa: E402
from bot.claims.text import FileText  # noqa: E402
from bot.claims.versions import lines_version  # noqa: E402

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}
CODE = b"def push(queue, item):\n    queue.append(item)\n\n\ndef pop(queue):\n    return queue.pop(0)\n"
PAGE = b"# Queue\n\n`push` appends; `pop` takes the oldest.\n"


def repository(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    (root / "openwiki/.claims").mkdir(parents=True)
    (root / "src/queue.py").write_bytes(CODE)
    (root / "openwiki/queue.md").write_bytes(PAGE)
    text = FileText(CODE)

    def claim(n: int, statement: str, start: int, end: int) -> Claim:
        record = EvidenceRecord(f"repo://src/queue.py#L{start}-L{end}", lines_version(text, start - 1, end))
        return Claim(f"claim_{n:032x}", statement, (record,))

    claims = (claim(1, "push appends.", 1, 2), claim(2, "pop takes the oldest.", 5, 6))
    (root / "openwiki/.claims/queue.json").write_bytes(render_sidecar(Sidecar(page_version(PAGE), claims)))
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "wiki"]):
        subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True)


def timed(argv: list[str], runs: int) -> list[float]:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=False, capture_output=True)
        seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    python = [sys.executable, "-m", "bot"]
    with tempfile.TemporaryDirectory(prefix="startup-") as folder:
        repo = Path(folder) / "repo"
        repository(repo)
        cases = {
            "python -c pass (the interpreter alone)": [sys.executable, "-c", "pass"],
            "wikiwarden --version": [*python, "--version"],
            "wikiwarden check --help": [*python, "check", "--help"],
            "wikiwarden check (a 2-claim wiki)": [*python, "check", "--repo", str(repo)],
            "wikiwarden check --base HEAD": [*python, "check", "--repo", str(repo), "--base", "HEAD"],
        }
        timed(cases["wikiwarden --version"], 2)  # warm the file cache
        print(f"{'command':<40} {'median':>8} {'best':>8}   ({args.runs} runs each)")
        for label, argv in cases.items():
            seconds = timed(argv, args.runs)
            print(f"{label:<40} {statistics.median(seconds):>6.3f} s {min(seconds):>6.3f} s")
    done = subprocess.run(
        [*python[:1], "-X", "importtime", *python[1:], "check", "--help"], check=False, capture_output=True, text=True
    )
    rows = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    print("\nlargest cumulative imports of `check --help` (microseconds):")
    for cumulative, name in sorted(rows, reverse=True)[:8]:
        print(f"  {cumulative:>8,}  {name}")
    heavy = [m for m in ("openai", "aiohttp", "arq", "gidgethub", "redis", "pyuca") if f" {m}" in done.stderr]
    print("heavy modules imported: " + (", ".join(heavy) if heavy else "none"))


if __name__ == "__main__":
    main()
