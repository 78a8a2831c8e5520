"""Fix: from a check's findings to the files of the fixed wiki, through any source and any decider.

The preparation (which pages have work, their text and sidecars, what the agent may read) and the fix
itself are written once here; the command line writes the files to the working tree, the App publishes
them as a pull request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from ..claims.results import SweepReport
from ..claims.snapshot import Change, Kind, Snapshot
from ..claims.sweep import Sweeper, SweepOptions
from ..fix.engine import LAST_UPDATE, Decider, FixResult, fix_wiki
from ..fix.view import CodeView, search_scope
from ..fix.work import PageWork, pages_with_work, plan_work
from ..okf.project import ACTOR
from ..source import Source
from ..source.git import GitRepository, LocalSource
from ..source.localwiki import LocalWiki
from .check import check


@dataclass
class FixInputs:
    """What a fix works from: the check's report, the pages with work, the code the agent may read, and the
    wiki's previous `.last-update.json`."""

    report: SweepReport
    work: list[PageWork]
    view: CodeView
    previous_last_update: bytes | None
    change: Change | None


async def prepare_fix(
    source: Source, head: Snapshot, change: Change | None, options: SweepOptions, cap: int
) -> FixInputs:
    """Check, then read what the fix needs: every page with work (at most `cap` claims to decide)."""
    report = await check(source, head, change, options)
    last_path = f"{options.wiki_dir}/{LAST_UPDATE}"
    pages = pages_with_work(report)
    await source.fetch(head, [path for page in pages for path in (page.page, page.sidecar)] + [last_path])
    work = plan_work(report, head.read, cap)
    scope = search_scope(source.files(head), change.paths if change else (), work)

    async def fetch(paths: Sequence[str]) -> None:
        await source.fetch(head, paths)

    view = CodeView(Sweeper(head, None, options), scope, fetch)
    last = head.entry(last_path)
    previous = head.read(last_path) if last is not None and last.kind is Kind.FILE else None
    return FixInputs(report, work, view, previous, change)


async def run_fix(
    inputs: FixInputs, decider: Decider | None, *, wiki_dir: str, cap: int, at: str, head_commit: str
) -> FixResult:
    """Decide and apply: the files to write (only what changes), and what happened to every claim."""
    return await fix_wiki(
        inputs.work, inputs.view, decider, wiki_dir=wiki_dir, actor=ACTOR, at=at, head=head_commit,
        previous_last_update=inputs.previous_last_update, cap=cap,
    )  # fmt: skip


def now_iso() -> str:
    """The moment, as OpenWiki writes it (`new Date().toISOString()`)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def fix_working_tree(
    repo: GitRepository,
    *,
    base: str | None,
    options: SweepOptions,
    decider: Decider | None,
    cap: int = 50,
    dry_run: bool = False,
) -> tuple[FixResult, list[str]]:
    """`wikiwarden fix`: fix the working tree's wiki in place; the result and the files written (or that would
    be, with `dry_run`)."""
    source = LocalSource(repo)
    head = await source.snapshot(None)
    change = await source.change(base, head) if base is not None else None
    inputs = await prepare_fix(source, head, change, options, cap)
    result = await run_fix(
        inputs, decider, wiki_dir=options.wiki_dir, cap=cap, at=now_iso(), head_commit=repo.resolve("HEAD")
    )
    written = sorted(result.files)
    if not dry_run:
        local = LocalWiki(repo.root, options.wiki_dir)
        for path in written:
            local.write_file(path, result.files[path])
    return result, written
