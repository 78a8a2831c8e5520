"""References: the code spans and links of a page that name a repository path or a definition of the symbol index
(and only those: values, commands and prose in backticks name nothing), and what a change did to them: removed,
renamed (to what), moved to another file (alive), a file deleted. Definitions are read from real source through
`SymbolIndex.of_files`, never written by hand."""

from __future__ import annotations

import dataclasses

import pytest

from bot.ground.findings import missing_paths
from bot.ground.references import (
    ChangedCode,
    DeadReference,
    Mention,
    Reference,
    Target,
    dead_after,
    dead_paths,
    folders,
    headings,
    is_folder,
    link_paths,
    lives_on,
    lookup,
    mentions,
    page_body,
    path_of,
    references,
    renamed_path,
    resolve,
)
from bot.ground.symbols import SymbolIndex

QUEUE_PY = '''"""A small task queue."""

MAX_ITEMS = 100


class TaskQueue:
    """First in, first out."""

    def push(self, task):
        self.tasks.append(task)

    def drain(self):
        done, self.tasks = self.tasks, []
        return done


def helper(items):
    return sorted(items)
'''
WORKER_GO = """package workers

// Pool runs tasks.
type Pool struct {
	size int
}

// Drain waits for every task.
func (p *Pool) Drain() int {
	return p.size
}

func NewPool(size int) *Pool {
	return &Pool{size: size}
}
"""
LIB_RS = """pub mod queue {
    pub fn drain() -> usize {
        0
    }
}

pub enum Compression {
    None,
    Gzip,
}
"""
CLIENT_TS = """export class Client {
  retries = 3;

  async fetchAll(): Promise<void> {}
}

export enum Level {
  True = 1,
  Null = 2,
}
"""
CODE = {
    "src/taskq/queue.py": QUEUE_PY,
    "pkg/workers/pool.go": WORKER_GO,
    "crates/q/src/lib.rs": LIB_RS,
    "web/src/client.ts": CLIENT_TS,
}
PATHS = frozenset({*CODE, "src/taskq/__init__.py", "Makefile", "docs/setup.md", "openwiki/queue.md", "src/café.py"})
PAGE = "openwiki/queue.md"


def index_of(files: dict[str, str]) -> SymbolIndex:
    return SymbolIndex.of_files({path: text.encode() for path, text in files.items()})


INDEX = index_of(CODE)


def code(text: str) -> Mention:
    return Mention(text, "code", 1)


def link(text: str) -> Mention:
    return Mention(text, "link", 1)


def labels(mention: Mention, page: str = PAGE) -> list[str]:
    return [t.label for t in resolve(mention, page, PATHS, INDEX)]


# -- mentions ------------------------------------------------------------------------------------------------

PAGE_TEXT = """---
title: Queue `drain()`
sources: [`src/taskq/queue.py`]
---

# The `TaskQueue`

Tasks go in with `push()` and
come out with `TaskQueue.drain` (see [the code](../src/taskq/queue.py#L12-L14)).

```python
queue.drain()  # `drain()` in a fence is code, not a mention
```

    indented code: `helper()` is not a mention either

| call | returns |
|------|---------|
| `drain()` | the tasks |

[Setup](/docs/setup.md), [anchor](#the-taskqueue), <https://example.com/x.py>.
"""


def test_mentions_are_the_code_spans_and_links_of_the_body_with_their_lines() -> None:
    assert mentions(PAGE_TEXT) == [
        Mention("TaskQueue", "code", 6),  # a heading; the front matter (lines 1-4) is counted, not read
        Mention("push()", "code", 8),
        Mention("TaskQueue.drain", "code", 9),  # the paragraph's second line
        Mention("../src/taskq/queue.py#L12-L14", "link", 9),
        Mention("drain()", "code", 19),  # a table cell
        Mention("/docs/setup.md", "link", 21),
        Mention("#the-taskqueue", "link", 21),
        Mention("https://example.com/x.py", "link", 21),  # an autolink
    ]


def test_mentions_without_front_matter_and_of_nothing() -> None:
    assert mentions("`drain()`\n") == [Mention("drain()", "code", 1)]
    assert mentions("\ufeff---\ntitle: x\n---\n`drain()`\n") == [Mention("drain()", "code", 4)]
    assert mentions("") == []
    assert mentions("No code at all.\n") == []
    assert mentions("`" + "x" * 201 + "`\n") == []  # a long span is code, not a name
    assert mentions("`" + "x" * 200 + "`\n") == [Mention("x" * 200, "code", 1)]


REPEATED = """---
title: Repeated
---
`a` and `a`, then `b`
and `a` again, `a`
[x](a) `a`

Prose names drain and
then `drain`: the span's line, not the word's.

[a label over
two lines](src/q.py), [`q`
label](q.py) and `a code span
over two lines` `lines`

- `a`
  `a`

| `a` | `a` |
|-----|-----|
| `a` | [a](a) |
"""


def test_every_mention_stands_on_its_own_line_however_often_its_text_is_written() -> None:
    """The line of a span's own text, not of the first line of its paragraph that holds the same text."""
    assert [(m.text, m.line) for m in mentions(REPEATED)] == [
        ("a", 4), ("a", 4), ("b", 4),  # twice on one line
        ("a", 5), ("a", 5),  # the same text on the paragraph's next line
        ("a", 6), ("a", 6),  # a link's target, then a span
        ("drain", 9),  # the word `drain` stands on line 8 too, outside any span
        ("src/q.py", 12),  # a link's target, below its label's first line
        ("q.py", 13), ("q", 12),  # a link, then the span in its label, a line above its target
        ("a code span over two lines", 13),  # broken over two lines: where it starts
        ("lines", 14),
        ("a", 16), ("a", 17),  # a list item's lines
        ("a", 19), ("a", 19), ("a", 21), ("a", 21),  # table cells on their rows
    ]  # fmt: skip


