"""Rewriting what a page names after a rename, without a model: the fix's side of a broken reference.

A file git saw renamed, or a definition renamed with its body unchanged, is known exactly: the page's code span
or link is rewritten in place, on the line the check found it, written as it was written (`./` and a leading
`/` kept, a link relative to its page, a fragment or a line range kept, `::` and `#` kept), and escaped for where
it stands, since a name is repository input (`link_destination`, `markdown_code_span`, `rst_literal`,
`rst_interpreted`, `rst_argument`: a name never becomes a link, span or markup of its own). What cannot be
rewritten (removed, not found where the check saw it, or a name that cannot stand there) is left for a person,
and said. Pure: text in, text out.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
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
    """The mention as it reads after the rename (a link's destination as a URL, as a Markdown page's parser reads
    it), or None when the reference was not renamed or its text does not show what was renamed."""
    if ref.what != "renamed" or not ref.renamed_to:
        return None
    if ref.target == ref.path:
        return _new_path_mention(ref.text, ref.page, ref.target, ref.renamed_to, ref.kind)
    moved_to = ref.at[0] if ref.at is not None else ref.path
    return _new_name_mention(ref.text, ref.target, ref.renamed_to, _module(ref.path), _module(moved_to))


def _module(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def _new_path_mention(text: str, page: str, old: str, new: str, kind: str, *, url: bool = True) -> str | None:
    """A path mention as it reads after the rename; a link's path part as a URL (`url`: its special characters
    percent-encoded, `link_destination`) or as the plain path a reStructuredText role or directive takes."""
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
        if url:
            found = link_destination(written, encoded=unquote(path) != path)
            if found is None:
                return None
            written = found
        return written + ("/" if folder else "") + tail
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


# --- writing a name into a page: each context escapes what would change what the page says -----------------------
# (used for renamed paths and names alike; a rule that writes a new mention should write it through these)

# What ends a link destination, starts its title, query or fragment, is decoded in it (`%`, `&` entities, `\`
# escapes), makes a code span, tag or MDX expression around it, or splits a table cell: percent-encoded.
_DESTINATION_SPECIAL = frozenset("()<>[]\\`#?%&{}|\"'")
_URL_SAFE = "/.-_~!$*+,;=:@"  # what a page's percent-encoded link keeps as is (no parenthesis, quote or `&`)


def link_destination(path: str, *, encoded: bool = False) -> str | None:
    """A relative path as a link destination (Markdown, MDX, reStructuredText's embedded URI) that reads back as
    that path, and as nothing else: every character that would end it, open a title, a query, a fragment, a code
    span, a tag or an expression, or be decoded (`%`, `&`, `\\`), every space and control character percent-encoded;
    with `encoded` (the link was written percent-encoded) every character but a URL's plain ones. None when the
    path cannot be encoded (a lone surrogate)."""
    try:
        if encoded:
            return quote(path, safe=_URL_SAFE)
        return "".join(
            quote(c, safe="") if c in _DESTINATION_SPECIAL or c.isspace() or not c.isprintable() else c for c in path
        )
    except UnicodeEncodeError:
        return None


def _breaks_a_line(text: str) -> bool:
    """Whether `text` holds what no inline context of a page can hold: a line break or another control character
    (a line-based reader would split or drop it)."""
    return any(not c.isprintable() and c not in "\t " for c in text)


def markdown_code_span(text: str, fence: int = 1, pad: bool = False) -> str | None:
    """`text` as a CommonMark code span that reads back as it: fenced by `fence` backticks unless `text` holds a
    run of as many (then by one more than its longest run), padded with a space (`pad`, or when it starts or ends
    with a backtick, or starts and ends with a space, which the reader strips); None when it cannot be one (a
    line break reads as a space)."""
    if not text or _breaks_a_line(text):
        return None
    runs = {len(run) for run in re.findall("`+", text)}
    width = fence if fence > 0 and fence not in runs else max(runs, default=0) + 1
    padded = pad or text[0] == "`" or text[-1] == "`" or (text[0] == text[-1] == " " and text.strip(" ") != "")
    space = " " if padded else ""
    return "`" * width + space + text + space + "`" * width


def rst_literal(text: str) -> str | None:
    """`text` as a reStructuredText inline literal (two backticks around it, nothing inside escaped); None when one
    cannot hold it: a backtick (which may end it), whitespace at either end, a line break."""
    if not text or "`" in text or text != text.strip() or _breaks_a_line(text):
        return None
    return f"``{text}``"


def rst_interpreted(text: str) -> str | None:
    """`text` as the content of a reStructuredText role (`` :file:`text` ``, `` :doc:`text` ``): a backslash, a
    backtick, the angle brackets of an explicit target and the braces of `:file:`'s variable part backslash-escaped
    (the reader drops a backslash before any character); None when it cannot be one (whitespace at either end, a
    line break)."""
    if not text or text != text.strip() or _breaks_a_line(text):
        return None
    return re.sub(r"([\\`<>{}])", r"\\\1", text)


def rst_argument(text: str) -> str | None:
    """`text` as a directive's argument (`.. include:: text`): written as it is; None when it cannot be one
    (whitespace at either end, a run of spaces the reader joins, a line break)."""
    if not text or text != text.strip() or "  " in text or _breaks_a_line(text):
        return None
    return text


@dataclass(frozen=True)
class _Context:
    """One way a mention stands on a page's line: a pattern finding it (`{text}`: the mention, escaped; the group
    `t` the part to rewrite, else the whole match, which `write` then writes delimiters included), how to write a
    mention there, and whether a link's path is written there as a URL."""

    pattern: str
    write: Callable[[str], str | None]
    url: bool = True


