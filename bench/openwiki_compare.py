"""Side by side with OpenWiki's own checker: the same synthetic repositories, both tools as fresh processes in the
same run, interleaved so that both see the same load.

    python bench/openwiki_compare.py --oracle /tmp/openwiki-oracle-build/openwiki-oracle.mjs
    OPENWIKI_ORACLE=... python bench/openwiki_compare.py --sizes 1000,10000,100000 --runs 5

The oracle is OpenWiki's Claims evidence resolver and preflight extracted from its repository and bundled into one
node script by the openwiki-oracle tools (`build.sh`, kept beside this project, not in it). Nothing is built unless
`--build-oracle BUILD_SH` says so, and then only into the oracle's folder outside this repository.

For each case (bench/sweep.py's wiki: unchanged, every range moved by three lines, and optionally ten files edited)
it prints, best and median of --runs runs with a whole process each (start-up and output included):
- `wikiwarden check --format json > file` (the full sweep), with the cache an earlier run left in .git/wikiwarden
  (the second check of the same tree) and with `--no-cache` (a first check);
- the oracle's preflight (`node ORACLE REPO`: what `openwiki update` runs before its agent) and its per-record mode
  (`--evidence-out F.jsonl --no-preflight`: a verdict per evidence record, written out);
- the ratio of each to Wikiwarden, and the peak RSS of each (`/usr/bin/time -v`);
- the agreement: Wikiwarden's `openwiki_verdict` against the oracle's verdict on every evidence record, the
  disagreements listed by resource. Target: >= 10x faster at 10k claims than the faster oracle mode, every verdict
  the same. Nothing is asserted: the figures are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from machine import speed_line  # noqa: E402
from sweep import build, git_repository, shift_everything, ten_file_change  # noqa: E402

DEFAULT_ORACLE = "/tmp/openwiki-oracle-build/openwiki-oracle.mjs"
# "edited" (ten files edited in place: stale and unresolved verdicts too) is optional: the target names the other two.
CASES = {"unchanged": lambda tree: tree, "moved": shift_everything, "edited": lambda tree: ten_file_change(tree)[0]}
DEFAULT_CASES = "unchanged,moved"
SHOWN_DISAGREEMENTS = 20


class Run(NamedTuple):
    wall_s: float
    rss_mb: float
    returncode: int


class Tool(NamedTuple):
    name: str
    argv: list[str]
    output: Path
    exits: tuple[int, ...]  # what a run that did its work exits with: Wikiwarden's 1 is "a claim needs attention"


def missing_oracle(oracle: Path) -> str:
    return f"""OpenWiki's oracle is not at {oracle}.
It is OpenWiki's own checker bundled into one node script from OpenWiki's sources; build it outside this repository
with the openwiki-oracle tools (../shared/tools/openwiki-oracle/ beside the development checkouts; node >= 20, npm):

    git clone --bare https://github.com/langchain-ai/openwiki /tmp/openwiki.git
    OPENWIKI_GIT_DIR=/tmp/openwiki.git OUT=/tmp/openwiki-oracle-build bash ../shared/tools/openwiki-oracle/build.sh

