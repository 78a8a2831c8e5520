"""How much of a real grounded wiki's evidence the deterministic candidates find again, with no model: the openwiki
repository's own wiki (31 pages, 345 claims, 461 evidence records at a525ed88) with its sidecars removed.

    python bench/ground_candidates.py                          # the local mirror of langchain-ai/openwiki
    python bench/ground_candidates.py --repo ~/src/openwiki    # any clone of it holding the commit
    python bench/ground_candidates.py --verbose                # also every evidence record the candidates miss

The commit is exported (git archive) into a temporary folder, every sidecar of `openwiki/.claims/` is read and
then deleted, and the pages are prepared exactly as `wikiwarden ground --dry-run` prepares them (the use case's
`prepare_ground`: the symbol index over the code files it may cite, each page's references and candidates).
Then, over the original evidence:

- files: the (page, file) pairs the evidence cites with a candidate of the page in the same file;
- spans: the evidence records with a candidate of the page whose lines overlap theirs (a whole-file record is
  found by any candidate in its file; a whole-file candidate finds no span);
- candidates per page (median, max), and the time the preparation took.

Targets (issue 11): >= 80% of files, >= 60% of spans, a median of <= 30 candidates per page. Nothing is asserted:
the figures are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.claims.options import SweepOptions  # noqa: E402
from bot.claims.pages import page_for  # noqa: E402
from bot.claims.resources import EvidenceResource, parse_resource  # noqa: E402
from bot.claims.sidecar import parse_sidecar  # noqa: E402
from bot.ground.candidates import MAX_CANDIDATES  # noqa: E402
from bot.source.git import GitRepository  # noqa: E402
from bot.usecases.ground import ground_working_tree  # noqa: E402

MIRROR = Path("/work/.mirror/langchain-ai+openwiki/repo")
COMMIT = "a525ed88"
WIKI = "openwiki"
UPSTREAM = "https://github.com/langchain-ai/openwiki"


@dataclass
class PageScore:
    page: str
    evidence: list[EvidenceResource]
    candidates: list[EvidenceResource] = field(default_factory=list)

    def in_file(self, path: str) -> list[EvidenceResource]:
        return [c for c in self.candidates if c.path == path]

    def finds_file(self, path: str) -> bool:
        return bool(self.in_file(path))

    def finds_span(self, record: EvidenceResource) -> bool:
        return any(overlap(c, record) for c in self.candidates)


def overlap(candidate: EvidenceResource, record: EvidenceResource) -> bool:
    """Whether a candidate finds a record: in its file, with lines overlapping (a whole-file record: any candidate
    in its file; a whole-file candidate finds no span)."""
    if candidate.path != record.path:
        return False
    if record.start is None or record.end is None:
        return True
    if candidate.start is None or candidate.end is None:
        return False
    return candidate.start <= record.end and record.start <= candidate.end


def export(repo: Path, commit: str, into: Path) -> list[str]:
    """The commit's tree as plain files (no history, no working-tree leftovers) under a fresh git repository, as
    `git archive` would write it, but blob by blob: a mirror may lack its largest blobs (images, archives), which
    no page cites as code. Returns the paths whose blobs are absent."""
    listing = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "-z", "--full-tree", commit], check=True, capture_output=True
    ).stdout
    entries = []
    for line in listing.split(b"\0"):
        if line:
            meta, _, path = line.partition(b"\t")
            mode, kind, blob = meta.split()
            if kind == b"blob":
                entries.append((mode.decode(), blob.decode(), path.decode()))
    batch = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        input="".join(f"{blob}\n" for _, blob, _ in entries).encode(),
        check=True,
        capture_output=True,
    ).stdout
    absent, at = [], 0
    for mode, _, path in entries:
        header_end = batch.index(b"\n", at)
        header = batch[at:header_end].split()
        at = header_end + 1
        if header[-1] == b"missing":
            absent.append(path)
            continue
        size = int(header[2])
        data, at = batch[at : at + size], at + size + 1
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            target.symlink_to(data.decode())
        else:
            target.write_bytes(data)
            if mode == "100755":
                target.chmod(0o755)
    subprocess.run(["git", "init", "-q", str(into)], check=True)
    return absent


def take_sidecars(root: Path) -> dict[str, list[EvidenceResource]]:
    """Every page's original evidence, read from its sidecar; the sidecars are then deleted, and so is each
    page's `sources` front matter field, which OpenWiki projects from the same claims (the evidence files)."""
    claims_dir = root / WIKI / ".claims"
    evidence: dict[str, list[EvidenceResource]] = {}
    for path in sorted(claims_dir.rglob("*.json")):
        relative = path.relative_to(root).as_posix()
        sidecar = parse_sidecar(path.read_bytes(), relative)
        records = [parse_resource(e.resource) for claim in sidecar.claims for e in claim.evidence]
        page = page_for(relative, WIKI)
        evidence[page] = records
        path.unlink()
        (root / page).write_text(without_sources((root / page).read_text(encoding="utf-8")), encoding="utf-8")
    return evidence


