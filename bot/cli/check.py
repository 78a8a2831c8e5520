"""`wikiwarden check`: the use case's report of the repository, rendered in the format asked for."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..lifetime import outlive
from ..report.wording import plural
from .common import EXIT_ATTENTION, EXIT_OK, UsageError, open_repo, overrides_of, warn, write_bytes

if TYPE_CHECKING:
    from ..claims.results import SweepReport

CACHE_KEY_VARIABLE = "WIKIWARDEN_CACHE_KEY"  # signs .git/wikiwarden/'s files; they are used only when they verify


def run(args: argparse.Namespace) -> int:
    from ..parallel import cyclic_gc_paused, usable_processors  # noqa: PLC0415
    from ..report.check import render, report_json_chunks  # noqa: PLC0415
    from ..source.git import GitError  # noqa: PLC0415
    from ..source.memory import CacheKeyError, cache_key  # noqa: PLC0415
    from ..usecases.check import check_repository, local_memory  # noqa: PLC0415

    if args.staged and args.head is not None:
        raise UsageError("--staged checks the index and --head a commit: give one or the other")
    if args.all and args.base is None and not args.staged:
        raise UsageError("--all only makes sense with --base (or --staged)")
    if args.jobs is not None and args.jobs <= 0:
        raise UsageError("--jobs must be a positive number of processes")
    processes = args.jobs if args.jobs is not None else usable_processors()
    try:  # from the environment, never an argument: a secret on the command line is in every process listing
        key = cache_key(os.environ.get(CACHE_KEY_VARIABLE)) if args.cache else None
    except CacheKeyError as exc:
        raise UsageError(f"{CACHE_KEY_VARIABLE}: {exc}") from None
    # The whole command, not only the sweep: what follows it (the verdict cache kept, the report written) allocates
    # enough for the collector to traverse the sweep's millions of objects, a third of a second at 100k claims,
    # to find no cycle among them.
    with cyclic_gc_paused(), open_repo(args) as repo:
        overrides = overrides_of(args, repo)
        if args.write_baseline is not None:  # the baseline being written is not read: every reference is judged anew
            overrides = dataclasses.replace(overrides, baseline=None, use_baseline=False)
        try:
            memory = local_memory(repo, warn, key) if args.cache else None
            report = check_repository(
                repo,
                args.base,
                args.head,
                overrides=overrides,
                recheck_all=args.all,
                staged=args.staged,
                memory=memory,
                processes=processes,
            )
        except GitError as exc:
            raise UsageError(str(exc)) from exc
        outlive(report)  # freed at the process's end (`run`), not when this returns
        if args.write_baseline is not None:
            return _write_baseline(args.write_baseline, report)
        if args.format == "json":
            write_bytes(report_json_chunks(report, attention_only=bool(args.attention_only)))
        else:
            sys.stdout.write(render(report, args.format, verbose=args.verbose, attention_only=args.attention_only))
            if args.format == "text":
                sys.stdout.write(_next_steps(args, report))
    return EXIT_ATTENTION if report.needs_attention else EXIT_OK


def _next_steps(args: argparse.Namespace, report: SweepReport) -> str:
    """What to do, after a text report that needs attention: the commands with this check's own options."""
    from ..report.nextsteps import next_steps  # noqa: PLC0415

    given = [("--repo", args.repo if args.repo != "." else None), ("--wiki-dir", args.wiki_dir)]
    given.append(("--max-file-size", str(args.max_file_size) if args.max_file_size is not None else None))
    options = [word for flag, value in given if value is not None for word in (flag, value)]
    base = args.base if args.base is not None else "HEAD" if args.staged and report.base is not None else None
    lines = next_steps(report, options, base)
    return "\n" + "\n".join(lines) + "\n" if lines else ""


def _write_baseline(path: str, report: SweepReport) -> int:
    """`check --write-baseline`: the references that fail the check, written to `path`; the exit status is the
    claims' alone (the references written no longer fail)."""
    from ..ground.baseline import render_baseline  # noqa: PLC0415

    failing = [ref for ref in report.broken_references if ref.attention]
    Path(path).write_bytes(render_baseline(failing))
    print(f"wrote {path}: {plural(len(failing), 'broken reference')} (name it as `baseline` in .github/wikiwarden.yml)")
    attention = report.summary["page_errors"] or any(
        report.summary[verdict] for verdict in ("stale", "unresolved", "error")
    )
    return EXIT_ATTENTION if attention else EXIT_OK
