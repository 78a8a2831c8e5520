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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..claims.sidecar import Sidecar, page_version, render_sidecar
from .frontmatter import FrontMatterError
from .index import is_indexed_page, plan_indexes
from .project import normalize_concept, producer_prefix, project_sources, project_verified

PERSONS_INDEX = "a page of its own, not an index OpenWiki or Wikiwarden wrote: never overwritten"


@dataclass
class SyncPlan:
    writes: dict[str, bytes] = field(default_factory=dict)  # path → new content, only what changes
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path, why it was left untouched)
    kept: list[tuple[str, str]] = field(default_factory=list)  # (path, why): left by design, nothing wrong


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
    files: Mapping[str, bytes], wiki_dir: str, grounded: Mapping[str, GroundedPage], language: str = "en"
) -> SyncPlan:
    plan = SyncPlan()
    updated = dict(files)
    for path in sorted(files):
        parts = path[len(wiki_dir) + 1 :].split("/")
        if any(part.startswith(".") for part in parts[:-1]) or not is_indexed_page(parts[-1]):
            continue
        try:
            text = files[path].decode("utf-8")
        except UnicodeDecodeError as exc:
            plan.problems.append((path, f"not UTF-8 ({exc.reason} at byte {exc.start})"))
            continue
        try:
            new = normalize_concept(text, path, language)
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
    indexes = plan_indexes(updated, wiki_dir, language)
    plan.writes.update(indexes.writes)
    plan.kept.extend((path, PERSONS_INDEX) for path in indexes.kept)
    return plan
