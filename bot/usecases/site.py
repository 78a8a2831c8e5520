"""The docs site of a snapshot as its builder sees it (`bot.ground.site`), its configuration fetched through any
source: MkDocs' file and what it INHERITs, or Sphinx's `conf.py`; and the pages' include fragments."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..claims.errors import UnreadableFileError
from ..claims.pages import DEFAULT_WIKI_DIR
from ..claims.snapshot import Kind, Snapshot
from ..ground.site import MAX_CONFIG_BYTES, MAX_INHERIT, Site, fragments, read_site
from ..ground.writing import WritingRules
from ..okf.index import INDEX
from ..okf.sync import LAST_UPDATE, OKF_MARKER, Recognition, recognise
from ..source import Source


def snapshot_site(snapshot: Snapshot) -> Site:
    """The docs site of a working tree or commit whose files are at hand (a local snapshot), read directly."""

    def read(path: str) -> bytes | None:
        entry = snapshot.entry(path)
        return snapshot.read(path) if entry is not None and entry.kind is Kind.FILE else None

    return read_site(read)


async def load_site(source: Source, head: Snapshot, wiki_dir: str | None = None) -> Site:
    """The site at `head` (given the wiki folder, also a builder configured at or above it: `read_site`): each file
    the reading asks for is fetched, and the reading done again, until it asks for nothing new (an INHERIT chain is
    fetched one file a round, at most `MAX_INHERIT` rounds)."""
    fetched: dict[str, bytes | None] = {}
    wanted: list[str] = []

    def read(path: str) -> bytes | None:
        if path in fetched:
            return fetched[path]
        entry = head.entry(path)
        if entry is None or entry.kind is not Kind.FILE:
            fetched[path] = None
        elif entry.size is not None and entry.size > MAX_CONFIG_BYTES:
            fetched[path] = b"\0" * (MAX_CONFIG_BYTES + 1)  # refused by the reading, with its size said
        else:
            wanted.append(path)
            return b""
        return fetched[path]

    for _ in range(MAX_INHERIT + 2):
        wanted.clear()
        site = read_site(read, wiki_dir=wiki_dir)
        if not wanted:
            return site
        await source.fetch(head, wanted)
        for path in wanted:
            try:
                fetched[path] = head.read(path)
            except UnreadableFileError:
                fetched[path] = None
    return read_site(fetched.get, wiki_dir=wiki_dir)


def site_fragments(site: Site, texts: Mapping[str, str], paths: Iterable[str]) -> dict[str, list[str]]:
    """The site's include fragments among the pages `texts` holds, each with the pages including it."""
    if site.kind is None:
        return {}
    return fragments(site, texts, paths)


async def okf_recognition(source: Source, head: Snapshot, wiki_dir: str) -> Recognition:
    """Whether the wiki folder is an OKF wiki (OpenWiki's, or one `okf sync --init` made), from the files that say
    so: OpenWiki's `.last-update.json`, a generated root index, `okf sync --init`'s marker."""
    wanted = [f"{wiki_dir}/{name}" for name in (LAST_UPDATE, INDEX, OKF_MARKER)]
    present = [p for p in wanted if (e := head.entry(p)) is not None and e.kind is Kind.FILE]
    await source.fetch(head, present)
    return recognise({path: head.read(path) for path in present}, wiki_dir)


async def writing_rules(
    source: Source, head: Snapshot, wiki_dir: str, history: Sequence[str] = (), site: Site | None = None
) -> WritingRules:
    """What commands may write into the wiki's pages at `head` (`bot.ground.writing`)."""
    site = site if site is not None else await load_site(source, head)
    return WritingRules.of(await is_okf_wiki(source, head, wiki_dir), site, list(history))


async def is_okf_wiki(source: Source, head: Snapshot, wiki_dir: str) -> bool:
    """Whether the wiki's pages take OKF front matter: a wiki OpenWiki keeps (or `okf sync --init` made OKF), or
    OpenWiki's own folder (`openwiki/`), which holds nothing else."""
    return wiki_dir == DEFAULT_WIKI_DIR or (await okf_recognition(source, head, wiki_dir)).is_openwiki_wiki