def test_mentions_of_a_page_of_many_spans_in_one_paragraph_keep_their_lines() -> None:
    """Each span's line, in a paragraph of thousands of spans on hundreds of lines (read in one pass: the search
    of each span's text over its paragraph took minutes on such a page)."""
    rows = [" ".join(f"`s{(row * 7 + k) % 10}`" for k in range(8)) for row in range(500)]
    found = mentions("# Many\n\n" + "\n".join(rows) + "\n")
    assert len(found) == 4000
    assert [m.line for m in found] == [3 + row for row in range(500) for _ in range(8)]
    assert [m.text for m in found[8:16]] == [f"s{(7 + k) % 10}" for k in range(8)]


def test_the_body_and_the_headings_of_a_page() -> None:
    assert page_body(PAGE_TEXT).startswith("\n# The `TaskQueue`\n")
    assert page_body("no front matter\n") == "no front matter\n"
    assert page_body("---\nnot closed\n") == "---\nnot closed\n"
    page = "---\ntitle: x\n---\n# Queue\n\n## Draining `TaskQueue`\n\n```sh\n# a comment, not a heading\n```\n\nSetext\n===\n"
    assert headings(page) == ["Queue", "Draining `TaskQueue`", "Setext"]


# -- what a mention names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("src/taskq/queue.py", ["src/taskq/queue.py"]),  # from the repository's root
        ("./src/taskq/queue.py", ["src/taskq/queue.py"]),
        ("/src/taskq/queue.py", ["src/taskq/queue.py"]),
        ("src/taskq/queue.py:12", ["src/taskq/queue.py"]),  # with a location
        ("src/taskq/queue.py:12:5", ["src/taskq/queue.py"]),
        ("src/taskq/queue.py#L12", ["src/taskq/queue.py"]),
        ("src/taskq/queue.py#L12-L14", ["src/taskq/queue.py"]),
        ("src/taskq/", ["src/taskq"]),  # a folder
        ("src/taskq", ["src/taskq"]),
        ("Makefile", ["Makefile"]),  # a file without a grammar: its path only
        ("drain()", ["queue.drain (crates/q/src/lib.rs)", "TaskQueue.drain (src/taskq/queue.py)"]),  # index order
        ("drain", ["queue.drain (crates/q/src/lib.rs)", "TaskQueue.drain (src/taskq/queue.py)"]),
        ("drain(q, n)", ["queue.drain (crates/q/src/lib.rs)", "TaskQueue.drain (src/taskq/queue.py)"]),
        ("TaskQueue.drain", ["TaskQueue.drain (src/taskq/queue.py)"]),
        ("TaskQueue.drain()", ["TaskQueue.drain (src/taskq/queue.py)"]),
        ("TaskQueue#drain", ["TaskQueue.drain (src/taskq/queue.py)"]),
        ("queue::drain", ["queue.drain (crates/q/src/lib.rs)"]),  # a Rust module's function
        ("queue::drain()", ["queue.drain (crates/q/src/lib.rs)"]),
        ("MAX_ITEMS", ["MAX_ITEMS (src/taskq/queue.py)"]),
        ("Pool.Drain", ["Pool.Drain (pkg/workers/pool.go)"]),  # a Go method on *Pool
        ("Client.fetchAll()", ["Client.fetchAll (web/src/client.ts)"]),
        ("Compression::None", ["Compression.None (crates/q/src/lib.rs)"]),  # a qualified enum member
        ("queue.helper", ["helper (src/taskq/queue.py)"]),  # the file names the module
        ("queue.push", ["TaskQueue.push (src/taskq/queue.py)"]),  # ... an instance named like it: `queue.push(x)`
        ("taskq.queue.TaskQueue.drain", ["TaskQueue.drain (src/taskq/queue.py)"]),  # a Python module path
        ("taskq.queue.helper()", ["helper (src/taskq/queue.py)"]),
        ("workers.NewPool", ["NewPool (pkg/workers/pool.go)"]),  # a Go package is its folder
        ("workers.NewPool()", ["NewPool (pkg/workers/pool.go)"]),
        ("crate::queue::drain", ["queue.drain (crates/q/src/lib.rs)"]),  # Rust's path keywords
        ("crate::drain", ["queue.drain (crates/q/src/lib.rs)", "TaskQueue.drain (src/taskq/queue.py)"]),
        ("self::super::queue::drain()", ["queue.drain (crates/q/src/lib.rs)"]),
        ("app.state.queue.push", ["TaskQueue.push (src/taskq/queue.py)"]),  # the instance behind other names
        ("Client[]", ["Client (web/src/client.ts)"]),  # a type as a type is written
        ("Client<string>", ["Client (web/src/client.ts)"]),
        ("Pool[]", ["Pool (pkg/workers/pool.go)"]),
    ],
)
def test_code_spans_that_name_something(text: str, expected: list[str]) -> None:
    assert labels(code(text)) == expected


