"""The evaluator: each evidence record's verdict at the head, through the change from a base when there is one.

Without a change, each record is checked against its stored version (OpenWiki's algorithm, with moved text
re-anchored). With one, evidence on a touched file is carried through the diff. A record is evaluated with the
other records citing its file (`evaluate_file`), so the file is looked up once and the common cases (fresh at its
hint, moved as the file's last text) are answered without the general machinery.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from hashlib import sha256
from typing import overload

from ..errors import Problem
from ..resources import SCHEME, EvidenceResource, encode_path, resource_span
from ..results import EvidenceResult
from ..sidecar import EvidenceRecord
from ..snapshot import Change, FileChange
from ..text import FileText
from ..track import ChangedFile, Tracked, openwiki_verdict, reference_verdict, track
from ..verdicts import OpenWikiVerdict, Verdict
from ..versions import canonical_anchors, canonical_selected_count
from .reader import SnapshotReader, Unreadable

Filed = tuple[int, EvidenceRecord]  # a record's index among the sweep's, and the record


class _LazyFiles(Sequence[ChangedFile]):
    """The change's other files, diffed only if a deleted span has to be looked for elsewhere."""

    def __init__(self, evaluator: Evaluator, own: FileChange) -> None:
        self._evaluator = evaluator
        self._own = own
        self._items: list[ChangedFile] | None = None

    def _get(self) -> list[ChangedFile]:
        if self._items is None:
            self._items = [cf for f, cf in self._evaluator.changed_files() if f != self._own and cf.new is not None]
        return self._items

    def unreadable(self) -> Problem | None:
        """When they were looked through: the first of them that could not be read (where the text went is then
        not known), else None."""
        if self._items is None:
            return None
        evaluator = self._evaluator
        assert evaluator.change is not None
        for f, _ in evaluator.changed_files():
            sides = ((evaluator.change.base, f.old_path), (evaluator.head, f.new_path))
            for snapshot, path in sides:
                if f != self._own and path and isinstance(found := evaluator.reader.text(snapshot, path), Unreadable):
                    return Problem(f"where the text went cannot be told: {found.message}")
        return None

    @overload
    def __getitem__(self, index: int) -> ChangedFile: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[ChangedFile]: ...

    def __getitem__(self, index: int | slice) -> ChangedFile | Sequence[ChangedFile]:
        return self._get()[index]

    def __len__(self) -> int:
        return len(self._get())

    def __iter__(self) -> Iterator[ChangedFile]:
        return iter(self._get())


_Filed = tuple[int, EvidenceRecord]  # a record's index among the sweep's, and the record


