"""Binding a wiki's code blocks copied from the source as snippet claims, with or without a model: the files
their copies come from (code and configuration), and what binding writes on each page (its sidecar, its quotes
file, its OKF `sources`), through the same page writer as grounding."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..claims.sidecar import parse_sidecar
from ..ground.build import PageGrounding, ground_page
from ..ground.check import CheckedGrounding
from ..ground.quotes import parse_quotes, quotes_path
from ..ground.snippets import SnippetIndex, bind
from ..ground.symbols import language_of
from ..ground.work import GroundWork
from ..ground.writing import WritingRules
from ..okf.project import ACTOR

# Files a block may be copied from besides code: configuration and scripts.
SOURCE_SUFFIXES = (
    ".toml", ".yaml", ".yml", ".json", ".cfg", ".ini", ".conf", ".sh", ".bash", ".sql", ".proto", ".graphql",
    ".html", ".css", ".xml", ".env", ".properties", ".gradle", ".tf", ".dockerfile",
)  # fmt: skip
SOURCE_NAMES = ("Dockerfile", "Makefile", "Procfile", "justfile")


def snippet_sources(paths: Iterable[str]) -> list[str]:
    """Which of the files evidence may cite a block can be a copy of: code, configuration, scripts."""
    return [
        path
        for path in paths
        if language_of(path) is not None
        or path.lower().endswith(SOURCE_SUFFIXES)
        or path.rsplit("/", 1)[-1] in SOURCE_NAMES
    ]


@dataclass
class SnippetBinding:
    """What binding did: per page that gained snippet claims, its grounding; the files to write."""

    pages: list[PageGrounding] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    left: list[tuple[str, str]] = field(default_factory=list)  # (page, why its blocks were not bound)

    @property
    def bound(self) -> int:
        return sum(len(page.added) for page in self.pages)


def bind_snippets(
    works: Sequence[GroundWork],
    index: SnippetIndex,
    taken: set[str],
    holding: Mapping[str, bool],
    *,
    wiki_dir: str,
    at: str,
    rules: WritingRules | None = None,
) -> SnippetBinding:
    """Bind every page's copies not bound yet, on the pages `rules` lets be bound (never history, never a page the
    site does not publish); each page's work is brought up to date with what was written (so the model grounds the
    page as binding left it), and the claim ids used are added to `taken`."""
    rules = rules or WritingRules()
    binding = SnippetBinding()
    for work in works:
        if work.problem is not None or not work.page.lower().endswith(".md"):
            continue
        bound = bind(work.page, work.text, work.sidecar, index)
        if not bound.statements:
            continue
        why = rules.why_not_bound(work.page)
        if why is not None:
            binding.left.append((work.page, why))
            continue
        checked = CheckedGrounding(bound.text, claims=bound.statements)
        grounded = ground_page(
            work.page, work.text, work.sidecar_path, work.sidecar, checked, taken, work.quotes, wiki_dir=wiki_dir,
            actor=ACTOR, at=at, existing_hold=holding.get(work.page, True), accepted=False,
            okf_front_matter=rules.okf_front_matter,
        )  # fmt: skip
        if grounded.problem is not None or not grounded.added:
            continue
        taken.update(claim.id for claim in grounded.added)
        binding.pages.append(grounded)
        binding.files.update(grounded.files)
        if work.page in grounded.files:
            work.text = grounded.files[work.page].decode("utf-8")
        if work.sidecar_path in grounded.files:
            work.sidecar = parse_sidecar(grounded.files[work.sidecar_path], work.sidecar_path)
        quotes = quotes_path(work.page, wiki_dir)
        if quotes in grounded.files:
            work.quotes = parse_quotes(grounded.files[quotes], quotes)  # written just now by render_quotes
    return binding
