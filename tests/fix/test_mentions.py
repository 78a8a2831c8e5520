"""Rewriting a page's mention of what a change renamed, without a model: each form a page writes a path or a
name in, kept as it was written."""

from __future__ import annotations

from urllib.parse import unquote

import pytest

from bot.claims.results import BrokenReference
from bot.fix.mentions import (
    link_destination,
    markdown_code_span,
    new_mention,
    plan_rewrites,
    rewrite_mentions,
    rst_argument,
    rst_interpreted,
    rst_literal,
)


def renamed_path(text: str, old: str, new: str, kind: str = "code", page: str = "docs/guide.md") -> BrokenReference:
    return BrokenReference(page, 3, text, old, old, "renamed", new, (new, 1), kind=kind)


def renamed_name(text: str, old: str, new: str, path: str = "src/q.py", at: str = "src/q.py") -> BrokenReference:
    return BrokenReference("docs/guide.md", 3, text, old, path, "renamed", new, (at, 4))


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        (renamed_path("src/util.py", "src/util.py", "src/helpers.py"), "src/helpers.py"),
        (renamed_path("./src/util.py", "src/util.py", "src/helpers.py"), "./src/helpers.py"),
        (renamed_path("/src/util.py", "src/util.py", "src/helpers.py"), "/src/helpers.py"),
        (renamed_path("src/util.py:12", "src/util.py", "src/helpers.py"), "src/helpers.py:12"),
        (renamed_path("src/taskq/", "src/taskq", "lib/tq"), "lib/tq/"),
        (renamed_path("../src/util.py#L1-L3", "src/util.py", "src/a/helpers.py", "link"), "../src/a/helpers.py#L1-L3"),
        (renamed_path("/src/util.py", "src/util.py", "src/helpers.py", "link"), "/src/helpers.py"),
        (renamed_path("old.md#x", "docs/old.md", "docs/new/old.md", "link"), "new/old.md#x"),
        (renamed_path("../src/caf%C3%A9.py", "src/café.py", "src/thé.py", "link"), "../src/th%C3%A9.py"),
        (renamed_name("drain()", "TaskQueue.drain", "TaskQueue.flush"), "flush()"),
        (renamed_name("TaskQueue.drain", "TaskQueue.drain", "TaskQueue.flush"), "TaskQueue.flush"),
        (renamed_name("Queue#drain", "Queue.drain", "Queue.flush"), "Queue#flush"),
        (renamed_name("queue::drain(q)", "queue.drain", "queue.flush"), "queue::flush(q)"),
        (renamed_name("Client.build_request()", "Client.build_request", "AsyncClient.build_request"),
         "AsyncClient.build_request()"),
        (renamed_name("util.flatten()", "flatten", "flatten_all", "src/util.py", "src/helpers.py"),
         "helpers.flatten_all()"),  # the module written before it follows its file
        (renamed_name("taskq.queue.TaskQueue.drain", "TaskQueue.drain", "TaskQueue.flush"),
         "taskq.queue.TaskQueue.flush"),
    ],
)  # fmt: skip
def test_the_mention_as_it_reads_after_the_rename(ref: BrokenReference, expected: str) -> None:
    assert new_mention(ref) == expected


def test_what_was_not_renamed_or_does_not_show_it_gets_nothing() -> None:
    removed = BrokenReference("docs/a.md", 3, "drain()", "TaskQueue.drain", "src/q.py", "removed")
    assert new_mention(removed) is None
    assert new_mention(renamed_name("push()", "TaskQueue.drain", "TaskQueue.flush")) is None
    assert new_mention(renamed_path("src/other.py", "src/util.py", "src/helpers.py")) is None


def test_the_mention_is_rewritten_on_its_line_only_as_a_span_or_a_link() -> None:
    page = "# Guide\n\nSee src/util.py.\nThe helpers: `src/util.py` and [src](../src/util.py), `src/util.py` again.\n"
    code = renamed_path("src/util.py", "src/util.py", "src/helpers.py")._replace(line=4)
    link = renamed_path("../src/util.py", "src/util.py", "src/helpers.py", "link")._replace(line=4)
    text, done = rewrite_mentions(page, [code, link])
    assert text == (
        "# Guide\n\nSee src/util.py.\n"  # prose, not a mention: left
        "The helpers: `src/helpers.py` and [src](../src/helpers.py), `src/helpers.py` again.\n"
    )
    assert [r.new_text for r in done] == ["src/helpers.py", "../src/helpers.py"]
    elsewhere = code._replace(line=3)  # not on the line the check saw it: left, never guessed
    assert rewrite_mentions(page, [elsewhere]) == (page, [])


