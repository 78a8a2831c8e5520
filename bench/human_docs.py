"""Broken references on real, hand-written docs across a repository's release history: what fails the check and
what is only a note, pair of releases by pair, to be judged by reading each one.

One repository:

    python bench/human_docs.py PATH [--wiki-dir docs] [--pairs 20] [--tags REGEX] [--full] [--json FILE]

PATH is a clone of a repository nobody here wrote (the session's `fetch` brings typer, httpx, click, rich...).
For each pair of consecutive release tags (the last `--pairs`, in version order, pre-releases left out) it runs
`check --base OLD --head NEW` through the same use case the command line runs, and prints every broken
reference: `FAIL` for those that fail the check, `note` for the others, with why. `--full` adds a full sweep of
the newest tag. The judgement (real or false) is a person's: the printed lines are what is read.

A half of the evaluation corpus (docs/evaluation.md):

    python bench/human_docs.py --corpus bench/human_docs_corpus.json --half tuning \
        [--mirrors /work/.mirror] [--clones DIR] [--only REPO ...] [--labels bench/human_docs_labels.jsonl] \
        [--json FILE] [--quiet]

runs every repository of the half over its pinned release range (the corpus file's `first` to `last`) from its
mirror (`MIRRORS/owner+name/repo`, a bare git directory as `fetch` brings it; a shared clone without a checkout is
made under `--clones` once), writes every report to `--json`, and joins the failing reports with the labels file:
precision (failing reports labeled real / failing reports labeled), recall (labeled real breakage, misses found by
reading included, that fails the check now / all of it) and the failing reports nobody has labeled yet, listed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.source.git import GitRepository
from bot.usecases.check import check_repository
from bot.usecases.config import Overrides

RELEASE = re.compile(r"v?\d+(?:\.\d+)+")  # 1.2.3, v1.2.3: not `v.5.2.0`, not 1.0b1
HALVES = ("tuning", "heldout", "kept_out")
VERDICTS = ("real", "false")


def release_tags(path: Path, pattern: str | None) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(path), "tag", "--sort=v:refname"], capture_output=True, text=True, check=True
    ).stdout.split()
    tags = [t for t in out if RELEASE.fullmatch(t)]
    return [t for t in tags if re.search(pattern, t)] if pattern else tags


def pinned_tags(path: Path, entry: dict[str, object]) -> list[str]:
    """The corpus entry's release tags from `first` to `last`, in version order; an error when the clone's tags
    no longer give the pinned range (a tag moved or gone)."""
    tags = release_tags(path, entry.get("tags"))  # type: ignore[arg-type]
    first, last = str(entry["first"]), str(entry["last"])
    if first not in tags or last not in tags:
        raise ValueError(f"{entry['repository']}: the tags {first} and {last} are not both release tags here")
    chosen = tags[tags.index(first) : tags.index(last) + 1]
    for tag, key in ((first, "first_commit"), (last, "last_commit")):
        commit = git(path, "rev-parse", f"{tag}^{{commit}}").strip()
        if entry.get(key) and commit != entry[key]:
            raise ValueError(f"{entry['repository']}: {tag} is {commit[:12]} here, the corpus pinned {entry[key]}")
    if len(chosen) != int(str(entry["pairs"])) + 1:
        raise ValueError(f"{entry['repository']}: {len(chosen) - 1} pairs from {first} to {last}, not {entry['pairs']}")
    return chosen


def git(path: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, check=True).stdout


def check_pairs(path: Path, wiki_dir: str, runs: Iterable[tuple[str | None, str]]) -> Iterator[dict[str, object]]:
    """Every broken reference of each pair's check, as a record; a pair the check refuses gives one record with
    `error` (a release without the docs folder, say)."""
    with GitRepository(path) as repo:
        for old, new in runs:
            started = time.perf_counter()
            try:
                report = check_repository(repo, old, new, overrides=Overrides(wiki_dir=wiki_dir))
            except Exception as exc:
                yield {"base": old, "head": new, "error": " ".join(str(exc).split())[:200]}
                continue
            yield {"base": old, "head": new, "seconds": round(time.perf_counter() - started, 2)}
            for ref in report.broken_references:
                yield {"base": old, "head": new, **ref._asdict()}


def show(record: dict[str, object]) -> list[str]:
    shown = f" -> {record['renamed_to']}" if record.get("renamed_to") else ""
    tag = "FAIL" if record["attention"] else "note"
    where = f"{record['page']}:{record['line']}"
    lines = [f"  {tag} {where}  {record['text']!r}  {record['what']} {record['target']}{shown}"]
    if record.get("note"):
        lines.append(f"       {record['note']}")
    return lines


def single(args: argparse.Namespace) -> int:
    """One clone, as before the corpus: its last `--pairs` release pairs (or `--commits`), printed."""
    tags = release_tags(args.path, args.tags)[-(args.pairs + 1) :]
    runs: list[tuple[str | None, str]] = list(itertools.pairwise(tags))
    if args.commits:
        listed = git(args.path, "rev-list", "--reverse", "--no-merges", args.commits).split()
        runs = [(f"{commit}^", commit) for commit in listed]
    if args.full:
        runs.append((None, tags[-1]))
    failing = notes = 0
    found: list[dict[str, object]] = []
    started = time.perf_counter()
    for record in check_pairs(args.path, args.wiki_dir, runs):
        label = f"{record['base']}..{record['head']}" if record["base"] else f"full sweep of {record['head']}"
        if "error" in record:
            print(f"{label}: not checked ({record['error'][:120]})")  # type: ignore[index]
        elif "page" not in record:
            print(label)
        else:
            failing += bool(record["attention"])
            notes += not record["attention"]
            print("\n".join(show(record)))
            found.append({"pair": label, **record})
    seconds = time.perf_counter() - started
    print(f"\n{args.path.name}: {len(runs)} pairs, {failing} failing, {notes} notes, {seconds:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(found, indent=1, default=list))
    return 0


# The corpus and its labels


@dataclass(frozen=True)
class Label:
    """A person's judgement of one failing report or of one breakage the check missed (`miss`): the repository,
    the pair of releases, the page and line (the page at the newer release), what it names, real or false, why."""

    repository: str
    base: str | None
    head: str
    page: str
    line: int
    target: str
    verdict: str
    reason: str
    text: str = ""
    miss: bool = False  # found by reading notes or the release's diff, not a failing report

    def matches(self, record: dict[str, object]) -> bool:
        same_place = (record["base"], record["head"], record["page"], record["line"]) == (
            self.base,
            self.head,
            self.page,
            self.line,
        )
        if not same_place:
            return False
        if self.miss:  # what a check may name in its own words: the place is the breakage
            return True
        target = str(record["target"])
        return target == self.target or record["text"] == (self.text or None) or last(target) == last(self.target)


def last(name: str) -> str:
    """A qualified name's last part (`pkg.mod.Obj.run`, `Type::run`: `run`); a path is its own."""
    return name if "/" in name else re.split(r"\.|::", name)[-1]


