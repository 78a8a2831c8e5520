"""Fix: from a check's findings to the files of the fixed wiki, through any source and any decider.

The preparation (which pages have work, their text and sidecars, what the agent may read) and the fix
itself are written once here; the command line writes the files to the working tree, the App publishes
them as a pull request.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from ..claims.options import SweepOptions
from ..claims.pages import require_wiki_folder
from ..claims.results import SweepReport
from ..claims.snapshot import Change, Kind, Snapshot
from ..claims.sweep import SnapshotReader
from ..fix.engine import LAST_UPDATE, Decider, FixResult, fix_wiki, recorded_head, rewrite_references
from ..fix.view import CodeView, search_scope
from ..fix.work import PageWork, page_errors, pages_with_work, plan_work
from ..ground.formats import code_blocks
from ..okf.index import INDEX
from ..okf.project import ACTOR
from ..source import Source
from ..source.git import SHALLOW_HISTORY, GitError, GitRepository, LocalSource
from ..source.localwiki import LocalWiki
from ..source.memory import SweepMemory
from .check import check
from .config import Config
from .references import ReferenceRules, reference_rules
from .site import is_okf_wiki


@dataclass
class FixInputs:
    """What a fix works from: the check's report, the pages with work, the code the agent may read, the
    wiki's previous `.last-update.json`, and how far back the check looked (`checked_since`: the commit its
    change started at, None when it checked every claim)."""

    report: SweepReport
    work: list[PageWork]
    view: CodeView
    previous_last_update: bytes | None
    change: Change | None
    checked_since: str | None = None
    read: Callable[[str], bytes] | None = None  # the head's files the preparation fetched (broken references' pages)
    # OpenWiki's wiki (or one `okf sync --init` made OKF): pages without front matter get OKF's; a person's docs
    # site keeps its pages' front matter as they wrote it (none stays none), as `okf sync` leaves it
    okf_wiki: bool = True

    @property
    def has_work(self) -> bool:
        """Claims to re-anchor, decide or report, or broken references to rewrite or report."""
        return bool(self.work or any(ref.attention for ref in self.report.broken_references))


async def prepare_fix(
    source: Source,
    head: Snapshot,
    change: Change | None,
    options: SweepOptions,
    cap: int,
    memory: SweepMemory | None = None,
    rules: ReferenceRules | None = None,
) -> FixInputs:
    """Check (with the sweep's `memory`, when given; the references under `rules`), then read what the fix
    needs: every page with work (at most `cap` claims to decide; every claim that needs attention when
    `options.recheck_all`, only those the change made stale otherwise), and every page with a broken reference."""
    report = await check(source, head, change, options, memory=memory, rules=rules)
    last_path = f"{options.wiki_dir}/{LAST_UPDATE}"
    pages = pages_with_work(report)
    named = sorted({ref.page for ref in report.broken_references if ref.attention})
    root_index = f"{options.wiki_dir}/{INDEX}"
    await source.fetch(
        head, [path for page in pages for path in (page.page, page.sidecar)] + named + [last_path, root_index]
    )
    work = plan_work(report, head.read, cap, decide_all=options.recheck_all)
    scope = search_scope(source.files(head), change.paths if change else (), work)

    async def fetch(paths: Sequence[str]) -> None:
        await source.fetch(head, paths)

    view = CodeView(SnapshotReader(head, options), scope, fetch)
    last = head.entry(last_path)
    previous = head.read(last_path) if last is not None and last.kind is Kind.FILE else None
    checked_since = None if change is None or options.recheck_all else (change.base.commit or change.base.label)
    okf_wiki = await is_okf_wiki(source, head, options.wiki_dir)
    return FixInputs(report, work, view, previous, change, checked_since, head.read, okf_wiki)


async def run_fix(
    inputs: FixInputs, decider: Decider | None, *, wiki_dir: str, cap: int, at: str, head_commit: str
) -> FixResult:
    """Decide and apply: the files to write (only what changes), what happened to every claim, and to every
    broken reference (the renamed ones' mentions rewritten, without a model)."""
    result = await fix_wiki(
        inputs.work, inputs.view, decider, wiki_dir=wiki_dir, actor=ACTOR, at=at, head=head_commit,
        previous_last_update=inputs.previous_last_update, cap=cap, checked_since=inputs.checked_since,
        unreadable_pages=page_errors(inputs.report), okf_wiki=inputs.okf_wiki, code_blocks=page_code_blocks,
    )  # fmt: skip
    refs = inputs.report.broken_references
    if inputs.read is not None and any(ref.attention for ref in refs):
        sidecars = {page.page: page.sidecar for page in inputs.report.pages if page.error is None}
        rewrite_references(result, refs, inputs.read, sidecars, actor=ACTOR, at=at)
    return result


def page_code_blocks(page: str, text: str) -> list[tuple[int, str]]:
    """A page's code blocks (page line of the first line of code, text): what a stale snippet claim's block is
    found among."""
    return [(block.line, block.text) for block in code_blocks(page, text)]


def now_iso() -> str:
    """The moment, as OpenWiki writes it (`new Date().toISOString()`); `SOURCE_DATE_EPOCH` (the reproducible-builds
    convention) fixes it, so the same commit and the same answers give the same files, stamps included."""
    fixed = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    moment = datetime.fromtimestamp(int(fixed), UTC) if fixed.isdigit() else datetime.now(UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class RecordedBase:
    """The base a fix without `--base` takes, and what its report says about it."""

    commit: str | None
    note: str


def recorded_base(repo: GitRepository, wiki_dir: str) -> RecordedBase:
    """The commit OpenWiki's `.last-update.json` says the wiki was last brought up to date with, when this clone
    has it: the change since then is what can have moved, renamed or reformatted the evidence."""
    path = f"{wiki_dir}/{LAST_UPDATE}"
    snapshot = repo.worktree()
    entry = snapshot.entry(path)
    recorded = recorded_head(snapshot.read(path)) if entry is not None and entry.kind is Kind.FILE else None
    blind = (
        "so every claim is checked against its stored version alone, and evidence that moved to another file, "
        "was renamed or changed only its line endings shows as stale: pass --base REV, the commit the wiki was "
        "last up to date with"
    )
    if recorded is None:
        return RecordedBase(None, f"No base: {path} names no commit, {blind}.")
    try:
        commit = repo.resolve(recorded)
    except GitError:
        missing = SHALLOW_HISTORY if repo.is_shallow() else "this clone does not have it"
        return RecordedBase(None, f"No base: {path} names commit {recorded[:12]}, but {missing}; {blind}.")
    return RecordedBase(
        commit,
        f"Base: {commit[:12]}, the commit {path} says the wiki was last brought up to date with; moves, renames "
        "and line-ending changes since then are followed.",
    )


async def fix_working_tree(
    repo: GitRepository,
    *,
    base: str | None,
    options: SweepOptions,
    decider: Decider | None,
    cap: int = 50,
    dry_run: bool = False,
    config: Config | None = None,
) -> tuple[FixResult, list[str]]:
    """`wikiwarden fix`: fix the working tree's wiki in place; the result and the files written (or that would
    be, with `dry_run`). With `options.recheck_all`, every claim that needs attention is decided, the evidence
    followed through the change from `base`; otherwise only what that change made stale. References are checked
    under the repository's `config` (pages excluded, its baseline), as `check` does. Unless `dry_run`, from the
    first read of the wiki to the last write under the wiki's lock: a `claim add` meanwhile waits, and is kept."""
    local = LocalWiki(repo.root, options.wiki_dir)
    with contextlib.nullcontext() if dry_run else local.writing():
        source = LocalSource(repo)
        head = await source.snapshot(None)
        require_wiki_folder(head, options.wiki_dir)
        rules = await reference_rules(source, head, config) if config is not None else None
        change = await source.change(base, head) if base is not None else None
        inputs = await prepare_fix(source, head, change, options, cap, rules=rules)
        result = await run_fix(
            inputs, decider, wiki_dir=options.wiki_dir, cap=cap, at=now_iso(), head_commit=repo.resolve("HEAD")
        )
        written = sorted(result.files)
        if not dry_run:
            for path in written:
                local.write_file(path, result.files[path])
    return result, written