def test_rst_spans_and_roles() -> None:
    page = "Call ``drain()`` or :meth:`TaskQueue.drain`.\n"
    refs = [
        renamed_name("drain()", "TaskQueue.drain", "TaskQueue.flush")._replace(line=1),
        renamed_name("TaskQueue.drain", "TaskQueue.drain", "TaskQueue.flush")._replace(line=1),
    ]
    assert rewrite_mentions(page, refs)[0] == "Call ``flush()`` or :meth:`TaskQueue.flush`.\n"


def test_the_plan_says_what_became_of_every_failing_reference() -> None:
    page = "x\n\nUse `src/util.py`; `drain()` is gone; see [y](nowhere.md).\n"
    renamed = renamed_path("src/util.py", "src/util.py", "src/helpers.py")
    removed = BrokenReference("docs/guide.md", 3, "drain()", "TaskQueue.drain", "src/q.py", "removed")
    missing = BrokenReference(
        "docs/guide.md", 3, "nowhere.md", "docs/nowhere.md", "docs/nowhere.md", "missing", kind="link"
    )
    note = removed._replace(text="zstd", attention=False, note="a bare word")
    pages, outcomes = plan_rewrites([renamed, removed, missing, note], {"docs/guide.md": page})
    assert pages == {"docs/guide.md": page.replace("`src/util.py`", "`src/helpers.py`")}
    assert [(o.reference.text, o.rewritten, o.reason.split(":")[0]) for o in outcomes] == [
        ("src/util.py", True, "renamed by the change"),
        ("drain()", False, "removed"),
        ("nowhere.md", False, "no such path"),
    ]  # a note is no failure: nothing to do about it
    _, unread = plan_rewrites([renamed], {})  # a page that could not be read as text
    assert [(o.rewritten, o.reason) for o in unread] == [(False, "renamed, but not found as written on its line")]


# -- a new name written for where it stands: it reads back as itself and as nothing else ----------------------------

HOSTILE = "src/x) [click me](https:/evil.example) (.py"
NAMES = [HOSTILE, "src/a`b.py", "src/``x.py", "src/x`", "`lead.py", "src/a b#c?d%20e&amp;f|g<h>{i}.py", "src/é.py"]
MARKDOWN = "# Guide\n\nIn `src/util.py` ([source](../src/util.py)); see [the docs][util].\n\n[util]: ../src/util.py\n"


def _markdown(text: str) -> tuple[list[str], list[str]]:
    """The page's link destinations and code spans as markdown-it (CommonMark, with GFM tables) reads them."""
    from markdown_it import MarkdownIt

    inline = [t for t in MarkdownIt("commonmark").enable("table").parse(text) if t.type == "inline"]
    children = [c for t in inline for c in t.children or []]
    return [str(c.attrs["href"]) for c in children if c.type == "link_open"], [
        c.content for c in children if c.type == "code_inline"
    ]


@pytest.mark.parametrize("new", NAMES)
def test_a_renamed_path_is_written_into_a_markdown_page_escaped_for_where_it_stands(new: str) -> None:
    """The review's rename to ``src/x) [click me](https:/evil.example) (.py`` made a new link on the page; a
    backtick broke the code span. Read back by markdown-it, the page has exactly the links and spans intended."""
    refs = [
        renamed_path("src/util.py", "src/util.py", new),
        renamed_path("../src/util.py", "src/util.py", new, "link"),
        renamed_path("../src/util.py", "src/util.py", new, "link")._replace(line=5),
    ]
    pages, outcomes = plan_rewrites(refs, {"docs/guide.md": MARKDOWN})
    assert [o.rewritten for o in outcomes] == [True, True, True]
    links, codes = _markdown(pages["docs/guide.md"])
    assert codes == [new]
    assert [unquote(href) for href in links] == ["../" + new, "../" + new]
    assert unquote(links[0]) == unquote(outcomes[1].new_text or "")  # the report shows what the page's reader reads
    assert pages["docs/guide.md"].count("\n") == MARKDOWN.count("\n")  # nothing but the mentions changed
    assert pages["docs/guide.md"].startswith("# Guide\n\nIn ") and pages["docs/guide.md"].endswith("\n")


