"""Text for people, in the terminal and on GitHub alike: a count agrees with what it counts, untrusted text is
shown on one line without control characters (a terminal escape in a statement cannot recolour or clear the
screen, a bidirectional override cannot reverse what follows), and text cut to fit says so with "…"."""

from __future__ import annotations

import re

# C0 and C1 controls (tab, line feed and carriage return are whitespace, handled apart) and the bidirectional
# embeddings, overrides and isolates: invisible characters that change what the rest of a line looks like.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_REPLACEMENT = "\ufffd"


def plural(count: int, singular: str, plural: str | None = None) -> str:
    """`count` and the noun (or the phrase, verb included) it takes: "1 claim", "2 claims", "1,234 tokens"."""
    return f"{count:,} {singular if count == 1 else (plural or singular + 's')}"


def printable(text: str) -> str:
    """`text` with its control characters shown as U+FFFD; lines, tabs and indentation kept (code, diffs)."""
    return _CONTROLS.sub(_REPLACEMENT, text)


def one_line(text: str) -> str:
    """`text` on one line: every run of whitespace (line breaks included) one space, control characters shown."""
    return printable(" ".join(text.split()))


def clip(text: str, width: int) -> str:
    """`text` on one line, cut to at most `width` characters, ending with "…" when something was cut."""
    line = one_line(text)
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


__all__ = ("clip", "one_line", "plural", "printable")
