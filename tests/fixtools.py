"""Helpers for the fix's tests: a small real repository whose wiki is grounded in its code (sidecars made by
bot.claims, claim ids fixed so answers can be scripted), a change that moves, reformats, changes and deletes
evidence, and the fix's inputs read off a real sweep, exactly as `bot.pipeline.fix_repository` reads them."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
import pytest
from conftest import GitRepo
from fakeopenai import FakeOpenAI

from bot.agent.agent import Agent
from bot.agent.budget import AnswerCache, Budget, DailyLedger
from bot.claims import resolve_evidence
from bot.claims.results import SweepReport
from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, parse_sidecar, render_sidecar
from bot.claims.sweep import Change, Sweeper, SweepOptions, sweep
from bot.fix.engine import LAST_UPDATE, FixResult, fix_wiki
from bot.fix.view import CodeView, search_scope
from bot.fix.work import PageWork, plan_work
from bot.localwiki import LocalWiki
from bot.source.git import GitRepository

WIKI = "openwiki"
ACTOR = "wikiwarden/test"
AT = "2026-02-03T04:05:06.789Z"
MODEL = "test-model"
SSL_CONTEXT = ssl.create_default_context()  # one for every client: building one per client costs 25 ms


def cid(n: int) -> str:
    """A fixed claim id in OpenWiki's format."""
    return f"claim_{n:032x}"


# -- the repository --------------------------------------------------------------------------------------

CART_V1 = '''"""A shopping cart."""

TAX_RATE = 0.2


class Cart:
    def __init__(self):
        self.items = []

    def add(self, item, price):
        self.items.append((item, price))

    def total(self):
        return sum(price for _, price in self.items) * (1 + TAX_RATE)
'''

# A method inserted above `add` (add moves down 4 lines), and the tax rate changed (stale).
CART_V2 = '''"""A shopping cart."""

TAX_RATE = 0.25


class Cart:
    def __init__(self):
        self.items = []

    def clear(self):
        """Empty the cart."""
        self.items = []

    def add(self, item, price):
        self.items.append((item, price))

    def total(self):
        return sum(price for _, price in self.items) * (1 + TAX_RATE)
'''

LIMITS = '"""Limits."""\n\nMAX_ITEMS = 10\nMAX_WEIGHT_KG = 30\n'
LEGACY = "def checkout_v1(cart):\n    return cart.total()\n"
SECRET = "API_TOKEN = 'hunter2'  # TAX_RATE is not here\n"

CART_PAGE = (
    "---\ntype: Concept\ntitle: The cart\n---\n\n# The cart\n\n"
    "`Cart.add` appends an item and its price. The tax rate is 20%.\n\n"
    "A cart holds at most 10 items.\n"
)
LEGACY_PAGE = "---\ntype: Concept\ntitle: Legacy checkout\n---\n\n# Legacy checkout\n\n`checkout_v1` totals a cart.\n"

ADD = cid(1)  # Cart.add, moved by the change
TAX = cid(2)  # the tax rate, stale
LIMIT = cid(3)  # the item limit: CRLF only (cosmetic)
CHECKOUT = cid(4)  # legacy.py deleted (unresolved)


def write_grounded(repo: GitRepo, pages: dict[str, tuple[str, list[tuple[str, str, list[str]]]]]) -> None:
    """Write pages and their sidecars: page → (text, [(claim id, statement, resources)]); each record's
    version computed by bot.claims from the files as they stand in the working tree."""
    for page, (text, claims) in pages.items():
        repo.write(f"{WIKI}/{page}", text)
        built = []
        for claim_id, statement, resources in claims:
            records = []
            for resource in resources:
                path = resource.removeprefix("repo://").split("#", 1)[0]
                found = resolve_evidence(resource, repo.read(path))
                assert found is not None, resource
                records.append(EvidenceRecord(found.resource, found.version))
            built.append(Claim(claim_id, statement, tuple(records)))
        sidecar = Sidecar(page_version(text.encode()), tuple(built))
        repo.write(f"{WIKI}/.claims/{page[:-3]}.json", render_sidecar(sidecar))


def build_shop(repo: GitRepo, *, cart_page: str = CART_PAGE, last_update: str | None = None) -> GitRepo:
    """v1: the cart and its wiki, grounded; then (committed, HEAD) the change: `add` moved, the tax rate
    changed, limits.py switched to CRLF, legacy.py deleted."""
    repo.write("src/shop/cart.py", CART_V1)
    repo.write("src/shop/limits.py", LIMITS)
    repo.write("src/shop/legacy.py", LEGACY)
    # Files evidence may never cite: ignored, a symlink, a binary.
    repo.write(".openwikiignore", "src/shop/secret.py\n")
    repo.write("src/shop/secret.py", SECRET)
    repo.symlink("src/shop/current.py", "cart.py")
    repo.write("src/shop/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    write_grounded(
        repo,
        {
            "cart.md": (
                cart_page,
                [
                    (ADD, "Cart.add appends an item and its price.", ["repo://src/shop/cart.py#L10-L11"]),
                    (TAX, "The tax rate is 20%.", ["repo://src/shop/cart.py#L3"]),
                    (LIMIT, "A cart holds at most 10 items.", ["repo://src/shop/limits.py#L3"]),
                ],
            ),
            "legacy.md": (LEGACY_PAGE, [(CHECKOUT, "checkout_v1 totals a cart.", ["repo://src/shop/legacy.py#L1-L2"])]),
        },
    )
    repo.write(f"{WIKI}/index.md", "# Index\n\n- [The cart](cart.md)\n- [Legacy checkout](legacy.md)\n")
    if last_update is not None:
        repo.write(f"{WIKI}/{LAST_UPDATE}", last_update)
    repo.commit("shop 1.0 and its wiki", tag="v1")
    repo.write("src/shop/cart.py", CART_V2)
    repo.write("src/shop/limits.py", LIMITS.replace("\n", "\r\n"))
    repo.remove("src/shop/legacy.py")
    repo.commit("shop 2.0")
    return repo