def test_the_hostile_rename_is_one_link_and_one_code_span() -> None:
    page = "See [source](../src/util.py) and `src/util.py`.\n"
    refs = [
        renamed_path("../src/util.py", "src/util.py", HOSTILE, "link")._replace(line=1),
        renamed_path("src/util.py", "src/util.py", HOSTILE)._replace(line=1),
    ]
    text, _ = rewrite_mentions(page, refs)
    assert text == (
        "See [source](../src/x%29%20%5Bclick%20me%5D%28https:/evil.example%29%20%28.py) and "
        "`src/x) [click me](https:/evil.example) (.py`.\n"
    )
    assert _markdown(text) == (["../src/x%29%20%5Bclick%20me%5D%28https:/evil.example%29%20%28.py"], [HOSTILE])


@pytest.mark.parametrize(
    ("text", "fence", "pad", "span"),
    [
        ("src/a.py", 1, False, "`src/a.py`"),
        ("src/a.py", 2, False, "``src/a.py``"),  # as the page fenced it
        ("src/a`b.py", 1, False, "``src/a`b.py``"),
        ("src/a`b.py", 2, False, "``src/a`b.py``"),  # a run of one cannot close a fence of two
        ("src/a``b.py", 2, False, "```src/a``b.py```"),
        ("src/``x.py", 1, False, "`src/``x.py`"),  # a run of two cannot close a fence of one
        ("x`", 1, False, "`` x` ``"),
        ("`x", 1, False, "`` `x ``"),
        (" x ", 1, False, "`  x  `"),  # the reader strips one space from each end
        ("   ", 1, False, "`   `"),  # only spaces: not stripped
        ("x", 1, True, "` x `"),
    ],
)
def test_a_markdown_code_span_reads_back_as_its_text(text: str, fence: int, pad: bool, span: str) -> None:
    assert markdown_code_span(text, fence, pad) == span
    assert _markdown(f"a {span} b\n")[1] == [text]


def test_what_no_inline_context_can_hold_is_refused() -> None:
    for writer in (markdown_code_span, rst_literal, rst_interpreted, rst_argument):
        assert writer("src/a\nb.py") is None and writer("") is None
    assert markdown_code_span("a\rb") is None and markdown_code_span("a\x00b") is None
    assert rst_literal("src/a`b.py") is None and rst_literal(" a") is None
    assert rst_argument("a  b") is None and rst_argument("a b") == "a b"
    assert link_destination("src/\udcff.py") is None  # a lone surrogate cannot be encoded


@pytest.mark.parametrize(
    ("path", "encoded", "destination"),
    [
        ("src/util.py", False, "src/util.py"),
        ("src/é.py", False, "src/é.py"),
        ("src/é.py", True, "src/%C3%A9.py"),
        ("a b(c)<d>[e]\\f`g#h?i%j&k{l}m|n\"o'p", False,
         "a%20b%28c%29%3Cd%3E%5Be%5D%5Cf%60g%23h%3Fi%25j%26k%7Bl%7Dm%7Cn%22o%27p"),
        ("a\tb\u00a0c\u2028d", False, "a%09b%C2%A0c%E2%80%A8d"),
        ("a (b).py", True, "a%20%28b%29.py"),
    ],
)  # fmt: skip
def test_a_link_destination_encodes_what_would_change_it(path: str, encoded: bool, destination: str) -> None:
    assert link_destination(path, encoded=encoded) == destination
    assert unquote(destination) == path


