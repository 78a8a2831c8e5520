"""Sweep speed on synthetic repositories: claims per second for a full sweep (unchanged, and with every
range moved), the time of a diff-aware sweep of a 10-file change, and the memory of a full sweep (the peak
traced by tracemalloc during one run, and what its report keeps).

    python bench/sweep.py                 # 1k, 10k and 100k claims
    python bench/sweep.py --sizes 100000  # one size
    python bench/sweep.py --git           # also from git objects and the working tree of a real repository

Targets: 100k claims full sweep <= 2 s, <= 4 s with every range moved; a 10-file change on the 100k-claim wiki
<= 0.5 s; a second full sweep with the verdict cache warm <= 0.5 s (printed evaluating alone, and with the wiki's
loading). The table is one process; the line below it the full sweeps shared among --jobs processes (default: the
processors this one may use, at most 4; what `wikiwarden check` does). Each figure is the best of --repeat runs.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import speed_line
from bot.claims.citations import EvidenceIndex
from bot.claims.options import SweepOptions
from bot.claims.results import SweepReport
from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar
from bot.claims.snapshot import Change, FileChange, MemorySnapshot
from bot.claims.sweep import Sweeper
from bot.claims.text import FileText
from bot.claims.verdict_cache import VerdictCache
from bot.claims.versions import lines_version
from bot.parallel import Forking, usable_processors

CLAIMS_PER_PAGE = 100
PAGE = b"---\ntype: Concept\n---\n\n# Page\n\nProse about the code.\n"


def make_source(rng: random.Random, index: int, lines: int) -> bytes:
    out = [f'"""Module {index}."""', "", "import os", ""]
    while len(out) < lines:
        fn = len(out)
        out += [f"def function_{index}_{fn}(value):", f"    total = value * {rng.randrange(1000)}"]
        out += [f"    total += helper_{rng.randrange(10**6)}(value, {k})" for k in range(rng.randint(2, 12))]
        out += ["    return total", "", ""]
    return ("\n".join(out[:lines]) + "\n").encode()


def build(claims: int, files: int, seed: int = 7) -> dict[str, bytes]:
    """Files of a repository: `files` source files and a wiki of `claims` claims (1.34 evidence each)."""
    rng = random.Random(seed)
    tree: dict[str, bytes] = {}
    texts: list[tuple[str, FileText]] = []
    for i in range(files):
        path = f"src/pkg{i // 100}/module_{i}.py"
        tree[path] = make_source(rng, i, rng.randint(120, 220))
        texts.append((path, FileText(tree[path])))
    counter = 0
    for page_index in range(claims // CLAIMS_PER_PAGE):
        page = f"openwiki/area{page_index // 50}/page_{page_index}.md"
        tree[page] = PAGE
        page_claims = []
        for _ in range(CLAIMS_PER_PAGE):
            evidence = []
            for _ in range(2 if rng.random() < 0.34 else 1):
                path, text = texts[rng.randrange(files)]
                length = rng.randint(1, 40)
                start = rng.randrange(0, len(text.lines) - length)
                resource = f"repo://{path}#L{start + 1}-L{start + length}"
                if any(e.resource == resource for e in evidence):
                    continue
                evidence.append(EvidenceRecord(resource, lines_version(text, start, start + length)))
            page_claims.append(Claim(f"claim_{counter:032x}", f"Statement {counter} about the code.", tuple(evidence)))
            counter += 1
        sidecar = f"openwiki/.claims/area{page_index // 50}/page_{page_index}.json"
        tree[sidecar] = render_sidecar(Sidecar(page_version(PAGE), tuple(page_claims)))
    return tree


def shift_everything(tree: dict[str, bytes]) -> dict[str, bytes]:
    """Every source file gets three new lines at the top: every range moves."""
    return {p: (b"# moved\n# down\n# by three\n" + c if p.startswith("src/") else c) for p, c in tree.items()}


def ten_file_change(tree: dict[str, bytes], seed: int = 11) -> tuple[dict[str, bytes], tuple[FileChange, ...]]:
    rng = random.Random(seed)
    sources = sorted(p for p in tree if p.startswith("src/"))
    chosen = rng.sample(sources, 10)
    head = dict(tree)
    for path in chosen:
        lines = head[path].split(b"\n")
        for _ in range(5):
            at = rng.randrange(len(lines))
            lines[at] = lines[at] + b"  # edited"
        lines[10:10] = [b"# inserted", b"# lines"]
        head[path] = b"\n".join(lines)
    return head, tuple(FileChange(p, p) for p in chosen)


def best(runs: int, fn) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def traced(fn) -> tuple[float, float]:
    """Peak and retained memory (MB) that Python allocates during one call of `fn`, its result kept."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        retained, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak / 2**20, retained / 2**20


