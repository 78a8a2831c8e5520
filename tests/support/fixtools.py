"""Helpers for the fix's tests: a small real repository whose wiki is grounded in its code (sidecars made by
bot.claims, claim ids fixed so answers can be scripted), a change that moves, reformats, changes and deletes
evidence, and the fix's inputs prepared by the fix use case itself (`bot.usecases.fix.prepare_fix`)."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
import pytest
from conftest import GitRepo
from fakeopenai import FakeOpenAI

from bot.agent.agent import Agent
from bot.agent.budget import AnswerCache, DailyLedger
from bot.agent.factory import AgentFactory
from bot.claims import resolve_evidence
from bot.claims.options import SweepOptions
from bot.claims.results import SweepReport
from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, parse_sidecar, render_sidecar
from bot.fix.engine import LAST_UPDATE, FixResult
from bot.fix.view import CodeView
from bot.fix.work import PageWork
from bot.okf.project import ACTOR  # noqa: F401 - what the fix writes as its actor, for the tests
from bot.settings import ModelSettings
from bot.source.git import GitRepository, LocalSource
from bot.source.localwiki import LocalWiki
from bot.usecases.fix import FixInputs, prepare_fix, run_fix

WIKI = "openwiki"
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
    inputs: FixInputs
    head: str

    @property
    def report(self) -> SweepReport:
        return self.inputs.report

    @property
    def work(self) -> list[PageWork]:
        return self.inputs.work

    @property
    def view(self) -> CodeView:
        return self.inputs.view

    @property
    def previous(self) -> bytes | None:
        return self.inputs.previous_last_update

    def page(self, name: str) -> PageWork:
        return next(w for w in self.work if w.page == f"{WIKI}/{name}")

    def sidecar(self, name: str) -> Sidecar:
        path = f"{WIKI}/.claims/{name[:-3]}.json"
        return parse_sidecar(self.local.snapshot.read(path), path)

    async def fix(self, decider: Any, cap: int = 50) -> FixResult:
        return await run_fix(self.inputs, decider, wiki_dir=WIKI, cap=cap, at=AT, head_commit=self.head)


def prepare(root: Any, base: str | None = "v1", cap: int = 50) -> Prepared:
    """The fix's inputs for the working tree through the change from `base`, prepared by the use case itself
    (what `wikiwarden fix` runs before it decides anything), on an event loop of its own: sync and async
    tests call it alike."""
    repo = GitRepository(root)
    source = LocalSource(repo)

    async def inputs() -> FixInputs:
        head = await source.snapshot(None)
        change = await source.change(base, head) if base is not None else None
        return await prepare_fix(source, head, change, SweepOptions(wiki_dir=WIKI), cap)

    with ThreadPoolExecutor(1) as pool:
        prepared = pool.submit(asyncio.run, inputs()).result()
    return Prepared(repo, LocalWiki(repo.root, WIKI), prepared, repo.resolve("HEAD"))


# -- the agent against the fake OpenAI ------------------------------------------------------------------


def http_client() -> openai.DefaultAsyncHttpxClient:
    return openai.DefaultAsyncHttpxClient(verify=SSL_CONTEXT)


def model_settings_for(fake: FakeOpenAI, **overrides: Any) -> ModelSettings:
    """Model settings naming the fake (and nothing from the environment that runs the tests)."""
    values: dict[str, Any] = {"openai_base_url": fake.base_url, "openai_api_key": fake.api_key, "model": MODEL}
    return ModelSettings(**{**values, **overrides})


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
    """The agent as every face builds it (the factory), pointed at the fake."""
    settings = model_settings_for(
        fake, tokens_per_run=per_run, tokens_per_day=per_day, model_max_retries=max_retries,
        model_timeout_seconds=timeout,
    )  # fmt: skip
    factory = AgentFactory(settings, ledger=ledger, answers=cache, http_client=http_client())
    agent = factory.agent(repo)
    assert agent is not None
    return agent


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
