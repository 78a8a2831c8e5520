"""`wikiwarden claim add | confirm | retract | show | list`: the hand-kept claims' use case on the working tree, its
answers rendered by `bot.report.claims`."""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import TYPE_CHECKING

from ..report.claims import listing_json, render_edit, render_listing, render_shown, render_unreadable, shown_json
from .common import EXIT_ATTENTION, EXIT_OK, open_repo, sweep_options, write_json

if TYPE_CHECKING:
    from ..source.git import GitRepository
    from ..usecases.claims import HandKeptClaims


def run(args: argparse.Namespace) -> int:
    actions = {"add": _add, "confirm": _confirm, "retract": _retract, "show": _show, "list": _list}
    return actions[args.claim_command](args)


def _claims(args: argparse.Namespace) -> tuple[GitRepository, HandKeptClaims]:
    from ..usecases.claims import HandKeptClaims  # noqa: PLC0415

    repo = open_repo(args)
    try:
        options = sweep_options(args, repo)
        return repo, HandKeptClaims(repo, options.wiki_dir, options.max_file_bytes)
    except BaseException:
        repo.close()
        raise


def _add(args: argparse.Namespace) -> int:
    repo, claims = _claims(args)
    with repo:
        edit = claims.add(args.page, args.statement, args.resources)
    assert edit.claim is not None
    sys.stdout.write(render_edit(f"added {edit.claim.id} to {edit.page} ({edit.sidecar})", edit))
    return EXIT_OK


def _confirm(args: argparse.Namespace) -> int:
    repo, claims = _claims(args)
    with repo:
        edit = claims.confirm(args.id, args.base)
    headline = f"confirmed {args.id} on {edit.page}; evidence re-baselined to the code as it is now:"
    sys.stdout.write(render_edit(headline, edit))
    return EXIT_OK


def _retract(args: argparse.Namespace) -> int:
    repo, claims = _claims(args)
    with repo:
        edit = claims.retract(args.id)
    print(f"retracted {args.id} from {edit.page} ({edit.sidecar})")
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    repo, claims = _claims(args)
    with repo:
        shown = claims.show(args.id, args.base)
    if args.format == "json":
        write_json(shown_json(shown))
    else:
        width = max(30, (shutil.get_terminal_size((120, 24)).columns - 7) // 2)
        sys.stdout.write(render_shown(shown, width=width, base=args.base))
    return EXIT_ATTENTION if shown.needs_attention else EXIT_OK


def _list(args: argparse.Namespace) -> int:
    repo, claims = _claims(args)
    with repo:
        listing = claims.list(args.page)
    if args.format == "json":
        write_json(listing_json(listing))
    else:
        sys.stdout.write(render_listing(listing))
        sys.stderr.write(render_unreadable(listing))
    return EXIT_ATTENTION if listing.unreadable else EXIT_OK
