"""Candidate evidence for a page, found without a model: the code its references, its values and its prose point
at. The model starts from these (and may read further); a person grounding by hand (`wikiwarden claim add`) reads
the same list from `ground --dry-run`.

Every rule is one a reader would apply: a name in backticks means its definition; a value in backticks
(`git-repo`, `langsmith:nostream`) means the code that writes it; a file named by its path, its name or the words
of its name (`the crash guard` for `crash-guard.ts`) means the file, a folder its README; in a file the page
names, the definitions whose names it spells out (`language instructions` for `formatLanguageInstructions`).
What a page says precisely comes first: a name with many definitions says little about which one the page means,
and a page describing code cites the code before its tests.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from ..claims.resources import EvidenceResource
from .references import Reference, headings, is_folder, lookup, mentions, page_body
from .symbols import Definition, SymbolIndex, language_of

MAX_CANDIDATES = 30
# A name with more definitions than this (or a value written in more places, a file name worn by more files)
# points at none of them in particular.
SPECIFIC = 3
_PROSE_NAME = re.compile(r"(?<![\w`.])([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?![\w`])")
# A prose word is taken for a name only when it cannot be an ordinary word: CamelCase inside, an underscore, or a
# dotted path (`Queue`, `drain` or `run` in a sentence are words first).
_NAME_SHAPE = re.compile(r"(?:[a-z0-9][A-Z]|_|\.)")
# The words of a name: `formatLanguageInstructions`, `format_language_instructions`, `crash-guard`.
_NAME_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_TEST_PATH = re.compile(
    r"(?:^|/)(?:tests?|__tests__|spec|specs|testdata|fixtures?)/"  # a folder of tests
    r"|\.(?:test|spec)\.[^/]+$|_test\.[^/]+$|(?:^|/)test_[^/]+$|Tests?\.java$"  # a test file's name
)
_READMES = ("README.md", "readme.md", "README.rst", "README.txt", "README")


@dataclass(frozen=True, slots=True)
class Candidate:
    resource: str  # repo://path#Lx-Ly (a definition, a line) or repo://path (a file)
    why: str  # what in the page points at it


def is_test(path: str) -> bool:
    """Whether a path is a test's (a folder of tests, a test file's name in the languages indexed)."""
    return _TEST_PATH.search(path) is not None


def candidates(
    references: list[Reference],
    page_text: str,
    paths: Collection[str],
    index: SymbolIndex,
    limit: int = MAX_CANDIDATES,
) -> list[Candidate]:
    """At most `limit` candidates of the files in `paths` (the files evidence may cite), best first:

    1. definitions a code span names (a name shaped like code, with few definitions);
    2. the definitions holding a value a code span writes (a span naming no path and no such definition);
    3. files a span or link names (by path, or by a file's name or path end alone), a named folder's README;
    4. definitions a name in the prose names (`TaskQueue`, `max_items`, `queue.drain`), when they are few;
    5. in the files above, definitions whose name the page spells out (`language instructions`);
    6. files whose name the page writes in words (`the crash guard`, a heading `## Gates`);
    7. in those, the definitions it spells out; then the top-level definitions of every file above, those whose
       name's words the page uses most first;
    8. what a plain word in backticks names (`init`: a command, a value or a word as much as a name), and what a
       name with many definitions names; last, definitions in tests.
    """
    ranked = _Ranked()
    body = page_body(page_text)
    settled = _named_by_references(ranked, references, paths)
    _holding_values(ranked, page_text, settled, paths, index)
    for name in _prose_names(body):
        code = [d for d in lookup(name, index) if not is_test(d.path)]
        for definition in code[:SPECIFIC]:
            ranked.named(4 if len(code) <= SPECIFIC else 8, definition, f"the prose word {name}")
    _in_named_files(ranked, body, page_text, paths, index)
    return ranked.best(limit)


def _named_by_references(ranked: _Ranked, references: list[Reference], paths: Collection[str]) -> set[str]:
    """Ranks 1, 3, 8 and 9: what the page's code spans and links name (definitions, files, a folder's README); the
    spans that named a path or a few definitions, which are then neither values nor file names."""
    settled = set()
    for ref in references:
        span = ref.mention.text.strip()
        named = [t.definition for t in ref.targets if t.definition is not None]
        code = [d for d in named if not is_test(d.path)]
        few = 0 < len(code) <= SPECIFIC
        for definition in named:
            rank = 9 if is_test(definition.path) else 1 if few and not _plain(span) else 8
            ranked.named(rank, definition, f"`{span}`")
        if few:
            settled.add(span)
        for target in ref.targets:
            if target.definition is None:
                settled.add(span)
                if not is_folder(target.path, paths):
                    ranked.file(3, target.path, f"`{span}` names the file")
                elif readme := next((f"{target.path}/{r}" for r in _READMES if f"{target.path}/{r}" in paths), None):
                    ranked.file(3, readme, f"`{span}` names its folder")
    return settled


def _holding_values(
    ranked: _Ranked, page_text: str, settled: set[str], paths: Collection[str], index: SymbolIndex
) -> None:
    """Ranks 2, 3 and 8: the definitions holding a value a code span writes, and the files a span names by name."""
    file_names: _FileNames | None = None  # made for the first value looked up, once a page
    for value in dict.fromkeys(m.text.strip() for m in mentions(page_text) if m.kind == "code"):
        if not value or value in settled:
            continue
        places = [(path, line) for path, line in index.literal(value) if not is_test(path)]
        for path, line in places if len(places) <= SPECIFIC else ():
            holder = index.enclosing(path, line)
            rank = 8 if _plain(value) else 2
            if holder is not None:
                ranked.add(rank, path, holder.documented, f"`{value}` is a value in {holder.kind} {holder.qualified}")
            else:
                ranked.add(rank, path, EvidenceResource(path, line, line).canonical, f"`{value}` is written here")
        file_names = file_names or _FileNames(paths)
        for path in file_names.named_by(value):
            ranked.file(3, path, f"`{value}` names the file")


def _in_named_files(ranked: _Ranked, body: str, page_text: str, paths: Collection[str], index: SymbolIndex) -> None:
    """Ranks 5 to 7: in the files named so far, the definitions the page spells out; the files it names in words
    and theirs; then the top-level definitions of all of them, by the page's words."""
    prose = _words_line(body)
    named_files = ranked.files(better_than=5)
    for definition, said in _spelled_out(named_files, prose, index):
        ranked.add(5, definition.path, definition.documented, f"the page says {said}: {definition.qualified}")
    worded = [p for p in _named_in_words(body, headings(page_text), paths) if p not in named_files]
    for path in worded:
        ranked.file(6, path, "the page writes the file's name in words")
    for definition, said in _spelled_out(worded, prose, index):
        ranked.add(7, definition.path, definition.documented, f"the page says {said}: {definition.qualified}")
    for definition in _most_used_words(named_files + worded, prose, index):
        ranked.add(7, definition.path, definition.documented, f"{definition.kind} {definition.name} of a file it names")


