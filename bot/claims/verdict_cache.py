"""The verdict cache: full-sweep results of evidence records, kept while the files they cite keep their bytes.

In a full sweep, a record's result depends on the record (resource and version), on the bytes of the file it
cites, and on the sweep's settings, nothing else. The cache names the record by its sidecar's blob id and its
place in that sidecar (the same blob holds the same records in the same order: no 700-character token is
hashed again), the file by its blob id, and the settings by a context string that empties the whole cache when
it changes (the engine's version, the wiki folder, the size limit, the ignore file). A full sweep of an
unchanged wiki then reads no file whose verdicts are cached, and evaluates again only the records on files
whose bytes changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from .. import __version__
from .resources import SCHEME, encode_path
from .results import EvidenceResult
from .sidecar import EvidenceRecord
from .text import sha_hex
from .verdicts import OpenWikiVerdict, Verdict

# 4: a working tree's files read as git stores them (a format 3 cache may hold results a CRLF checkout's raw bytes
# gave, kept under git's blob id of the LF bytes); 3: the files of every page in one table, a page listing numbers
# into it (2: a page listed its pairs)
FORMAT = 4
_VERDICTS = tuple(Verdict)
_OPENWIKI = tuple(OpenWikiVerdict)
_VERDICT_CODE = {v: n for n, v in enumerate(_VERDICTS)}
_OPENWIKI_CODE = {v: n for n, v in enumerate(_OPENWIKI)}
_SAME = 1  # resource_now or version_now equal to what the sidecar stores: not written twice
_WIDTH = 5  # a record in `PageVerdicts.spans`: file index, verdict, OpenWiki's verdict, first and last line
_NOT_KEPT, _OTHER = -1, -2  # file index of a record with no kept result, or one kept in `PageVerdicts.other`
_AT_SPAN = len(_OPENWIKI)  # added to the OpenWiki code: the resource now is the canonical one of file and span
_UNKEPT = (_NOT_KEPT, 0, 0, 0, 0)


class PageVerdicts(NamedTuple):
    """What a sidecar's records gave: the files they cite, each with the blob id it was read at, and per record
    (in the sidecar's order) its file and result. Most results are a verdict at a span with the stored resource
    and version: five integers in `spans` (one flat list: a 100k-record cache loads in milliseconds); the others
    are written whole in `other`, by record index. Read back from a store, the lists are whatever the file held:
    `recall_page` checks what it uses."""

    files: tuple[tuple[str, str], ...]
    spans: list[int]
    other: dict[int, list[Any]]

    def __len__(self) -> int:
        return len(self.spans) // _WIDTH

    def file_of(self, index: int) -> tuple[str, str]:
        """The file (path, blob id) whose bytes gave record `index` its kept result."""
        file = self.spans[_WIDTH * index]
        return self.files[file if file != _OTHER else self.other[index][0]]


class PageBuilder:
    """A page's verdicts, record after record, for the cache to keep."""

    def __init__(self) -> None:
        self._files: dict[str, int] = {}
        self._listed: list[tuple[str, str]] = []
        self._spans: list[int] = []
        self._other: dict[int, list[Any]] = {}

    def add(self, file: tuple[str, str] | None, result: EvidenceResult | None) -> None:
        """The next record's result, read from `file` (path, blob id); None for either when it is not kept."""
        self.add_all((file,), (result,))

    def add_all(self, files: Iterable[tuple[str, str] | None], results: Iterable[EvidenceResult | None]) -> None:
        """The next records' results, each read from its file (as `add`). Runs for every record a full sweep
        keeps, so the loop is written out: each result unpacked once, no call per record."""
        indexes, listed, spans, other = self._files, self._listed, self._spans, self._other
        extend, verdict_code, openwiki_code = spans.extend, _VERDICT_CODE, _OPENWIKI_CODE
        for file, result in zip(files, results, strict=True):
            if file is None or result is None:
                extend(_UNKEPT)
                continue
            resource, version, verdict, ow, span, resource_now, version_now, touched, error, old, new, anchor = result
            if touched:
                extend(_UNKEPT)
                continue
            path = file[0]
            index = indexes.get(path)
            if index is None:
                index = indexes[path] = len(listed)
                listed.append(file)
            where = 0
            if span is not None and resource_now != resource:
                # moved, or stored in another spelling: the resource now is the canonical one, written as a mark
                where = _AT_SPAN if resource_now == at_span(path, *span) else -1
            if (
                span is not None
                and ow is not None
                and where >= 0
                and version_now == version
                and error is None
                and old is None
                and new is None
                and anchor is None
            ):
                extend((index, verdict_code[verdict], openwiki_code[ow] + where, span[0], span[1]))
            else:
                extend((_OTHER, 0, 0, 0, 0))
                other[len(spans) // _WIDTH - 1] = [index, *encode(result)]

    def build(self) -> PageVerdicts:
        return PageVerdicts(tuple(self._listed), self._spans, self._other)


def at_span(path: str, first: int, last: int) -> str:
    """The canonical resource of lines first..last of `path` (what a sweep reports where evidence stands now)."""
    return f"{_span_prefix(path)}{first}-L{last}"


@lru_cache(maxsize=1 << 14)
def _span_prefix(path: str) -> str:
    """Memoised: a moved sweep asks it for every record, and a file is cited from many pages."""
    return f"{SCHEME}{encode_path(path)}#L"


def sweep_context(wiki_dir: str, max_file_bytes: int, ignore_text: str) -> str:
    """The settings a cached result holds under: a different engine, wiki folder, size limit or ignore file
    could give another result, so the cache is only used under the very same context."""
    codes = ",".join([*_VERDICTS, *_OPENWIKI])
    return f"{FORMAT}:{__version__}:{codes}:{wiki_dir}:{max_file_bytes}:{sha_hex(ignore_text.encode())}"


def encode(result: EvidenceResult) -> list[Any]:
    """A result as nine JSON-ready fields, without the resource and version the sidecar already holds (a record
    that is not fresh or moved where it was: few, so their fields are all written)."""
    return [
        result.verdict.value,
        result.openwiki_verdict.value if result.openwiki_verdict is not None else None,
        list(result.span) if result.span is not None else None,
        _SAME if result.resource_now == result.resource else result.resource_now,
        _SAME if result.version_now == result.version else result.version_now,
        result.error,
        result.old_text,
        result.new_text,
        list(result.anchor) if result.anchor is not None else None,
    ]


def decode(resource: str, version: str, fields: list[Any]) -> EvidenceResult:
    """The result `encode` wrote for the record (resource, version). Raises ValueError (or KeyError, TypeError,
    IndexError) on fields it did not write."""
    if len(fields) != 9:
        raise ValueError("not a cached result")
    verdict, ow, span, resource_now, version_now, error, old_text, new_text, anchor = fields
    return EvidenceResult(
        resource,
        version,
        Verdict(verdict),
        OpenWikiVerdict(ow) if ow is not None else None,
        (int(span[0]), int(span[1])) if span is not None else None,
        resource if resource_now == _SAME else _text(resource_now),
        version if version_now == _SAME else _text(version_now),
        False,
        _text(error),
        _text(old_text),
        _text(new_text),
        (str(anchor[0]), int(anchor[1])) if anchor is not None else None,
    )


def _text(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TypeError("not a cached string")


def recall_page(kept: PageVerdicts, valid: list[bool], records: list[EvidenceRecord]) -> list[EvidenceResult | None]:
    """The kept result of each of a page's records (`kept` written for the same sidecar blob, and checked by
    `_pages` when read back) whose file still has the same bytes (`valid`, by file index); None where the file
    changed, or nothing was kept (that record is evaluated again)."""
    spans, verdicts, openwiki, other = kept.spans, _VERDICTS, _OPENWIKI, kept.other
    results: list[EvidenceResult | None] = []
    append, make = results.append, tuple.__new__  # every field given: half the cost of EvidenceResult(...)
    columns = (spans[0::_WIDTH], spans[1::_WIDTH], spans[2::_WIDTH], spans[3::_WIDTH], spans[4::_WIDTH])
    for i, ((resource, version), file, verdict, ow, first, last) in enumerate(zip(records, *columns, strict=True)):
        if file >= 0:
            if valid[file]:
                now = resource if ow < _AT_SPAN else at_span(kept.files[file][0], first, last)
                result = (resource, version, verdicts[verdict], openwiki[ow % _AT_SPAN], (first, last), now, version)
                append(make(EvidenceResult, (*result, False, None, None, None, None)))
            else:
                append(None)
        elif file == _OTHER:
            append(_recall_other(other.get(i), valid, resource, version))
        else:
            append(None)
    return results


def _recall_other(entry: list[Any] | None, valid: list[bool], resource: str, version: str) -> EvidenceResult | None:
    try:
        index, *fields = entry  # type: ignore[misc]
        if type(index) is not int or not 0 <= index < len(valid) or not valid[index]:
            return None
        return decode(resource, version, fields)
    except (ValueError, KeyError, TypeError, IndexError):
        return None  # not what `encode` writes


class VerdictCache:
    """Page verdicts by sidecar blob id, under one context. A sweep reads `page` and writes `keep`; `kept` is what
    a store saves (this sweep's pages only: entries of sidecars no longer in the wiki fall away)."""

    def __init__(self, context: str, pages: Mapping[str, PageVerdicts] | None = None) -> None:
        self.context = context
        self._pages = dict(pages or {})
        self.kept: dict[str, PageVerdicts] = {}

    def page(self, sidecar_blob: str) -> PageVerdicts | None:
        return self._pages.get(sidecar_blob)

    def keep(self, sidecar_blob: str, verdicts: PageVerdicts) -> None:
        self.kept[sidecar_blob] = verdicts

    def release(self, sidecar_blob: str) -> None:
        """Let go of a page none of whose results the sweep can use (every file it cites changed), so the old
        results and the new ones are not held at once: the sweep keeps the page anew."""
        self._pages.pop(sidecar_blob, None)

    def __len__(self) -> int:
        return len(self._pages)

    @property
    def changed(self) -> bool:
        """Whether what this sweep kept differs from what was read (a sweep that recalled every result and
        evaluated nothing has nothing to write)."""
        pages = self._pages
        return self.kept.keys() != pages.keys() or any(page is not pages[blob] for blob, page in self.kept.items())

    def to_json(self) -> dict[str, Any]:
        """What a store writes: this sweep's pages, the files they cite in one table (a 100k-record cache lists
        138k (path, blob id) pairs for 10k files: written once each, they are a fifth of the bytes)."""
        numbers: dict[tuple[str, str], int] = {}
        pages = {
            blob: {
                "files": [numbers.setdefault(file, len(numbers)) for file in page.files],
                "spans": page.spans,
                "other": {str(k): v for k, v in page.other.items()},
            }
            for blob, page in self.kept.items()
        }
        # (path, blob id) pairs: orjson writes a tuple as an array
        return {"format": FORMAT, "context": self.context, "files": list(numbers), "pages": pages}

    @classmethod
    def from_json(cls, value: object, context: str) -> VerdictCache:
        """The cache a store read, under `context`; empty when it was written under another context or is not
        what `to_json` writes (a damaged file costs a cold sweep, never a wrong verdict from a bad shape)."""
        if not isinstance(value, dict) or value.get("format") != FORMAT or value.get("context") != context:
            return cls(context)
        files, pages = _file_table(value.get("files")), value.get("pages")
        if files is None or not isinstance(pages, dict):
            return cls(context)
        return cls(context, dict(_pages(pages, files)))


def _file_table(raw: object) -> tuple[tuple[str, str], ...] | None:
    """The stored table of files, each a (path, blob id) pair made once however many pages cite it; None when it is
    not what `to_json` writes."""
    if type(raw) is not list or not all(
        type(f) is list and len(f) == 2 and type(f[0]) is str and type(f[1]) is str for f in raw
    ):
        return None
    return tuple((f[0], f[1]) for f in raw)


def _pages(raw: dict[Any, Any], table: tuple[tuple[str, str], ...]) -> Iterator[tuple[str, PageVerdicts]]:
    """Pages whose outline is right; each record is checked when it is used (`recall_page`), as a loop over every
    record here would cost as much as the sweep it saves. A page's files are numbers into `table`, checked a column
    at a time: a file cited from many pages is one pair in memory, not one per page."""
    for blob, page in raw.items():
        if not isinstance(page, dict):
            continue
        files, spans, other = page.get("files"), page.get("spans"), page.get("other")
        if type(files) is not list or type(spans) is not list or len(spans) % _WIDTH or type(other) is not dict:
            continue
        if not numbers_below(files, len(table)):
            continue
        try:
            others = {int(k): v for k, v in other.items() if type(v) is list and v}
        except ValueError:
            continue
        if spans and not _well_formed(spans, len(files)):
            continue
        yield str(blob), PageVerdicts(tuple(map(table.__getitem__, files)), spans, others)


def numbers_below(values: list[Any], end: int) -> bool:
    """Whether every value is an int in [0, end), told at C speed (a negative one would index from the end)."""
    return not values or (set(map(type, values)) == {int} and min(values) >= 0 and max(values) < end)


def _well_formed(spans: list[Any], files: int) -> bool:
    """Whether every record of `spans` is what `PageBuilder` writes: integers, a file index (or a mark) in range,
    verdict codes in range, no negative line. Checked a column at a time, at C speed."""
    if not set(map(type, spans)) <= {int}:
        return False
    file, verdict, ow, first, last = (spans[k::_WIDTH] for k in range(_WIDTH))
    return bool(
        min(file) >= _OTHER
        and max(file) < files
        and min(verdict) >= 0
        and max(verdict) < len(_VERDICTS)
        and min(ow) >= 0
        and max(ow) < 2 * _AT_SPAN
        and min(first) >= 0
        and min(last) >= 0
    )
