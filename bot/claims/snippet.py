"""Snippet claims: a code block of a page that is a copy of lines of a repository file, kept as a claim.

OpenWiki's sidecar schema v1 allows no field beyond `id`, `statement` and `evidence`, so what marks a claim as a
copy is its statement, in one fixed wording that OpenWiki reads as any other statement:

    Snippet: the code block at line 40 of this page is a copy of src/y.py lines 10-22.

(several ranges, `lines 10-22, 30-35`, when the block leaves lines out with `...` lines). Its evidence is one
record per range. The page line is where the block's first line of code stood when it was bound (or last
rewritten); what the block is, the fix finds by its text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple
from urllib.parse import unquote

from .errors import EvidenceResourceError
from .resources import encode_path, parse_resource
from .results import ClaimResult
from .sidecar import Claim

PREFIX = "Snippet: the code block at line "
_STATEMENT = re.compile(
    r"Snippet: the code block at line ([1-9][0-9]{0,8}) of this page is a copy of (\S(?:.*\S)?) "
    r"lines? ([1-9][0-9]*-[1-9][0-9]*(?:, [1-9][0-9]*-[1-9][0-9]*)*)\."
)


class SnippetStatement(NamedTuple):
    """What a snippet claim's statement says: the page line of the block, the file it copies, the ranges."""

    line: int
    path: str
    ranges: tuple[tuple[int, int], ...]  # 1-based inclusive


def snippet_statement(line: int, path: str, ranges: tuple[tuple[int, int], ...]) -> str:
    """The statement of a snippet claim, in the one wording `parse_snippet` reads back."""
    spans = ", ".join(f"{a}-{b}" for a, b in ranges)
    return f"{PREFIX}{line} of this page is a copy of {path} lines {spans}."


def parse_snippet(statement: str) -> SnippetStatement | None:
    """The snippet a statement describes, or None when the claim is not a snippet (prose)."""
    if not statement.startswith(PREFIX):
        return None
    match = _STATEMENT.fullmatch(statement)
    if match is None:
        return None
    ranges = tuple((int(a), int(b)) for a, b in (part.split("-") for part in match.group(3).split(", ")))
    return SnippetStatement(int(match.group(1)), match.group(2), ranges)


def is_snippet(statement: str) -> bool:
    return parse_snippet(statement) is not None


def snippet_resource(path: str, start: int, end: int) -> str:
    """The `repo://` resource of one range a block copies."""
    return f"repo://{encode_path(path)}#L{start}-L{end}"


def claim_wording(page: str, claim: ClaimResult) -> str | None:
    """`snippet_wording` for a claim the sweep evaluated: the file named is the one its changed lines stand in now."""
    if not claim.statement.startswith(PREFIX):
        return None
    changed = [e for e in claim.evidence if e.verdict.value == claim.verdict.value]
    source = None
    if changed and changed[0].resource_now:
        source = unquote(changed[0].resource_now.removeprefix("repo://").split("#", 1)[0])
    return snippet_wording(page, claim.statement, claim.verdict.value, source)


def snippet_wording(page: str, statement: str, verdict: str, source: str | None) -> str | None:
    """What a report says of a snippet claim that needs attention ("the code block at `docs/x.md:40` no longer
    matches `src/y.py`"), or None for prose claims and verdicts that need nothing said. `source`: the file the
    evidence stands in now, when known."""
    snippet = parse_snippet(statement)
    if snippet is None:
        return None
    where = f"{page}:{snippet.line}"
    if verdict == "stale":
        return f"The code block at {where} no longer matches {source or snippet.path}"
    if verdict == "unresolved":
        return f"The code block at {where} copies lines gone from {snippet.path}"
    return None


def restated(statement: str, path: str, ranges: tuple[tuple[int, int], ...], line: int | None = None) -> str:
    """A snippet claim's statement once its evidence stands at `path` and `ranges` (and its block at page `line`,
    when given); a prose statement unchanged."""
    snippet = parse_snippet(statement)
    if snippet is None:
        return statement
    return snippet_statement(snippet.line if line is None else line, path, ranges)


def restated_for(statement: str, resources: tuple[str, ...]) -> str:
    """A snippet claim's statement once its evidence is re-anchored to `resources` (moved within a file, or to
    another file): the file and lines it names follow. Prose, and evidence of no lines, leave it unchanged."""
    if parse_snippet(statement) is None:
        return statement
    spans = []
    for resource in resources:
        try:
            res = parse_resource(resource)
        except EvidenceResourceError:
            return statement
        if res.start is None or res.end is None:
            return statement
        spans.append((res.path, (res.start, res.end)))
    paths = {path for path, _ in spans}
    if len(paths) != 1:
        return statement
    return restated(statement, spans[0][0], tuple(span for _, span in spans))


def moved_down(statement: str, lines: int) -> str:
    """A snippet claim's statement once its block stands `lines` further down the page (front matter grew)."""
    snippet = parse_snippet(statement)
    if snippet is None:
        return statement
    return snippet_statement(snippet.line + lines, snippet.path, snippet.ranges)


def front_matter_moved(claims: Iterable[Claim], before: str, after: str) -> list[Claim]:
    """The claims once the page's front matter alone changed from `before` to `after` (an OKF projection): each
    snippet claim's block moved down (or up) by the lines the front matter gained (or lost)."""
    grown = after.count("\n") - before.count("\n")
    if not grown:
        return list(claims)
    return [claim._replace(statement=moved_down(claim.statement, grown)) for claim in claims]
