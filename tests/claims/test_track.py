"""The tracker's parts, pinned exactly: what OpenWiki's own resolver would say (`openwiki_verdict`), for whole
files above all, directly and as the sweep's JSON reports it."""

from __future__ import annotations

import json

import pytest
from conftest import GitRepo
from fixtools import write_grounded

from bot.claims import OpenWikiVerdict, Tracked, Verdict, resolve_evidence, track_evidence
from bot.claims.options import SweepOptions
from bot.claims.resources import parse_resource
from bot.claims.text import FileText
from bot.claims.track import ChangedFile, openwiki_verdict, reference_verdict, track
from bot.claims.versions import file_version, lines_version
from bot.report.check import render_json
from bot.source.git import GitRepository
from bot.usecases.check import check_repository

POOL = "WORKERS = 4\n\n\ndef run(tasks):\n    return [t() for t in tasks]\n"


def _stored(resource: str, content: str) -> str:
    found = resolve_evidence(resource, content.encode())
    assert found is not None
    return found.version


@pytest.mark.parametrize(
    ("current", "verdict"),
    [
        (POOL, OpenWikiVerdict.FRESH),
        (POOL.replace("\n", "\r\n"), OpenWikiVerdict.STALE),  # OpenWiki has no notion of cosmetic changes
        (POOL.replace("4", "8"), OpenWikiVerdict.STALE),
        ("", OpenWikiVerdict.STALE),  # emptied: a file still, with another hash
        (None, OpenWikiVerdict.UNRESOLVED),
    ],
)
def test_openwiki_verdict_of_whole_file_evidence(current: str | None, verdict: OpenWikiVerdict) -> None:
    """A whole file: the same `repo-file-v1` token is fresh, another token stale, no file unresolved."""
    res = parse_resource("repo://src/pool.py")
    stored = _stored("repo://src/pool.py", POOL)
    assert stored == file_version(FileText(POOL.encode()))
    text = FileText(current.encode()) if current is not None else None
    assert openwiki_verdict(res, stored, text) is verdict


def test_openwiki_verdict_of_an_empty_file_and_of_a_foreign_token() -> None:
    res = parse_resource("repo://empty.py")
    assert openwiki_verdict(res, _stored("repo://empty.py", ""), FileText(b"")) is OpenWikiVerdict.FRESH
    # A lines token stored on a whole-file resource never equals the file's token.
    assert openwiki_verdict(res, _stored("repo://empty.py#L1", "x\n"), FileText(b"x\n")) is OpenWikiVerdict.STALE


@pytest.mark.parametrize(
    ("current", "verdict"),
    [
        (POOL, OpenWikiVerdict.FRESH),
        ("# header\n" + POOL, OpenWikiVerdict.FRESH),  # found again two lines down: the same token
        (POOL.replace("t() for", "t(x) for"), OpenWikiVerdict.STALE),  # anchors found, text changed
        ("unrelated\n", OpenWikiVerdict.UNRESOLVED),  # neither the text nor its anchors, past the file's end
        (None, OpenWikiVerdict.UNRESOLVED),
    ],
)
def test_openwiki_verdict_of_a_range(current: str | None, verdict: OpenWikiVerdict) -> None:
    res = parse_resource("repo://src/pool.py#L4-L5")
    stored = _stored("repo://src/pool.py#L4-L5", POOL)
    text = FileText(current.encode()) if current is not None else None
    assert openwiki_verdict(res, stored, text) is verdict


def _evidence_json(repo: GitRepo) -> dict[str, dict[str, object]]:
    """The diff-aware sweep from `base` to HEAD as `wikiwarden check --format json` prints it: resource →
    its evidence record."""
    with GitRepository(repo.root) as git:
        report = check_repository(git, "base", "HEAD", SweepOptions())
    document = json.loads(render_json(report))
    return {
        evidence["resource"]: evidence
        for page in document["pages"]
        for claim in page["claims"]
        for evidence in claim["evidence"]
    }


