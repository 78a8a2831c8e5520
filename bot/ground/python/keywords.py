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
    `find_breaking_changes` reports a removed parameter. Only the signatures that changed are parsed (each on its
    own, with `ast`): this runs on every change to Python code. A function is known by its name in its file (two
    methods of one name are one: a keyword one of them still takes is not counted removed)."""
    found: set[str] = set()
    for path, text in before.items():
        new_text = after.get(path)
        if new_text is None or max(len(text), len(new_text)) > MAX_MODULE_BYTES:
            continue
        old, new = _signatures(text), _signatures(new_text)
        for name, signatures in old.items():
            kept = new.get(name)
            if kept is None or signatures <= kept:
                continue  # the function went (its own finding), or its every signature stands as it was
            still = set().union(*(_keywords_of(s) for s in kept))
            for signature in signatures - kept:
                found |= _keywords_of(signature) - still
    return frozenset(found)


_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)", re.M)


def _signatures(code: str) -> dict[str, set[str]]:
    """Each function's name → the texts of its signatures (`name(params)`, whitespace folded): from its `def` to
    its parameters' end, by brackets."""
    found: dict[str, set[str]] = {}
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
        found.setdefault(match[1], set()).add(" ".join(code[match.start(1) : at + 1].split()))
    return found


def _keywords_of(signature: str) -> set[str]:
    """The parameters a call may pass by keyword of one signature (`name(a, b=1, *, c)` → a, b, c)."""
    try:
        tree = ast.parse(f"def {signature}: pass")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    function = tree.body[0]
    if not isinstance(function, ast.FunctionDef):
        return set()
    return {a.arg for a in [*function.args.args, *function.args.kwonlyargs]}


_WORD = re.compile(r"\w+")


def suspect_blocks(page_text: str, names: Collection[str]) -> bool:
    """Whether a page may have a code block naming one of `names` (a fence or a directive, and the name as a
    word): which pages' Python blocks are read."""
    if not re.search(r"```|~~~|code-block::|sourcecode::|>>> |testcode::|doctest::", page_text):
        return False
    return not set(names).isdisjoint(_WORD.findall(page_text))