@pytest.mark.parametrize(
    ("page", "href", "expected"),
    [
        ("openwiki/queue.md", "../src/taskq/queue.py", ["src/taskq/queue.py"]),  # relative to the page
        ("openwiki/deep/queue.md", "../../src/taskq/queue.py#L12-L14", ["src/taskq/queue.py"]),
        ("openwiki/queue.md", "/src/taskq/queue.py", ["src/taskq/queue.py"]),  # relative to the repository
        ("openwiki/queue.md", "../src/taskq/queue.py?plain=1#L3", ["src/taskq/queue.py"]),
        ("openwiki/queue.md", "../src/taskq/", ["src/taskq"]),
        ("openwiki/index.md", "queue.md", ["openwiki/queue.md"]),  # another page: a path like any
        ("openwiki/queue.md", "../src/caf%C3%A9.py", ["src/café.py"]),  # as CommonMark encodes `café`
        ("openwiki/queue.md", "src/taskq/queue.py", []),  # relative to the page: openwiki/src/... is not there
        ("openwiki/queue.md", "https://github.com/o/r/blob/main/src/taskq/queue.py", []),
        ("openwiki/queue.md", "#the-taskqueue", []),
        ("openwiki/queue.md", "mailto:a@b.c", []),
        ("openwiki/queue.md", "../../outside.md", []),  # out of the repository
        ("openwiki/queue.md", "drain()", []),  # a link names a path, never a definition
    ],
)
def test_links_name_paths(page: str, href: str, expected: list[str]) -> None:
    assert labels(link(href), page) == expected


def test_a_link_with_a_non_ascii_path_resolves_as_written() -> None:
    [mention] = mentions("See [the file](../src/café.py).\n")
    assert mention.text == "../src/caf%C3%A9.py"  # CommonMark encodes it ...
    assert labels(mention) == ["src/café.py"]  # ... and the path is the file's


@pytest.mark.parametrize(
    "text",
    [
        "True",
        "False",
        "None",  # the repository's `Compression::None` is not what a page means by `None`
        "null",
        "nil",
        "true",
        "undefined",
        "42",
        "3.14",
        "1.0.104",
        "npm install",
        "pip install -e .",
        "--force",
        "-v",
        "make build",
        "x = 1",
        "http://localhost:8080/x",
        "https://example.com/src/taskq/queue.py",
        "~/.config/taskq.yml",
        ".",
        "..",
        "../../etc/passwd",
        "src/*.py",
        "src/taskq/gone.py",
        "'drain'",
        '"drain"',
        "TaskQueue.flush",  # no such member
        "Pool::drain",  # Go's method is Drain
        "drain ()",
        "Client[0]",  # an index, not a type
        "Client<",
        "",
        "   ",
    ],
)
def test_values_commands_and_prose_in_backticks_name_nothing(text: str) -> None:
    assert labels(code(text)) == []


def test_path_of() -> None:
    assert path_of(code("src/x.py:3"), PAGE) == "src/x.py"  # whether it exists or not
    assert path_of(code("npm run build"), PAGE) is None
    assert path_of(link("../a/./b/../c.md"), PAGE) == "a/c.md"
    assert path_of(link("?tab=1"), PAGE) is None
    assert path_of(link("../src/caf%C3%A9.py"), PAGE) == "src/café.py"


def test_lookup_and_is_folder() -> None:
    assert [d.qualified for d in lookup("drain", INDEX)] == ["queue.drain", "TaskQueue.drain"]  # index order
    assert lookup("nothing", INDEX) == [] and lookup("a.b.c", INDEX) == []
    for paths in (PATHS, set(PATHS), sorted(PATHS)):  # a frozenset's folders are kept; others are searched
        assert is_folder("src", paths) and is_folder("src/taskq/", paths) and is_folder("src/taskq//", paths)
        assert not is_folder("src/taskq/queue.py", paths) and not is_folder("sr", paths)
        assert not is_folder("", paths) and not is_folder("/", paths) and not is_folder("Makefile", paths)
    assert folders(frozenset({"a/b/c/d.py", "e"})) == {"a", "a/b", "a/b/c"}


def test_references_of_a_page() -> None:
    found = references(PAGE, PAGE_TEXT, PATHS, INDEX)
    assert [(r.mention.text, r.mention.line, [t.label for t in r.targets]) for r in found] == [
        ("TaskQueue", 6, ["TaskQueue (src/taskq/queue.py)"]),
        ("push()", 8, ["TaskQueue.push (src/taskq/queue.py)"]),
        ("TaskQueue.drain", 9, ["TaskQueue.drain (src/taskq/queue.py)"]),
        ("../src/taskq/queue.py#L12-L14", 9, ["src/taskq/queue.py"]),
        ("drain()", 19, ["queue.drain (crates/q/src/lib.rs)", "TaskQueue.drain (src/taskq/queue.py)"]),
        ("/docs/setup.md", 21, ["docs/setup.md"]),
    ]
    skipped = references(PAGE, PAGE_TEXT, PATHS, INDEX, skip=lambda path: path.startswith("crates/"))
    assert [t.label for t in skipped[4].targets] == ["TaskQueue.drain (src/taskq/queue.py)"]


# -- what a change did to them -------------------------------------------------------------------------------

WORK = "# Work\n\nCall `drain()` or `TaskQueue.drain`; `helper()` sorts; see `src/taskq/util.py` and `src/taskq/`.\n"


