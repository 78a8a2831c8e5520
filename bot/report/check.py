"""Renders a sweep report: readable text grouped by page, markdown for a check run, stable JSON, and CI's formats
(GitHub workflow commands, SARIF: bot/report/ci.py); each can show only what needs attention."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..claims.results import BrokenReference, ClaimResult, EvidenceResult, PageCoverage, PageResult, SweepReport
from ..claims.snippet import claim_wording
from ..claims.verdicts import Verdict
from ..ground.baseline import is_baselined
from .attention import attention_only as needing_attention
from .inert import code, fence, prose
from .jsonout import dumps_chunks
from .phrasing import broken_note, diff_lines, evidence_note, summary_line
from .wording import clip, one_line, plural, printable

JSON_FORMAT_VERSION = 1
_STATEMENT_WIDTH = 90
FORMATS = ("text", "markdown", "json", "github", "sarif")
ATTENTION_ONLY_NOTE = "Only what needs attention is listed."
# A check writes nothing: the same text at another place needs no decision, and a fix (`wikiwarden fix`, the App's
# or the Action's fix pull request) re-anchors it.
REANCHOR_SECTION = "Moved or cosmetic: a fix re-anchors them, nothing to decide"
_ICONS = {
    Verdict.FRESH: "✓",
    Verdict.MOVED: "↪",
    Verdict.COSMETIC: "≈",
    Verdict.STALE: "✗",
    Verdict.UNRESOLVED: "?",
    Verdict.ERROR: "!",
}


def _coverage_line(report: SweepReport) -> str | None:
    if not report.coverage:
        return None
    with_claims = sum(1 for c in report.coverage if c.claims)
    paragraphs = sum(c.paragraphs for c in report.coverage)
    grounded = sum(c.grounded for c in report.coverage)
    share = f"{100 * grounded / paragraphs:.0f}%" if paragraphs else "no"
    return (
        f"Coverage: claims on {with_claims} of {plural(len(report.coverage), 'page')}; "
        f"{share} of {plural(paragraphs, 'paragraph')} carry a grounded quote"
    )


def _page_coverage(c: PageCoverage) -> str:
    share = f" ({100 * c.grounded / c.paragraphs:.0f}%)" if c.paragraphs else ""
    return f"{plural(c.claims, 'claim')}, {c.grounded} of {plural(c.paragraphs, 'paragraph')} grounded{share}"


def _header(report: SweepReport) -> str:
    base = f" · base: {one_line(report.base)}" if report.base else " · full sweep"
    return f"Wikiwarden check · {one_line(report.wiki_dir)}/ · head: {one_line(report.head)}{base}"


def _where(evidence: EvidenceResult) -> str:
    if evidence.resource_now and evidence.resource_now != evidence.resource:
        return f"{evidence.resource} → {evidence.resource_now}"
    return evidence.resource


def render_text(report: SweepReport, verbose: bool = False, attention_only: bool = False) -> str:
    """A readable report grouped by page; fresh claims are counted, listed only when `verbose`; with
    `attention_only`, only what needs attention is listed (the summary still counts everything checked)."""
    if attention_only:
        report = needing_attention(report)
    out = [_header(report), summary_line(report)]
    if attention_only:
        out.append(ATTENTION_ONLY_NOTE)
    if report.unaffected_pages:
        out.append(
            "Only claims citing what this change touched were re-checked; "
            f"{plural(report.unaffected_pages, 'page cites', 'pages cite')} nothing it touched "
            "(--all re-checks everything)."
        )
    for page in report.pages:
        out += _text_page(page, report, verbose)
    out += _text_references(report, verbose)
    coverage = _coverage_line(report)
    if coverage:
        out.append("")
        out.append(coverage)
        if verbose:
            out.extend(f"  {one_line(c.page)}  {_page_coverage(c)}" for c in report.coverage)
    if report.ungrounded_pages and verbose:
        out.append("")
        out.append("Pages without claims: " + ", ".join(one_line(p) for p in report.ungrounded_pages))
    return "\n".join(out) + "\n"


def _text_page(page: PageResult, report: SweepReport, verbose: bool) -> list[str]:
    """A page's lines: its claims (fresh ones counted unless `verbose`), each with the evidence that changed."""
    out = ["", one_line(page.page)]
    if page.error:
        return [*out, f"  ! error       {one_line(page.error)}"]
    fresh = 0
    for claim in page.claims:
        if claim.verdict is Verdict.FRESH and not verbose:
            fresh += 1
            continue
        mark = ""
        if claim.touched:
            mark = "  [this change]"
        elif report.base and claim.verdict.needs_attention:
            mark = "  [before this change]"
        statement = clip(claim_wording(page.page, claim) or claim.statement, _STATEMENT_WIDTH)
        out.append(f"  {_ICONS[claim.verdict]} {claim.verdict.value:<11} {one_line(claim.id)}  {statement}{mark}")
        if claim.error:
            out.append(f"      {one_line(claim.error)}")
        for evidence in claim.evidence:
            if evidence.verdict is Verdict.FRESH and not verbose:
                continue
            note = one_line(evidence_note(evidence))
            where = one_line(_where(evidence))
            out.append(f"      {evidence.verdict.value}: {where}" + (f"  ({note})" if note else ""))
            out.extend(f"        {printable(line)}" for line in diff_lines(evidence.old_text, evidence.new_text))
    if fresh:
        out.append(f"  ✓ {fresh} fresh")
    return out


