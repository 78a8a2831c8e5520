"""What the step reports, the ways Actions shows things: the log's workflow commands (escaped; repository text with
commands off), the job summary within GitHub's limit, the step's outputs, the exit status."""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from ..claims.verdicts import Verdict
from ..report.ci import workflow_command

if TYPE_CHECKING:
    from ..claims.results import SweepReport

SUMMARY_BYTES = 1 << 20  # GitHub refuses a step's job summary above 1 MiB
FIX_SUMMARY_BYTES = 16 << 10  # the fix's section of the summary, kept free for it when fix is on (a few lines)
EXIT_OK, EXIT_ATTENTION, EXIT_ERROR = 0, 1, 2


def exit_status(needs_attention: bool, conclusion: str) -> int:
    """A job step has no neutral or "action required" state: neutral passes (the annotations and the summary still
    say what needs attention), failure and action_required fail the step."""
    return EXIT_ATTENTION if needs_attention and conclusion != "neutral" else EXIT_OK


def output_values(report: SweepReport) -> dict[str, str]:
    """The step's outputs for a check: claims per verdict, and the counts a workflow branches on."""
    summary = report.summary
    values = {verdict.value: str(summary[verdict.value]) for verdict in Verdict}
    values.update(
        claims=str(summary["claims"]),
        touched=str(summary["touched"]),
        **{"broken-references": str(summary["broken_references"]), "unreadable-sidecars": str(summary["page_errors"])},
    )
    values["needs-attention"] = "true" if report.needs_attention else "false"
    return values


def format_outputs(values: Mapping[str, str], delimiter: str) -> str:
    """`GITHUB_OUTPUT` lines in the multi-line form (`name<<DELIMITER`), so no value can end its own entry early or
    write another output: the delimiter must not be a line of any value (the caller draws a random one)."""
    lines = []
    for name, value in values.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name):
            raise ValueError(f"not an output name: {name!r}")
        if delimiter in value.splitlines() or delimiter in name:
            raise ValueError("the delimiter occurs in an output")
        lines += [f"{name}<<{delimiter}", value, delimiter]
    return "\n".join(lines) + "\n" if lines else ""


def escaped(text: str) -> str:
    """Text as the step writes it: a name git handed over undecoded (not UTF-8: lone surrogates) with those bytes
    as `\\udcxx` escapes, as the command line prints them (its streams' `backslashreplace`); nothing else changes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def job_summary(report: SweepReport, limit_bytes: int = SUMMARY_BYTES) -> str:
    """The check run's Markdown report, cut (safely: never inside a fence or a claim) to fit a job summary of
    `limit_bytes`, names that are not UTF-8 escaped."""
    from ..report.check import render_markdown  # noqa: PLC0415 - with the rest of the report's code

    limit = limit_bytes
    while True:
        text = escaped(render_markdown(report, limit=limit))
        size = len(text.encode())
        if size <= limit_bytes or limit == 0:
            return text
        # Non-ASCII text takes more bytes than characters: cut in proportion, and always by something.
        limit = max(min(limit - 1, limit * limit_bytes // size), 0)


def fix_summary(text: str, url: str | None, limit_bytes: int = FIX_SUMMARY_BYTES) -> str:
    """The fix's section of the job summary (`text` is inert Markdown: the App's note on its check run), at most
    `limit_bytes` (the room the report left it: longer, the note is cut at a line)."""
    link = f"\n\n{escaped(url)}" if url else ""
    section = f"\n### Wikiwarden fix\n\n{escaped(text)}{link}\n"
    if len(section.encode()) <= limit_bytes:
        return section
    cut = "\n\n_…cut here to fit._"
    room = limit_bytes - len(f"\n### Wikiwarden fix\n\n{cut}{link}\n".encode())
    kept = escaped(text).encode()[: max(room, 0)].decode("utf-8", "ignore")
    kept = kept[: kept.rfind("\n")] if "\n" in kept else ""
    return f"\n### Wikiwarden fix\n\n{kept}{cut}{link}\n"


@dataclass
class Runner:
    """Where the step writes: the log (workflow commands), the job summary and the outputs files."""

    out: TextIO
    summary_path: str | None
    output_path: str | None

    def command(self, command: str, message: str, **properties: str | int | None) -> None:
        self.out.write(escaped(workflow_command(command, message, **properties)) + "\n")

    def error(self, message: str) -> None:
        self.command("error", message, title="Wikiwarden")

    def log_untrusted(self, title: str, text: str) -> None:
        """Print text holding repository content, with workflow commands off while it is printed: the runner
        acts on no line of it until it sees the random token that turns them back on."""
        token = secrets.token_hex(16)
        text = escaped(text.rstrip())
        self.out.write(f"::group::{title}\n::stop-commands::{token}\n{text}\n::{token}::\n::endgroup::\n")

    def append_summary(self, markdown: str) -> None:
        if self.summary_path:
            with open(self.summary_path, "a", encoding="utf-8") as summary:
                summary.write(escaped(markdown))

    def set_outputs(self, values: Mapping[str, str]) -> None:
        if self.output_path:
            safe = {name: escaped(value) for name, value in values.items()}
            text = format_outputs(safe, f"ghadelimiter_{secrets.token_hex(16)}")
            with open(self.output_path, "a", encoding="utf-8") as outputs:
                outputs.write(text)
