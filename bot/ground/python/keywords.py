"""What a change to Python code removed that only code blocks may name, cheaply: the keyword parameters removed from
the functions and methods of the files it changed, read with `ast` alone (it runs on every change to Python code and
needs no package's API: griffe is loaded only when a page names something gone), and which pages may hold a code
block naming what went. Pure: texts in, names out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Mapping

MAX_MODULE_BYTES = 1 << 20  # as the API's load: a file of megabytes is generated, not what a page describes


def removed_keywords(before: Mapping[str, str], after: Mapping[str, str]) -> frozenset[str]:
    """The names of the parameters a call could pass by keyword that the change removed from a function or method
    of the changed modules (`before` and `after`: their texts at the base and the head), as griffe's
    `find_breaking_changes` reports a removed parameter, read with `ast` alone: it runs on every change to Python
    code, and needs no package's API."""
    found: set[str] = set()
    for path, text in before.items():
        new_text = after.get(path)
        if new_text is None or max(len(text), len(new_text)) > MAX_MODULE_BYTES:
            continue
        if _signatures(text) <= _signatures(new_text):
            continue  # every signature of the base stands at the head as it was: no parameter went
        old, new = _keywords_of(text), _keywords_of(new_text)
        for function, names in old.items():
            if function in new:
                found |= names - new[function]
    return frozenset(found)


_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]", re.M)


def _signatures(code: str) -> set[str]:
    """The text of each `def` line and the lines it runs on to its parameters' end (by brackets): a cheap view
    of the signatures, so a file whose signatures all stand unchanged is not parsed."""
    found = set()
    for match in _DEF.finditer(code):
        depth, at = 0, match.end()
        end = min(len(code), at + 4000)  # a signature longer than this is compared by its first part
        while at < end:
            char = code[at]
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
                if depth <= 0:
                    break
            at += 1
        found.add(" ".join(code[match.end() : at + 1].split()))
    return found


def _keywords_of(code: str) -> dict[str, set[str]]:
    """Each function's and method's (by qualified name) parameters a call may pass by keyword."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, set[str]] = {}

    def visit(body: list[ast.stmt], scope: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                arguments = node.args
                found[scope + node.name] = {a.arg for a in [*arguments.args, *arguments.kwonlyargs]}
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{scope}{node.name}.")

    visit(tree.body, "")
    return found


def suspect_blocks(page_text: str, names: Collection[str]) -> bool:
    """Whether a page may have a code block naming one of `names` (a fence or a directive, and the name as a
    word): which pages' Python blocks are read."""
    if not re.search(r"```|~~~|code-block::|sourcecode::|>>> |testcode::|doctest::", page_text):
        return False
    return any(re.search(rf"\b{re.escape(name)}\b", page_text) for name in names if name)
