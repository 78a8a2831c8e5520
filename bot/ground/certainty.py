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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

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


def uncertainty(ref: BrokenReference, page_text: str | None = None) -> str | None:
    """Why a broken reference is not certain, in words; None when it is (see the module's rules). With the page's
    text, what the page says around the mention counts too: the reader's own project (`your project`), this
    repository's own file (`this included requirements.txt`), the page about a removed class's component."""
    if ref.kind == "link":
        return None
    written = ref.text.strip()
    if ref.target == ref.path:  # a path
        if ref.what == "missing" and page_text is not None and readers_path(ref, page_text):
            return "a path in the reader's own project or in another repository, as the page tells: not this one's"
        if page_text is not None and value_example(ref, page_text):
            return "an example of a value the reader writes (`path` and `path:Name`): not this repository's file"
        if "/" in written.removeprefix("./").rstrip("/") or written.endswith("/"):
            return None
        name = posixpath.basename(written.removeprefix("./"))
        if "." not in name.strip(".") and not (page_text is not None and said_folder(ref, page_text)):
            return "a bare word: it may be a package's name or a word, not this folder"
        if name.lower() in GENERIC_FILES and not (page_text is not None and own_file(ref, page_text)):
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
    if not _CODE_LIKE.search(written) and not (page_text is not None and about_component(ref, page_text)):
        return "a bare word: it may be a word, not this code (qualify or call it to make it certain)"
    return None


# What a page says when a path is the reader's or another repository's, not this one's.
_READERS = re.compile(
    r"\byour(?:\s+own)?\s+(?:project|app|application|package|library|repo|repository|code(?:base)?|module|source|book|site|docs|documentation)"
    r"|\bthese\s+repos|\bother\s+repos|\banother\s+repo|\b(?:their|each)\s+repo|\byour_\w+|\bmy_?(?:app|project|package)",
    re.I,
)
_PLACEHOLDER_SEGMENT = re.compile(r"^(?:<[^>]*>|\{[^}]*\}|your[_-]?\w*|my[_-]\w+)$", re.I)
# What a page says when a generic file name is this repository's own (`install using this included requirements.txt`).
_OWN = re.compile(
    r"\b(?:this|the)\s+included\b|\bincluded\b|\bthis\s+repo(?:sitory)?'?s?\b|\bof\s+this\s+project\b", re.I
)
_CONTRIBUTING = re.compile(r"contribut|hacking|development|developing", re.I)


PARAGRAPH_REACH = 12  # lines read each way from a mention: a check of a page's every mention stays linear


@lru_cache(maxsize=8)
def _lines(page_text: str) -> list[str]:
    return page_text.split("\n")


def _paragraph(page_text: str, line: int) -> str:
    """The lines around the page's `line` (1-based) up to the blank lines that bound its paragraph (at most
    `PARAGRAPH_REACH` each way)."""
    lines = _lines(page_text)
    start = end = max(0, min(line - 1, len(lines) - 1))
    while start > 0 and lines[start - 1].strip() and end - start < PARAGRAPH_REACH:
        start -= 1
    top = start
    while end + 1 < len(lines) and lines[end + 1].strip() and end - top < 2 * PARAGRAPH_REACH:
        end += 1
    return "\n".join(lines[start : end + 1])


def readers_path(ref: BrokenReference, page_text: str) -> bool:
    """Whether a missing path is, as the page tells, the reader's own (`src/your_app/__init__.py`, a paragraph
    about "your project") or another repository's ("in these repos, `src/node-types.json`")."""
    if any(_PLACEHOLDER_SEGMENT.match(part) for part in ref.path.split("/")):
        return True
    return bool(_READERS.search(_paragraph(page_text, ref.line)))


_EXAMPLE = re.compile(r"\b(?:for example|for instance|e\.g\.|such as)", re.I)


def value_example(ref: BrokenReference, page_text: str) -> bool:
    """Whether a path is an example of what the reader writes as a setting's value: the paragraph says "for
    example" and also writes the path as `path:Name` (griffe's "for example `scripts/griffe_exts.py` and
    `scripts/griffe_exts.py:ThisExtension`", after its own file of that name went)."""
    paragraph = _paragraph(page_text, ref.line)
    span = re.escape(ref.text.strip())
    return bool(_EXAMPLE.search(paragraph)) and re.search(rf"`{span}:[A-Za-z_]\w*`", paragraph) is not None


def said_folder(ref: BrokenReference, page_text: str) -> bool:
    """Whether the page calls a bare word git saw go a folder of its own (griffe's "our test suite is located in
    the `tests` folder", after `tests/` moved): the span followed by "folder" or "directory"."""
    if ref.what not in ("removed", "renamed"):
        return False
    span = re.escape(ref.text.strip())
    return bool(re.search(rf"`{span}`\s+(?:folder|directory)\b", _paragraph(page_text, ref.line), re.I))


def own_file(ref: BrokenReference, page_text: str) -> bool:
    """Whether a generic file name a change removed is this repository's own, as the page tells: a contributing or
    development page, or a line that says so (`this included requirements.txt`). Only for what git saw go."""
    if ref.what not in ("removed", "renamed"):
        return False
    if _CONTRIBUTING.search(posixpath.basename(ref.page)):
        return True
    return bool(_OWN.search(_paragraph(page_text, ref.line)))


def _words(text: str) -> set[str]:
    return {word.lower().removesuffix("s") for word in re.findall(r"[A-Za-z][a-z0-9]+|[A-Z]+(?![a-z])", text)}


@lru_cache(maxsize=8)
def _title(page_text: str) -> str:
    """The page's first heading (Markdown `#`/`##`, or reStructuredText's underlined with `=`), once per page."""
    heading = re.search(r"^#{1,2}[ \t]+(.+)$|^(.+)\n[=]{3,}[ \t]*$", page_text, re.M)
    return (heading[1] or heading[2]) if heading else ""


def about_component(ref: BrokenReference, page_text: str) -> bool:
    """Whether a removed public class (a capitalised top-level name, `Panel`) is named on the page about the
    component it belonged to: the page's file name or its first heading names the module or package that held it
    (`docs/widgets.md` or `# Widgets` for `pkg/widgets.py`)."""
    written = ref.text.strip()
    if not written[:1].isupper() or "." in ref.target or _private(written):
        return False
    stem = posixpath.splitext(posixpath.basename(ref.path))[0]
    module = posixpath.basename(posixpath.dirname(ref.path)) if stem in ("__init__", "index", "mod", "lib") else stem
    component = _words(module.replace("_", " "))
    if not component:
        return False
    title = _title(page_text)
    page_stem = posixpath.splitext(posixpath.basename(ref.page))[0]
    return component <= _words(page_stem.replace("_", " ").replace("-", " ")) or component <= _words(title)


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


def classified(refs: Iterable[BrokenReference], texts: Mapping[str, str] | None = None) -> list[BrokenReference]:
    """`refs` with `attention` and `note` set by `uncertainty` (with each page's text, when `texts` has it), each
    reported once per page line (the same span twice on a line is one reference)."""
    seen: set[tuple[str, int, str, str]] = set()
    found = []
    for ref in refs:
        key = (ref.page, ref.line, ref.text, ref.target)
        if key in seen:
            continue
        seen.add(key)
        why = ref.note if not ref.attention else uncertainty(ref, (texts or {}).get(ref.page))
        found.append(ref._replace(attention=why is None, note=why))
    return found
