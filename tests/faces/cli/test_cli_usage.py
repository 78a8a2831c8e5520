"""What the command line's usage says of commands whose words were missing: every positional argument of `claim`
has help (the reference table's cells), and `worker` names the grounding jobs it runs."""

from __future__ import annotations

import argparse

from bot.cli import build_parser


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_every_claim_argument_has_help() -> None:
    claim = _subparsers(build_parser("claim"))["claim"]
    for name, action in _subparsers(claim).items():
        for argument in action._actions:
            if not argument.option_strings:
                assert argument.help and argument.help.strip(), (name, argument.dest)
    show = _subparsers(claim)["show"].format_help()
    assert "the claim's id" in show


def test_worker_usage_names_the_grounding_jobs() -> None:
    worker = _subparsers(build_parser("worker"))["worker"]
    assert "check, fix and grounding jobs" in worker.format_help()
    top = build_parser().format_help()
    assert "run check, fix and grounding jobs from the Redis queue" in " ".join(top.split())
