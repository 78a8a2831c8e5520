"""Code blocks copied from the source, on real docs: how many blocks are found as copies, a sample to judge by
reading, how many went stale across the release history, and what `fix` would have written; and the time to find
them (one repository's docs folder, and bench/sweep.py's 1,000-page wiki).

    python bench/snippets.py PATH... [--docs docs] [--pairs 10] [--sample 40] [--show 5] [--wiki]

PATH is a clone of a repository nobody here wrote, read from git objects (its working tree is not touched). For
each, at its newest release tag: the docs folder's code blocks (Markdown, MDX, reStructuredText) and the copies
found among them. Then, for each pair of consecutive release tags (the last `--pairs`), the copies found at the
older tag are followed into the newer one as a check with that base would follow them (through the diff, a renamed
file followed): fresh, moved, cosmetic, stale, unresolved; a stale copy whose page still shows the old block is one
the docs left behind, and for those the block `fix` would write is printed (the first `--show` of each pair).
`--sample N` prints N copies drawn at random (seeded) across the repositories: block and source side by side, to be
judged by reading. `--wiki` also times finding on bench/sweep.py's 1,000-page wiki (its pages as built, and with
three blocks a page, two of them copied from its sources).
"""

from __future__ import annotations

import argparse
import difflib
import itertools
import random
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.claims.resources import parse_resource
from bot.claims.snippet import snippet_resource
from bot.claims.text import FileText
from bot.claims.track import ChangedFile, track
from bot.claims.verdicts import Verdict
from bot.claims.versions import lines_version
from bot.fix.snippets import parts_of, render_block, rewritable
from bot.ground.formats import PAGE_SUFFIXES, code_blocks
from bot.ground.snippets import Copy, SnippetIndex, block_lines, copies
from bot.usecases.snippets import snippet_sources

ORDER = [Verdict.FRESH, Verdict.MOVED, Verdict.COSMETIC, Verdict.STALE, Verdict.UNRESOLVED, Verdict.ERROR]
RELEASE = re.compile(r"v?\d+(?:\.\d+)+")  # 1.2.3, v1.2.3: no pre-releases


def git(path: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(path), *args], capture_output=True, check=True).stdout


def release_tags(path: Path) -> list[str]:
    """Release tags oldest first, by version (`v0.1.16` before `0.141.1`, whatever git's sort makes of the `v`)."""
    tags = [t for t in git(path, "tag").decode().split() if RELEASE.fullmatch(t)]
    return sorted(tags, key=lambda t: tuple(int(n) for n in t.lstrip("v").split(".")))


