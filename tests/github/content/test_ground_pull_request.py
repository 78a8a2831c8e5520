"""The grounding pull request, decided without I/O (`bot.github.content.ground_pull_request`, and the fix's rules of
`bot.github.content.pull_requests` for the kind `GROUND`): which pages a run grounds, the key, the body and title, what the check
run says, and that a grounding's marker and a fix's never stand for each other."""

from __future__ import annotations

import dataclasses

from inertcheck import assert_inert_markdown, assert_inert_plain, visible

from bot.claims.sidecar import Claim, EvidenceRecord
from bot.fix.engine import Usage
from bot.github.content.ground_pull_request import (
    ground_body,
    ground_counts,
    ground_proposal,
    ground_tail,
    grounding_key,
    next_batch,
    proposed_pages,
)
from bot.github.content.pull_requests import (
    FIX,
    GROUND,
    BranchState,
    PublicationPlan,
    announce,
    evidence_links,
    plan_publication,
)
from bot.ground.answer import Unsupported
from bot.ground.build import PageGrounding
from bot.ground.work import GroundWork
from bot.report.fix import BODY_LIMIT
from bot.usecases.ground import GroundResult

PAGE = "openwiki/queue.md"
RES = "repo://src/q.py#L3-L9"
CLAIM = Claim("claim_" + "1" * 32, "pop takes the oldest task", (EvidenceRecord(RES, "repo-lines-v1:abc"),))
QUOTES = b'{"schemaVersion": 1, "quotes": {"claim_' + b"1" * 32 + b'": "pop takes the oldest"}, "groundedPage": "v"}\n'
OLD = "---\ntitle: Q\n---\n\n# Q\n\nThe queue holds 50 items.\n\npop takes the oldest task.\n"
NEW = "---\ntitle: Q\nverified: []\n---\n\n# Q\n\nThe queue holds 100 items.\n\npop takes the oldest task.\n"


def grounded(page: str = PAGE, **fields: object) -> PageGrounding:
    values: dict[str, object] = {
        "added": [CLAIM],
        "files": {page: NEW.encode(), "openwiki/.wikiwarden/quotes/queue.json": QUOTES},
    }
    values.update(fields)
    return PageGrounding(page, **values)  # type: ignore[arg-type]


def result(*pages: PageGrounding, waiting: tuple[str, ...] = (), model: str | None = "m") -> GroundResult:
    files = {path: data for page in pages for path, data in page.files.items()}
    return GroundResult(list(pages), files, Usage(100, 20, 2), model, list(waiting))


# -- which pages a run grounds ----------------------------------------------------------------------------------


def test_the_pages_an_open_pull_request_proposes_are_read_from_its_files() -> None:
    paths = {
        "openwiki/.claims/queue.json", "openwiki/.wikiwarden/quotes/setup.json", "openwiki/a/b.md",
        "openwiki/.wikiwarden/quotes/a/c.json", "src/q.py", "docs/x.md",
    }  # fmt: skip
    assert proposed_pages(paths, "openwiki") == {
        "openwiki/queue.md", "openwiki/setup.md", "openwiki/a/b.md", "openwiki/a/c.md",
    }  # fmt: skip
    assert proposed_pages({"docs/.claims/x.json", "docs/.wikiwarden/quotes/y.json"}, "docs") == {
        "docs/x.md",
        "docs/y.md",
    }


def work(*pages: str) -> list[GroundWork]:
    return [GroundWork(page, page.replace("openwiki/", "openwiki/.claims/")[:-3] + ".json", "# x\n") for page in pages]


