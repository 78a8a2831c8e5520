"""The check run "Wikiwarden": what a change did to the wiki's claims, on the commit itself.

`check_output` turns a sweep report into the run's content (pure: title, summary, annotations on the
changed lines and where code a page names was removed or renamed, the pages without claims, the Fix wiki and
Ground wiki buttons, the conclusion), `failure_output` and `explain` a failure's, `with_note` a proposal's note on
it; `api/check_runs.py` publishes it within GitHub's limits (65,535-character summary, 50 annotations per request,
appended by further updates).

Every string from the repository goes through `bot.report.inert`: the summary is Markdown (`prose`, `code`);
the title and an annotation's title and message are plain text on GitHub, so they get `plain` (defused, one
line per field); an annotation's `raw_details` is the evidence's diff, code shown verbatim.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from gidgethub import HTTPException, RateLimitExceeded

from ...claims.pages import CONFIG_PATH
from ...claims.results import BrokenReference, ClaimResult, EvidenceResult, PageResult, SweepReport
from ...claims.snippet import snippet_wording
from ...claims.verdicts import Verdict
from ...report.check import render_markdown
from ...report.inert import code, plain, prose
from ...report.wording import clip, plural
from ...usecases.config_file import ModelRefusal, RepoConfig

CHECK_NAME = "Wikiwarden"
SUMMARY_LIMIT = 65_535
FIX_ACTION = {"label": "Fix wiki", "description": "Open a pull request fixing the wiki", "identifier": "fix_wiki"}
GROUND_ACTION = {
    "label": "Ground wiki",
    "description": "Open a pull request grounding the wiki",
    "identifier": "ground_wiki",
}
UNGROUNDED_SHOWN = 20  # pages without claims listed by name; the rest are counted
_PAGE_WIDTH = 200
_TITLE_LIMIT = 255
_DETAILS_LIMIT = 60_000
FORK_NOTE = (
    "\n\n_This pull request comes from a fork: Wikiwarden cannot push a fix to it. Once it is merged, the "
    "default branch's check offers the fix._\n"
)


def model_refusal_note(refusal: ModelRefusal) -> str:
    """What the check run says of a `model:` the App does not offer (inert Markdown: the name is the repository's)."""
    offered = ", ".join(code(name) for name in refusal.offered) or "none"
    if refusal.used:
        instead = f"the fix and the grounding use the App's default, {code(refusal.used)}"
    else:
        instead = "the App has no default model, so the fix and the grounding use none"
    return (
        f"The model {code(clip(refusal.asked, 100))} that {code(CONFIG_PATH)} asks for is not offered by this App "
        f"(it offers: {offered}); {instead}."
    )


@dataclass
class CheckOutput:
    conclusion: str
    title: str
    summary: str
    annotations: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, str]] = field(default_factory=list)


def _title(
    report: SweepReport, attention: list[tuple[PageResult, ClaimResult]], broken_references: int, ungrounded: int
) -> str:
    reanchored = sum(1 for _, c in report.claims() if c.verdict in (Verdict.MOVED, Verdict.COSMETIC))
    parts = [
        f"{n} {verdict.value}" for verdict in Verdict if (n := sum(1 for _, c in attention if c.verdict is verdict))
    ]
    broken = report.summary["page_errors"]
    if broken:
        parts.append(plural(broken, "unreadable sidecar"))
    if broken_references:
        parts.append(plural(broken_references, "broken reference"))
    if reanchored:
        parts.append(f"{reanchored} to re-anchor")  # a check writes nothing: the fix re-anchors them
    tail = f" · {plural(ungrounded, 'page')} without claims" if ungrounded else ""
    if not parts:
        checked = report.summary["claims"]
        if not checked:
            return "No wiki claim cites what this change touched" + tail
        return ("All " if checked > 1 else "") + plural(checked, "affected claim holds", "affected claims hold") + tail
    return ", ".join(parts) + (" · this change made claims stale" if attention else "") + tail


def _annotation(page: PageResult, claim: ClaimResult, evidence: EvidenceResult) -> dict[str, Any] | None:
    if evidence.verdict is Verdict.STALE and evidence.span and evidence.resource_now:
        path = evidence.resource_now.removeprefix("repo://").split("#", 1)[0]
        start, end = evidence.span
    elif evidence.verdict is Verdict.UNRESOLVED and evidence.anchor:
        path, start = evidence.anchor
        end = start
    else:
        return None
    copied = snippet_wording(page.page, claim.statement, evidence.verdict.value, unquote(path))
    annotation: dict[str, Any] = {
        "path": unquote(path),
        "start_line": start,
        "end_line": end,
        "annotation_level": "warning",
        "title": f"Wiki claim {evidence.verdict.value}: {plain(page.page)}"[:_TITLE_LIMIT],
        "message": (
            f"{plain(claim.statement)}\n\nThis code was the evidence for claim {plain(claim.id)} on "
            f"{plain(page.page)}. "
            + (
                f"{plain(copied)}: the fix rewrites the block from this code, without a model."
                if copied and evidence.verdict is Verdict.STALE
                else "The change rewrote it: re-verify the claim, then correct or retract it."
                if evidence.verdict is Verdict.STALE
                else "The change deleted it here: retarget the claim's evidence or retract the claim."
            )
        )[:60_000],
    }
    if evidence.old_text is not None and evidence.new_text is not None:
        diff = "\n".join(
            difflib.unified_diff(
                evidence.old_text.splitlines(), evidence.new_text.splitlines(), "recorded", "now", lineterm=""
            )
        )
        annotation["raw_details"] = diff[:_DETAILS_LIMIT]
    return annotation