def test_a_table_row_is_not_split_by_a_pipe_in_a_new_name() -> None:
    page = "| file | what |\n|---|---|\n| `src/util.py` | helpers |\n"
    ref = renamed_path("src/util.py", "src/util.py", "src/a|b.py")._replace(line=3)
    pages, [outcome] = plan_rewrites([ref], {"docs/guide.md": page})
    assert pages == {} and not outcome.rewritten
    assert outcome.reason == "renamed to src/a|b.py, whose `|` would split the table row it stands in"
    link = renamed_path("x.py", "docs/x.py", "docs/a|b.py", "link")._replace(line=3)
    linked = page.replace("`src/util.py`", "[x](x.py)")
    pages, [outcome] = plan_rewrites([link], {"docs/guide.md": linked})
    assert outcome.rewritten and _markdown(pages["docs/guide.md"])[0] == ["a%7Cb.py"]  # encoded: the row stays


RST = (
    "Guide\n=====\n\nSee ``src/util.py``, :file:`src/util.py` and `source <../src/util.py>`_.\n\n"
    ".. literalinclude:: ../src/util.py\n\n:download:`../src/util.py`\n"
)


@pytest.mark.parametrize("new", NAMES)
def test_a_renamed_path_is_written_into_an_rst_page_escaped_for_where_it_stands(new: str) -> None:
    """Read back by the check's own reStructuredText reader (docutils): each mention names the new path; an inline
    literal cannot hold a backtick, so a line whose literal would need one is left for a person, said."""
    from bot.ground.formats import page_mentions

    page = "docs/guide.rst"
    refs = [
        renamed_path("src/util.py", "src/util.py", new, page=page)._replace(line=4),  # the literal and the role
        *(renamed_path("../src/util.py", "src/util.py", new, "link", page)._replace(line=n) for n in (4, 6, 8)),
    ]
    pages, outcomes = plan_rewrites(refs, {page: RST})
    read = [(m.text, m.kind) for m in page_mentions(page, pages[page])]
    code = new if "`" not in new else "src/util.py"
    url = "../" + (link_destination(new) or "")
    assert read == [(code, "code"), (code, "code"), (url, "link"), ("../" + new, "link"), ("../" + new, "link")]
    assert unquote(url) == "../" + new
    assert [o.rewritten for o in outcomes] == ["`" not in new, True, True, True]
    if "`" in new:
        assert outcomes[0].reason == f"renamed to {new}, which cannot be written where the page names it"


def test_only_the_mention_itself_is_rewritten_not_a_longer_name_holding_it() -> None:
    page = "See ``src/util.py.bak``, :file:`src/util.py` and [x](../src/util.py.bak).\n\n.. include:: ../src/util.pyc\n"
    refs = [
        renamed_path("src/util.py", "src/util.py", "src/helpers.py", page="docs/a.rst")._replace(line=1),
        renamed_path("../src/util.py", "src/util.py", "src/helpers.py", "link", "docs/a.rst")._replace(line=3),
    ]
    text, done = rewrite_mentions(page, refs)
    assert text == page.replace(":file:`src/util.py`", ":file:`src/helpers.py`")
    assert [r.new_text for r in done] == ["src/helpers.py"]


def moved_module(text: str, old: str, new: str, line: int = 1) -> BrokenReference:
    """A module renamed (`pkg/widgets.py` → `pkg/widget_kit.py`): named by dotted paths on both sides."""
    return BrokenReference("docs/api.md", line, text, old, "pkg/widgets.py", "renamed", new, ("pkg/widget_kit.py", 1))