def test_a_run_grounds_the_open_pull_requests_pages_and_at_most_a_batch_more() -> None:
    pages = [f"openwiki/p{n}.md" for n in range(6)]
    kept, waiting = next_batch(work(*pages), ["openwiki/p9.md"], {"openwiki/p1.md", "openwiki/p3.md"}, 2)
    assert [w.page for w in kept] == ["openwiki/p0.md", "openwiki/p1.md", "openwiki/p2.md", "openwiki/p3.md"]
    assert waiting == ["openwiki/p4.md", "openwiki/p5.md", "openwiki/p9.md"]  # in page order
    first, later = next_batch(work(*pages[:3]), [], set(), 1)
    assert [w.page for w in first] == ["openwiki/p0.md"] and later == pages[1:3]
    assert next_batch(work(*pages[:2]), [], set(), 5)[1] == []


# -- what it proposes --------------------------------------------------------------------------------------------


def test_the_key_is_what_the_grounding_decides_not_how_or_when() -> None:
    key = grounding_key([grounded()])
    restamped = grounded(files={PAGE: NEW.replace("verified: []", "verified: [x]").encode(), "q": QUOTES})
    assert grounding_key([restamped]) == key  # stamps and quotes files are not decisions
    assert grounding_key([grounded(refused=[("x", "why")]), grounded("openwiki/failed.md", files={})]) == key
    assert grounding_key([grounded(added=[CLAIM._replace(statement="pop takes any task")])]) != key
    assert grounding_key([grounded(unsupported=[Unsupported(quote="50 items", reason="r")])]) != key
    assert grounding_key([grounded(corrected=True)]) != key
    assert grounding_key([grounded(corrected=True)]) != grounding_key(
        [grounded(corrected=True, files={PAGE: NEW.replace("100", "99").encode()})]
    )


def test_counts_and_what_is_left() -> None:
    pages = [
        grounded(corrected=True, unsupported=[Unsupported(quote="q", reason="r")]),
        grounded("openwiki/b.md", added=[CLAIM, CLAIM], refused=[("s", "w"), ("t", "w")]),
        grounded("openwiki/c.md", added=[], files={}, problem="the model's server answered 500"),
    ]
    assert ground_counts(pages) == (
        "3 pages, 3 claims added, 1 page corrected, 1 statement unsupported, 2 claims refused, 1 page not grounded"
    )
    assert ground_counts([grounded()]) == "1 page, 1 claim added"
    tail = ground_tail(result(*pages, waiting=("openwiki/d.md",)))
    assert (
        tail
        == " 3 statements need a person. 1 page was not grounded. 1 more page without claims waits for the next run."
    )
    assert ground_tail(result(grounded())) == ""


def test_the_body_lists_every_page_and_what_happened_to_it() -> None:
    pages = [
        grounded(corrected=True, unsupported=[Unsupported(quote="Install with pip", reason="no package")]),
        grounded("openwiki/refused.md", added=[], files={}, refused=[("The queue is thread-safe.", "its quote is not text of the page body")]),
        grounded("openwiki/failed.md", added=[], files={}, problem="the model's server answered 500"),
        grounded("openwiki/setup.md", added=[], files={"openwiki/.wikiwarden/quotes/setup.json": b"{}"}),
    ]  # fmt: skip
    link = evidence_links("https://github.com/acme/q", None, "c" * 40)
    body = ground_body(
        result(*pages, waiting=("openwiki/z.md",)), {PAGE: OLD}, heading="H", marker="<!-- m -->", wiki_dir="openwiki",
        link=link,
    )  # fmt: skip
    assert body.startswith("<!-- m -->\n## H\n\n4 pages, 1 claim added, 1 page corrected, 1 statement unsupported, ")
    assert (
        f"### `openwiki/queue.md`\n\n- [x] **added** “pop takes the oldest task” · `{CLAIM.id}`\n"
        f"  Quote: “pop takes the oldest”. Evidence: `{RES}` ([now](https://github.com/acme/q/blob/{'c' * 40}/src/q.py#L3-L9))\n"
        "- [x] **corrected**: the prose now says what the code shows\n"
    ) in body
    assert (
        "  -The queue holds 50 items.\n  +The queue holds 100 items.\n" in body
    )  # only the prose, not the front matter
    assert "- [ ] **unsupported** “Install with pip”: no package" in body
    assert "### `openwiki/refused.md`\n\n- [ ] **refused** “The queue is thread-safe.”: its quote is not text" in body
    assert "### `openwiki/failed.md`\n\n- [ ] **not grounded**: the model's server answered 500" in body
    assert "### `openwiki/setup.md`\n\nNothing to claim: the page states nothing the code shows" in body
    assert "1 more page without claims waits for the next run" in body
    assert body.endswith("Model: `m` · 120 tokens (prompt 100, completion 20) in 2 calls\n")
    no_model = ground_body(result(grounded(), model=None), {}, heading="H", marker="", wiki_dir="openwiki")
    assert no_model.endswith("No model is configured: nothing could be grounded.\n")