def change(
    before: dict[str, str], after: dict[str, str], unchanged: dict[str, str] | None = None
) -> tuple[list[Reference], ChangedCode, SymbolIndex]:
    """The page's references at the base and what the change did: the changed files' definitions on both sides,
    the unchanged files' (the same on both) apart, as the check's use case reads them."""
    unchanged = unchanged or {}
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    changed_before = index_of({p: t for p, t in before.items() if p in changed})
    changed_after = index_of({p: t for p, t in after.items() if p in changed})
    others = index_of(unchanged)
    paths_before, paths_after = {*before, *unchanged}, {*after, *unchanged}
    base = SymbolIndex([*changed_before.definitions, *others.definitions])
    found = references("openwiki/work.md", WORK, paths_before, base)
    return found, ChangedCode(paths_before, paths_after, changed, changed_before, changed_after), others


def dead(before: dict[str, str], after: dict[str, str], unchanged: dict[str, str] | None = None) -> list[str]:
    found, code_change, others = change(before, after, unchanged)
    result = dead_after(
        found,
        code_change,
        still_defined=lambda qualified: bool(lookup(qualified, others)),
        texts_before=lambda path: before[path].split("\n"),
        texts_after=lambda path: after[path].split("\n"),
    )
    return [describe(d) for d in result]


def describe(d: DeadReference) -> str:
    renamed = f" to {d.renamed_to.qualified} ({d.renamed_to.path}:{d.renamed_to.start})" if d.renamed_to else ""
    return f"`{d.mention.text}` {d.what}{renamed}: {d.target.label}{' (path)' if d.gone_path else ''}"


UTIL_PY = "def flatten(items):\n    return [x for xs in items for x in xs]\n"
BASE = {"src/taskq/queue.py": QUEUE_PY, "src/taskq/util.py": UTIL_PY}
DRAIN = "    def drain(self):\n        done, self.tasks = self.tasks, []\n        return done\n"
WITHOUT_DRAIN = QUEUE_PY.replace(DRAIN + "\n", "")
WITHOUT_HELPER = QUEUE_PY.split("\n\ndef helper", maxsplit=1)[0] + "\n"


def test_nothing_changed_nothing_dead() -> None:
    assert dead(BASE, BASE) == []


def test_an_edit_inside_a_definition_kills_nothing() -> None:
    edited = QUEUE_PY.replace("return done", "return list(done)")
    assert dead(BASE, {**BASE, "src/taskq/queue.py": edited}) == []


def test_a_removed_definition_is_dead() -> None:
    assert dead(BASE, {**BASE, "src/taskq/queue.py": WITHOUT_DRAIN}) == [
        "`drain()` removed: TaskQueue.drain (src/taskq/queue.py)",
        "`TaskQueue.drain` removed: TaskQueue.drain (src/taskq/queue.py)",
    ]


def test_a_renamed_definition_is_dead_and_named_with_its_new_name() -> None:
    renamed = QUEUE_PY.replace("def drain(self):", "def flush(self):")
    assert dead(BASE, {**BASE, "src/taskq/queue.py": renamed}) == [
        "`drain()` renamed to TaskQueue.flush (src/taskq/queue.py:12): TaskQueue.drain (src/taskq/queue.py)",
        "`TaskQueue.drain` renamed to TaskQueue.flush (src/taskq/queue.py:12): TaskQueue.drain (src/taskq/queue.py)",
    ]


def test_a_function_renamed_and_moved_to_another_file_is_renamed() -> None:
    moved = {
        "src/taskq/queue.py": WITHOUT_HELPER,
        "src/taskq/util.py": UTIL_PY + "\n\ndef sort_items(items):\n    return sorted(items)\n",
    }
    assert dead(BASE, moved) == ["`helper()` renamed to sort_items (src/taskq/util.py:5): helper (src/taskq/queue.py)"]


def test_a_definition_moved_to_another_file_is_alive() -> None:
    moved = {
        "src/taskq/queue.py": WITHOUT_HELPER,
        "src/taskq/util.py": UTIL_PY + "\n\ndef helper(items):\n    return sorted(items)\n",
    }
    assert dead(BASE, moved) == []
    new_file = {**moved, "src/taskq/util.py": UTIL_PY, "src/taskq/sorting.py": "def helper(items):\n    return 1\n"}
    assert dead(BASE, new_file) == []  # into a new file, and changed on the way: still defined


def test_a_definition_still_defined_in_a_file_the_change_left_alone_is_alive() -> None:
    elsewhere = {"src/taskq/legacy.py": "def helper(items):\n    return items\n"}
    assert dead(BASE, {**BASE, "src/taskq/queue.py": WITHOUT_HELPER}, unchanged=elsewhere) == []
    found, code_change, _ = change(BASE, {**BASE, "src/taskq/queue.py": WITHOUT_HELPER})
    assert code_change.changed == {"src/taskq/queue.py"}
    asked: list[str] = []
    dead_after(found, code_change, still_defined=lambda q: asked.append(q) or False)
    assert asked == ["helper"]  # only what the change removed is looked for elsewhere


def test_a_deleted_file_kills_the_path_and_what_it_defined() -> None:
    after = {"src/taskq/queue.py": QUEUE_PY}
    found, _, _ = change(BASE, after)
    assert dead(BASE, after) == ["`src/taskq/util.py` removed: src/taskq/util.py (path)"]
    assert "src/taskq" in {t.path for r in found for t in r.targets}  # the folder still has queue.py: alive
    gone_folder = dead({"src/taskq/util.py": UTIL_PY, "lib/q.py": QUEUE_PY}, {"lib/q.py": QUEUE_PY})
    assert gone_folder == [
        "`src/taskq/util.py` removed: src/taskq/util.py (path)",
        "`src/taskq/` removed: src/taskq (path)",
    ]