def _text_references(report: SweepReport, verbose: bool) -> list[str]:
    """The broken references that fail the check, the notes (listed when `verbose`, else counted), and the pages
    not read."""
    out: list[str] = []
    failing = [ref for ref in report.broken_references if ref.attention]
    notes = [ref for ref in report.broken_references if not ref.attention]
    if failing:
        out.append("")
        out.append(f"Broken references ({len(failing)}):")
        out.extend(_text_reference(ref, report, "✗") for ref in failing)
    if notes and verbose:
        out.append("")
        out.append(f"References to check, not failing ({len(notes)}):")
        for ref in notes:
            out += [_text_reference(ref, report, "·"), f"      {one_line(ref.note or '')}"]
    elif notes:
        known = [ref for ref in notes if is_baselined(ref.note)]
        doubtful = len(notes) - len(known)
        out.append("")
        if known:
            out.append(
                f"{plural(len(known), 'reference')} in the baseline: known breakage, broken before it was written; "
                "not failing (--verbose lists them)."
            )
        if doubtful:
            out.append(
                f"{plural(doubtful, 'reference names', 'references name')} what is gone but not for certain: "
                "notes, not failing (--verbose lists them)."
            )
    out += [f"Not read: {one_line(skipped)}: {one_line(why)}" for skipped, why in report.skipped_pages]
    return out


def _text_reference(ref: BrokenReference, report: SweepReport, mark: str) -> str:
    target = "" if ref.target == ref.text else f" ({one_line(ref.target)})"
    note = broken_note(ref, report.base is not None)
    return f"  {mark} {one_line(ref.page)}:{ref.line}  {clip(ref.text, 60)}{target}: {note}"


def _md_claim(page: PageResult, claim: ClaimResult) -> list[str]:
    """A claim in the check run's summary; every string from the repository goes through `inert`."""
    lines = [f"- **{prose(claim.statement)}**  ", f"  {code(page.page)} · {code(claim.id)} · {claim.verdict.value}"]
    if claim.error:
        lines.append(f"  - {prose(claim.error)}")
    for evidence in claim.evidence:
        where = code(evidence.resource)
        if evidence.resource_now and evidence.resource_now != evidence.resource:
            where += f" → {code(evidence.resource_now)}"
        note = evidence_note(evidence, fix_hint=False)  # its section says what re-anchors it
        lines.append(f"  - {evidence.verdict.value}: {where}" + (f" — {prose(note)}" if note else ""))
        diff = diff_lines(evidence.old_text, evidence.new_text)
        if diff:  # code, shown verbatim in a fence no line of it can close
            marker = fence("\n".join(diff))
            lines += ["", "    <details><summary>what changed</summary>", "", f"    {marker}diff"]
            lines += [f"    {line}" for line in diff]
            lines += [f"    {marker}", "    </details>", ""]
    return lines


def render_markdown(report: SweepReport, limit: int | None = None, attention_only: bool = False) -> str:
    """The check run's summary: counts, then the claims grouped by what they need; cut safely at `limit`. With
    `attention_only`, the counts are the whole check's and only what needs attention is listed."""
    if attention_only:
        report = needing_attention(report)
    head = _md_head(report, attention_only)
    body = _md_claims(report, limit, sum(len(line) + 1 for line in head))
    unreadable = [p for p in report.pages if p.error]
    if unreadable:
        body += ["", f"### Unreadable sidecars ({len(unreadable)})", ""]
        body += [f"- {code(p.sidecar)}: {prose(p.error or '')}" for p in unreadable]
    body += _md_references(report)
    coverage = _coverage_line(report)
    if coverage:
        body += ["", f"### {prose(coverage)}", "", "<details><summary>per page</summary>", ""]
        body += ["| page | claims | paragraphs | grounded |", "|---|---:|---:|---:|"]
        body += [f"| {prose(c.page)} | {c.claims} | {c.paragraphs} | {c.grounded} |" for c in report.coverage]
        body += ["", "</details>"]
    return _truncate("\n".join(head + body) + "\n", limit)