def test_sweep_json_reports_openwikis_verdict_on_whole_files(repo: GitRepo) -> None:
    """Whole-file evidence through a real change: edited, reformatted, renamed, deleted, and restored to the
    text the wiki recorded after it had drifted at the base."""
    files = {name: POOL.replace("4", str(n)) for n, name in enumerate(["edited", "crlf", "renamed", "gone", "back"])}
    for name, content in files.items():
        repo.write(f"src/{name}.py", content)
    claims = [(f"claim_{n:032x}", f"{name} holds the pool", [f"repo://src/{name}.py"]) for n, name in enumerate(files)]
    write_grounded(repo, {"pool.md": ("---\ntype: Concept\n---\n\n# Pool\n", claims)})
    repo.write("src/back.py", "drifted\n")  # the wiki is already out of date at the base
    repo.commit("grounded", tag="base")
    repo.write("src/edited.py", files["edited"].replace("return", "yield"))
    repo.write("src/crlf.py", files["crlf"].replace("\n", "\r\n"))
    repo.git("mv", "src/renamed.py", "src/workers.py")
    repo.remove("src/gone.py")
    repo.write("src/back.py", files["back"])
    repo.commit("change")

    evidence = _evidence_json(repo)
    edited_now = files["edited"].replace("return", "yield").encode()
    crlf_now = files["crlf"].replace("\n", "\r\n").encode()
    picked = {
        resource: {
            key: record[key] for key in ("verdict", "openwiki_verdict", "resource_now", "version_now", "touched")
        }
        for resource, record in evidence.items()
    }
    assert picked == {
        "repo://src/edited.py": {
            "verdict": "stale",
            "openwiki_verdict": "stale",
            "resource_now": "repo://src/edited.py",
            "version_now": file_version(FileText(edited_now)),
            "touched": True,
        },
        "repo://src/crlf.py": {
            "verdict": "cosmetic",
            "openwiki_verdict": "stale",
            "resource_now": "repo://src/crlf.py",
            "version_now": file_version(FileText(crlf_now)),
            "touched": True,
        },
        "repo://src/renamed.py": {
            "verdict": "moved",
            "openwiki_verdict": "unresolved",  # OpenWiki looks for the file where it was
            "resource_now": "repo://src/workers.py",
            "version_now": _stored("repo://src/renamed.py", files["renamed"]),
            "touched": True,
        },
        "repo://src/gone.py": {
            "verdict": "unresolved",
            "openwiki_verdict": "unresolved",
            "resource_now": None,
            "version_now": None,
            "touched": True,
        },
        "repo://src/back.py": {
            "verdict": "fresh",
            "openwiki_verdict": "fresh",
            "resource_now": "repo://src/back.py",
            "version_now": _stored("repo://src/back.py", files["back"]),
            "touched": False,  # the change did not break it: it was out of date at the base
        },
    }
    assert all(record["span"] is None for record in evidence.values())


# -- spans through a change ------------------------------------------------------------------------------------

BODY = "def drain(queue):\n    out = []\n    while queue:\n        out.append(queue.pop())\n    return out\n"
OTHER = "import os\n\n\ndef other():\n    return 1\n"


def _changed(path: str | None, old: str | None, new: str | None) -> ChangedFile:
    return ChangedFile(
        path, FileText(old.encode()) if old is not None else None, FileText(new.encode()) if new is not None else None
    )


def test_a_span_of_a_deleted_file_is_found_where_the_change_added_it() -> None:
    """The file is gone; its text is looked for among the lines the rest of the change added."""
    before = OTHER + "\n" + BODY
    resource = "repo://src/queue.py#L7-L11"
    stored = _stored(resource, before)
    deleted = _changed(None, before, None)
    moved = track(parse_resource(resource), stored, deleted, [_changed("src/util.py", None, "# helpers\n\n" + BODY)])
    assert moved == (Verdict.MOVED, (3, 7), "repo://src/util.py#L3-L7", stored, None, None, None, True, None)
    gone = track(parse_resource(resource), stored, deleted, [_changed("src/util.py", None, "# helpers\n")])
    assert gone == (Verdict.UNRESOLVED, None, None, None, BODY, None, None, True, None)