def test_a_reference_is_dead_only_when_every_target_is_gone() -> None:
    rust = {"crates/q/src/lib.rs": LIB_RS}
    # `drain()` also names the Rust module's function, which the change left alone: only `TaskQueue.drain` dies
    assert dead(BASE, {**BASE, "src/taskq/queue.py": WITHOUT_DRAIN}, unchanged=rust) == [
        "`TaskQueue.drain` removed: TaskQueue.drain (src/taskq/queue.py)"
    ]


def test_without_the_texts_a_rename_is_a_removal() -> None:
    renamed = {**BASE, "src/taskq/queue.py": QUEUE_PY.replace("def drain(self):", "def flush(self):")}
    found, code_change, _ = change(BASE, renamed)
    result = dead_after(found, code_change, still_defined=lambda q: False)
    assert [d.what for d in result] == ["removed", "removed"]


def test_two_new_definitions_with_the_removed_body_name_no_rename() -> None:
    twice = QUEUE_PY.replace(DRAIN, DRAIN.replace("drain", "flush") + "\n" + DRAIN.replace("drain", "empty"))
    assert dead(BASE, {**BASE, "src/taskq/queue.py": twice}) == [
        "`drain()` removed: TaskQueue.drain (src/taskq/queue.py)",
        "`TaskQueue.drain` removed: TaskQueue.drain (src/taskq/queue.py)",
    ]


def test_a_different_body_under_a_new_name_is_no_rename() -> None:
    other = QUEUE_PY.replace(DRAIN, "    def flush(self):\n        return []\n")
    assert dead(BASE, {**BASE, "src/taskq/queue.py": other}) == [
        "`drain()` removed: TaskQueue.drain (src/taskq/queue.py)",
        "`TaskQueue.drain` removed: TaskQueue.drain (src/taskq/queue.py)",
    ]


def test_dead_paths_on_a_full_sweep() -> None:
    at_base = references("openwiki/work.md", WORK, set(BASE), index_of(BASE))
    assert dead_paths(at_base, set(BASE)) == []
    now = {"src/taskq/queue.py"}
    assert [(d.mention.text, d.target.path, d.gone_path, d.what) for d in dead_paths(at_base, now)] == [
        ("src/taskq/util.py", "src/taskq/util.py", True, "removed")
    ]  # definitions are not paths: `helper()` is not judged here
    assert [d.target.path for d in dead_paths(at_base, set())] == ["src/taskq/util.py", "src/taskq"]


def test_target_labels() -> None:
    [definition] = INDEX.qualified("Pool.Drain")
    assert Target("pkg/workers/pool.go", definition).label == "Pool.Drain (pkg/workers/pool.go)"
    assert Target("Makefile").label == "Makefile"


# -- links as a docs site resolves them ----------------------------------------------------------------------

SITE = {
    "docs/async.md", "docs/index.md", "docs/advanced/transports.md", "docs/advanced/index.md",
    "docs/guide/README.md", "docs/api.rst", "src/q.py",
}  # fmt: skip


@pytest.mark.parametrize(
    ("page", "href", "expected"),
    [
        # httpx's docs/async.md: `../advanced/transports#asgitransport` works on the built site (served at /async/)
        ("docs/async.md", "../advanced/transports#asgitransport", "docs/advanced/transports.md"),
        ("docs/async.md", "advanced/transports.md", "docs/advanced/transports.md"),  # as the source files sit
        ("docs/async.md", "advanced/", "docs/advanced"),  # a folder of the repository
        ("docs/guide/README.md", "../advanced/transports/", "docs/advanced/transports.md"),  # README: at its folder
        ("docs/index.md", "advanced/transports/", "docs/advanced/transports.md"),  # an index is served at its folder
        ("docs/async.md", "api.html", "docs/api.rst"),  # a built page's address names its source
        ("docs/async.md", "/advanced/transports/", "docs/advanced/transports.md"),  # the site's root
        ("docs/async.md", "/src/q.py", "src/q.py"),  # ... or the repository's
    ],
)
def test_links_resolve_as_the_docs_site_resolves_them(page: str, href: str, expected: str) -> None:
    mention = Mention(href, "link", 1)
    assert [t.path for t in resolve(mention, page, SITE, SymbolIndex([]), site_root="docs")] == [expected]
    assert expected in link_paths(mention, page, "docs")


def test_every_reading_of_a_link_best_first() -> None:
    """As written, then the page a docs site builds from it, then a folder's own page: relative to the page's
    folder, then to the page's URL on the site."""
    assert link_paths(Mention("../guide/", "link", 1), "docs/a/b.md", "docs") == [
        "docs/guide",
        *(f"docs/guide{s}" for s in (".md", ".mdx", ".rst", ".markdown")),
        *(f"docs/guide/{p}" for p in ("index.md", "README.md", "index.mdx", "index.rst", "README.rst")),
        "docs/a/guide",
        *(f"docs/a/guide{s}" for s in (".md", ".mdx", ".rst", ".markdown")),
        *(f"docs/a/guide/{p}" for p in ("index.md", "README.md", "index.mdx", "index.rst", "README.rst")),
    ]
    assert link_paths(Mention("api.html#x", "link", 1), "docs/index.md", "docs") == [
        "docs/api.html", "docs/api.md", "docs/api.mdx", "docs/api.rst", "docs/api.markdown",
    ]  # fmt: skip
    assert link_paths(Mention("/q.py", "link", 1), "docs/a.md") == ["q.py"]
    assert link_paths(Mention("/q.py", "link", 1), "docs/a.md", "docs") == ["q.py", "docs/q.py"]
    assert link_paths(Mention("q.py", "link", 1), "other/a.md", "docs") == ["other/q.py"]  # not on the site


