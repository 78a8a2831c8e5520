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
