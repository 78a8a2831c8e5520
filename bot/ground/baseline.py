"""A baseline of broken references, as ruff's and mypy's: an existing repository starts clean and sees only new
breakage. `wikiwarden check --write-baseline FILE` writes the references that fail the check now; with the file
named (`baseline:` in `.github/wikiwarden.yml`, or `--baseline`), a reference it holds is a note, not a failure.

A reference is known by its page, its text and what it named, not by its line: an edit elsewhere on the page
keeps it known; a new mention of the same gone thing on another page is new. Pure: bytes in, bytes out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..claims.results import BrokenReference

FORMAT = 1
MAX_BASELINE_BYTES = 4 << 20  # a million references' worth of a repository's history would not fill it


class BaselineError(ValueError):
    """The baseline file cannot be used; the message names it and says why."""


def _key(ref: BrokenReference) -> tuple[str, str, str]:
    return ref.page, ref.text, ref.target


def render_baseline(refs: Iterable[BrokenReference]) -> bytes:
    """The baseline of `refs` that fail the check, sorted and each once (the same refs give the same bytes)."""
    known = sorted({_key(ref) for ref in refs if ref.attention})
    document = {
        "format": FORMAT,
        "tool": "wikiwarden",
        "references": [{"page": page, "text": text, "target": target} for page, text, target in known],
    }
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


def parse_baseline(data: bytes, path: str) -> frozenset[tuple[str, str, str]]:
    """The references a baseline holds; BaselineError when it is not one `render_baseline` writes."""
    if len(data) > MAX_BASELINE_BYTES:
        raise BaselineError(f"{path}: {len(data):,} bytes; a baseline may hold at most {MAX_BASELINE_BYTES:,}")
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise BaselineError(f"{path}: not JSON ({exc.__class__.__name__})") from None
    shape = f'{path}: expected {{"format": {FORMAT}, "references": [{{"page", "text", "target"}}, …]}}'
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BaselineError(shape)
    items = document.get("references")
    if not isinstance(items, list):
        raise BaselineError(shape)
    known = set()
    for item in items:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("page", "text", "target")):
            raise BaselineError(shape)
        known.add((item["page"], item["text"], item["target"]))
    return frozenset(known)


BASELINE_NOTE = "in the baseline"  # how a baselined reference's note starts: known breakage, not a doubt


def is_baselined(note: str | None) -> bool:
    """Whether a reference's note says the baseline holds it."""
    return note is not None and note.startswith(BASELINE_NOTE + " (")


def with_baseline(
    refs: Iterable[BrokenReference], known: frozenset[tuple[str, str, str]], path: str
) -> list[BrokenReference]:
    """`refs` with those the baseline holds turned into notes (they were broken when it was written)."""
    note = f"{BASELINE_NOTE} ({path}): broken before it was written"
    return [ref._replace(attention=False, note=note) if ref.attention and _key(ref) in known else ref for ref in refs]