class Evaluator:
    """One sweep's evaluation: the head read through `reader`, each changed file's diff computed once."""

    def __init__(self, reader: SnapshotReader, change: Change | None) -> None:
        self.reader = reader
        self.head = reader.snapshot
        self.change = change
        self.by_old = {f.old_path: f for f in change.files if f.old_path} if change else {}
        self.touched_paths = change.paths if change else set()
        self.read_elsewhere: set[str] = set()  # files another process read and evaluated, every record of them
        self._changed: dict[FileChange, ChangedFile] = {}
        self._all_changed: list[tuple[FileChange, ChangedFile]] | None = None
        # Where the last text found elsewhere stood from its hint, carried from file to file: a change that moves
        # every file alike (a header or an import added to each) then finds each file's first moved text at once.
        self._shift = 0

    def follow(self, change: Change) -> None:
        """Evaluate through `change` instead: the same files, with renames found among them (so the same paths
        touched); nothing has been read through the first one yet."""
        assert self.change is not None and change.paths == self.touched_paths and not self._changed
        self.change = change
        self.by_old = {f.old_path: f for f in change.files if f.old_path}

    def changed_file(self, change: FileChange) -> ChangedFile:
        cf = self._changed.get(change)
        if cf is None:
            assert self.change is not None
            old = self.reader.text(self.change.base, change.old_path) if change.old_path else None
            new = self.reader.text(self.head, change.new_path) if change.new_path else None
            cf = ChangedFile(
                change.new_path if isinstance(new, FileText) else None,
                old if isinstance(old, FileText) else None,
                new if isinstance(new, FileText) else None,
            )
            self._changed[change] = cf
        return cf

    def changed_files(self) -> list[tuple[FileChange, ChangedFile]]:
        if self._all_changed is None:
            assert self.change is not None
            # A deleted file added no line: never read for this (a partial clone would fetch it for nothing).
            files = [f for f in self.change.files if f.new_path]
            # One batch for each side: a snapshot can read them together, not one by one.
            self.head.prefetch(sorted(f.new_path for f in files if f.new_path))
            self.change.base.prefetch(sorted(f.old_path for f in files if f.old_path))
            self._all_changed = [(f, self.changed_file(f)) for f in files]
        return self._all_changed

    # -- recording (hand-kept claims) ---------------------------------------------------------

    # -- evaluating ----------------------------------------------------------------------------

    def evaluate(self, record: EvidenceRecord) -> EvidenceResult:
        """One evidence record's result (a sweep evaluates its records file by file, through `evaluate_file`)."""
        res = self.reader.resource(record.resource)
        if isinstance(res, Problem):
            return EvidenceResult(record.resource, record.version, Verdict.ERROR, None, error=res.message)
        result: list[EvidenceResult | None] = [None]
        self.evaluate_file(res.path, [(0, record)], result)
        return result[0]  # type: ignore[return-value]

    def evaluate_file(self, path: str, records: list[Filed], results: list[EvidenceResult | None]) -> None:
        """Put the result of each record citing the file at `path` at its index: the file is looked up once, and
        each record's span parsed here (in the process evaluating it: a shared sweep's children parse their own)."""
        current = self.reader.text(self.head, path)
        if type(current) is not FileText or path in self.by_old:
            for index, record in records:
                results[index] = self._evaluate_filed(path, record, current)
            if type(current) is FileText:
                current.forget_hashes()
            return
        # The common cases, answered without the general machinery: fresh where its hint says, or moved unchanged
        # as the file's last text found elsewhere (`found_moved`). This loop runs for every evidence record of a
        # full sweep, so `unchanged_at_hint` and the results are written out here.
        data, offsets = current.data, current.offsets
        lines = len(offsets) - 1
        at = f"{SCHEME}{encode_path(path)}#L"  # the canonical resource of this file, up to its span
        make, fresh, moved, ow_fresh = tuple.__new__, Verdict.FRESH, Verdict.MOVED, OpenWikiVerdict.FRESH
        shift = self._shift  # where the last text found elsewhere stood from its hint: text moves in blocks
        for index, record in records:
            resource, version = record
            _, sep, fragment = resource.partition("#")
            if sep:
                start, end = resource_span(fragment)
                if end <= lines and version[21:85] == sha256(data[offsets[start - 1] : offsets[end]]).hexdigest():
                    if canonical_selected_count(version) == end - start + 1:
                        canonical = f"{at}{start}-L{end}"
                        resource_now = resource if canonical == resource else canonical  # the stored string
                        fields = (resource, version, fresh, ow_fresh, (start, end), resource_now, version)
                        results[index] = make(EvidenceResult, (*fields, False, None, None, None, None))
                        continue
                else:  # not at its hint: unchanged `shift` lines away, as the file's last text found elsewhere?
                    found = found_moved(data, offsets, start - 1 + shift, version)
                    if found is not None:  # moved (never fresh: at its hint, its hash would have matched)
                        first, last = found
                        fields = (resource, version, moved, ow_fresh, found, f"{at}{first}-L{last}", version)
                        results[index] = make(EvidenceResult, (*fields, False, None, None, None, None))
                        continue
            result = results[index] = self._evaluate_filed(path, record, current)
            if sep and result.span is not None:
                shift = result.span[0] - start
        self._shift = shift
        current.forget_hashes()  # every record citing the file is answered

    def _evaluate_filed(self, path: str, record: EvidenceRecord, current: FileText | Problem | None) -> EvidenceResult:
        """A record filed under the file at `path` (`ReadPlanner.file`: its path and span parse), evaluated in the
        general case."""
        _, sep, fragment = record.resource.partition("#")
        span = resource_span(fragment) if sep else (None, None)
        return self._evaluate(record, EvidenceResource(path, *span), current)

    def _evaluate(
        self, record: EvidenceRecord, res: EvidenceResource, current: FileText | Problem | None
    ) -> EvidenceResult:
        """The general case: the evidence is not (or cannot be) where its hint says, unchanged."""
        change = self.by_old.get(res.path) if self.by_old else None
        if change is not None:
            assert self.change is not None
            new = self.reader.text(self.head, change.new_path) if change.new_path else None
            if isinstance(new, Problem):
                return self._error(record, res, new, touched=self._matched_base(res, record.version, change))
            old = self.reader.text(self.change.base, res.path)
            if isinstance(old, Unreadable):  # the change cannot be followed without the file's base
                return self._error(record, res, Problem(f"{self.change.base.label}: {old.message}"), touched=False)
            others = _LazyFiles(self, change)
            tracked = track(res, record.version, self.changed_file(change), others)
            unread = others.unreadable()
            if unread is not None:
                return self._error(record, res, unread, touched=self._matched_base(res, record.version, change))
        elif isinstance(current, Problem):
            return self._error(record, res, current, touched=False)
        else:
            # OpenWiki's algorithm on the same file: its verdict is this one, seen without moves.
            path = res.path if current else None
            # `evaluate_file` tried the hint of lines cited from a file the change left alone.
            hint_checked = res.start is not None and type(current) is FileText
            tracked = reference_verdict(res, record.version, current, path, hint_checked=hint_checked)
            return _result(record, tracked, _OPENWIKI_EQUIVALENT[tracked.verdict])
        ow_text = current if isinstance(current, FileText) else None
        return _result(record, tracked, openwiki_verdict(res, record.version, ow_text))

    def _error(self, record: EvidenceRecord, res: EvidenceResource, problem: Problem, touched: bool) -> EvidenceResult:
        current = self.reader.text(self.head, res.path)
        ow = openwiki_verdict(res, record.version, current) if isinstance(current, FileText) else None
        return EvidenceResult(
            record.resource, record.version, Verdict.ERROR, ow, touched=touched, error=problem.message
        )

    def _matched_base(self, res: EvidenceResource, version: str, change: FileChange) -> bool:
        """Whether the evidence was in order at the base, so the change is what broke it."""
        assert self.change is not None
        old = self.reader.text(self.change.base, change.old_path) if change.old_path else None
        return isinstance(old, FileText) and reference_verdict(res, version, old, res.path).verdict is Verdict.FRESH