# -- the fix's inputs ------------------------------------------------------------------------------------


@dataclass
class Prepared:
    repo: GitRepository
    local: LocalWiki
    report: SweepReport
    work: list[PageWork]
    view: CodeView
    head: str
    previous: bytes | None

    def page(self, name: str) -> PageWork:
        return next(w for w in self.work if w.page == f"{WIKI}/{name}")

    def sidecar(self, name: str) -> Sidecar:
        path = f"{WIKI}/.claims/{name[:-3]}.json"
        return parse_sidecar(self.local.snapshot.read(path), path)

    async def fix(self, decider: Any, cap: int = 50) -> FixResult:
        return await fix_wiki(
            self.work, self.view, decider, wiki_dir=WIKI, actor=ACTOR, at=AT, head=self.head,
            previous_last_update=self.previous, cap=cap,
        )  # fmt: skip


def prepare(root: Any, base: str | None = "v1", cap: int = 50) -> Prepared:
    """The sweep of the working tree through the change from `base`, the work planned, the code view: what
    `fix_repository` builds before it calls `fix_wiki`."""
    repo = GitRepository(root)
    options = SweepOptions(wiki_dir=WIKI)
    local = LocalWiki(repo.root, WIKI)
    change = None
    if base is not None:
        base_snapshot = repo.snapshot(base)
        change = Change(base_snapshot, repo.changes(base_snapshot.commit, None))
    report = sweep(local.snapshot, change, options)
    work = plan_work(report, local.snapshot.read, cap)
    tracked = repo.git("ls-files", "-z", "--cached", "--others", "--exclude-standard").split(b"\0")
    paths = [p.decode() for p in tracked if p]
    view = CodeView(
        Sweeper(local.snapshot, None, options, WIKI), search_scope(paths, change.paths if change else (), work)
    )
    last = f"{WIKI}/{LAST_UPDATE}"
    previous = local.snapshot.read(last) if local.snapshot.entry(last) is not None else None
    return Prepared(repo, local, report, work, view, repo.resolve("HEAD"), previous)


# -- the agent against the fake OpenAI ------------------------------------------------------------------


def client_for(fake: FakeOpenAI, *, max_retries: int = 0, timeout: float = 5.0) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=fake.base_url,
        api_key=fake.api_key,
        max_retries=max_retries,
        timeout=timeout,
        http_client=openai.DefaultAsyncHttpxClient(verify=SSL_CONTEXT),
    )


def agent_for(
    fake: FakeOpenAI,
    *,
    per_run: int = 200_000,
    per_day: int = 2_000_000,
    repo: str = "acme/shop",
    ledger: DailyLedger | None = None,
    cache: AnswerCache | None = None,
    max_retries: int = 0,
    timeout: float = 5.0,
) -> Agent:
    budget = Budget(per_run=per_run, per_day=per_day, repo=repo, ledger=ledger or DailyLedger())
    return Agent(client_for(fake, max_retries=max_retries, timeout=timeout), MODEL, budget, cache)


def decision(claim_id: str, action: str, reason: str = "checked against the code", **kwargs: Any) -> dict[str, Any]:
    """One claim's decision as the model sends it (every key present: the schema is strict)."""
    return {"id": claim_id, "action": action, "statement": kwargs.get("statement"),
            "evidence": kwargs.get("evidence"), "reason": reason}  # fmt: skip


def edit(search: str, replace: str, file: str = f"{WIKI}/cart.md") -> dict[str, str]:
    return {"file": file, "search": search, "replace": replace}


def answer(*claims: dict[str, Any], edits: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {"claims": list(claims), "edits": edits or []}


def user_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


@pytest.fixture(scope="module")
def shop_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop repository, built once per module: tests only read it (fix_wiki returns files, writes none)."""
    root = tmp_path_factory.mktemp("shop")
    build_shop(GitRepo(root))
    return root


@pytest.fixture(scope="module")
def shop(shop_root: Path) -> Iterator[Prepared]:
    """The fix's inputs, read once: nothing here changes them (a test that must, prepares its own)."""
    prepared = prepare(shop_root)
    yield prepared
    prepared.repo.close()
