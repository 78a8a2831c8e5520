"""What a fix did, for people: the pull request's checklist and the command line's report.

The checklist is Markdown on GitHub: statements, reasons (the model's words), pages, resources and the model's
name go through `bot.report.inert`. The report is terminal text: one line per field, no Markdown escapes.
"""

from __future__ import annotations

from collections.abc import Callable

from ..fix.engine import Action, ClaimOutcome, FixResult, Usage
from .inert import code, prose
from .wording import clip, one_line, plural

BODY_LIMIT = 60_000  # GitHub refuses pull request bodies over 65,536 characters
_ICONS = {
    Action.CONFIRMED: "✓",
    Action.UPDATED: "✎",
    Action.RETRACTED: "✗",
    Action.REANCHORED: "↪",
    Action.FLAGGED: "!",
}

Link = Callable[[str, str], str | None]  # (resource, "before" | "now") → URL
_STATEMENT_WIDTH = 80
_NEW_STATEMENT_WIDTH = 100
_REASON_WIDTH = 200


def _evidence_links(outcome: ClaimOutcome, link: Link | None) -> str:
    """Each resource with links to its text at the change's start and at the fixed commit."""

    def show(resource: str, whens: tuple[str, ...]) -> str:
        urls = [(when, link(resource, when) if link else None) for when in whens]
        shown = [f"[{when}]({url})" for when, url in urls if url]
        return code(resource) + (f" ({', '.join(shown)})" if shown else "")

    before, after = outcome.evidence_before, outcome.evidence_after
    if before == after:
        return ", ".join(show(r, ("before", "now")) for r in before) or "none"
    was = ", ".join(show(r, ("before",)) for r in before) or "none"
    now = ", ".join(show(r, ("now",)) for r in after) or "none"
    return f"{was} → {now}"


def pull_request_body(result: FixResult, *, heading: str, marker: str, link: Link | None = None) -> str:
    """The checklist of every claim handled, the model and the tokens used; cut safely below GitHub's limit."""
    lines = [marker, f"## {heading}", ""]
    counts = {action: sum(1 for o in result.outcomes if o.action is action) for action in Action}
    rewritten = sum(1 for o in result.references if o.rewritten)
    parts = [f"{n} {action.value}" for action, n in counts.items() if n]
    parts += [plural(rewritten, "reference rewritten", "references rewritten")] * bool(rewritten)
    lines.append(", ".join(parts) or "Nothing to change.")
    lines.append("")
    for outcome in result.outcomes:
        done = "x" if outcome.action is not Action.FLAGGED else " "
        line = f"- [{done}] **{outcome.action.value}** · {code(outcome.page)} · “{prose(outcome.statement)}”"
        if outcome.new_statement:
            line += f" → “{prose(outcome.new_statement)}”"
        lines.append(line)
        reason = prose(outcome.reason.strip().rstrip("."))
        lines.append(f"  {reason}. Evidence: {_evidence_links(outcome, link)}")
    if result.references:
        lines += ["", "References:", ""]
        for item in result.references:
            ref = item.reference
            done = "x" if item.rewritten else " "
            where = f"{code(ref.page)} line {ref.line}"
            shown = code(ref.text) + (f" → {code(item.new_text)}" if item.new_text is not None else "")
            lines.append(f"- [{done}] {where}: {shown}: {prose(item.reason)}")
    lines.append("")
    if result.model:
        lines.append(model_line(result.model, result.usage))
    else:
        lines.append("No model is configured: moved and cosmetic evidence was re-anchored; the rest needs a person.")
    flagged = result.flagged
    if flagged:
        waiting = plural(len(flagged), "claim still needs a person", "claims still need a person")
        lines += ["", f"{waiting}: see the unticked items above."]
    if result.references_left:
        waiting = plural(len(result.references_left), "reference still needs", "references still need")
        lines += ["", f"{waiting} a person: see the unticked items above."]
    body = "\n".join(lines) + "\n"
    if len(body) > BODY_LIMIT:
        body = body[: BODY_LIMIT - 80].rsplit("\n", 1)[0] + "\n\n_…the list was cut to fit; see the check run._\n"
    return body


def render_text(result: FixResult, written: list[str]) -> str:
    """The command line's report: one line per claim handled, then what was written and what it cost."""
    out = []
    page = None
    for outcome in result.outcomes:
        if outcome.page != page:
            page = outcome.page
            out.append(one_line(page))
        icon, statement = _ICONS[outcome.action], clip(outcome.statement, _STATEMENT_WIDTH)
        out.append(f"  {icon} {outcome.action.value:<14} {one_line(outcome.claim_id)}  {statement}")
        if outcome.new_statement:
            out.append(f"      now: {clip(outcome.new_statement, _NEW_STATEMENT_WIDTH)}")
        if outcome.evidence_after != outcome.evidence_before and outcome.evidence_after:
            out.append(f"      evidence: {', '.join(one_line(r) for r in outcome.evidence_after)}")
        out.append(f"      {clip(outcome.reason, _REASON_WIDTH)}")
    for done in result.references:
        ref = done.reference
        shown = f"{clip(ref.text, 60)} → {clip(done.new_text, 60)}" if done.new_text else clip(ref.text, 60)
        out.append(f"  {'✎' if done.rewritten else '!'} {one_line(ref.page)}:{ref.line}  {shown}")
        out.append(f"      {clip(done.reason, _REASON_WIDTH)}")
    if not result.outcomes and not result.references:
        out.append("Nothing to fix: no claim or reference needs attention.")
    out.append("")
    out.append(f"Wrote {plural(len(written), 'file')}" + (": " + ", ".join(written) if written else "."))
    if result.model:
        u = result.usage
        tokens = f"{plural(u.total, 'token')} (prompt {u.prompt_tokens:,}, completion {u.completion_tokens:,})"
        out.append(f"Model {one_line(result.model)}: {tokens}, {plural(u.calls, 'call')}.")
    flagged = result.flagged
    if flagged:
        out.append(plural(len(flagged), "claim still needs a person.", "claims still need a person."))
    if result.references_left:
        out.append(plural(len(result.references_left), "reference still needs", "references still need") + " a person.")
    return "\n".join(out) + "\n"


def model_line(model: str, usage: Usage) -> str:
    """What the model was and what it cost, for a pull request's body (the fix's and the grounding's)."""
    return (
        f"Model: {code(model)} · {plural(usage.total, 'token')} (prompt {usage.prompt_tokens:,}, "
        f"completion {usage.completion_tokens:,}) in {plural(usage.calls, 'call')}"
        + (f"; {plural(usage.reused, 'page')} reused earlier answers" if usage.reused else "")
    )
