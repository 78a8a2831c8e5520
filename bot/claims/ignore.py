"""`.openwikiignore`: OpenWiki's gitignore-like read boundary, matched case-insensitively (§1.6).

The same rules read `references.exclude` and `references.history` and the repository's `.gitignore` files: every
glob a repository writes. A glob is never handed to a backtracking regex engine (`**a**a**a**b` against a name of
forty `a`s would take years): it is compiled to a nondeterministic automaton of one state per glob character,
simulated over the path with all its states at once (a bit each in one integer), so that matching is linear in the
path whatever the pattern. The states reached are remembered per character (a lazily built DFA), so a path costs a
dictionary lookup per character once the rule has seen its like. Rules are bounded: at most MAX_PATTERNS patterns
of at most MAX_PATTERN_CHARS characters each (IgnoreLimitError, in one line)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from .resources import normalize_posix
from .sidecar import js_trim

IGNORE_FILE = ".openwikiignore"
MAX_PATTERNS = 1_000  # a project's .gitignore holds a few hundred at most; OpenWiki's examples a handful
MAX_PATTERN_CHARS = 1_000  # a path a pattern names is far shorter (git's own tools stop at 4,096 bytes)
_STATES_REMEMBERED = 4_096  # per rule: a path's every character may make a new set of states; memory stays bounded

# A glob's parts. `*` runs within a segment, `**` across segments (a bare `**` is `.*`, as OpenWiki reads it), `**/`
# is zero or more folders (`(?:.*/)?`), `?` is one character of a segment; everything else stands for itself.
_LITERAL, _ONE, _STAR, _ANY, _FOLDERS = range(5)


class IgnoreLimitError(ValueError):
    """Patterns over the limits (too many, or one too long): refused in one line, before any is matched."""


class _Part(NamedTuple):
    kind: int
    char: str = ""


def _parts(glob: str) -> list[_Part]:
    """The glob's parts, runs of wildcards collapsed to the one that means the same (`***` is `**`, `**/**` is
    `**`): what is left has no two adjacent parts that could take the same characters in turns."""
    parts: list[_Part] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            part, i = _Part(_FOLDERS), i + 3
        elif glob.startswith("**", i):
            part, i = _Part(_ANY), i + 2
        elif glob[i] == "*":
            part, i = _Part(_STAR), i + 1
        elif glob[i] == "?":
            part, i = _Part(_ONE), i + 1
        else:
            part, i = _Part(_LITERAL, glob[i]), i + 1
        _append(parts, part)
    return parts


def _append(parts: list[_Part], part: _Part) -> None:
    last = parts[-1].kind if parts else None
    if last == _ANY and part.kind in (_STAR, _ANY, _FOLDERS):
        return  # `.*` already takes what `[^/]*`, `.*` or `(?:.*/)?` after it would
    if last in (_STAR, _FOLDERS) and part.kind == _ANY:
        parts[-1] = part  # `[^/]*.*` and `(?:.*/)?.*` are `.*`
        return
    if last == part.kind and part.kind in (_STAR, _FOLDERS):
        return  # `[^/]*[^/]*` is `[^/]*`; `(?:.*/)?(?:.*/)?` is `(?:.*/)?`
    parts.append(part)


@lru_cache(maxsize=4_096)
def _same(pattern_char: str, char: str) -> bool:
    """Whether a glob's character matches a path's as Python's case-insensitive regexes match them (`É` and `é`;
    never `ß` and `SS`, a character matches one character)."""
    return pattern_char == char or re.fullmatch(re.escape(pattern_char), char, re.IGNORECASE) is not None


class _Matcher:
    """One glob as an automaton. State i stands before part i (a `**/` takes two: before it, and inside its folders);
    the last state accepts. A path is read one character at a time, every reachable state at once."""

    def __init__(self, parts: list[_Part]) -> None:
        self.literals: dict[str, int] = {}  # a literal's character -> the states it advances
        self.one = 0  # states advanced by any character but `/`
        self.slash = 0  # states advanced by `/` alone (inside `**/`: its slash)
        self.star = 0  # states that stay on any character but `/`
        self.any = 0  # states that stay on any character
        self.skip1 = 0  # states with a free move to the next (`*`, `**`, and `**/` into its folders)
        self.skip2 = 0  # states with a free move past the next (`**/` matching no folder)
        state = 0
        for part in parts:
            bit = 1 << state
            if part.kind == _LITERAL:
                self.literals[part.char] = self.literals.get(part.char, 0) | bit
            elif part.kind == _ONE:
                self.one |= bit
            elif part.kind == _STAR:
                self.star |= bit
                self.skip1 |= bit
            elif part.kind == _ANY:
                self.any |= bit
                self.skip1 |= bit
            else:  # `**/`: state `bit` chooses, state `bit << 1` reads folders and their slash
                self.skip1 |= bit
                self.skip2 |= bit
                self.any |= bit << 1
                self.slash |= bit << 1
                state += 1
            state += 1
        self.accept = 1 << state
        self.start = self._closure(1)
        self.steps: dict[int, dict[str, int]] = {}  # states -> character -> the states after it
        self.remembered = 0
        self.advances: dict[str, tuple[int, int]] = {}  # a path's character -> (states it advances, states it keeps)

    def _closure(self, states: int) -> int:
        while True:
            more = states | ((states & self.skip1) << 1) | ((states & self.skip2) << 2)
            if more == states:
                return states
            states = more

    def _moves(self, char: str) -> tuple[int, int]:
        moves = self.advances.get(char)
        if moves is None:
            advance = sum(bits for literal, bits in self.literals.items() if _same(literal, char))
            slash = char == "/"
            moves = (advance | self.slash, self.any) if slash else (advance | self.one, self.any | self.star)
            self.advances[char] = moves
        return moves

    def _step(self, states: int, char: str) -> int:
        row = self.steps.get(states)
        if row is None:
            if self.remembered >= _STATES_REMEMBERED:
                self.steps.clear()
                self.remembered = 0
            row = self.steps[states] = {}
        after = row.get(char)
        if after is None:
            advance, keep = self._moves(char)
            after = row[char] = self._closure(((states & advance) << 1) | (states & keep))
            self.remembered += 1
        return after

    def matches(self, path: str, folders_only: bool) -> bool:
        """Whether the glob matches one of the path's folders (a prefix ending before a `/`) or, unless
        `folders_only`, the whole path: all in one reading of the path."""
        states, accept, steps = self.start, self.accept, self.steps
        for char in path:
            if char == "/" and states & accept:
                return True
            row = steps.get(states)
            after = row.get(char) if row is not None else None
            states = self._step(states, char) if after is None else after  # the step remembered, else worked out
            if not states:
                return False
        return not folders_only and bool(states & accept)


class _Rule(NamedTuple):
    matcher: _Matcher
    negated: bool
    directory_only: bool


class IgnoreRules:
    """Parsed ignore rules; the last matching rule wins, and a rule on a folder covers what it holds. `origin` names
    where the rules come from in IgnoreLimitError's words."""

    def __init__(self, text: str = "", origin: str = IGNORE_FILE) -> None:
        self.rules: list[_Rule] = []
        # OpenWiki splits on \r?\n and trims each line as JavaScript does (a BOM is trimmed too).
        for number, raw in enumerate(text.split("\n"), 1):
            line = js_trim(raw)
            if not line or line.startswith("#"):
                continue
            if len(line) > MAX_PATTERN_CHARS:
                raise IgnoreLimitError(
                    f"{origin}: the pattern on line {number} has {len(line):,} characters; a pattern may have at "
                    f"most {MAX_PATTERN_CHARS:,}"
                )
            negated = line.startswith("!")
            if negated:
                line = line[1:]
            directory_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            if len(self.rules) == MAX_PATTERNS:
                raise IgnoreLimitError(f"{origin}: more than {MAX_PATTERNS:,} patterns; there may be at most that many")
            anchored = "/" in line
            parts = _parts(line.lstrip("/"))
            if not anchored:
                parts[:0] = [_Part(_FOLDERS)]  # at any depth: `(?:.*/)?` first
                _collapse_front(parts)
            self.rules.append(_Rule(_Matcher(parts), negated, directory_only))

    def __bool__(self) -> bool:
        return bool(self.rules)

    def ignored(self, path: str) -> bool:
        """Whether a repository-relative file path is ignored (`.` and `..` collapsed first)."""
        path = normalize_posix("/" + path.replace("\\", "/"))
        joined = "/".join(s for s in path.split("/") if s)
        for rule in reversed(self.rules):  # the last rule that matches decides
            if rule.matcher.matches(joined, rule.directory_only):
                return not rule.negated
        return False


def _collapse_front(parts: list[_Part]) -> None:
    """The parts with `(?:.*/)?` put first, collapsed with what follows it as `_append` would."""
    first, rest = parts[0], parts[1:]
    parts[:] = [first]
    for part in rest:
        _append(parts, part)