def test_a_body_too_long_for_github_is_cut_between_pages() -> None:
    many = [grounded(f"openwiki/p{n:04}.md", added=[CLAIM] * 40) for n in range(60)]
    body = ground_body(result(*many), {}, heading="H", marker="", wiki_dir="openwiki")
    assert len(body) <= BODY_LIMIT
    assert "_…the list was cut here to fit; the pull request's files hold every page it grounds._" in body
    assert body.rstrip().endswith("in 2 calls")  # the model and the cost are never cut off
    last = body.split("_…the list was cut")[0].rstrip().splitlines()[-1]
    assert last.startswith("  Evidence: ")  # the last page listed is whole


def test_the_proposal_names_its_marker_title_and_heading() -> None:
    key, title, body = ground_proposal(
        result(grounded()), {}, target="main", fixed="c" * 40, wiki_dir="openwiki", link=None
    )
    assert key == grounding_key([grounded()])
    assert title == "Wiki grounding of main ccccccc: 1 page, 1 claim added"
    assert body.startswith(GROUND.marker(None, key) + "\n## Wikiwarden: grounding the wiki of `main`\n")
    assert GROUND.branch_for("main") == "wikiwarden/ground/main" and GROUND.read_marker(body) == (None, key)
    _, long_title, _ = ground_proposal(
        result(grounded()), {}, target="b" * 400, fixed="c" * 40, wiki_dir="w", link=None
    )
    assert len(long_title) == 250


# -- the fix's rules, for a grounding ------------------------------------------------------------------------------

KEY = "f" * 32


def pull(number: int, marker: str, *, state: str = "closed") -> dict:
    return {"number": number, "state": state, "html_url": f"https://github.com/acme/q/pull/{number}", "body": marker,
            "merged_at": None}  # fmt: skip


def test_a_declined_grounding_is_not_proposed_again_and_a_fix_marker_is_no_grounding() -> None:
    branch = GROUND.branch_for("main")
    declined = BranchState(branch, sha="b" * 40, closed_pulls=[pull(5, GROUND.marker(None, KEY))], kind=GROUND)
    assert plan_publication(declined, KEY) == PublicationPlan("declined", declined.closed_pulls[0])
    assert plan_publication(declined, "e" * 32).outcome == "opened"
    as_fix = BranchState(branch, sha="b" * 40, closed_pulls=[pull(5, FIX.marker(None, KEY))], kind=GROUND)
    assert plan_publication(as_fix, KEY).outcome == "opened"  # a fix's marker never declines a grounding
    assert FIX.read_marker(GROUND.marker(None, KEY)) is None and GROUND.read_marker(FIX.marker(None, KEY)) is None
    both = FIX.marker(None, KEY) + "\n" + GROUND.marker("a" * 40, "e" * 32)  # each kind finds its own
    assert (FIX.read_marker(both), GROUND.read_marker(both)) == ((None, KEY), ("a" * 40, "e" * 32))