def git_repository(tree: dict[str, bytes], root: Path) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b",
    }
    for path, content in tree.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    # Packed here, not by the `git gc --auto` the commit of 20,000 loose objects starts in the background: that ran
    # for about 14 s on both cores of a 2-core machine after this returned, and the first series timed beside it
    # (bench/cli_e2e.py's cold unchanged check) took 3.0-3.8 s where the same code took 2.1-2.4 s once it had ended.
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "bench"], ["gc", "--quiet"]):
        subprocess.run(["git", "-c", "gc.auto=0", *args], cwd=root, env=env, check=True)


def sweep(head: MemorySnapshot, change: Change | None = None) -> SweepReport:
    """A sweep in one process under the check's collector policy (paused while it allocates), as `check` runs it."""
    return Sweeper(head, change, SweepOptions(), parallel=Forking()).sweep()


def warm_sweep(snapshot: MemorySnapshot, repeat: int) -> tuple[float, float]:
    """A full sweep with the verdict cache the previous one kept (read back as a store reads it): the best
    (loading the wiki, evaluating it) of `repeat` runs."""
    first = Sweeper(snapshot, None, SweepOptions(), index=EvidenceIndex(), parallel=Forking())
    first.verdicts = VerdictCache(first.verdict_context)
    first.sweep()
    stored = orjson.dumps(first.verdicts.to_json())
    assert first.index is not None
    known = dict(first.index.items())
    loads, runs = [], []
    for _ in range(repeat):
        sweeper = Sweeper(snapshot, None, SweepOptions(), index=EvidenceIndex(known), parallel=Forking())
        sweeper.verdicts = VerdictCache.from_json(orjson.loads(stored), sweeper.verdict_context)
        start = time.perf_counter()
        wiki = sweeper.load()
        loaded = time.perf_counter()
        report = sweeper.sweep(wiki)
        runs.append(time.perf_counter() - loaded)
        loads.append(loaded - start)
        assert not sweeper.verdicts.changed and report.summary["fresh"] == report.summary["claims"]
    return min(loads), min(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--git", action="store_true", help="also time a real repository (git objects, working tree)")
    parser.add_argument("--jobs", type=int, default=usable_processors(), help="processes of the shared full sweeps")
    args = parser.parse_args()
    print(speed_line("before"))
    print(
        f"{'claims':>8} {'files':>6}  {'full sweep':>18}  {'all moved':>18}  {'10-file change':>14}"
        f"  {'full sweep memory (peak, report)':>32}"
    )
    for claims in (int(s) for s in args.sizes.split(",")):
        files = 1000 if claims < 100_000 else 10_000
        tree = build(claims, files)
        base = MemorySnapshot(tree, label="base")
        full_s, report = best(args.repeat, lambda base=base: sweep(base))
        assert report.summary["fresh"] == claims, report.summary
        moved = MemorySnapshot(shift_everything(tree), label="moved")
        moved_s, report = best(args.repeat, lambda moved=moved: sweep(moved))
        assert report.summary["moved"] == claims, report.summary
        head_files, changed = ten_file_change(tree)
        head = MemorySnapshot(head_files, label="head")
        change = Change(base, changed)
        diff_s, report = best(args.repeat, lambda head=head, change=change: sweep(head, change))
        checked = report.summary["claims"]
        del report
        peak, kept = traced(lambda base=base: sweep(base))
        print(
            f"{claims:>8} {files:>6}  {full_s:6.2f} s {claims / full_s:>8,.0f}/s"
            f"  {moved_s:6.2f} s {claims / moved_s:>8,.0f}/s  {diff_s:8.3f} s  {peak:9,.0f} MB, {kept:6,.0f} MB"
            f"  ({checked} claims re-checked after the change)"
        )
        if args.jobs > 1:

            def shared(snapshot: MemorySnapshot) -> SweepReport:
                return Sweeper(snapshot, None, SweepOptions(), parallel=Forking(args.jobs)).sweep()

            shared_s, _ = best(args.repeat, lambda base=base: shared(base))
            shared_moved_s, _ = best(args.repeat, lambda moved=moved: shared(moved))
            print(
                f"{'':>16}  full sweeps in {args.jobs} processes: {shared_s:.2f} s unchanged, {shared_moved_s:.2f} s "
                "all moved"
            )
        load_s, run_s = warm_sweep(base, args.repeat)
        print(
            f"{'':>16}  a second full sweep, verdict cache warm: {run_s:.2f} s evaluating, "
            f"{load_s + run_s:.2f} s with the wiki's loading (target <= 0.5 s)"
        )
        if args.git:
            from bot.source.git import GitRepository
            from bot.usecases.check import check_repository

            with tempfile.TemporaryDirectory() as folder:
                git_repository(tree, Path(folder))
                for label, head_rev in (("git objects", "HEAD"), ("working tree", None)):

                    def run(head_rev=head_rev):
                        with GitRepository(folder) as repo:
                            return check_repository(repo, None, head_rev, SweepOptions())

                    seconds, report = best(args.repeat, run)
                    assert report.summary["fresh"] == claims
                    print(f"{'':>16}  full sweep from {label}: {seconds:.2f} s ({claims / seconds:,.0f} claims/s)")
    print(speed_line("after"))


if __name__ == "__main__":
    main()
