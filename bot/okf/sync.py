"""`okf sync` as a pure plan: from the wiki's files and its claims to the files to write.

Pages without a usable `type` are migrated, `sources` follow each grounded page's claims, pages whose claims
need attention lose Wikiwarden's `verified` event, every folder's index is regenerated, and the sidecar of
every page that changed gets the page's new `pageVersion` (as OpenWiki refreshes it). A page that cannot be
handled (not UTF-8, invalid YAML) is reported and left exactly as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..claims.sidecar import Sidecar, page_version, render_sidecar
from .frontmatter import FrontMatterError
from .index import is_indexed_page, plan_indexes
from .project import normalize_concept, project_sources, project_verified


@dataclass
class SyncPlan:
    writes: dict[str, bytes] = field(default_factory=dict)  # path → new content, only what changes
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path, why it was left untouched)


@dataclass(frozen=True)
class GroundedPage:
    """What sync needs to know of a page with a readable sidecar."""

    sidecar_path: str
    sidecar: Sidecar
    resources: Sequence[str]  # every evidence resource of its claims
    needs_attention: bool  # a claim is stale, unresolved or in error


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
                new = project_sources(new, page.resources)
                if page.needs_attention:
                    new = project_verified(new, None)
        except FrontMatterError as exc:
            plan.problems.append((path, str(exc)))
            continue
        if new != text:
            content = new.encode("utf-8")
            updated[path] = plan.writes[path] = content
            if page is not None:
                refreshed = Sidecar(page_version(content), page.sidecar.claims, page.sidecar.verification)
                plan.writes[page.sidecar_path] = render_sidecar(refreshed)
    plan.writes.update(plan_indexes(updated, wiki_dir, language))
    return plan
