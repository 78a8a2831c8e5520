"""The tracker's parts, pinned exactly: what OpenWiki's own resolver would say (`openwiki_verdict`), for whole
files above all, directly and as the sweep's JSON reports it."""

from __future__ import annotations

import json

import pytest
from conftest import GitRepo
from fixtools import write_grounded

from bot.claims import OpenWikiVerdict, Verdict, resolve_evidence, track_evidence
from bot.claims.report import render_json
from bot.claims.resources import parse_resource
from bot.claims.sweep import SweepOptions
from bot.claims.text import FileText
from bot.claims.track import ChangedFile, openwiki_verdict, track
from bot.claims.versions import file_version
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


def test_a_span_that_kept_only_its_distinctive_line_is_stale_not_gone() -> None:
    """Two of three lines deleted, none added: the line unique on both sides proves the span is still here, so
    what is left of it is shown as its new text."""
    old = "a = 1\n\ndef f():\n    special_value = 42\n    return 0\n    return 0\n\nz = 9\n"
    new = "a = 1\n\ndef f():\n    special_value = 42\n\nz = 9\n"
    resource = "repo://m.py#L4-L6"
    tracked = track_evidence(resource, old.encode(), new.encode(), _stored(resource, old))
    assert (tracked.verdict, tracked.span, tracked.resource) == (Verdict.STALE, (4, 4), "repo://m.py#L4-L4")
    assert (tracked.old_text, tracked.new_text) == (
        "    special_value = 42\n    return 0\n    return 0\n",
        "    special_value = 42\n",
    )
    assert tracked.version == _stored("repo://m.py#L4", new)
    # The same deletion around a line that is common (a blank line) leaves nothing that proves the span stayed.
    common = old.replace("special_value = 42", "")
    tracked = track_evidence(
        resource, common.encode(), new.replace("special_value = 42", "").encode(), _stored(resource, common)
    )
    assert (tracked.verdict, tracked.anchor) == (Verdict.UNRESOLVED, ("m.py", 4))


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
