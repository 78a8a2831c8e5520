"""`wikiwarden okf validate` and `okf sync`: the OKF use cases on a bundle, or on the repository's wiki."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..claims.pages import require_wiki_folder
from ..report.okf import sync_lines, validation_json, validation_text
from .common import EXIT_ATTENTION, EXIT_OK, UsageError, open_repo, sweep_options, wiki_dir_of, write_json

if TYPE_CHECKING:
    from ..source.git import GitRepository


def run(args: argparse.Namespace) -> int:
    return _validate(args) if args.okf_command == "validate" else _sync(args)


def _validate(args: argparse.Namespace) -> int:
    from ..usecases.okf import validate_okf  # noqa: PLC0415

    if args.path is not None:  # any folder of Markdown, in a repository or not
        folder, shown = Path(args.path), args.path
    else:
        with open_repo(args) as repo:
            shown = sweep_options(args, repo).wiki_dir
            require_wiki_folder(repo.worktree(), shown)
            folder = repo.root / shown
    problems = validate_okf(folder)
    errors = [p for p in problems if p.severity == "error"]
    if args.format == "json":
        write_json(validation_json(problems, str(shown)))
    else:
        sys.stdout.write(validation_text(problems, str(shown)))
    return EXIT_ATTENTION if errors else EXIT_OK


def _folder_of(path: Path, repo: GitRepository) -> str | None:
    """`path` as a folder of the repository, None when it is not one."""
    try:
        return wiki_dir_of(os.path.abspath(path), repo.root)
    except UsageError:
        return None


def _sync(args: argparse.Namespace) -> int:
    """Sync writes index.md into every folder below the one it is given, so it is given only the wiki: the
    folder `--wiki-dir` names, which PATH, when given too, must be."""
    from ..usecases.okf import sync_okf  # noqa: PLC0415

    named = Path(args.path) if args.path is not None else None
    if named is not None and not named.exists():
        raise UsageError(f"{args.path} does not exist")
    where: str | Path = "."  # the repository: --repo, else the one holding PATH, else the current folder's
    if args.repo is not None:
        where = args.repo
    elif named is not None:
        where = named if named.is_dir() else named.parent
    with open_repo(args, where) as repo:
        options = sweep_options(args, repo)
        if named is not None and _folder_of(named, repo) != options.wiki_dir:
            raise UsageError(
                f"{args.path} is not the wiki folder {options.wiki_dir}/ of {repo.root}; okf sync writes only the "
                f"wiki (if it is the wiki, say so: --wiki-dir {args.path})"
            )
        plan = sync_okf(
            repo,
            options.wiki_dir,
            dry_run=args.dry_run,
            init=args.init,
            max_file_bytes=options.max_file_bytes,
            indexes=args.indexes,
        )
    for to_stderr, line in sync_lines(plan, options.wiki_dir, args.dry_run, _init_command(args)):
        print(line, file=sys.stderr if to_stderr else sys.stdout)
    return EXIT_ATTENTION if plan.problems else EXIT_OK


def _init_command(args: argparse.Namespace) -> str:
    """What to run to sync the folder anyway: okf sync on the same repository and folder, with --init."""
    words = ["wikiwarden", "okf", "sync"]
    if args.repo is not None:
        words += ["--repo", shlex.quote(str(args.repo))]
    if args.wiki_dir is not None:  # else the folder comes from ..github/wikiwarden.yml or is the default
        words += ["--wiki-dir", shlex.quote(str(args.wiki_dir))]
    if args.path is not None:
        words.append(shlex.quote(args.path))
    return " ".join([*words, "--init"])
