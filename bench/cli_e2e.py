"""`wikiwarden check` end to end, as a user runs it: a fresh interpreter, start-up, the sweep and the report
written to a file. Synthetic repositories from bench/sweep.py (committed to git), timed unchanged, after every
range moved (the working tree shifted) and for a 10-file change (`check --base`).

    python bench/cli_e2e.py                          # 10k claims / 1k files and 100k claims / 10k files
    python bench/cli_e2e.py --sizes 100000 --repeat 5
    python bench/cli_e2e.py --sizes 100000 --profile out.prof   # cProfile of one unchanged run, top 25 printed
    python bench/cli_e2e.py --sizes 100000 --against ../old     # and another checkout's code, run by turns

Issue 13's targets at 100k claims: <= 3 s unchanged, <= 4 s moved, peak RSS <= 450 MB, 10-file change <= 0.5 s (the
second full sweep's 0.5 s with the cache warm is the sweep's, printed by bench/sweep.py). Each case runs cold
(`--no-cache`), the unchanged tree also as a first check (the cache on but empty: what a user's first
`wikiwarden check` costs, learning the evidence index and the verdicts and writing them to .git/wikiwarden), and with
the cache an earlier check left in .git/wikiwarden (restored before each run): an unchanged
tree checked again, the tree after every range moved checked with the cache from before the move, the 10-file change
with the evidence index the first check learnt. Figures are wall time including start-up (best and median of --repeat
runs) and the peak RSS of the slowest-memory run (`/usr/bin/time -v` when installed, else getrusage of the children:
the largest process), and beside it the peak PSS of all the check's processes together (a large full sweep forks;
its children share the parent's pages until they touch them), sampled from /proc every 20 ms in one more run,
untimed (sampling slows the process it reads).

`--against DIR` times another checkout of Wikiwarden (its `bot/`, say a `git worktree` of an older commit) on the same
repositories, its runs alternating with this checkout's (the order swapped each round), each case printed for both:
the machine's speed drifts through a day by more than most changes gain, and runs by turns see the same drift. The
warm cases start each from the cache its own checkout's first check left (two versions may keep it in different
formats: one could not read the other's, and would run cold).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import speed_line
from bench.sweep import build, git_repository, shift_everything, ten_file_change

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"unchanged": 3.0, "moved": 4.0, "10-file change": 0.5}
RSS_TARGET_MB = 450
GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
TIME_BIN = shutil.which("time") if Path("/usr/bin/time").exists() else None


def _tree_pss_mb(root: int) -> float:
    """The proportional set size of process `root` and its descendants together (MB): what a forked sweep's
    processes hold of the machine's memory, their shared pages counted once."""
    total, pending = 0, [root]
    while pending:
        pid = pending.pop()
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{pid}/task"):
                pending += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
    return total / 1024


