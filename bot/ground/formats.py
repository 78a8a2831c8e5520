"""The kinds of docs page a check reads (Markdown, MDX, reStructuredText), each read into the same mentions (code
spans and links, on the page line each stands on) and code blocks.

Markdown is read by `references.mentions`. MDX is Markdown with JSX: its ESM lines, JSX tags and `{expressions}`
are taken out (their line breaks kept, so every line stays the page's) and the rest is read as Markdown, without
indented code (MDX has none). reStructuredText is read by docutils' own parser, imported only when an rst page is
read, and never allowed to read a file, print, or fail: a Sphinx role or directive it does not know is read
permissively, and a page it cannot parse to the end yields what was read before. Pure: page text in, mentions out.

docutils keeps its roles and directives in process-wide tables; nothing is registered in them. Roles are this
module's own inline parser's to answer. Directives are looked up by one module function,
`docutils.parsers.rst.directives.directive`, which is wrapped once: the wrapper answers with this module's
directives for the documents this module makes (marked in their settings) and with docutils' own answer, unchanged,
for every other document, in any thread.
"""

from __future__ import annotations

import contextlib
import copy
import posixpath
import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterator
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple

from .markdown import block_tokens, placed
from .references import MAX_SPAN, Mention, mentions, page_body

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

PageKind = Literal["markdown", "mdx", "rst"]
PAGE_SUFFIXES: tuple[str, ...] = (".md", ".markdown", ".mdx", ".rst")
_KINDS: dict[str, PageKind] = {".md": "markdown", ".markdown": "markdown", ".mdx": "mdx", ".rst": "rst"}
_LONE_CR = re.compile(r"\r(?!\n)")


class CodeBlock(NamedTuple):
    """A block of code of a page: the page line (1-based) of its first line of code, its text (without a final line
    break), and its language when the page names one."""

    line: int
    text: str
    language: str | None


def page_kind(path: str) -> PageKind | None:
    """How a page is read, by its suffix (`.MD` as `.md`); None for a file that is not a page."""
    return _KINDS.get(posixpath.splitext(path)[1].lower())


def page_mentions(path: str, page_text: str) -> list[Mention]:
    """The page's code spans and links (its mentions), in page order; none for a file that is not a page."""
    kind = page_kind(path)
    if kind == "markdown":
        return mentions(page_text)
    if kind == "mdx":
        return mentions(_mdx_markdown(page_text), parse=_mdx_tokens)
    if kind == "rst":
        return list(_read_rst(page_text).mentions)
    return []


def code_blocks(path: str, page_text: str) -> list[CodeBlock]:
    """The page's blocks of code (fenced, indented, literal, doctest, code directives), in page order."""
    kind = page_kind(path)
    if kind == "markdown":
        return _markdown_blocks(page_text, block_tokens)
    if kind == "mdx":
        return _markdown_blocks(_mdx_markdown(page_text), _mdx_tokens)
    if kind == "rst":
        return list(_read_rst(page_text).blocks)
    return []


def _markdown_blocks(page_text: str, parse: Callable[[str], tuple[Token, ...]]) -> list[CodeBlock]:
    page_text = _LONE_CR.sub(" ", page_text)  # markdown-it ends a line at a lone CR too: the page does not
    body = page_body(page_text)
    offset = page_text.count("\n", 0, len(page_text) - len(body))
    found = []
    for token in parse(body):
        if token.type not in ("fence", "code_block") or not token.map or not token.content.strip():
            continue
        language = token.info.split(maxsplit=1)[0] if token.type == "fence" and token.info.strip() else None
        first = token.map[0] + (1 if token.type == "fence" else 0)  # a fence's code starts below its fence line
        found.append(CodeBlock(offset + first + 1, token.content.removesuffix("\n"), language))
    return found


# --- MDX ---------------------------------------------------------------------------------------------------------

_SPECIAL = re.compile(r"[\\`{<\]\n]")
_TAG_START = re.compile(r"</?(?:[A-Za-z_$]|>)")  # `<Tabs`, `</Tabs`, `<>`, `</>`: `a < b` and `<3` are text
_ESM = re.compile(r"(?:import|export)(?=[\s{*'\"])")
_FENCE = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)")
_BLANK_LINE = re.compile(r"[ \t]*(?:\r?\n|\Z)")
_PARAGRAPH_END = re.compile(r"\n[ \t]*(?:\r?\n|\Z)")


@cache
def _mdx_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # noqa: PLC0415 - imported only when pages are read

    return placed(MarkdownIt("commonmark").enable("table").disable("code"))  # MDX has no indented code


@lru_cache(maxsize=8)
def _mdx_tokens(body: str) -> tuple[Token, ...]:
    return tuple(_mdx_parser().parse(body))


