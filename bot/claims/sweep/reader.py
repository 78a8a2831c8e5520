"""A snapshot read as evidence reads it: each file's text once, each resource parsed and checked against the evidence
rules once (not the wiki itself, not ignored, no symlink, no binary, within the size limit).

What every reader of code shares, the sweep and others alike: the fix's and grounding's view of the code, the
hand-kept claims, the references' list of code files.
"""

from __future__ import annotations

from ..errors import EvidenceResourceError, Problem, UnreadableFileError
from ..ignore import IGNORE_FILE, IgnoreRules
from ..options import SweepOptions
from ..pages import normalize_wiki_dir
from ..resources import (
    SCHEME,
    EvidenceResource,
    check_contained,
    encode_path,
    escapes,
    is_normal_path,
    parse_resource,
    resource_path,
    resource_span,
)
from ..snapshot import Kind, Snapshot
from ..text import FileText


class Unreadable(Problem):
    """A file the snapshot lists but cannot produce (a blob a partial clone lacks, its remote out of reach)."""

    __slots__ = ()


UNSEEN = "\0"  # not in the memo of files yet (None is an answer; a path holding a control character is refused)


def span_parses(fragment: str) -> bool:
    """Whether a resource's fragment names lines (through the span parser's memo)."""
    try:
        resource_span(fragment)
    except EvidenceResourceError:
        return False
    return True


class SnapshotReader:
    """The files of `snapshot` (and of any other snapshot asked about, a change's base) as evidence may cite them,
    under `options` (the wiki folder, the size limit) and the snapshot's ignore file."""

    def __init__(self, snapshot: Snapshot, options: SweepOptions) -> None:
        self.snapshot = snapshot
        self.options = options
        self.wiki_dir = normalize_wiki_dir(options.wiki_dir)
        self._wiki_prefix = self.wiki_dir + "/"
        self.texts: dict[int, dict[str, FileText | Problem | None]] = {id(snapshot): {}}
        self._resources: dict[str, EvidenceResource | Problem] = {}
        self._paths: dict[str, str] = {}  # a resource's part before `#` → its path (`resource_path`)
        self.head_paths: dict[str, str | None] = {}  # a resource's part before `#` → its file (None: in error)
        self.spans: dict[str, bool] = {}  # a resource's part after `#` → whether it names lines
        self._path_problems: dict[str, Problem | None] = {}
        ignore = self.text(snapshot, IGNORE_FILE)
        self.ignore_text = ignore.text if isinstance(ignore, FileText) else ""
        self.ignore = IgnoreRules(self.ignore_text)

    def text(self, snapshot: Snapshot, path: str) -> FileText | Problem | None:
        """The file at `path` as text; the problem when it cannot be evidence; None when absent."""
        cache = self.texts.setdefault(id(snapshot), {})
        if path not in cache:
            cache[path] = self._read(snapshot, path)
        return cache[path]

    def readable(self, snapshot: Snapshot, path: str) -> bool:
        """Whether reading `path` means reading its bytes: a regular file within the size limit (anything else is
        decided from its entry alone, so a remote source need not fetch it)."""
        entry = snapshot.entry(path)
        return (
            entry is not None
            and entry.kind is Kind.FILE
            and (entry.size is None or entry.size <= self.options.max_file_bytes)
        )

    def _read(self, snapshot: Snapshot, path: str) -> FileText | Problem | None:
        entry = snapshot.entry(path)
        if entry is None or entry.kind in (Kind.DIRECTORY, Kind.OTHER):
            return None  # OpenWiki: not a regular file resolves to nothing
        if entry.kind is Kind.SYMLINK:
            return Problem(f"{path} is a symlink or lies under one; evidence must be a regular file")
        limit = self.options.max_file_bytes
        if entry.size is not None and entry.size > limit:
            return Problem(f"{path} is larger than the {limit}-byte limit ({entry.size} bytes)")
        try:
            data = snapshot.read(path)
        except UnreadableFileError as exc:
            return Unreadable(str(exc))
        if len(data) > limit:
            return Problem(f"{path} is larger than the {limit}-byte limit ({len(data)} bytes)")
        text = FileText(data)
        if text.is_binary:
            return Problem(f"{path} is a binary file")
        return text

    def path_problem(self, path: str) -> Problem | None:
        """Why evidence may not cite the file at `path` (a symlink, the wiki, ignored, no valid path), or None.

        `path` is a repository's path, not a resource's text: it is encoded first, so a name holding `#`, `%` or
        `?` is the file it names (not a path cut at its `#`, or a bad escape)."""
        try:
            res = parse_resource(SCHEME + encode_path(path))
        except ValueError as exc:
            return Problem(str(exc))
        parsed = self.resource(res.canonical)
        return parsed if isinstance(parsed, Problem) else None

    def resource(self, stored: str) -> EvidenceResource | Problem:
        """The stored resource parsed and checked against the evidence rules (once per distinct string)."""
        parsed = self._resources.get(stored)
        if parsed is None:
            parsed = self._resources[stored] = self._parse(stored)
        return parsed

    def _parse(self, stored: str) -> EvidenceResource | Problem:
        """`parse_resource` and the path's problem, from the path part parsed once per file (a wiki cites each
        file under many ranges) and the span part's own memo."""
        head, sep, fragment = stored.partition("#")
        path = self._paths.get(head)
        try:
            if path is None:
                path = self._paths[head] = resource_path(head)
            res = tuple.__new__(EvidenceResource, (path, *resource_span(fragment)) if sep else (path, None, None))
        except EvidenceResourceError:
            try:
                res = parse_resource(stored)  # OpenWiki's reason, worded for the whole resource
            except EvidenceResourceError as exc:
                return Problem(str(exc))
            path = res.path
        problem = self._path_problems.get(path, res)  # the resource itself: not known yet
        if problem is res:
            problem = self._path_problems[path] = self._path_problem(res)
        return problem or res

    def _path_problem(self, res: EvidenceResource) -> Problem | None:
        """Why evidence on this path cannot be used (escape, the wiki itself, ignored), or None."""
        try:
            check_contained(res)
        except EvidenceResourceError as exc:
            return Problem(str(exc))
        return self._file_problem(res.path)

    def _file_problem(self, path: str) -> Problem | None:
        """Why evidence cannot cite a path that stays in the repository (the wiki itself, ignored), or None."""
        if path == self.wiki_dir or path.startswith(self.wiki_dir + "/"):
            return Problem(f"evidence must be code, not the wiki itself: {path}")
        if self.ignore and self.ignore.ignored(path):
            return Problem(f"{path} is excluded by {IGNORE_FILE}")
        return None

    def head_path(self, head: str) -> str | None:
        """The file every resource whose part before `#` is `head` cites, whatever its span; None when they are all
        in error (the path does not parse, or cannot be evidence: the reason is worded from the whole resource)."""
        found: str | None = None
        path = head[len(SCHEME) :]
        if head.startswith(SCHEME) and not self.ignore and is_normal_path(path):  # most heads: checked inline
            found = self._paths[head] = path
            if path == self.wiki_dir or path.startswith(self._wiki_prefix):
                found = None  # `_file_problem` words it
        else:
            try:
                path = self._paths[head] = self._paths.get(head) or resource_path(head)
            except EvidenceResourceError:
                pass
            else:
                if not escapes(path) and self._file_problem(path) is None:
                    found = path
        self.head_paths[head] = found
        return found
