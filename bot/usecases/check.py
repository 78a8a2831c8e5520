"""Check: every claim a change can have affected, evaluated at the head, through any source."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from functools import partial

from ..claims.options import SweepOptions
from ..claims.pages import WikiFolderError, require_wiki_folder
from ..claims.results import SweepReport
from ..claims.snapshot import Change, Snapshot
from ..claims.sweep import Sweeper, sidecar_blobs, wiki_reads
from ..ground.reading import read_apart, reading_context
from ..parallel import Forking
from ..source import Source
from ..source.git import GitError, GitRepository, LocalSource
from ..source.memory import MEMORY_FOLDER, GitDirMemory, SweepMemory
from .config import Config, Overrides, read_config
from .init import find_docs
from .loop import off_the_loop, run_inline
from .references import (
    ReferenceRules,
    pages_problem,
    reference_rules,
    unread_pages,
    with_references,
)

_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # SHA-1, or a SHA-256 repository


async def check(
    source: Source,
    head: Snapshot,
    change: Change | None,
    options: SweepOptions,
    *,
    references: bool = True,
    memory: SweepMemory | None = None,
    processes: int = 1,
    rules: ReferenceRules | None = None,
) -> SweepReport:
    """Sweep the wiki at `head` through `change` (every claim, without one), and (unless `references` is False)
    find the references pages make to code that is gone (on the pages `rules` has checked, its baseline's notes).

    The core says what it will read before it runs (the sidecars and the ignore file, then the files the
    loaded wiki cites), the source fetches that in batches, and the sweep runs off the event loop (if any). With a
    `memory`, a diff-aware sweep fetches no sidecar its evidence index shows cannot cite the change, and a full
    sweep no file whose every record its verdict cache answers, nor any page whose reading it keeps; what the check
    learnt is left in it. A large full
    sweep shares its files among `processes` (forked: for a source whose snapshots a child may read, the local ones),
    and with more than one, a full check's pages are read and parsed by a forked child while the wiki is swept.
    """
    index = await memory.index(sidecar_blobs(head, options.wiki_dir)) if memory is not None else None
    await source.fetch(head, wiki_reads(head, options.wiki_dir, change, options, index))
    # the collector paused while the sweep allocates, its files shared among `processes` when it is large
    parallel = Forking(processes)
    sweeper = Sweeper(head, change, options, index=index, parallel=parallel)
    readings = None
    if memory is not None and change is None:
        sweeper.verdicts = await memory.verdicts(sweeper.verdict_context)
        context = reading_context() if references else None
        readings = await memory.readings(context) if context is not None else None
    apart = None
    if references and change is None and processes > 1:  # a source whose snapshots a forked child may read
        unread = unread_pages(head, options, readings)
        await source.fetch(head, unread)
        apart = read_apart(parallel, head, unread)
    try:
        wiki = sweeper.load()
        if change is not None and (deleted := sweeper.deleted_citations(wiki)):
            followed = await source.renames(change, deleted)  # a partial clone looks for renames of what is cited
            if followed is not change:
                sweeper.follow(followed)
                change = followed
        for snapshot, paths in sweeper.reads(wiki):
            await source.fetch(snapshot, paths)
        report = await off_the_loop(partial(sweeper.sweep, wiki))
        if references:
            report = await with_references(source, head, change, options, report, readings, apart, rules)
    finally:
        if apart is not None:
            apart.discard()  # taken by now, unless something failed: then stopped
    if memory is not None and index is not None:
        await memory.keep(index, sweeper.verdicts, readings)
    parallel.keep(sweeper, wiki)  # a one-shot command's process ends soon: not freed here, object by object
    return report


async def check_revisions(
    source: Source,
    head: str | Snapshot | None,
    base: str | None,
    overrides: Overrides | None = None,
    memory: SweepMemory | None = None,
    processes: int = 1,
    recheck_all: bool = False,
) -> SweepReport:
    """The check the command line runs: `head` a commit, a snapshot the caller chose (git's index), or the working
    tree when None, through the change from commit `base` when given, with the repository's settings at the head
    (`.github/wikiwarden.yml`) under the command line's `overrides`. A wiki folder that cannot be the wiki there
    is an error (WikiFolderError), never a wiki with nothing to check; so is a config file or a baseline that
    cannot be used (ConfigError, BaselineError)."""
    head_snapshot = head if head is not None and not isinstance(head, str) else await source.snapshot(head)
    config = await read_config(source, head_snapshot, overrides)
    options = config.sweep_options(recheck_all)
    require_wiki(head_snapshot, config)
    problem = pages_problem(head_snapshot, options.wiki_dir)
    if problem is not None:
        raise WikiFolderError(problem)
    rules = await reference_rules(source, head_snapshot, config)
    change = await source.change(base, head_snapshot) if base is not None else None
    return await check(source, head_snapshot, change, options, memory=memory, processes=processes, rules=rules)


def require_wiki(snapshot: Snapshot, config: Config) -> None:
    """`require_wiki_folder` of the settings' wiki folder; when it is the default one, missing, and nothing named
    it (no settings file, no --wiki-dir), the error says where the docs look to be and to run `wikiwarden init`."""
    try:
        require_wiki_folder(snapshot, config.wiki_dir)
    except WikiFolderError as exc:
        named = config.file is not None or config.overrides.wiki_dir is not None
        found = None if named or snapshot.entry(config.wiki_dir) is not None else find_docs(snapshot)
        if found is None:
            raise
        folder, how = found
        raise WikiFolderError(
            f"the wiki folder {config.wiki_dir}/ does not exist and no .github/wikiwarden.yml names one; the docs "
            f"look to be in {folder}/ ({how}): run `wikiwarden init` to write the settings naming it, or check it "
            f"now with --wiki-dir {folder}"
        ) from exc


def check_repository(
    repo: GitRepository,
    base: str | None = None,
    head: str | None = None,
    options: SweepOptions | None = None,
    *,
    overrides: Overrides | None = None,
    recheck_all: bool = False,
    staged: bool = False,
    memory: SweepMemory | None = None,
    processes: int = 1,
) -> SweepReport:
    """`check_revisions` on a local repository, from synchronous code (the command line, the demo), with the
    sweep's `memory` when given (the command line's: `local_memory`), a large full sweep in `processes`. `options`,
    when given, are the check's own, whatever the config file says (`overrides` override only what they set).

    `staged` checks git's index (what the next commit will hold) instead of the working tree, through the change
    from `base`, else from HEAD: a pre-commit hook blames the commit for what it does, not for claims that were
    already stale. Before the first commit there is no HEAD, and every claim is checked.
    """
    if staged and head is not None:
        raise ValueError("a check reads the index or a commit, not both")
    if staged and base is None and repo.head_commit() is not None:
        base = "HEAD"
    if options is not None:
        overrides = dataclasses.replace(
            overrides or Overrides(), wiki_dir=options.wiki_dir, max_file_bytes=options.max_file_bytes
        )
        recheck_all = options.recheck_all
    checked: str | Snapshot | None = repo.staged() if staged else head
    return run_inline(check_revisions(LocalSource(repo), checked, base, overrides, memory, processes, recheck_all))


async def check_commit(
    repo: GitRepository,
    head: str,
    base: str | None,
    *,
    head_label: str | None = None,
    base_label: str | None = None,
    merge_base: bool = True,
    overrides: Overrides | None = None,
    memory: SweepMemory | None = None,
    processes: int = 1,
    base_missing: Callable[[], None] = lambda: None,
) -> tuple[SweepReport, Config]:
    """The check an event asks of a checkout (the Action's): commit `head` through the change from `base` (a
    commit, or a new branch's base branch as a checkout fetches it, `origin/<branch>`), from where head left it
    (`merge_base`) or tree to tree, with the settings of `head`'s `.github/wikiwarden.yml` under `overrides`; the
    report, and the settings it was checked with.

    A base the checkout does not hold (a force-push's old commit, a branch not fetched) is said through
    `base_missing`, and every claim is checked instead; in a shallow checkout it is a GitError, since the history
    the check needs is what is missing. A wiki folder that is not there is a WikiFolderError; a config file or a
    baseline that cannot be used, a ConfigError or BaselineError."""
    source = LocalSource(repo)
    head_snapshot = await source.snapshot(head, label=head_label)
    config = await read_config(source, head_snapshot, overrides)
    require_wiki(head_snapshot, config)
    found = None
    if base is not None:
        try:
            found = _local_commit(repo, base)
        except GitError:
            if repo.is_shallow():
                raise
            base_missing()
    change = await source.change(found, head_snapshot, merge_base=merge_base, label=base_label) if found else None
    rules = await reference_rules(source, head_snapshot, config)
    report = await check(
        source, head_snapshot, change, config.sweep_options(), memory=memory, processes=processes, rules=rules
    )
    return report, config


def _local_commit(repo: GitRepository, base: str) -> str:
    """The commit `base` names in a checkout: a commit id, or a branch as actions/checkout fetches it
    (`origin/<branch>`), else a local branch."""
    if _SHA.fullmatch(base):
        return repo.resolve(base)
    try:
        return repo.resolve(f"refs/remotes/origin/{base}")
    except GitError:
        return repo.resolve(f"refs/heads/{base}")


def local_memory(repo: GitRepository, warn: Callable[[str], None], key: bytes | None = None) -> GitDirMemory:
    """The sweep's memory of a local repository, in its git directory (shared by its worktrees, never committed);
    its files signed with `key` and used only when they verify under it (`bot.source.memory.cache_key`)."""
    return GitDirMemory(repo.common_dir() / MEMORY_FOLDER, warn, key)
