"""A stale code block copied from the source, rewritten from the lines it copies, without a model.

A snippet claim (`claims/snippet.py`) is stale when the lines its block copies changed. The block is found on the
page by its text (each part between elisions shows the recorded lines of its record, under one indentation shift),
else at the page line its statement names; each part is rewritten from the lines its evidence stands on now, with
the block's own indentation, the page's indentation of the block (a list item's) and its elision lines kept; the
claim is re-anchored to those lines. Also the pure line rules the finding shares (`ground/snippets.py`): parts,
shifts, elision lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import NamedTuple
from urllib.parse import unquote

from ..claims.errors import Problem
from ..claims.results import EvidenceResult
from ..claims.sidecar import EvidenceRecord
from ..claims.snippet import parse_snippet, restated
from ..claims.verdicts import Verdict
from ..claims.versions import lines_version
from .check import Decision
from .view import CodeView
from .work import ClaimWork, PageWork

ELISION = re.compile(
    r"[ \t]*(?:(?:#|//|--|;|/\*|<!--|\*|%)[ \t]*)?(?:\.\.\.|…|\[\.\.\.\]|\.\.\. ?snip ?\.\.\.)[ \t]*(?:\*/|-->)?[ \t]*"
)
# An embedme marker: a first line naming the file (and lines) the block comes from, itself no part of the copy.
FIRST_LINE_MARKER = re.compile(r"[ \t]*(?:#|//|--|;)[ \t]*([\w./-]+\.[\w]+)(?:#L([0-9]+)(?:-L?([0-9]+))?)?[ \t]*")
# How much of the old text the new must keep (difflib's ratio, on characters) for a block to be rewritten from it:
# below, something else took the code's place (a docstring's example became prose), and a person should look.
MIN_LIKENESS = 0.5
REWRITTEN = "the code block was rewritten from the lines of the source it copies, and re-anchored to them"


class Shift(NamedTuple):
    """How a part's lines relate to the file's: `prefix` taken off every file line (`deeper` True, the block shows
    the code less indented) or added to it (`deeper` False)."""

    prefix: str
    deeper: bool

    def to_block(self, line: str) -> str:
        """A file line as the block shows it."""
        if not line.strip():
            return ""
        if self.deeper:
            return line[len(self.prefix) :] if line.startswith(self.prefix) else line.lstrip(" \t")
        return self.prefix + line


class Part(NamedTuple):
    """A run of a block's lines between elisions (blank lines at either end left out)."""

    first: int  # 0-based index of its first line in the block
    lines: tuple[str, ...]  # right-stripped


def parts_of(text: str) -> list[Part]:
    """A block's parts: its lines split at elision lines, blank lines at each part's ends dropped."""
    lines = [line.rstrip() for line in text.split("\n")]
    found: list[Part] = []
    start = 0
    for n in [*(i for i, line in enumerate(lines) if ELISION.fullmatch(line)), len(lines)]:
        chunk = lines[start:n]
        lead = next((i for i, line in enumerate(chunk) if line.strip()), None)
        if lead is not None:
            tail = max(i for i, line in enumerate(chunk) if line.strip())
            found.append(Part(start + lead, tuple(chunk[lead : tail + 1])))
        start = n + 1
    return found


def shift_between(block_line: str, file_line: str) -> Shift | None:
    """The one shift turning `file_line` into `block_line` (both not blank, right-stripped), or None."""
    if file_line.endswith(block_line):
        prefix = file_line[: len(file_line) - len(block_line)]
        return Shift(prefix, True) if not prefix.strip(" \t") else None
    if block_line.endswith(file_line):
        prefix = block_line[: len(block_line) - len(file_line)]
        return Shift(prefix, False) if not prefix.strip(" \t") else None
    return None


def part_shift(part: Sequence[str], lines: Sequence[str], start: int) -> Shift | None:
    """The shift under which `lines[start:]` begins with `part`, or None when it does not."""
    if start < 0 or start + len(part) > len(lines):
        return None
    shift: Shift | None = None
    for block_line, file_line in zip(part, lines[start : start + len(part)], strict=True):
        if not block_line.strip() or not file_line.strip():
            if block_line.strip() or file_line.strip():
                return None
            continue
        if shift is None:
            shift = shift_between(block_line, file_line)
            if shift is None:
                return None
        elif shift.to_block(file_line) != block_line:
            return None
    return shift


