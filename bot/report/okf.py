"""What `okf validate` and `okf sync` say: a bundle's conformance problems (text or JSON) and what a sync wrote,
would write or left. Pure: the command line prints what these return."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..okf.sync import SyncPlan
from ..okf.validate import Problem
from .wording import plural


def validation_text(problems: Sequence[Problem], bundle: str) -> str:
    """A line per problem (`error: PATH: FIELD: PROBLEM`), then the counts."""
    errors = sum(p.severity == "error" for p in problems)
    lines = [f"{p.severity}: {f'{p.path}: {p.field}' if p.field else p.path}: {p.problem}" for p in problems]
    lines.append(f"{bundle}: {plural(errors, 'error')}, {plural(len(problems) - errors, 'warning')}")
    return "".join(line + "\n" for line in lines)


def validation_json(problems: Sequence[Problem], bundle: str) -> dict[str, Any]:
    """The JSON document of `okf validate --format json`."""
    errors = sum(p.severity == "error" for p in problems)
    return {
        "bundle": bundle,
        "errors": errors,
        "warnings": len(problems) - errors,
        "problems": [
            {"file": p.path, "field": p.field, "problem": p.problem, "severity": p.severity} for p in problems
        ],
    }


def sync_lines(plan: SyncPlan, wiki_dir: str, dry_run: bool, init_command: str) -> list[tuple[bool, str]]:
    """What a sync says, in order, each line with whether it goes to standard error: each file written (or, on a
    dry run or in a folder that is not OpenWiki's, that would be), each person's page left on purpose; the
    problems (to standard error); and, for a person's folder nothing asked to sync, how to sync it (`init_command`)."""
    lines: list[tuple[bool, str]] = []
    verb = "would write" if dry_run or plan.held else "wrote"
    if dry_run or not plan.held:
        lines += [(False, f"{verb} {path}") for path in sorted(plan.writes)]
        lines += [(False, f"left as it is: {path}: {why}") for path, why in plan.kept]  # on purpose, not a problem
    lines += [(True, f"left as it is: {path}: {problem}") for path, problem in plan.problems]
    if not plan.writes:
        lines.append((False, "everything is up to date"))
    elif plan.held:  # a person's folder, and nothing asked sync to write into it: say so, nothing is wrong
        pages, indexes = plan.counts()
        lines.append((False, (
            f"{wiki_dir}/ is not an OpenWiki wiki (no .last-update.json, no index.md OpenWiki or Wikiwarden "
            f"wrote): okf sync would add front matter to {plural(pages, 'page')}"
            + (f" and indexes to {plural(indexes, 'folder')}" if indexes else "")
            + f"; run `{init_command}` to do so"
        )))  # fmt: skip
    return lines
