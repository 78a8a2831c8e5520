"""Broken references on real, hand-written docs across a repository's release history: what fails the check and
what is only a note, pair of releases by pair, to be judged by reading each one.

    python bench/human_docs.py PATH [--wiki-dir docs] [--pairs 20] [--tags REGEX] [--full] [--json FILE]

PATH is a clone of a repository nobody here wrote (the session's `fetch` brings typer, httpx, click, rich...).
For each pair of consecutive release tags (the last `--pairs`, in version order, pre-releases left out) it runs
`check --base OLD --head NEW` through the same use case the command line runs, and prints every broken
reference: `FAIL` for those that fail the check, `note` for the others, with why. `--full` adds a full sweep of
the newest tag. The judgement (real or false) is a person's: the printed lines are what is read.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.source.git import GitRepository
from bot.usecases.check import check_repository
from bot.usecases.config import Overrides

RELEASE = re.compile(r"v?\d+(?:\.\d+)+")  # 1.2.3, v1.2.3: not `v.5.2.0`, not 1.0b1


def release_tags(path: Path, pattern: str | None) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(path), "tag", "--sort=v:refname"], capture_output=True, text=True, check=True
    ).stdout.split()
    tags = [t for t in out if RELEASE.fullmatch(t)]
    return [t for t in tags if re.search(pattern, t)] if pattern else tags


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path)
    parser.add_argument("--wiki-dir", default="docs")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--tags", help="only tags matching this regular expression")
    parser.add_argument("--full", action="store_true", help="also a full sweep of the newest tag")
    parser.add_argument("--json", type=Path, help="write every reference found here too")
    parser.add_argument(
        "--commits", metavar="RANGE", help="instead of releases, every commit of RANGE (v1..v2) against its parent"
    )
    args = parser.parse_args()

    tags = release_tags(args.path, args.tags)[-(args.pairs + 1) :]
    failing = notes = 0
    found: list[dict[str, object]] = []
    started = time.perf_counter()
    with GitRepository(args.path) as repo:
        runs: list[tuple[str | None, str]] = list(itertools.pairwise(tags))
        if args.commits:
            listed = subprocess.run(
                ["git", "-C", str(args.path), "rev-list", "--reverse", "--no-merges", args.commits],
                capture_output=True, text=True, check=True,
            ).stdout.split()  # fmt: skip
            runs = [(f"{commit}^", commit) for commit in listed]
        if args.full:
            runs.append((None, tags[-1]))
        for old, new in runs:
            try:
                report = check_repository(repo, old, new, overrides=Overrides(wiki_dir=args.wiki_dir))
            except Exception as exc:  # a release without the docs folder, say
                print(f"{old}..{new}: not checked ({' '.join(str(exc).split())[:120]})")
                continue
            refs = report.broken_references
            label = f"{old}..{new}" if old else f"full sweep of {new}"
            print(f"{label}: {sum(r.attention for r in refs)} failing, {sum(not r.attention for r in refs)} notes")
            for ref in refs:
                failing += ref.attention
                notes += not ref.attention
                shown = f" -> {ref.renamed_to}" if ref.renamed_to else ""
                tag = "FAIL" if ref.attention else "note"
                print(f"  {tag} {ref.page}:{ref.line}  {ref.text!r}  {ref.what} {ref.target}{shown}")
                if ref.note:
                    print(f"       {ref.note}")
                found.append({"pair": label, **ref._asdict()})
    seconds = time.perf_counter() - started
    print(f"\n{args.path.name}: {len(runs)} pairs, {failing} failing, {notes} notes, {seconds:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(found, indent=1, default=list))
    return 0


if __name__ == "__main__":
    sys.exit(main())
