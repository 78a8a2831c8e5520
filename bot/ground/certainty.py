"""Which broken references fail a check and which are only notes, and which pages' references are not checked.

A broken reference fails a CI job or blocks a commit, so it must be certain. People's docs name many things that
only look like code: a package that is also a folder (`typer-slim`), a word that is also a private variable
(`zstd`), the reader's own `requirements.txt`. What is certain:

- a link (the page would send a reader nowhere);
- a code span written as a path (a folder and a name: `src/util.py`, `typer-slim/`);
- a qualified or called name (`click.get_text_stream`, `TaskQueue.drain`, `drain()`) whose definition went;
- a bare name that reads as code (`TaskQueue`, `max_items`, `getTextStream`) for a public top-level definition
  that went (a bare member's name, `max_connections`, may be another class's or a parameter's).

Anything else is a note: shown, never failing. Pages that are history (changelogs, release notes: they name what
a later release removed, on purpose) are not checked at all, nor pages a repository excludes. Pure.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..claims.ignore import IgnoreRules
from ..claims.results import BrokenReference

# File names every project has, that docs name as the reader's own (`put your dependencies in requirements.txt`).
GENERIC_FILES = frozenset(
    name.lower()
    for name in (
        "requirements.txt", "requirements-dev.txt", "dev-requirements.txt", "constraints.txt", "setup.py",
        "setup.cfg", "pyproject.toml", "tox.ini", "noxfile.py", "conftest.py", "manage.py", "main.py", "app.py",
        "__init__.py", "__main__.py", "settings.py", "config.py", "package.json", "package-lock.json", "yarn.lock",
        "pnpm-lock.yaml", "tsconfig.json", "Cargo.toml", "Cargo.lock", "go.mod", "go.sum", "pom.xml", "build.gradle",
        "Gemfile", "Makefile", "Dockerfile", "docker-compose.yml", "compose.yaml", ".env", ".gitignore",
        ".pre-commit-config.yaml", "README.md", "README.rst", "CHANGELOG.md", "LICENSE", "LICENSE.txt",
        "CONTRIBUTING.md", "index.md", "index.html", "mkdocs.yml", "conf.py", "uv.lock", "poetry.lock",
        "Pipfile", "Pipfile.lock", "environment.yml", "requirements.in",
    )
)  # fmt: skip

# Pages that are history, by name: what they name was true of a release, and stays written as it was.
_HISTORY_STEM = re.compile(
    r"(?:change[-_ ]?log|changes|history|news|release[-_ ]?notes?|releases|whats?[-_ ]?new|upgrad(?:e|ing)[-_ ]?notes)"
    r"(?:[-_.][\w.-]*)?",
    re.I,
)
_HISTORY_FOLDERS = frozenset(
    {"changelog", "changelogs", "changes", "release-notes", "release_notes", "releases", "news"}
)
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_CODE_LIKE = re.compile(r".[A-Z]|[a-z0-9]_[A-Za-z0-9]")  # an inner capital (`TaskQueue`, `getX`) or `snake_case`


def is_history_page(path: str) -> bool:
    """A changelog, release notes or news page, or a page in such a folder (by name; a repository adds more with
    `references.history`)."""
    parts = path.lower().split("/")
    stem = posixpath.splitext(parts[-1])[0]
    return bool(_HISTORY_STEM.fullmatch(stem)) or any(folder in _HISTORY_FOLDERS for folder in parts[:-1])


@dataclass(frozen=True)
class PageRules:
    """Which pages' references are checked: not history pages, not the ones a repository excludes."""

    exclude: IgnoreRules = field(default_factory=IgnoreRules)
    history: IgnoreRules = field(default_factory=IgnoreRules)

    @classmethod
    def of(cls, exclude: Sequence[str] = (), history: Sequence[str] = ()) -> PageRules:
        """From gitignore-style patterns of repository paths (`.github/wikiwarden.yml`'s `references`)."""
        return cls(
            IgnoreRules("\n".join(exclude), origin="references.exclude"),
            IgnoreRules("\n".join(history), origin="references.history"),
        )

    def checked(self, page: str) -> bool:
        return not (is_history_page(page) or self.history.ignored(page) or self.exclude.ignored(page))


_TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "testing", "spec", "specs", "e2e"})
_TEST_FILE = re.compile(r"(?:test_.*|.*_test|.*[._](?:test|spec)|conftest)\.\w+$", re.I)


def is_test_code(path: str) -> bool:
    """A file of a test suite (`tests/`, `test_x.py`, `x_test.go`, `x.test.ts`): what pages name is the code's API,
    and a test's helper of the same name (pydantic's `ErrorDetails` in `tests/`) is rarely what they mean."""
    parts = path.split("/")
    return any(part.lower() in _TEST_FOLDERS for part in parts[:-1]) or bool(_TEST_FILE.match(parts[-1]))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def uncertainty(ref: BrokenReference) -> str | None:
    """Why a broken reference is not certain, in words; None when it is (see the module's rules)."""
    if ref.kind == "link":
        return None
    written = ref.text.strip()
    if ref.target == ref.path:  # a path
        if "/" in written.removeprefix("./").rstrip("/") or written.endswith("/"):
            return None
        name = posixpath.basename(written.removeprefix("./"))
        if "." not in name.strip("."):
            return "a bare word: it may be a package's name or a word, not this folder"
        if name.lower() in GENERIC_FILES:
            return "a file name every project has: it may name the reader's own"
        return None
    if is_test_code(ref.path):
        return "a definition of test code: the page may mean another of the name (a library's)"
    if not _IDENTIFIER.fullmatch(written):
        return None  # qualified (`a.b`, `a::b`, `A#b`) or called (`drain()`, `drain(q)`)
    if "." in ref.target:
        return (
            f"a bare name of a member ({ref.target}): it may name another's, or a parameter "
            "(write it qualified to make it certain)"
        )
    if _private(written):
        return "a bare name of a private definition: it may be a word, not this code"
    if not _CODE_LIKE.search(written):
        return "a bare word: it may be a word, not this code (qualify or call it to make it certain)"
    return None


_DEFINING = r"(?:def|class|function|func|fn|const|let|var|type|interface|struct|enum)"


def defined_on_page(name: str, page_text: str) -> bool:
    """Whether a page defines `name` in its own code (an example's `def create_test_database():`, `x = ...`):
    then the page's mention of it names its example, whatever the repository's code did with the same name."""
    word = re.escape(name)
    return bool(re.search(rf"\b{_DEFINING}\s+\*?{word}\b|^[ \t]*{word}[ \t]*(?::[^=\n]*)?=(?!=)", page_text, re.M))


def example_notes(refs: Iterable[BrokenReference], page_text: str) -> list[BrokenReference]:
    """`refs` of one page with those naming what the page's own code defines (a bare or called name) as notes."""
    found = []
    for ref in refs:
        name = ref.text.strip().removesuffix("()")
        named = ref.attention and ref.target != ref.path and _IDENTIFIER.fullmatch(name) is not None
        if named and defined_on_page(name, page_text):
            found.append(ref._replace(attention=False, note="the page's own example defines this name"))
        else:
            found.append(ref)
    return found


def classified(refs: Iterable[BrokenReference]) -> list[BrokenReference]:
    """`refs` with `attention` and `note` set by `uncertainty`, each reported once per page line (the same span
    twice on a line is one reference)."""
    seen: set[tuple[str, int, str, str]] = set()
    found = []
    for ref in refs:
        key = (ref.page, ref.line, ref.text, ref.target)
        if key in seen:
            continue
        seen.add(key)
        why = ref.note if not ref.attention else uncertainty(ref)
        found.append(ref._replace(attention=why is None, note=why))
    return found
