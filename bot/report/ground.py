"""What grounding found and did, for people and for programs: the text report and the JSON document of
`wikiwarden ground` (with `--dry-run` or no model: each page's references and candidate evidence)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..ground.build import PageGrounding
from ..ground.work import GroundWork
from .jsonout import dumps as _dumps
from .wording import clip, one_line, plural

FORMAT_VERSION = 1


def plan_json(work: Sequence[GroundWork], waiting: Sequence[str], wiki_dir: str, head: str) -> dict[str, Any]:
    """The dry run's document: per page its references and candidates, and the pages left for a later run."""
    return {
        "format_version": FORMAT_VERSION,
        "mode": "plan",
        "wiki_dir": wiki_dir,
        "head": head,
        "pages": [
            {
                "page": item.page,
                "problem": item.problem,
                "claims": len(item.statements),
                "references": [
                    {
                        "text": ref.mention.text,
                        "kind": ref.mention.kind,
                        "line": ref.mention.line,
                        "targets": [
                            {
                                "path": t.path,
                                "definition": t.definition.qualified if t.definition else None,
                                "kind": t.definition.kind if t.definition else ("file" if t.path else None),
                                "lines": [t.definition.start, t.definition.end] if t.definition else None,
                            }
                            for t in ref.targets
                        ],
                    }
                    for ref in item.references
                ],
                "candidates": [{"resource": c.resource, "why": c.why} for c in item.candidates],
            }
            for item in work
        ],
        "waiting": list(waiting),
    }


def result_json(
    pages: Sequence[PageGrounding], waiting: Sequence[str], written: Sequence[str], model: str | None, usage: Any
) -> dict[str, Any]:
    """The document of a grounding run: per page what was added, corrected, left unsupported or refused."""
    return {
        "format_version": FORMAT_VERSION,
        "mode": "ground",
        "model": model,
        "pages": [
            {
                "page": p.page,
                "problem": p.problem,
                "added": [
                    {"id": c.id, "statement": c.statement, "evidence": [r.resource for r in c.evidence]}
                    for c in p.added
                ],
                "corrected": p.corrected,
                "unsupported": [{"quote": u.quote, "reason": u.reason} for u in p.unsupported],
                "refused": [{"statement": s, "why": why} for s, why in p.refused],
            }
            for p in pages
        ],
        "written": list(written),
        "waiting": list(waiting),
        "usage": {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "calls": usage.calls,
        },
    }


def render_plan_text(work: Sequence[GroundWork], waiting: Sequence[str]) -> str:
    lines: list[str] = []
    for item in work:
        lines.append(one_line(item.page) + (f"  ! {one_line(item.problem)}" if item.problem else ""))
        for ref in item.references:
            targets = ", ".join(one_line(t.label) for t in ref.targets[:3])
            more = f" and {len(ref.targets) - 3} more" if len(ref.targets) > 3 else ""
            lines.append(f"  line {ref.mention.line}: {clip(ref.mention.text, 60)} → {targets}{more}")
        if item.candidates:
            lines.append(f"  {plural(len(item.candidates), 'candidate')} for `wikiwarden claim add`:")
            lines.extend(f"    {one_line(c.resource)}  ({clip(c.why, 80)})" for c in item.candidates)
        else:
            lines.append("  no candidate evidence: the page names no path or definition of the code")
    if waiting:
        lines.append(f"left for a later run: {plural(len(waiting), 'more page')} without claims")
    return "".join(line + "\n" for line in lines)


def render_result_text(pages: Sequence[PageGrounding], waiting: Sequence[str], written: Sequence[str]) -> str:
    lines: list[str] = []
    for p in pages:
        lines.append(one_line(p.page))
        for claim in p.added:
            lines.append(f"  + {one_line(claim.id)}  {clip(claim.statement, 90)}")
            lines.extend(f"      {one_line(r.resource)}" for r in claim.evidence)
        if p.corrected:
            lines.append("  ✎ the prose was corrected where the code contradicts it")
        lines.extend(f"  ? unsupported: “{clip(u.quote, 70)}” ({clip(u.reason, 80)})" for u in p.unsupported)
        lines.extend(f"  ! refused: “{clip(s, 70)}” ({clip(why, 80)})" for s, why in p.refused)
        if p.problem:
            lines.append(f"  ! {one_line(p.problem)}")
        if not (p.added or p.corrected or p.unsupported or p.refused or p.problem):
            lines.append("  nothing to claim: the page states nothing the code shows")
    if written:
        lines.append(f"Wrote {plural(len(written), 'file')}: " + ", ".join(one_line(w) for w in written))
    if waiting:
        lines.append(f"left for the next run: {plural(len(waiting), 'more page')} without claims")
    return "".join(line + "\n" for line in lines)


def dumps(document: dict[str, Any]) -> str:
    return _dumps(document)