def read_labels(path: Path) -> list[Label]:
    """The labels file: one JSON object a line (blank lines and lines starting with `#` skipped); a clear error
    naming the line for one that is not a label."""
    labels = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            raw = json.loads(line)
            label = Label(
                repository=str(raw["repository"]),
                base=None if raw.get("base") is None else str(raw["base"]),
                head=str(raw["head"]),
                page=str(raw["page"]),
                line=int(raw["line"]),
                target=str(raw["target"]),
                verdict=str(raw["verdict"]),
                reason=str(raw["reason"]),
                text=str(raw.get("text", "")),
                miss=bool(raw.get("miss", False)),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"{path}:{number}: not a label ({exc})") from exc
        if label.verdict not in VERDICTS:
            raise SystemExit(f"{path}:{number}: verdict {label.verdict!r}, not one of {', '.join(VERDICTS)}")
        if label.miss and label.verdict != "real":
            raise SystemExit(f"{path}:{number}: a miss is real breakage the check did not fail on")
        labels.append(label)
    return labels


@dataclass
class Row:
    repository: str
    pairs: int = 0
    sweeps: int = 0  # full sweeps of the newest release (--full)
    not_checked: int = 0
    failing: int = 0
    real: int = 0
    false: int = 0
    unlabeled: list[dict[str, object]] = field(default_factory=list)
    notes: int = 0
    breakage: int = 0  # labeled real breakage (failing reports and misses)
    caught: int = 0  # of it, what fails the check in this run
    seconds: float = 0.0


