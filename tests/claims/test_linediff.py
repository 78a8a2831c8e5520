"""The line diff: a valid, monotone matching that keeps what did not change and slides blocks as git does."""

from __future__ import annotations

import random
import subprocess
from difflib import SequenceMatcher
from pathlib import Path

import pytest

from bot.claims import linediff
from bot.claims.linediff import Hunk, LineDiff


def _check_valid(old: list[str], new: list[str], diff: LineDiff) -> None:
    pairs = [(i, j) for i, j in enumerate(diff.old_to_new) if j >= 0]
    assert all(old[i] == new[j] for i, j in pairs)
    assert [j for _, j in pairs] == sorted({j for _, j in pairs})  # monotone, one-to-one
    assert [j for j in range(len(new)) if not diff.new_added[j]] == [j for _, j in pairs]
    # Hunks cover exactly the unmatched lines on both sides.
    covered_old = {i for h in diff.hunks for i in range(h.old_start, h.old_end)}
    covered_new = {j for h in diff.hunks for j in range(h.new_start, h.new_end)}
    assert covered_old == {i for i, j in enumerate(diff.old_to_new) if j < 0}
    assert covered_new == {j for j in range(len(new)) if diff.new_added[j]}


def _edited(rng: random.Random, old: list[str], pool: list[str]) -> list[str]:
    new = list(old)
    for _ in range(rng.randint(0, 10)):
        op = rng.random()
        at = rng.randint(0, len(new))
        if op < 0.4:
            new[at:at] = [rng.choice(pool) for _ in range(rng.randint(1, 4))]
        elif op < 0.8 and new:
            del new[at : at + rng.randint(1, 4)]
        elif new:
            new[min(at, len(new) - 1)] = rng.choice(pool)
    return new


def _best(old: list[str], new: list[str]) -> int:
    return sum(b.size for b in SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks())


