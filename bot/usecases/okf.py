"""OKF metadata of a local wiki: bring it up to date (`okf sync`), or report its conformance (`okf validate`)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from ..claims.options import DEFAULT_MAX_FILE_BYTES, SweepOptions
from ..claims.pages import normalize_wiki_dir, require_wiki_folder
from ..claims.results import ClaimResult
from ..claims.sweep import Sweeper
from ..claims.verdicts import OpenWikiVerdict
from ..ground.writing import WritingRules
from ..okf.sync import OKF_MARKER, OKF_MARKER_CONTENT, GroundedPage, SyncPlan, plan_sync, recognise
from ..okf.validate import Problem, validate_bundle
from ..parallel import Forking
from ..source.git import GitRepository
from ..source.localwiki import LocalWiki
from .config import read_local_config
from .site import snapshot_site


def _language(files: dict[str, bytes], wiki_dir: str) -> str:
    """The wiki's language, from OpenWiki's `.last-update.json` (English when it says nothing usable)."""
    try:
        meta = json.loads(files.get(f"{wiki_dir}/.last-update.json", b"{}"))
    except ValueError:
        return "en"
    language = meta.get("language") if isinstance(meta, dict) else None
    return language if isinstance(language, str) and language.strip() else "en"


def _holds_as_recorded(claim: ClaimResult) -> bool:
    """Every evidence resolves to exactly its stored version, as OpenWiki's finalize re-checks before it counts a
    page as verified (text moved within its file still does; a claim Wikiwarden would re-anchor does not)."""
    return claim.error is None and all(e.openwiki_verdict is OpenWikiVerdict.FRESH for e in claim.evidence)


def sync_okf(
    repo: GitRepository,
    wiki_dir: str,
    *,
    dry_run: bool = False,
    init: bool = False,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    indexes: bool = False,
) -> SyncPlan:
    """`okf sync`: migrate pages, project `sources` and `verified`, regenerate the indexes OpenWiki or Wikiwarden
    wrote and refresh page versions, in the working tree. Nothing is written when `dry_run`, nor in a folder that
    is not an OpenWiki wiki unless `init` (the plan says so: `held`). On a docs site the writing rules hold
    (`bot.ground.writing`): history, include fragments and unpublished pages left as they are, no new index.md
    unless `indexes`. `init` on a folder not yet OKF leaves its marker (`OKF_MARKER`). Unless `dry_run`, read and
    written under the wiki's lock, as every command writing the wiki is."""
    wiki_dir = normalize_wiki_dir(wiki_dir)
    local = LocalWiki(repo.root, wiki_dir)
    try:
        history = tuple(read_local_config(repo).history)
    except ValueError:  # the command reading the settings says why; sync still leaves history by name
        history = ()
    rules = WritingRules.of(True, snapshot_site(repo.worktree()), history)
    with contextlib.nullcontext() if dry_run else local.writing():
        return _sync(
            local, wiki_dir, dry_run=dry_run, init=init, max_file_bytes=max_file_bytes, rules=rules, indexes=indexes
        )


def _sync(
    local: LocalWiki,
    wiki_dir: str,
    *,
    dry_run: bool,
    init: bool,
    max_file_bytes: int,
    rules: WritingRules,
    indexes: bool,
) -> SyncPlan:
    require_wiki_folder(local.snapshot, wiki_dir)  # never an index.md in a folder that is not the wiki
    files, links = local.files()
    options = SweepOptions(wiki_dir=wiki_dir, max_file_bytes=max_file_bytes)
    sweeper = Sweeper(local.snapshot, None, options, parallel=Forking())  # one process, the collector paused
    wiki = sweeper.load()
    checked = {page.page: page.claims for page in sweeper.sweep(wiki).pages}
    grounded = {
        loaded.page: GroundedPage(
            loaded.sidecar_path,
            loaded.sidecar,
            [record.resource for claim in loaded.sidecar.claims for record in claim.evidence],
            any(c.verdict.needs_attention for c in checked.get(loaded.page, ())),
            loaded.page in checked and all(_holds_as_recorded(c) for c in checked[loaded.page]),
        )
        for loaded in wiki.pages
        if loaded.sidecar is not None
    }
    recognition = recognise(files, wiki_dir)
    docs = rules.site.docs_dir
    overlap = docs is not None and (
        docs in ("", ".") or f"{wiki_dir}/".startswith(f"{docs}/") or f"{docs}/".startswith(f"{wiki_dir}/")
    )
    site = rules.site if rules.site.kind is not None and overlap else None
    plan = plan_sync(
        files, wiki_dir, grounded, _language(files, wiki_dir), pages_by_openwiki=recognition.pages_by_openwiki,
        leave=rules.why_left if site is not None else None,
        may_create_index=(lambda folder: rules.may_create_index(folder, indexes)) if site is not None else None,
    )  # fmt: skip
    plan.recognition = recognition
    plan.held = not recognition.is_openwiki_wiki and not init
    if init and not recognition.is_openwiki_wiki:
        plan.writes[f"{wiki_dir}/{OKF_MARKER}"] = OKF_MARKER_CONTENT  # its pages take OKF front matter from now on
    plan.problems.extend((path, "a symlink: left as it is") for path in links if path.endswith(".md"))
    for path in set(links) & set(plan.writes):  # a symlinked index.md: never written through
        del plan.writes[path]
    if not dry_run and not plan.held:
        for path, content in plan.writes.items():
            local.write_file(path, content)
    return plan


def validate_okf(folder: Path) -> list[Problem]:
    """`okf validate`: every conformance problem of the bundle in `folder` (a plain folder; no git needed)."""
    if not folder.exists():
        raise FileNotFoundError(f"{folder} does not exist")
    if not folder.is_dir():
        raise NotADirectoryError(f"{folder} is not a folder")
    files = {}
    for path in sorted(folder.rglob("*.md")):
        relative = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in relative.split("/")) or path.is_symlink() or not path.is_file():
            continue
        files[relative] = path.read_bytes()
    return validate_bundle(files)
