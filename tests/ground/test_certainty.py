"""Which broken references fail a check and which are only notes, from the cases real hand-written docs hold
(typer's `typer-slim`, httpx's `zstd` and `max_connections`, a reader's `requirements.txt`), and which pages are
history."""

from __future__ import annotations

import pytest

from bot.claims.results import BrokenReference
from bot.ground.certainty import (
    PageRules,
    classified,
    defined_on_page,
    example_notes,
    is_history_page,
    is_test_code,
    uncertainty,
)


def ref(text: str, target: str, path: str, kind: str = "code", what: str = "removed") -> BrokenReference:
    return BrokenReference("docs/a.md", 3, text, target, path, what, kind=kind)


@pytest.mark.parametrize(
    ("reference", "reason"),
    [
        (ref("../src/util.py", "src/util.py", "src/util.py", kind="link"), None),  # a link: certain
        (ref("requirements.txt", "requirements.txt", "requirements.txt", kind="link"), None),
        (ref("src/util.py", "src/util.py", "src/util.py"), None),  # written as a path
        (ref("typer-slim/", "typer-slim", "typer-slim"), None),  # a folder, written as one
        (ref("./scripts/format.sh", "scripts/format.sh", "scripts/format.sh"), None),
        (ref("typer-slim", "typer-slim", "typer-slim"), "a bare word"),  # a package that is also a folder
        (ref("requirements.txt", "requirements.txt", "requirements.txt"), "a file name every project has"),
        (ref("Makefile", "Makefile", "Makefile"), "a bare word"),
        (ref("taskq.toml", "taskq.toml", "taskq.toml"), None),  # a file of this repository's own
        (ref("click.get_text_stream", "get_text_stream", "src/click/utils.py"), None),  # qualified
        (ref("Queue#drain", "Queue.drain", "src/q.js"), None),
        (ref("drain()", "TaskQueue.drain", "src/q.py"), None),  # called
        (ref("TaskQueue", "TaskQueue", "src/q.py"), None),  # reads as code: an inner capital
        (ref("max_items", "max_items", "src/q.py"), None),  # ... or snake_case
        (ref("TimeoutException", "TimeoutException", "httpx/_exceptions.py"), None),  # public, in a private module
        (ref("zstd", "zstd", "httpx/_compat.py"), "a bare word"),  # httpx 0.28: an encoding's name
        (ref("Client", "Client", "httpx/client.py"), "a bare word"),  # a word first
        (ref("max_connections", "ConnectionPool.max_connections", "httpx/_pool.py"), "a bare name of a member"),
        (ref("_private_thing", "_private_thing", "src/q.py"), "a bare name of a private definition"),
        (ref("__init__", "__init__", "src/q.py"), "a bare word"),  # a dunder is no private name, nor code-like
        # pydantic 2.11: `error_count()` meant pydantic_core's, and a test's `ErrorDetails` went
        (ref("error_count()", "error_count", "tests/test_fastapi_json_schema.py"), "a definition of test code"),
        (ref("ErrorDetails", "ErrorDetails", "src/x_test.go"), "a definition of test code"),
        (ref("test/crash.test.ts", "test/crash.test.ts", "test/crash.test.ts"), None),  # a path: certain
    ],
)
def test_what_is_certain(reference: BrokenReference, reason: str | None) -> None:
    found = uncertainty(reference)
    assert (found is None) == (reason is None)
    if reason is not None:
        assert found is not None and found.startswith(reason)


def test_classified_sets_attention_and_reports_a_reference_once_per_line() -> None:
    twice = [ref("zstd", "zstd", "x/_c.py"), ref("zstd", "zstd", "x/_c.py"), ref("src/a.py", "src/a.py", "src/a.py")]
    judged = classified(twice)
    assert [(r.text, r.attention, r.note is None) for r in judged] == [("zstd", False, False), ("src/a.py", True, True)]
    assert classified([judged[0]._replace(attention=False, note="kept")])[0].note == "kept"  # a note stays one


