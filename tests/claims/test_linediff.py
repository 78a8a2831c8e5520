"""The line diff: a valid, monotone matching that keeps what did not change and slides blocks as git does."""

from __future__ import annotations

import random
from difflib import SequenceMatcher

import pytest

from bot.claims import linediff
from bot.claims.linediff import LineDiff


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


def test_insertions_slide_down_as_in_git() -> None:
    # An inserted blank line among blank lines is shown as the last one, as `git diff` does.
    diff = LineDiff(["x", "", "y"], ["x", "", "", "y"])
    assert list(diff.new_added) == [0, 0, 1, 0]
    diff = LineDiff(["x", "", "", "y"], ["x", "", "y"])
    assert diff.old_to_new == [0, 1, -1, 2]


def test_new_positions_of_replaced_lines() -> None:
    diff = LineDiff(["a", "b", "c", "d"], ["a", "X", "Y", "d"])
    assert (diff.new_start_of(1), diff.new_end_of(2)) == (1, 3)
    assert (diff.new_start_of(0), diff.new_end_of(0)) == (0, 1)


def test_huge_region_without_anchors_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A region too large for the quadratic fallback is treated as replaced instead of stalling."""
    monkeypatch.setattr(linediff, "FALLBACK_CELLS", 100)
    old = ["x", "y"] * 20
    new = ["y", "x"] * 20
    diff = LineDiff(old, new)
    _check_valid(old, new, diff)