def judge(repository: str, records: list[dict[str, object]], labels: list[Label]) -> Row:
    """One repository's run against its labels."""
    row = Row(repository)
    mine = [label for label in labels if label.repository == repository]
    reports = [r for r in records if "page" in r]
    row.pairs = sum(1 for r in records if "seconds" in r and r["base"])
    row.sweeps = sum(1 for r in records if "seconds" in r and not r["base"])
    row.not_checked = sum(1 for r in records if "error" in r)
    row.seconds = sum(float(r["seconds"]) for r in records if "seconds" in r)  # type: ignore[arg-type]
    row.notes = sum(1 for r in reports if not r["attention"])
    for record in reports:
        if not record["attention"]:
            continue
        row.failing += 1
        verdicts = {label.verdict for label in mine if label.matches(record)}
        if "false" in verdicts and "real" not in verdicts:
            row.false += 1
        elif "real" in verdicts:
            row.real += 1
        else:
            row.unlabeled.append(record)
    for label in mine:
        if label.verdict == "real":
            row.breakage += 1
            row.caught += any(r["attention"] and label.matches(r) for r in reports)
    return row


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| repository | pairs | failing | real | false | unlabeled | notes | real breakage caught |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        checked = f"{row.pairs}" + (" + full" if row.sweeps else "")
        checked += f" (+{row.not_checked} not checked)" if row.not_checked else ""
        lines.append(
            f"| {row.repository} | {checked} | {row.failing} | {row.real} | {row.false} | {len(row.unlabeled)} |"
            f" {row.notes} | {row.caught} of {row.breakage} |"
        )
    real, false = sum(r.real for r in rows), sum(r.false for r in rows)
    caught, breakage = sum(r.caught for r in rows), sum(r.breakage for r in rows)
    sweeps = sum(r.sweeps for r in rows)
    lines.append(
        f"| **all** | {sum(r.pairs for r in rows)}{f' + {sweeps} full' if sweeps else ''} |"
        f" {sum(r.failing for r in rows)} | {real} | {false} |"
        f" {sum(len(r.unlabeled) for r in rows)} | {sum(r.notes for r in rows)} | {caught} of {breakage} |"
    )
    lines.append("")
    lines.append(
        f"precision {percent(real, real + false)} ({real} of {real + false} labeled failing reports real),"
        f" recall {percent(caught, breakage)} ({caught} of {breakage} labeled real breakage fails the check)"
    )
    return lines


def clone_of(entry: dict[str, object], mirrors: Path, clones: Path) -> Path:
    """A clone to check: `clones/owner+name`, made once from the mirror, shared and without a checkout (the check
    reads commits, never the working tree)."""
    name = str(entry["repository"]).replace("/", "+")
    clone = clones / name
    if (clone / ".git").is_dir():
        return clone
    mirror = mirrors / name / "repo"
    if not mirror.is_dir():
        raise SystemExit(f"{entry['repository']}: no mirror at {mirror}; fetch github:{entry['repository']} first")
    clones.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["git", "clone", "--quiet", "--shared", "--no-checkout", str(mirror), str(clone)], check=True
    )  # fmt: skip
    return clone


