"""`wikiwarden ground`: grounding's use case on the working tree (or, without a model, its plan), reported."""

from __future__ import annotations

import argparse
import sys

from ..claims.pages import require_wiki_folder
from ..report.wording import plural
from .common import EXIT_ATTENTION, EXIT_OK, UsageError, open_repo, sweep_options
from .model import with_agent


def run(args: argparse.Namespace) -> int:
    from ..report import ground as report  # noqa: PLC0415
    from ..source.git import GitError  # noqa: PLC0415
    from ..usecases.ground import ground_working_tree  # noqa: PLC0415

    if args.max_pages <= 0:
        raise UsageError("--max-pages must be at least 1")
    repo = open_repo(args)
    with repo:
        options = sweep_options(args, repo)
        require_wiki_folder(repo.worktree(), options.wiki_dir)
        inputs, result, written = with_agent(
            args, repo,
            lambda agent: ground_working_tree(
                repo, options=options, grounder=agent, pages=args.pages, max_pages=args.max_pages,
                dry_run=args.dry_run,
            ),
        )  # fmt: skip
        try:
            head = repo.resolve("HEAD")
        except GitError:  # no commit yet
            head = "working tree"
    others = _other_kinds(inputs.other_kinds, options.wiki_dir)
    if result is None:  # no model: the plan a person grounds from by hand
        if args.format == "json":
            sys.stdout.write(report.dumps(report.plan_json(inputs.work, inputs.waiting, options.wiki_dir, head)))
        else:
            sys.stdout.write(report.render_plan_text(inputs.work, inputs.waiting))
            if not inputs.work:
                print("no Markdown page without claims: nothing to ground")
            if inputs.bound is not None and inputs.bound.pages:
                print(_bound_snippets(inputs.bound.bound, len(inputs.bound.pages), written, args.dry_run))
            for line in _left_unbound(inputs.bound.left if inputs.bound is not None else []):
                print(line)
            if others:
                print(others)
        return EXIT_ATTENTION if inputs.work or inputs.waiting else EXIT_OK
    shown = [] if args.dry_run else written
    if args.format == "json":
        document = report.result_json(result.pages, result.waiting, shown, result.model, result.usage)
        sys.stdout.write(report.dumps(document))
    else:
        sys.stdout.write(report.render_result_text(result.pages, result.waiting, shown))
        if args.dry_run and written:
            print("dry run: would write " + ", ".join(written))
        if result.snippets.pages:
            print(_bound_snippets(result.snippets.bound, len(result.snippets.pages), [], args.dry_run))
        for line in _left_unbound(result.snippets.left):
            print(line)
        if not result.pages:
            print("no Markdown page without claims: nothing to ground")
        if others:
            print(others)
    return EXIT_ATTENTION if result.needs_a_person else EXIT_OK


def _bound_snippets(blocks: int, pages: int, written: list[str], dry_run: bool) -> str:
    """What binding the copied code blocks did (or, in a dry run, would do), said in one line with the files it
    wrote (would write): the pages' sidecars and quotes files, never the pages themselves outside an OKF wiki."""
    verb = "would bind" if dry_run else "bound"
    said = f"{verb} {plural(blocks, 'code block')} copied from the source on {plural(pages, 'page')} as snippet claims"
    if not written:
        return said
    return said + ("; would write " if dry_run else "; wrote ") + ", ".join(written)


def _left_unbound(left: list[tuple[str, str]]) -> list[str]:
    """The pages whose copied blocks were left unbound, each with why (history, a page the site does not publish)."""
    return [f"left {page} unbound: {why}" for page, why in left]


def _other_kinds(pages: list[str], wiki_dir: str) -> str | None:
    """What grounding leaves, said: claims are kept on Markdown pages only (OpenWiki's sidecars are per page of
    Markdown, and OKF is Markdown's), while `check` reads every kind's references."""
    if not pages:
        return None
    rst = sum(1 for p in pages if p.lower().endswith(".rst"))
    kinds = ", ".join(
        part for part in (plural(rst, "reStructuredText page") * bool(rst), plural(len(pages) - rst, "MDX page") *
                          bool(len(pages) - rst)) if part
    )  # fmt: skip
    return (
        f"{wiki_dir}/ holds {kinds}: claims are kept on Markdown pages only, so grounding leaves them; "
        "`wikiwarden check` checks their references"
    )