class _Ranked:
    """Candidates by rank, each once: at its best rank, with the reason that put it there."""

    def __init__(self) -> None:
        self._found: dict[str, tuple[int, int, str, Candidate]] = {}  # resource → rank, arrival, path, candidate

    def add(self, rank: int, path: str, resource: str, why: str) -> None:
        known = self._found.get(resource)
        if known is None or rank < known[0]:
            arrival = known[1] if known is not None else len(self._found)
            self._found[resource] = (rank, arrival, path, Candidate(resource, why))

    def named(self, rank: int, definition: Definition, what: str) -> None:
        self.add(rank, definition.path, definition.documented, f"{what} names {definition.kind} {definition.qualified}")

    def file(self, rank: int, path: str, why: str) -> None:
        self.add(rank, path, EvidenceResource(path).canonical, why)

    def _ordered(self) -> list[tuple[int, int, str, Candidate]]:
        return sorted(self._found.values(), key=lambda item: item[:2])

    def files(self, better_than: int) -> list[str]:
        """The files of the candidates ranked better than `better_than`, best first."""
        return list(dict.fromkeys(path for rank, _, path, _ in self._ordered() if rank < better_than))

    def best(self, limit: int) -> list[Candidate]:
        return [candidate for *_, candidate in self._ordered()][: max(limit, 0)]


def _plain(text: str) -> bool:
    """A span that may be a word, a command or a value as much as a name (`init`, `update`, `tags`), unlike a
    name shaped like code (`drain()`, `TaskQueue`, `max_items`, `queue.drain`, `--force`)."""
    return text.strip().isalpha() and text.strip().islower()


def _word(word: str) -> str:
    """A word as names and prose share it: lower case, without a plural's s (`instructions`, `Instruction`)."""
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _name_words(name: str) -> list[str]:
    return [_word(w) for w in _NAME_WORD.findall(name)]


