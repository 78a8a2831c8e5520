"""Two texts side by side, aligned as a diff aligns them (`diff -y`): what a claim's evidence recorded beside what
stands there now, for a person deciding whether the claim still holds."""

from __future__ import annotations

import difflib

from .wording import printable

SAME, CHANGED, LEFT_ONLY, RIGHT_ONLY = "|", "!", "<", ">"


def _cell(line: str, width: int) -> str:
    shown = printable(line.expandtabs(4))
    return shown if len(shown) <= width else shown[: max(width - 1, 0)] + "…"


def side_by_side(left: str, right: str, width: int) -> list[str]:
    """Rows of two columns `width` characters wide, with a mark between them: `|` a line both have, `!` lines
    that differ, `<` a line only the left has, `>` a line only the right has. Long lines are cut with `…`."""
    a, b = left.splitlines(), right.splitlines()
    rows: list[str] = []

    def row(x: str | None, mark: str, y: str | None) -> None:
        cell = _cell(x, width) if x is not None else ""
        rows.append(f"{cell:<{width}} {mark} {_cell(y, width) if y is not None else ''}".rstrip())

    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            for x, y in zip(a[i1:i2], b[j1:j2], strict=True):
                row(x, SAME, y)
        elif op == "delete":
            for x in a[i1:i2]:
                row(x, LEFT_ONLY, None)
        elif op == "insert":
            for y in b[j1:j2]:
                row(None, RIGHT_ONLY, y)
        else:  # replace: pair them up, the longer side's rest alone
            for k in range(max(i2 - i1, j2 - j1)):
                old = a[i1 + k] if i1 + k < i2 else None
                new = b[j1 + k] if j1 + k < j2 else None
                mark = CHANGED if old is not None and new is not None else (LEFT_ONLY if new is None else RIGHT_ONLY)
                row(old, mark, new)
    return rows


def unified(left: str, right: str, left_name: str, right_name: str) -> list[str]:
    """The unified diff of two texts, each line printable."""
    diff = difflib.unified_diff(left.splitlines(), right.splitlines(), left_name, right_name, lineterm="", n=2)
    return [printable(line) for line in diff]