def _as_is(text: str) -> str:
    return text  # a link's destination, already encoded by `link_destination`


# Markdown and MDX: a link's destination (inline, in angle brackets, before a title, a reference definition's).
_MARKDOWN_LINKS = [
    _Context(r"\]\((?P<t>{text})\)", _as_is), _Context(r"\]\(<(?P<t>{text})>\)", _as_is),
    _Context(r"\]\((?P<t>{text}) ", _as_is), _Context(r"\]: (?P<t>{text})(?=\s|$)", _as_is),
]  # fmt: skip
# reStructuredText: a hyperlink's embedded URI; a role's target (`:doc:`, `:download:`); a directive's argument.
_RST_LINKS = [
    _Context(r" <(?P<t>{text})>`_", _as_is), _Context(r"(?<!`)`(?P<t>{text})`(?!`)", rst_interpreted, url=False),
    _Context(r":: (?P<t>{text})(?=\s*$)", rst_argument, url=False),
]  # fmt: skip
# reStructuredText's inline literal and a role's text (`:file:`, `:meth:`); Markdown's code span, however fenced.
_RST_CODE = [_Context(r"(?<!`)``{text}``(?!`)", rst_literal), _Context(r"(?<!`)`(?P<t>{text})`(?!`)", rst_interpreted)]
_MARKDOWN_CODE = _Context(r"(?<!`)(?P<fence>`+)(?P<pad> ?){text}(?P=pad)(?P=fence)(?!`)", markdown_code_span)


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


_IDENTIFIERS = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")  # what an API form may hold, unescaped


def _api_forms(line: str, text: str, replacement: str) -> tuple[str, int]:
    """`line` with `text` rewritten to `replacement` in every form an API tool reads it in, and how many."""
    total = 0
    for form in _API_FORMS:
        line, count = re.subn(form.format(name=re.escape(text)), lambda m: m[1] + replacement + m[2], line)
        total += count
    return line, total


def _contexts(kind: str, rst: bool) -> list[_Context]:
    """How a mention may stand in a page's source (Markdown, MDX, reStructuredText: a literal, a role, a link, a
    directive's argument), each with its writer."""
    if kind == "link":
        return _RST_LINKS if rst else _MARKDOWN_LINKS
    return _RST_CODE if rst else [_MARKDOWN_CODE]


def _is_rst(page: str) -> bool:
    return page.lower().endswith(".rst")


