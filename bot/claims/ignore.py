"""`.openwikiignore`: OpenWiki's gitignore-like read boundary, matched case-insensitively (§1.6)."""

from __future__ import annotations

import re
from typing import NamedTuple

from .resources import normalize_posix
from .sidecar import js_trim

IGNORE_FILE = ".openwikiignore"


class _Rule(NamedTuple):
    pattern: re.Pattern[str]
    negated: bool
    directory_only: bool


def _translate(glob: str) -> str:
    out = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


class IgnoreRules:
    """Parsed ignore rules; the last matching rule wins, and a rule on a folder covers what it holds."""

    def __init__(self, text: str = "") -> None:
        self.rules: list[_Rule] = []
        # OpenWiki splits on \r?\n and trims each line as JavaScript does (a BOM is trimmed too).
        for raw in text.split("\n"):
            line = js_trim(raw)
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            if negated:
                line = line[1:]
            directory_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line
            line = line.lstrip("/")
            body = _translate(line)
            regex = f"^{body}$" if anchored else f"^(?:.*/)?{body}$"
            self.rules.append(_Rule(re.compile(regex, re.IGNORECASE | re.DOTALL), negated, directory_only))

    def __bool__(self) -> bool:
        return bool(self.rules)

    def ignored(self, path: str) -> bool:
        """Whether a repository-relative file path is ignored (`.` and `..` collapsed first)."""
        path = normalize_posix("/" + path.replace("\\", "/"))
        segments = [s for s in path.split("/") if s]
        ancestors = ["/".join(segments[:k]) for k in range(1, len(segments))]
        result = False
        for rule in self.rules:
            hit = any(rule.pattern.match(a) for a in ancestors)
            if not hit and not rule.directory_only:
                hit = bool(rule.pattern.match("/".join(segments)))
            if hit:
                result = not rule.negated
        return result
