"""The sweep's moved path (text found unchanged where the file's last moved text says) answers exactly as
OpenWiki's full algorithm, which the sweep runs for every record the moved path declines."""

from __future__ import annotations

import base64
import random

import pytest

from bot.claims import Verdict
from bot.claims.options import SweepOptions
from bot.claims.results import EvidenceResult
from bot.claims.sidecar import EvidenceRecord
from bot.claims.snapshot import MemorySnapshot
from bot.claims.sweep import Sweeper, found_moved
from bot.claims.text import FileText
from bot.claims.verdicts import OpenWikiVerdict
from bot.claims.versions import lines_version

PATH = "src/app.py"
LINES = [f"line {n} = {n * 7}\n".encode() for n in range(40)]
CODE = b"".join(LINES)


def _token(data: bytes, start: int, end: int) -> str:
    """The version OpenWiki writes for lines [start, end) (0-based) of `data`."""
    return lines_version(FileText(data), start, end)


def _offsets(data: bytes) -> list[int]:
    return list(FileText(data).offsets)


def _with_metadata(token: str, metadata: bytes) -> str:
    return token[:86] + base64.urlsafe_b64encode(metadata).rstrip(b"=").decode()


def _metadata(token: str) -> bytes:
    return base64.urlsafe_b64decode(token[86:] + "==")


# -- found_moved ----------------------------------------------------------------------------------


def test_text_standing_once_where_guessed_is_found_there() -> None:
    token = _token(CODE, 10, 15)
    moved = b"# one\n# two\n" + CODE
    assert found_moved(moved, _offsets(moved), 12, token) == (13, 17)


@pytest.mark.parametrize("guess", [11, 13, 0, -1, 38])
def test_a_wrong_guess_finds_nothing(guess: int) -> None:
    moved = b"# one\n# two\n" + CODE
    assert found_moved(moved, _offsets(moved), guess, _token(CODE, 10, 15)) is None


def test_text_standing_twice_is_left_to_the_general_algorithm() -> None:
    """OpenWiki then compares the contexts: the moved path never decides between two places."""
    span = b"".join(LINES[10:15])
    before = span + CODE  # the same text earlier ...
    after = CODE + span  # ... or later
    assert found_moved(before, _offsets(before), 15, _token(CODE, 10, 15)) is None
    assert found_moved(after, _offsets(after), 10, _token(CODE, 10, 15)) is None


def test_text_at_the_top_of_the_file_is_found() -> None:
    assert found_moved(CODE, _offsets(CODE), 0, _token(CODE, 0, 5)) == (1, 5)


def test_a_line_standing_again_a_byte_later_is_left_to_the_general_algorithm() -> None:
    """Two empty lines, found again from the second one: one byte later."""
    data = b"\n\n\nx"
    assert found_moved(data, _offsets(data), 0, _token(data, 0, 2)) is None


def test_text_overlapping_itself_is_left_to_the_general_algorithm() -> None:
    """Lines `x x x`: `x x` stands at two places that overlap, which a count of the bytes would miss."""
    data = b"a\nx\nx\nx\nb\n"
    token = _token(b"x\nx\nb\n", 0, 2)
    assert found_moved(data, _offsets(data), 1, token) is None


def test_text_found_inside_a_line_is_left_to_the_general_algorithm() -> None:
    data = b"zzline 3 = 21\nline 3 = 21\n"
    assert found_moved(data, _offsets(data), 1, _token(CODE, 3, 4)) is None


@pytest.mark.parametrize("field", ["firstSelectedLineHash", "lastSelectedLineHash"])
@pytest.mark.parametrize("count", [2, 5])
def test_a_token_whose_line_hashes_are_not_its_text_is_not_found(field: str, count: int) -> None:
    """OpenWiki looks for the first line's hash, then the last line's: a token whose text hashes right but whose
    line hashes are another's finds nothing there."""
    token = _token(CODE, 10, 10 + count)
    assert found_moved(CODE, _offsets(CODE), 10, token) == (11, 10 + count)
    metadata = _metadata(token)
    at = metadata.index(f'"{field}":"'.encode()) + len(field) + 4
    forged = _with_metadata(token, metadata[:at] + b"0" * 64 + metadata[at + 64 :])
    assert found_moved(CODE, _offsets(CODE), 10, forged) is None