def test_a_path_keyword_alone_is_a_name() -> None:
    """Rust's `crate::`, `self::` and `super::` name no module: left out, but never the name itself."""
    index = index_of({"src/k.py": "def self():\n    return 1\n"})
    assert [d.qualified for d in lookup("crate.self", index)] == ["self"]
    assert [d.qualified for d in lookup("super.crate.self", index)] == ["self"]


def test_without_a_site_a_link_is_read_relative_to_its_page_only() -> None:
    mention = Mention("../advanced/transports", "link", 1)
    assert resolve(mention, "docs/async.md", SITE, SymbolIndex([])) == ()
    assert link_paths(Mention("https://x.org/a", "link", 1), "docs/a.md", "docs") == []
    assert link_paths(Mention("../../../etc/passwd", "link", 1), "docs/a.md", "docs") == []


def test_a_missing_link_is_missing_only_when_no_reading_exists() -> None:
    text = "See [t](../advanced/transports#x), [gone](../advanced/nothing) and [`x`](#anchor).\n"
    found = missing_paths("docs/async.md", mentions(text), SITE, site_root="docs")
    assert [(r.text, r.target, r.kind) for r in found] == [("../advanced/nothing", "advanced/nothing", "link")]


# -- renames git sees, and what lives on --------------------------------------------------------------------


def dead_with_renames(before: dict[str, str], after: dict[str, str], renames: dict[str, str]) -> list[DeadReference]:
    found, code_change, others = change(before, after)
    code_change = dataclasses.replace(code_change, renames=renames)
    return dead_after(found, code_change, still_defined=lambda q: bool(lookup(q, others)))


def test_a_file_git_saw_renamed_is_named_with_its_new_path() -> None:
    after = {"src/taskq/queue.py": QUEUE_PY, "src/taskq/helpers.py": UTIL_PY}
    result = dead_with_renames(BASE, after, {"src/taskq/util.py": "src/taskq/helpers.py"})
    assert [(d.mention.text, d.what, d.moved_to) for d in result if d.gone_path] == [
        ("src/taskq/util.py", "renamed", "src/taskq/helpers.py")
    ]
    assert [(d.mention.text, d.what) for d in dead_with_renames(BASE, after, {})] == [("src/taskq/util.py", "removed")]


def test_a_folder_whose_every_file_moved_to_one_folder_is_renamed_to_it() -> None:
    code = ChangedCode(
        {"src/taskq/a.py", "src/taskq/b/c.py", "README.md"}, set(), set(), SymbolIndex([]), SymbolIndex([]),
        {"src/taskq/a.py": "lib/tq/a.py", "src/taskq/b/c.py": "lib/tq/b/c.py"},
    )  # fmt: skip
    assert renamed_path("src/taskq", code) == "lib/tq"
    assert renamed_path("src/taskq/a.py", code) == "lib/tq/a.py"
    scattered = dataclasses.replace(code, renames={"src/taskq/a.py": "lib/a.py", "src/taskq/b/c.py": "x/b/c.py"})
    assert renamed_path("src/taskq", scattered) is None
    partly = dataclasses.replace(code, renames={"src/taskq/a.py": "lib/tq/a.py"})  # b/c.py deleted, not moved
    assert renamed_path("src/taskq", partly) is None
    assert renamed_path("README.md", code) is None


def test_a_one_line_definition_is_never_called_renamed() -> None:
    """`errorName: string;` removed and another field of the same type added is no rename (openwiki v0.3.2)."""
    before = {"src/e.ts": "export interface E {\n  errorName: string;\n  code: number;\n}\n"}
    after = {"src/e.ts": "export interface E {\n  detail: string;\n  code: number;\n}\n"}
    found = references("openwiki/e.md", "See `E.errorName`.\n", set(before), index_of(before))
    code = ChangedCode(set(before), set(after), {"src/e.ts"}, index_of(before), index_of(after))
    [gone] = dead_after(
        found, code, lambda q: False, lambda p: before[p].split("\n"), lambda p: after[p].split("\n")
    )
    assert gone.what == "removed" and gone.renamed_to is None


CLIENT_BEFORE = """class Client:
    def build_request(self, method, url):
        request = Request(method, url)
        return request
"""
CLIENT_AFTER = """class AsyncClient:
    def build_request(self, method, url):
        request = Request(method, url)
        return request


Client = AsyncClient
"""


def test_a_method_of_a_class_kept_as_an_alias_lives_on() -> None:
    """httpx 0.10: `Client` renamed `AsyncClient`, `Client = AsyncClient` kept: `Client.build_request()` works."""
    before, after = {"httpx/client.py": CLIENT_BEFORE}, {"httpx/client.py": CLIENT_AFTER}
    found = references("docs/a.md", "Use `Client.build_request()`.\n", set(before), index_of(before))
    code = ChangedCode(set(before), set(after), set(before), index_of(before), index_of(after))
    [gone] = dead_after(found, code, lambda q: False, lambda p: before[p].split("\n"), lambda p: after[p].split("\n"))
    assert gone.renamed_to is not None and gone.renamed_to.qualified == "AsyncClient.build_request"
    assert lives_on(gone, index_of(after), lambda d: after[d.path].split("\n")[d.start - 1])
    without_alias = {"httpx/client.py": CLIENT_AFTER.replace("Client = AsyncClient\n", "")}
    assert not lives_on(gone, index_of(without_alias), lambda d: without_alias[d.path].split("\n")[d.start - 1])


