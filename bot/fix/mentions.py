"""Rewriting what a page names after a rename, without a model: the fix's side of a broken reference.

A file git saw renamed, or a definition renamed with its body unchanged, is known exactly: the page's code span
or link is rewritten in place, on the line the check found it, written as it was written (`./` and a leading
`/` kept, a link relative to its page, a fragment or a line range kept, `::` and `#` kept). What cannot be
rewritten (removed, or not found where the check saw it) is left for a person, and said. Pure: text in, text
out.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote, unquote

from ..claims.results import BrokenReference

_SEPARATORS = re.compile(r"(::|#|\.)")
_LOCATION = re.compile(r"(?::\d+(?::\d+)?|#L\d+(?:-L\d+)?)$")


@dataclass(frozen=True)
class Rewrite:
    """A mention rewritten: the reference, and the text written in its place."""

    reference: BrokenReference
    new_text: str


def new_mention(ref: BrokenReference) -> str | None:
    """The mention as it reads after the rename, or None when the reference was not renamed or its text does
    not show what was renamed."""
    if ref.what != "renamed" or not ref.renamed_to:
        return None
    if ref.target == ref.path:
        return _new_path_mention(ref.text, ref.page, ref.target, ref.renamed_to, ref.kind)
    moved_to = ref.at[0] if ref.at is not None else ref.path
    return _new_name_mention(ref.text, ref.target, ref.renamed_to, _module(ref.path), _module(moved_to))


def _module(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def _new_path_mention(text: str, page: str, old: str, new: str, kind: str) -> str | None:
    if kind == "link":
        href, _, fragment = text.partition("#")
        path, _, query = href.partition("?")
        tail = ("?" + query if query else "") + ("#" + fragment if fragment else "")
        folder = path.endswith("/")
        if path.startswith("/"):
            written = "/" + new
        else:
            written = posixpath.relpath(new, posixpath.dirname(page) or ".")
            if path.startswith("./") and not written.startswith("../"):
                written = "./" + written
        decoded = unquote(path) != path
        return (quote(written, safe="/.-_~!$&'()*+,;=:@") if decoded else written) + ("/" if folder else "") + tail
    written = _LOCATION.sub("", text)
    location = text[len(written) :]
    lead = written[: len(written) - len(written.lstrip("./"))] if written.startswith(("./", "/")) else ""
    body = written[len(lead) :]
    trail = "/" if body.endswith("/") else ""
    if body.rstrip("/") != old:
        return None
    return lead + new + trail + location


def _new_name_mention(text: str, old: str, new: str, old_module: str = "", new_module: str = "") -> str | None:
    """`TaskQueue.drain()` → `TaskQueue.flush()`: the segments written are the old name's last ones, replaced by
    the new name's last as many (a container that changed changes too: `Client.x` → `AsyncClient.x`); a module
    written before them follows its file's rename (`util.flatten` → `helpers.flatten_all`)."""
    stripped = text.strip()
    match = re.match(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*", stripped)
    if match is None:
        return None
    parts = _SEPARATORS.split(match.group())
    names, separators = parts[0::2], parts[1::2]
    old_parts, new_parts = old.split("."), new.split(".")
    count = 0
    while count < min(len(names), len(old_parts)) and names[-1 - count] == old_parts[-1 - count]:
        count += 1
    if count == 0:
        return None
    replacement = new_parts[-count:] if count <= len(new_parts) else new_parts
    if count == len(old_parts) < len(new_parts) and _dotted_path(old_parts):
        replacement = new_parts  # a module's whole dotted path, written whole: it may now be deeper (`pkg.ui.widgets`)
    kept = names[: len(names) - count]
    if kept and kept[-1] == old_module and new_module and new_module != old_module:
        kept = [*kept[:-1], new_module]
    names_now = kept + replacement
    separators_now = separators[: len(names_now) - 1] + ["."] * max(0, len(names_now) - 1 - len(separators))
    rebuilt = names_now[0] + "".join(s + n for s, n in zip(separators_now, names_now[1:], strict=True))
    return text.replace(match.group(), rebuilt, 1)


def _dotted_path(parts: list[str]) -> bool:
    """Whether a name is a dotted path from its module (`pkg.widgets.Panel`, lowercase before the end), not a
    container's member (`TaskQueue.drain`)."""
    return len(parts) > 1 and parts[0][:1].islower()


# How an API tool's dotted name stands in a page's source, beside a code span: an autorefs identifier
# (`[text][pkg.mod.Obj]`, `[pkg.mod.Obj][]`), a Sphinx role's target with its `~` or `!` or after an explicit title
# (:class:`~pkg.mod.Obj`, :class:`Obj <pkg.mod.Obj>`), a directive's argument (`::: pkg.mod`, `.. automodule::
# pkg.mod`, `.. currentmodule:: pkg.mod`): the name whole, never the start of a longer one.
_API_FORMS = (
    r"(\]\[){name}(\])",
    r"((?<!\])\[){name}(\]\[\])",
    r"(`[~!]){name}(`)",
    r"(<){name}(>`)",
    r"(::[ \t]+){name}((?![\w.]))",
)


def _api_forms(line: str, text: str, replacement: str) -> tuple[str, int]:
    """`line` with `text` rewritten to `replacement` in every form an API tool reads it in, and how many."""
    total = 0
    for form in _API_FORMS:
        line, count = re.subn(form.format(name=re.escape(text)), lambda m: m[1] + replacement + m[2], line)
        total += count
    return line, total


def _spans(kind: str, text: str) -> list[str]:
    """How a mention of `text` may stand in a page's source (Markdown, MDX, reStructuredText: a literal, a role, a
    link, a directive's argument)."""
    if kind == "link":
        return [f"]({text})", f"](<{text}>)", f"]({text} ", f"]: {text}", f" <{text}>`_", f"`{text}`", f":: {text}"]
    return [f"``{text}``", f"`{text}`"]


def rewrite_mentions(page_text: str, refs: Iterable[BrokenReference]) -> tuple[str, list[Rewrite]]:
    """The page with each renamed reference's mention rewritten on its line (`refs` of this page), and what
    was rewritten; a reference whose mention is not found as written on its line is left (not in the list)."""
    lines = page_text.split("\n")
    done: list[Rewrite] = []
    for ref in refs:
        replacement = new_mention(ref)
        if replacement is None or not 0 < ref.line <= len(lines):
            continue
        line = lines[ref.line - 1]
        for span in _spans(ref.kind, ref.text):
            if span in line:
                lines[ref.line - 1] = line.replace(span, span.replace(ref.text, replacement, 1))
                done.append(Rewrite(ref, replacement))
                break
        if ref.kind == "code":  # the same name in an API tool's forms on the line, each rewritten too
            lines[ref.line - 1], count = _api_forms(lines[ref.line - 1], ref.text, replacement)
            if count and (not done or done[-1].reference is not ref):
                done.append(Rewrite(ref, replacement))
    return "\n".join(lines), done


@dataclass(frozen=True)
class ReferenceOutcome:
    """What a fix did with a broken reference that fails the check: rewritten (`new_text`), or left for a person
    (`reason`)."""

    reference: BrokenReference
    new_text: str | None
    reason: str

    @property
    def rewritten(self) -> bool:
        return self.new_text is not None


def plan_rewrites(
    refs: Iterable[BrokenReference], texts: dict[str, str]
) -> tuple[dict[str, str], list[ReferenceOutcome]]:
    """For the references that fail a check (`refs`), each page's text (`texts`, as the fix leaves it) with the
    renamed ones rewritten, and what became of every reference."""
    by_page: dict[str, list[BrokenReference]] = {}
    for ref in refs:
        if ref.attention:
            by_page.setdefault(ref.page, []).append(ref)
    pages: dict[str, str] = {}
    outcomes: list[ReferenceOutcome] = []
    for page, found in by_page.items():
        text = texts.get(page)
        done: dict[BrokenReference, str] = {}
        if text is not None:
            new, rewrites = rewrite_mentions(text, found)
            done = {r.reference: r.new_text for r in rewrites}
            if new != text:
                pages[page] = new
        for ref in found:
            if ref in done:
                outcomes.append(ReferenceOutcome(ref, done[ref], "renamed by the change: the mention follows it"))
            elif ref.what == "renamed" and ref.renamed_to:
                outcomes.append(ReferenceOutcome(ref, None, "renamed, but not found as written on its line"))
            elif ref.what == "missing":
                outcomes.append(ReferenceOutcome(ref, None, "no such path: a person must correct the page"))
            else:
                outcomes.append(ReferenceOutcome(ref, None, "removed: a person must correct the page"))
    return pages, outcomes
