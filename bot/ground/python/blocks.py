"""The Python code blocks of a page (Markdown fences, reStructuredText `code-block` directives, doctest `>>>`
sessions) and what their code uses of a package: the names it imports and the keywords it passes to what it
imported. Each with the page line it stands on. Pure: page text in, uses out; code is parsed, never run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import NamedTuple

MAX_BLOCK_LINES = 2000  # a longer block is a listing, not an example: its imports are still read line by line

_FENCE = re.compile(r"^([ \t]{0,3})(`{3,}|~{3,})[ \t]*([\w+.-]*)")
_PYTHON_INFO = frozenset({"python", "py", "python3", "py3", "pycon", "pyi", "ipython", "ipython3", "doctest"})
_RST_DIRECTIVE = re.compile(r"^([ \t]*)\.\.[ \t]+(?:code-block|code|sourcecode|testcode|doctest)::[ \t]*(\w*)")
_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import[ \t]+[^#\n]+|import[ \t]+[\w., \t]+)")


class Block(NamedTuple):
    """A block's code (prompts taken off a doctest's lines), each line with the page line it came from."""

    lines: tuple[tuple[int, str], ...]  # (page line, code)

    @property
    def code(self) -> str:
        return "\n".join(text for _, text in self.lines)


class Use(NamedTuple):
    """What a block's line uses: an imported name (`module`, `name`: `from pkg.urls import parse_url`), a module
    (`import pkg.urls`: `name` empty), or a keyword passed to an imported callable (`keyword`, `name` its dotted
    path as the block reaches it: `pkg.Client`)."""

    line: int
    module: str
    name: str
    keyword: str = ""
    written: str = ""  # how the block writes it, for the report


def python_blocks(page_text: str, kind: str) -> list[Block]:
    """The page's Python blocks: fenced (` ```python `, ` ```pycon `, or any fence whose code is a `>>>` session)
    in Markdown and MDX; `code-block:: python` (and `code`, `sourcecode`, `testcode`, `doctest`) and `>>>` blocks
    in reStructuredText."""
    lines = page_text.splitlines()
    return list(_rst_blocks(lines) if kind == "rst" else _fenced_blocks(lines))


def _fenced_blocks(lines: list[str]) -> Iterator[Block]:
    at = 0
    while at < len(lines):
        opened = _FENCE.match(lines[at])
        if opened is None:
            at += 1
            continue
        fence, info = opened[2], opened[3].lower()
        body: list[tuple[int, str]] = []
        at += 1
        while at < len(lines) and not lines[at].lstrip().startswith(fence):
            body.append((at + 1, lines[at]))
            at += 1
        at += 1
        block = _block(body, doctest=info in ("pycon", "doctest") or _is_session(body))
        if block is not None and (info in _PYTHON_INFO or (not info and _is_session(body))):
            yield block


def _rst_blocks(lines: list[str]) -> Iterator[Block]:
    at = 0
    while at < len(lines):
        line = lines[at]
        directive = _RST_DIRECTIVE.match(line)
        session = line.lstrip().startswith(">>> ")
        if directive is None and not session:
            at += 1
            continue
        if session:  # a doctest block: it ends at a blank line
            body = []
            while at < len(lines) and lines[at].strip():
                body.append((at + 1, lines[at]))
                at += 1
            block = _block(body, doctest=True)
            if block is not None:
                yield block
            continue
        indent, language = len(directive[1]), directive[2].lower()  # type: ignore[index]
        at += 1
        while at < len(lines) and lines[at].strip().startswith(":"):  # the directive's options
            at += 1
        body = []
        while at < len(lines) and (not lines[at].strip() or len(lines[at]) - len(lines[at].lstrip()) > indent):
            body.append((at + 1, lines[at]))
            at += 1
        if language in _PYTHON_INFO or (not language and _is_session(body)) or "doctest" in line or "testcode" in line:
            block = _block(body, doctest=_is_session(body))
            if block is not None:
                yield block


def _is_session(body: list[tuple[int, str]]) -> bool:
    first = next((text for _, text in body if text.strip()), "")
    return first.lstrip().startswith(">>>")


def _block(body: list[tuple[int, str]], doctest: bool) -> Block | None:
    """The code of a block's lines: a session's prompted lines without their prompts (its output left out), any
    other's lines without their common indent."""
    if doctest:
        code = [
            (number, text.lstrip()[4:] if len(text.lstrip()) > 3 else "")
            for number, text in body
            if text.lstrip().startswith((">>>", "..."))
        ]
    else:
        present = [text for _, text in body if text.strip()]
        margin = min((len(text) - len(text.lstrip()) for text in present), default=0)
        code = [(number, text[margin:]) for number, text in body]
    return Block(tuple(code)) if any(text.strip() for _, text in code) else None


@lru_cache(maxsize=1024)
def uses(block: Block) -> tuple[Use, ...]:
    """What a block imports and the keywords it passes to what it imported. A block that does not parse as a
    whole (an example with `...` elisions, a template) gives its import lines, each parsed on its own."""
    tree = _parsed(block.code) if len(block.lines) <= MAX_BLOCK_LINES else None
    if tree is None:
        found = []
        for number, text in block.lines:
            if _IMPORT_LINE.match(text) and (line := _parsed(text.strip())) is not None:
                found += [use._replace(line=number) for use in _imports(line, block, offset=0)]
        return tuple(found)
    return (*_imports(tree, block), *_keywords(tree, block))


def _parsed(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _page_line(block: Block, node: ast.AST, offset: int = 1) -> int:
    index = getattr(node, "lineno", 1) - offset
    return block.lines[index][0] if 0 <= index < len(block.lines) else block.lines[0][0]


def _imports(tree: ast.Module, block: Block, offset: int = 1) -> list[Use]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if alias.name != "*":
                    line = _page_line(block, node, offset)
                    found.append(Use(line, node.module, alias.name, written=f"from {node.module} import {alias.name}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Use(_page_line(block, node, offset), alias.name, "", written=f"import {alias.name}"))
    return found


def _bound(tree: ast.Module) -> dict[str, str]:
    """The names a block's imports bind, to the dotted paths they stand for (`Client` → `pkg.Client`)."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if alias.name != "*":
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
    return bound


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner is not None else None
    return None


def _keywords(tree: ast.Module, block: Block) -> list[Use]:
    bound = _bound(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        written = _dotted(node.func)
        if written is None:
            continue
        head, _, rest = written.partition(".")
        if head not in bound:
            continue
        path = f"{bound[head]}.{rest}" if rest else bound[head]
        module, _, name = path.rpartition(".")
        for keyword in node.keywords:
            if keyword.arg is not None:
                line = _page_line(block, keyword.value)
                found.append(Use(line, module, name, keyword.arg, f"{written}({keyword.arg}=...)"))
    return found
