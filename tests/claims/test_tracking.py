"""Wikiwarden's tracker against edits whose effect is known: thousands of generated cases, plus moves
across files and renames through `track` with the rest of the change."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from bot.claims import Tracked, Verdict, resolve_evidence, track_evidence
from bot.claims.resources import parse_resource
from bot.claims.text import FileText, normalized
from bot.claims.track import ChangedFile, track
from bot.claims.versions import file_version, lines_version

VOCABULARY = [
    "",
    "",
    "}",
    "    return x",
    "    pass",
    "else:",
    "import os",
    "# comment",
    "    x += 1",
    "def helper():",
]


def _unique(rng: random.Random) -> str:
    return f"    value_{rng.randrange(10**9)} = compute({rng.randrange(100)})"


def _source(rng: random.Random) -> list[str]:
    return [rng.choice(VOCABULARY) if rng.random() < 0.35 else _unique(rng) for _ in range(rng.randint(12, 160))]


def _encode(lines: list[str], eol: str = "\n") -> bytes:
    return "".join(line + eol for line in lines).encode()


Edit = Callable[[random.Random, list[str], int, int], tuple[list[str], str, int | None, str]]


def no_change(rng, lines, s, e):
    return lines, "same", s, "\n"


def insert_above(rng, lines, s, e):
    at = rng.randint(0, s)
    new = [_unique(rng) for _ in range(rng.randint(1, 5))]
    return lines[:at] + new + lines[at:], "same", s + len(new), "\n"


def insert_below(rng, lines, s, e):
    at = rng.randint(e, len(lines))
    return lines[:at] + [_unique(rng) for _ in range(rng.randint(1, 5))] + lines[at:], "same", s, "\n"


def delete_above(rng, lines, s, e):
    if s == 0:
        return no_change(rng, lines, s, e)
    a = rng.randint(0, s - 1)
    b = rng.randint(a + 1, s)
    return lines[:a] + lines[b:], "same", s - (b - a), "\n"


def edit_context(rng, lines, s, e):
    new = list(lines)
    spot = rng.choice([i for i in (s - 1, e) if 0 <= i < len(lines)] or [None])
    if spot is None:
        return no_change(rng, lines, s, e)
    new[spot] = _unique(rng)
    return new, "same", s, "\n"


def move_range(rng, lines, s, e):
    block, rest = lines[s:e], lines[:s] + lines[e:]
    if not rest:
        return no_change(rng, lines, s, e)
    at = rng.choice([i for i in range(len(rest) + 1) if i != s])
    return rest[:at] + block + rest[at:], "same", at, "\n"


def move_other_block(rng, lines, s, e):
    """A block above the span moves below it: the span itself is untouched but shifts up."""
    if s < 2:
        return no_change(rng, lines, s, e)
    a = rng.randint(0, s - 1)
    b = rng.randint(a + 1, s)
    block, rest = lines[a:b], lines[:a] + lines[b:]
    at = rng.randint(e - (b - a), len(rest))
    return rest[:at] + block + rest[at:], "same", s - (b - a), "\n"


def crlf(rng, lines, s, e):
    return lines, "cosmetic", s, "\r\n"


def trailing_space_inside(rng, lines, s, e):
    new = list(lines)
    spot = rng.randrange(s, e)
    new[spot] = new[spot] + rng.choice([" ", "  ", "\t"])
    return new, "cosmetic", s, "\n"


def edit_inside(rng, lines, s, e):
    new = list(lines)
    new[rng.randrange(s, e)] = _unique(rng)
    return new, "changed", None, "\n"


def indent_inside(rng, lines, s, e):
    new = list(lines)
    spot = rng.randrange(s, e)
    new[spot] = "    " + new[spot]
    return new, ("cosmetic" if not lines[spot].strip() else "changed"), None, "\n"


def append_inside(rng, lines, s, e):
    if e - s < 2:
        return edit_inside(rng, lines, s, e)
    at = rng.randint(s + 1, e - 1)
    return [*lines[:at], _unique(rng), *lines[at:]], "changed", None, "\n"


def delete_range(rng, lines, s, e):
    return lines[:s] + lines[e:], "gone", None, "\n"


EDITS: list[Edit] = [
    no_change,
    insert_above,
    insert_below,
    delete_above,
    edit_context,
    move_range,
    move_other_block,
    crlf,
    trailing_space_inside,
    edit_inside,
    indent_inside,
    append_inside,
    delete_range,
]


def _occurrences(lines: list[bytes], block: list[bytes]) -> int:
    n = len(block)
    return sum(1 for t in range(len(lines) - n + 1) if lines[t : t + n] == block)


@pytest.mark.parametrize("edit", EDITS, ids=lambda f: f.__name__)
def test_generated_edits(edit: Edit) -> None:
    rng = random.Random(f"wikiwarden-{edit.__name__}")
    outcomes: Counter[str] = Counter()
    for _ in range(300):
        lines = _source(rng)
        n = rng.randint(1, min(12, len(lines)))
        s = rng.randint(0, len(lines) - n)
        e = s + n
        if not any(lines.count(line) == 1 for line in lines[s:e]):
            continue  # only lines repeated elsewhere: the text alone cannot say which copy is the evidence
        new_lines, truth, t, eol = edit(rng, lines, s, e)
        before, after = _encode(lines), _encode(new_lines, eol)
        resource = f"repo://src/x.py#L{s + 1}-L{e}"
        stored = resolve_evidence(resource, before)
        assert stored is not None
        tracked = track_evidence(resource, before, after, stored.version)
        old_block = FileText(before).lines[s:e]
        new_text = FileText(after)
        context = (edit.__name__, lines, s, e, new_lines, tracked)
        outcomes[tracked.verdict.value] += 1
        if truth == "same":
            assert tracked.verdict in (Verdict.FRESH, Verdict.MOVED), context
            a, b = tracked.span  # type: ignore[misc]
            assert new_text.lines[a - 1 : b] == old_block, context
            if _occurrences(new_text.lines, old_block) == 1:
                assert tracked.span == (t + 1, t + n), context  # type: ignore[operator]
            assert tracked.version == stored.version
            assert (tracked.verdict is Verdict.FRESH) == (tracked.span == (s + 1, e))
        elif truth == "cosmetic":
            assert tracked.verdict is Verdict.COSMETIC, context
            a, b = tracked.span  # type: ignore[misc]
            assert [normalized(x) for x in new_text.lines[a - 1 : b]] == [normalized(x) for x in old_block]
            assert resolve_evidence(tracked.resource, after, tracked.version).version == tracked.version  # type: ignore[arg-type, union-attr]
            assert tracked.version == lines_version(new_text, a - 1, b)
        elif truth == "changed":
            assert tracked.verdict is Verdict.STALE, context
            # Exactly where the span's lines now stand, the change included (a line added inside it widens it).
            a, b = s + 1, e + (1 if edit is append_inside and n > 1 else 0)
            assert tracked.span == (a, b), context
            assert tracked.old_text == b"".join(old_block).decode()
            assert tracked.new_text == new_text.join(a - 1, b).decode()
            assert tracked.version == lines_version(new_text, a - 1, b)
        else:
            assert tracked.verdict is Verdict.UNRESOLVED, context
            assert (tracked.span, tracked.resource, tracked.version) == (None, None, None)
            assert tracked.old_text == b"".join(old_block).decode()
            # Where the text stood: the line that now follows what preceded it (the last line when nothing does).
            assert tracked.anchor == (("src/x.py", min(s + 1, new_text.line_count)) if new_text.line_count else None)
        if tracked.span is not None:
            assert tracked.resource == f"repo://src/x.py#L{tracked.span[0]}-L{tracked.span[1]}"
        assert tracked.diff_aware, context  # the base matched the stored version: the diff decided
        assert tracked.error is None
        if tracked.verdict is not Verdict.STALE:
            assert tracked.new_text is None
        if tracked.verdict not in (Verdict.STALE, Verdict.UNRESOLVED):
            assert tracked.old_text is None
        if tracked.verdict is not Verdict.UNRESOLVED:
            assert tracked.anchor is None
    assert sum(outcomes.values()) > 200


def _changed(path: str | None, old: bytes | None, new: bytes | None) -> ChangedFile:
    return ChangedFile(path, FileText(old) if old is not None else None, FileText(new) if new is not None else None)


BODY = "def drain(queue):\n    out = []\n    while queue:\n        out.append(queue.pop())\n    return out\n"
OTHER = "import os\n\n\ndef other():\n    return 1\n"


def _stored(resource: str, content: bytes) -> str:
    found = resolve_evidence(resource, content)
    assert found is not None
    return found.version


def test_span_moved_to_another_file_of_the_change() -> None:
    before = (OTHER + "\n" + BODY).encode()
    resource = "repo://src/queue.py#L7-L11"
    stored = _stored(resource, before)
    own = _changed("src/queue.py", before, OTHER.encode())
    elsewhere = _changed("src/util.py", None, ("# helpers\n\n" + BODY).encode())
    tracked = track(parse_resource(resource), stored, own, [elsewhere])
    assert (tracked.verdict, tracked.resource, tracked.span) == (Verdict.MOVED, "repo://src/util.py#L3-L7", (3, 7))
    assert tracked.version == stored


def test_text_already_present_elsewhere_does_not_pass_for_the_moved_text() -> None:
    """Only added lines count: an identical copy that was there all along is not where the text went."""
    before = (BODY + "\n" + BODY).encode()
    resource = "repo://src/queue.py#L7-L11"
    stored = _stored(resource, before)
    own = _changed("src/queue.py", before, BODY.encode())  # the second copy was deleted
    tracked = track(parse_resource(resource), stored, own, [])
    assert tracked.verdict in (Verdict.FRESH, Verdict.MOVED, Verdict.UNRESOLVED)
    # The diff keeps the first copy and deletes the second: the recorded span is the deleted one.
    assert tracked.verdict is Verdict.UNRESOLVED


def test_ambiguous_destination_is_unresolved() -> None:
    before = (OTHER + "\n" + BODY).encode()
    resource = "repo://src/queue.py#L7-L11"
    stored = _stored(resource, before)
    own = _changed("src/queue.py", before, OTHER.encode())
    copies = [_changed("a.py", None, BODY.encode()), _changed("b.py", None, BODY.encode())]
    assert track(parse_resource(resource), stored, own, copies).verdict is Verdict.UNRESOLVED


def test_moved_to_another_file_and_reformatted_is_cosmetic() -> None:
    before = (OTHER + "\n" + BODY).encode()
    resource = "repo://src/queue.py#L7-L11"
    stored = _stored(resource, before)
    own = _changed("src/queue.py", before, OTHER.encode())
    elsewhere = _changed("src/util.py", None, BODY.replace("\n", "\r\n").encode())
    tracked = track(parse_resource(resource), stored, own, [elsewhere])
    assert (tracked.verdict, tracked.resource) == (Verdict.COSMETIC, "repo://src/util.py#L1-L5")
    assert tracked.version != stored


def test_renamed_file_with_edits_elsewhere() -> None:
    before = (BODY + OTHER).encode()
    resource = "repo://src/queue.py#L1-L5"
    stored = _stored(resource, before)
    own = _changed("src/pkg/queue.py", before, ("# moved here\n" + BODY + OTHER.replace("1", "2")).encode())
    tracked = track(parse_resource(resource), stored, own)
    assert (tracked.verdict, tracked.resource) == (Verdict.MOVED, "repo://src/pkg/queue.py#L2-L6")


@pytest.mark.parametrize(
    ("after", "verdict", "resource"),
    [
        (BODY, Verdict.FRESH, "repo://src/q.py"),
        (BODY.replace("\n", "\r\n"), Verdict.COSMETIC, "repo://src/q.py"),
        (BODY.replace("queue.pop", "queue.popleft"), Verdict.STALE, "repo://src/q.py"),
        (None, Verdict.UNRESOLVED, None),
    ],
)
def test_whole_file_evidence(after: str | None, verdict: Verdict, resource: str | None) -> None:
    stored = _stored("repo://src/q.py", BODY.encode())
    tracked = track_evidence("repo://src/q.py", BODY.encode(), after.encode() if after is not None else None, stored)
    now = file_version(FileText(after.encode())) if after is not None else None
    version = {Verdict.FRESH: stored, Verdict.COSMETIC: now, Verdict.STALE: now, Verdict.UNRESOLVED: None}[verdict]
    stale = verdict is Verdict.STALE
    assert tracked == (
        verdict,
        None,
        resource,
        version,
        BODY if stale else None,
        after if stale else None,
        None,
        True,
        None,
    )


def test_whole_file_renamed_and_deleted_then_found_among_added_files() -> None:
    stored = _stored("repo://src/q.py", BODY.encode())
    res = parse_resource("repo://src/q.py")
    renamed = track(res, stored, _changed("lib/q.py", BODY.encode(), BODY.encode()))
    assert (renamed.verdict, renamed.resource) == (Verdict.MOVED, "repo://lib/q.py")
    gone = _changed(None, BODY.encode(), None)
    found = track(res, stored, gone, [_changed("lib/q2.py", None, BODY.encode())])
    assert (found.verdict, found.resource) == (Verdict.MOVED, "repo://lib/q2.py")


def test_unknown_base_falls_back_to_openwiki() -> None:
    stored = _stored("repo://q.py#L2-L3", BODY.encode())
    moved = ("# header\n" + BODY).encode()
    tracked = track_evidence("repo://q.py#L2-L3", None, moved, stored)
    assert (tracked.verdict, tracked.span, tracked.diff_aware) == (Verdict.MOVED, (3, 4), False)
    # The base does not match the stored version either: same fallback.
    tracked = track_evidence("repo://q.py#L2-L3", b"unrelated\n", moved, stored)
    assert (tracked.verdict, tracked.diff_aware) == (Verdict.MOVED, False)
    # Gone with no base to follow it from: OpenWiki's answer, unresolved, not decided by a diff.
    assert track_evidence("repo://q.py#L2-L3", None, None, stored) == Tracked(Verdict.UNRESOLVED)
    assert track_evidence("repo://q.py", None, None, _stored("repo://q.py", BODY.encode())) == Tracked(
        Verdict.UNRESOLVED
    )


def test_bad_resources_are_errors_not_exceptions() -> None:
    for resource in ("http://x", "repo://../x", "repo://..#L1", "repo://openwiki/x.md", "repo://x#L0"):
        tracked = track_evidence(resource, b"a\n", b"a\n", "v")
        assert tracked.verdict is Verdict.ERROR and tracked.error