@pytest.mark.parametrize(
    ("page", "history"),
    [
        ("docs/release-notes.md", True),  # typer
        ("CHANGELOG.md", True),
        ("docs/changes.rst", True),  # click
        ("docs/changelog/v2.md", True),
        ("docs/HISTORY.md", True),
        ("docs/whats-new.md", True),
        ("docs/news.md", True),
        ("docs/releases/1.0.md", True),
        ("docs/upgrade-notes.md", True),
        ("docs/release.md", False),  # how to release: a guide, not history
        ("docs/changes-to-config.md", True),
        ("docs/newsletter.md", False),
        ("docs/tutorial/index.md", False),
        ("docs/changelogs", False),  # a history folder's name counts for folders, not for the page itself
        ("changelogs/x.md", True),
    ],
)
def test_history_pages_by_name(page: str, history: bool) -> None:
    assert is_history_page(page) is history


@pytest.mark.parametrize(
    ("path", "test_code"),
    [
        ("tests/x.py", True),
        ("src/tests/x.py", True),
        ("a/b/Tests/c/x.py", True),
        ("pkg/spec/deep/er/x.rb", True),
        ("tools/test", False),  # a file named like a test folder is not in one
        ("src/testing", False),
        ("src/test_x.py", True),
        ("src/x_test.go", True),
        ("src/x.test.ts", True),
        ("src/x.spec.js", True),
        ("conftest.py", True),
        ("src/contest.py", False),
        ("src/latest.py", False),
        ("src/testimony.py", False),
    ],
)
def test_is_test_code(path: str, test_code: bool) -> None:
    assert is_test_code(path) is test_code


@pytest.mark.parametrize(
    ("name", "private"),
    [("_x", True), ("__x", True), ("__x__", False), ("x", False), ("x_", False), ("__init__", False), ("_", True)],
)
def test_private_names(name: str, private: bool) -> None:
    reason = uncertainty(ref(name, name, "src/q.py"))
    assert (reason is not None and reason.startswith("a bare name of a private definition")) is private


def test_a_repository_excludes_pages_and_names_more_history() -> None:
    rules = PageRules.of(exclude=["docs/legacy/**", "*.draft.md"], history=["docs/migration.md"])
    assert not rules.checked("docs/legacy/old/page.md")
    assert not rules.checked("docs/guide/intro.draft.md")
    assert not rules.checked("docs/migration.md")
    assert not rules.checked("docs/release-notes.md")  # history by name, whatever the settings
    assert rules.checked("docs/guide/intro.md")
    assert PageRules().checked("docs/guide/intro.md")


def test_a_name_the_page_defines_in_its_own_example_is_a_note() -> None:
    """starlette 0.22: `create_test_database` is the docs' own fixture, though a function of that name went."""
    page = "Adjust the `create_test_database` fixture:\n\n```python\ndef create_test_database():\n    ...\n```\n"
    found = ref("create_test_database", "create_test_database", "tests/db.py")._replace(path="src/db.py")
    [judged] = example_notes([found], page)
    assert not judged.attention and judged.note == "the page's own example defines this name"
    assert defined_on_page("LIMIT", "```python\nLIMIT: int = 3\n```")
    assert not defined_on_page("LIMIT", "```python\nif LIMIT == 3: pass\n```")
    assert example_notes([found], "No example here.\n") == [found]
    path = ref("src/db.py", "src/db.py", "src/db.py")
    assert example_notes([path], "db.py = 1\n") == [path]  # paths are never an example's names


WIDGETS_PAGE = "# Widgets\n\nGroup controls in a `Panel`.\n"
TUTORIAL_PAGE = (
    "# Packaging\n\nIn your project, create\n`src/your_app/__init__.py`.\n\nOur `src/pkg/main.py` starts it.\n\n"
    "In these repos, `src/node-types.json` lists nodes.\n\nEdit `src/<name>/x.py` or `src/{name}/y.py`.\n"
)