def tree_at(path: Path, rev: str) -> dict[str, bytes]:
    """Every regular file of `rev` (up to 1 MiB), read through one `git cat-file --batch`."""
    listing = git(path, "ls-tree", "-r", "-z", "--long", rev).split(b"\0")
    wanted: list[tuple[str, str]] = []
    for entry in filter(None, listing):
        meta, name = entry.split(b"\t", 1)
        mode, kind, oid, size = meta.split()
        if kind == b"blob" and mode in (b"100644", b"100755") and size != b"-" and int(size) <= 1 << 20:
            wanted.append((name.decode("utf-8", "replace"), oid.decode()))
    batch = subprocess.run(
        ["git", "-C", str(path), "cat-file", "--batch"],
        input="".join(f"{oid}\n" for _, oid in wanted).encode(), capture_output=True, check=True,
    ).stdout  # fmt: skip
    files: dict[str, bytes] = {}
    at = 0
    for name, _ in wanted:
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        files[name] = batch[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1
    return files


def renames(path: Path, old: str, new: str) -> dict[str, str]:
    out = git(path, "diff", "-M", "--name-status", "-z", old, new).split(b"\0")
    found: dict[str, str] = {}
    items = iter(filter(None, out))
    for status in items:
        if status.startswith(b"R"):
            found[next(items).decode()] = next(items).decode()
        else:
            next(items)
    return found


@dataclass
class Found:
    blocks: int = 0
    copies: list[tuple[str, Copy]] = field(default_factory=list)
    parse_s: float = 0.0  # reading the pages' code blocks (the parse grounding and the check make anyway)
    index_s: float = 0.0
    find_s: float = 0.0
    pages: int = 0
    sources: int = 0


def find_all(files: dict[str, bytes], docs: str) -> Found:
    """The copies among the docs folder's code blocks, timed: the index, then every page."""
    found = Found()
    started = time.perf_counter()
    texts = {
        page: files[page].decode("utf-8", "replace")
        for page in sorted(files)
        if page.startswith(docs + "/") and page.lower().endswith(PAGE_SUFFIXES)
    }
    blocks = [block for page, text in texts.items() for block in code_blocks(page, text)]
    found.parse_s = time.perf_counter() - started
    started = time.perf_counter()
    sources = snippet_sources(p for p in files if not p.startswith(docs + "/"))
    index = SnippetIndex({p: files[p] for p in sources}, block_lines(blocks))
    found.index_s = time.perf_counter() - started
    found.sources = index.sources
    started = time.perf_counter()
    for page, text in texts.items():  # the pages' blocks again, from the parser's cache: the time is matching
        found.pages += 1
        found.blocks += len(code_blocks(page, text))
        found.copies.extend((page, copy) for copy in copies(page, text, index))
    found.find_s = time.perf_counter() - started
    return found


@dataclass
class History:
    followed: dict[str, int] = field(default_factory=dict)
    left_behind: int = 0  # stale, and the page at the newer tag still shows the old block
    updated_by_hand: int = 0  # stale, and the page at the newer tag shows the new code (a person kept it up)
    diverged: int = 0  # stale, and the page's block changed too, but shows neither the old code nor the new
    for_a_person: int = 0  # left behind, but its lines hold other text now: fix does not rewrite it
    shown: list[str] = field(default_factory=list)


def follow(path: Path, old: str, new: str, found: Found, history: History, show: int) -> None:
    """Each copy found at `old` followed into `new` through the diff, as a check with base `old` would."""
    old_files, new_files = tree_at(path, old), tree_at(path, new)
    moved = renames(path, old, new)
    shown = 0
    for page, copy in found.copies:
        if not copy.matches:
            continue
        old_text = FileText(old_files[copy.path])
        now_path = moved.get(copy.path, copy.path)
        new_data = new_files.get(now_path)
        verdicts = []
        texts = []
        unlike = False  # some part's new text is not its old code changed: fix leaves the block for a person
        for a, b in copy.ranges:
            resource = snippet_resource(copy.path, a, b)
            version = lines_version(old_text, a - 1, b)
            changed = ChangedFile(now_path if new_data is not None else None, old_text, FileText(new_data or b""))
            if new_data is None:
                changed = ChangedFile(None, old_text, None)
            tracked = track(parse_resource(resource), version, changed)
            verdicts.append(tracked.verdict)
            texts.append(tracked.new_text if tracked.verdict is Verdict.STALE else old_text.join(a - 1, b).decode())
            if tracked.verdict is Verdict.STALE and not rewritable(tracked.old_text or "", tracked.new_text or ""):
                unlike = True
        worst = max(verdicts, key=ORDER.index)
        history.followed[worst.value] = history.followed.get(worst.value, 0) + 1
        if worst is not Verdict.STALE:
            continue
        page_now = new_files.get(page, b"").decode("utf-8", "replace")
        blocks_now = {block.text for block in code_blocks(page, page_now)}  # an rst page indents its blocks
        new_block = render_block(copy.block.text, parts_of(copy.block.text), copy.shifts, [str(t) for t in texts])
        if copy.block.text not in blocks_now:
            if new_block in blocks_now:
                history.updated_by_hand += 1  # a person rewrote the block as fix would have
            else:
                history.diverged += 1  # the page's block changed too, and does not show the new code either
            continue
        history.left_behind += 1
        if unlike:
            history.for_a_person += 1
            history.shown.append(
                f"--- {page}:{copy.block.line} ({old}): left for a person, its lines hold other text now"
            )
            continue
        if shown < show:
            shown += 1
            diff = difflib.unified_diff(
                copy.block.text.split("\n"), new_block.split("\n"), f"{page}:{copy.block.line} ({old})",
                f"as fix would write it ({now_path} at {new})", lineterm="", n=1,
            )  # fmt: skip
            history.shown.append("\n".join(diff))


def sample_line(page: str, copy: Copy, files: dict[str, bytes]) -> str:
    lines = files[copy.path].decode("utf-8", "replace").split("\n")
    spans = ", ".join(f"{a}-{b}" for a, b in copy.ranges)
    block = copy.block.text.split("\n")
    source = lines[copy.ranges[0][0] - 1 : copy.ranges[0][0] - 1 + min(4, len(block))]
    marked = "" if copy.matches else "  [marker: does not match yet]"
    return (
        f"--- {page}:{copy.block.line} = {copy.path} lines {spans}{marked} ({len(block)} block lines)\n"
        + "\n".join(f"  block | {line}" for line in block[:4])
        + "\n"
        + "\n".join(f"  code  | {line}" for line in source)
    )


def wiki_timing() -> None:
    """Finding on bench/sweep.py's 1,000-page wiki: its pages as built, then with three blocks a page."""
    from bench.sweep import build

    tree = build(100_000, 10_000)
    for label, pages in (("as built", tree), ("3 blocks a page", with_blocks(tree))):
        found = find_all(pages, "openwiki")
        print(
            f"bench/sweep.py wiki ({label}): {found.pages:,} pages, {found.sources:,} source files; reading the "
            f"blocks {found.parse_s:.2f} s, index {found.index_s:.2f} s, matching {found.find_s:.2f} s; "
            f"{found.blocks:,} blocks, {len(found.copies):,} copies found"
        )


def with_blocks(tree: dict[str, bytes]) -> dict[str, bytes]:
    """Each page with two blocks copied from a source file (a function's first three lines, an elision, its
    return) and one block of code found nowhere."""
    rng = random.Random(3)
    sources = sorted(p for p in tree if p.startswith("src/"))
    out = dict(tree)
    for page in (p for p in tree if p.endswith(".md")):
        blocks = []
        for _ in range(2):
            lines = tree[rng.choice(sources)].decode().split("\n")
            start = next(i for i in range(rng.randrange(4, 60), len(lines)) if lines[i].startswith("def "))
            end = next(i for i in range(start, len(lines)) if lines[i] == "    return total")
            blocks.append("\n".join([*lines[start : start + 3], "    ...", lines[end]]))
        blocks.append(f"result = compute({rng.randrange(10**6)})\nprint(result)\nassert result > 0")
        out[page] = tree[page] + "".join(f"\n```python\n{b}\n```\n" for b in blocks).encode()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", type=Path, nargs="*")
    parser.add_argument("--docs", default="docs")
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--show", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--wiki", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="a line for every pair of releases, not only changes")
    args = parser.parse_args()
    everything: list[tuple[str, Copy, dict[str, bytes]]] = []
    totals = History()
    for path in args.paths:
        tags = release_tags(path)
        head = tags[-1] if tags else "HEAD"
        files = tree_at(path, head)
        found = find_all(files, args.docs)
        marked = sum(1 for _, c in found.copies if not c.matches)
        elided = sum(1 for _, c in found.copies if len(c.ranges) > 1)
        print(
            f"{path.name} {head}: {found.pages} pages, {found.blocks} code blocks, {len(found.copies)} copies "
            f"({elided} with elisions, {marked} marked not matching) of {found.sources} source files; "
            f"reading the pages' blocks {found.parse_s:.2f} s, index {found.index_s:.2f} s, "
            f"matching {found.find_s:.2f} s"
        )
        everything.extend((f"{path.name}/{page}", copy, files) for page, copy in found.copies)
        history = History()
        for old, new in itertools.pairwise(tags[-(args.pairs + 1) :]):
            old_found = find_all(tree_at(path, old), args.docs)
            before = (history.left_behind, history.updated_by_hand, history.diverged)
            follow(path, old, new, old_found, history, args.show)
            after = (history.left_behind, history.updated_by_hand, history.diverged)
            if after != before or args.verbose:
                left, kept, apart = (a - b for a, b in zip(after, before, strict=True))
                print(
                    f"  {old}..{new}: {len(old_found.copies)} copies at {old}; stale and left behind {left}, "
                    f"kept up by hand {kept}, changed apart {apart}"
                )
        print(
            f"  {len(tags[-(args.pairs + 1) :]) - 1} pairs; copies followed: {dict(sorted(history.followed.items()))}"
        )
        for shown in history.shown:
            print("\n".join("    " + line for line in shown.split("\n")))
        for key, value in history.followed.items():
            totals.followed[key] = totals.followed.get(key, 0) + value
        totals.left_behind += history.left_behind
        totals.updated_by_hand += history.updated_by_hand
        totals.diverged += history.diverged
        totals.for_a_person += history.for_a_person
    if args.paths:
        print(
            f"all: {len(everything)} copies at the newest tags; across the pairs followed "
            f"{dict(sorted(totals.followed.items()))}; stale copies the docs left behind {totals.left_behind}, "
            f"kept up by hand {totals.updated_by_hand}, changed apart {totals.diverged}; of those left behind, "
            f"{totals.for_a_person} not rewritten by fix (other text in the code's place)"
        )
    if args.sample and everything:
        rng = random.Random(args.seed)
        picked = rng.sample(everything, min(args.sample, len(everything)))
        print(f"\nA sample of {len(picked)} copies to judge by reading:")
        for page, copy, files in picked:
            print(sample_line(page, copy, files))
    if args.wiki:
        wiki_timing()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