def _rewrite_line(line: str, ref: BrokenReference) -> tuple[str, str] | str | None:
    """`line` with every mention of `ref` on it rewritten, and the mention as it now reads; why not (a str) when
    its new text cannot be written where one of them stands (then none is); None when none is found as written."""
    edits: list[tuple[int, int, str]] = []
    shown: str | None = None
    for context in _contexts(ref.kind, _is_rst(ref.page)):
        for found in re.finditer(context.pattern.format(text=re.escape(ref.text)), line):
            if ref.kind == "link" and ref.target == ref.path:
                new = _new_path_mention(ref.text, ref.page, ref.target, ref.renamed_to or "", "link", url=context.url)
            else:
                new = new_mention(ref)
            if new is None:
                return None
            if context is _MARKDOWN_CODE:
                written = markdown_code_span(new, len(found["fence"]), bool(found["pad"]))
                if written is not None and "|" in new and "|" in line[: found.start()] + line[found.end() :]:
                    return f"renamed to {ref.renamed_to}, whose `|` would split the table row it stands in"
            else:
                written = context.write(new)
            if written is None:
                return f"renamed to {ref.renamed_to}, which cannot be written where the page names it"
            part = "t" if "t" in found.groupdict() else 0
            edits.append((found.start(part), found.end(part), written))
            shown = shown or new
    if shown is None:
        return None
    for start, end, written in sorted(edits, reverse=True):  # the contexts' patterns never overlap
        line = line[:start] + written + line[end:]
    return line, shown


def _rewrite(page_text: str, refs: Iterable[BrokenReference]) -> tuple[str, list[Rewrite], dict[BrokenReference, str]]:
    lines = page_text.split("\n")
    done: list[Rewrite] = []
    refused: dict[BrokenReference, str] = {}
    for ref in refs:
        if new_mention(ref) is None or not 0 < ref.line <= len(lines):
            continue
        outcome = _rewrite_line(lines[ref.line - 1], ref)
        if isinstance(outcome, tuple):
            lines[ref.line - 1], new = outcome
            done.append(Rewrite(ref, new))
        elif outcome is not None:
            refused[ref] = outcome
            continue
        replacement = new_mention(ref)
        if ref.kind == "code" and replacement is not None and _IDENTIFIERS.fullmatch(replacement):
            # the same name in an API tool's forms on the line (autorefs, roles, `:::` lines), each rewritten too
            lines[ref.line - 1], count = _api_forms(lines[ref.line - 1], ref.text, replacement)
            if count and (not done or done[-1].reference is not ref):
                done.append(Rewrite(ref, replacement))
    return "\n".join(lines), done, refused


def rewrite_mentions(page_text: str, refs: Iterable[BrokenReference]) -> tuple[str, list[Rewrite]]:
    """The page with each renamed reference's mention rewritten on its line (`refs` of this page), each written
    escaped for where it stands (a link's destination, a code span, a literal, a role), and what was rewritten; a
    reference whose mention is not found as written on its line, or whose new name cannot stand there, is left
    (not in the list)."""
    text, done, _ = _rewrite(page_text, refs)
    return text, done


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
        refused: dict[BrokenReference, str] = {}
        if text is not None:
            new, rewrites, refused = _rewrite(text, found)
            done = {r.reference: r.new_text for r in rewrites}
            if new != text:
                pages[page] = new
        for ref in found:
            if ref in done:
                outcomes.append(ReferenceOutcome(ref, done[ref], "renamed by the change: the mention follows it"))
            elif ref in refused:
                outcomes.append(ReferenceOutcome(ref, None, refused[ref]))
            elif ref.what == "renamed" and ref.renamed_to:
                outcomes.append(ReferenceOutcome(ref, None, "renamed, but not found as written on its line"))
            elif ref.what == "missing":
                outcomes.append(ReferenceOutcome(ref, None, "no such path: a person must correct the page"))
            else:
                outcomes.append(ReferenceOutcome(ref, None, "removed: a person must correct the page"))
    return pages, outcomes
