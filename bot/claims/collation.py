"""Ordering as JavaScript's `localeCompare` (ICU root collation) sorts: OpenWiki orders pages this way.

pyuca reads the whole Unicode collation table when its Collator is built, which is slow, so it is built only for
text that needs it. Paths and ids are nearly always ASCII, and every ASCII character has exactly one collation
element of its own in the table (no contraction joins two ASCII characters, none is a non-starter), so their keys
are computed from `_ASCII`, that table's 128 rows: the same keys, element for element
(tests/claims/test_collation.py compares them with pyuca's).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Any

# (primary, secondary, tertiary) weight of each ASCII character in pyuca's DUCET 10.0.0; (0, 0, 0): ignorable.
_ASCII: tuple[tuple[int, int, int], ...] = (
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (513, 32, 2),
    (514, 32, 2),
    (515, 32, 2),
    (516, 32, 2),
    (517, 32, 2),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (0, 0, 0),
    (521, 32, 2),
    (608, 32, 2),
    (780, 32, 2),
    (920, 32, 2),
    (7186, 32, 2),
    (921, 32, 2),
    (918, 32, 2),
    (773, 32, 2),
    (791, 32, 2),
    (792, 32, 2),
    (911, 32, 2),
    (1558, 32, 2),
    (546, 32, 2),
    (525, 32, 2),
    (631, 32, 2),
    (916, 32, 2),
    (7229, 32, 2),
    (7230, 32, 2),
    (7231, 32, 2),
    (7232, 32, 2),
    (7233, 32, 2),
    (7234, 32, 2),
    (7235, 32, 2),
    (7236, 32, 2),
    (7237, 32, 2),
    (7238, 32, 2),
    (569, 32, 2),
    (564, 32, 2),
    (1562, 32, 2),
    (1563, 32, 2),
    (1564, 32, 2),
    (614, 32, 2),
    (910, 32, 2),
    (7239, 32, 8),
    (7264, 32, 8),
    (7290, 32, 8),
    (7311, 32, 8),
    (7338, 32, 8),
    (7397, 32, 8),
    (7412, 32, 8),
    (7448, 32, 8),
    (7474, 32, 8),
    (7500, 32, 8),
    (7525, 32, 8),
    (7543, 32, 8),
    (7594, 32, 8),
    (7609, 32, 8),
    (7645, 32, 8),
    (7692, 32, 8),
    (7713, 32, 8),
    (7731, 32, 8),
    (7793, 32, 8),
    (7829, 32, 8),
    (7861, 32, 8),
    (7907, 32, 8),
    (7925, 32, 8),
    (7935, 32, 8),
    (7947, 32, 8),
    (7969, 32, 8),
    (793, 32, 2),
    (917, 32, 2),
    (794, 32, 2),
    (1157, 32, 2),
    (523, 32, 2),
    (1154, 32, 2),
    (7239, 32, 2),
    (7264, 32, 2),
    (7290, 32, 2),
    (7311, 32, 2),
    (7338, 32, 2),
    (7397, 32, 2),
    (7412, 32, 2),
    (7448, 32, 2),
    (7474, 32, 2),
    (7500, 32, 2),
    (7525, 32, 2),
    (7543, 32, 2),
    (7594, 32, 2),
    (7609, 32, 2),
    (7645, 32, 2),
    (7692, 32, 2),
    (7713, 32, 2),
    (7731, 32, 2),
    (7793, 32, 2),
    (7829, 32, 2),
    (7861, 32, 2),
    (7907, 32, 2),
    (7925, 32, 2),
    (7935, 32, 2),
    (7947, 32, 2),
    (7969, 32, 2),
    (795, 32, 2),
    (1566, 32, 2),
    (796, 32, 2),
    (1568, 32, 2),
    (0, 0, 0),
)


@cache
def _collator() -> Any:
    from pyuca import Collator  # type: ignore[import-untyped]  # noqa: PLC0415 - slow: only for non-ASCII text

    return Collator()


# `str.translate` tables, one per level: each ASCII character to its weight as a character (None: no weight).
_LEVELS = tuple(
    {n: chr(weights[level]) if weights[level] else None for n, weights in enumerate(_ASCII)} for level in range(3)
)


def _ascii_sort_key(value: str) -> str:
    """pyuca's `sort_key` for ASCII text, as `as_text` writes it: each level's non-zero weights, then a 0."""
    first, second, third = _LEVELS
    return f"{value.translate(first)}\0{value.translate(second)}\0{value.translate(third)}\0"


def as_text(weights: Iterable[int]) -> str:
    """A sort key of weights as a string of characters: ordered as the weights are (DUCET's fit in 16 bits), and
    compared at C speed without a tuple of ints per key."""
    return "".join(map(chr, weights))


@lru_cache(maxsize=65536)
def collation_key(value: str) -> tuple[str, str]:
    """A sort key giving `localeCompare` order; ties (collation-equal strings) break on code points."""
    if value.isascii():
        return (_ascii_sort_key(value), value)
    return (as_text(_collator().sort_key(value)), value)
