"""The docs site of a snapshot as its builder sees it (`bot.ground.site`), its configuration fetched through any
source: MkDocs' file and what it INHERITs, or Sphinx's `conf.py`; and the pages' include fragments."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..claims.errors import UnreadableFileError
from ..claims.snapshot import Kind, Snapshot
from ..ground.site import MAX_CONFIG_BYTES, MAX_INHERIT, Site, fragments, read_site
from ..source import Source


async def load_site(source: Source, head: Snapshot) -> Site:
    """The site at `head`: each file the reading asks for is fetched, and the reading done again, until it asks
    for nothing new (an INHERIT chain is fetched one file a round, at most `MAX_INHERIT` rounds)."""
    fetched: dict[str, bytes | None] = {}
    for _ in range(MAX_INHERIT + 2):
        wanted: list[str] = []

        def read(path: str) -> bytes | None:
            if path in fetched:
                return fetched[path]
            entry = head.entry(path)
            if entry is None or entry.kind is not Kind.FILE:
                fetched[path] = None
                return None
            if entry.size is not None and entry.size > MAX_CONFIG_BYTES:
                fetched[path] = b"\0" * (MAX_CONFIG_BYTES + 1)  # refused by the reading, with its size said
                return fetched[path]
            wanted.append(path)
            return b""

        site = read_site(read)
        if not wanted:
            return site
        await source.fetch(head, wanted)
        for path in wanted:
            try:
                fetched[path] = head.read(path)
            except UnreadableFileError:
                fetched[path] = None
    return read_site(lambda path: fetched.get(path))


def site_fragments(site: Site, texts: Mapping[str, str], paths: Iterable[str]) -> dict[str, list[str]]:
    """The site's include fragments among the pages `texts` holds, each with the pages including it."""
    if site.kind is None:
        return {}
    return fragments(site, texts, paths)
