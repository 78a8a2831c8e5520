"""The dotted names a docs site's API tooling reads from a page, beside its code spans and links: mkdocstrings'
`::: pkg.mod` lines and autorefs' link identifiers (`[text][pkg.mod.Obj]`, ``[`run()`][pkg.app.App.run]``) in
Markdown, and Sphinx's `.. currentmodule::` and `.. module::` lines in reStructuredText (its roles and `automodule`
lines are read with the page). Each is a code mention of the dotted name, on its line, so a change that renames
or removes what it names is found, and `fix` rewrites it as written. Pure: page text in, mentions out.
"""

from __future__ import annotations

import re

from .formats import page_kind
from .markdown import tokens
from .references import MAX_SPAN, Mention, page_body

_NAME = r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+"  # a dotted name: autorefs' identifiers of a Python API hold a dot
# `[text][pkg.mod.Obj]`: the identifier after the text; `[pkg.mod.Obj][]`: the text is the identifier
_AUTOREF = re.compile(rf"\]\[(?P<name>{_NAME})\]|\[(?P<bare>{_NAME})\]\[\]")
_MKDOCSTRINGS = re.compile(r"^:::[ \t]+(?P<name>[A-Za-z_][\w.]*)[ \t]*$", re.M)  # `::: pkg.mod`
# `.. currentmodule:: pkg.mod`, `.. py:module:: pkg.mod` (`None` resets the module: no name)
_RST_MODULE = re.compile(
    r"^[ \t]*\.\.[ \t]+(?:py:)?(?:currentmodule|module)::[ \t]+(?P<name>[A-Za-z_][\w.]*)[ \t]*$", re.M
)


def api_mentions(path: str, page_text: str) -> list[Mention]:
    """The page's `:::` lines and autorefs identifiers (Markdown) or its module directives (reStructuredText), as
    code mentions in page order; none on a page of another kind."""
    kind = page_kind(path)
    if kind == "markdown":
        return _markdown(page_text)
    if kind == "rst":
        return [
            Mention(found["name"], "code", page_text.count("\n", 0, found.start("name")) + 1)
            for found in _RST_MODULE.finditer(page_text)
            if found["name"] != "None"
        ]
    return []


def _markdown(page_text: str) -> list[Mention]:
    """The `:::` lines and autorefs identifiers of a Markdown page's prose (not in code blocks, code spans or
    links), each on its own line."""
    if "][" not in page_text and ":::" not in page_text:  # nearly every page: no parse for this
        return []
    body = page_body(page_text)
    offset = page_text.count("\n", 0, len(page_text) - len(body))
    found: list[Mention] = []
    for token in tokens(body):
        if token.type != "inline" or not token.map:
            continue
        content = token.content
        taken = [child.meta["span"] for child in token.children or () if "span" in child.meta]
        for pattern in (_AUTOREF, _MKDOCSTRINGS):
            for match in pattern.finditer(content):
                group = "bare" if match.groupdict().get("bare") else "name"
                at, name = match.start(group), match[group]
                if len(name) > MAX_SPAN or any(start <= at < end for start, end in taken):
                    continue  # inside a code span, or a link markdown-it read (its own mention)
                line = offset + token.map[0] + content.count("\n", 0, at) + 1
                found.append(Mention(name, "code", line))
    return sorted(found, key=lambda mention: mention.line)  # on a line, as written: a `:::` line holds nothing else