@pytest.mark.parametrize(
    ("reference", "page_text", "reason"),
    [
        # the component's page: its file name or its first heading names the module that held the class
        (BrokenReference("docs/widgets.md", 3, "Panel", "Panel", "src/pkg/widgets.py", "removed"), "", None),
        (BrokenReference("docs/a.md", 3, "Panel", "Panel", "src/pkg/widgets.py", "removed"), WIDGETS_PAGE, None),
        (BrokenReference("docs/a.md", 3, "Panel", "Panel", "src/widgets/__init__.py", "removed"), WIDGETS_PAGE, None),
        (BrokenReference("docs/a.md", 3, "Panel", "Panel", "src/pkg/widget.py", "removed"), "Widgets\n=======\n", None),
        (BrokenReference("docs/a.md", 3, "Panel", "Panel", "src/pkg/widgets.py", "removed"), "# Intro\n", "a bare word"),
        (BrokenReference("docs/a.md", 3, "panel", "panel", "src/pkg/widgets.py", "removed"), WIDGETS_PAGE, "a bare word"),
        (BrokenReference("docs/a.md", 3, "Show", "Panel.Show", "src/pkg/widgets.py", "removed"), WIDGETS_PAGE,
         "a bare name of a member"),
        (BrokenReference("docs/a.md", 3, "Panel", "Panel", "src/pkg/__init__.py", "removed"), "# Intro\n", "a bare word"),
        (BrokenReference("docs/a.md", 3, "Panel", "Panel", "src/pkg/__init__.py", "removed"), "# Pkg\n", None),
        (BrokenReference("docs/a.md", 3, "Panel", "Panel", "src/pkg/_.py", "removed"), "# X\n", "a bare word"),
        # the repository's own generic file, as the page tells, and only when git saw it go
        (BrokenReference("docs/contributing.md", 3, "requirements.txt", "requirements.txt", "requirements.txt",
                         "removed"), "", None),
        (BrokenReference("docs/CONTRIBUTING.rst", 3, "requirements.txt", "requirements.txt", "requirements.txt",
                         "renamed"), "", None),
        (BrokenReference("docs/a.md", 3, "requirements.txt", "requirements.txt", "requirements.txt", "removed"),
         "# A\n\nInstall using this included\n`requirements.txt`.\n", None),
        (BrokenReference("docs/a.md", 3, "requirements.txt", "requirements.txt", "requirements.txt", "removed"),
         "# A\n\nPut yours in `requirements.txt`.\n\nThis included file.\n", "a file name every project has"),
        (BrokenReference("docs/contributing.md", 3, "requirements.txt", "requirements.txt", "requirements.txt",
                         "missing"), "", "a file name every project has"),
        # an example of a value the reader writes (griffe 2.0's extending.md, after its own scripts/griffe_exts.py went)
        (BrokenReference("docs/x.md", 3, "scripts/exts.py", "scripts/exts.py", "scripts/exts.py", "removed"),
         "# X\n\n- a script, for example `scripts/exts.py`\n  and `scripts/exts.py:MyExtension`\n",
         "an example of a value the reader writes"),
        (BrokenReference("docs/x.md", 3, "scripts/exts.py", "scripts/exts.py", "scripts/exts.py", "removed"),
         "# X\n\n- a script, for example `scripts/exts.py`\n", None),  # no `path:Name` beside it
        (BrokenReference("docs/x.md", 3, "scripts/exts.py", "scripts/exts.py", "scripts/exts.py", "removed"),
         "# X\n\n- the script `scripts/exts.py` and `scripts/exts.py:MyExtension`\n", None),  # no example said
        # a bare word the page calls a folder (griffe 2.1's `tests`, moved under packages/), only when git saw it go
        (BrokenReference("docs/a.md", 3, "tests", "tests", "tests", "renamed"),
         "# A\n\nOur test suite is located in the `tests` folder.\n", None),
        (BrokenReference("docs/a.md", 3, "tests", "tests", "tests", "removed"), "# A\n\nSee the\n`tests` directory.\n", None),
        (BrokenReference("docs/a.md", 3, "tests", "tests", "tests", "missing"),
         "# A\n\nOur test suite is located in the `tests` folder.\n", "a bare word"),
        (BrokenReference("docs/a.md", 3, "tests", "tests", "tests", "removed"), "# A\n\n- `tests`: About tests.\n",
         "a bare word"),  # a commit type
        # the reader's own project, or another repository's, on a missing path
        (BrokenReference("docs/t.md", 4, "src/your_app/__init__.py", "src/your_app/__init__.py",
                         "src/your_app/__init__.py", "missing"), TUTORIAL_PAGE, "a path in the reader's own project"),
        (BrokenReference("docs/t.md", 6, "src/pkg/main.py", "src/pkg/main.py", "src/pkg/main.py", "missing"),
         TUTORIAL_PAGE, None),
        (BrokenReference("docs/t.md", 8, "src/node-types.json", "src/node-types.json", "src/node-types.json",
                         "missing"), TUTORIAL_PAGE, "a path in the reader's own project"),
        # mdBook's guide: "creating a file named `src/404.md` in your book" (h43-eval's tuning half)
        (BrokenReference("guide/ci.md", 3, "src/404.md", "src/404.md", "src/404.md", "missing"),
         "# CI\n\nCreate a file named `src/404.md` in your book.\n", "a path in the reader's own project"),
        (BrokenReference("docs/t.md", 10, "src/<name>/x.py", "src/<name>/x.py", "src/<name>/x.py", "missing"),
         "# T\n", "a path in the reader's own project"),
        (BrokenReference("docs/t.md", 10, "src/{name}/y.py", "src/{name}/y.py", "src/{name}/y.py", "missing"),
         "# T\n", "a path in the reader's own project"),
        (BrokenReference("docs/t.md", 10, "src/my_app/y.py", "src/my_app/y.py", "src/my_app/y.py", "missing"),
         "# T\n", "a path in the reader's own project"),
        (BrokenReference("docs/t.md", 10, "src/myth/y.py", "src/myth/y.py", "src/myth/y.py", "missing"), "# T\n", None),
        (BrokenReference("docs/t.md", 4, "src/your_app/__init__.py", "src/your_app/__init__.py",
                         "src/your_app/__init__.py", "removed"), TUTORIAL_PAGE, None),  # git saw it go: certain
    ],
)  # fmt: skip
def test_what_the_page_says_around_a_mention(reference: BrokenReference, page_text: str, reason: str | None) -> None:
    found = uncertainty(reference, page_text)
    assert (found is None) == (reason is None), found
    if reason is not None:
        assert found is not None and found.startswith(reason)
    if reason is None and page_text:
        assert classified([reference], {reference.page: page_text})[0].attention


