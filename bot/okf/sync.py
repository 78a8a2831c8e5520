"""`okf sync` as a pure plan: from the wiki's files and its claims to the files to write, as OpenWiki 0.4.0's run
leaves a wiki it did not edit.

Pages without a usable `type` are migrated; `sources` follow each grounded page's claims; `verified` follows the
page's claims: its sidecar's durable record of the last reconciliation is the producer's event while every claim
resolves to its stored version, and Wikiwarden's own event goes as soon as one needs attention or none is left.
Every folder's generated index is regenerated (the root one declares `okf_version: "0.2"`); an `index.md` of a
person's own is left and said so. The sidecar of every page that changed gets the page's new `pageVersion`, as
OpenWiki refreshes it. v0.1's `timestamp` stays: OpenWiki retires it only when it stamps `generated`, on a body
change, and sync changes no body. A page that cannot be handled (not UTF-8, invalid YAML) is reported and left
exactly as it is.

Whose folder it is decides what sync may do (`recognise`): an OpenWiki wiki is brought up to date unasked, any other
folder (a person's docs site) only when asked to (`--init`); only pages OpenWiki wrote get `openwiki_generated`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..claims.sidecar import Sidecar, page_version, render_sidecar
from .frontmatter import FrontMatterError
from .index import INDEX, is_generated_index, is_indexed_page, plan_indexes
from .project import normalize_concept, producer_prefix, project_sources, project_verified

PERSONS_INDEX = "a page of its own, not an index OpenWiki or Wikiwarden wrote: never overwritten"
LAST_UPDATE = ".last-update.json"  # OpenWiki's record of its last run, in the wiki folder
# What `okf sync --init` leaves in a person's folder it made OKF (a dot folder: no site publishes it), so later runs
# know its pages take OKF front matter even where no generated index was written (a docs site's own index.md).
OKF_MARKER = ".wikiwarden/okf.json"
OKF_MARKER_CONTENT = b'{"okf_version": "0.2", "made_by": "wikiwarden okf sync --init"}\n'


@dataclass(frozen=True)
class Recognition:
    """What in a folder shows that OpenWiki, or an earlier sync, keeps it.

    `.last-update.json` is written by OpenWiki at the end of every run and never created by Wikiwarden: its pages
    are OpenWiki's. An `index.md` in the form OpenWiki writes (`is_generated_index`) shows the folder's indexes are
    kept by a tool, OpenWiki or an earlier `okf sync`, perhaps over a person's pages. A `.claims/` folder says
    nothing of either: Wikiwarden grounds a person's pages there too.
    """

    last_update: bool = False
    generated_indexes: tuple[str, ...] = ()
    made_okf: bool = False  # `okf sync --init` made it OKF (its marker, OKF_MARKER)

    @property
    def is_openwiki_wiki(self) -> bool:
        """An OKF wiki: sync brings it up to date unasked, and its pages take OKF front matter."""
        return self.last_update or bool(self.generated_indexes) or self.made_okf

    @property
    def pages_by_openwiki(self) -> bool:
        """Its pages are OpenWiki's: a page migrated gets `openwiki_generated`, as OpenWiki's first run gives it."""
        return self.last_update


def recognise(files: Mapping[str, bytes], wiki_dir: str) -> Recognition:
    """Whether the wiki folder is an OpenWiki wiki, from its files (paths from the repository root)."""
    generated = []
    for path in sorted(files):
        parts = path[len(wiki_dir) + 1 :].split("/")
        if parts[-1] == INDEX and not any(p.startswith(".") for p in parts) and is_generated_index(files[path]):
            generated.append(path)
    return Recognition(f"{wiki_dir}/{LAST_UPDATE}" in files, tuple(generated), f"{wiki_dir}/{OKF_MARKER}" in files)


@dataclass
class SyncPlan:
    writes: dict[str, bytes] = field(default_factory=dict)  # path → new content, only what changes
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path, why it was left untouched)
    kept: list[tuple[str, str]] = field(default_factory=list)  # (path, why): left by design, nothing wrong
    recognition: Recognition = field(default_factory=Recognition)
    held: bool = False  # nothing written: not an OpenWiki wiki, and sync was not asked to make it one (`--init`)

    def counts(self) -> tuple[int, int]:
        """How many pages it writes, and how many folders' indexes (sidecars follow their pages)."""
        names = [path.rpartition("/")[2] for path in self.writes]
        return sum(is_indexed_page(name) for name in names), names.count(INDEX)


@dataclass(frozen=True)
class GroundedPage:
    """What sync needs to know of a page with a readable sidecar."""

    sidecar_path: str
    sidecar: Sidecar
    resources: Sequence[str]  # every evidence resource of its claims
    needs_attention: bool  # a claim is stale, unresolved or in error
    holds: bool = False  # every evidence of every claim resolves to exactly its stored version (OpenWiki's fresh)


def _verified(text: str, page: GroundedPage) -> str:
    """OpenWiki's eligibility for the page's event: claims, all holding as recorded, and a recorded reconciliation.
    A page whose claims need attention, or that has none left to vouch for it, loses Wikiwarden's own event."""
    if page.needs_attention or not page.sidecar.claims:
        return project_verified(text, None)
    record = page.sidecar.verification
    if page.holds and record is not None:
        return project_verified(text, (record.by, record.at), producer_prefix(record.by))
    return text


def plan_sync(
    files: Mapping[str, bytes],
    wiki_dir: str,
    grounded: Mapping[str, GroundedPage],
    language: str = "en",
    *,
    pages_by_openwiki: bool = True,
    leave: Callable[[str], str | None] | None = None,
    may_create_index: Callable[[str], bool] | None = None,
) -> SyncPlan:
    """Everything sync would write. `pages_by_openwiki` says the pages are OpenWiki's (see `Recognition`); when
    they are a person's, a page without `type` gets `type` and `title` but never `openwiki_generated`. On a docs
    site (`bot.ground.writing`): `leave` says why a page is left as it is (history, an include fragment, a page the
    site does not publish; nor listed in an index), `may_create_index` whether a folder may get a new index."""
    plan = SyncPlan()
    updated = dict(files)
    for path in sorted(files):
        parts = path[len(wiki_dir) + 1 :].split("/")
        if any(part.startswith(".") for part in parts[:-1]) or not is_indexed_page(parts[-1]):
            continue
        why = leave(path) if leave is not None else None
        if why is not None:
            plan.kept.append((path, why))
            del updated[path]
            continue
        try:
            text = files[path].decode("utf-8")
        except UnicodeDecodeError as exc:
            plan.problems.append((path, f"not UTF-8 ({exc.reason} at byte {exc.start})"))
            continue
        try:
            new = normalize_concept(text, path, language, generated=pages_by_openwiki)
            page = grounded.get(path)
            if page is not None:
                new = _verified(project_sources(new, page.resources), page)
        except FrontMatterError as exc:
            plan.problems.append((path, str(exc)))
            continue
        if new != text:
            content = new.encode("utf-8")
            updated[path] = plan.writes[path] = content
            if page is not None:
                refreshed = Sidecar(page_version(content), page.sidecar.claims, page.sidecar.verification)
                plan.writes[page.sidecar_path] = render_sidecar(refreshed)
    indexes = plan_indexes(updated, wiki_dir, language, may_create_index)
    plan.writes.update(indexes.writes)
    plan.kept.extend((path, PERSONS_INDEX) for path in indexes.kept)
    return plan
