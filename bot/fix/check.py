"""Every answer is checked before anything is applied: the model can decide claims and edit the prose of the
page under review, nothing else. Repository content is untrusted: nothing it says can widen these rules.

- each claim to decide is answered exactly once, and nothing else is answered;
- `confirm` needs evidence that still stands; `update` needs a statement or evidence, and its evidence must
  resolve in the head commit under the evidence rules (no symlinks, binaries, ignored files or wiki pages);
- an identifier a statement quotes in backticks must occur in the claim's evidence;
- edits name the page under review (never a sidecar, another page or a file outside the wiki), match the
  page's body exactly once, and leave its front matter as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..claims.errors import Problem
from ..claims.sidecar import EvidenceRecord, js_trim
from ..claims.verdicts import Verdict
from ..claims.versions import file_version, lines_version
from ..okf.frontmatter import Page
from .answer import ClaimDecision, PageAnswer, TextEdit
from .view import CodeView
from .work import ClaimWork, PageWork

_QUOTED = re.compile(r"`([^`\n]{1,200})`")
_CALL = re.compile(r"([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*)(?:\([^()]*\))?")
_PARTS = re.compile(r"\.|::|#")
MAX_STATEMENT = 2000
MAX_EDIT = 20_000
# What a statement may not hold: controls (a NUL, a line break, an escape: a statement is one line of text, written
# into a sidecar and from there into check runs and pull requests), line and paragraph separators, the
# bidirectional controls that make text read otherwise than it is stored (U+202E), and lone surrogates (no UTF-8).
_NOT_PLAIN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


@dataclass(frozen=True)
class Decision:
    action: str  # confirm, update or retract
    statement: str
    evidence: tuple[EvidenceRecord, ...]
    reason: str


@dataclass
class Checked:
    decisions: dict[str, Decision] = field(default_factory=dict)  # the decisions that passed
    text: str = ""  # the page after the edits (when every edit passed)
    claim_problems: dict[str, str] = field(default_factory=dict)  # claim id → why its decision was refused
    other_problems: list[str] = field(default_factory=list)  # edits and answers to claims not asked about
    trespass: list[str] = field(default_factory=list)  # files other than the page an edit tried to change

    @property
    def problems(self) -> list[str]:
        return [*self.claim_problems.values(), *self.other_problems]

    @property
    def ok(self) -> bool:
        return not self.claim_problems and not self.other_problems


def current_evidence(work: ClaimWork) -> tuple[tuple[EvidenceRecord, ...] | None, str | None]:
    """The claim's evidence re-baselined where its text stands now (confirm), or why it cannot be."""
    records = []
    for evidence in work.result.evidence:
        if evidence.verdict is Verdict.FRESH:
            records.append(EvidenceRecord(evidence.resource, evidence.version))
        elif evidence.resource_now and evidence.version_now and evidence.verdict is not Verdict.UNRESOLVED:
            records.append(EvidenceRecord(evidence.resource_now, evidence.version_now))
        elif evidence.verdict is Verdict.UNRESOLVED:
            return None, f"its evidence {evidence.resource} is gone; give new evidence (update) or retract it"
        else:
            return None, f"its evidence {evidence.resource} cannot be read: {evidence.error}"
    return tuple(records), None


async def new_evidence(resources: list[str], view: CodeView) -> tuple[tuple[EvidenceRecord, ...] | None, list[str]]:
    """Evidence a model proposes, resolved in the head commit with versions computed here (never the model's):
    the records, or None and why each resource was refused."""
    records, problems, seen = [], [], set()
    for resource in resources:
        resolved = await view.resolve(resource)
        if isinstance(resolved, Problem):
            problems.append(f"evidence {resource!r} does not resolve: {resolved.message}")
            continue
        res, text = resolved
        if res.canonical in seen:
            problems.append(f"evidence {res.canonical} is listed twice")
            continue
        seen.add(res.canonical)
        if res.start is None or res.end is None:
            version = file_version(text)
        else:
            version = lines_version(text, res.start - 1, res.end)
        records.append(EvidenceRecord(res.canonical, version))
    return (tuple(records) if not problems else None), problems


async def evidence_texts(records: tuple[EvidenceRecord, ...], view: CodeView) -> list[str]:
    """The text each record cites (the whole file for whole-file evidence)."""
    texts = []
    for record in records:
        resolved = await view.resolve(record.resource)
        if isinstance(resolved, Problem):
            continue
        res, text = resolved
        if res.start is None or res.end is None:
            texts.append(text.text)
        else:
            texts.append(text.join(res.start - 1, res.end).decode())
    return texts


def statement_problem(statement: str) -> str | None:
    """Why a statement the model wrote cannot be a claim's (the fix's and grounding's one rule), or None."""
    if not statement or len(statement) > MAX_STATEMENT:
        return f"the statement must be 1 to {MAX_STATEMENT} characters"
    found = _NOT_PLAIN.search(statement)
    if found is not None:
        return f"the statement holds a control character (U+{ord(found.group()):04X}); write one line of plain text"
    return None


def _same_page(file: str, page: str) -> bool:
    return file.replace("\\", "/").lstrip("/").removeprefix("./") == page


