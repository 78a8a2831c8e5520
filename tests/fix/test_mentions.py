"""Rewriting a page's mention of what a change renamed, without a model: each form a page writes a path or a
name in, kept as it was written."""

from __future__ import annotations

import pytest

from bot.claims.results import BrokenReference
from bot.fix.mentions import new_mention, plan_rewrites, rewrite_mentions


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
    missing = BrokenReference("docs/guide.md", 3, "nowhere.md", "docs/nowhere.md", "docs/nowhere.md", "missing", kind="link")
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
