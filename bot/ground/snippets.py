"""Code blocks of a page copied from the repository, found without a model.

A block is a copy of a span of a repository file when its lines are that span's lines: exactly, or all shifted by
one common indentation (a method shown without its class's indentation), or with elision lines (`...`, `# ...`,
`// ...`, `…`) standing for lines left out, each part then a copy of its own span, in order, in the same file.
Trailing whitespace never counts. Only a block of at least `MIN_DISTINCTIVE` distinctive lines counts (a line with
a few letters or digits, not `}` or `pass`), and only when one place in the repository holds it: a block found in
two files, or twice in one, is not bound to either.

Marker comments say where a block comes from, in the styles of embedme (a first line `# path/to/file.py#L5-L10`
or `// path/to/file.ts`) and MarkdownSnippets (`<!-- snippet: path/to/file.cs#L5-L10 -->` on the line above the
fence, or `<!-- embedme path#L5-L10 -->`): such a block is bound to the lines it names even when it does not match
them yet (it is then rewritten from them).

Cost: one index of the repository's distinctive lines (a dict from a line, stripped, to where it stands), then
per block a look-up of its rarest line and a comparison at each place that line stands. Pure: text in, copies out.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterable, Mapping
from typing import NamedTuple

from ..claims.sidecar import EvidenceRecord, Sidecar
from ..claims.snippet import parse_snippet, snippet_resource, snippet_statement
from ..claims.text import FileText
from ..claims.versions import lines_version
from ..fix.snippets import FIRST_LINE_MARKER, Part, Shift, part_shift, parts_of, place_block
from .check import GroundedStatement
from .formats import CodeBlock, code_blocks

MIN_DISTINCTIVE = 3  # distinctive lines a block needs to count as a copy
MAX_POSTINGS = 64  # a line standing in more places than this anchors nothing (a licence header, `import os`)
MAX_GAP = 2000  # how far past the last part a part after an elision is looked for, when it has no distinctive line
MAX_INDEXED_BYTES = 1 << 20
_WORD_CHARS = re.compile(r"\w")
_TRIVIAL = frozenset(
    {"pass", "else:", "try:", "finally:", "return", "break", "continue", "end", "fi", "done", "});", "})"}
)
# Suffixes of pages: a page copying another page is not code copied from the source.
PAGE_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc")
_ABOVE_MARKER = re.compile(
    r"[ \t]*(?:<!--[ \t]*(?:embedme|snippet:|include:)[ \t]*([^\s#]+)(?:#L([0-9]+)(?:-L?([0-9]+))?)?[ \t]*-->"
    r"|snippet:[ \t]*([^\s#]+)(?:#L([0-9]+)(?:-L?([0-9]+))?)?)[ \t]*"
)


class Copy(NamedTuple):
    """A block and the spans of one file it copies, one per part."""

    block: CodeBlock
    path: str
    ranges: tuple[tuple[int, int], ...]  # 1-based inclusive, one per part
    shifts: tuple[Shift, ...]
    matches: bool = True  # False: a marker names the lines, and the block does not show them (yet)


def distinctive(line: str) -> bool:
    """Whether a line can tell one place from another: a few letters or digits, and not a bare keyword."""
    stripped = line.strip()
    return stripped not in _TRIVIAL and len(_WORD_CHARS.findall(stripped)) >= 3


class SnippetIndex:
    """The repository's files as lines, and where each distinctive line stands. `wanted`: the only lines worth
    indexing (the distinctive lines of the blocks to be looked up, `block_lines`): a line no block holds anchors
    nothing, so the index costs one pass over the files and a set look-up a line, whatever the repository's size."""

    def __init__(self, files: Mapping[str, bytes], wanted: Collection[str] | None = None) -> None:
        self.data: dict[str, bytes] = {}
        self._lines: dict[str, list[str]] = {}
        self.postings: dict[str, list[tuple[str, int]]] = {}
        for path in sorted(files):
            data = files[path]
            if path.lower().endswith(PAGE_SUFFIXES) or len(data) > MAX_INDEXED_BYTES or b"\0" in data[:8000]:
                continue
            self.data[path] = data
            if wanted is not None and not wanted:
                continue
            for n, line in enumerate(data.decode("utf-8", "replace").split("\n")):
                key = line.strip()
                if (key in wanted) if wanted is not None else distinctive(key):
                    places = self.postings.setdefault(key, [])
                    if len(places) <= MAX_POSTINGS:
                        places.append((path, n))

    @property
    def sources(self) -> int:
        """How many files a block may be a copy of."""
        return len(self.data)

    def lines(self, path: str) -> list[str] | None:
        """A file's lines, right-stripped (split when first asked for: most files hold no copied line)."""
        lines = self._lines.get(path)
        if lines is None and path in self.data:
            lines = self._lines[path] = [
                line.rstrip() for line in self.data[path].decode("utf-8", "replace").split("\n")
            ]
        return lines

    def places(self, line: str) -> list[tuple[str, int]]:
        return self.postings.get(line.strip(), [])

    def find(self, block: CodeBlock) -> Copy | None:
        """The one span (or spans, with elisions) of one file the block copies; None when none, or several."""
        parts = parts_of(block.text)
        lines = [line for part in parts for line in part.lines if distinctive(line)]
        if len(lines) < MIN_DISTINCTIVE or any(not self.places(line) for line in lines):
            return None  # a distinctive line found nowhere: no copy (the quick answer for most blocks)
        first = parts[0]
        anchor = self._anchor(first)
        if anchor is None:
            return None
        offset, places = anchor
        found: list[tuple[str, tuple[tuple[int, int], ...], tuple[Shift, ...]]] = []
        for path, n in places:
            shift = part_shift(first.lines, self.lines(path) or [], n - offset)
            if shift is None:
                continue
            chain = self._rest(path, parts[1:], n - offset + len(first.lines))
            if chain is None:
                continue
            ranges = ((n - offset + 1, n - offset + len(first.lines)), *chain[0])
            found.append((path, ranges, (shift, *chain[1])))
            if len(found) > 1:
                return None  # ambiguous: bound to neither
        if not found:
            return None
        path, ranges, shifts = found[0]
        return Copy(block, path, ranges, shifts)

    def _anchor(self, part: Part) -> tuple[int, list[tuple[str, int]]] | None:
        """The part's rarest distinctive line: its index in the part and where it stands; None when it has none,
        or every one stands in too many places to tell."""
        best: tuple[int, list[tuple[str, int]]] | None = None
        for i, line in enumerate(part.lines):
            if not distinctive(line):
                continue
            places = self.places(line)
            if places and len(places) <= MAX_POSTINGS and (best is None or len(places) < len(best[1])):
                best = (i, places)
        return best

    def _rest(
        self, path: str, parts: list[Part], after: int
    ) -> tuple[tuple[tuple[int, int], ...], tuple[Shift, ...]] | None:
        """The parts after an elision, each the first place past the last part's end in the same file."""
        lines = self.lines(path) or []
        ranges: list[tuple[int, int]] = []
        shifts: list[Shift] = []
        for part in parts:
            anchor = self._anchor(part)
            if anchor is not None:
                offset, places = anchor
                starts = sorted(n - offset for p, n in places if p == path and n - offset >= after)
            else:
                starts = list(range(after, min(len(lines), after + MAX_GAP)))
            for start in starts:
                shift = part_shift(part.lines, lines, start)
                if shift is not None:
                    ranges.append((start + 1, start + len(part.lines)))
                    shifts.append(shift)
                    after = start + len(part.lines)
                    break
            else:
                return None
        return tuple(ranges), tuple(shifts)

    def marked(self, block: CodeBlock, path: str, start: int | None, end: int | None) -> Copy | None:
        """The block bound to the lines its marker names (the whole file when it names none); None when no such
        file or lines exist."""
        lines = self.lines(path)
        if lines is None or not lines:
            return None
        count = len(lines) - (1 if lines[-1] == "" else 0)
        first, last = (start or 1), (end or start or count) if start else count
        if not 1 <= first <= last <= count:
            return None
        parts = parts_of(block.text)
        shift = part_shift(parts[0].lines, lines, first - 1) if len(parts) == 1 else None
        matches = shift is not None and len(parts[0].lines) == last - first + 1
        return Copy(block, path, ((first, last),), (shift or Shift("", True),), matches)