@pytest.mark.parametrize("above", ["", "a = 1\n\ndef f():\n"], ids=["at the top of the file", "further down"])
def test_a_span_that_kept_only_its_distinctive_line_is_stale_not_gone(above: str) -> None:
    """Two of three lines deleted, none added: the line unique on both sides proves the span is still here, so
    what is left of it is shown as its new text."""
    old = above + "    special_value = 42\n    return 0\n    return 0\n\nz = 9\n"
    new = above + "    special_value = 42\n\nz = 9\n"
    first = above.count("\n") + 1
    resource = f"repo://m.py#L{first}-L{first + 2}"
    tracked = track_evidence(resource, old.encode(), new.encode(), _stored(resource, old))
    assert tracked == Tracked(
        Verdict.STALE,
        (first, first),
        f"repo://m.py#L{first}-L{first}",
        _stored(f"repo://m.py#L{first}", new),
        "    special_value = 42\n    return 0\n    return 0\n",
        "    special_value = 42\n",
        diff_aware=True,
    )
    # The same deletion around a line that is common (a blank line) leaves nothing that proves the span stayed.
    common = old.replace("special_value = 42", "")
    stored = _stored(resource, common)
    tracked = track_evidence(resource, common.encode(), new.replace("special_value = 42", "").encode(), stored)
    assert (tracked.verdict, tracked.anchor) == (Verdict.UNRESOLVED, ("m.py", first))


def test_lines_inserted_inside_a_span_make_it_stale_and_wider() -> None:
    old = "a = 1\nfirst_line()\nsecond_line()\nz = 9\n"
    new = "a = 1\nfirst_line()\ninserted_one()\ninserted_two()\nsecond_line()\nz = 9\n"
    tracked = track_evidence("repo://m.py#L2-L3", old.encode(), new.encode(), _stored("repo://m.py#L2-L3", old))
    assert tracked == Tracked(
        Verdict.STALE,
        (2, 5),
        "repo://m.py#L2-L5",
        _stored("repo://m.py#L2-L5", new),
        "first_line()\nsecond_line()\n",
        "first_line()\ninserted_one()\ninserted_two()\nsecond_line()\n",
        diff_aware=True,
    )


def test_a_copy_among_identical_blocks_is_followed_by_its_line_numbers() -> None:
    """Four identical blocks: the stored version cannot tell the second from the third (same text, same context);
    the line numbers it was recorded at can, and the diff carries it."""
    block = "row()\nrow()\nend()\n"
    old = "head\n" + block * 4 + "tail\n"
    resource = "repo://t.py#L5-L7"  # the second copy
    stored = _stored(resource, old)
    tracked = track_evidence(resource, old.encode(), ("head\nnew\n" + block * 4 + "tail\n").encode(), stored)
    assert (tracked.verdict, tracked.span, tracked.resource, tracked.version) == (
        Verdict.MOVED,
        (6, 8),
        "repo://t.py#L6-L8",
        stored,
    )
    assert tracked.diff_aware


# -- without a base: OpenWiki's algorithm, in Wikiwarden's terms ----------------------------------------------


def _text(content: str) -> FileText:
    return FileText(content.encode())


def test_reference_verdict_of_whole_files() -> None:
    res = parse_resource("repo://src/q.py")
    stored = _stored("repo://src/q.py", BODY)
    assert reference_verdict(res, stored, _text(BODY), "src/q.py") == Tracked(
        Verdict.FRESH, None, "repo://src/q.py", stored
    )
    assert reference_verdict(res, stored, _text(BODY), "lib/q.py") == Tracked(
        Verdict.MOVED, None, "repo://lib/q.py", stored
    )
    changed = BODY.replace("pop()", "popleft()")
    assert reference_verdict(res, stored, _text(changed), "src/q.py") == Tracked(
        Verdict.STALE, None, "repo://src/q.py", file_version(_text(changed)), new_text=changed
    )
    assert reference_verdict(res, stored, None, None) == Tracked(Verdict.UNRESOLVED)


