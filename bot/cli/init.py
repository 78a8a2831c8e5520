"""`wikiwarden init`: the starting files the init use case plans, each written unless it exists."""

from __future__ import annotations

import argparse

from .common import EXIT_OK, open_repo, wiki_dir_of


def run(args: argparse.Namespace) -> int:
    """`wikiwarden init`: each file of the plan that does not exist is created (never over a file that appeared
    meanwhile); the rest is said."""
    from ..source.git import GitError  # noqa: PLC0415
    from ..usecases.init import plan_init  # noqa: PLC0415

    with open_repo(args) as repo:
        wiki_dir = wiki_dir_of(args.wiki_dir, repo.root) if args.wiki_dir is not None else None
        try:
            branch = repo.git("symbolic-ref", "--quiet", "--short", "HEAD").decode().strip() or "main"
        except GitError:  # a detached HEAD
            branch = "main"
        plan = plan_init(repo.worktree(), wiki_dir, branch)
        print(f"docs folder: {plan.wiki_dir}/ (found by {plan.found_by})")
        for note in plan.notes:  # a folder outside the repository, a symlink: never read
            print(note)
        for note in plan.site:
            print(f"site: {note}")
        for path, content in plan.writes.items():  # none is, or lies under, a symlink (the plan left those)
            target = repo.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with target.open("x", encoding="utf-8") as out:
                    out.write(content)
            except FileExistsError:
                print(f"left {path}: it appeared meanwhile")
                continue
            print(f"wrote {path}")
        for path, why in plan.kept:
            print(f"left {path}: {why}")
    print("next: wikiwarden check   (if it finds references that were broken already: wikiwarden check "
          "--write-baseline .github/wikiwarden-baseline.json, then name it as `baseline`)")  # fmt: skip
    return EXIT_OK