def _md_head(report: SweepReport, attention_only: bool) -> list[str]:
    s = report.summary
    head = [
        f"**{summary_line(report)}**",
        "",
        "| " + " | ".join(v.value for v in Verdict) + " |",
        "|" + "---:|" * len(Verdict),
        "| " + " | ".join(str(s[v.value]) for v in Verdict) + " |",
    ]
    if report.unaffected_pages:
        head += [
            "",
            "Only claims citing what this change touched were re-checked; "
            f"{plural(report.unaffected_pages, 'page cites', 'pages cite')} nothing it touched.",
        ]
    if attention_only:
        head += ["", f"_{ATTENTION_ONLY_NOTE}_"]
    return head


def _md_claims(report: SweepReport, limit: int | None, size: int) -> list[str]:
    """The claims grouped by what they need, the first few while the summary stays under `limit` (`size` is what
    it holds before them)."""
    claims = report.claims()
    touched_attention = [(p, c) for p, c in claims if c.touched and c.verdict.needs_attention]
    older = [(p, c) for p, c in claims if not c.touched and c.verdict.needs_attention]
    anchored = [(p, c) for p, c in claims if c.verdict in (Verdict.MOVED, Verdict.COSMETIC)]
    sections: list[tuple[str, list[tuple[PageResult, ClaimResult]]]] = [
        ("Made stale by this change" if report.base else "Need attention", touched_attention),
        ("Already stale before this change" if report.base else "", older),
        (REANCHOR_SECTION, anchored),
    ]
    if not report.base:
        sections = [("Need attention", touched_attention + older), sections[2]]
    body: list[str] = []
    for title, items in sections:
        if items:
            body += ["", f"### {title} ({len(items)})", ""]
            for page, claim in items:
                if limit is not None and size > limit:  # all that follows is cut: a check run shows the first few
                    break
                lines = _md_claim(page, claim)
                size += sum(len(line) + 1 for line in lines)
                body += lines
    return body


def _md_references(report: SweepReport) -> list[str]:
    body: list[str] = []
    failing = [ref for ref in report.broken_references if ref.attention]
    notes = [ref for ref in report.broken_references if not ref.attention]
    if failing:
        body += ["", f"### Broken references ({len(failing)})", ""]
        body += [_md_reference(ref, report) for ref in failing]
    if notes:
        body += ["", f"<details><summary>References to check, not failing ({len(notes)})</summary>", ""]
        body += [f"{_md_reference(ref, report)} — {prose(ref.note or '')}" for ref in notes]
        body += ["", "</details>"]
    if report.skipped_pages:
        body += ["", f"### Pages not read ({len(report.skipped_pages)})", ""]
        body += [f"- {code(page)}: {prose(why)}" for page, why in report.skipped_pages]
    return body


def _md_reference(ref: BrokenReference, report: SweepReport) -> str:
    target = "" if ref.target == ref.text else f" ({code(ref.target)})"
    note = prose(broken_note(ref, report.base is not None))
    return f"- {code(ref.page)} line {ref.line}: {code(ref.text)}{target}: {note}"


def _truncate(text: str, limit: int | None) -> str:
    """Cut at a line boundary below `limit`, close an open code fence and details where they were opened (at
    their indentation, or the list item holding them would end first), and say so."""
    if limit is None or len(text) <= limit:
        return text
    note = "\n\n_…the report was cut here to fit; run `wikiwarden check` locally for the rest._\n"
    budget = limit - len(note) - 64  # room for the closing lines
    kept: list[str] = []
    size = 0
    open_fence: str | None = None  # the opening line's indentation and backticks
    details: list[str] = []  # the indentation of each details left open
    for line in text.splitlines():
        if size + len(line) + 1 > budget:
            break
        kept.append(line)
        size += len(line) + 1
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if stripped.startswith("```"):
            ticks = stripped[: len(stripped) - len(stripped.lstrip("`"))]
            if open_fence is None:
                open_fence = indent + ticks
            elif stripped == open_fence.strip():
                open_fence = None
        elif open_fence is None and stripped.startswith("<details>"):  # inside a fence it is code
            details.append(indent)
        elif open_fence is None and stripped.startswith("</details>") and details:
            details.pop()
    if open_fence:
        kept.append(open_fence)
    kept.extend(indent + "</details>" for indent in reversed(details))
    return "\n".join(kept) + note