def _reference_annotation(ref: BrokenReference) -> dict[str, Any] | None:
    """Where the head shows what happened to what a page names (the renamed definition, or the file a removed
    one stood in); nothing to point at when the file itself is gone."""
    if ref.at is None:
        return None
    path, line = ref.at
    if ref.renamed_to and ref.target == ref.path:
        happened = f"renamed to `{plain(ref.renamed_to)}`: this file"
    elif ref.renamed_to:
        happened = f"renamed to `{plain(ref.renamed_to)}` here"
    else:
        happened = "removed here"
    return {
        "path": path,
        "start_line": line,
        "end_line": line,
        "annotation_level": "warning",
        "title": f"Wiki reference broken: {plain(ref.page)}"[:_TITLE_LIMIT],
        "message": (f"`{plain(ref.page)}` mentions `{plain(ref.text)}`, {happened} (line {ref.line} of the page).")[
            :60_000
        ],
    }


def _ungrounded_note(pages: Sequence[str], settled: int, config: RepoConfig, fork: bool) -> str:
    """The pages without claims grounding has work for (the first ones by name), and what can ground them."""
    if not pages:
        return ""
    lines = ["", "", f"### Pages without claims ({len(pages)})", ""]
    lines += [f"- {code(clip(page, _PAGE_WIDTH))}" for page in pages[:UNGROUNDED_SHOWN]]
    if len(pages) > UNGROUNDED_SHOWN:
        lines.append(f"- …and {len(pages) - UNGROUNDED_SHOWN} more")
    lines.append("")
    if settled:
        more = plural(settled, "more page without claims states", "more pages without claims state")
        lines += [f"{more} nothing the code shows (grounding read them as they are now).", ""]
    if config.ground == "off":
        lines.append(
            "Nothing checks what they say. Grounding on GitHub is off (`ground: off` in `.github/wikiwarden.yml`); "
            "`wikiwarden ground` grounds them from a checkout."
        )
    elif fork:
        lines.append(
            "Nothing checks what they say. This pull request comes from a fork: Wikiwarden cannot push a grounding "
            "to it. Once it is merged, the default branch's check offers it."
        )
    else:
        per_run = plural(config.limits.max_pages_per_ground, "page")
        lines.append(
            f"Nothing checks what they say. **Ground wiki** opens a pull request proposing their claims, {per_run} "
            "a run."
        )
        if config.ground == "auto":
            lines[-1] += " After a push to the default branch Wikiwarden does so by itself (`ground: auto`)."
    return "\n".join(lines) + "\n"


def _annotations(
    attention: list[tuple[PageResult, ClaimResult]], broken_references: list[BrokenReference]
) -> list[dict[str, Any]]:
    """An annotation where each evidence the change touched stands, then where each broken reference's code was."""
    found = [
        annotation
        for page, claim in attention
        for evidence in claim.evidence
        if evidence.touched and (annotation := _annotation(page, claim, evidence)) is not None
    ]
    return found + [a for ref in broken_references if (a := _reference_annotation(ref)) is not None]


def _notes(config: RepoConfig, fork_needs_attention: bool) -> str:
    """What the summary says beside the report: why a fork gets no fix, why the repository's model was refused."""
    notes = FORK_NOTE if fork_needs_attention else ""
    if config.model_refusal is not None:
        notes += f"\n\n_{model_refusal_note(config.model_refusal)}_\n"
    return notes