def found_moved(data: bytes, offsets: Sequence[int], first: int, version: str) -> tuple[int, int] | None:
    """The lines (1-based, inclusive) of a canonical `version`'s text standing unchanged from line `first`
    (0-based) of the file `data` (its lines starting at `offsets`, then its end), when it stands nowhere else in
    the file: exactly what OpenWiki's `locateUnchangedLineRange` finds then (one span whose first line, last line
    and whole text hash as stored). None when not so; the general algorithm decides then.

    A whole sweep after text moved asks this of every record: one guess, where the file's last text found
    elsewhere says, checked with three hashes and two byte searches, instead of the general search's layers."""
    anchors = canonical_anchors(version)
    if anchors is None or first < 0:
        return None
    count, first_hash, last_hash = anchors
    if first + count >= len(offsets):
        return None
    begin, stop = offsets[first], offsets[first + count]
    text = data[begin:stop]
    if (
        sha256(text).hexdigest() != version[21:85]
        or sha256(data[begin : offsets[first + 1]]).hexdigest().encode() != first_hash
        or (count > 1 and sha256(data[offsets[first + count - 1] : stop]).hexdigest().encode() != last_hash)
        or data.find(text) != begin  # the same bytes earlier: OpenWiki finds several spans (or one elsewhere)
        or data.find(text, begin + 1) != -1  # or later
    ):
        return None
    return first + 1, first + count


_OPENWIKI_EQUIVALENT = {
    Verdict.FRESH: OpenWikiVerdict.FRESH,
    Verdict.MOVED: OpenWikiVerdict.FRESH,
    Verdict.STALE: OpenWikiVerdict.STALE,
    Verdict.UNRESOLVED: OpenWikiVerdict.UNRESOLVED,
}


def _result(record: EvidenceRecord, tracked: Tracked, ow: OpenWikiVerdict) -> EvidenceResult:
    stale = tracked.verdict is Verdict.STALE
    gone = tracked.verdict is Verdict.UNRESOLVED
    return EvidenceResult(
        resource=record.resource,
        version=record.version,
        verdict=tracked.verdict,
        openwiki_verdict=ow,
        span=tracked.span,
        resource_now=tracked.resource,
        version_now=tracked.version,
        touched=tracked.diff_aware and tracked.verdict is not Verdict.FRESH,
        error=tracked.error,
        old_text=tracked.old_text if stale or gone else None,
        new_text=tracked.new_text if stale else None,
        anchor=tracked.anchor,
    )
