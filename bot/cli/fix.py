"""`wikiwarden fix`: the fix use case on the working tree, with the model if there is one; what it did, said."""

from __future__ import annotations

import argparse
import sys

from ..claims.options import SweepOptions
from .common import EXIT_ATTENTION, EXIT_OK, UsageError, open_repo, overrides_of
from .model import with_agent


def run(args: argparse.Namespace) -> int:
    from ..report.fix import render_text  # noqa: PLC0415
    from ..usecases.fix import fix_working_tree, recorded_base  # noqa: PLC0415

    if args.max_claims <= 0:
        raise UsageError("--max-claims must be at least 1")
    from ..usecases.config import read_local_config  # noqa: PLC0415

    repo = open_repo(args)
    with repo:
        config = read_local_config(repo, overrides_of(args, repo))
        options = config.sweep_options()
        base, note = args.base, None
        if base is None:  # every claim that needs attention, followed through the change OpenWiki last saw
            recorded = recorded_base(repo, options.wiki_dir)
            base, note = recorded.commit, recorded.note
            options = SweepOptions(options.wiki_dir, options.max_file_bytes, recheck_all=True)
        result, written = with_agent(
            args, repo,
            lambda agent: fix_working_tree(
                repo, base=base, options=options, decider=agent, cap=args.max_claims, dry_run=args.dry_run,
                config=config,
            ),
        )  # fmt: skip
    if note is not None:
        print(note)
    if args.dry_run:  # the report below says what the fix did: here, what it would do
        print("dry run: nothing was written; this is what the fix would do")
    sys.stdout.write(render_text(result, [] if args.dry_run else written))
    if args.dry_run and written:
        print("dry run: would write " + ", ".join(written))
    return EXIT_ATTENTION if result.needs_a_person else EXIT_OK
