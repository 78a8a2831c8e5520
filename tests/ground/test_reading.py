"""A page's reading (its mentions and blocks of prose, from one parse) and the readings kept by blob id: recalled
as they were made, under the context they were made in only, a damaged entry read again and never used."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import orjson
import pytest

from bot.ground.quotes import prose_blocks
from bot.ground.reading import FORMAT, PageReading, ReadingCache, read_page, reading_context
from bot.ground.references import Mention, mentions

PAGE = "---\ntitle: q\n---\n\n# Queue\n\nThe `drain` method of [the queue](../src/q.py) empties it.\n\n| a | b |\n|---|---|\n| `x` | y |\n"
A, B, C = "a" * 40, "b" * 40, "c" * 40


def test_a_reading_is_the_pages_mentions_and_prose_blocks() -> None:
    made = read_page("openwiki/a.md", PAGE)
    assert made == PageReading(tuple(mentions(PAGE)), tuple(prose_blocks(PAGE)))
    assert [(m.text, m.kind, m.line) for m in made.mentions] == [
        ("drain", "code", 7),
        ("../src/q.py", "link", 7),
        ("x", "code", 11),
    ]
    assert len(made.blocks) == 2


def _round_trip(cache: ReadingCache, context: str | None = None) -> ReadingCache:
    """What the next check reads back of what `cache` wrote (through JSON bytes, as a store keeps it)."""
    return ReadingCache.from_json(orjson.loads(orjson.dumps(cache.to_json())), context or cache.context)


def test_readings_kept_are_recalled_as_made_under_their_context_only() -> None:
    made = ReadingCache("ctx")
    made.keep(A, read_page("openwiki/a.md", PAGE))
    made.keep(B, read_page("openwiki/a.md", "# Empty\n"))
    assert made.changed
    again = _round_trip(made)
    assert again.recall(A) == read_page("openwiki/a.md", PAGE) and again.recall(B) == read_page("openwiki/a.md", "# Empty\n")
    assert again.recall(C) is None and again.recall(None) is None
    assert not again.changed  # every page recalled, none made: nothing to write
    assert _round_trip(made, "another context").recall(A) is None
    assert ReadingCache.from_json({**made.to_json(), "format": FORMAT + 1}, "ctx").recall(A) is None


def test_a_page_gone_from_the_wiki_is_forgotten_and_a_new_one_kept() -> None:
    made = ReadingCache("ctx")
    made.keep(A, read_page("openwiki/a.md", PAGE))
    made.keep(B, read_page("openwiki/a.md", "# B\n"))
    again = _round_trip(made)
    assert again.recall(A) is not None
    assert again.changed  # B not recalled: the wiki no longer holds it
    assert set(again.to_json()["pages"]) == {A}  # what it writes
    third = _round_trip(again)
    third.recall(A)
    third.keep(C, read_page("openwiki/a.md", "# C\n"))
    assert third.changed and set(third.to_json()["pages"]) == {A, C}
    third.keep(C, read_page("openwiki/a.md", "# other\n"))  # made once per blob id: the first is kept
    assert third.kept[C] == read_page("openwiki/a.md", "# C\n")


GOOD: list[Any] = [[["drain", "code", 7]], ["a block"]]


@pytest.mark.parametrize(
    "entry",
    [
        None,
        "text",
        [7, GOOD[1]],
        [GOOD[0]],
        [*GOOD, []],
        [{"drain": 7}, GOOD[1]],
        [GOOD[0], "a block"],
        [GOOD[0], ["a block", 3]],
        [[["drain", "code"]], GOOD[1]],
        [[["drain", "code", 7, 8]], GOOD[1]],
        [[["drain", "fence", 7]], GOOD[1]],
        [[["", "code", 7]], GOOD[1]],
        [[["x" * 201, "code", 7]], GOOD[1]],
        [[[7, "code", 7]], GOOD[1]],
        [[["drain", "code", 0]], GOOD[1]],
        [[["drain", "code", True]], GOOD[1]],
        [[["drain", "code", 7.0]], GOOD[1]],
        [[["drain", "code", 7], "drain"], GOOD[1]],
    ],
)
def test_a_damaged_entry_is_not_recalled_and_the_others_are(entry: object) -> None:
    stored = {"format": FORMAT, "context": "ctx", "pages": {A: entry, B: GOOD}}
    cache = ReadingCache.from_json(stored, "ctx")
    assert cache.recall(A) is None
    assert cache.recall(B) == PageReading((Mention("drain", "code", 7),), ("a block",))


def test_the_longest_mention_and_the_first_line_are_recalled() -> None:
    entry = [[["x" * 200, "code", 1], ["../a.md", "link", 2]], []]
    cache = ReadingCache.from_json({"format": FORMAT, "context": "ctx", "pages": {A: entry}}, "ctx")
    assert cache.recall(A) == PageReading((Mention("x" * 200, "code", 1), Mention("../a.md", "link", 2)), ())


def test_a_damaged_entry_read_again_is_kept_anew() -> None:
    cache = ReadingCache.from_json({"format": FORMAT, "context": "ctx", "pages": {A: "damaged"}}, "ctx")
    assert cache.recall(A) is None
    cache.keep(A, read_page("openwiki/a.md", PAGE))  # the same blob ids as were read: only its reading is new, and must be written
    assert cache.changed and _round_trip(cache).recall(A) == read_page("openwiki/a.md", PAGE)


@pytest.mark.parametrize(
    "value", [None, [1], {"format": FORMAT, "context": "ctx"}, {"format": FORMAT, "context": "ctx", "pages": []}]
)
def test_a_store_of_the_wrong_shape_recalls_nothing(value: object) -> None:
    assert ReadingCache.from_json(value, "ctx").recall(A) is None


def test_the_context_names_the_parsers_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    context = reading_context()
    assert context is not None and context == reading_context() and context.startswith(f"{FORMAT}:")
    init = tmp_path / "__init__.py"
    init.write_text('__version__ = "4.3.0"\n')
    spec = importlib.util.spec_from_file_location("markdown_it", init)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: spec)
    before = reading_context()
    init.write_text('__version__ = "4.4.0"\n')
    assert reading_context() != before  # another parser: readings made by the old one are not used
    init.unlink()  # a parser whose version cannot be read: no reading kept or used
    assert reading_context() is None
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert reading_context() is None