@pytest.mark.parametrize(
    ("page", "ref", "expected"),
    [
        # autorefs: the identifier after the link's text
        ("See [`run()`][pkg.app.App.run].", moved_module("pkg.app.App.run", "pkg.app.App.run", "pkg.app.App.run_all"),
         "See [`run()`][pkg.app.App.run_all]."),
        ("See [Panel][pkg.widgets.Panel].", moved_module("pkg.widgets.Panel", "pkg.widgets.Panel",
                                                          "pkg.widget_kit.Panel"),
         "See [Panel][pkg.widget_kit.Panel]."),
        ("See [pkg.widgets.Panel][].", moved_module("pkg.widgets.Panel", "pkg.widgets.Panel", "pkg.widget_kit.Panel"),
         "See [pkg.widget_kit.Panel][]."),
        # mkdocstrings
        ("::: pkg.widgets", moved_module("pkg.widgets", "pkg.widgets", "pkg.widget_kit"), "::: pkg.widget_kit"),
        # Sphinx's roles: plain, with `~`, with `!`, with an explicit title
        ("The :mod:`pkg.widgets` module.", moved_module("pkg.widgets", "pkg.widgets", "pkg.widget_kit"),
         "The :mod:`pkg.widget_kit` module."),
        ("A :class:`~pkg.dispatch.Table`.", moved_module("pkg.dispatch.Table", "pkg.dispatch.Table", "pkg.tables.Table"),
         "A :class:`~pkg.tables.Table`."),
        ("A :class:`!pkg.dispatch.Table`.", moved_module("pkg.dispatch.Table", "pkg.dispatch.Table", "pkg.tables.Table"),
         "A :class:`!pkg.tables.Table`."),
        ("A :class:`table <pkg.dispatch.Table>`.", moved_module("pkg.dispatch.Table", "pkg.dispatch.Table",
                                                                 "pkg.tables.Table"),
         "A :class:`table <pkg.tables.Table>`."),
        # Sphinx's directives
        (".. automodule:: pkg.dispatch", moved_module("pkg.dispatch", "pkg.dispatch", "pkg.tables"),
         ".. automodule:: pkg.tables"),
        (".. currentmodule:: pkg.dispatch", moved_module("pkg.dispatch", "pkg.dispatch", "pkg.tables"),
         ".. currentmodule:: pkg.tables"),
        ("   .. py:module:: pkg.dispatch  ", moved_module("pkg.dispatch", "pkg.dispatch", "pkg.tables"),
         "   .. py:module:: pkg.tables  "),
        # a module now deeper: its whole dotted path written whole follows
        ("Use `pkg.widgets.Panel`.", moved_module("pkg.widgets.Panel", "pkg.widgets.Panel", "pkg.ui.widgets.Panel"),
         "Use `pkg.ui.widgets.Panel`."),
    ],
)  # fmt: skip
def test_api_tools_dotted_names_are_rewritten_as_written(page: str, ref: BrokenReference, expected: str) -> None:
    text, done = rewrite_mentions(page, [ref])
    assert text == expected
    assert len(done) == 1


def test_an_api_name_is_rewritten_only_whole() -> None:
    """`pkg.dispatch` is not the start of `pkg.dispatch_extra` or `pkg.dispatch.more` on a directive's line."""
    ref = moved_module("pkg.dispatch", "pkg.dispatch", "pkg.tables")
    for page in (".. automodule:: pkg.dispatch_extra", "::: pkg.dispatch.more", "See [x][pkg.dispatch.Table]."):
        assert rewrite_mentions(page, [ref]) == (page, [])


def test_a_link_text_and_its_autorefs_identifier_are_both_rewritten() -> None:
    """A method renamed: the link's text (its code span) and the identifier it links to, two mentions of one
    line."""
    page = "# API\n\nSee [`run()`][pkg.app.App.run].\n"
    span = BrokenReference(
        "docs/api.md", 3, "run()", "App.run", "pkg/app.py", "renamed", "App.run_all", ("pkg/app.py", 2)
    )
    identifier = BrokenReference(
        "docs/api.md", 3, "pkg.app.App.run", "pkg.app.App.run", "pkg/app.py", "renamed", "pkg.app.App.run_all",
        ("pkg/app.py", 2),
    )  # fmt: skip
    text, done = rewrite_mentions(page, [span, identifier])
    assert text == "# API\n\nSee [`run_all()`][pkg.app.App.run_all].\n"
    assert [r.new_text for r in done] == ["run_all()", "pkg.app.App.run_all"]


def test_one_name_in_two_forms_on_a_line_is_rewritten_in_both() -> None:
    """A check reports a name once per line: its plain role and its `~` role both follow."""
    page = "Holds :class:`~pkg.dispatch.Table` and :class:`pkg.dispatch.Table`."
    ref = moved_module("pkg.dispatch.Table", "pkg.dispatch.Table", "pkg.tables.Table")
    text, done = rewrite_mentions(page, [ref])
    assert text == "Holds :class:`~pkg.tables.Table` and :class:`pkg.tables.Table`."
    assert [r.new_text for r in done] == ["pkg.tables.Table"]