def test_classified_reads_each_page_its_own_text() -> None:
    here = BrokenReference("docs/a.md", 3, "Panel", "Panel", "src/pkg/widgets.py", "removed")
    there = here._replace(page="docs/b.md")
    judged = classified([here, there], {"docs/a.md": WIDGETS_PAGE, "docs/b.md": "# Intro\n"})
    assert [(r.page, r.attention) for r in judged] == [("docs/a.md", True), ("docs/b.md", False)]


@pytest.mark.parametrize(
    ("line", "paragraph"),
    [(1, "a\nb"), (2, "a\nb"), (4, "c\nd\ne"), (5, "c\nd\ne"), (6, "c\nd\ne"), (8, "f"), (99, "f"), (0, "a\nb"),
     (-5, "a\nb")],
)  # fmt: skip
def test_the_paragraph_around_a_line(line: int, paragraph: str) -> None:
    from bot.ground.certainty import _paragraph

    assert _paragraph("a\nb\n\nc\nd\ne\n\nf", line) == paragraph


def test_the_paragraph_reaches_a_bounded_number_of_lines_each_way() -> None:
    from bot.ground.certainty import PARAGRAPH_REACH, _paragraph

    page = "\n".join(f"l{n}" for n in range(100))
    assert _paragraph(page, 51).split("\n") == [f"l{n}" for n in range(50 - PARAGRAPH_REACH, 51 + PARAGRAPH_REACH)]
    assert _paragraph(page, 1).split("\n") == [f"l{n}" for n in range(2 * PARAGRAPH_REACH + 1)]