def corpus(args: argparse.Namespace) -> int:
    data = json.loads(args.corpus.read_text(encoding="utf-8"))
    entries = [e for e in data["repositories"] if e["half"] == args.half]
    if args.only:
        entries = [e for e in entries if e["repository"] in args.only]
        if missing := set(args.only) - {e["repository"] for e in entries}:
            raise SystemExit(f"not in the {args.half} half: {', '.join(sorted(missing))}")
    labels = read_labels(args.labels) if args.labels and args.labels.exists() else []
    everything: list[dict[str, object]] = []
    rows: list[Row] = []
    for entry in entries:
        repository = str(entry["repository"])
        clone = clone_of(entry, args.mirrors, args.clones)
        try:
            tags = pinned_tags(clone, entry)
        except ValueError as exc:
            raise SystemExit(str(exc)) from exc
        print(f"== {repository} ({entry['docs']}, {entry['format']}): {tags[0]}..{tags[-1]}", flush=True)
        if args.plan:
            print(f"{len(tags) - 1} pairs: {' '.join(tags)}")
            continue
        records: list[dict[str, object]] = []
        shown_pair = None
        runs: list[tuple[str | None, str]] = list(itertools.pairwise(tags))
        if args.full:
            runs.append((None, tags[-1]))
        for found in check_pairs(clone, str(entry["docs"]), runs):
            record = {"repository": repository, **found}
            records.append(record)
            pair = f"{record['base']}..{record['head']}" if record["base"] else f"full sweep of {record['head']}"
            if "error" in record:
                print(f"{pair}: not checked ({str(record['error'])[:120]})")
            elif "page" in record and (record["attention"] or not args.quiet):
                if pair != shown_pair:
                    print(pair)
                    shown_pair = pair
                print("\n".join(show(record)))
        row = judge(repository, records, labels)
        sweep = " and a full sweep" if row.sweeps else ""
        print(
            f"{repository}: {row.pairs} pairs{sweep}, {row.failing} failing ({row.real} real, {row.false} false,"
            f" {len(row.unlabeled)} unlabeled), {row.notes} notes, {row.seconds:.1f} s\n",
            flush=True,
        )
        rows.append(row)
        everything.extend(records)
    if args.plan:
        return 0
    print("\n".join(table(rows)))
    unlabeled = [r for row in rows for r in row.unlabeled]
    if unlabeled:
        print(f"\nunlabeled failing reports ({len(unlabeled)}): read each and add a line to {args.labels}")
        for record in unlabeled:
            print(f"  {record['repository']} {record['base']}..{record['head']} {record['page']}:{record['line']}"
                  f"  {record['text']!r}  {record['what']} {record['target']}")  # fmt: skip
    known = {label.repository for label in labels}
    missed = [
        label
        for row in rows
        if row.repository in known
        for label in labels
        if label.repository == row.repository and label.verdict == "real"
        and not any(r.get("attention") and label.matches(r) for r in everything)
    ]  # fmt: skip
    if missed:
        print(f"\nlabeled real breakage that does not fail the check ({len(missed)}):")
        for label in missed:
            print(f"  {label.repository} {label.base}..{label.head} {label.page}:{label.line}  {label.target}"
                  f"  ({label.reason})")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1, default=list))
        print(f"\nevery report written to {args.json}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, nargs="?", help="a clone (without --corpus)")
    parser.add_argument("--wiki-dir", default="docs")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--tags", help="only tags matching this regular expression")
    parser.add_argument("--full", action="store_true", help="also a full sweep of the newest tag")
    parser.add_argument("--json", type=Path, help="write every reference found here too")
    parser.add_argument(
        "--commits", metavar="RANGE", help="instead of releases, every commit of RANGE (v1..v2) against its parent"
    )
    parser.add_argument("--corpus", type=Path, help="the corpus file (bench/human_docs_corpus.json)")
    parser.add_argument("--half", choices=HALVES, help="which half of the corpus to run")
    parser.add_argument("--only", nargs="+", metavar="REPO", help="only these repositories of the half (owner/name)")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"), help="where fetch puts mirrors")
    parser.add_argument(
        "--clones", type=Path, default=Path(tempfile.gettempdir()) / "human_docs", help="where clones are made"
    )
    parser.add_argument("--labels", type=Path, default=Path(__file__).with_name("human_docs_labels.jsonl"))
    parser.add_argument("--quiet", action="store_true", help="print failing reports only, not the notes")
    parser.add_argument(
        "--plan", action="store_true", help="only make the clones and say each repository's pairs; check nothing"
    )
    args = parser.parse_args()
    if args.corpus:
        if not args.half:
            parser.error("--corpus needs --half")
        return corpus(args)
    if args.path is None:
        parser.error("a clone's PATH, or --corpus FILE --half HALF")
    return single(args)


if __name__ == "__main__":
    sys.exit(main())