def _page_json(page: PageResult) -> dict[str, Any]:
    """One page of the JSON document. Verdicts are StrEnum members: equal to their values and written as them, with
    no property call per record (a full sweep lists every evidence record, most of them fresh)."""
    return {
        "page": page.page,
        "sidecar": page.sidecar,
        "error": page.error,
        "claims": [
            {
                "id": claim.id,
                "statement": claim.statement,
                "verdict": claim.verdict,
                "touched": claim.touched,
                "error": claim.error,
                "evidence": [
                    {
                        "resource": resource,
                        "verdict": verdict,
                        "openwiki_verdict": ow,
                        "span": list(span) if span else None,
                        "resource_now": now,
                        "version_now": version_now,
                        "touched": touched,
                        "error": error,
                        "old_text": old,
                        "new_text": new,
                    }
                    # unpacked, not read field by field: a full sweep lists every record
                    for resource, _, verdict, ow, span, now, version_now, touched, error, old, new, _ in claim.evidence
                ],
            }
            for claim in page.claims
        ],
    }


def _document(report: SweepReport, attention_only: bool, pages: list[Any]) -> dict[str, Any]:
    shown = needing_attention(report) if attention_only else report
    return {
        "format_version": JSON_FORMAT_VERSION,
        "mode": report.mode,
        "head": report.head,
        "base": report.base,
        "wiki_dir": report.wiki_dir,
        "summary": report.summary,
        "needs_attention": report.needs_attention,
        "attention_only": attention_only,
        "pages": pages,
        "ungrounded_pages": list(shown.ungrounded_pages),
        "broken_references": [
            ref._asdict() | {"at": list(ref.at) if ref.at else None} for ref in shown.broken_references
        ],
        "coverage": [c._asdict() for c in shown.coverage],
        "skipped_pages": [{"page": page, "why": why} for page, why in shown.skipped_pages],
    }


def report_json(report: SweepReport, attention_only: bool = False) -> dict[str, Any]:
    """The stable JSON document (`format_version` 1), documented in the README. With `attention_only` (which it
    says) its lists hold only what needs attention; the summary and `needs_attention` are the whole check's."""
    shown = needing_attention(report) if attention_only else report
    return _document(report, attention_only, [_page_json(page) for page in shown.pages])


def report_json_chunks(report: SweepReport, attention_only: bool = False) -> Iterator[bytes | memoryview]:
    """`report_json` encoded, in pieces a page at a time: the whole document's dicts never exist at once (a 100k-claim
    sweep's would be hundreds of megabytes, and the garbage collector's passes over them cost more than encoding)."""
    shown = needing_attention(report) if attention_only else report
    head = _document(report, attention_only, [])
    return dumps_chunks(head, "pages", (_page_json(page) for page in shown.pages))


def render_json_bytes(report: SweepReport, attention_only: bool = False) -> bytes:
    """The JSON document as UTF-8 bytes."""
    return b"".join(report_json_chunks(report, attention_only))


def render_json(report: SweepReport, attention_only: bool = False) -> str:
    return render_json_bytes(report, attention_only).decode()


def render(report: SweepReport, fmt: str, verbose: bool = False, attention_only: bool | None = None) -> str:
    """The report in one of `FORMATS`. `attention_only` None is the format's own default: on for `github`, whose
    annotations are for what needs a person, off for the others; `sarif` only ever holds what needs attention."""
    only = fmt == "github" if attention_only is None else attention_only
    if fmt in ("github", "sarif"):
        from .ci import render_github, render_sarif  # noqa: PLC0415 - the CI formats' module: only when asked for

        return render_github(report, attention_only=only) if fmt == "github" else render_sarif(report)
    if fmt == "json":
        return render_json(report, attention_only=only)
    if fmt == "markdown":
        return render_markdown(report, attention_only=only)
    if fmt == "text":
        return render_text(report, verbose=verbose, attention_only=only)
    raise ValueError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")


__all__ = (
    "FORMATS",
    "render",
    "render_json",
    "render_json_bytes",
    "render_markdown",
    "render_text",
    "report_json",
    "report_json_chunks",
    "summary_line",
)