then pass --oracle /tmp/openwiki-oracle-build/openwiki-oracle.mjs (or set OPENWIKI_ORACLE), or let this script
build it: OPENWIKI_GIT_DIR=/tmp/openwiki.git python bench/openwiki_compare.py --build-oracle PATH/TO/build.sh"""


def build_oracle(build_sh: Path, oracle: Path) -> None:
    """Runs the oracle's own build script into the oracle's folder, never into this repository."""
    out = oracle.parent.resolve()
    if out == ROOT or ROOT in out.parents:
        sys.exit(f"refusing to build the oracle inside the repository ({out}); pass an --oracle path outside it")
    if "OPENWIKI_GIT_DIR" not in os.environ:
        sys.exit("--build-oracle needs OPENWIKI_GIT_DIR: the git dir of a clone of langchain-ai/openwiki")
    subprocess.run(["bash", str(build_sh)], env={**os.environ, "OUT": str(out)}, check=True)
    if not oracle.is_file():
        sys.exit(f"the build did not produce {oracle}: its script writes $OUT/openwiki-oracle.mjs")


def wikiwarden_command() -> list[str]:
    """The console script of the interpreter running this benchmark, as a user runs it; it must import this
    checkout's code, or the figures would be another version's."""
    script = Path(sys.executable).parent / "wikiwarden"
    if not script.is_file():
        sys.exit(f"no wikiwarden beside {sys.executable}: install this checkout first (pip install -e .)")
    where = subprocess.run(
        [sys.executable, "-c", "import bot; print(bot.__file__)"], cwd="/", capture_output=True, text=True, check=True
    ).stdout.strip()
    if ROOT not in Path(where).resolve().parents:
        sys.exit(f"this interpreter imports bot from {where}, not from {ROOT}: pip install -e {ROOT}")
    return [str(script)]


def timed(tool: Tool, cwd: Path) -> Run:
    """One fresh process, its stdout to a file; wall time around it and the peak RSS `/usr/bin/time -v` saw."""
    with tool.output.open("wb") as out:
        start = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-v", *tool.argv], stdout=out, stderr=subprocess.PIPE, cwd=cwd, check=False
        )
        wall = time.perf_counter() - start
    stderr = done.stderr.decode(errors="replace")
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    if peak is None or done.returncode not in tool.exits:
        sys.exit(f"{' '.join(tool.argv)} failed (exit {done.returncode}):\n{stderr[-2000:]}")
    return Run(wall, int(peak.group(1)) / 1024, done.returncode)


def wikiwarden_records(report: Path) -> Iterator[tuple[tuple[str, str, int], str, str | None]]:
    """(page, claim, index), resource and OpenWiki's verdict as Wikiwarden computes it; None is an evidence record
    it could not evaluate at all, which the oracle calls an error."""
    document = json.loads(report.read_bytes())
    for page in document["pages"]:
        for claim in page["claims"]:
            for index, evidence in enumerate(claim["evidence"]):
                yield (page["page"], claim["id"], index), evidence["resource"], evidence["openwiki_verdict"]


def oracle_records(jsonl: Path) -> dict[tuple[str, str, int], str]:
    records = {}
    for line in jsonl.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            records[(record["page"].lstrip("/"), record["claim"], record["index"])] = record["verdict"]
    return records


def agreement(ww_report: Path, oracle_jsonl: Path) -> tuple[Counter[str], list[str]]:
    oracle = oracle_records(oracle_jsonl)
    counts: Counter[str] = Counter()
    disagreements = []
    for key, resource, ours in wikiwarden_records(ww_report):
        theirs = oracle.pop(key, None)
        if theirs is None:
            counts["missing in the oracle"] += 1
            disagreements.append(f"{resource}  ({key[0]} {key[1]} #{key[2]}): not in the oracle's records")
            continue
        counts["compared"] += 1
        if (ours or "error") == theirs:
            counts["agree"] += 1
            counts[f"both {theirs}"] += 1
        else:
            counts["disagree"] += 1
            disagreements.append(f"{resource}  ({key[0]} {key[1]} #{key[2]}): Wikiwarden {ours}, OpenWiki {theirs}")
    for page, claim, index in oracle:
        counts["missing in Wikiwarden"] += 1
        disagreements.append(f"({page} {claim} #{index}): not in Wikiwarden's report")
    return counts, sorted(disagreements)


def oracle_preflight_ok(output: Path, claims: int) -> str:
    """The preflight's own summary, so that a run that aborted (an exception ends OpenWiki's preflight) or saw
    another wiki is never timed as a success."""
    preflight = json.loads(output.read_bytes())["preflight"]
    if "error" in preflight or preflight["claims"] != claims:
        sys.exit(f"the oracle's preflight did not check {claims} claims: {preflight}")
    return f"{preflight['claims_fresh']} claims fresh, in-process {preflight['ms'] / 1000:.2f} s"


def best_of(runs: list[Run]) -> float:
    return min(r.wall_s for r in runs)


def median_of(runs: list[Run]) -> float:
    return statistics.median(r.wall_s for r in runs)


def seconds(runs: list[Run]) -> str:
    return f"best {best_of(runs):6.2f} s  median {median_of(runs):6.2f} s"


def ratios(theirs: list[Run], ours: list[Run]) -> str:
    """How many times Wikiwarden's time the other tool takes, best against best and median against median."""
    return f"{best_of(theirs) / best_of(ours):5.1f}x best  {median_of(theirs) / median_of(ours):5.1f}x median"