def block_lines(blocks: Iterable[CodeBlock]) -> set[str]:
    """The distinctive lines (stripped) of blocks: what an index for looking them up needs to hold."""
    return {key for block in blocks for line in block.text.split("\n") if distinctive(key := line.strip())}


def copies(page: str, page_text: str, index: SnippetIndex) -> list[Copy]:
    """The copies among a page's code blocks, in page order: marked blocks as their markers say, others found."""
    found: list[Copy] = []
    page_lines = page_text.split("\n")
    for block in code_blocks(page, page_text):
        copy = _marked_copy(page, block, page_lines, index)
        if copy is None:
            copy = index.find(block)
        if copy is not None:
            found.append(copy)
    return found


def _marked_copy(page: str, block: CodeBlock, page_lines: list[str], index: SnippetIndex) -> Copy | None:
    """A block whose marker (on its first line, or on the line above its fence) names a file of the index."""
    first_line, _, rest = block.text.partition("\n")
    match = FIRST_LINE_MARKER.fullmatch(first_line)
    if match is not None and rest.strip():
        inner = CodeBlock(block.line + 1, rest, block.language)
        for path in _marker_paths(page, match.group(1)):
            copy = index.marked(inner, path, _int(match.group(2)), _int(match.group(3)))
            if copy is not None:
                return copy
    above = block.line - 3  # the line above the fence (0-based)
    if 0 <= above < len(page_lines):
        match = _ABOVE_MARKER.fullmatch(page_lines[above].rstrip("\r"))
        if match is not None:
            groups = match.groups()
            path, start, end = groups[0:3] if groups[0] else groups[3:6]
            for candidate in _marker_paths(page, path or ""):
                copy = index.marked(block, candidate, _int(start), _int(end))
                if copy is not None:
                    return copy
    return None