def test_what_the_check_run_says_about_a_grounding() -> None:
    state = BranchState(GROUND.branch_for("main"), kind=GROUND)
    opened = announce(PublicationPlan("opened"), pull(9, "", state="open"), state, "2 pages, 3 claims added")
    assert opened.text == "Grounding pull request #9 opened: 2 pages, 3 claims added."
    assert opened.url == "https://github.com/acme/q/pull/9"
    same = announce(PublicationPlan("unchanged"), pull(9, ""), state, "2 pages, 3 claims added", " Tail.")
    assert same.text == "Grounding pull request #9 already holds this grounding: 2 pages, 3 claims added. Tail."
    declined = announce(PublicationPlan("declined"), pull(5, ""), state, "")
    assert declined.text.startswith("This very grounding was proposed in #5 and closed without merging;")
    assert "`wikiwarden ground --dry-run`" in declined.text
    theirs = dataclasses.replace(state, person="alice")
    handed = announce(PublicationPlan("handed-off"), None, theirs, "")
    assert handed.text == (
        "The branch `wikiwarden/ground/main` has commits by alice, so Wikiwarden no longer updates it. Merge or "
        "close that work, or delete the branch, and Wikiwarden will propose groundings again."
    )
    assert "proposes no grounding here" in GROUND.fork


HOSTILE = "cc @octocat, closes #1 <img src=x onerror=alert(1)> | **b** `x`"
HOSTILE_PAGE = "openwiki/@octocat fixes #4 `x`|<b>.md"
HOSTILE_BRANCH = "docs`@acme/core`</details>#1|<b>&x"


def test_hostile_pages_statements_quotes_reasons_and_branches_are_inert() -> None:
    page = PageGrounding(
        HOSTILE_PAGE,
        added=[Claim("claim_" + "2" * 32, HOSTILE, (EvidenceRecord("repo://src/@x #5.py#L1-L2", "v"),))],
        corrected=True,
        unsupported=[Unsupported(quote="see https://evil.example @octocat", reason="fixes #6 </details>")],
        refused=[("GH-7 <script>x</script>", "@acme/core said so\n# heading")],
        problem="closes other/repo#8",
        files={HOSTILE_PAGE: b"# x\n\n```\n</details>\n@octocat #9\n", "openwiki/.wikiwarden/quotes/x.json": b"{}"},
    )
    key, title, body = ground_proposal(
        result(page), {HOSTILE_PAGE: "# x\n\nold\n"}, target=HOSTILE_BRANCH, fixed="c" * 40, wiki_dir="openwiki",
        link=None,
    )  # fmt: skip
    assert_inert_plain(title)
    assert visible(title).startswith(f"Wiki grounding of {HOSTILE_BRANCH} ccccccc: ")
    reading = assert_inert_markdown(
        body, html=rf"<!-- wikiwarden:ground since=none change={key} -->|<details><summary>what changed</summary>|</details>"
    )  # fmt: skip
    assert [visible(h) for h in reading.headings] == [
        f"Wikiwarden: grounding the wiki of {HOSTILE_BRANCH}",
        HOSTILE_PAGE,
    ]
    texts = visible("".join(reading.texts))
    assert f"“{HOSTILE}”" in texts and "“GH-7 <script>x</script>”: @acme/core said so # heading" in texts
    assert "“see https://evil.example @octocat”: fixes #6 </details>" in texts
    # the page's own `</details>` stays inside the diff's fence: the only HTML is the marker and our details
    assert [h.strip() for h in reading.html] == [
        f"<!-- wikiwarden:ground since=none change={key} -->", "<details><summary>what changed</summary>", "</details>"
    ]  # fmt: skip
    state = BranchState(GROUND.branch_for(HOSTILE_BRANCH), person="@octocat <b> closes #2", kind=GROUND)
    handed = assert_inert_markdown(announce(PublicationPlan("handed-off"), None, state, "").text)
    assert [visible(c) for c in handed.codes] == [GROUND.branch_for(HOSTILE_BRANCH)]