@pytest.mark.parametrize("seed", range(40))
def test_adversarial_alphabets_still_give_a_valid_matching(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = list("abcdefghij"[: rng.randint(2, 10)])
    old = [rng.choice(alphabet) for _ in range(rng.randint(0, 80))]
    new = _edited(rng, old, alphabet)
    _check_valid(old, new, LineDiff(old, new))


@pytest.mark.parametrize("seed", range(40))
def test_code_like_sequences_match_nearly_everything_that_survived(seed: int) -> None:
    """Mostly distinct lines with some blank lines and braces, as in source code."""
    rng = random.Random(seed)
    common = ["", "}", "    return x", "else:"]

    def line() -> str:
        return rng.choice(common) if rng.random() < 0.3 else f"stmt_{rng.randrange(10**6)}"

    old = [line() for _ in range(rng.randint(20, 200))]
    new = _edited(rng, old, [line() for _ in range(50)])
    diff = LineDiff(old, new)
    _check_valid(old, new, diff)
    assert sum(1 for j in diff.old_to_new if j >= 0) >= 0.95 * _best(old, new)


def test_unchanged_and_empty() -> None:
    assert LineDiff(["a", "b"], ["a", "b"]).old_to_new == [0, 1]
    assert LineDiff([], ["a"]).new_added == bytearray(b"\x01")
    assert LineDiff(["a"], []).old_to_new == [-1]
    assert LineDiff([], []).hunks == []


def test_moved_block_keeps_the_larger_part_matched() -> None:
    old = ["head", "A1", "A2", "A3", "mid1", "mid2", "mid3", "mid4", "mid5", "tail"]
    new = ["head", "mid1", "mid2", "mid3", "mid4", "mid5", "A1", "A2", "A3", "tail"]
    diff = LineDiff(old, new)
    assert diff.old_to_new[4:9] == [1, 2, 3, 4, 5]
    assert diff.old_to_new[1:4] == [-1, -1, -1]


def test_moved_block_keeps_the_larger_part_matched_whichever_comes_first() -> None:
    """The anchors are the longest increasing run of unique lines, not the run that ends last in the file."""
    old = ["head", "mid1", "mid2", "mid3", "mid4", "mid5", "A1", "A2", "A3", "tail"]
    new = ["head", "A1", "A2", "A3", "mid1", "mid2", "mid3", "mid4", "mid5", "tail"]
    diff = LineDiff(old, new)
    assert diff.old_to_new == [0, 4, 5, 6, 7, 8, -1, -1, -1, 9]
    assert diff.hunks == [Hunk(1, 1, 1, 4), Hunk(6, 9, 9, 9)]


def _git_alignment(old: list[str], new: list[str], folder: Path) -> list[int]:
    """Which new line each old line is shown against by `git diff --no-indent-heuristic` (-1: removed)."""
    (folder / "old").write_text("".join(line + "\n" for line in old))
    (folder / "new").write_text("".join(line + "\n" for line in new))
    shown = subprocess.run(
        ["git", "diff", "--no-index", "--no-color", "--no-indent-heuristic", "-U100000", "old", "new"],
        cwd=folder, capture_output=True, text=True, check=False,
    ).stdout.splitlines()  # fmt: skip
    alignment, i, j = [-1] * len(old), 0, 0
    for line in shown[next(n for n, text in enumerate(shown) if text.startswith("@@")) + 1 :]:
        if line.startswith(" "):
            alignment[i] = j
        i += line[0] in " -"
        j += line[0] in " +"
    return alignment


# old, new, where each old line stands in new (-1: removed), the hunks. Each case is one the matcher itself
# places high (its anchors or its suffix match pin the surrounding lines), so only the slide puts it low.
SLIDES = [
    pytest.param(
        ["a", "x", "", "y"], ["b", "x", "", "", "y"], [-1, 1, 2, 4], [Hunk(0, 1, 0, 1), Hunk(3, 3, 3, 4)],
        id="one blank line inserted among blank lines is the last of them",
    ),
    pytest.param(
        ["a", "x", "", "", "y"], ["b", "x", "", "y"], [-1, 1, 2, -1, 3], [Hunk(0, 1, 0, 1), Hunk(3, 4, 3, 3)],
        id="one blank line deleted among blank lines is the last of them",
    ),
    pytest.param(
        ["A", "x", "a", "b", "z"], ["B", "x", "a", "b", "a", "b", "z"], [-1, 1, 2, 3, 6],
        [Hunk(0, 1, 0, 1), Hunk(4, 4, 4, 6)],
        id="a repeated two-line block inserted is the second copy",
    ),
    pytest.param(
        ["A", "x", "a", "b", "a", "b", "z"], ["B", "x", "a", "b", "z"], [-1, 1, 2, 3, -1, -1, 4],
        [Hunk(0, 1, 0, 1), Hunk(4, 6, 4, 4)],
        id="a repeated two-line block deleted is the second copy",
    ),
    pytest.param(
        ["q", "u", "}", "", "v", "}", "w"], ["r", "u", "}", "", "v", "}", "", "v", "}", "w"],
        [-1, 1, 2, 3, 4, 5, 9], [Hunk(0, 1, 0, 1), Hunk(6, 6, 6, 9)],
        id="a three-line block slides as far as the lines repeat",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "alignment", "hunks"), SLIDES)
def test_pure_insertions_and_deletions_slide_down_as_git_shows_them(
    old: list[str], new: list[str], alignment: list[int], hunks: list[Hunk], tmp_path: Path
) -> None:
    """Where an inserted or deleted block could sit in several places, it sits as low as the repeated lines
    allow: where `git diff` shows it (xdiff's compaction; git's indent heuristic, on by default, may shift a
    block back up so it ends at a blank line, which only moves which of two identical copies is called new)."""
    diff = LineDiff(old, new)
    assert diff.old_to_new == alignment
    assert diff.hunks == hunks
    assert list(diff.new_added) == [0 if j in alignment else 1 for j in range(len(new))]
    assert _git_alignment(old, new, tmp_path) == alignment


# Edits of repetitive text where many matchings are as long as each other: which copy each old line follows is
# what git shows (--no-indent-heuristic), checked live. Lines are single letters to make the repetition plain.
AMBIGUOUS = [
    pytest.param(
        list("acccbccabc"), list("cabc"), [-1, -1, -1, -1, -1, -1, 0, 1, 2, 3],
        id="a deletion from the top keeps the last copy of the text",
    ),
    pytest.param(
        list("aa"), list("bbcaaacacca"), [3, 4],
        id="two lines among insertions stay together at their first place",
    ),
    pytest.param(list("bba"), list("aaba"), [-1, 2, 3], id="a line replaced at the top"),
    pytest.param(
        list("YaabYYYaaY"), list("aaabYYaaY"), [-1, 1, 2, 3, 4, 5, -1, 6, 7, 8],
        id="a deletion slides only past lines equal to it",
    ),
    pytest.param(
        list("XXXaaXaaXaXa"), list("XaXaXaXaXa"), [0, -1, -1, -1, 1, 2, 3, 5, 6, 7, 8, 9],
        id="a region without unique lines is matched as a whole",
    ),
    pytest.param(
        list("aabaaccabX"), list("aabaacbcaX"), [0, 1, 2, 3, 4, 5, 7, 8, -1, 9],
        id="of two crossing lines the longer run is kept",
    ),
]  # fmt: skip


def test_a_unique_line_that_swapped_places_with_a_repeated_one_stays_matched() -> None:
    """Every unique line of the longest increasing run anchors at once, before any prefix or suffix is matched
    between them: the distinctive line (what a claim should cite) is kept, a repeated line is called deleted.
    git's diff, matching as many lines either way, keeps the other `x = 1` and loses `import os`."""
    old = ["import os", "x = 1", "x = 1", "", "", "run()"]
    new = ["x = 1", "import os", "x = 1", "", "", "run()", ""]
    diff = LineDiff(old, new)
    assert diff.old_to_new == [1, 2, -1, 3, 4, 5]
    assert diff.hunks == [Hunk(0, 0, 0, 1), Hunk(2, 3, 3, 3), Hunk(6, 6, 6, 7)]


@pytest.mark.parametrize(("old", "new", "alignment"), AMBIGUOUS)
def test_ambiguous_edits_are_aligned_as_git_aligns_them(
    old: list[str], new: list[str], alignment: list[int], tmp_path: Path
) -> None:
    diff = LineDiff(old, new)
    _check_valid(old, new, diff)
    assert diff.old_to_new == alignment
    assert _git_alignment(old, new, tmp_path) == alignment


def test_a_blank_line_inserted_or_deleted_next_to_another_is_the_lower_one() -> None:
    # An inserted blank line among blank lines is shown as the last one, as `git diff` does.
    diff = LineDiff(["x", "", "y"], ["x", "", "", "y"])
    assert (diff.old_to_new, list(diff.new_added)) == ([0, 1, 3], [0, 0, 1, 0])
    diff = LineDiff(["x", "", "", "y"], ["x", "", "y"])
    assert diff.old_to_new == [0, 1, -1, 2]
    assert diff.hunks == [Hunk(2, 3, 2, 2)]


def test_new_positions_of_replaced_lines() -> None:
    diff = LineDiff(["a", "b", "c", "d"], ["a", "X", "Y", "d"])
    assert (diff.new_start_of(1), diff.new_end_of(2)) == (1, 3)
    assert (diff.new_start_of(0), diff.new_end_of(0)) == (0, 1)


def test_each_replaced_line_stands_where_its_own_hunk_put_it() -> None:
    """A change with several hunks: a stale span's new text is what replaced it, not another hunk's lines."""
    diff = LineDiff(["a", "b", "c", "d", "e", "f"], ["a", "B", "c", "d", "f", "E1", "E2"])
    assert diff.hunks == [Hunk(1, 2, 1, 2), Hunk(4, 5, 4, 4), Hunk(6, 6, 5, 7)]
    assert [(diff.new_start_of(i), diff.new_end_of(i)) for i in range(6)] == [
        (0, 1),
        (1, 2),  # b: replaced by B
        (2, 3),
        (3, 4),
        (4, 4),  # e: deleted, nothing stands in its place (between d and f)
        (4, 5),
    ]


def test_a_region_without_anchors_is_matched_up_to_the_bound_and_replaced_beyond_it() -> None:
    """No line unique on both sides: the quadratic matcher runs on at most FALLBACK_CELLS (old x new lines);
    a larger region is treated as replaced, whole, so a pathological file cannot stall a sweep."""
    assert linediff.FALLBACK_CELLS == 1000 * 1000
    at_bound = LineDiff(["x", "y"] * 500, ["y", "x"] * 500)  # 1000 x 1000 lines: matched
    assert at_bound.old_to_new == [*range(1, 1000), -1]
    assert at_bound.hunks == [Hunk(0, 0, 0, 1), Hunk(999, 1000, 1000, 1000)]
    beyond = LineDiff(["x", "y"] * 500, ["y", "x"] * 500 + ["x"])  # 1000 x 1001 lines: replaced
    assert beyond.old_to_new == [-1] * 1000
    assert list(beyond.new_added) == [1] * 1001
    assert beyond.hunks == [Hunk(0, 1000, 0, 1001)]
    assert (beyond.new_start_of(0), beyond.new_end_of(999)) == (0, 1001)


def test_the_bound_is_per_region_between_anchors(monkeypatch: pytest.MonkeyPatch) -> None:
    """A unique line splits a file too large for the fallback into regions that each fit it."""
    old = ["x", "y"] * 300 + ["ANCHOR"] + ["x", "y"] * 300
    new = ["y", "x"] * 300 + ["ANCHOR"] + ["y", "x"] * 300
    diff = LineDiff(old, new)
    assert diff.old_to_new[600] == 600
    assert diff.old_to_new[:600] == [*range(1, 600), -1]
    assert diff.old_to_new[601:] == [*range(602, 1201), -1]
    assert diff.hunks == [
        Hunk(0, 0, 0, 1),
        Hunk(599, 600, 600, 600),
        Hunk(601, 601, 601, 602),
        Hunk(1200, 1201, 1201, 1201),
    ]
    monkeypatch.setattr(linediff, "FALLBACK_CELLS", 600 * 600 - 1)  # each region one cell too large
    replaced = LineDiff(old, new)
    assert replaced.old_to_new == [-1] * 600 + [600] + [-1] * 600
    assert replaced.hunks == [Hunk(0, 600, 0, 600), Hunk(601, 1201, 601, 1201)]


def test_the_fallback_matches_only_its_own_region() -> None:
    """Between the matched prefix (b b X) and suffix (X b a b), difflib's matcher sees exactly the region's lines:
    given one more old line, it would pair the suffix's X a second time."""
    old = ["b", "b", "X", "b", "X", "b", "X", "b", "a", "b"]
    new = ["b", "b", "X", "X", "b", "X", "a", "X", "b", "a", "b"]
    region = SequenceMatcher(None, old[3:6], new[3:7], autojunk=False).get_matching_blocks()
    assert [(3 + m.a + k, 3 + m.b + k) for m in region for k in range(m.size)] == [(3, 4), (4, 5)]
    assert LineDiff(old, new).old_to_new == [0, 1, 2, 4, 5, -1, 7, 8, 9, 10]


def test_an_anchor_splits_a_huge_repetitive_file_so_only_the_change_is_unmatched() -> None:
    """A generated table under a unique header that moved down a line, its last row changed: the region after
    the header is too large for the fallback, and is matched line by line from the line after the anchor."""
    old = ["HEADER", *["x", "y"] * 501, "q"]
    new = ["new", "HEADER", *["x", "y"] * 501, "r"]
    diff = LineDiff(old, new)
    assert diff.old_to_new == [*range(1, 1004), -1]
    assert diff.hunks == [Hunk(0, 0, 0, 1), Hunk(1003, 1004, 1004, 1005)]


def test_a_unique_first_line_anchors_a_huge_region_on_either_side() -> None:
    """Where the fallback cannot run, the unique lines are all that match, the region's first line included."""
    diff = LineDiff(["HEAD", *["x", "y"] * 600], ["new", "HEAD", *["y", "x"] * 600])
    assert diff.old_to_new == [1] + [-1] * 1200
    assert diff.hunks == [Hunk(0, 0, 0, 1), Hunk(1, 1201, 2, 1202)]
    diff = LineDiff(["old", "HEAD", *["x", "y"] * 600], ["HEAD", *["y", "x"] * 600])
    assert diff.old_to_new == [-1, 0] + [-1] * 1200
    assert diff.hunks == [Hunk(0, 1, 0, 0), Hunk(2, 1202, 1, 1201)]
