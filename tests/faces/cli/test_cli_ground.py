"""`wikiwarden ground` on a small real repository: without a model (the plan a person grounds from by hand, text
and JSON), and with the fake OpenAI server: the files it writes, a second run that changes nothing, refused
answers, batches that continue where the last run stopped."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from clitools import status, use_fake
from conftest import GitRepo
from fakeopenai import FakeOpenAI, Reply
from groundtools import DRAIN, FIFO, LIMIT, QUEUE_PY, answer, claim

from bot.claims.sidecar import page_version, parse_sidecar, render_sidecar
from bot.claims.versions import FileText, lines_version
from bot.ground.check import claim_id

pytestmark = pytest.mark.usefixtures("isolated_cli")

QUEUE_MD = """---
title: The queue
---

# The queue

`TaskQueue` in `src/taskq/queue.py` keeps tasks first in, first out.
A queue holds at most 100 items; `push()` raises `OverflowError` beyond that.

`drain()` empties the queue and returns what it held. Install with `pip install taskq`, then set `True`.
"""
SETUP_MD = """# Setup

Run `make` and then `./run --fast`. Nothing here names the code.
"""


@pytest.fixture
def wiki(repo: GitRepo) -> GitRepo:
    repo.write("src/taskq/queue.py", QUEUE_PY)
    repo.write("openwiki/queue.md", QUEUE_MD)
    repo.write("openwiki/setup.md", SETUP_MD)
    repo.commit("a wiki without claims")
    return repo


GOOD = answer(
    claim(
        FIFO, "`TaskQueue` in `src/taskq/queue.py` keeps tasks first in, first out.", "repo://src/taskq/queue.py#L6-L19"
    ),
    claim(LIMIT, "A queue holds at most 100 items;", "repo://src/taskq/queue.py#L3"),
    claim(DRAIN, "`drain()` empties the queue and returns\n what it held.", "repo://src/taskq/queue.py#L17-L19"),
)  # the last quote wraps where the page does not: only whitespace differs


# -- without a model -------------------------------------------------------------------------------------


def test_without_a_model_it_prints_each_pages_references_and_candidates(wiki: GitRepo, cli) -> None:
    run = cli("ground", "--repo", wiki.root)
    assert run.code == 1, run.err  # pages are left to ground
    assert status(wiki.root) == []
    assert run.out == (
        "openwiki/queue.md\n"
        "  line 7: TaskQueue → TaskQueue (src/taskq/queue.py)\n"
        "  line 7: src/taskq/queue.py → src/taskq/queue.py\n"
        "  line 8: push() → TaskQueue.push (src/taskq/queue.py)\n"
        "  line 10: drain() → TaskQueue.drain (src/taskq/queue.py)\n"
        "  5 candidates for `wikiwarden claim add`:\n"
        "    repo://src/taskq/queue.py#L6-L19  (`TaskQueue` names class TaskQueue)\n"
        "    repo://src/taskq/queue.py#L12-L15  (`push()` names method TaskQueue.push)\n"
        "    repo://src/taskq/queue.py#L17-L19  (`drain()` names method TaskQueue.drain)\n"
        "    repo://src/taskq/queue.py  (`src/taskq/queue.py` names the file)\n"
        "    repo://src/taskq/queue.py#L3-L3  (constant MAX_ITEMS of a file it names)\n"
        "openwiki/setup.md\n"
        "  no candidate evidence: the page names no path or definition of the code\n"
    )


def test_the_plan_as_json(wiki: GitRepo, cli) -> None:
    run = cli("ground", "--repo", wiki.root, "--model", "none", "--format", "json", "--max-pages", "1")
    document = json.loads(run.out)
    assert document["format_version"] == 1 and document["mode"] == "plan"
    assert document["wiki_dir"] == "openwiki"
    assert document["head"] == wiki.git("rev-parse", "HEAD").strip()
    assert document["waiting"] == ["openwiki/setup.md"]  # one page a run: the other waits
    (page,) = document["pages"]
    assert page["page"] == "openwiki/queue.md" and page["claims"] == 0 and page["problem"] is None
    assert page["references"][2] == {
        "text": "push()",
        "kind": "code",
        "line": 8,
        "targets": [
            {"path": "src/taskq/queue.py", "definition": "TaskQueue.push", "kind": "method", "lines": [12, 15]}
        ],
    }
    assert [r["text"] for r in page["references"]] == ["TaskQueue", "src/taskq/queue.py", "push()", "drain()"]
    assert page["candidates"][0] == {
        "resource": "repo://src/taskq/queue.py#L6-L19",
        "why": "`TaskQueue` names class TaskQueue",
    }


def test_a_plan_of_a_grounded_wiki_has_nothing_to_do(wiki: GitRepo, cli) -> None:
    for page in ("queue", "setup"):
        assert cli("claim", "add", "--repo", wiki.root, f"{page}.md", "x", "repo://src/taskq/queue.py").code == 0
    run = cli("ground", "--repo", wiki.root)
    assert (run.code, run.out) == (0, "no Markdown page without claims: nothing to ground\n")


def test_usage_errors(wiki: GitRepo, cli) -> None:
    run = cli("ground", "--repo", wiki.root, "--max-pages", "0")
    assert (run.code, run.err) == (2, "wikiwarden: error: --max-pages must be at least 1\n")
    run = cli("ground", "--repo", wiki.root, "--wiki-dir", "nowiki")
    assert run.code == 2 and "nowiki" in run.err
    run = cli("ground", "--repo", wiki.root, "nosuchpage.md")
    assert run.code == 1 and "openwiki/nosuchpage.md is not a page of" in run.out
    assert status(wiki.root) == []


# -- with a model ----------------------------------------------------------------------------------------


async def test_grounding_writes_sidecars_quotes_and_okf_fields(
    wiki: GitRepo, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_fake(monkeypatch, fake_openai)
    fake_openai.reply_json(GOOD)
    fake_openai.reply_json(answer())  # setup.md states nothing the code shows

    run = await cli_in_thread("ground", "--repo", wiki.root)

    assert run.code == 0, run.out + run.err
    assert len(fake_openai.requests) == 2
    prompt = fake_openai.requests[0]["messages"][1]["content"]
    assert "Page: openwiki/queue.md" in prompt
    assert "repo://src/taskq/queue.py#L17-L19  (`drain()` names method TaskQueue.drain)" in prompt
    written = [
        "openwiki/.claims/queue.json",
        "openwiki/.wikiwarden/quotes/queue.json",
        "openwiki/.wikiwarden/quotes/setup.json",
        "openwiki/queue.md",
    ]
    assert status(wiki.root) == written
    assert f"Wrote 4 files: {', '.join(written)}" in run.out
    assert "openwiki/setup.md\n  nothing to claim: the page states nothing the code shows\n" in run.out
    # setup.md has no claims, and is not asked about again until it changes
    assert json.loads(wiki.read("openwiki/.wikiwarden/quotes/setup.json")) == {
        "schemaVersion": 1,
        "quotes": {},
        "groundedPage": page_version(SETUP_MD.encode()),
    }

    ids = [claim_id("openwiki/queue.md", s, ()) for s in (FIFO, LIMIT, DRAIN)]
    sidecar = parse_sidecar(wiki.read("openwiki/.claims/queue.json"), "openwiki/.claims/queue.json")
    assert [(c.id, c.statement) for c in sidecar.claims] == list(zip(ids, (FIFO, LIMIT, DRAIN), strict=True))
    drain = sidecar.claims[2].evidence[0]
    assert drain.resource == "repo://src/taskq/queue.py#L17-L19"
    assert drain.version == lines_version(FileText(QUEUE_PY.encode()), 16, 19)  # computed here, never the model's
    assert render_sidecar(sidecar) == wiki.read("openwiki/.claims/queue.json")  # OpenWiki's bytes
    assert sidecar.verification is None  # OpenWiki's record, never Wikiwarden's: its word is the page's `verified`

    quotes = json.loads(wiki.read("openwiki/.wikiwarden/quotes/queue.json"))
    assert quotes["quotes"][ids[2]] == "`drain()` empties the queue and returns\n what it held."
    assert quotes["groundedPage"] == page_version(wiki.read("openwiki/queue.md"))

    page = wiki.read("openwiki/queue.md").decode()
    assert page.endswith(QUEUE_MD.split("---\n", 2)[2])  # the body as it was
    assert "resource: repo://src/taskq/queue.py" in page  # sources projected
    assert "generated:" not in page  # the prose did not change: generated stays as it was
    assert "verified:\n  - by: wikiwarden/" in page

    again = await cli_in_thread("ground", "--repo", wiki.root)  # grounded pages are not asked again
    assert len(fake_openai.requests) == 2
    assert status(wiki.root) == written
    assert again.code == 0 and again.out == "no Markdown page without claims: nothing to ground\n"
    check = await cli_in_thread("check", "--repo", wiki.root)
    assert check.code == 0, check.out

    wiki.write("openwiki/setup.md", SETUP_MD + "\nThe queue holds 100 items.\n")  # changed: asked again
    fake_openai.reply_json(answer())
    third = await cli_in_thread("ground", "--repo", wiki.root)
    assert (
        len(fake_openai.requests) == 3
        and "Page: openwiki/setup.md" in fake_openai.requests[2]["messages"][1]["content"]
    )
    assert third.code == 0


async def test_the_same_answers_give_the_same_files(
    make_repo: Callable[..., GitRepo], cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_fake(monkeypatch, fake_openai)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764547200")
    trees = []
    for name in ("one", "two"):
        repo = make_repo(name)
        repo.write("src/taskq/queue.py", QUEUE_PY)
        repo.write("openwiki/queue.md", QUEUE_MD)
        repo.commit("same")
        fake_openai.reply_json(GOOD)
        await cli_in_thread("ground", "--repo", repo.root)
        trees.append({p: repo.read(p) for p in status(repo.root)})
    assert trees[0] == trees[1]
    assert b"verified:\n  - by: wikiwarden/" in trees[0]["openwiki/queue.md"]
    assert b"    at: 2025-12-01T00:00:00.000Z\n" in trees[0]["openwiki/queue.md"]  # SOURCE_DATE_EPOCH


async def test_refused_claims_are_asked_again_then_reported(
    wiki: GitRepo, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_fake(monkeypatch, fake_openai)
    invented = claim("The queue is thread-safe.", "The queue is thread-safe.", "repo://src/taskq/queue.py#L6-L19")
    unvouched = claim(
        "`clear()` empties the queue.", "`drain()` empties the queue", "repo://src/taskq/queue.py#L12-L15"
    )
    fine = claim(FIFO, "keeps tasks first in, first out.", "repo://src/taskq/queue.py#L6-L19")
    for _ in range(2):  # the same answer twice: refused twice
        fake_openai.reply_json(answer(invented, unvouched, fine))

    run = await cli_in_thread("ground", "--repo", wiki.root, "queue.md")

    assert run.code == 1
    assert len(fake_openai.requests) == 2
    refusal = fake_openai.requests[1]["messages"][-1]["content"]
    assert "its quote is not text of the page body (copy it verbatim)" in refusal
    assert "the statement quotes `clear()`, which its evidence does not contain" in refusal
    assert "! refused: “The queue is thread-safe.” (its quote is not text of the page body" in run.out
    assert "! refused: “`clear()` empties the queue.” (the statement quotes `clear()`" in run.out
    sidecar = parse_sidecar(wiki.read("openwiki/.claims/queue.json"), "openwiki/.claims/queue.json")
    assert [c.statement for c in sidecar.claims] == [FIFO]  # what passed is kept
    # Not read whole: had every claim been refused, the page would be asked about again, not taken as settled.
    assert "groundedPage" not in json.loads(wiki.read("openwiki/.wikiwarden/quotes/queue.json"))
    assert sidecar.verification is None  # not every statement of the page is grounded
    assert "verified:" not in wiki.read("openwiki/queue.md").decode()


# Answers refused twice, whatever the reason, with no claim among them to refuse: none may pass for a reading of
# the page (`groundedPage`), which would leave the page unasked for good while nothing was grounded.
REFUSED = {
    "not JSON": "Here are the claims: none.",
    "extra fields": json.dumps({**answer(), "notes": "nothing here"}),
    "giant edit": json.dumps(
        answer(edits=[{"file": "openwiki/setup.md", "search": "Run `make`", "replace": "x" * 30_000}])
    ),
    "foreign unsupported text": json.dumps(
        answer(unsupported=[{"quote": "Text the page does not hold", "reason": "none"}])
    ),
}


@pytest.mark.parametrize("reply", REFUSED.values(), ids=REFUSED.keys())
async def test_a_page_whose_answer_was_refused_is_asked_again_not_taken_as_read(
    wiki: GitRepo, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, reply: str
) -> None:
    use_fake(monkeypatch, fake_openai)
    fake_openai.script(reply, reply)

    run = await cli_in_thread("ground", "--repo", wiki.root, "setup.md")

    assert "openwiki/.wikiwarden/quotes/setup.json" not in status(wiki.root)  # not read whole: no groundedPage
    assert run.code == 1, run.out  # nothing was grounded: a person must look
    assert len(fake_openai.requests) == 2
    assert "openwiki/setup.md\n  ! its answer was refused twice: " in run.out
    assert "nothing to claim" not in run.out

    fake_openai.responder = lambda body: Reply.json(answer())  # the next run asks again, and is answered
    again = await cli_in_thread("ground", "--repo", wiki.root)
    prompts = [r["messages"][1]["content"] for r in fake_openai.requests[2:]]
    assert any("Page: openwiki/setup.md" in prompt for prompt in prompts), again.out
    assert "openwiki/setup.md\n  nothing to claim: the page states nothing the code shows\n" in again.out
    assert json.loads(wiki.read("openwiki/.wikiwarden/quotes/setup.json"))["groundedPage"] == page_version(
        SETUP_MD.encode()
    )  # an accepted answer, even with no claim, is a reading of the page


async def test_a_contradicted_statement_is_corrected_or_left_for_a_person(
    wiki: GitRepo, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki.write("openwiki/queue.md", QUEUE_MD.replace("at most 100 items", "at most 50 items"))
    use_fake(monkeypatch, fake_openai)
    fake_openai.reply_json(
        answer(
            claim(LIMIT, "A queue holds at most 100 items;", "repo://src/taskq/queue.py#L3"),
            edits=[{"file": "openwiki/queue.md", "search": "at most 50 items", "replace": "at most 100 items"}],
            unsupported=[{"quote": "Install with `pip install taskq`", "reason": "the repository has no package"}],
        )
    )
    run = await cli_in_thread("ground", "--repo", wiki.root, "openwiki/queue.md")
    assert run.code == 1  # a statement is left for a person
    assert "✎ the prose was corrected where the code contradicts it" in run.out
    assert "? unsupported: “Install with `pip install taskq`” (the repository has no package)" in run.out
    page = wiki.read("openwiki/queue.md").decode()
    assert "A queue holds at most 100 items; `push()` raises" in page
    assert 'generated: {by: "wikiwarden/' in page  # the prose changed
    assert "verified:" not in page  # a statement of the page is unsupported
    sidecar = parse_sidecar(wiki.read("openwiki/.claims/queue.json"), "openwiki/.claims/queue.json")
    assert sidecar.page_version == page_version(page.encode())  # of the corrected page
    assert [c.statement for c in sidecar.claims] == [LIMIT]


async def test_batches_continue_where_the_last_run_stopped(
    wiki: GitRepo, cli_in_thread, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_fake(monkeypatch, fake_openai)
    fake_openai.reply_json(GOOD)
    first = await cli_in_thread("ground", "--repo", wiki.root, "--max-pages", "1")
    assert first.code == 0
    assert "left for the next run: 1 more page without claims" in first.out
    assert len(fake_openai.requests) == 1
    wiki.commit("first batch")

    fake_openai.reply_json(answer(claim("`make` builds it.", "Run `make`", "repo://src/taskq/queue.py")))
    fake_openai.reply_json(answer(claim("`make` builds it.", "Run `make`", "repo://src/taskq/queue.py")))
    second = await cli_in_thread("ground", "--repo", wiki.root, "--max-pages", "1")
    assert "Page: openwiki/setup.md" in fake_openai.requests[1]["messages"][1]["content"]
    assert second.code == 1  # `make` is not in the evidence: refused (twice)
    assert "more page" not in second.out


# -- what check says about references, without a model ---------------------------------------------------


def test_check_base_reports_references_a_change_broke(wiki: GitRepo, cli) -> None:
    wiki.write("src/taskq/queue.py", QUEUE_PY.replace("    def drain(self):", "    def flush(self):"))
    wiki.commit("drain is flush now")
    run = cli("check", "--repo", wiki.root, "--base", "HEAD~1")
    assert run.code == 1
    assert run.out.split("\nWhat to do:\n")[0].endswith(  # the report, then what to do
        "Broken references (1):\n"
        "  ✗ openwiki/queue.md:10  drain() (TaskQueue.drain): renamed by this change to TaskQueue.flush\n"
    )
    wiki.write("src/taskq/queue.py", QUEUE_PY.split("    def drain", maxsplit=1)[0])
    wiki.commit("no drain at all")
    document = json.loads(cli("check", "--repo", wiki.root, "--base", "HEAD~2", "--format", "json").out)
    assert document["broken_references"] == [
        {
            "page": "openwiki/queue.md",
            "line": 10,
            "text": "drain()",
            "target": "TaskQueue.drain",
            "path": "src/taskq/queue.py",
            "what": "removed",
            "renamed_to": None,
            "at": ["src/taskq/queue.py", 16],  # where it stood, within what is left of the file
            "kind": "code",
            "attention": True,  # a called name: certain, it fails the check
            "note": None,
        }
    ]
    assert document["summary"]["broken_references"] == 1 and document["needs_attention"]


def test_moved_definitions_values_and_commands_raise_no_alarm(wiki: GitRepo, cli) -> None:
    body = QUEUE_PY.split("    def drain", maxsplit=1)[0]
    wiki.write("src/taskq/queue.py", body)
    wiki.write("src/taskq/drain.py", "def drain(queue):\n    items, queue.items = queue.items, []\n    return items\n")
    wiki.commit("drain moved to its own module")
    run = cli("check", "--repo", wiki.root, "--base", "HEAD~1")
    assert (run.code, "Broken references" in run.out) == (0, False)  # `pip install taskq`, `True`: not references


def test_a_full_check_reports_missing_paths_and_coverage(wiki: GitRepo, cli) -> None:
    wiki.write("openwiki/setup.md", SETUP_MD + "\nThe entry point is `src/taskq/main.py`; see [the queue](queue.md).\n")
    run = cli("check", "--repo", wiki.root, "--verbose")
    assert run.code == 1
    assert "  ✗ openwiki/setup.md:5  src/taskq/main.py: no such path in the repository\n" in run.out
    assert "Coverage: claims on 0 of 2 pages; 0% of 4 paragraphs carry a grounded quote\n" in run.out
    assert "  openwiki/queue.md  0 claims, 0 of 2 paragraphs grounded (0%)\n" in run.out
