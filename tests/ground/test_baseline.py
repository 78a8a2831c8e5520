"""The baseline of broken references: written the same for the same references, read back strictly, known by
page, text and target (not by line), and turning what it holds into notes."""

from __future__ import annotations

import json

import pytest

from bot.claims.results import BrokenReference
from bot.ground.baseline import MAX_BASELINE_BYTES, BaselineError, parse_baseline, render_baseline, with_baseline

A = BrokenReference("docs/a.md", 3, "src/x.py", "src/x.py", "src/x.py", "missing")
B = BrokenReference("docs/b.md", 9, "drain()", "Queue.drain", "src/q.py", "removed")
NOTE = BrokenReference("docs/c.md", 1, "zstd", "zstd", "x.py", "removed", attention=False, note="a bare word")


def test_written_sorted_once_without_notes_and_read_back() -> None:
    data = render_baseline([B, A, A, NOTE])
    assert render_baseline([A, B]) == data
    assert json.loads(data)["references"] == [
        {"page": "docs/a.md", "text": "src/x.py", "target": "src/x.py"},
        {"page": "docs/b.md", "text": "drain()", "target": "Queue.drain"},
    ]
    assert parse_baseline(data, "b.json") == {("docs/a.md", "src/x.py", "src/x.py"), ("docs/b.md", "drain()", "Queue.drain")}


def test_what_it_holds_is_a_note_wherever_its_line_went() -> None:
    known = parse_baseline(render_baseline([A]), ".github/baseline.json")
    moved = A._replace(line=40)
    other = A._replace(page="docs/z.md")
    judged = with_baseline([moved, other, NOTE], known, ".github/baseline.json")
    assert [(r.page, r.attention) for r in judged] == [("docs/a.md", False), ("docs/z.md", True), ("docs/c.md", False)]
    assert judged[0].note == "in the baseline (.github/baseline.json): broken before it was written"
    assert judged[2].note == "a bare word"


@pytest.mark.parametrize(
    "data",
    [
        b"not json",
        b"[]",
        b'{"format": 2, "references": []}',
        b'{"format": 1}',
        b'{"format": 1, "references": [{"page": "a"}]}',
        b'{"format": 1, "references": [{"page": 1, "text": "a", "target": "b"}]}',
        b"[" * 100_000,
        b" " * (MAX_BASELINE_BYTES + 1),
    ],
)
def test_a_file_that_is_no_baseline_is_an_error_naming_it(data: bytes) -> None:
    with pytest.raises(BaselineError, match=r"^b\.json: "):
        parse_baseline(data, "b.json")
