"""Ordering as JavaScript's `localeCompare` (ICU root collation) sorts: OpenWiki orders pages this way."""

from __future__ import annotations

from functools import lru_cache

from pyuca import Collator  # type: ignore[import-untyped]

_collator = Collator()


@lru_cache(maxsize=65536)
def collation_key(value: str) -> tuple[tuple[int, ...], str]:
    """A sort key giving `localeCompare` order; ties (collation-equal strings) break on code points."""
    return (_collator.sort_key(value), value)