def _marker_paths(page: str, named: str) -> Iterable[str]:
    """What a marker's path may mean: from the repository's root, or (embedme) from the page's folder."""
    named = named.removeprefix("./")
    yield posixpath.normpath(named.lstrip("/"))
    folder = posixpath.dirname(page)
    if folder:
        yield posixpath.normpath(posixpath.join(folder, named))


def _int(value: str | None) -> int | None:
    return int(value) if value else None


class Bound(NamedTuple):
    """A page's copies bound as claims: the page's text (marked blocks that did not match rewritten from the lines
    they name) and a statement per copy not bound before."""

    text: str
    statements: list[GroundedStatement]
    synced: int  # marked blocks rewritten


def bind(page: str, text: str, sidecar: Sidecar | None, index: SnippetIndex) -> Bound:
    """The page's copies not yet bound (no snippet claim of the page cites the same lines, or the same block),
    each a statement whose evidence is the lines it copies, and its quote the block."""
    known_resources: set[tuple[str, ...]] = set()
    known_lines: set[int] = set()
    for claim in sidecar.claims if sidecar else ():
        snippet = parse_snippet(claim.statement)
        if snippet is not None:
            known_resources.add(tuple(r.resource for r in claim.evidence))
            known_lines.add(snippet.line)
    wanted = []
    for copy in copies(page, text, index):
        resources = tuple(snippet_resource(copy.path, a, b) for a, b in copy.ranges)
        if resources in known_resources or copy.block.line in known_lines:
            continue
        known_resources.add(resources)
        wanted.append(copy)
    synced: list[tuple[Copy, str, int]] = []  # marked copies rewritten: the new block, how many lines it grew
    for copy in sorted((c for c in wanted if not c.matches), key=lambda c: -c.block.line):
        ((first, last),) = copy.ranges
        new_block = "\n".join((index.lines(copy.path) or [])[first - 1 : last])
        placed = place_block(text, copy.block.line, copy.block.text, new_block)
        if placed is not None:
            text = placed
            synced.append((copy, new_block, new_block.count("\n") - copy.block.text.count("\n")))
    rewritten = {id(copy): new for copy, new, _ in synced}
    statements = []
    for copy in wanted:
        if not copy.matches and id(copy) not in rewritten:
            continue  # a marked block the page does not hold as read: left alone
        line = copy.block.line + sum(grown for other, _, grown in synced if other.block.line < copy.block.line)
        data = FileText(index.data[copy.path])
        records = tuple(
            EvidenceRecord(snippet_resource(copy.path, a, b), lines_version(data, a - 1, b)) for a, b in copy.ranges
        )
        quote = rewritten.get(id(copy), copy.block.text)
        statements.append(GroundedStatement(snippet_statement(line, copy.path, copy.ranges), quote, records))
    return Bound(text, statements, len(synced))
