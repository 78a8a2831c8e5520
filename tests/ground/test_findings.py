"""What check reports about references without a model: missing paths of a full sweep (and what is not taken for
a path), what a change took away, which mentions can name it, the report's records of dead references."""

from __future__ import annotations

import pytest

from bot.claims.results import BrokenReference
from bot.ground.findings import Gone, broken, clip_lines, gone, may_name, missing_paths
from bot.ground.references import DeadReference, Mention, Target, mentions
from bot.ground.symbols import Definition, SymbolIndex, definitions

PATHS = {"src/taskq/queue.py", "src/taskq/util.py", "docs/guide.md", "openwiki/queue.md", "README.md"}


def _missing(line: str) -> list[str]:
    return [ref.target for ref in missing_paths("openwiki/queue.md", mentions(f"# Q\n\n{line}\n"), PATHS)]


@pytest.mark.parametrize(
    "line",
    [
        "`src/taskq/queue.py` and `src/taskq/queue.py:12` and `src/taskq/util.py#L3-L9`",  # they exist
        "Run `/usr/bin/env python`, `npm run build`, `a/b`, `src/*.py`, `lib/x.py` (no lib/ folder).",
        "Values: `True`, `42`, `--force`, `pip install -e .`, `http://example.com/x.py`, `~/.config/x.yml`.",
        "Links: [site](https://example.com/a.md), [top](#queue), [mail](mailto:a@b.c), [up](../../outside.md).",
        "Folders: `src/taskq/`, [the package](../src/taskq).",
        "```\nsrc/taskq/gone.py in a fence is code, not a mention\n```",
    ],
)
def test_what_is_not_a_missing_path(line: str) -> None:
    assert _missing(line) == []


def test_missing_paths_from_code_spans_and_links() -> None:
    assert _missing("`src/gone/deep/old.py` and `.hidden/x.py`") == ["src/gone/deep/old.py"]  # its first folder exists
    assert _missing("See `src/taskq/old.py:3`, [guide](../docs/old.md) and [home](/README.md), [x](nothere.md).") == [
        "src/taskq/old.py",
        "docs/old.md",
        "openwiki/nothere.md",
    ]
    [ref] = missing_paths("openwiki/queue.md", mentions("---\ntitle: q\n---\n\nSee `src/gone.py`.\n"), PATHS)
    assert ref == BrokenReference("openwiki/queue.md", 5, "src/gone.py", "src/gone.py", "src/gone.py", "missing")


BEFORE = "class TaskQueue:\n    def push(self, x):\n        pass\n\n    def drain(self):\n        return []\n"


def test_gone_names_the_removed_definitions_and_the_deleted_files() -> None:
    before = SymbolIndex.of_files({"src/q.py": BEFORE.encode()})
    after = SymbolIndex.of_files({"src/q.py": BEFORE.split("\n\n", maxsplit=1)[0].encode() + b"\n"})
    what = gone(before, after, {"src/q.py", "src/old.py"}, {"src/q.py"})
    assert what == Gone(frozenset({"drain", "TaskQueue.drain"}), frozenset({"src/old.py"}))
    assert not gone(before, before, {"src/q.py"}, {"src/q.py"})  # nothing gone: falsy, so no page is read


@pytest.mark.parametrize(
    ("text", "kind", "named"),
    [
        ("drain()", "code", True),
        ("TaskQueue.drain", "code", True),
        ("TaskQueue::drain", "code", True),
        ("q.drain(limit)", "code", True),
        ("push()", "code", False),
        ("src/old.py", "code", True),
        ("src/old.py:3", "code", True),
        ("../src/old.py", "link", True),
        ("src", "code", True),  # the folder holding a gone file
        ("draining", "code", False),
    ],
)
def test_which_mentions_may_name_what_is_gone(text: str, kind: str, named: bool) -> None:
    what = Gone(frozenset({"drain", "TaskQueue.drain"}), frozenset({"src/old.py"}))
    assert may_name(Mention(text, kind, 1), "openwiki/q.md", what) is named  # type: ignore[arg-type]


def test_dead_references_become_records_located_at_the_head() -> None:
    [drain] = [d for d in definitions("src/q.py", BEFORE.encode()) if d.name == "drain"]
    flush = Definition("flush", "TaskQueue.flush", "method", "src/q.py", 7, 8)
    mention = Mention("drain()", "code", 4)
    dead = [
        DeadReference("openwiki/q.md", mention, Target("src/q.py", drain), renamed_to=flush),
        DeadReference("openwiki/q.md", mention, Target("src/q.py", drain)),
        DeadReference("openwiki/q.md", Mention("src/old.py", "code", 6), Target("src/old.py"), gone_path=True),
    ]
    assert broken(dead, {"src/q.py"}) == [
        BrokenReference(
            "openwiki/q.md", 4, "drain()", "TaskQueue.drain", "src/q.py", "renamed", "TaskQueue.flush", ("src/q.py", 7)
        ),
        BrokenReference("openwiki/q.md", 4, "drain()", "TaskQueue.drain", "src/q.py", "removed", None, ("src/q.py", 5)),
        BrokenReference("openwiki/q.md", 6, "src/old.py", "src/old.py", "src/old.py", "removed"),
    ]
    assert broken(dead[1:2], set())[0].at is None  # its file is gone too: nowhere at the head to point at


def test_a_location_is_kept_within_the_file() -> None:
    assert clip_lines(("a.py", 40), lambda path: 12) == ("a.py", 12)
    assert clip_lines(("a.py", 3), lambda path: 12) == ("a.py", 3)
    assert clip_lines(("a.py", 3), lambda path: 0) == ("a.py", 1)
    assert clip_lines(None, lambda path: 12) is None


@pytest.mark.parametrize(
    ("page", "span", "note"),
    [
        ("docs/tutorial/packaging.md", "src/app/cli.py", True),  # src/ exists, src/app/ does not: the reader's
        ("docs/how-to-publish.md", "src/app/cli.py", True),
        ("docs/getting_started.md", "src/app/cli.py", True),
        ("docs/tutorial/packaging.md", "src/gone.py", False),  # in a folder the repository has: certain
        ("docs/reference.md", "src/app/cli.py", False),  # not a how-to: certain
        ("docs/guide/users.md", "src/app/cli.py", False),  # a user guide names the repository's own files
    ],
)
def test_a_how_tos_path_under_a_folder_the_repository_lacks_is_a_note(page: str, span: str, note: bool) -> None:
    [ref] = missing_paths(page, mentions(f"# P\n\nCreate `{span}`.\n"), PATHS)
    assert ref.attention is not note
    assert (ref.note is not None and ref.note.startswith("a path under a folder this repository does not have")) is note
    assert [r.attention for r in missing_paths(page, mentions(f"[x](/{span})\n"), PATHS)] == [True]  # a link: certain
