"""What the fix may read of the code: the files of the head commit, under exactly the rules evidence obeys
(no symlinks, no binaries, no oversized or ignored files, not the wiki itself), fetched on demand."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

from ..claims.errors import Problem
from ..claims.resources import EvidenceResource, parse_resource
from ..claims.sweep import SnapshotReader
from ..claims.text import FileText
from .work import PageWork

MAX_SEARCH_HITS = 30


@dataclass(frozen=True)
class Hit:
    path: str
    line: int
    text: str


Fetch = Callable[[Sequence[str]], Awaitable[None]]


def search_scope(paths: Iterable[str], touched: Iterable[str], work: Iterable[PageWork]) -> list[str]:
    """Where the search tool looks: the files the change touched and the folders of the evidence under work
    (recorded and current). Bounded by the change, never the whole repository, so its cost stays flat."""
    folders = set()
    for page in work:
        for result in page.results.values():
            for evidence in result.evidence:
                for resource in (evidence.resource, evidence.resource_now):
                    if resource:
                        path = resource.removeprefix("repo://").split("#", 1)[0]
                        folders.add(path.rsplit("/", 1)[0] + "/" if "/" in path else "")
    touched = set(touched)
    in_folder = {p for p in paths if (p.rsplit("/", 1)[0] + "/" if "/" in p else "") in folders}
    return sorted(in_folder | (touched & set(paths)))


class CodeView:
    """The head commit as the fix sees it. `fetch` brings files into a remote snapshot before they are read."""

    def __init__(
        self,
        reader: SnapshotReader,
        search_paths: Sequence[str],
        fetch: Fetch | None = None,
        url: Callable[[str, tuple[int, int] | None], str | None] | None = None,
    ) -> None:
        self.reader = reader
        self.search_paths = list(search_paths)
        self._fetch = fetch
        self._url = url

    @property
    def label(self) -> str:
        return self.reader.snapshot.label

    def problem(self, path: str) -> Problem | None:
        """Why `path` may not be read as code (a symlink, the wiki, ignored, ...), or None."""
        return self.reader.path_problem(path)

    async def read(self, path: str) -> FileText | Problem | None:
        """The file as text, why it cannot be read, or None when it does not exist."""
        problem = self.problem(path)
        if problem:
            return problem
        if self._fetch is not None and self.reader.readable(self.reader.snapshot, path):
            await self._fetch([path])
        return self.reader.text(self.reader.snapshot, path)

    async def resolve(self, resource: str) -> tuple[EvidenceResource, FileText] | Problem:
        """A resource the model proposes, checked: it must parse, stand in the head commit, and fit the file."""
        try:
            res = parse_resource(resource)
        except ValueError as exc:
            return Problem(str(exc))
        text = await self.read(res.path)
        if text is None:
            return Problem(f"{res.path} does not exist in {self.label}")
        if isinstance(text, Problem):
            return text
        if res.end is not None and res.end > text.line_count:
            return Problem(f"{res.canonical}: {res.path} has only {text.line_count} lines")
        return res, text

    async def search(self, needle: str, within: str = "") -> list[Hit]:
        """Lines containing `needle` (literal, case-sensitive) in the searchable files, first hits first."""
        if not needle.strip():
            return []
        paths = [p for p in self.search_paths if p.startswith(within) and not self.problem(p)]
        if self._fetch is not None:
            await self._fetch([p for p in paths if self.reader.readable(self.reader.snapshot, p)])
        hits: list[Hit] = []
        encoded = needle.encode()
        for path in paths:
            text = self.reader.text(self.reader.snapshot, path)
            if not isinstance(text, FileText) or encoded not in text.data:
                continue
            for number, line in enumerate(text.lines, start=1):
                if encoded in line:
                    hits.append(Hit(path, number, line.decode("utf-8", "replace").rstrip("\r\n")[:300]))
                    if len(hits) >= MAX_SEARCH_HITS:
                        return hits
        return hits

    def url(self, path: str, span: tuple[int, int] | None = None) -> str | None:
        return self._url(path, span) if self._url else None