def check_output(
    report: SweepReport,
    config: RepoConfig,
    *,
    fork: bool = False,
    pull_request: bool = False,
    settled: Collection[str] = (),
) -> CheckOutput:
    """The check run for a sweep: claims this change made stale (or unresolved, or in error), and references to
    code it removed or renamed, fail the run with the repository's chosen conclusion; moved and cosmetic
    evidence is reported as for a fix to re-anchor; pages without claims are listed, without failing it.

    The Fix wiki button is offered when a claim can be fixed, the Ground wiki button when pages have no claims
    (unless `ground` is off; `settled`: pages grounding already read as they are, which it does not ask about
    again), neither to a fork's pull request (nobody can push to its branch: the summary says so instead); the
    Fix wiki button not to pull requests when `fix_pull_requests` is off.
    """
    unreadable = {page.page for page in report.pages if page.error}  # a person must mend its sidecar first
    ungrounded = [page for page in report.ungrounded_pages if page not in settled and page not in unreadable]
    attention = [(p, c) for p, c in report.claims() if c.touched and c.verdict.needs_attention]
    # references a change broke for certain need attention (notes do not); paths a full sweep finds missing were
    # so before it
    broken_references = [r for r in report.broken_references if r.attention] if report.base is not None else []
    needs_attention = bool(attention) or report.summary["page_errors"] > 0 or bool(broken_references)
    annotations = _annotations(attention, broken_references)
    limit = config.limits.max_annotations
    notes = _ungrounded_note(ungrounded, len(set(settled) & set(report.ungrounded_pages)), config, fork)
    if len(annotations) > limit:
        left_out = plural(len(annotations) - limit, "more annotation was", "more annotations were")
        notes += f"\n\n_{left_out} left out (limit {limit})._\n"
        annotations = annotations[:limit]
    notes += _notes(config, fork and needs_attention)
    # the notes are counted before the report is cut, so cutting never splits a fence or a claim
    summary = render_markdown(report, limit=SUMMARY_LIMIT - len(notes)) + notes
    return CheckOutput(
        conclusion=config.conclusion if needs_attention else "success",
        title=_title(report, attention, len(broken_references), len(ungrounded))[:_TITLE_LIMIT],
        summary=summary,
        annotations=annotations,
        actions=_actions(attention, broken_references, ungrounded, config, fork=fork, pull_request=pull_request),
    )


def _actions(
    attention: list[tuple[PageResult, ClaimResult]],
    broken_references: list[BrokenReference],
    ungrounded: list[str],
    config: RepoConfig,
    *,
    fork: bool,
    pull_request: bool,
) -> list[dict[str, str]]:
    """The buttons: Fix wiki for a claim to decide or a renamed reference (its mention is rewritten without a
    model), Ground wiki for pages without claims; neither on a fork's pull request."""
    fixable = any(c.verdict in (Verdict.STALE, Verdict.UNRESOLVED) for _, c in attention) or any(
        ref.what == "renamed" and ref.renamed_to for ref in broken_references
    )
    can_fix = not fork and (not pull_request or config.fix_pull_requests)
    can_ground = not fork and config.ground != "off" and bool(ungrounded)
    return [FIX_ACTION] * (can_fix and fixable) + [GROUND_ACTION] * can_ground


def failure_output(title: str, explanation: str) -> CheckOutput:
    """A run that could not check the commit, saying why in plain words (never a stack trace or a secret).

    Both are plain text that may carry untrusted words (a config file's key, GitHub's message), rendered inert:
    the explanation becomes the summary's Markdown through `prose`."""
    return CheckOutput("failure", plain(title)[:_TITLE_LIMIT], prose(explanation)[:SUMMARY_LIMIT])


TOOK_TOO_LONG = "Wikiwarden took too long to check this commit"


def took_too_long_output(seconds: float) -> CheckOutput:
    """A check stopped at the job timeout: GitHub's own `timed_out` conclusion, and what to do about it. The words
    are the App's own (no repository text), and the run is not tried again by itself."""
    text = (
        f"The check ran longer than this App's {seconds:g}-second job timeout and was stopped. Something in this "
        "commit (a very large wiki page, or a pattern in the configuration that is slow to match) makes it slow; "
        "it is not tried again by itself. Re-run the check to try again, or ask the App's operator to raise "
        "WIKIWARDEN_JOB_TIMEOUT_SECONDS."
    )
    return CheckOutput("timed_out", TOOK_TOO_LONG, prose(text)[:SUMMARY_LIMIT])


def explain(exc: BaseException) -> str:
    """A failure in plain words for the check run: what went wrong, never a trace or a secret."""
    if isinstance(exc, RateLimitExceeded):
        return "GitHub's rate limit for this installation was reached. Re-run this check once it resets."
    if isinstance(exc, HTTPException):
        return f"GitHub answered {int(exc.status_code)} ({exc.status_code.phrase}) and kept doing so after retries."
    if isinstance(exc, TimeoutError):
        return "GitHub did not answer in time."
    return f"Wikiwarden hit an internal error ({type(exc).__name__}); the maintainers have the details in its logs."


def with_note(summary: str, text: str, url: str | None, name: str = "fix", label: str = "Fix") -> str:
    """The summary with a proposal's note on top (`name`: `fix` or `ground`, each its own note), replacing an
    earlier note of the same proposal (so re-runs do not pile up; a fix's note and a grounding's stand together).

    `text` is Markdown whose untrusted parts already went through `bot.report.inert` (`ProposalStatus.text`)."""
    start, end = f"<!-- wikiwarden:{name}-note -->", f"<!-- /wikiwarden:{name}-note -->"
    if start in summary and end in summary:
        before, rest = summary.split(start, 1)
        summary = before + rest.split(end, 1)[1].lstrip("\n")
    link = f" [Open the pull request]({url})." if url else ""
    note = f"{start}\n> **{label}:** {text}{link}\n{end}\n\n"
    return (note + summary)[:SUMMARY_LIMIT]