def rewritable(old: str, new: str) -> bool:
    """Whether the new text is the old code changed, not something else in its place (`MIN_LIKENESS`)."""
    return SequenceMatcher(None, old, new, autojunk=False).ratio() >= MIN_LIKENESS


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def indent_shift(block_line: str, file_line: str) -> Shift:
    """The shift between two lines' indentations alone (their text may differ: the source changed)."""
    block, source = _indent(block_line), _indent(file_line)
    if source.startswith(block):
        return Shift(source[len(block) :], True)
    if block.startswith(source):
        return Shift(block[len(source) :], False)
    return Shift("", True)


def text_lines(text: str) -> list[str]:
    """A span's text as right-stripped lines (its final line break is no line of its own)."""
    return [line.rstrip() for line in text.removesuffix("\n").split("\n")]


def render_block(block_text: str, parts: Sequence[Part], shifts: Sequence[Shift], new: Sequence[str]) -> str:
    """The block with each part replaced by its new text (as the block shows it), elisions and the rest kept."""
    lines = block_text.split("\n")
    for part, shift, text in sorted(zip(parts, shifts, new, strict=True), key=lambda p: -p[0].first):
        lines[part.first : part.first + len(part.lines)] = [shift.to_block(line) for line in text_lines(text)]
    return "\n".join(lines)


def place_block(page_text: str, line: int, old_block: str, new_block: str) -> str | None:
    """The page with the block whose code starts on page `line` (1-based) replaced, each line keeping the page's
    indentation of the block and its line ending; None when the page does not hold the block there."""
    page_lines = page_text.split("\n")
    old = old_block.split("\n")
    start = line - 1
    if start < 0 or start + len(old) > len(page_lines):
        return None
    held = page_lines[start : start + len(old)]
    crlf = held[0].endswith("\r")
    indent: str | None = None
    for page_line, block_line in zip(held, old, strict=True):
        bare = page_line.removesuffix("\r")
        if not block_line.strip():
            if bare.strip():
                return None
            continue
        if indent is None:
            if not bare.endswith(block_line):
                return None
            indent = bare[: len(bare) - len(block_line)]
        if bare != indent + block_line:
            return None
    ending = "\r" if crlf else ""
    made = [(indent or "") + new_line + ending if new_line.strip() else ending for new_line in new_block.split("\n")]
    page_lines[start : start + len(old)] = made
    return "\n".join(page_lines)


@dataclass
class SnippetRewrite:
    """What rewriting a page's stale snippets settled: the page's text, and a decision per rewritten claim."""

    text: str
    decisions: dict[str, Decision] = field(default_factory=dict)


class _Rewrite(NamedTuple):
    claim: ClaimWork
    line: int  # the page line of the block's first line of code
    old: str
    new: str
    records: tuple[EvidenceRecord, ...]
    path: str
    ranges: tuple[tuple[int, int], ...]


async def rewrite_snippets(page: PageWork, blocks: Sequence[tuple[int, str]], view: CodeView) -> SnippetRewrite:
    """Rewrite the page's stale snippet claims' blocks from the source (`blocks`: the page's code blocks, page line
    and text). A block that cannot be found, or whose source cannot be read, is left for the decider or a person."""
    result = SnippetRewrite(page.text)
    if page.problem is not None:
        return result
    planned: list[_Rewrite] = []
    used: set[int] = set()
    for item in page.to_decide:
        if item.result.verdict is not Verdict.STALE or parse_snippet(item.claim.statement) is None:
            continue
        rewrite = await _plan(item, blocks, used, view)
        if rewrite is not None:
            used.add(rewrite.line)
            planned.append(rewrite)
    text = page.text
    moved = 0
    placed: list[tuple[_Rewrite, int]] = []
    for rewrite in sorted(planned, key=lambda r: -r.line):
        new_text = place_block(text, rewrite.line, rewrite.old, rewrite.new)
        if new_text is None:
            continue
        text = new_text
        placed.append((rewrite, rewrite.new.count("\n") - rewrite.old.count("\n")))
    for rewrite, _ in placed:
        moved = sum(delta for other, delta in placed if other.line < rewrite.line)
        statement = restated(rewrite.claim.claim.statement, rewrite.path, rewrite.ranges, rewrite.line + moved)
        result.decisions[rewrite.claim.claim.id] = Decision("update", statement, rewrite.records, REWRITTEN)
    result.text = text
    return result