def test_a_single_line_is_found_whatever_its_last_line_hash_says() -> None:
    """One line: OpenWiki checks the first line's hash, not the last's."""
    token = _token(CODE, 7, 8)
    metadata = _metadata(token)
    at = metadata.index(b'"lastSelectedLineHash":"') + 24
    forged = _with_metadata(token, metadata[:at] + b"0" * 64 + metadata[at + 64 :])
    assert found_moved(CODE, _offsets(CODE), 7, forged) == (8, 8)


def test_a_token_not_written_canonically_is_left_to_the_general_algorithm() -> None:
    token = _token(CODE, 10, 15)
    spaced = _with_metadata(token, _metadata(token).replace(b",", b", "))
    assert found_moved(CODE, _offsets(CODE), 10, spaced) is None
    assert found_moved(CODE, _offsets(CODE), 10, "repo-lines-v1:sha256:" + "0" * 64) is None


def test_text_running_past_the_end_is_not_found() -> None:
    assert found_moved(CODE, _offsets(CODE), 36, _token(CODE, 35, 40)) is None
    assert found_moved(CODE, _offsets(CODE), 35, _token(CODE, 35, 40)) == (36, 40)


# -- the sweep ------------------------------------------------------------------------------------


def _sweeper(data: bytes) -> Sweeper:
    return Sweeper(MemorySnapshot({PATH: data}, label="head"), None, SweepOptions())


def _batch(sweeper: Sweeper, records: list[EvidenceRecord]) -> list[EvidenceResult | None]:
    results: list[EvidenceResult | None] = [None] * len(records)
    sweeper.evaluator.evaluate_file(PATH, list(enumerate(records)), results)
    return results


def test_every_record_of_a_file_whose_text_moved_down_is_moved() -> None:
    moved = b"# moved\n# down\n# by three\n" + CODE
    records = [EvidenceRecord(f"repo://{PATH}#L{s + 1}-L{s + 5}", _token(CODE, s, s + 5)) for s in range(0, 30, 5)]
    results = _batch(_sweeper(moved), records)
    assert results == [
        EvidenceResult(
            r.resource,
            r.version,
            Verdict.MOVED,
            OpenWikiVerdict.FRESH,
            (s + 4, s + 8),
            f"repo://{PATH}#L{s + 4}-L{s + 8}",
            r.version,
        )
        for s, r in zip(range(0, 30, 5), records, strict=True)
    ]


def _general(sweeper: Sweeper, monkeypatch: pytest.MonkeyPatch) -> list[EvidenceRecord]:
    """The records `sweeper` will leave to the general algorithm, as it does."""
    general = []
    evaluate = sweeper.evaluator._evaluate_filed

    def counted(path: str, record: EvidenceRecord, current: object) -> EvidenceResult:
        general.append(record)
        return evaluate(path, record, current)  # type: ignore[arg-type]

    monkeypatch.setattr(sweeper.evaluator, "_evaluate_filed", counted)
    return general


def test_after_the_first_record_the_moved_path_answers_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first record is found by the general search; it tells the shift every later one is looked for at."""
    moved = b"# moved\n# down\n# by three\n" + CODE
    records = [EvidenceRecord(f"repo://{PATH}#L{s + 1}-L{s + 5}", _token(CODE, s, s + 5)) for s in range(0, 30, 5)]
    sweeper = _sweeper(moved)
    general = _general(sweeper, monkeypatch)
    _batch(sweeper, records)
    assert general == records[:1]


def test_a_file_moved_as_the_one_before_is_answered_on_the_moved_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A header added to every file: the first file's first record tells where the next file's text stands."""
    header = b"# Copyright\n# Licence\n"
    other = "src/other.py"
    files = {PATH: header + CODE, other: header + CODE.replace(b"line", b"row")}
    sweeper = Sweeper(MemorySnapshot(files, label="head"), None, SweepOptions())
    general = _general(sweeper, monkeypatch)
    first = [EvidenceRecord(f"repo://{PATH}#L{s + 1}-L{s + 5}", _token(CODE, s, s + 5)) for s in (0, 10)]
    old_other = CODE.replace(b"line", b"row")
    second = [EvidenceRecord(f"repo://{other}#L{s + 1}-L{s + 5}", _token(old_other, s, s + 5)) for s in (0, 10)]
    results: list[EvidenceResult | None] = [None] * 4
    sweeper.evaluator.evaluate_file(PATH, list(enumerate(first)), results)
    sweeper.evaluator.evaluate_file(other, list(enumerate(second, start=2)), results)
    assert [r.span for r in results if r] == [(3, 7), (13, 17), (3, 7), (13, 17)]
    assert general == first[:1]


