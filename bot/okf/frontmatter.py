"""Front matter read with YAML 1.2 semantics and edited surgically: only the field being set changes.

A page is kept as its exact parts (byte-order mark, delimiters, block lines with their own line endings,
body), so rendering an unedited page gives back the same text. A field is its top-level key line plus the
lines that belong to it (indented lines, a compact list at column 0, blank lines between them); trailing
blank lines and column-0 comments are left to their neighbours. Every edit is checked by parsing the result:
the other fields must be exactly what they were, or the edit is refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# OpenWiki's block pattern, applied after an optional byte-order mark (OpenWiki itself does not skip one).
_BLOCK = re.compile(r"---(\r?\n)(.*?)(\r?\n)---(\r?\n|\Z)", re.S)
_EMPTY_VALUE = re.compile(r"[ \t]*(?:#.*)?\r?\n?\Z")


class FrontMatterError(ValueError):
    """Front matter that cannot be read (not YAML, not a mapping) or an edit that would break it."""


@dataclass
class Page:
    """A Markdown page split into its parts; `render()` joins them back byte for byte."""

    bom: str = ""
    head: str = ""  # "---\n" or "---\r\n"; empty when the page has no front matter
    lines: list[str] = field(default_factory=list)  # block lines, each with its own line ending
    close: str = ""  # "---\n", "---\r\n" or "---" at the end of the file
    body: str = ""

    @classmethod
    def parse(cls, text: str) -> Page:
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        rest = text[len(bom) :]
        match = _BLOCK.match(rest)
        if match is None:
            return cls(bom=bom, body=rest)
        inner = match.group(2) + match.group(3)
        lines = inner.split("\n")
        lines = [line + "\n" for line in lines[:-1]]  # inner always ends with a line ending
        return cls(bom, "---" + match.group(1), lines, "---" + match.group(4), rest[match.end() :])

    @property
    def has_front_matter(self) -> bool:
        return bool(self.head)

    @property
    def eol(self) -> str:
        """The line ending new lines get: the one the front matter (or, without it, the body) uses."""
        sample = self.head or self.body
        return "\r\n" if "\r\n" in sample[: sample.find("\n") + 1] else "\n"

    def render(self) -> str:
        return self.bom + self.head + "".join(self.lines) + self.close + self.body

    def fields(self) -> dict[str, Any]:
        """The front matter as a mapping ({} without front matter); FrontMatterError when unusable."""
        if not self.has_front_matter:
            return {}
        from .yaml12 import YAMLError, load_yaml, yaml_problem  # noqa: PLC0415 - a check splits pages, never reads YAML

        block = "".join(self.lines)
        try:
            value = load_yaml(block)
        except YAMLError as exc:
            raise FrontMatterError(f"invalid YAML front matter: {yaml_problem(exc)}") from exc
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise FrontMatterError(f"front matter must be a YAML mapping, not {type(value).__name__}")
        return value

    # -- locating fields ------------------------------------------------------------------------

    def key_line(self, key: str) -> int | None:
        """Index of the line that starts top-level field `key`, or None."""
        for index, line in enumerate(self.lines):
            if line.startswith(key) and line[len(key) :].lstrip(" \t").startswith(":"):
                return index
        return None

    def extent(self, start: int) -> tuple[int, int]:
        """Lines [start, end) of the field whose key line is `start`: the key line, then indented lines
        (and a compact list at column 0 under an empty key), with the blank lines between them."""
        key_line = self.lines[start]
        compact_list = bool(_EMPTY_VALUE.match(key_line.split(":", 1)[1]))
        end = start + 1
        for index in range(start + 1, len(self.lines)):
            line = self.lines[index]
            if not line.strip():
                continue  # blank: it belongs to the field only if more of the field follows
            if line[0] in " \t" or (compact_list and (line.startswith("- ") or line.rstrip("\r\n") == "-")):
                end = index + 1
                continue
            break
        return start, end


def set_field(text: str, key: str, lines: Sequence[str] | None) -> str:
    """Replace top-level field `key` with `lines` (rendered, without line endings) or remove it (None).

    A missing field is appended at the end of the block; a page without front matter gets a block.
    Refuses (FrontMatterError) when the page cannot be parsed or when any other field would change.
    """
    page = Page.parse(text)
    before = page.fields()
    eol = page.eol
    new = [line + eol for line in lines] if lines is not None else None
    start = page.key_line(key)
    if start is not None:
        first, end = page.extent(start)
        page.lines[first:end] = new or []
    elif new is None:
        return text
    elif page.has_front_matter:
        if page.lines and not page.lines[-1].endswith("\n"):
            page.lines[-1] += eol
        page.lines.extend(new)
    else:
        # A new block goes first in the file: a byte-order mark before it would hide it from readers that do not
        # skip one (OpenWiki itself, okf-cli), so it goes.
        page.bom, page.head, page.lines, page.close = "", "---" + eol, new, "---" + eol
        page.body = eol + page.body
    if page.has_front_matter and not page.lines:
        # Nothing left in the block: drop it, and the line break that separated it from the body.
        page.head = page.close = ""
        page.body = page.body[2:] if page.body.startswith("\r\n") else page.body.removeprefix("\n")
    result = page.render()
    others_before = {k: v for k, v in before.items() if k != key}
    others_after = {k: v for k, v in Page.parse(result).fields().items() if k != key}
    if others_after != others_before:
        raise FrontMatterError(f"editing `{key}` would change other front matter fields; page left as it is")
    return result


def field_chunks(page: Page, key: str) -> list[list[str]] | None:
    """The items of a block-sequence field as their own lines (verbatim, with endings), or None when the
    field is absent or not written as a block sequence (then it can only be re-rendered)."""
    start = page.key_line(key)
    if start is None:
        return None
    first, end = page.extent(start)
    if not _EMPTY_VALUE.match(page.lines[first].split(":", 1)[1]):
        return None  # flow style or a scalar on the key line
    body = page.lines[first + 1 : end]
    content = [line for line in body if line.strip()]
    if not content:
        return []
    indent = len(content[0]) - len(content[0].lstrip(" "))
    chunks: list[list[str]] = []
    for line in body:
        starts_item = len(line) - len(line.lstrip(" ")) == indent and (
            line[indent:].startswith("- ") or line[indent:].rstrip("\r\n") == "-"
        )
        if starts_item:
            chunks.append([line])
        elif chunks:
            chunks[-1].append(line)
        elif line.strip():
            return None  # content before the first item: not a plain block sequence
    return [_reindent(chunk, indent, 2) for chunk in chunks]


def _reindent(chunk: list[str], old: int, new: int) -> list[str]:
    """Shift an item's lines so its dash stands at column `new` (relative indentation kept)."""
    if old == new:
        return chunk
    out = []
    for line in chunk:
        if not line.strip():
            out.append(line)
        elif new > old:
            out.append(" " * (new - old) + line)
        else:
            out.append(line[old - new :] if line[: old - new].strip(" ") == "" else line)
    return out