async def _plan(item: ClaimWork, blocks: Sequence[tuple[int, str]], used: set[int], view: CodeView) -> _Rewrite | None:
    """The rewrite of one stale snippet claim's block, or None when it cannot be made without a person."""
    records = item.claim.evidence
    results = item.result.evidence
    if len(results) != len(records):
        return None
    old_texts: list[str | None] = []
    new_texts: list[str] = []
    new_records: list[EvidenceRecord] = []
    path: str | None = None
    ranges: list[tuple[int, int]] = []
    for record, evidence in zip(records, results, strict=True):
        now = await _now(record, evidence, view)
        if now is None:
            return None
        record_now, text_now, span = now
        new_records.append(record_now)
        new_texts.append(text_now)
        ranges.append(span)
        here = record_now.resource.removeprefix("repo://").split("#", 1)[0]
        if path is not None and here != path:
            return None  # a block's parts come from one file
        path = here
        old_text = evidence.old_text if evidence.verdict is Verdict.STALE else text_now
        if old_text is not None and not rewritable(old_text, text_now):
            return None  # not the code changed but other text in its place: for the model or a person
        old_texts.append(old_text)
    if path is None:
        return None
    found = _block_of(item, blocks, used, old_texts, new_texts)
    if found is None:
        return None
    line, block_text, parts, shifts = found
    new_block = render_block(block_text, parts, shifts, new_texts)
    return _Rewrite(item, line, block_text, new_block, tuple(new_records), unquote(path), tuple(ranges))


async def _now(
    record: EvidenceRecord, evidence: EvidenceResult, view: CodeView
) -> tuple[EvidenceRecord, str, tuple[int, int]] | None:
    """Where a record's lines stand now, their text, and the record to store; None when gone or unreadable."""
    if evidence.verdict in (Verdict.UNRESOLVED, Verdict.ERROR):
        return None
    resource = evidence.resource_now or record.resource
    if evidence.verdict is Verdict.FRESH:
        resource = record.resource
    resolved = await view.resolve(resource)
    if isinstance(resolved, Problem):
        return None
    res, text = resolved
    if res.start is None or res.end is None:
        return None
    version = lines_version(text, res.start - 1, res.end)
    span_text = text.join(res.start - 1, res.end).decode("utf-8", "replace")
    return EvidenceRecord(res.canonical, version), span_text, (res.start, res.end)


def _block_of(
    item: ClaimWork,
    blocks: Sequence[tuple[int, str]],
    used: set[int],
    old_texts: Sequence[str | None],
    new_texts: Sequence[str],
) -> tuple[int, str, list[Part], list[Shift]] | None:
    """The claim's block: the one whose parts show the recorded texts; else the one at the line its statement
    names, with as many parts as the claim has records. With its parts and their shifts."""
    candidates: list[tuple[int, str]] = []
    for line, text in blocks:
        candidates.append((line, text))
        first, _, rest = text.partition("\n")
        if rest.strip() and FIRST_LINE_MARKER.fullmatch(first):
            candidates.append((line + 1, rest))
    count = len(old_texts)
    for line, text in candidates:
        if line in used:
            continue
        parts = parts_of(text)
        if len(parts) != count:
            continue
        shifts: list[Shift] = []
        for part, old in zip(parts, old_texts, strict=True):
            lines = text_lines(old) if old is not None else None
            shift = part_shift(part.lines, lines, 0) if lines is not None and len(lines) == len(part.lines) else None
            if shift is None:
                break
            shifts.append(shift)
        else:
            return line, text, parts, shifts
    snippet = parse_snippet(item.claim.statement)
    for line, text in candidates:
        parts = parts_of(text)
        if snippet is not None and line == snippet.line and line not in used and len(parts) == count:
            shifts = [
                indent_shift(part.lines[0], text_lines(new)[0]) for part, new in zip(parts, new_texts, strict=True)
            ]
            return line, text, parts, shifts
    return None