def unvouched_names(statement: str, texts: list[str]) -> list[str]:
    """The identifiers a statement quotes in backticks that none of its evidence texts contains. A call
    (`drain()`, `push(item)`) stands for its name, and a qualified name (`TaskQueue.drain`, `queue::drain`) is
    vouched for when each of its parts is in the evidence: a method's lines hold its name, not its class's path."""
    return [quoted for quoted in _QUOTED.findall(statement) if not _vouched(quoted, texts)]


def _vouched(quoted: str, texts: list[str]) -> bool:
    if any(quoted in text for text in texts):
        return True
    call = _CALL.fullmatch(quoted)
    return call is not None and all(any(part in text for text in texts) for part in _PARTS.split(call.group(1)))


@dataclass
class Edited:
    """Prose edits of one page, checked: the page after them (None when any was refused), and why."""

    text: str | None
    problems: list[str] = field(default_factory=list)
    trespass: list[str] = field(default_factory=list)  # files other than the page an edit tried to change


def apply_edits(edits: list[TextEdit], page_path: str, text: str, wiki_dir: str, who: str = "the fix") -> Edited:
    """Exact search-and-replace edits of the page's body: each names the page itself, matches its body exactly
    once and leaves the front matter as it is; one refused edit refuses them all (nothing half applied)."""
    problems: list[str] = []
    trespass: list[str] = []
    page = Page.parse(text)
    body = page.body
    for edit in edits:
        if not _same_page(edit.file, page_path):
            where = "a sidecar" if "/.claims/" in f"/{edit.file}" else (
                "a file outside the wiki" if not edit.file.lstrip("/").startswith(wiki_dir + "/") else "another page"
            )  # fmt: skip
            problems.append(f"edit refused: {edit.file!r} is {where}; {who} may only change the prose of {page_path}")
            trespass.append(edit.file)
            continue
        if not edit.search or len(edit.replace) > MAX_EDIT:
            problems.append("edit refused: the search text is empty or the replacement too long")
            continue
        found = body.count(edit.search)
        if found != 1:
            where = " (edits change the body, never the front matter)" if edit.search in "".join(page.lines) else ""
            problems.append(f"edit refused: its search text occurs {found} times in the page body{where}")
            continue
        body = body.replace(edit.search, edit.replace, 1)
    page.body = body
    edited = page.render()
    if Page.parse(edited).lines != Page.parse(text).lines:
        problems.append("edit refused: the front matter must not change")
    return Edited(None if problems else edited, problems, trespass)


async def check_answer(answer: PageAnswer, work: PageWork, view: CodeView, wiki_dir: str) -> Checked:
    checked = Checked(text=work.text)
    wanted = {w.claim.id: w for w in work.to_decide}
    answered: set[str] = set()
    for decision in answer.claims:
        if decision.id not in wanted:
            checked.other_problems.append(f"claim {decision.id!r} is not one of the claims to decide on this page")
            continue
        if decision.id in answered:
            checked.claim_problems[decision.id] = f"claim {decision.id} is answered twice"
            checked.decisions.pop(decision.id, None)
            continue
        answered.add(decision.id)
        problem, accepted = await _check_decision(decision, wanted[decision.id], view)
        if accepted is not None:
            checked.decisions[decision.id] = accepted
        else:
            checked.claim_problems[decision.id] = f"claim {decision.id}: {problem}"
    for claim_id in wanted.keys() - answered:
        checked.claim_problems[claim_id] = f"claim {claim_id} was not answered"

    edited = apply_edits(answer.edits, work.page, work.text, wiki_dir)
    checked.other_problems.extend(edited.problems)
    checked.trespass.extend(edited.trespass)
    if edited.text is not None:  # None: an edit was refused, and none is applied
        checked.text = edited.text
    return checked


async def _check_decision(decision: ClaimDecision, item: ClaimWork, view: CodeView) -> tuple[str, Decision | None]:
    """One claim's decision, checked: the Decision to apply, or why it is refused."""
    if decision.action == "retract":
        return "", Decision("retract", item.claim.statement, (), decision.reason)
    statement = js_trim(decision.statement) if decision.statement is not None else item.claim.statement
    if decision.action == "confirm" and statement != item.claim.statement:
        return "a confirm keeps the statement as it is; to change it, answer update", None
    if decision.action == "update" and decision.statement is None and not decision.evidence:
        return "an update needs a new statement or new evidence", None
    problem = statement_problem(statement)
    if problem is not None:
        return problem, None
    if decision.action == "update" and decision.evidence:
        records, problems = await new_evidence(decision.evidence, view)
        if records is None:
            return "; ".join(problems), None
    else:
        records, why = current_evidence(item)
        if records is None:
            return f"it cannot be {decision.action}ed as it is: {why}", None
    missing = unvouched_names(statement, await evidence_texts(records, view))
    if missing:
        return f"the statement quotes `{missing[0]}`, which its evidence does not contain", None
    return "", Decision(decision.action, statement, records, decision.reason)


def reanchored(work: PageWork, claim_id: str) -> tuple[EvidenceRecord, ...] | None:
    """A claim's evidence with moved and cosmetic records rewritten to where the text stands now (no model)."""
    result = work.results.get(claim_id)
    if result is None:
        return None
    records = []
    for evidence in result.evidence:
        if evidence.verdict in (Verdict.MOVED, Verdict.COSMETIC) and evidence.resource_now and evidence.version_now:
            records.append(EvidenceRecord(evidence.resource_now, evidence.version_now))
        else:
            records.append(EvidenceRecord(evidence.resource, evidence.version))
    return tuple(records)