def test_a_method_moved_up_into_a_base_class_lives_on() -> None:
    """httpx 0.11: `AsyncClient.stream` moved into `BaseClient`, which `AsyncClient` derives from."""
    method = "    def stream(self, method, url):\n        return StreamContext(self, method, url)\n"
    before = {"httpx/c.py": "class BaseClient:\n    pass\n\n\nclass AsyncClient(BaseClient):\n" + method}
    after = {"httpx/c.py": "class BaseClient:\n" + method + "\n\nclass AsyncClient(BaseClient):\n    pass\n"}
    found = references("docs/a.md", "Call `AsyncClient.stream(method, url)`.\n", set(before), index_of(before))
    code = ChangedCode(set(before), set(after), set(before), index_of(before), index_of(after))
    [gone] = dead_after(found, code, lambda q: False, lambda p: before[p].split("\n"), lambda p: after[p].split("\n"))
    header = lambda d: after[d.path].split("\n")[d.start - 1]  # noqa: E731
    assert lives_on(gone, index_of(after), header)
    unrelated = {"httpx/c.py": after["httpx/c.py"].replace("class AsyncClient(BaseClient):", "class AsyncClient:")}
    assert not lives_on(gone, index_of(unrelated), lambda d: unrelated[d.path].split("\n")[d.start - 1])


@pytest.mark.parametrize("text", ["bytes(v)", "str", "Promise", "len()", "print"])
def test_the_languages_own_names_name_nothing_of_the_repository(text: str) -> None:
    """pydantic: `bytes(v)` is Python's, not `GenerateJsonSchema.ValidationsMapping.bytes`."""
    index = index_of({"src/m.py": "class M:\n    def bytes(self):\n        return b''\n\n\ndef str():\n    pass\n"})
    assert resolve(Mention(text, "code", 1), "docs/a.md", set(), index) == ()
    assert resolve(Mention("M.bytes", "code", 1), "docs/a.md", set(), index) != ()  # qualified: the repository's


def test_a_method_the_class_now_sets_on_its_instances_lives_on() -> None:
    """rich (June 2020): `Progress.print` and `.log` became `self.print = self.console.print` in `__init__`."""
    before = {"rich/progress.py": "class Progress:\n    def print(self, *objects):\n        self.console.print(*objects)\n"}
    after = {"rich/progress.py": "class Progress:\n    def __init__(self, console):\n        self.print = console.print\n"}
    found = references("docs/p.rst", "Use `Progress.print`.\n", set(before), index_of(before))
    code = ChangedCode(set(before), set(after), set(before), index_of(before), index_of(after))
    [gone] = dead_after(found, code, lambda q: False)
    whole = lambda d: "\n".join(after[d.path].split("\n")[d.start - 1 : d.end])  # noqa: E731
    assert lives_on(gone, index_of(after), whole)
    compared = {"rich/progress.py": after["rich/progress.py"].replace("self.print = ", "printer = ")}
    assert not lives_on(gone, index_of(compared), lambda d: compared[d.path])
    equals = {"rich/progress.py": after["rich/progress.py"].replace("self.print = ", "self.print == ")}
    assert not lives_on(gone, index_of(equals), lambda d: equals[d.path])  # a comparison sets nothing


# -- what makes a body the same, and which target a dead reference reports ----------------------------------


def renamed_to(before: str, after: str) -> list[str]:
    """What `dead` says of `drain()` and `TaskQueue.drain` when queue.py goes from `before` to `after`."""
    return dead({**BASE, "src/taskq/queue.py": before}, {**BASE, "src/taskq/queue.py": after})


def test_a_new_name_with_other_parameters_is_no_rename() -> None:
    """The signature is part of the body, but for the name."""
    other = QUEUE_PY.replace("def drain(self):", "def flush(self, limit):")
    assert renamed_to(QUEUE_PY, other)[0] == "`drain()` removed: TaskQueue.drain (src/taskq/queue.py)"


def test_a_new_name_whose_last_line_changed_is_no_rename() -> None:
    other = QUEUE_PY.replace("def drain(self):", "def flush(self):").replace("return done", "return list(done)")
    assert renamed_to(QUEUE_PY, other)[0] == "`drain()` removed: TaskQueue.drain (src/taskq/queue.py)"


def test_what_follows_a_renamed_definition_does_not_count() -> None:
    extra = "    def extra(self):\n        return 1\n"
    other = QUEUE_PY.replace(DRAIN, DRAIN.replace("drain", "flush") + extra)  # no blank line between them
    assert renamed_to(QUEUE_PY, other)[0] == (
        "`drain()` renamed to TaskQueue.flush (src/taskq/queue.py:12): TaskQueue.drain (src/taskq/queue.py)"
    )


def test_a_renamed_method_calling_its_old_name_elsewhere_is_renamed() -> None:
    """Only the definition's own name is set aside: a call of the old name on another object is code like any."""
    delegating = "    def drain(self):\n        done = self.inner.drain()\n        return done\n"
    before = QUEUE_PY.replace(DRAIN, delegating)
    after = QUEUE_PY.replace(DRAIN, delegating.replace("def drain", "def flush"))
    assert renamed_to(before, after)[0] == (
        "`drain()` renamed to TaskQueue.flush (src/taskq/queue.py:12): TaskQueue.drain (src/taskq/queue.py)"
    )