def test_records_fresh_at_their_hints_never_reach_the_general_algorithm(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [EvidenceRecord(f"repo://{PATH}#L{s + 1}-L{s + 5}", _token(CODE, s, s + 5)) for s in range(0, 30, 5)]
    sweeper = _sweeper(CODE)
    general = _general(sweeper, monkeypatch)
    assert {result.verdict for result in _batch(sweeper, records) if result} == {Verdict.FRESH}
    assert general == []


def test_a_hint_shorter_than_its_text_is_found_where_it_starts_on_the_moved_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lines 4-7 cited, lines 4-8 recorded: the text has not moved from the hint's first line."""
    record = EvidenceRecord(f"repo://{PATH}#L4-L7", _token(CODE, 3, 8))
    sweeper = _sweeper(CODE)
    general = _general(sweeper, monkeypatch)
    [result] = _batch(sweeper, [record])
    assert (result.verdict, result.span, result.resource_now) == (Verdict.MOVED, (4, 8), f"repo://{PATH}#L4-L8")
    assert general == []


@pytest.mark.parametrize("count", [3, 4, 6, 13])
def test_a_token_whose_text_stands_at_its_hint_but_counts_other_lines_is_not_fresh(count: int) -> None:
    """The hint's five lines hash as stored, but the metadata counts `count` lines: OpenWiki finds no such span
    there (nor anywhere: no other text of `count` lines hashes so), and the fast path must not call it fresh."""
    token = _token(CODE, 3, 8)
    metadata = _metadata(token).replace(b'"selectedLineCount":5,', f'"selectedLineCount":{count},'.encode())
    record = EvidenceRecord(f"repo://{PATH}#L4-L8", _with_metadata(token, metadata))
    [result] = _batch(_sweeper(CODE), [record])
    assert result == _alone(CODE, record)
    assert result is not None and result.verdict is not Verdict.FRESH


def _random_file(rng: random.Random) -> list[bytes]:
    """Lines from a small alphabet: texts that repeat, overlap and stand at several places."""
    return [rng.choice([b"a\n", b"b\n", b"c\n", b"x = 1\n", b"return x\n", b"\n"]) for _ in range(rng.randint(1, 30))]


def _random_record(rng: random.Random, old: list[bytes]) -> EvidenceRecord:
    data = b"".join(old)
    start = rng.randrange(len(old))
    end = rng.randint(start + 1, min(len(old), start + 6))
    token = _token(data, start, end)
    hint_start = max(1, start + 1 + rng.randint(-3, 3))
    hint_end = hint_start + (end - start - 1) + rng.choice([0, 0, 0, -1, 1, 40])
    if rng.random() < 0.1:  # metadata the moved path declines: the general algorithm must still agree
        token = _with_metadata(token, _metadata(token).replace(b",", b", "))
    return EvidenceRecord(f"repo://{PATH}#L{hint_start}-L{max(hint_start, hint_end)}", token)


def _edited(rng: random.Random, old: list[bytes]) -> list[bytes]:
    new = list(old)
    for _ in range(rng.randint(0, 3)):
        at = rng.randint(0, len(new))
        if rng.random() < 0.5 or not new:
            new[at:at] = _random_file(rng)[: rng.randint(1, 4)]
        else:
            del new[at : at + rng.randint(1, 3)]
    return new or [b"a\n"]


@pytest.mark.parametrize("seed", range(6))
def test_a_file_s_records_answer_as_each_alone_through_the_general_algorithm(seed: int) -> None:
    """Random files of repeated lines, edited: every record evaluated with its file's others (fresh path, moved
    path, general algorithm) gets the result the general algorithm gives it alone."""
    rng = random.Random(seed)
    for _ in range(150):
        old = _random_file(rng)
        new = _edited(rng, old)
        records = [_random_record(rng, old) for _ in range(rng.randint(1, 8))]
        batch = _batch(_sweeper(b"".join(new)), records)
        assert batch == [_alone(b"".join(new), record) for record in records], (old, new, records)


def _alone(data: bytes, record: EvidenceRecord) -> EvidenceResult:
    sweeper = _sweeper(data)
    return sweeper.evaluator._evaluate_filed(PATH, record, sweeper.reader.text(sweeper.head, PATH))