def without_sources(text: str) -> str:
    """The page with no `sources` field in its front matter (the field's line and its indented continuation)."""
    lines = text.split("\n")
    if not lines or lines[0] != "---" or "---" not in lines[1:]:
        return text
    end = lines.index("---", 1)
    kept, dropping = [], False
    for line in lines[1:end]:
        if line.startswith("sources:"):
            dropping = True
            continue
        if dropping and line[:1] in (" ", "\t"):
            continue
        dropping = False
        kept.append(line)
    return "\n".join([lines[0], *kept, *lines[end:]])


def percent(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100 * part / whole:.1f}%" if whole else "0/0"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=MIRROR, help=f"a clone of {UPSTREAM} (default: {MIRROR})")
    parser.add_argument("--commit", default=COMMIT, help=f"the commit whose wiki is measured (default: {COMMIT})")
    parser.add_argument("--verbose", action="store_true", help="list every evidence record no candidate finds")
    args = parser.parse_args()

    probe = ["git", "-C", str(args.repo), "cat-file", "-e", f"{args.commit}^{{commit}}"]
    if subprocess.run(probe, check=False, capture_output=True).returncode != 0:
        print(
            f"No commit {args.commit} in {args.repo}. Clone the openwiki repository and point at it:\n"
            f"    git clone {UPSTREAM} /tmp/openwiki && python bench/ground_candidates.py --repo /tmp/openwiki",
            file=sys.stderr,
        )
        return 2

    with tempfile.TemporaryDirectory(prefix="ground-bench-") as folder:
        root = Path(folder)
        absent = export(args.repo, args.commit, root)
        evidence = take_sidecars(root)
        started = time.perf_counter()
        inputs, _, _ = asyncio.run(
            ground_working_tree(
                GitRepository(root), options=SweepOptions(wiki_dir=WIKI), grounder=None, pages=sorted(evidence)
            )
        )
        elapsed = time.perf_counter() - started

    pages = {page: PageScore(page, records) for page, records in evidence.items()}
    for work in inputs.work:
        if work.problem:
            print(f"{work.page}: {work.problem}", file=sys.stderr)
        pages[work.page].candidates = [parse_resource(c.resource) for c in work.candidates]

    files = [(score, path) for score in pages.values() for path in sorted({r.path for r in score.evidence})]
    records = [(score, record) for score in pages.values() for record in score.evidence]
    files_found = sum(score.finds_file(path) for score, path in files)
    spans_found = sum(score.finds_span(record) for score, record in records)
    per_page = [len(score.candidates) for score in pages.values()]
    proposed = [(score, c) for score in pages.values() for c in score.candidates]
    useful = sum(any(overlap(c, r) for r in score.evidence) for score, c in proposed)
    in_found_files = sum(score.finds_file(r.path) and not score.finds_span(r) for score, r in records)
    print(
        f"openwiki {args.commit}: {len(pages)} pages, {len(records)} evidence records, {len(inputs.index)} definitions"
    )
    print(f"files recovered:      {percent(files_found, len(files))}   (target >= 80%)")
    print(f"spans recovered:      {percent(spans_found, len(records))}   (target >= 60%)")
    print(f"candidates per page:  median {statistics.median(per_page):g}, max {max(per_page)}   (target median <= 30)")
    print(f"pages at the limit:   {sum(n >= MAX_CANDIDATES for n in per_page)} of {len(per_page)} ({MAX_CANDIDATES})")
    print(f"candidates on target: {percent(useful, len(proposed))} (overlapping an original evidence span)")
    missed = len(records) - spans_found
    print(
        f"spans missed:         {missed}, of which {in_found_files} in a file found and {missed - in_found_files} not"
    )
    print(f"references per page:  median {statistics.median(len(w.references) for w in inputs.work):g}")
    if absent:
        print(f"absent from {args.repo}: {len(absent)} blobs ({', '.join(absent[:3])}{', ...' * (len(absent) > 3)})")
    print(f"time:                 {elapsed:.2f} s (prepare: index, references, candidates of every page)")

    if args.verbose:
        missed_files = Counter(path for score, path in files if not score.finds_file(path))
        print("\nfiles cited but never a candidate of the citing page (pages citing them):")
        for path, count in missed_files.most_common():
            print(f"  {count:3}  {path}")
        print("\nspans missed, by page:")
        for score in pages.values():
            missed = [r for r in score.evidence if not score.finds_span(r)]
            if missed:
                print(f"  {score.page}: {len(missed)} of {len(score.evidence)} missed")
                for record in missed:
                    near = ", ".join(f"L{c.start}-L{c.end}" for c in score.in_file(record.path))
                    print(f"      {record.canonical}   [{near or 'no candidate in the file'}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
