"""Candidate evidence for a page, found without a model: the definitions and files its references name, then the
definitions its prose names without backticks. The model starts from these (and may read further); a person
grounding by hand (`wikiwarden claim add`) reads the same list from `ground --dry-run`."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ..claims.resources import EvidenceResource
from .references import Reference, is_folder, lookup
from .symbols import Definition, SymbolIndex

MAX_CANDIDATES = 30
_PROSE_NAME = re.compile(r"(?<![\w`.])([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?![\w`])")
# A prose word is taken for a name only when it cannot be an ordinary word: CamelCase inside, an underscore, or a
# dotted path (`Queue`, `drain` or `run` in a sentence are words first).
_NAME_SHAPE = re.compile(r"(?:[a-z0-9][A-Z]|_|\.)")


@dataclass(frozen=True, slots=True)
class Candidate:
    resource: str  # repo://path#Lx-Ly (a definition) or repo://path (a file)
    why: str  # what in the page points at it


def _definition(definition: Definition, why: str) -> Candidate:
    return Candidate(definition.resource, f"{why} names {definition.kind} {definition.qualified}")


def candidates(
    references: list[Reference],
    page_text: str,
    paths: Collection[str],
    index: SymbolIndex,
    limit: int = MAX_CANDIDATES,
) -> list[Candidate]:
    """At most `limit` candidates, best first: definitions a code span names, files a span or link names, then
    definitions named in prose. A name with many definitions contributes them in file order."""
    found: dict[str, Candidate] = {}

    def add(candidate: Candidate) -> None:
        if candidate.resource not in found and len(found) < limit:
            found[candidate.resource] = candidate

    for ref in references:
        for target in ref.targets:
            if target.definition is not None:
                add(_definition(target.definition, f"`{ref.mention.text}`"))
    for ref in references:
        for target in ref.targets:
            if target.definition is None and target.path in paths and not is_folder(target.path, paths):
                add(Candidate(EvidenceResource(target.path).canonical, f"`{ref.mention.text}` names the file"))
    for name in _prose_names(page_text):
        for definition in lookup(name, index)[:3]:
            add(_definition(definition, f"the prose word {name}"))
    return list(found.values())


def _prose_names(page_text: str) -> list[str]:
    """Words of the prose shaped like code names (`TaskQueue`, `max_items`, `queue.drain`), in page order."""
    names = []
    seen = set()
    for line in page_text.split("\n"):
        for match in _PROSE_NAME.finditer(line):
            word = match.group(1).rstrip(".")
            if word not in seen and _NAME_SHAPE.search(word):
                seen.add(word)
                names.append(word)
    return names
