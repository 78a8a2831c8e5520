"""The fix core (bot/fix), without a model: planning from a real sweep, every rule the answer checker
enforces, the files `fix_wiki` writes (byte for byte), and the summaries people read.

The inputs are real: a git repository whose wiki is grounded by bot.claims, a commit that moves, reformats,
changes and deletes evidence, the sweep of it. Decisions that would come from a model are PageAnswers given
to the real checker; the agent itself is tested against the fake OpenAI in test_agent.py."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from fixtools import (
    ACTOR,
    ADD,
    AT,
    CART_PAGE,
    CART_V2,
    CHECKOUT,
    LEGACY_PAGE,
    LIMIT,
    LIMITS,
    TAX,
    WIKI,
    Prepared,
    answer,
    cid,
    decision,
    edit,
    prepare,
    write_grounded,
)
from inertcheck import assert_inert_markdown, visible

from bot.claims import resolve_evidence
from bot.claims.errors import Problem
from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar
from bot.claims.verdicts import Verdict
from bot.fix.answer import PageAnswer, answer_schema
from bot.fix.check import Checked, check_answer, current_evidence
from bot.fix.engine import Action, ClaimOutcome, FixResult, PageDecisions, Usage, last_update
from bot.fix.view import CodeView
from bot.fix.work import PageWork, plan_work
from bot.report.fix import BODY_LIMIT, pull_request_body, render_text

CART = f"{WIKI}/cart.md"
LEGACY = f"{WIKI}/legacy.md"
CART_SIDECAR = f"{WIKI}/.claims/cart.json"
LEGACY_SIDECAR = f"{WIKI}/.claims/legacy.json"
LAST = f"{WIKI}/.last-update.json"
LIMITS_CRLF = LIMITS.replace("\n", "\r\n")


def record(resource: str, content: str) -> EvidenceRecord:
    """The record OpenWiki would store for `resource` in a file holding `content`."""
    found = resolve_evidence(resource, content.encode())
    assert found is not None
    return EvidenceRecord(found.resource, found.version)


def source(resource: str) -> str:
    return f"  - id: openwiki-source-{hashlib.sha256(resource.encode()).hexdigest()[:24]}\n    resource: {resource}\n"


def with_sources(page: str, *resources: str, extra: str = "") -> str:
    """The page with `sources:` (and `extra` front matter lines) appended to its front matter."""
    head, body = page.split("\n---\n", 1)
    return head + "\nsources:\n" + "".join(source(r) for r in resources) + extra + "---\n" + body


class Scripted:
    """A Decider that 'answers' with fixed PageAnswers, through the real checker (what the agent does once
    it has a valid answer in hand)."""

    model = "scripted-model"

    def __init__(self, answers: dict[str, dict]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    async def decide(self, work: PageWork, view: CodeView, wiki_dir: str) -> PageDecisions:
        self.asked.append(work.page)
        checked = await check_answer(PageAnswer.model_validate(self.answers[work.page]), work, view, wiki_dir)
        flagged = {claim_id: f"refused: {why}" for claim_id, why in checked.claim_problems.items()}
        return PageDecisions(checked, flagged, Usage(prompt_tokens=100, completion_tokens=20, calls=1))


async def check(shop: Prepared, page: str, *claims: dict, edits: list[dict] | None = None) -> Checked:
    return await check_answer(PageAnswer.model_validate(answer(*claims, edits=edits)), shop.page(page), shop.view, WIKI)


# -- planning ----------------------------------------------------------------------------------------------


def test_plan_work_reads_what_the_sweep_found(shop: Prepared) -> None:
    assert [w.page for w in shop.work] == [CART, LEGACY]
    cart, legacy = shop.work
    assert cart.sidecar_path == CART_SIDECAR
    assert cart.text == CART_PAGE
    assert {i: r.verdict for i, r in cart.results.items()} == {
        ADD: Verdict.MOVED,
        TAX: Verdict.STALE,
        LIMIT: Verdict.COSMETIC,
    }
    assert [w.claim.id for w in cart.to_decide] == [TAX]  # moved and cosmetic need no decision
    assert cart.to_decide[0].claim.statement == "The tax rate is 20%."
    assert (cart.errors, cart.over_cap) == ([], [])
    assert [w.claim.id for w in legacy.to_decide] == [CHECKOUT]
    assert legacy.to_decide[0].result.verdict is Verdict.UNRESOLVED
    assert all(w.decidable for p in shop.work for w in p.to_decide)


def test_plan_work_caps_the_claims_decided_and_keeps_the_rest_counted(shop: Prepared) -> None:
    work = plan_work(shop.report, shop.local.snapshot.read, 1)
    cart, legacy = work
    assert [w.claim.id for w in cart.to_decide] == [TAX]
    assert legacy.to_decide == []
    assert [w.claim.id for w in legacy.over_cap] == [CHECKOUT]
    assert legacy.has_work
    assert plan_work(shop.report, shop.local.snapshot.read, 0)[0].over_cap[0].claim.id == TAX


def test_plan_work_without_a_base_takes_every_claim_that_needs_attention(shop_root: Path) -> None:
    """A full sweep (no base) cannot tell a line-ending change from a lost text: OpenWiki's resolver calls the
    CRLF line unresolved, so it is decided too; with a base it was re-anchored (cosmetic)."""
    prepared = prepare(shop_root, base=None)
    try:
        assert prepared.report.base is None
        cart, legacy = prepared.work
        assert {i: r.verdict for i, r in cart.results.items()} == {
            ADD: Verdict.MOVED,
            TAX: Verdict.STALE,
            LIMIT: Verdict.UNRESOLVED,
        }
        assert [w.claim.id for w in cart.to_decide] == [TAX, LIMIT]
        assert [w.claim.id for w in legacy.to_decide] == [CHECKOUT]
    finally:
        prepared.repo.close()


def test_plan_work_reports_errors_apart_and_skips_pages_without_work(make_repo) -> None:
    repo = make_repo()
    repo.write("src/a.py", "A = 1\nB = 2\n")
    repo.write("src/real.py", "X = 1\n")
    repo.write("src/link.py", "X = 1\n")
    write_grounded(
        repo,
        {
            "a.md": ("# A\n\nA is 1.\n", [("claim_" + "a" * 32, "A is 1.", ["repo://src/a.py#L1"])]),
            "link.md": ("# L\n\nX.\n", [("claim_" + "b" * 32, "X is 1.", ["repo://src/link.py#L1"])]),
        },
    )
    repo.commit("v1", tag="v1")
    repo.remove("src/link.py")
    repo.symlink("src/link.py", "real.py")  # the evidence file becomes a symlink: an error, not a decision
    repo.write("src/a.py", "A = 1\nB = 3\n")  # touched, but the claim's own line is fresh
    repo.commit("v2")
    prepared = prepare(repo.root)
    try:
        assert [w.page for w in prepared.work] == [f"{WIKI}/link.md"]
        (link,) = prepared.work
        assert link.to_decide == []
        assert [w.claim.id for w in link.errors] == ["claim_" + "b" * 32]
        assert not link.errors[0].decidable
        assert plan_work(prepared.report, prepared.local.snapshot.read, 0)[0].over_cap == []  # errors never count
    finally:
        prepared.repo.close()


# -- deterministic: no model -------------------------------------------------------------------------------


async def test_without_a_model_evidence_is_reanchored_and_the_rest_flagged(shop: Prepared) -> None:
    result = await shop.fix(None)

    assert result.model is None
    assert result.usage == Usage()
    assert [(o.page, o.claim_id, o.action) for o in result.outcomes] == [
        (CART, ADD, Action.REANCHORED),
        (CART, TAX, Action.FLAGGED),
        (CART, LIMIT, Action.REANCHORED),
        (LEGACY, CHECKOUT, Action.FLAGGED),
    ]
    by_id = {o.claim_id: o for o in result.outcomes}
    assert by_id[TAX].reason == "no model is configured: a person must confirm, update or retract it"
    assert by_id[CHECKOUT].reason == by_id[TAX].reason
    assert by_id[ADD].evidence_before == ("repo://src/shop/cart.py#L10-L11",)
    assert by_id[ADD].evidence_after == ("repo://src/shop/cart.py#L14-L15",)
    assert by_id[LIMIT].evidence_after == by_id[LIMIT].evidence_before == ("repo://src/shop/limits.py#L3-L3",)
    assert [o.claim_id for o in result.flagged] == [TAX, CHECKOUT]
    assert sorted(result.files) == sorted([CART, CART_SIDECAR, LEGACY, LEGACY_SIDECAR])  # no .last-update.json

    # The page: `sources` projected from the claims (whole files, localeCompare order); no `verified` while a
    # claim is flagged; the body untouched, so no `generated`.
    cart_page = with_sources(CART_PAGE, "repo://src/shop/cart.py", "repo://src/shop/limits.py")
    assert result.files[CART].decode() == cart_page
    legacy_page = with_sources(LEGACY_PAGE, "repo://src/shop/legacy.py")
    assert result.files[LEGACY].decode() == legacy_page

    # The sidecar, byte-identical to OpenWiki's writer: a moved record takes its new place and keeps its token
    # verbatim (as OpenWiki's resolver does), a cosmetic one gets the version of the text as it is now; the
    # stale record is kept as it was; pageVersion is the hash of the new page bytes.
    old = shop.sidecar("cart.md")
    expected = Sidecar(
        page_version(cart_page.encode()),
        (
            Claim(
                ADD,
                old.claims[0].statement,
                (EvidenceRecord("repo://src/shop/cart.py#L14-L15", old.claims[0].evidence[0].version),),
            ),
            old.claims[1],
            Claim(LIMIT, old.claims[2].statement, (record("repo://src/shop/limits.py#L3", LIMITS_CRLF),)),
        ),
    )
    assert expected.claims[2].evidence != old.claims[2].evidence  # cosmetic: same place, new version
    assert result.files[CART_SIDECAR] == render_sidecar(expected)
    assert result.files[LEGACY_SIDECAR] == render_sidecar(
        Sidecar(page_version(legacy_page.encode()), shop.sidecar("legacy.md").claims)
    )

    # `.last-update.json` is OpenWiki's to move while claims are flagged: its next update must still see the
    # change that made them stale.
    assert LAST not in result.files


async def test_a_page_whose_evidence_only_moved_is_verified(make_repo) -> None:
    repo = make_repo()
    repo.write("src/a.py", "def f():\n    return 1\n")
    page = "---\ntype: Concept\nverified:\n  - by: human:ana\n    at: 2025-01-01\n---\n\n# F\n\n`f` returns 1.\n"
    write_grounded(repo, {"f.md": (page, [("claim_" + "f" * 32, "f returns 1.", ["repo://src/a.py#L1-L2"])])})
    v1 = repo.commit("v1", tag="v1")
    repo.write("src/a.py", "import os\n\n\ndef f():\n    return 1\n")
    repo.commit("v2")
    # OpenWiki last brought the wiki up to date with v1, the base of this fix: every claim the commits since
    # then can have touched is checked, so a complete fix records its head as OpenWiki would.
    repo.write(f"{WIKI}/.last-update.json", json.dumps({"gitHead": v1, "model": "m", "language": "pt-BR"}))
    prepared = prepare(repo.root)
    try:
        (moved_from,) = prepared.sidecar("f.md").claims[0].evidence
        result = await prepared.fix(None)
    finally:
        prepared.repo.close()

    assert [(o.action, o.evidence_after) for o in result.outcomes] == [(Action.REANCHORED, ("repo://src/a.py#L4-L5",))]
    assert result.flagged == []
    # Reconciled: Wikiwarden's `verified` event is added after the person's, which is kept as written; the
    # new `sources` field goes last.
    expected_page = page.replace(
        "    at: 2025-01-01\n",
        f"    at: 2025-01-01\n  - by: {ACTOR}\n    at: {AT}\n" + "sources:\n" + source("repo://src/a.py"),
    )
    assert result.files[f"{WIKI}/f.md"].decode() == expected_page
    sidecar = Sidecar(
        page_version(expected_page.encode()),
        (Claim("claim_" + "f" * 32, "f returns 1.", (EvidenceRecord("repo://src/a.py#L4-L5", moved_from.version),)),),
        None,  # the sidecar's `verification` is OpenWiki's record: never Wikiwarden's (OpenWiki would project it twice)
    )
    assert result.files[f"{WIKI}/.claims/f.json"] == render_sidecar(sidecar)
    meta = json.loads(result.files[LAST])
    assert list(meta) == ["updatedAt", "command", "gitHead", "model", "status", "language"]
    assert (meta["status"], meta["model"], meta["language"]) == ("complete", "none", "pt-BR")


async def test_openwikis_own_folder_takes_okf_front_matter_with_or_without_its_record(make_repo) -> None:
    """`openwiki/` is OpenWiki's folder: its pages get OKF fields from the fix with or without `.last-update.json`,
    with or without front matter before (a person's docs site, which gets none, is tested in
    tests/faces/cli/test_cli_site.py)."""
    repo = make_repo()
    repo.write("src/a.py", "def f():\n    return 1\n")
    plain, fronted = "# F\n\n`f` returns 1.\n", "---\ntitle: F\n---\n\n# F\n\n`f` returns 1.\n"
    write_grounded(repo, {
        "plain.md": (plain, [("claim_" + "a" * 32, "f returns 1.", ["repo://src/a.py#L1-L2"])]),
        "fronted.md": (fronted, [("claim_" + "b" * 32, "f returns 1.", ["repo://src/a.py#L1-L2"])]),
    })  # fmt: skip
    repo.commit("v1", tag="v1")
    repo.write("src/a.py", "import os\n\n\ndef f():\n    return 1\n")
    repo.commit("v2")
    for openwiki in (False, True):
        if openwiki:
            repo.write(f"{WIKI}/.last-update.json", json.dumps({"gitHead": "0" * 40, "model": "m"}))
            repo.commit("OpenWiki's")
        prepared = prepare(repo.root)
        try:
            result = await prepared.fix(None)
        finally:
            prepared.repo.close()
        assert {o.action for o in result.outcomes} == {Action.REANCHORED}
        assert f"{WIKI}/.claims/plain.json" in result.files and f"{WIKI}/.claims/fronted.json" in result.files
        assert source("repo://src/a.py") in result.files[f"{WIKI}/fronted.md"].decode()
        assert source("repo://src/a.py") in result.files[f"{WIKI}/plain.md"].decode()


async def test_nothing_to_fix_writes_nothing(make_repo) -> None:
    repo = make_repo()
    repo.write("src/a.py", "A = 1\n")
    write_grounded(repo, {"a.md": ("# A\n", [("claim_" + "a" * 32, "A is 1.", ["repo://src/a.py#L1"])])})
    repo.commit("v1", tag="v1")
    repo.write("README.md", "unrelated\n")
    repo.commit("v2")
    prepared = prepare(repo.root)
    try:
        assert prepared.work == []
        result = await prepared.fix(None)
    finally:
        prepared.repo.close()
    assert (result.files, result.outcomes) == ({}, [])  # not even .last-update.json


async def test_a_page_with_broken_front_matter_does_not_stop_the_fix(make_repo) -> None:
    repo = make_repo()
    repo.write("src/a.py", "def f():\n    return 1\n")
    repo.write("src/b.py", "def g():\n    return 1\n")
    write_grounded(
        repo,
        {
            "bad.md": ("---\ntitle: [unclosed\n---\n\n# Bad\n", [(cid(1), "f returns 1.", ["repo://src/a.py#L1-L2"])]),
            "good.md": ("---\ntype: Concept\n---\n\n# Good\n", [(cid(2), "g returns 1.", ["repo://src/b.py#L1-L2"])]),
        },
    )
    repo.commit("v1", tag="v1")
    repo.write("src/a.py", "import os\n\n\ndef f():\n    return 1\n")
    repo.write("src/b.py", "import os\n\n\ndef g():\n    return 1\n")
    repo.commit("v2")
    prepared = prepare(repo.root)
    try:
        result = await prepared.fix(None)  # raises FrontMatterError today
    finally:
        prepared.repo.close()
    assert f"{WIKI}/.claims/good.json" in result.files  # the other page is still re-anchored
    assert f"{WIKI}/bad.md" not in result.files  # the broken page is left as it is


def test_last_update_keeps_the_language_and_says_whether_the_run_completed() -> None:
    def meta(previous: bytes | None, **kwargs) -> dict:
        data = last_update(
            previous, at=AT, head="a" * 40, model=kwargs.get("model"), complete=kwargs.get("complete", True)
        )
        assert data.endswith(b"}\n") and data.startswith(b'{\n  "updatedAt"')
        return json.loads(data)

    assert meta(None) == {
        "updatedAt": AT, "command": "update", "gitHead": "a" * 40, "model": "none", "status": "complete", "language": "en",
    }  # fmt: skip
    assert meta(b'{"language": "zh-TW", "command": "init"}', model="m")["language"] == "zh-TW"
    assert meta(b'{"language": "zh-TW"}', model="m")["model"] == "m"
    assert meta(b'{"language": "  "}')["language"] == "en"
    assert meta(b'{"language": 3}')["language"] == "en"
    assert meta(b"not json")["language"] == "en"
    assert meta(b'["a list"]')["language"] == "en"
    assert meta(None, complete=False)["status"] == "interrupted"
    assert "ü" in last_update('{"language": "ü"}'.encode(), at=AT, head="h", model=None, complete=True).decode()


# -- the checker: decisions ------------------------------------------------------------------------------


async def test_confirm_reanchors_the_evidence_to_the_text_as_it_is_now(shop: Prepared) -> None:
    checked = await check(shop, "cart.md", decision(TAX, "confirm"))
    assert checked.ok, checked.problems
    accepted = checked.decisions[TAX]
    assert accepted.action == "confirm"
    assert accepted.statement == "The tax rate is 20%."
    assert accepted.evidence == (record("repo://src/shop/cart.py#L3", CART_V2),)
    assert accepted.evidence != shop.sidecar("cart.md").claims[1].evidence  # the version was recomputed
    assert checked.text == CART_PAGE


async def test_a_confirm_does_not_rewrite_the_statement(shop: Prepared) -> None:
    result = await shop.fix(
        Scripted(
            {
                CART: answer(decision(TAX, "confirm", statement="Prices carry no tax.")),
                LEGACY: answer(decision(CHECKOUT, "retract")),
            }
        )
    )
    tax = next(o for o in result.outcomes if o.claim_id == TAX)
    # Either refused (flagged) or called what it is (an update); never a "confirmed" claim with a new statement.
    assert not (tax.action is Action.CONFIRMED and tax.new_statement is not None)


async def test_an_unresolved_claim_cannot_be_confirmed(shop: Prepared) -> None:
    checked = await check(shop, "legacy.md", decision(CHECKOUT, "confirm"))
    assert not checked.ok
    assert checked.claim_problems == {
        CHECKOUT: f"claim {CHECKOUT}: it cannot be confirmed as it is: its evidence repo://src/shop/legacy.py#L1-L2 "
        "is gone; give new evidence (update) or retract it"
    }
    records, why = current_evidence(shop.page("legacy.md").to_decide[0])
    assert records is None and "is gone" in why


async def test_update_with_a_new_statement_keeps_the_current_evidence(shop: Prepared) -> None:
    checked = await check(shop, "cart.md", decision(TAX, "update", statement="  The tax rate is 25%.\n"))
    assert checked.ok, checked.problems
    assert checked.decisions[TAX].statement == "The tax rate is 25%."  # trimmed as JavaScript trims
    assert checked.decisions[TAX].evidence == (record("repo://src/shop/cart.py#L3", CART_V2),)


async def test_update_with_new_evidence_that_resolves(shop: Prepared) -> None:
    checked = await check(
        shop,
        "legacy.md",
        decision(
            CHECKOUT,
            "update",
            statement="`total` sums the prices, tax included.",
            evidence=["repo://src/shop/cart.py#L17-L18", "repo://src/shop/limits.py"],
        ),
    )
    assert checked.ok, checked.problems
    assert checked.decisions[CHECKOUT].evidence == (
        record("repo://src/shop/cart.py#L17-L18", CART_V2),
        record("repo://src/shop/limits.py", LIMITS_CRLF),  # whole-file evidence: a repo-file-v1 version
    )
    assert checked.decisions[CHECKOUT].evidence[1].version.startswith("repo-file-v1:sha256:")


async def test_retract_needs_no_evidence(shop: Prepared) -> None:
    checked = await check(shop, "legacy.md", decision(CHECKOUT, "retract", reason="legacy.py is gone"))
    assert checked.ok
    assert checked.decisions[CHECKOUT].action == "retract"
    assert checked.decisions[CHECKOUT].evidence == ()
    assert checked.decisions[CHECKOUT].reason == "legacy.py is gone"


@pytest.mark.parametrize(
    ("resources", "problem"),
    [
        (
            ["repo://src/shop/missing.py#L1"],
            "'repo://src/shop/missing.py#L1' does not resolve: src/shop/missing.py does not exist in working tree",
        ),
        (
            ["repo://src/shop/cart.py#L18-L19"],
            "'repo://src/shop/cart.py#L18-L19' does not resolve: repo://src/shop/cart.py#L18-L19: src/shop/cart.py has only 18 lines",
        ),
        (
            ["repo://src/shop/current.py#L1"],
            "src/shop/current.py is a symlink or lies under one; evidence must be a regular file",
        ),
        (["repo://src/shop/logo.png"], "src/shop/logo.png is a binary file"),
        (["repo://src/shop/secret.py#L1"], "src/shop/secret.py is excluded by .openwikiignore"),
        (["repo://openwiki/cart.md#L1"], "reserved path"),
        (["repo://src/../openwiki/cart.md"], "reserved path"),
        (["repo://../etc/passwd"], "path must stay inside the repository"),
        (["repo://src/shop/../../../etc/passwd"], "path must stay inside the repository"),
        (["repo:///etc/passwd"], "path must stay inside the repository"),
        (["https://example.com/cart.py"], "Unsupported evidence resource"),
        (["repo://src/shop/cart.py#L3-L1"], "range ends before it starts"),
        (
            ["repo://src/shop/cart.py#L3", "repo://src/shop/cart.py#L3-L3"],
            "evidence repo://src/shop/cart.py#L3-L3 is listed twice",
        ),
    ],
)
async def test_update_evidence_that_does_not_resolve_is_refused(
    shop: Prepared, resources: list[str], problem: str
) -> None:
    checked = await check(shop, "legacy.md", decision(CHECKOUT, "update", statement="It totals.", evidence=resources))
    assert not checked.ok
    assert CHECKOUT not in checked.decisions
    assert problem in checked.claim_problems[CHECKOUT]


async def test_the_code_view_reads_only_what_evidence_may_cite(shop: Prepared) -> None:
    view = shop.view
    assert "reserved path" in str(view.problem("openwiki/.claims/cart.json"))
    assert view.problem("src/shop/secret.py") == Problem("src/shop/secret.py is excluded by .openwikiignore")
    assert view.problem("src/shop/cart.py") is None
    assert "symlink" in str(await view.read("src/shop/current.py"))
    assert await view.read("src/shop/logo.png") == Problem("src/shop/logo.png is a binary file")
    assert await view.read("src/shop/legacy.py") is None  # deleted
    assert (await view.read("src/shop/cart.py")).text == CART_V2
    # The search looks in the change's files and the evidence's folders, never in what evidence may not cite.
    assert view.search_paths == sorted(
        ["src/shop/cart.py", "src/shop/current.py", "src/shop/limits.py", "src/shop/logo.png", "src/shop/secret.py"]
    )
    assert [(h.path, h.line, h.text) for h in await view.search("TAX_RATE")] == [
        ("src/shop/cart.py", 3, "TAX_RATE = 0.25"),
        ("src/shop/cart.py", 18, "        return sum(price for _, price in self.items) * (1 + TAX_RATE)"),
    ]
    assert await view.search("hunter2") == []
    assert await view.search("   ") == []
    assert [h.path for h in await view.search("MAX_ITEMS", "src/shop/lim")] == ["src/shop/limits.py"]
    assert await view.search("MAX_ITEMS", "lib/") == []


@pytest.mark.parametrize(
    ("statement", "evidence", "problem"),
    [
        (
            "`checkout_v2` totals a cart.",
            ["repo://src/shop/cart.py#L17-L18"],
            "the statement quotes `checkout_v2`, which its evidence does not contain",
        ),
        ("`total` uses `MAX_ITEMS`.", ["repo://src/shop/cart.py#L17-L18"], "the statement quotes `MAX_ITEMS`"),
        ("", ["repo://src/shop/cart.py#L17-L18"], "the statement must be 1 to 2000 characters"),
        ("   ", None, "the statement must be 1 to 2000 characters"),
        ("x" * 2001, None, "the statement must be 1 to 2000 characters"),
        (None, None, "an update needs a new statement or new evidence"),
        (None, [], "an update needs a new statement or new evidence"),
    ],
)
async def test_update_statements_are_checked(shop: Prepared, statement, evidence, problem: str) -> None:
    checked = await check(shop, "legacy.md", decision(CHECKOUT, "update", statement=statement, evidence=evidence))
    assert problem in checked.claim_problems[CHECKOUT]


async def test_a_quoted_identifier_the_evidence_holds_passes(shop: Prepared) -> None:
    checked = await check(
        shop, "cart.md", decision(TAX, "update", statement="`TAX_RATE` is 0.25: prices are taxed at 25%.")
    )
    assert checked.ok, checked.problems
    # The secret's comment names TAX_RATE, but evidence cannot cite an ignored file, so it cannot vouch for it.
    refused = await check(
        shop,
        "legacy.md",
        decision(CHECKOUT, "update", statement="`API_TOKEN` is set.", evidence=["repo://src/shop/secret.py#L1"]),
    )
    assert "excluded by .openwikiignore" in refused.claim_problems[CHECKOUT]


async def test_claims_not_asked_about_missing_or_answered_twice(shop: Prepared) -> None:
    checked = await check(
        shop,
        "cart.md",
        decision(ADD, "retract"),  # on the page, but moved: not to decide
        decision(CHECKOUT, "retract"),  # another page's claim
        decision("claim_" + "9" * 32, "confirm"),  # no such claim
    )
    assert checked.claim_problems == {TAX: f"claim {TAX} was not answered"}
    assert checked.other_problems == [
        f"claim {ADD!r} is not one of the claims to decide on this page",
        f"claim {CHECKOUT!r} is not one of the claims to decide on this page",
        f"claim {'claim_' + '9' * 32!r} is not one of the claims to decide on this page",
    ]
    assert checked.decisions == {}

    twice = await check(shop, "cart.md", decision(TAX, "confirm"), decision(TAX, "retract"))
    assert twice.claim_problems == {TAX: f"claim {TAX} is answered twice"}
    assert twice.decisions == {}


# -- the checker: edits ----------------------------------------------------------------------------------


async def test_prose_edits_are_applied_exactly(shop: Prepared) -> None:
    checked = await check(
        shop,
        "cart.md",
        decision(TAX, "update", statement="The tax rate is 25%."),
        edits=[
            edit("The tax rate is 20%.", "The tax rate is 25%."),
            edit("at most 10 items", "at most ten items", file="/openwiki/cart.md"),  # a leading slash is the page
            edit("ten items.\n", "ten items (see `MAX_ITEMS`).\n", file="./openwiki/cart.md"),  # sees the edit before
        ],
    )
    assert checked.ok, checked.problems
    assert checked.text == CART_PAGE.replace("20%", "25%").replace(
        "at most 10 items.", "at most ten items (see `MAX_ITEMS`)."
    )


@pytest.mark.parametrize(
    ("target", "where"),
    [
        (".github/workflows/ci.yml", "a file outside the wiki"),
        ("src/shop/cart.py", "a file outside the wiki"),
        ("../openwiki/cart.md", "a file outside the wiki"),
        ("openwiki/.claims/cart.json", "a sidecar"),
        ("openwiki/.claims/x.json", "a sidecar"),
        ("openwiki/legacy.md", "another page"),
        ("openwiki/index.md", "another page"),
        ("openwiki/sub/../cart.md", "another page"),
    ],
)
async def test_an_edit_of_any_other_file_is_refused(shop: Prepared, target: str, where: str) -> None:
    checked = await check(shop, "cart.md", decision(TAX, "confirm"), edits=[edit("The tax", "Tax", file=target)])
    assert checked.other_problems == [
        f"edit refused: {target!r} is {where}; the fix may only change the prose of {CART}"
    ]
    assert checked.text == CART_PAGE
    assert checked.decisions[TAX].action == "confirm"  # the claim's decision itself passed


@pytest.mark.parametrize(
    ("search", "replace", "problem"),
    [
        ("The VAT rate", "x", "edit refused: its search text occurs 0 times in the page body"),
        ("cart", "x", "edit refused: its search text occurs 2 times in the page body"),  # "# The cart", "A cart holds"
        (
            "title: The cart",
            "title: Hacked",
            "edit refused: its search text occurs 0 times in the page body (edits change the body, never the front matter)",
        ),
        ("type: Concept", "type: Secret", "(edits change the body, never the front matter)"),
        ("", "x", "edit refused: the search text is empty or the replacement too long"),
        ("The tax", "x" * 20_001, "edit refused: the search text is empty or the replacement too long"),
    ],
)
async def test_edits_that_do_not_match_once_in_the_body_are_refused(shop: Prepared, search, replace, problem) -> None:
    checked = await check(shop, "cart.md", decision(TAX, "confirm"), edits=[edit(search, replace)])
    assert any(problem in p for p in checked.other_problems), checked.other_problems
    assert checked.text == CART_PAGE  # one refused edit: none is applied


async def test_one_refused_edit_keeps_every_edit_out(shop: Prepared) -> None:
    checked = await check(
        shop, "cart.md", decision(TAX, "confirm"),
        edits=[edit("The tax rate is 20%.", "The tax rate is 25%."), edit("nowhere", "x")],
    )  # fmt: skip
    assert checked.text == CART_PAGE
    assert not checked.ok


async def test_an_edit_cannot_add_front_matter_to_a_page_without_it(make_repo) -> None:
    repo = make_repo()
    repo.write("src/a.py", "A = 1\n")
    write_grounded(repo, {"a.md": ("# A\n\nA is 1.\n", [("claim_" + "a" * 32, "A is 1.", ["repo://src/a.py#L1"])])})
    repo.commit("v1", tag="v1")
    repo.write("src/a.py", "A = 2\n")
    repo.commit("v2")
    prepared = prepare(repo.root)
    try:
        checked = await check_answer(
            PageAnswer.model_validate(
                answer(
                    decision("claim_" + "a" * 32, "update", statement="A is 2."),
                    edits=[edit("# A\n", "---\ntype: Secret\n---\n# A\n", file="openwiki/a.md")],
                )
            ),
            prepared.work[0], prepared.view, WIKI,
        )  # fmt: skip
    finally:
        prepared.repo.close()
    assert checked.other_problems == ["edit refused: the front matter must not change"]
    assert checked.text == "# A\n\nA is 1.\n"


# -- applying decisions ----------------------------------------------------------------------------------


async def test_decisions_are_applied_to_the_sidecar_and_the_page(shop: Prepared) -> None:
    decider = Scripted(
        {
            CART: answer(
                decision(TAX, "update", statement="The tax rate is 25%.", reason="TAX_RATE is 0.25 now"),
                edits=[edit("The tax rate is 20%.", "The tax rate is 25%.")],
            ),
            LEGACY: answer(decision(CHECKOUT, "retract", reason="legacy.py was deleted")),
        }
    )
    result = await shop.fix(decider)

    assert decider.asked == [CART, LEGACY]
    assert result.model == "scripted-model"
    assert result.usage == Usage(prompt_tokens=200, completion_tokens=40, calls=2)
    assert [(o.claim_id, o.action) for o in result.outcomes] == [
        (ADD, Action.REANCHORED),
        (TAX, Action.UPDATED),
        (LIMIT, Action.REANCHORED),
        (CHECKOUT, Action.RETRACTED),
    ]
    tax = result.outcomes[1]
    assert (tax.statement, tax.new_statement, tax.reason) == (
        "The tax rate is 20%.", "The tax rate is 25%.", "TAX_RATE is 0.25 now",
    )  # fmt: skip
    assert result.flagged == []

    # The prose changed: `generated` is stamped; every claim holds: `verified` too.
    cart_page = with_sources(
        CART_PAGE.replace("20%", "25%"),
        "repo://src/shop/cart.py",
        "repo://src/shop/limits.py",
        extra=f'generated: {{by: "{ACTOR}", at: "{AT}"}}\nverified:\n  - by: {ACTOR}\n    at: {AT}\n',
    )
    assert result.files[CART].decode() == cart_page
    old = shop.sidecar("cart.md")
    assert result.files[CART_SIDECAR] == render_sidecar(
        Sidecar(
            page_version(cart_page.encode()),
            (
                Claim(
                    ADD,
                    old.claims[0].statement,
                    (EvidenceRecord("repo://src/shop/cart.py#L14-L15", old.claims[0].evidence[0].version),),
                ),
                Claim(TAX, "The tax rate is 25%.", (record("repo://src/shop/cart.py#L3", CART_V2),)),
                Claim(LIMIT, old.claims[2].statement, (record("repo://src/shop/limits.py#L3", LIMITS_CRLF),)),
            ),
            old.verification,  # OpenWiki's record, kept as it was: Wikiwarden's word is the page's `verified`
        )
    )
    # The page's last claim retracted: an empty claim list, no verification (OpenWiki omits it), the page's
    # text unchanged (it never had `sources`), so only the sidecar is written.
    assert LEGACY not in result.files
    assert result.files[LEGACY_SIDECAR] == render_sidecar(Sidecar(page_version(LEGACY_PAGE.encode()), ()))
    assert LAST not in result.files  # the shop never had one: Wikiwarden does not create OpenWiki's state


async def test_a_retracted_claim_takes_its_source_with_it(shop: Prepared) -> None:
    result = await shop.fix(
        Scripted({CART: answer(decision(TAX, "retract")), LEGACY: answer(decision(CHECKOUT, "retract"))})
    )
    cart = result.files[CART].decode()
    assert "repo://src/shop/cart.py" in cart  # ADD still cites cart.py
    sidecar = result.files[CART_SIDECAR].decode()
    assert TAX not in sidecar and ADD in sidecar and LIMIT in sidecar


async def test_a_sourced_page_whose_last_claim_is_retracted_loses_its_sources(make_repo) -> None:
    repo = make_repo()
    repo.write("src/a.py", "A = 1\n")
    page = with_sources("---\ntype: Concept\n---\n\n# A\n\nA is 1.\n", "repo://src/a.py")
    write_grounded(repo, {"a.md": (page, [("claim_" + "a" * 32, "A is 1.", ["repo://src/a.py#L1"])])})
    repo.commit("v1", tag="v1")
    repo.write("src/a.py", "A = 2\n")
    repo.commit("v2")
    prepared = prepare(repo.root)
    try:
        result = await prepared.fix(Scripted({f"{WIKI}/a.md": answer(decision("claim_" + "a" * 32, "retract"))}))
    finally:
        prepared.repo.close()
    assert result.files[f"{WIKI}/a.md"] == b"---\ntype: Concept\n---\n\n# A\n\nA is 1.\n"
    assert json.loads(result.files[f"{WIKI}/.claims/a.json"]) == {
        "schemaVersion": 1, "pageVersion": page_version(result.files[f"{WIKI}/a.md"]), "claims": [],
    }  # fmt: skip


async def test_refused_decisions_stay_flagged_and_nothing_outside_the_wiki_is_written(shop: Prepared) -> None:
    decider = Scripted(
        {
            CART: answer(decision(TAX, "confirm"), edits=[edit("x", "y", file=".github/workflows/ci.yml")]),
            LEGACY: answer(
                decision(CHECKOUT, "update", statement="It totals.", evidence=["repo://src/shop/current.py"])
            ),
        }
    )
    result = await shop.fix(decider)
    assert all(path.startswith(f"{WIKI}/") for path in result.files)
    assert ".github/workflows/ci.yml" not in result.files
    flagged = {o.claim_id: o.reason for o in result.flagged}
    assert list(flagged) == [CHECKOUT]
    assert "symlink" in flagged[CHECKOUT]


async def test_over_cap_claims_are_left_for_the_next_run(shop_root: Path) -> None:
    prepared = prepare(shop_root, cap=1)
    try:
        decider = Scripted({CART: answer(decision(TAX, "confirm"))})
        result = await prepared.fix(decider, cap=1)
    finally:
        prepared.repo.close()
    assert decider.asked == [CART]  # the legacy page had nothing left to decide this run
    by_id = {o.claim_id: o for o in result.outcomes}
    assert by_id[TAX].action is Action.CONFIRMED
    assert by_id[CHECKOUT].action is Action.FLAGGED
    assert by_id[CHECKOUT].reason == "left for the next run: at most 1 claims are decided per run"
    assert LAST not in result.files  # claims wait: OpenWiki's `gitHead` stays where it was


async def test_claims_in_error_are_flagged_with_their_error(make_repo) -> None:
    repo = make_repo()
    repo.write("src/real.py", "X = 1\n")
    repo.write("src/link.py", "X = 1\n")
    write_grounded(repo, {"l.md": ("# L\n", [("claim_" + "b" * 32, "X is 1.", ["repo://src/link.py#L1"])])})
    repo.commit("v1", tag="v1")
    repo.remove("src/link.py")
    repo.symlink("src/link.py", "real.py")
    repo.commit("v2")
    prepared = prepare(repo.root)
    try:
        decider = Scripted({})
        result = await prepared.fix(decider)
    finally:
        prepared.repo.close()
    assert decider.asked == []  # nothing to decide: the model is not asked
    (outcome,) = result.outcomes
    assert outcome.action is Action.FLAGGED
    assert outcome.reason.startswith("its evidence cannot be evaluated: ")
    assert "symlink" in outcome.reason


# -- the answer's schema ---------------------------------------------------------------------------------


def test_the_answer_schema_is_strict_everywhere() -> None:
    spec = answer_schema()
    assert (spec["name"], spec["strict"]) == ("wiki_page_fix", True)

    def objects(node):
        if isinstance(node, dict):
            if node.get("type") == "object" or "properties" in node:
                yield node
            for value in node.values():
                yield from objects(value)
        elif isinstance(node, list):
            for value in node:
                yield from objects(value)

    found = list(objects(spec["schema"]))
    assert len(found) == 3  # the answer, a claim decision, an edit
    for node in found:
        assert node["additionalProperties"] is False
        assert node["required"] == list(node["properties"])
    assert "$defs" not in json.dumps(spec) and "$ref" not in json.dumps(spec)


# -- summaries -------------------------------------------------------------------------------------------


def outcome(action: Action, n: int = 1, **kwargs) -> ClaimOutcome:
    values = {
        "page": CART, "claim_id": f"claim_{n:032x}", "statement": f"Statement {n} | with a pipe",
        "reason": "because", "evidence_before": ("repo://src/a.py#L1-L2",), "evidence_after": ("repo://src/a.py#L1-L2",),
    }  # fmt: skip
    values.update(kwargs)
    return ClaimOutcome(action=action, **values)


def test_pull_request_body_lists_every_outcome_with_its_tick() -> None:
    result = FixResult(
        outcomes=[
            outcome(Action.REANCHORED, 1, evidence_after=("repo://src/b.py#L5-L6",)),
            outcome(Action.CONFIRMED, 2),
            outcome(Action.UPDATED, 3, new_statement="New\nstatement"),
            outcome(Action.RETRACTED, 4, evidence_after=()),
            outcome(Action.FLAGGED, 5, reason="its answer was refused twice"),
        ],
        usage=Usage(prompt_tokens=12_000, completion_tokens=345, calls=3, reused=1),
        model="test-model",
    )
    links: list[tuple[str, str]] = []

    def link(resource: str, when: str) -> str | None:
        links.append((resource, when))
        return None if "b.py" in resource else f"https://example.com/{when}/{resource.removeprefix('repo://')}"

    body = pull_request_body(result, heading="Wiki fixes", marker="<!-- wikiwarden -->", link=link)
    lines = body.splitlines()
    assert lines[:4] == [
        "<!-- wikiwarden -->",
        "## Wiki fixes",
        "",
        "1 re-anchored, 1 confirmed, 1 updated, 1 retracted, 1 still flagged",
    ]
    items = [line for line in lines if line.startswith("- [")]
    assert items == [
        f"- [x] **re-anchored** · `{CART}` · “Statement 1 \\| with a pipe”",
        f"- [x] **confirmed** · `{CART}` · “Statement 2 \\| with a pipe”",
        f"- [x] **updated** · `{CART}` · “Statement 3 \\| with a pipe” → “New statement”",
        f"- [x] **retracted** · `{CART}` · “Statement 4 \\| with a pipe”",
        f"- [ ] **still flagged** · `{CART}` · “Statement 5 \\| with a pipe”",
    ]
    details = [line for line in lines if line.startswith("  ")]
    a_before, a_now = "https://example.com/before/src/a.py#L1-L2", "https://example.com/now/src/a.py#L1-L2"
    assert details == [
        f"  because. Evidence: `repo://src/a.py#L1-L2` ([before]({a_before})) → `repo://src/b.py#L5-L6`",
        f"  because. Evidence: `repo://src/a.py#L1-L2` ([before]({a_before}), [now]({a_now}))",
        f"  because. Evidence: `repo://src/a.py#L1-L2` ([before]({a_before}), [now]({a_now}))",
        f"  because. Evidence: `repo://src/a.py#L1-L2` ([before]({a_before})) → none",
        f"  its answer was refused twice. Evidence: `repo://src/a.py#L1-L2` ([before]({a_before}), [now]({a_now}))",
    ]
    assert ("repo://src/b.py#L5-L6", "now") in links
    assert (
        "Model: `test-model` · 12,345 tokens (prompt 12,000, completion 345) in 3 calls; 1 page reused earlier answers"
        in body
    )
    assert body.endswith("\n1 claim still needs a person: see the unticked items above.\n")


def test_pull_request_body_without_a_model_or_outcomes() -> None:
    body = pull_request_body(FixResult(), heading="H", marker="<!-- m -->")
    assert body.startswith("<!-- m -->\n## H\n\nNothing to change.\n")
    assert body.endswith(
        "\nNo model is configured: moved and cosmetic evidence was re-anchored; the rest needs a person.\n"
    )
    assert "- [" not in body and "still need a person" not in body


def test_pull_request_body_stays_under_githubs_limit() -> None:
    result = FixResult(
        outcomes=[outcome(Action.FLAGGED if n % 3 else Action.CONFIRMED, n, statement="s" * 300) for n in range(5000)],
        model="test-model",
    )
    body = pull_request_body(
        result, heading="Wiki fixes", marker="<!-- wikiwarden -->", link=lambda r, w: "https://e.x/" + r
    )
    assert len(body) <= BODY_LIMIT < 65_536
    assert body.startswith("<!-- wikiwarden -->\n## Wiki fixes\n\n1667 confirmed, 3333 still flagged\n")
    assert body.endswith("\n\n_…the list was cut to fit; see the check run._\n")
    # cut at a line boundary: every listed item is whole
    kept = body.rsplit("\n\n_…", 1)[0].splitlines()
    assert kept[-1].startswith(("- [", "  "))
    assert all(not line.startswith("- [") or line.endswith("”") for line in kept)


def test_render_text_reports_per_page() -> None:
    result = FixResult(
        outcomes=[
            outcome(Action.REANCHORED, 1, evidence_after=("repo://src/b.py#L5-L6",)),
            outcome(Action.UPDATED, 2, new_statement="Now true."),
            outcome(Action.FLAGGED, 3, page=LEGACY, reason="no model is configured"),
        ],
        usage=Usage(prompt_tokens=1000, completion_tokens=200, calls=2),
        model="test-model",
    )
    text = render_text(result, [CART, CART_SIDECAR])
    assert text == (
        f"{CART}\n"
        f"  ↪ re-anchored    {cid(1)}  Statement 1 | with a pipe\n"
        "      evidence: repo://src/b.py#L5-L6\n"
        "      because\n"
        f"  ✎ updated        {cid(2)}  Statement 2 | with a pipe\n"
        "      now: Now true.\n"
        "      because\n"
        f"{LEGACY}\n"
        f"  ! still flagged  {cid(3)}  Statement 3 | with a pipe\n"
        "      no model is configured\n"
        "\n"
        f"Wrote 2 files: {CART}, {CART_SIDECAR}\n"
        "Model test-model: 1,200 tokens (prompt 1,000, completion 200), 2 calls.\n"
        "1 claim still needs a person.\n"
    )
    assert render_text(FixResult(), []) == "Nothing to fix: no claim or reference needs attention.\n\nWrote 0 files.\n"


HOSTILE_STATEMENT = "cc @octocat, closes #1 <img src=x onerror=alert(1)> | **b** [x](javascript:alert(1))"
HOSTILE_NEW = "fixes other/repo#2 and GH-3 for @acme/core </details>"
HOSTILE_REASON = "see https://github.com/acme/q/issues/4\n# not a heading\n> nor a quote"


def test_the_pull_request_body_renders_hostile_claims_and_answers_inert() -> None:
    hostile = outcome(
        Action.UPDATED, 1, page="openwiki/@octocat #5 `x`.md", statement=HOSTILE_STATEMENT,
        new_statement=HOSTILE_NEW, reason=HOSTILE_REASON, evidence_after=("repo://src/a.py#L1-L2`@x #6",),
    )  # fmt: skip
    result = FixResult(outcomes=[hostile], usage=Usage(prompt_tokens=1, completion_tokens=1, calls=1), model="m`@x #7")
    body = pull_request_body(result, heading="Wiki fixes", marker="<!-- wikiwarden -->")
    reading = assert_inert_markdown(body, html="<!-- wikiwarden -->")
    assert reading.strong == ["updated"] and reading.types.count("list_item_open") == 1
    assert {"openwiki/@octocat #5 `x`.md", "repo://src/a.py#L1-L2`@x #6", "m`@x #7"} <= {
        visible(c) for c in reading.codes
    }
    texts = [visible(t) for t in reading.texts]
    assert f" · “{HOSTILE_STATEMENT}” → “{HOSTILE_NEW}”" in texts
    assert " ".join(HOSTILE_REASON.split()) + ". Evidence: " in texts
    assert "Model: " in texts and " · 2 tokens (prompt 1, completion 1) in 1 call" in texts


def test_the_text_report_is_plain_text_cut_with_an_ellipsis() -> None:
    long = "The queue's pop | takes the oldest task " + "and then some more words " * 10
    result = FixResult(outcomes=[outcome(Action.FLAGGED, 1, statement=long, reason="r \x1b[2J" + "why " * 80)])
    text = render_text(result, [CART])
    [statement_line] = [line for line in text.splitlines() if cid(1) in line]
    statement = statement_line.split(f"{cid(1)}  ", 1)[1]
    assert statement.endswith("…") and len(statement) <= 80 and long.startswith(statement[:-1])
    assert "\\|" not in text and "\x1b" not in text
    [reason] = [line.strip() for line in text.splitlines() if line.strip().startswith("r ")]
    assert reason.endswith("…") and len(reason) <= 200
    assert text.endswith(f"Wrote 1 file: {CART}\n1 claim still needs a person.\n")