@lru_cache(maxsize=8)
def _mdx_markdown(page_text: str) -> str:
    """The page as plain Markdown: its ESM blocks, JSX tags and expressions replaced by their line breaks only, so
    that every line keeps its number and the Markdown between and inside JSX elements reads as written. Code spans,
    fenced code and link destinations are left as they are (a `{` or `<` in them is text); a fence indented four
    columns or more (MDX allows it, CommonMark reads it as text) is moved to the margin."""
    page_text = _LONE_CR.sub(" ", page_text)  # a line of the page ends at `\n` only (markdown-it ends one at CR too)
    body = page_body(page_text)
    text, out = body, [page_text[: len(page_text) - len(body)]]
    scan = _Scan(text)
    n, i, start = len(text), 0, 0
    previous_blank, expressions_close = True, True
    paragraph_end, runs = -1, dict[int, list[int]]()  # the current paragraph's end; its backtick runs by length
    while i < n:
        if i == 0 or text[i - 1] == "\n":
            end = text.find("\n", i)
            line = text[i : n if end < 0 else end]
            fence = _FENCE.match(line)
            if fence and not (fence[2][0] == "`" and "`" in fence[3]):
                out.append(text[start:i])
                i = start = _fence_end(text, i, fence, out)
                previous_blank = False
                continue
            if previous_blank and _ESM.match(line):
                out.append(text[start:i])
                j = _esm_end(scan, i)
                out.append("\n" * text.count("\n", i, j))
                i = start = j
                continue
            previous_blank = not line.strip()
        found = _SPECIAL.search(text, i)
        if found is None:
            break
        i = found.start()
        c = text[i]
        if c == "\n":
            i += 1
        elif c == "\\":
            i += 2
        elif c == "`":
            if i >= paragraph_end:
                paragraph = _PARAGRAPH_END.search(text, i)
                paragraph_end, runs = (paragraph.start() if paragraph else n), {}
            i = _code_span_end(text, i, paragraph_end, runs)
        elif c == "]":
            i = _destination_end(scan, i + 1) if text.startswith("(", i + 1) else i + 1
        elif c == "{" and expressions_close:
            j = _expression_end(scan, i)
            if j < 0:
                expressions_close = False  # one never closes: every later `{` is text (and read once, not again)
                i += 1
            else:
                out.append(text[start:i])
                out.append("\n" * text.count("\n", i, j))
                i = start = j
        elif c == "<" and _TAG_START.match(text, i):
            j = _tag_end(scan, i)
            if j < 0:
                i += 1
            else:
                out.append(text[start:i])
                out.append("\n" * text.count("\n", i, j))
                i = start = j
        else:
            i += 1
    out.append(text[start:])
    return "".join(out)


def _fence_end(text: str, i: int, fence: re.Match[str], out: list[str]) -> int:
    """Past the fenced block opening at `i` (to the end of the page when it never closes), kept in `out`."""
    indent, marker = fence[1], fence[2]
    closing = re.compile(rf"[ \t]*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*\r?(?:\n|\Z)")
    j = text.find("\n", i)
    while j >= 0 and not closing.match(text, j + 1):
        j = text.find("\n", j + 1)
    end = len(text) if j < 0 else text.find("\n", j + 1)
    end = len(text) if end < 0 else end + 1
    block = text[i:end]
    if len(indent.expandtabs(4)) >= 4:
        block = re.sub(rf"(?m)^[ \t]{{0,{len(indent)}}}", "", block)
    out.append(block)
    return end


def _code_span_end(text: str, i: int, limit: int, runs: dict[int, list[int]]) -> int:
    """Past the code span whose backticks start at `i` and close before `limit` (its paragraph's end), or past the
    backticks. `runs` holds the paragraph's runs of backticks by length, found in one pass on its first code span
    (searching the paragraph for each length of run anew took minutes on a page of runs of 1, 2, 3... backticks)."""
    run = 1
    while text.startswith("`", i + run):
        run += 1
    if not runs:
        runs[0] = []  # the paragraph was read (a run has one backtick at least)
        for found in _BACKTICKS.finditer(text, i, limit):
            runs.setdefault(found.end() - found.start(), []).append(found.start())
    starts = runs.get(run, [])
    k = bisect_right(starts, i)  # a run of the same length after this one: runs never overlap
    if k == len(starts):
        return i + run
    return starts[k] + run


_BACKTICKS = re.compile("`+")


