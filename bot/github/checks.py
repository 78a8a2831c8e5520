"""The check run "Wikiwarden": what a change did to the wiki's claims, on the commit itself.

`check_output` turns a sweep report into the run's content (pure: title, summary, annotations on the
changed lines, the Fix wiki button, the conclusion), `failure_output` and `explain` a failure's; the
coroutines below publish it within GitHub's limits (65,535-character summary, 50 annotations per request,
appended by further updates).

Every string from the repository goes through `bot.claims.inert`: the summary is Markdown (`prose`, `code`);
the title and an annotation's title and message are plain text on GitHub, so they get `plain` (defused, one
line per field); an annotation's `raw_details` is the evidence's diff, code shown verbatim.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from gidgethub import HTTPException, RateLimitExceeded

from ..claims.inert import plain, prose
from ..claims.report import render_markdown
from ..claims.results import ClaimResult, EvidenceResult, PageResult, SweepReport
from ..claims.verdicts import Verdict
from ..claims.wording import plural
from .client import GitHubClient
from .repo_config import RepoConfig

CHECK_NAME = "Wikiwarden"
SUMMARY_LIMIT = 65_535
ANNOTATIONS_PER_REQUEST = 50
FIX_ACTION = {"label": "Fix wiki", "description": "Open a pull request fixing the wiki", "identifier": "fix_wiki"}
_TITLE_LIMIT = 255
_DETAILS_LIMIT = 60_000
FORK_NOTE = (
    "\n\n_This pull request comes from a fork: Wikiwarden cannot push a fix to it. Once it is merged, the "
    "default branch's check offers the fix._\n"
)


@dataclass
class CheckOutput:
    conclusion: str
    title: str
    summary: str
    annotations: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, str]] = field(default_factory=list)


def _title(report: SweepReport, attention: list[tuple[PageResult, ClaimResult]]) -> str:
    reanchored = sum(1 for _, c in report.claims() if c.verdict in (Verdict.MOVED, Verdict.COSMETIC))
    parts = [
        f"{n} {verdict.value}" for verdict in Verdict if (n := sum(1 for _, c in attention if c.verdict is verdict))
    ]
    broken = report.summary["page_errors"]
    if broken:
        parts.append(plural(broken, "unreadable sidecar"))
    if reanchored:
        parts.append(f"{reanchored} re-anchored")
    if not parts:
        checked = report.summary["claims"]
        if not checked:
            return "No wiki claim cites what this change touched"
        return ("All " if checked > 1 else "") + plural(checked, "affected claim holds", "affected claims hold")
    return ", ".join(parts) + (" · this change made claims stale" if attention else "")


def _annotation(page: PageResult, claim: ClaimResult, evidence: EvidenceResult) -> dict[str, Any] | None:
    if evidence.verdict is Verdict.STALE and evidence.span and evidence.resource_now:
        path = evidence.resource_now.removeprefix("repo://").split("#", 1)[0]
        start, end = evidence.span
    elif evidence.verdict is Verdict.UNRESOLVED and evidence.anchor:
        path, start = evidence.anchor
        end = start
    else:
        return None
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
                "The change rewrote it: re-verify the claim, then correct or retract it."
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


def check_output(
    report: SweepReport, config: RepoConfig, *, fork: bool = False, pull_request: bool = False
) -> CheckOutput:
    """The check run for a sweep: claims this change made stale (or unresolved, or in error) fail the run
    with the repository's chosen conclusion; moved and cosmetic evidence is reported as re-anchored.

    The Fix wiki button is offered when a claim can be fixed, except to a fork's pull request (nobody can push
    to its branch: the summary says so instead) and to pull requests when `fix_pull_requests` is off.
    """
    attention = [(p, c) for p, c in report.claims() if c.touched and c.verdict.needs_attention]
    needs_attention = bool(attention) or report.summary["page_errors"] > 0
    annotations: list[dict[str, Any]] = []
    for page, claim in attention:
        for evidence in claim.evidence:
            if evidence.touched and (annotation := _annotation(page, claim, evidence)) is not None:
                annotations.append(annotation)
    limit = config.limits.max_annotations
    notes = ""
    if len(annotations) > limit:
        left_out = plural(len(annotations) - limit, "more annotation was", "more annotations were")
        notes += f"\n\n_{left_out} left out (limit {limit})._\n"
        annotations = annotations[:limit]
    if fork and needs_attention:
        notes += FORK_NOTE
    # the notes are counted before the report is cut, so cutting never splits a fence or a claim
    summary = render_markdown(report, limit=SUMMARY_LIMIT - len(notes)) + notes
    fixable = any(c.verdict in (Verdict.STALE, Verdict.UNRESOLVED) for _, c in attention)
    can_fix = not fork and (not pull_request or config.fix_pull_requests)
    return CheckOutput(
        conclusion=config.conclusion if needs_attention else "success",
        title=_title(report, attention)[:_TITLE_LIMIT],
        summary=summary,
        annotations=annotations,
        actions=[FIX_ACTION] if can_fix and fixable else [],
    )


def failure_output(title: str, explanation: str) -> CheckOutput:
    """A run that could not check the commit, saying why in plain words (never a stack trace or a secret).

    Both are plain text that may carry untrusted words (a config file's key, GitHub's message), rendered inert:
    the explanation becomes the summary's Markdown through `prose`."""
    return CheckOutput("failure", plain(title)[:_TITLE_LIMIT], prose(explanation)[:SUMMARY_LIMIT])


