"""What to do after a check that needs attention: the lines `wikiwarden check` ends its text report with (and the
pre-commit hook's refusal, `check --staged`), fitted to what was found, with the commands to run as they can be
copied: the same `--repo`, `--wiki-dir` and `--max-file-size` the check was given, and its base. Pure."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from ..claims.results import ClaimResult, SweepReport
from ..claims.snippet import is_snippet
from ..claims.verdicts import Verdict
from ..ground.silence import silencing_advice
from .wording import one_line

HEADING = "What to do:"
IGNORE_LINE = "<!-- wikiwarden: ignore -->"
IGNORE_NEXT_LINE = "<!-- wikiwarden: ignore-next-line -->"


def _command(*words: str) -> str:
    """A command to copy, in backticks: each word on one line, quoted for a shell when it needs it."""
    return "`" + " ".join(shlex.quote(one_line(word)) for word in words) + "`"


def next_steps(report: SweepReport, options: Sequence[str] = (), base: str | None = None) -> list[str]:
    """The lines to print after the report, none when nothing needs attention: one or two for each kind of thing
    found. `options` are the check's own (`--repo PATH`, ...), repeated in each command; `base` the revision its
    change started from, for the commands that follow evidence through a change (`claim show`, `confirm`, `fix`).
    A claim id is named when one claim is concerned, else `ID` stands for each listed above."""
    if not report.needs_attention:
        return []
    since = ("--base", base) if base is not None else ()
    claims = [claim for _, claim in report.claims()]
    moved = any(c.verdict in (Verdict.MOVED, Verdict.COSMETIC) for c in claims)
    fix = _command("wikiwarden", "fix", *options, *since)
    prose = [c for c in claims if c.verdict in (Verdict.STALE, Verdict.UNRESOLVED) and not is_snippet(c.statement)]
    copies = [c for c in claims if c.verdict in (Verdict.STALE, Verdict.UNRESOLVED) and is_snippet(c.statement)]
    lines = _to_decide(prose, moved, fix, options, since) + _copied_blocks(copies, fix, options)
    in_error = [c for c in claims if c.verdict is Verdict.ERROR]
    if in_error:
        claim = in_error[0].id if len(in_error) == 1 else "ID"
        retract = _command("wikiwarden", "claim", "retract", claim, *options)
        lines.append(f"  error: the reason is above; mend the evidence in the page's sidecar, or {retract}")
    lines += _references(report, fix)
    unreadable = [page.sidecar for page in report.pages if page.error]
    if unreadable:
        named = f"sidecar {one_line(unreadable[0])}: repair it" if len(unreadable) == 1 else "sidecars: repair each"
        lines.append(f"  unreadable {named} as its error above says, or restore it from git")
    if moved and not prose:
        lines.append(f"  moved, cosmetic: {fix} re-anchors them")
    return [HEADING, *lines] if lines else []


def _to_decide(
    decide: Sequence[ClaimResult], moved: bool, fix: str, options: Sequence[str], since: Sequence[str]
) -> list[str]:
    """Prose claims that are stale or unresolved: what changed, then the fix's model or a person decides."""
    if not decide:
        return []
    claim = decide[0].id if len(decide) == 1 else "ID"
    show = _command("wikiwarden", "claim", "show", claim, *options, *since)
    confirm = _command("wikiwarden", "claim", "confirm", claim, *options, *since)
    retract = _command("wikiwarden", "claim", "retract", claim, *options)
    also = " and re-anchors what moved" if moved else ""
    return [
        f"  stale, unresolved: {show} shows what changed; {fix} decides with a model{also},",
        f"    or decide by hand: {confirm} (it still holds) or {retract} (it does not; correct the page)",
    ]


def _references(report: SweepReport, fix: str) -> list[str]:
    """Broken references that fail the check: a renamed one is the fix's to rewrite, any other a person's."""
    failing = [ref for ref in report.broken_references if ref.attention]
    lines = []
    if any(ref.what == "renamed" and ref.renamed_to for ref in failing):
        lines.append(f"  renamed references: {fix} rewrites each mention to the new name (no model needed)")
    others = [ref for ref in failing if not (ref.what == "renamed" and ref.renamed_to)]
    if others:
        kinds = {silencing_advice(ref.page) for ref in others}
        line, next_line = sorted(kinds)[0] if len(kinds) == 1 else silencing_advice("page.md")
        lines += [
            f"  broken references: correct the page, or silence a false alarm with {line}",
            f"    ({next_line})",
        ]
        if len(kinds) > 1 and any(ref.page.lower().endswith(".rst") for ref in others):
            paragraph, before = silencing_advice("page.rst")
            lines.append(f"    on a reStructuredText page: {before}; or {paragraph}")
    return lines


def _copied_blocks(copies: Sequence[ClaimResult], fix: str, options: Sequence[str]) -> list[str]:
    """What to do with copied code blocks that need attention: the fix rewrites a stale one from its code without
    a model; one whose code is gone is for a person."""
    lines = []
    if any(c.verdict is Verdict.STALE for c in copies):
        lines.append(f"  copied code blocks: {fix} rewrites each stale block from the code it copies (no model needed)")
    gone = [c for c in copies if c.verdict is Verdict.UNRESOLVED]
    if gone:
        retract = _command("wikiwarden", "claim", "retract", gone[0].id if len(gone) == 1 else "ID", *options)
        lines.append(f"  copied code blocks whose code is gone: correct the page, then {retract}")
    return lines


__all__ = ("HEADING", "IGNORE_LINE", "IGNORE_NEXT_LINE", "next_steps")