def test_reference_verdict_of_spans() -> None:
    before = OTHER + "\n" + BODY  # BODY at lines 7-11
    res = parse_resource("repo://src/q.py#L7-L11")
    stored = _stored("repo://src/q.py#L7-L11", before)
    assert reference_verdict(res, stored, _text(before), "src/q.py") == Tracked(
        Verdict.FRESH, (7, 11), "repo://src/q.py#L7-L11", stored
    )
    shifted = "# header\n" + before
    assert reference_verdict(res, stored, _text(shifted), "src/q.py") == Tracked(
        Verdict.MOVED, (8, 12), "repo://src/q.py#L8-L12", stored
    )
    # The same lines in a renamed file: moved, though the line numbers are the same.
    assert reference_verdict(res, stored, _text(before), "src/queue.py") == Tracked(
        Verdict.MOVED, (7, 11), "repo://src/queue.py#L7-L11", stored
    )
    # Its anchors found and the text between them changed: stale, with what stands there now, and no old text
    # (without a base, the recorded text is not known).
    changed = before.replace("pop()", "popleft()")
    assert reference_verdict(res, stored, _text(changed), "src/q.py") == Tracked(
        Verdict.STALE,
        (7, 11),
        "repo://src/q.py#L7-L11",
        lines_version(_text(changed), 6, 11),
        new_text=BODY.replace("pop()", "popleft()"),
    )
    # Neither the text nor its anchors, and the file too short for the line numbers: unresolved.
    assert reference_verdict(res, stored, _text("x = 1\n"), "src/q.py") == Tracked(Verdict.UNRESOLVED)
    assert reference_verdict(res, stored, None, None) == Tracked(Verdict.UNRESOLVED)


def test_reference_verdict_keeps_a_copy_among_identical_blocks_where_it_is() -> None:
    """Four identical blocks, the second cited, nothing changed: fresh at its own lines (the search alone could
    not tell it from the third)."""
    text = "head\n" + "row()\nrow()\nend()\n" * 4 + "tail\n"
    res = parse_resource("repo://t.py#L5-L7")
    stored = _stored("repo://t.py#L5-L7", text)
    assert reference_verdict(res, stored, _text(text), "t.py") == Tracked(
        Verdict.FRESH, (5, 7), "repo://t.py#L5-L7", stored
    )


@pytest.mark.parametrize(
    ("old", "resource", "new", "verdict", "now"),
    [
        # A blank line inserted right above a span that starts with one: the diff keeps the span's blank line in
        # place and calls the one below it new, so the span's lines no longer map side by side.
        ("p = 0\n\none()\ntwo()\nq = 1\n", "L2-L4", "p = 0\n\n\none()\ntwo()\nq = 1\n", Verdict.MOVED, (3, 5)),
        ("p = 0\n\none()\ntwo()\nq = 1\n", "L2-L4", "p = 0\n\n\none()  \ntwo()\nq = 1\n", Verdict.COSMETIC, (3, 5)),
        # ... the span now ending at the file's last line,
        ("p = 0\n\none()\ntwo()\n", "L2-L4", "p = 0\n\n\none()  \ntwo()\n", Verdict.COSMETIC, (3, 5)),
        # ... the blank line above it deleted instead, so the span now starts the file.
        ("\n\none()\ntwo()\nq = 1\n", "L2-L4", "\none()  \ntwo()\nq = 1\n", Verdict.COSMETIC, (1, 3)),
    ],
    ids=["moved", "cosmetic", "cosmetic at the end of the file", "cosmetic at the top of the file"],
)
def test_a_span_is_found_where_its_surviving_lines_put_it_when_the_diff_split_it(
    old: str, resource: str, new: str, verdict: Verdict, now: tuple[int, int]
) -> None:
    stored = _stored(f"repo://m.py#{resource}", old)
    tracked = track_evidence(f"repo://m.py#{resource}", old.encode(), new.encode(), stored)
    place = f"repo://m.py#L{now[0]}-L{now[1]}"
    version = stored if verdict is Verdict.MOVED else _stored(place, new)
    assert tracked == Tracked(verdict, now, place, version, diff_aware=True)


def test_a_span_of_a_file_emptied_by_the_change_is_unresolved_with_no_place_to_point_at() -> None:
    old = "p = 0\n\nspecial_one()\nspecial_two()\nq = 1\n"
    stored = _stored("repo://m.py#L3-L4", old)
    tracked = track_evidence("repo://m.py#L3-L4", old.encode(), b"", stored)
    assert tracked == Tracked(Verdict.UNRESOLVED, old_text="special_one()\nspecial_two()\n", diff_aware=True)


def test_a_moved_span_prefers_its_exact_copy_to_a_cosmetically_different_one() -> None:
    before = OTHER + "\n" + BODY
    resource = "repo://src/queue.py#L7-L11"
    stored = _stored(resource, before)
    copies = [_changed("b.py", None, BODY.replace("\n", "\r\n")), _changed("a.py", None, BODY)]
    tracked = track(parse_resource(resource), stored, _changed("src/queue.py", before, OTHER), copies)
    assert tracked == Tracked(Verdict.MOVED, (1, 5), "repo://a.py#L1-L5", stored, diff_aware=True)