def explain(exc: BaseException) -> str:
    """A failure in plain words for the check run: what went wrong, never a trace or a secret."""
    if isinstance(exc, RateLimitExceeded):
        return "GitHub's rate limit for this installation was reached. Re-run this check once it resets."
    if isinstance(exc, HTTPException):
        return f"GitHub answered {int(exc.status_code)} ({exc.status_code.phrase}) and kept doing so after retries."
    if isinstance(exc, TimeoutError):
        return "GitHub did not answer in time."
    return f"Wikiwarden hit an internal error ({type(exc).__name__}); the maintainers have the details in its logs."


# -- publishing ------------------------------------------------------------------------------------


async def find_check_run(gh: GitHubClient, repo: str, head_sha: str, app_id: int) -> int | None:
    """Our run on this commit, if one exists (so a second analysis updates it instead of adding one)."""
    owner, name = repo.split("/", 1)
    found = await gh.getitem(
        "/repos/{owner}/{repo}/commits/{ref}/check-runs{?check_name,app_id}",
        url_vars={"owner": owner, "repo": name, "ref": head_sha, "check_name": CHECK_NAME, "app_id": str(app_id)},
    )
    runs = [r for r in found.get("check_runs", []) if r.get("name") == CHECK_NAME]
    return max((r["id"] for r in runs), default=None)


async def start_check_run(gh: GitHubClient, repo: str, head_sha: str, external_id: str) -> int:
    owner, name = repo.split("/", 1)
    created = await gh.post(
        "/repos/{owner}/{repo}/check-runs",
        url_vars={"owner": owner, "repo": name},
        data={
            "name": CHECK_NAME,
            "head_sha": head_sha,
            "status": "in_progress",
            "external_id": external_id,
            "output": {"title": "Checking the wiki's claims", "summary": "Wikiwarden is reading the change."},
        },
    )
    return int(created["id"])


async def complete_check_run(gh: GitHubClient, repo: str, run_id: int, output: CheckOutput) -> None:
    """Finish the run: the first 50 annotations with the conclusion, the rest in further updates."""
    owner, name = repo.split("/", 1)
    url = "/repos/{owner}/{repo}/check-runs/{run_id}"
    url_vars = {"owner": owner, "repo": name, "run_id": str(run_id)}
    batches = [
        output.annotations[i : i + ANNOTATIONS_PER_REQUEST]
        for i in range(0, len(output.annotations), ANNOTATIONS_PER_REQUEST)
    ] or [[]]
    body: dict[str, Any] = {
        "status": "completed",
        "conclusion": output.conclusion,
        "output": {"title": output.title, "summary": output.summary, "annotations": batches[0]},
        "actions": output.actions,
    }
    await gh.patch(url, url_vars=url_vars, data=body)
    for batch in batches[1:]:  # annotations are appended by each update
        await gh.patch(
            url,
            url_vars=url_vars,
            data={"output": {"title": output.title, "summary": output.summary, "annotations": batch}},
        )


FIX_NOTE_START = "<!-- wikiwarden:fix-note -->"
FIX_NOTE_END = "<!-- /wikiwarden:fix-note -->"


def with_fix_note(summary: str, text: str, url: str | None) -> str:
    """The summary with the fix's note on top, replacing an earlier note (so re-runs do not pile up).

    `text` is Markdown whose untrusted parts already went through `bot.claims.inert` (`FixStatus.text`)."""
    if FIX_NOTE_START in summary and FIX_NOTE_END in summary:
        before, rest = summary.split(FIX_NOTE_START, 1)
        summary = before + rest.split(FIX_NOTE_END, 1)[1].lstrip("\n")
    link = f" [Open the pull request]({url})." if url else ""
    note = f"{FIX_NOTE_START}\n> **Fix:** {text}{link}\n{FIX_NOTE_END}\n\n"
    return (note + summary)[:SUMMARY_LIMIT]


async def note_on_check_run(gh: GitHubClient, repo: str, run_id: int, text: str, url: str | None = None) -> None:
    """Say on the check run what the fix did, and link the run to the pull request (its details link)."""
    owner, name = repo.split("/", 1)
    url_vars = {"owner": owner, "repo": name, "run_id": str(run_id)}
    run = await gh.getitem("/repos/{owner}/{repo}/check-runs/{run_id}", url_vars=url_vars)
    output = run.get("output") or {}
    body: dict[str, Any] = {
        "output": {
            "title": output.get("title") or CHECK_NAME,
            "summary": with_fix_note(output.get("summary") or "", text, url),
        }
    }
    if url:
        body["details_url"] = url
    await gh.patch("/repos/{owner}/{repo}/check-runs/{run_id}", url_vars=url_vars, data=body)