class _PssPeak(threading.Thread):
    """Samples the process tree's PSS every 20 ms while it runs (Linux); 0 where /proc cannot say."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, 0.0, threading.Event()

    def run(self) -> None:
        if not Path("/proc/self/smaps_rollup").exists():
            return
        while not self.done.wait(0.02):
            self.peak = max(self.peak, _tree_pss_mb(self.pid))


def _run(
    repo: Path, argv: list[str], out: Path, *, sampled: bool = False, code: Path = ROOT
) -> tuple[float, float, float]:
    """One `python -m bot ARGV` in `repo` with the `bot/` of checkout `code`, stdout to `out`: (wall seconds, peak
    RSS of its largest process in MB, peak PSS of all its processes together in MB when `sampled`, else 0). Reading a
    process's page tables takes the lock its page faults need: a sampled run is slower, and its time is not
    reported."""
    command = [sys.executable, "-m", "bot", *argv]
    env = {**os.environ, "PYTHONPATH": str(code)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with out.open("wb") as sink, tempfile.TemporaryFile("w+") as timing:
        if TIME_BIN:
            command = ["/usr/bin/time", "-v", *command]
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=repo, stdout=sink, stderr=timing, env=env)
        sampler = _PssPeak(process.pid)
        if sampled:
            sampler.start()
        returncode = process.wait()
        seconds = time.perf_counter() - start
        sampler.done.set()
        if sampled:
            sampler.join()
        timing.seek(0)
        stderr = timing.read()
    if returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({returncode}):\n{stderr}")
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    if found:
        return seconds, int(found.group(1)) / 1024, sampler.peak
    # getrusage keeps the largest child's peak: only meaningful when this run was the largest so far
    return seconds, max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024, sampler.peak


CHECKOUTS: list[tuple[str, Path]] = [("", ROOT)]  # (label, root) of each checkout timed; --against adds one


def _width() -> int:
    return 34 + max(len(name) for name, _ in CHECKOUTS)


def _by_turns(repeat: int, run: Callable[[Path], tuple[float, float, float]]) -> dict[Path, list[tuple[float, ...]]]:
    """`repeat` runs of each checkout, alternating, the order swapped each round (so both see the same drift)."""
    runs: dict[Path, list[tuple[float, ...]]] = {code: [] for _, code in CHECKOUTS}
    for round_ in range(repeat):
        for _, code in CHECKOUTS if round_ % 2 == 0 else CHECKOUTS[::-1]:
            runs[code].append(run(code))
    return runs


def _series(label: str, repo: Path, argv: list[str], repeat: int, target: float | None) -> None:
    out = repo.parent / "report.out"
    by_code = _by_turns(repeat, lambda code: _run(repo, argv, out, code=code))
    for name, code in CHECKOUTS:
        runs = by_code[code]
        times = [s for s, _, _ in runs]
        rss, pss = max(m for _, m, _ in runs), _run(repo, argv, out, sampled=True, code=code)[2]
        goal = f"  (target <= {target:g} s, RSS <= {RSS_TARGET_MB} MB)" if target else ""
        print(
            f"  {label + name:<{_width()}} best {min(times):6.2f} s  median {statistics.median(times):6.2f} s  "
            f"peak RSS {rss:6.0f} MB (all processes {pss:4.0f})  output {out.stat().st_size / 1e6:6.1f} MB{goal}"
        )


def _commit(repo: Path, message: str) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, env=env, check=True)


def _write(repo: Path, tree: dict[str, bytes]) -> None:
    for path, content in tree.items():
        (repo / path).write_bytes(content)


def _restore(repo: Path, kept: Path | None) -> None:
    """The repository's cache (.git/wikiwarden) as `kept` holds it, or none."""
    memory = repo / ".git" / "wikiwarden"
    shutil.rmtree(memory, ignore_errors=True)
    if kept is not None:
        shutil.copytree(kept, memory)


def _cached_series(
    label: str, repo: Path, argv: list[str], repeat: int, target: float | None, kept: dict[Path, Path] | None
) -> None:
    """Runs that each start from the cache its checkout's first check left (`kept`, by checkout: two versions of
    the code may keep it in different formats), or from none (and do not keep what they add to it)."""
    out = repo.parent / "report.out"

    def run(code: Path, sampled: bool = False) -> tuple[float, float, float]:
        _restore(repo, kept[code] if kept is not None else None)
        return _run(repo, argv, out, sampled=sampled, code=code)

    by_code = _by_turns(repeat, run)
    for name, code in CHECKOUTS:
        runs = by_code[code]
        pss = run(code, sampled=True)[2]
        times = [s for s, _, _ in runs]
        goal = f"  (target <= {target:g} s)" if target else ""
        print(
            f"  {label + name:<{_width()}} best {min(times):6.2f} s  median {statistics.median(times):6.2f} s  "
            f"peak RSS {max(m for _, m, _ in runs):6.0f} MB (all processes {pss:4.0f}){goal}"
        )
    _restore(repo, kept[ROOT] if kept is not None else None)