def test_a_dead_reference_reports_its_first_target() -> None:
    rust_without = LIB_RS.replace("    pub fn drain() -> usize {\n        0\n    }\n", "")
    before = {"src/taskq/queue.py": QUEUE_PY, "crates/q/src/lib.rs": LIB_RS}
    after = {"src/taskq/queue.py": WITHOUT_DRAIN, "crates/q/src/lib.rs": rust_without}
    found, _, _ = change(before, after)
    [drain] = [r for r in found if r.mention.text == "drain()"]
    assert [t.label for t in drain.targets] == ["queue.drain (crates/q/src/lib.rs)", "TaskQueue.drain (src/taskq/queue.py)"]
    assert dead(before, after)[0] == "`drain()` removed: queue.drain (crates/q/src/lib.rs)"


def test_a_reference_is_alive_when_a_target_is_still_defined_where_the_mention_does_not_reach() -> None:
    """`queue.push` names the `push` of each file named queue.py; both went, but `B.push` is still defined in a file
    the change left alone (which the mention, by its file's name, does not name): the reference is alive."""
    before = {
        "src/a/queue.py": "class A:\n    def push(self, x):\n        return x\n",
        "src/b/queue.py": "class B:\n    def push(self, x):\n        return [x]\n",
    }
    after = {"src/a/queue.py": "class A:\n    pass\n", "src/b/queue.py": "class B:\n    pass\n"}
    elsewhere = index_of({"src/c/tasks.py": "class B:\n    def push(self, x):\n        return [x]\n"})
    found = references("openwiki/q.md", "Call `queue.push`.\n", set(before), index_of(before))
    assert [t.label for t in found[0].targets] == ["A.push (src/a/queue.py)", "B.push (src/b/queue.py)"]
    code = ChangedCode(set(before), set(after), set(before), index_of(before), index_of(after))
    assert dead_after(found, code, still_defined=lambda q: bool(lookup(q, elsewhere))) == []
    [gone] = dead_after(found, code, still_defined=lambda q: False)
    assert gone.target.label == "A.push (src/a/queue.py)"


def test_what_lives_on_is_a_member_of_something_still_there() -> None:
    """A path, or a top-level definition, has no holder to live on in."""
    found = references("openwiki/q.md", "See `src/taskq/util.py` and `helper()`.\n", set(BASE), index_of(BASE))
    after = {"src/taskq/queue.py": WITHOUT_HELPER}
    code = ChangedCode(set(BASE), set(after), set(BASE), index_of(BASE), index_of(after))
    path, helper = dead_after(found, code, lambda q: False)
    assert path.target.definition is None and helper.target.label == "helper (src/taskq/queue.py)"
    everything = index_of({"x.py": "helper = print\nclass X:\n    def __init__(self):\n        self.helper = 1\n"})
    assert lives_on(path, everything, lambda d: "") is False
    assert lives_on(helper, everything, lambda d: "") is False


def test_a_nested_member_lives_on_in_its_own_class_only() -> None:
    """`Outer.Inner.run` went: `Outer` setting `self.run` does not keep it (its class is `Outer.Inner`)."""
    before = {"m.py": "class Outer:\n    class Inner:\n        def run(self):\n            return 1\n"}
    after = {"m.py": "class Outer:\n    def __init__(self):\n        self.run = print\n\n    class Inner:\n        pass\n"}
    found = references("docs/a.md", "Call `Outer.Inner.run`.\n", set(before), index_of(before))
    code = ChangedCode(set(before), set(after), set(before), index_of(before), index_of(after))
    [gone] = dead_after(found, code, lambda q: False)
    whole = lambda d: "\n".join(after[d.path].split("\n")[d.start - 1 : d.end])  # noqa: E731
    assert lives_on(gone, index_of(after), whole) is False
    kept = {"m.py": after["m.py"].replace("        pass\n", "        def __init__(self):\n            self.run = print\n")}
    assert lives_on(gone, index_of(kept), lambda d: "\n".join(kept[d.path].split("\n")[d.start - 1 : d.end]))


STREAM = "    def stream(self, method, url):\n        return StreamContext(self, method, url)\n"


def moved_up(after: str) -> bool:
    """Whether `AsyncClient.stream` lives on once the change leaves `after` (the method moved into a base)."""
    before = {"c.py": "class BaseClient:\n    pass\n\n\nclass AsyncClient(BaseClient):\n" + STREAM}
    code_after = {"c.py": after}
    found = references("docs/a.md", "Call `AsyncClient.stream`.\n", set(before), index_of(before))
    code = ChangedCode(set(before), set(after), set(before), index_of(before), index_of(code_after))
    [gone] = dead_after(found, code, lambda q: False, lambda p: before[p].split("\n"), lambda p: after.split("\n"))
    assert gone.renamed_to is not None and gone.renamed_to.name == "stream"
    return lives_on(gone, index_of(code_after), lambda d: "\n".join(after.split("\n")[d.start - 1 : d.end]))


def test_a_method_moved_up_lives_on_when_its_class_names_the_base_in_its_first_three_lines() -> None:
    base = "class BaseClient:\n" + STREAM + "\n\n"
    assert moved_up(base + "class AsyncClient(\n    Mixin,\n    BaseClient,\n):\n    pass\n")  # third line
    assert moved_up(base + "class AsyncClient:\n    '''A client.'''\n\n    other = BaseClient\n") is False  # fourth: body
    nested = "class Outer:\n    class BaseClient:\n" + STREAM.replace("    ", "        ") + "\n\n"
    assert moved_up(nested + "class AsyncClient(BaseClient):\n    pass\n")  # `Outer.BaseClient.stream`: its class
    assert moved_up(nested + "class AsyncClient(Outer):\n    pass\n") is False
