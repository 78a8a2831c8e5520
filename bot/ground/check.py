"""A grounding answer, checked before anything is written: the model proposes, these rules decide.

Every rule of a fix answer holds (evidence resolves in the head commit under the evidence rules, versions are
computed here and never taken from the model, an identifier a statement quotes in backticks must stand in its
evidence, prose edits change only this page's body and match it exactly once), and grounding adds its own:
each claim's quote is text of the page body (verbatim; only runs of whitespace may differ, as a line wrap does),
statements are distinct, and a page gets at most `MAX_CLAIMS` claims. A refused claim is refused alone: the
others stand.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import dataclass, field

from ..claims.sidecar import EvidenceRecord, js_trim
from ..fix.check import apply_edits, evidence_texts, new_evidence, statement_problem, unvouched_names
from ..fix.view import CodeView
from ..okf.frontmatter import Page
from .answer import GroundAnswer, Unsupported
from .quotes import squeezed

MAX_CLAIMS = 40  # per page and run: a page states a few dozen material facts at most
MAX_QUOTE = 2000
MAX_EVIDENCE = 8


@dataclass(frozen=True)
class GroundedStatement:
    """A claim the answer made and the checks accepted: its statement, the page text it grounds, its evidence."""

    statement: str
    quote: str
    evidence: tuple[EvidenceRecord, ...]


@dataclass
class CheckedGrounding:
    text: str  # the page after the accepted prose edits (as it was when there were none, or they were refused)
    claims: list[GroundedStatement] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (statement, why) of the claims refused
    unsupported: list[Unsupported] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # everything refused, for the model to correct
    trespass: list[str] = field(default_factory=list)  # files other than the page an edit tried to change

    @property
    def ok(self) -> bool:
        return not self.problems


async def check_grounding(
    answer: GroundAnswer, page: str, text: str, view: CodeView, wiki_dir: str, known: Collection[str] = ()
) -> CheckedGrounding:
    """Check one page's answer against its text (`known`: statements the page's sidecar already holds)."""
    edited = apply_edits(answer.edits, page, text, wiki_dir, who="grounding")
    checked = CheckedGrounding(edited.text if edited.text is not None else text)
    checked.problems.extend(edited.problems)
    checked.trespass.extend(edited.trespass)
    body = squeezed(Page.parse(checked.text).body)
    seen = {js_trim(s) for s in known}
    for n, claim in enumerate(answer.claims, start=1):
        statement = js_trim(claim.statement)
        why = await _refusal(statement, claim.quote, claim.evidence, body, seen, view)
        if why is None and len(checked.claims) >= MAX_CLAIMS:
            why = f"at most {MAX_CLAIMS} claims are grounded on a page in one run"
        if why is not None:
            checked.refused.append((statement, why))
            checked.problems.append(f"claim {n} ({statement[:80]!r}): {why}")
            continue
        seen.add(statement)
        records, _ = await new_evidence(claim.evidence, view)
        assert records is not None  # checked by _refusal
        checked.claims.append(GroundedStatement(statement, claim.quote.strip(), records))
    for item in answer.unsupported:
        if not item.quote.strip() or squeezed(item.quote) not in body:
            checked.problems.append(f"unsupported text {item.quote[:80]!r} is not text of the page body")
        elif not item.reason.strip():
            checked.problems.append(f"unsupported text {item.quote[:80]!r} needs a reason")
        else:
            checked.unsupported.append(item)
    return checked


async def _refusal(
    statement: str, quote: str, resources: list[str], body: str, seen: set[str], view: CodeView
) -> str | None:
    problem = statement_problem(statement)
    if problem is not None:
        return problem
    if statement in seen:
        return "the same statement is already a claim of this page"
    if not quote.strip() or len(quote) > MAX_QUOTE:
        return f"the quote must be 1 to {MAX_QUOTE} characters of the page"
    if squeezed(quote) not in body:
        return "its quote is not text of the page body (copy it verbatim)"
    if not resources or len(resources) > MAX_EVIDENCE:
        return f"a claim needs 1 to {MAX_EVIDENCE} evidence resources"
    records, problems = await new_evidence(resources, view)
    if records is None:
        return "; ".join(problems)
    missing = unvouched_names(statement, await evidence_texts(records, view))
    if missing:
        return f"the statement quotes `{missing[0]}`, which its evidence does not contain"
    return None


def claim_id(page: str, statement: str, taken: Collection[str]) -> str:
    """A claim id in OpenWiki's form (`claim_` and 32 hex digits), derived from the page and the statement: the
    same commit and the same answers give the same ids (OpenWiki draws random ones; any unique id is valid)."""
    for n in range(1000):
        seed = f"{page}\n{statement}" + (f"\n{n}" if n else "")
        candidate = "claim_" + hashlib.sha256(seed.encode()).hexdigest()[:32]
        if candidate not in taken:
            return candidate
    raise ValueError("no free claim id")  # 1,000 collisions of sha256 prefixes: not reachable