def _first_checks(repo: Path, folder: Path, check: list[str]) -> dict[Path, Path]:
    """The cache each checkout's first check of `repo` leaves, kept aside by checkout."""
    kept = {}
    for number, (_, code) in enumerate(CHECKOUTS):
        _restore(repo, None)
        _run(repo, check, repo.parent / "report.out", code=code)
        kept[code] = folder / f"unchanged-{number}"
        shutil.copytree(repo / ".git" / "wikiwarden", kept[code])
    _restore(repo, kept[ROOT])
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--format", default="json")
    parser.add_argument("--profile", metavar="FILE", help="also profile one unchanged run of the largest size")
    parser.add_argument("--jobs", type=int, help="check --jobs N (default: the check's own, the usable processors)")
    parser.add_argument("--against", metavar="DIR", type=Path, help="also time another checkout's code, by turns")
    args = parser.parse_args()
    if args.against is not None:
        if not (args.against / "bot" / "__main__.py").is_file():
            parser.error(f"--against {args.against}: no checkout of Wikiwarden there (no bot/__main__.py)")
        CHECKOUTS[:] = [(" [this]", ROOT), (f" [{args.against.name}]", args.against.resolve())]
    print(f"rss from {'/usr/bin/time -v' if TIME_BIN else 'getrusage(RUSAGE_CHILDREN)'}; {args.repeat} runs each")
    print(
        "cold: --no-cache; first check: the cache on but empty (a first check learns it and writes it); "
        "warm: the cache the previous check left in .git/wikiwarden"
    )
    print(speed_line("before"))
    for claims in (int(s) for s in args.sizes.split(",")):
        files = 1000 if claims < 100_000 else 10_000
        tree = build(claims, files)
        with tempfile.TemporaryDirectory() as folder:
            repo = Path(folder) / "repo"
            git_repository(tree, repo)
            check = ["check", "--format", args.format, *(["--jobs", str(args.jobs)] if args.jobs else [])]
            cold = [*check, "--no-cache"]
            print(f"{claims} claims on {files} files, check --format {args.format} > file")
            targets = TARGETS if claims >= 100_000 else dict.fromkeys(TARGETS)
            _series("unchanged, cold", repo, cold, args.repeat, targets["unchanged"])
            _cached_series("unchanged, first check", repo, check, args.repeat, targets["unchanged"], None)
            unchanged = _first_checks(repo, Path(folder), check)
            _cached_series("unchanged, warm", repo, check, args.repeat, targets["unchanged"], unchanged)
            if args.profile:
                _restore(repo, unchanged[ROOT])
                prof = [sys.executable, "-m", "cProfile", "-o", str(Path(args.profile).resolve()), "-m", "bot"]
                with (Path(folder) / "profiled.out").open("wb") as sink:
                    subprocess.run(
                        [*prof, *check], cwd=repo, stdout=sink, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False
                    )
                import pstats

                pstats.Stats(str(Path(args.profile).resolve())).sort_stats("cumulative").print_stats(25)
            _write(repo, shift_everything(tree))
            _series("moved, cold", repo, cold, args.repeat, targets["moved"])
            _cached_series("moved, cache from before the move", repo, check, args.repeat, targets["moved"], unchanged)
            _write(repo, tree)  # back to the commit, then a 10-file change committed on top
            head, _ = ten_file_change(tree)
            _write(repo, {p: c for p, c in head.items() if c != tree[p]})
            _commit(repo, "ten files")
            diff = [*check, "--base", "HEAD~1", "--head", "HEAD"]
            _series("10-file change, cold", repo, [*diff, "--no-cache"], args.repeat, targets["10-file change"])
            _cached_series("10-file change, index warm", repo, diff, args.repeat, targets["10-file change"], unchanged)
    print(speed_line("after"))


if __name__ == "__main__":
    main()