def compare_case(
    label: str, repo: Path, claims: int, oracle: list[str], wikiwarden: list[str], runs: int, warmups: int
) -> None:
    out = repo.parent / f"{repo.name}-out"
    out.mkdir()
    tools = [
        Tool(
            "wikiwarden check (cache warm)",
            [*wikiwarden, "check", "--repo", str(repo), "--format", "json"],
            out / "ww.json",
            (0, 1),
        ),
        Tool(
            "wikiwarden check --no-cache",
            [*wikiwarden, "check", "--repo", str(repo), "--format", "json", "--no-cache"],
            out / "ww-cold.json",
            (0, 1),
        ),
        Tool("openwiki preflight", [*oracle, str(repo)], out / "preflight.json", (0,)),
        Tool(
            "openwiki per-record",
            [*oracle, str(repo), "--no-preflight", "--evidence-out", str(out / "records.jsonl")],
            out / "records.json",
            (0,),
        ),
    ]
    for _ in range(warmups):  # the page cache as every later run has it
        for tool in tools:
            timed(tool, repo)
    results: dict[str, list[Run]] = {tool.name: [] for tool in tools}
    for _ in range(runs):
        for tool in tools:
            results[tool.name].append(timed(tool, repo))
    preflight = oracle_preflight_ok(out / "preflight.json", claims)
    ww_summary = json.loads((out / "ww.json").read_bytes())["summary"]
    ours, cold = results[tools[0].name], results[tools[1].name]
    print(f"\n{claims:,} claims, {label}  ({runs} runs each, interleaved)")
    for tool in tools:
        theirs = results[tool.name]
        ratio = "" if tool in tools[:2] else f"  {ratios(theirs, ours)} (cache warm)  {ratios(theirs, cold)} (cold)"
        rss = max(r.rss_mb for r in theirs)
        print(f"  {tool.name:<32} {seconds(theirs)}  peak RSS {rss:6.0f} MB{ratio}")
    if (out / "ww.json").read_bytes() != (out / "ww-cold.json").read_bytes():
        sys.exit("Wikiwarden's report with the cache differs from its report without it")
    size = (out / "ww.json").stat().st_size / 1e6
    summary = ", ".join(f"{k} {v}" for k, v in ww_summary.items() if v and isinstance(v, int))
    print(f"  Wikiwarden: exit {ours[-1].returncode}, {size:.1f} MB of JSON (cache or not, the same); {summary}")
    print(f"  OpenWiki preflight: {preflight}")
    oracle_best = min(best_of(results[t.name]) for t in tools[2:])
    oracle_median = min(median_of(results[t.name]) for t in tools[2:])
    for name, runs_ in (("cache warm", ours), ("cold", cold)):
        factor = min(oracle_best / best_of(runs_), oracle_median / median_of(runs_))
        verdict = "met" if factor >= 10 else "not met"
        print(
            f"  {name}, against the faster oracle mode, the lower of best and median: {factor:.1f}x "
            f"(target >= 10x: {verdict})"
        )
    counts, disagreements = agreement(out / "ww.json", out / "records.jsonl")
    shown = ", ".join(f"{k} {v:,}" for k, v in sorted(counts.items()))
    print(f"  agreement on openwiki_verdict: {shown}")
    for line in disagreements[:SHOWN_DISAGREEMENTS]:
        print(f"    {line}")
    if len(disagreements) > SHOWN_DISAGREEMENTS:
        print(f"    ... and {len(disagreements) - SHOWN_DISAGREEMENTS:,} more")


def checkout_version() -> str:
    """The commit measured, and whether the code differs from it: others' uncommitted work is measured too."""
    git = ["git", "-C", str(ROOT)]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    dirty = subprocess.run([*git, "status", "--porcelain", "bot"], capture_output=True, text=True, check=False)
    return commit.stdout.strip() + (" with uncommitted changes in bot/" if dirty.stdout.strip() else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--oracle",
        type=Path,
        default=Path(os.environ.get("OPENWIKI_ORACLE", DEFAULT_ORACLE)),
        help=f"the oracle's openwiki-oracle.mjs (default: $OPENWIKI_ORACLE, else {DEFAULT_ORACLE})",
    )
    parser.add_argument("--node", default="node", help="node >= 20 (default: node on the PATH)")
    parser.add_argument("--sizes", default="10000", help="claims, comma-separated (1000 and 100000 optional)")
    parser.add_argument("--cases", default=DEFAULT_CASES, help=f"comma-separated, of {', '.join(CASES)}")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each tool per case")
    parser.add_argument("--warmups", type=int, default=1, help="untimed runs of each tool first (default: 1)")
    parser.add_argument("--build-oracle", type=Path, metavar="BUILD_SH", help="build the oracle first with this script")
    args = parser.parse_args()
    if args.build_oracle:
        build_oracle(args.build_oracle, args.oracle)
    if not args.oracle.is_file():
        sys.exit(missing_oracle(args.oracle))
    if shutil.which(args.node) is None:
        sys.exit(f"{args.node} not found: the oracle needs node >= 20")
    if not Path("/usr/bin/time").is_file():
        sys.exit("/usr/bin/time not found: it measures peak RSS (apt-get install time)")
    wikiwarden = wikiwarden_command()
    oracle = [args.node, str(args.oracle)]
    print(f"Wikiwarden {checkout_version()} ({wikiwarden[0]}) vs {args.oracle}")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} cores, load average {load}")
    print(speed_line("before"))
    for claims in (int(s) for s in args.sizes.split(",")):
        files = 1000 if claims < 100_000 else 10_000
        tree = build(claims, files)
        for label in args.cases.split(","):
            with tempfile.TemporaryDirectory(prefix="openwiki-compare-") as folder:
                repo = Path(folder) / "repo"
                git_repository(CASES[label](tree), repo)
                compare_case(f"{label} ({files:,} files)", repo, claims, oracle, wikiwarden, args.runs, args.warmups)
    print(speed_line("after"))


if __name__ == "__main__":
    main()