def test_a_deleted_file_is_looked_for_among_the_files_the_change_added_only() -> None:
    """A file the change modified already existed: that it now holds the deleted file's text does not make it the
    deleted file."""
    stored = _stored("repo://src/q.py", BODY)
    res = parse_resource("repo://src/q.py")
    deleted = _changed(None, BODY, None)
    assert track(res, stored, deleted, [_changed("lib/q.py", "old = 1\n", BODY)]) == Tracked(
        Verdict.UNRESOLVED, diff_aware=True
    )
    assert track(res, stored, deleted, [_changed("lib/q.py", None, BODY)]) == Tracked(
        Verdict.MOVED, None, "repo://lib/q.py", stored, diff_aware=True
    )


def test_a_function_moved_away_past_a_larger_block_leaving_a_stub_is_moved() -> None:
    """The stub keeps the old `def` line, and the diff pairs it with the old one; but that line now occurs twice,
    so it proves nothing about where the span is: the span's text is found where the change added it."""
    constants = "".join(f"CONST_{i} = {i}\n" for i in range(8))
    body = "def fetch(url):\n    session = open_session()\n    data = session.get(url)\n    return data\n"
    old = "import os\n" + body + constants + "END = 1\n"
    new = "import os\ndef fetch(url):\n    raise NotImplementedError\n" + constants + body + "END = 1\n"
    stored = _stored("repo://m.py#L2-L5", old)
    tracked = track_evidence("repo://m.py#L2-L5", old.encode(), new.encode(), stored)
    assert tracked == Tracked(Verdict.MOVED, (12, 15), "repo://m.py#L12-L15", stored, diff_aware=True)


def test_a_span_that_lost_its_distinctive_line_but_kept_most_of_its_lines_is_stale() -> None:
    """Two of three lines remain (both common ones): most of the span is still there, so it was changed, not
    deleted, even though no line proves its place and nothing was added."""
    old = (
        "def process(order):\n    check_limits(order)\n\n    return order\n\n\ndef other(order):\n\n    return order\n"
    )
    new = old.replace("    check_limits(order)\n", "")
    stored = _stored("repo://m.py#L2-L4", old)
    tracked = track_evidence("repo://m.py#L2-L4", old.encode(), new.encode(), stored)
    assert tracked == Tracked(
        Verdict.STALE,
        (2, 3),
        "repo://m.py#L2-L3",
        _stored("repo://m.py#L2-L3", new),
        "    check_limits(order)\n\n    return order\n",
        "\n    return order\n",
        diff_aware=True,
    )


@pytest.mark.parametrize(
    ("new", "anchor"),
    [
        ("import os\nimport sys\n\n\n\ndef keep():\n    return 2\n", ("m.py", 4)),  # a line added further up
        ("import os\n\n\n\ndef keep():\n    return 2\n    # more\n", ("m.py", 3)),  # a line added further down
    ],
    ids=["added above", "added below"],
)
def test_a_deleted_span_is_unresolved_whatever_the_change_added_elsewhere(new: str, anchor: tuple[str, int]) -> None:
    """The function is deleted; only a blank line of the span is left, which proves nothing. Lines added in the span's
    own place would have made it stale (something replaced it); lines added elsewhere do not."""
    old = "import os\n\ndef gone():\n    return 1\n\n\ndef keep():\n    return 2\n"
    tracked = track_evidence("repo://m.py#L3-L5", old.encode(), new.encode(), _stored("repo://m.py#L3-L5", old))
    assert tracked == Tracked(
        Verdict.UNRESOLVED, old_text="def gone():\n    return 1\n\n", diff_aware=True, anchor=anchor
    )


def test_the_first_line_of_a_file_rewritten_is_stale() -> None:
    old, new = "VERSION = 1\nimport os\n", "VERSION = 2\nimport os\n"
    tracked = track_evidence("repo://m.py#L1", old.encode(), new.encode(), _stored("repo://m.py#L1", old))
    assert tracked == Tracked(
        Verdict.STALE,
        (1, 1),
        "repo://m.py#L1-L1",
        _stored("repo://m.py#L1", new),
        "VERSION = 1\n",
        "VERSION = 2\n",
        diff_aware=True,
    )
