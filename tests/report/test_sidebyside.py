"""Two texts side by side, aligned as a diff aligns them, and the text a version was recorded from."""

from __future__ import annotations

import pytest

from bot.claims.errors import EvidenceResourceError
from bot.claims.evidence import recorded_text, resolve_evidence
from bot.report.sidebyside import side_by_side, unified

OLD = "def f():\n    return 1\n\nx = 2\ny = 3\n"
NEW = "def f():\n    return 2\n    # more\n\nx = 2\n"


def test_rows_mark_what_both_have_what_differs_and_what_one_side_has() -> None:
    assert side_by_side(OLD, NEW, 12) == [
        "def f():     | def f():",
        "    return 1 !     return 2",
        "             >     # more",
        "             |",
        "x = 2        | x = 2",
        "y = 3        <",
    ]


def test_cells_are_cut_printable_and_tabs_expanded() -> None:
    rows = side_by_side("\tabcdefghijklmnop\x1b[31m", "z", 8)
    assert rows == ["    abc… ! z"]
    assert "\x1b" not in "".join(side_by_side("a\x1b[2Jb", "a\x1b[2Jb", 40))


def test_a_side_with_nothing_shows_the_other_alone() -> None:
    assert side_by_side("", "a\nb\n", 3) == ["    > a", "    > b"]
    assert side_by_side("a\n", "", 3) == ["a   <"]


def test_unified_diff_lines() -> None:
    assert unified("a\nb\n", "a\nc\n", "recorded", "now") == [
        "--- recorded", "+++ now", "@@ -1,2 +1,2 @@", " a", "-b", "+c",
    ]  # fmt: skip


CODE = b"import os\n\n\ndef f():\n    return 1\n"


def test_the_recorded_text_is_found_where_the_version_still_matches() -> None:
    recorded = resolve_evidence("repo://src/a.py#L4-L5", CODE)
    assert recorded is not None
    assert recorded_text(recorded.resource, recorded.version, CODE) == "def f():\n    return 1\n"
    moved = b"# header\n" + CODE
    assert recorded_text(recorded.resource, recorded.version, moved) == "def f():\n    return 1\n"  # moved down
    assert recorded_text(recorded.resource, recorded.version, CODE.replace(b"1", b"2")) is None  # changed
    whole = resolve_evidence("repo://src/a.py", CODE)
    assert whole is not None
    assert recorded_text(whole.resource, whole.version, CODE) == CODE.decode()
    assert recorded_text(whole.resource, whole.version, CODE + b"\n") is None


def test_a_resource_openwiki_would_reject_is_an_error() -> None:
    with pytest.raises(EvidenceResourceError):
        recorded_text("repo://../etc/passwd#L1", "repo-lines-v1:x", b"x\n")