class _Scan:
    """A page being read as MDX, with what its scanners learnt of it, so that none reads a stretch of the page twice:
    every reader below is linear in the page, however its brackets, quotes and tags are laid out (scanning from each
    `](`, `<a {` or `<a b={` to the end of the line or page anew made a page of them quadratic: minutes for 100 KB).

    A scanner's path from a position depends on that position only (a string or a comment is skipped whole), so what
    is learnt from one path serves every other path that meets it: the `)` each `(` of a line closes with, the end of
    the expression each `{` opens (or that none closes it), the end of the tag a position lies in."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._quotes: dict[str, list[int]] | None = None  # ', ", ` and \n not escaped by a backslash, in page order
        self.parens: dict[int, int] = {}  # a `(` of the line scanned -> its `)`
        self.parens_from, self.parens_to = 0, -1  # the stretch the parentheses were matched over
        self.expressions: dict[int, int] = {}  # a `{` -> past its `}`, or -1 when none closes it
        self.tags: dict[int, int] = {}  # a position inside a tag -> past the tag's `>`, or -1 when it is not one
        self.esm_lines: dict[int, tuple[_EsmPath, int, int]] = {}  # a line break an ESM scan passed, on its path

    def next_unescaped(self, char: str, after: int) -> int:
        """The first `char` (a quote, or `\n`) after `after` that no backslash escapes; -1 when there is none."""
        if self._quotes is None:
            self._quotes = {c: [] for c in "'\"`\n"}
            text = self.text
            for found in _QUOTE_OR_LINE.finditer(text):
                at = j = found.start()
                while j > 0 and text[j - 1] == "\\":
                    j -= 1
                if (at - j) % 2 == 0:  # an even run of backslashes escapes each other, not the character
                    self._quotes[text[at]].append(at)
        positions = self._quotes[char]
        k = bisect_right(positions, after)
        return positions[k] if k < len(positions) else -1


_QUOTE_OR_LINE = re.compile(r"['\"`\n]")
_IN_EXPRESSION = re.compile(r"[\"'`/{}]")  # what changes an expression's scan: the rest is skipped in one search
_IN_TAG = re.compile(r"[><\"'{\n]")


def _destination_end(scan: _Scan, i: int) -> int:
    """Past the `(destination)` of a Markdown link at `i`, on its line; past the `(` when it does not close.

    The parentheses of the rest of the line are matched in one pass the first time (a backslash escapes the next
    character, a line break too), and every later `(` of the stretch is answered from it: a `(` that follows a `]` is
    never escaped, so the pass met it as the scan from it would."""
    if not scan.parens_from <= i < scan.parens_to:
        text, n = scan.text, len(scan.text)
        scan.parens.clear()
        opened: list[int] = []
        j = i
        while j < n and text[j] != "\n":
            c = text[j]
            if c == "\\":
                j += 1
            elif c == "(":
                opened.append(j)
            elif c == ")" and opened:
                scan.parens[opened.pop()] = j
            j += 1
        scan.parens_from, scan.parens_to = i, j
    close = scan.parens.get(i)
    return i + 1 if close is None else close + 1


def _string_end(scan: _Scan, i: int) -> int:
    """Past the JavaScript string or template literal whose quote is at `i`; past the quote alone when it does not
    close (a quote of a line break for '...' and "...": an apostrophe in prose)."""
    quote = scan.text[i]
    close = scan.next_unescaped(quote, i)
    if close < 0:
        return i + 1
    if quote != "`":
        line_end = scan.next_unescaped("\n", i)
        if 0 <= line_end < close:
            return i + 1
    return close + 1


def _expression_end(scan: _Scan, i: int) -> int:
    """Past the `}` closing the expression whose `{` is at `i`, strings and comments skipped; -1 when none does.
    Every `{` met on the way is answered too (a `{` whose expression never closes leaves every `{` around it
    unclosed: the rest of the scan is the same)."""
    known = scan.expressions.get(i)
    if known is not None:
        return known
    text, n = scan.text, len(scan.text)
    opened = [i]
    j = i + 1
    while j < n:
        found = _IN_EXPRESSION.search(text, j)
        if found is None:
            break
        j = found.start()
        c = text[j]
        if c in "\"'`":
            j = _string_end(scan, j)
            continue
        if c == "/":
            if not text.startswith("/*", j):
                j += 1
                continue
            comment_end = text.find("*/", j + 2)
            if comment_end < 0:
                break
            j = comment_end + 2
            continue
        if c == "{":
            known = scan.expressions.get(j)
            if known is None:
                opened.append(j)
                j += 1
            elif known < 0:
                break
            else:
                j = known
            continue
        scan.expressions[opened.pop()] = j + 1  # `}`
        if not opened:
            return j + 1
        j += 1
    for k in opened:
        scan.expressions[k] = -1
    return -1


def _tag_end(scan: _Scan, i: int) -> int:
    """Past the `>` ending the JSX tag at `i` (attribute strings and expressions skipped); -1 when it is not one: a
    `<` or a blank line before its end. Each position the scan stops at remembers the answer, for a later tag's scan
    that meets it."""
    text, n = scan.text, len(scan.text)
    path: list[int] = []
    j, end = i + 1, -1
    while j < n:
        found = _IN_TAG.search(text, j)
        if found is None:
            break
        j = found.start()
        known = scan.tags.get(j)
        if known is not None:
            end = known
            break
        path.append(j)
        c = text[j]
        if c == ">":
            end = j + 1
            break
        if c == "<":
            break
        if c in "\"'":
            j = _string_end(scan, j)
            continue
        if c == "{":
            j = _expression_end(scan, j)
            if j < 0:
                break
            continue
        if _BLANK_LINE.match(text, j + 1):  # `\n`
            break
        j += 1
    for k in path:
        scan.tags[k] = end
    return end


class _EsmPath:
    """The path of one ESM scan that found no end outside brackets (it read to the end of the page, or to a line break
    an earlier such scan passed, where it `joins` that one's): the blank lines it passed, each with the depth of
    brackets there, in a tree of minima, so that a later scan that starts on this path or meets it is answered
    without reading the rest of the page again (a page of `import {` and a blank line, repeated, read the rest of
    itself for every block)."""

    def __init__(self) -> None:
        self.blanks: list[int] = []  # past the line break before a blank line
        self.depths: list[int] = []  # the depth of brackets there, counted from where the scan started
        self.joins: tuple[_EsmPath, int, int, int] | None = None  # (the path joined, its blank index, its depth
        # there, this path's depth there)
        self._leaves = 1
        self._tree: list[int] = []

    def seal(self) -> None:
        while self._leaves < len(self.depths):
            self._leaves *= 2
        tree = [sys.maxsize] * (2 * self._leaves)
        tree[self._leaves : self._leaves + len(self.depths)] = self.depths
        for node in range(self._leaves - 1, 0, -1):
            tree[node] = min(tree[2 * node], tree[2 * node + 1])
        self._tree = tree

    def first_at_most(self, k: int, limit: int) -> int:
        """The first of the blank lines from the `k`th on with a depth of at most `limit`; -1 when none is."""
        if k >= len(self.depths):
            return -1
        tree, node = self._tree, k + self._leaves
        while tree[node] > limit:
            while node & 1:
                node >>= 1
            if node == 0:
                return -1
            node += 1
        while node < self._leaves:
            node = 2 * node if tree[2 * node] <= limit else 2 * node + 1
        return node - self._leaves


def _esm_end(scan: _Scan, i: int) -> int:
    """Past the ESM block (`import`/`export` statements) starting at `i`: at the first blank line outside brackets,
    or at the first blank line at all when its brackets never balance. A block starting where an earlier scan that
    found no end passed is answered from that scan's path."""
    entry = scan.esm_lines.get(i - 1) if i > 0 else None
    if entry is None:
        found, entry = _esm_walk(scan, i)
        if found >= 0:
            return found
    path, k, limit = entry
    first = -1
    while True:  # on each path joined in turn: a blank line outside the block's brackets, else the first blank line
        at = path.first_at_most(k, limit)
        if at >= 0:
            return path.blanks[at]
        if first < 0 and k < len(path.blanks):
            first = path.blanks[k]
        if path.joins is None:
            return first if first >= 0 else len(scan.text)
        joined, k, depth, own = path.joins
        path, limit = joined, depth + limit - own


def _esm_walk(scan: _Scan, i: int) -> tuple[int, tuple[_EsmPath, int, int]]:
    """The scan of the ESM block at `i`: past its end when a blank line outside its brackets ends it; else -1 and its
    path (read to the end of the page, or to where it joins an earlier path), kept for the scans after it."""
    text = scan.text
    depth, n = 0, len(text)
    path, passed = _EsmPath(), list[tuple[int, int, int]]()
    while i < n:
        c = text[i]
        if c == "\n":
            joined = scan.esm_lines.get(i)
            if joined is not None:
                path.joins = (joined[0], joined[1], joined[2], depth)
                break
            passed.append((i, len(path.blanks), depth))
            if _BLANK_LINE.match(text, i + 1):
                if depth <= 0:
                    return i + 1, (path, 0, 0)
                path.blanks.append(i + 1)
                path.depths.append(depth)
        elif c in "\"'`":
            i = _string_end(scan, i)
            continue
        elif c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        i += 1
    path.seal()
    for line_break, k, at in passed:
        scan.esm_lines[line_break] = (path, k, at)
    return -1, (path, 0, 0)


# --- reStructuredText --------------------------------------------------------------------------------------------

# Sphinx's Python-domain roles name a definition (a code mention of their target); `:file:` a path as code names it
# (a code mention as written); `:doc:` and `:download:` a file of the docs (a link as written); `:code:` and
# `:literal:` are inline literals. Every other role is read as its plain text.
_PY_ROLES = frozenset({"func", "class", "meth", "mod", "attr", "exc", "data", "obj", "const"})
_ROLES: dict[str, Literal["python", "path", "link", "literal"]] = {
    **{role: "python" for role in _PY_ROLES},
    **{f"py:{role}": "python" for role in _PY_ROLES},
    "file": "path",
    "doc": "link",
    "download": "link",
    "code": "literal",
    "literal": "literal",
}
_AUTODOC = frozenset(
    {"automodule", "autoclass", "autofunction", "automethod", "autoattribute", "autoexception", "autodata"}
    | {"autodecorator", "autoproperty"}
)
_FILE_DIRECTIVES = frozenset({"include", "literalinclude"})
# Directives whose body is code: the language they give it when they take no language argument.
_CODE_DIRECTIVES: dict[str, str | None] = {"code": None, "code-block": None, "sourcecode": None}
_DOCTEST_DIRECTIVES: dict[str, str] = {
    "doctest": "pycon", "testcode": "python", "testsetup": "python", "testcleanup": "python"
}  # fmt: skip
# Directives whose body is neither reStructuredText nor code a page copies: read as nothing.
_OPAQUE = frozenset({"raw", "testoutput", "mermaid", "graphviz", "graph", "digraph", "plantuml", "uml", "math"})
_DOTTED = re.compile(r"\s*([\w.]+(?:::[\w.]+)?)")  # autodoc's argument: `rich.console.Console(...)`
_LOCAL_ROLE = re.compile(r"([\w:+.-]+)(?:\s*\(\s*([\w:+.-]+)\s*\))?")  # `.. role:: python(code)`, stripped
_TARGET_HEAD = re.compile(r"\s*(?:\.\.\s+_(?:`(?:[^`\\]|\\.)*`|(?:[^:\\]|\\.)*):|__)(?=\s|$)(.*)")
_LINE_LENGTH_LIMIT = 10_000  # docutils' own: it parses nothing of a page with a longer line, so such a line is blanked
_NOT_LINE_BREAKS = str.maketrans(dict.fromkeys("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00", " "))


class _RstReading(NamedTuple):
    mentions: tuple[Mention, ...]
    blocks: tuple[CodeBlock, ...]


@lru_cache(maxsize=8)
def _read_rst(page_text: str) -> _RstReading:
    """The page's mentions and code blocks, from one parse (`page_mentions` and `code_blocks` share it)."""
    return _rst_reader()(page_text)


def _rst_lines(page_text: str) -> str:
    """The page as docutils is given it: one line per `\\n` of the page (`str.splitlines` would split at a lone
    `\\r`, a form feed or U+2028 too and shift every line below), a line docutils refuses to read blanked."""
    text = page_text.replace("\r\n", "\n").translate(_NOT_LINE_BREAKS)
    lines = text.split("\n")
    if any(len(line) + 7 * line.count("\t") > _LINE_LENGTH_LIMIT for line in lines):
        lines = ["" if len(line) + 7 * line.count("\t") > _LINE_LENGTH_LIMIT else line for line in lines]
    return "\n".join(lines)


def _role_target(text: str, python: bool) -> str:
    """What a role's text names: the target of `title <target>`, and for a Python name without Sphinx's `~` and `!`
    prefixes and a leading `.` (`~rich.console.Console.print` → `rich.console.Console.print`). `text` still holds
    docutils' escapes (a NUL before an escaped character), as a role is given it."""
    from docutils.utils import unescape  # noqa: PLC0415 - docutils is loaded only with an rst page

    explicit = _explicit_target(text)
    target = " ".join(unescape(explicit if explicit is not None else text).split())
    return target.lstrip("~!").removeprefix(".") if python else target


def _explicit_target(text: str) -> str | None:
    """The target of a role's `title <target>`, as Sphinx's `^(.+?)\\s*(?<!\\x00)<(.*?)>$` (DOTALL) reads it: the text
    ends with `>` (or `>` and a line break), and the target runs from the first `<` after the first character that
    no NUL (docutils' mark of a backslash) precedes. Found in one pass: the regex tried each `<` against the rest of
    the text, quadratic in a role over many lines of `a <b`."""
    if text.endswith(">"):
        end = len(text) - 1
    elif text.endswith(">\n"):
        end = len(text) - 2
    else:
        return None
    at = text.find("<", 1, end)
    while at >= 0 and text[at - 1] == "\x00":
        at = text.find("<", at + 1, end)
    return text[at + 1 : end] if at >= 0 else None


def _line_of_argument(block_text: str, lineno: int) -> int:
    """The line of a directive's argument: its own line, or the next when nothing follows its `::`."""
    first = block_text.split("\n", 1)[0]
    return lineno if first.partition("::")[2].strip() else lineno + 1


@cache
def _rst_reader() -> Callable[[str], _RstReading]:
    """The reader of rst pages: docutils' parser with this module's roles and directives, built on first use."""
    from docutils import nodes  # noqa: PLC0415 - docutils is loaded only with an rst page
    from docutils.frontend import get_default_settings  # noqa: PLC0415
    from docutils.parsers.rst import Directive, Parser, directives, states  # noqa: PLC0415
    from docutils.utils import new_document, unescape  # noqa: PLC0415

    defaults = get_default_settings(Parser)
    defaults.report_level = 5  # nothing reported...
    defaults.halt_level = 5  # ... nothing halts ...
    defaults.warning_stream = False  # ... and nothing is written anywhere (docutils' default is stderr)
    defaults.file_insertion_enabled = False  # `include`, `csv-table :file:`, `raw :file:` never read a file
    defaults.raw_enabled = False
    defaults.syntax_highlight = "none"  # docutils' `code` would load Pygments
    defaults.line_length_limit = _LINE_LENGTH_LIMIT

    class _Inliner(states.Inliner):
        """docutils' inline parser, which also keeps what a page mentions, found on its exact line: each text block
        (a paragraph, a title, a table cell) comes with its first line, and each mention is found in its text in
        turn. Holds the page's reading, so every parse has its own (nothing is kept in docutils' registries)."""

        def __init__(self, lines: list[str]) -> None:
            super().__init__()
            self.lines = [line.expandtabs(8) for line in lines]  # the page's lines, tabs as docutils expands them
            self.found: list[Mention] = []
            self.blocks: list[CodeBlock] = []
            self.highlights: list[tuple[int, str]] = []  # `.. highlight::` lines and languages, in page order
            self.default_role = ""
            self.local_roles: dict[str, str] = {}

        def add(self, text: str, kind: Literal["code", "link"], line: int) -> None:
            if text and len(text) <= MAX_SPAN:
                self.found.append(Mention(text, kind, line))

        def language_at(self, line: int) -> str | None:
            return next((language for at, language in reversed(self.highlights) if at < line), None)

        def parse(
            self, text: str, lineno: int, memo: Any, parent: nodes.Element
        ) -> tuple[list[nodes.Node], list[nodes.system_message]]:
            made, messages = super().parse(text, lineno, memo, parent)
            cursor, counted, below = 0, 0, 0  # the text is read once: `below` line breaks before `counted`
            for node in _inline_nodes(made):
                mention = _mention_of(node)
                if mention is None:
                    continue
                at = text.find(node.rawsource, cursor) if node.rawsource else -1
                if at >= 0:
                    cursor = at + len(node.rawsource)
                    below += text.count("\n", counted, at)
                    counted = at
                line = lineno + (below if at >= 0 else 0)
                self.add(mention[0], mention[1], self.holding(node.rawsource.split("\n", 1)[0], line))
            return made, messages

        def holding(self, raw: str, line: int) -> int:
            """The line nearest `line` that holds `raw`: docutils before 0.23 counts a grid table's first row and a
            definition's term one line low."""
            for n in (line, line - 1, line + 1, line - 2, line + 2):
                if 0 < n <= len(self.lines) and raw in self.lines[n - 1]:
                    return n
            return line

        def interpreted(
            self, rawsource: str, text: str, role: str, lineno: int
        ) -> tuple[list[nodes.Node], list[nodes.system_message]]:
            name = role.lower() or self.default_role
            kind = _ROLES.get(self.local_roles.get(name, name))
            if kind == "literal":
                return [nodes.literal(rawsource, unescape(text))], []
            if kind is None:  # `:ref:`, `:term:`, a role of an extension: its text, quietly
                return [nodes.Text(unescape(text))], []
            node = nodes.inline(rawsource, unescape(text))
            node["wikiwarden"] = ("link" if kind == "link" else "code", _role_target(text, python=kind == "python"))
            return [node], []

    # Inliner.init_customizations formats its patterns with the attributes of the instance's own class only
    # (`vars(self.__class__)`): the subclass carries Inliner's.
    for name, value in vars(states.Inliner).items():
        if not name.startswith("__") and name not in vars(_Inliner):
            setattr(_Inliner, name, value)

    def _inline_nodes(made: list[nodes.Node]) -> Iterator[nodes.Element]:
        for top in made:
            yield from top.findall(nodes.Element)

    def _mention_of(node: nodes.Element) -> tuple[str, Literal["code", "link"]] | None:
        if "wikiwarden" in node.attributes:
            kind, target = node["wikiwarden"]
            return target, kind
        if isinstance(node, nodes.literal):
            return node.astext().replace("\n", " "), "code"  # a literal over two lines: as Markdown reads one
        if isinstance(node, nodes.reference) and "refuri" in node.attributes:
            return str(node["refuri"]), "link"
        return None

    def _body(directive: Directive) -> nodes.Element:
        """A directive's body read as reStructuredText, section titles allowed (with title styles of its own, as
        Sphinx reads the body of `only` or a tab): a title in it is read, not reported as unexpected."""
        node = nodes.container()
        memo = directive.state.memo
        styles, level = memo.title_styles, memo.section_level
        memo.title_styles, memo.section_level = [], 0
        try:
            directive.state.nested_parse(directive.content, directive.content_offset, node, match_titles=True)
        finally:
            memo.title_styles, memo.section_level = styles, level
        return node

    def _reading(directive: Directive) -> _Inliner:
        inliner = directive.state.inliner
        assert isinstance(inliner, _Inliner)  # this module's directives run only on pages it parses
        return inliner

    class _AnyOptions(dict[str, Callable[[str], Any]]):
        """Any option, as written: a Sphinx directive's options are its own."""

        def __missing__(self, key: str) -> Callable[[str], Any]:
            return directives.unchanged

        def __bool__(self) -> bool:  # docutils reads options only when a directive has some
            return True

    any_options = _AnyOptions()

    class _Content(Directive):
        """A directive docutils does not know (`toctree`, `versionadded`, `tab`, `only`, `py:function`...): all it
        holds, its first line's text and options included, read as reStructuredText."""

        has_content = True

        def run(self) -> list[nodes.Node]:
            return [_body(self)]

    class _Opaque(Directive):
        """A directive whose body is neither reStructuredText nor code (raw HTML, a diagram): read as nothing."""

        has_content = True

        def run(self) -> list[nodes.Node]:
            return []

    class _File(Directive):
        """`include` and `literalinclude`: the path is a link of the page; the file is never read."""

        required_arguments = 1
        final_argument_whitespace = True
        option_spec = any_options
        has_content = True

        def run(self) -> list[nodes.Node]:
            path = " ".join(self.arguments[0].split())
            if not (path.startswith("<") and path.endswith(">")):  # `<isonum.txt>`: one of docutils' own files
                _reading(self).add(path, "link", _line_of_argument(self.block_text, self.lineno))
            return []

    class _Autodoc(Directive):
        """Sphinx's `automodule`, `autoclass`...: the dotted name is a code mention; any body is read as rst."""

        required_arguments = 1
        final_argument_whitespace = True
        option_spec = any_options
        has_content = True

        def run(self) -> list[nodes.Node]:
            dotted = _DOTTED.match(self.arguments[0])
            if dotted:
                line = _line_of_argument(self.block_text, self.lineno)
                _reading(self).add(dotted[1].replace("::", "."), "code", line)
            return [_body(self)]

    class _Code(Directive):
        """`code-block`, `code`, `sourcecode` (the argument is the language) and the doctest extension's blocks (the
        language is theirs): a code block, never mentions."""

        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = any_options
        has_content = True
        fixed: ClassVar[str | None] = None

        def run(self) -> list[nodes.Node]:
            reading = _reading(self)
            if self.content and "\n".join(self.content).strip():
                line = self.content.items[0][1] + 1 if self.content.items else self.content_offset + 1
                named = self.arguments[0].split()[0] if self.arguments and not self.fixed else None
                language = self.fixed or named or reading.language_at(line)
                reading.blocks.append(CodeBlock(line, "\n".join(self.content).rstrip("\n"), language))
            return []

    class _Highlight(Directive):
        """Sphinx's `highlight`: the language of the literal blocks below it."""

        required_arguments = 1
        option_spec = any_options

        def run(self) -> list[nodes.Node]:
            _reading(self).highlights.append((self.lineno, self.arguments[0]))
            return []

    class _Role(Directive):
        """`.. role:: python(code)`: a role of this page only (docutils' own registers it for the whole process)."""

        required_arguments = 1
        final_argument_whitespace = True
        option_spec = any_options
        has_content = True

        def run(self) -> list[nodes.Node]:
            declared = _LOCAL_ROLE.fullmatch(
                self.arguments[0].strip()
            )  # stripped first: no `\s*` beside another, linear
            if declared and declared[2]:
                reading = _reading(self)
                base = declared[2].lower()
                reading.local_roles[declared[1].lower()] = reading.local_roles.get(base, base)
            return []

    class _DefaultRole(Directive):
        """`.. default-role:: py:obj`: the role of this page's `text` without one (none given: docutils' own)."""

        optional_arguments = 1

        def run(self) -> list[nodes.Node]:
            _reading(self).default_role = self.arguments[0].lower() if self.arguments else ""
            return []

    class _Entries(Directive):
        """Sphinx's `toctree` (each entry a link, as `:doc:` writes it) and `autosummary` (each a code mention)."""

        option_spec = any_options
        has_content = True
        kind: ClassVar[Literal["code", "link"]] = "link"

        def run(self) -> list[nodes.Node]:
            reading = _reading(self)
            glob = "glob" in self.options
            for entry, (_, offset) in zip(self.content, self.content.items, strict=False):
                text = entry.strip()
                if not text or text == "self" or (glob and any(c in text for c in "*?[")):
                    continue
                reading.add(_role_target(text, python=self.kind == "code"), self.kind, offset + 1)
            return []

    class _Toctree(_Entries):
        kind = "link"

    class _Autosummary(_Entries):
        kind = "code"

    def _code(language: str | None) -> type[Directive]:
        return type("_CodeIn", (_Code,), {"fixed": language})

    ours: dict[str, type[Directive]] = {
        **dict.fromkeys(_FILE_DIRECTIVES, _File),
        **dict.fromkeys(_AUTODOC, _Autodoc),
        **{name: _code(language) for name, language in _CODE_DIRECTIVES.items()},
        **{name: _code(language) for name, language in _DOCTEST_DIRECTIVES.items()},
        **dict.fromkeys(_OPAQUE, _Opaque),
        "highlight": _Highlight,
        "role": _Role,
        "default-role": _DefaultRole,
        "toctree": _Toctree,
        "autosummary": _Autosummary,
    }

    def _lookup(
        looked_up: Callable[..., tuple[type[Directive] | None, list[nodes.system_message]]],
    ) -> Callable[..., tuple[type[Directive] | None, list[nodes.system_message]]]:
        """docutils' directive lookup, which on this module's pages finds the directives their settings carry
        first, then docutils' own, and for any other name the permissive one they carry. Other pages get
        `looked_up`'s answer unchanged, so docutils works as before for every other user in the process, in any
        thread; nothing is registered in docutils' tables. The directives come with the page, not with the wrapper:
        whichever reader installed it (two may be built at once on first use), each page gets its own reader's."""

        def directive(
            directive_name: str, language_module: Any, document: nodes.document
        ) -> tuple[type[Directive] | None, list[nodes.system_message]]:
            table = getattr(document.settings, "wikiwarden_directives", None)
            if table is None:
                return looked_up(directive_name, language_module, document)
            known, unknown = table
            name = directive_name.lower()
            if name in known:
                return known[name], []
            found, messages = looked_up(directive_name, language_module, document)
            if found is None or not getattr(found, "__module__", "").startswith("docutils."):
                found = unknown  # unknown, or another program's (Sphinx's needs its whole application)
            return found, messages

        directive.wikiwarden = True  # type: ignore[attr-defined]
        return directive

    def read(page_text: str) -> _RstReading:
        if not getattr(directives.directive, "wikiwarden", False):  # installed, or put back by someone else
            directives.directive = _lookup(directives.directive)
        settings = copy.copy(defaults)
        settings.wikiwarden_directives = (ours, _Content)  # marks the page as this reader's
        document = new_document("<page>", settings)
        text = _rst_lines(page_text)
        inliner = _Inliner(text.split("\n"))
        with contextlib.suppress(Exception):  # docutils failing on a hostile page: what it read so far is kept
            Parser(inliner=inliner).parse(text, document)
        lines = inliner.lines
        for node, seen in _block_nodes(document):
            if isinstance(node, nodes.target):
                line = _target_line(node, lines)
                inliner.add(" ".join(str(node["refuri"]).split()), "link", line)
            elif node.astext().strip():
                line = _block_line(node, lines, seen)
                language = "pycon" if isinstance(node, nodes.doctest_block) else inliner.language_at(line)
                inliner.blocks.append(CodeBlock(line, node.astext().rstrip("\n"), language))
        return _RstReading(
            tuple(sorted(inliner.found, key=lambda m: m.line)), tuple(sorted(inliner.blocks, key=lambda b: b.line))
        )

    def _block_nodes(document: nodes.document) -> Iterator[tuple[nodes.Element, int]]:
        """The page's hyperlink targets (`.. _name: uri`, with a URI) and literal and doctest blocks, each with the
        last line docutils gave a node before it; not those inside docutils' reports of what it could not read,
        nor the targets a paragraph's `text <uri>`_ made (read with its text)."""
        stack: list[nodes.Element] = [document]
        seen = 1
        while stack:
            node = stack.pop()
            if isinstance(node, (nodes.system_message, nodes.comment, nodes.raw)):
                continue
            seen = node.line or seen
            if isinstance(node, nodes.target) and "refuri" in node.attributes and node.line:
                if not isinstance(node.parent, nodes.TextElement):
                    yield node, seen
            elif isinstance(node, (nodes.literal_block, nodes.doctest_block)):
                yield node, seen
                continue
            if isinstance(node, nodes.TextElement):
                continue
            stack.extend(reversed([child for child in node.children if isinstance(child, nodes.Element)]))

    def _target_line(node: nodes.Element, lines: list[str]) -> int:
        """The line of a target's URI: the target's own, or the next one holding text when its line ends at the
        name (`.. _name:` and the URI below)."""
        line = node.line or 1
        head = _TARGET_HEAD.match(lines[line - 1]) if line <= len(lines) else None
        if head is None or head[1].strip():
            return line
        return next((n + 1 for n in range(line, min(len(lines), line + 5)) if lines[n].strip()), line)

    def _block_line(node: nodes.Element, lines: list[str], seen: int) -> int:
        """The line of a block's first line of code: docutils' line for it, checked against the page (a block in a
        nested body may be counted from elsewhere), else the first line from the last one docutils gave before it
        that holds it (docutils before 0.22 gives a doctest block no line)."""
        first = next((line.strip() for line in node.astext().split("\n") if line.strip()), "")
        given = node.line
        if given:
            near = range(max(0, given - 4), min(len(lines), given + 4))
            found = sorted((n for n in near if lines[n].strip() == first), key=lambda n: abs(n + 1 - given))
            return found[0] + 1 if found else given
        return next((n + 1 for n in range(seen - 1, len(lines)) if lines[n].strip() == first), seen)

    return read