class _FileNames:
    """The files of `paths` a span may name by a path's end (`app/app.tsx`, `run.ts`: what follows a `/` of the
    path) or, for code, by a file's name without its suffix (`git-repo` for `git-repo.ts`); never tests. Made once
    for a page, so that each of its spans is looked up, not searched for among every file."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.by_end: dict[str, list[str]] = {}
        self.by_stem: dict[str, list[str]] = {}
        for path in paths:
            if is_test(path):
                continue
            cut = path.find("/")
            while cut >= 0:
                self.by_end.setdefault(path[cut + 1 :], []).append(path)
                cut = path.find("/", cut + 1)
            if language_of(path) is not None:
                self.by_stem.setdefault(posixpath.splitext(posixpath.basename(path))[0], []).append(path)

    def named_by(self, value: str) -> list[str]:
        """The files `value` names by a path's end, else (a bare name) by a code file's name; none when more files
        answer."""
        if not value or any(c in value for c in " *?[]{}()<>|$`'\"\\") or value.startswith(("/", "-", ".")):
            return []
        found = self.by_end.get(value, [])
        if not found and "/" not in value and "." not in value:
            found = self.by_stem.get(value, [])
        return sorted(found) if len(found) <= SPECIFIC else []


def _named_in_words(body: str, titles: list[str], paths: Iterable[str]) -> list[str]:
    """Code files whose name the page writes in words: a name of two words or more anywhere in its prose (`the
    crash guard` for `crash-guard.ts`), a one-word name in a heading (`## Gates` for `gates.ts`); only names no
    more than a few files have, never tests."""
    prose = _words_line(body)
    in_titles = " ".join(_words_line(title) for title in titles)
    by_name: dict[str, list[str]] = {}
    for path in paths:
        if language_of(path) is not None and not is_test(path):
            words = _name_words(posixpath.basename(path).split(".", 1)[0])
            by_name.setdefault(" ".join(words), []).append(path)
    found = []
    for name, files in by_name.items():
        if name and len(files) <= SPECIFIC and f" {name} " in (prose if " " in name else in_titles):
            found.extend(files)
    return sorted(found)


def _words_line(text: str) -> str:
    """Text as a line of words as names and prose share them, padded: ` crash guard catches `."""
    return " " + " ".join(_word(w) for w in _NAME_WORD.findall(text)) + " "


def _spelled_out(files: list[str], prose: str, index: SymbolIndex) -> list[tuple[Definition, str]]:
    """The definitions of `files` whose name the page spells out: two consecutive words of it at least, written
    together in the prose, carrying two thirds of its weight, a word weighing more the fewer names use it (`open`
    and `wiki` say little in a repository whose every other name holds them; `language instructions` says
    `formatLanguageInstructions`). Best spelled first, then in file order."""
    weight = _word_weights(index)
    found = []
    for order, path in enumerate(files):
        for definition in index.in_file(path):
            name = _name_words(definition.name)
            said = _longest_phrase(name, prose)
            if len(said) < 2:
                continue
            share = sum(weight.get(w, 0.0) for w in said) / (sum(weight.get(w, 0.0) for w in name) or 1)
            if share >= 2 / 3:
                found.append((-share, -len(said), order, definition.start, definition, " ".join(said)))
    found.sort(key=lambda item: item[:4])
    return [(item[4], item[5]) for item in found]


def _longest_phrase(name: list[str], prose: str) -> list[str]:
    """The longest run of a name's words the prose writes together, in order."""
    best: list[str] = []
    for start in range(len(name)):
        for end in range(len(name), start + max(len(best), 1), -1):
            if f" {' '.join(name[start:end])} " in prose:
                best = name[start:end]
                break
    return best


def _most_used_words(files: list[str], prose: str, index: SymbolIndex) -> list[Definition]:
    """The top-level definitions of `files`, those whose name's words (by weight) the page uses most first."""
    weight = _word_weights(index)
    used = set(prose.split())
    found = []
    for order, path in enumerate(files):
        for definition in index.in_file(path):
            if definition.qualified == definition.name:
                name = _name_words(definition.name)
                share = sum(weight.get(w, 0.0) for w in name if w in used) / (
                    sum(weight.get(w, 0.0) for w in name) or 1
                )
                found.append((-share, order, definition.start, definition))
    found.sort(key=lambda item: item[:3])
    return [item[3] for item in found]


_WEIGHTS: WeakKeyDictionary[SymbolIndex, dict[str, float]] = WeakKeyDictionary()


def _word_weights(index: SymbolIndex) -> dict[str, float]:
    """Each word of the index's names, weighted by its rarity among them (inverse document frequency)."""
    if index not in _WEIGHTS:
        counts = Counter(w for d in index.definitions for w in set(_name_words(d.name)))
        total = max(len(index), 1)
        _WEIGHTS[index] = {w: math.log(1 + total / n) for w, n in counts.items()}
    return _WEIGHTS[index]


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
