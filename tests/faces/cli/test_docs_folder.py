"""A wiki that is not `openwiki/`: a person's MkDocs site in `docs/` (mkdocs.yml, a home page and a section page of
their own, nested folders), grounded by hand and kept by every command through `--wiki-dir docs`.

Each command runs through `bot.cli.main` on a real git repository; after each, nothing outside `docs/` has changed
and the person's own index pages are byte for byte what they wrote.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import GitRepo

from bot.claims.sidecar import page_version, parse_sidecar
from bot.cli import main
from bot.okf.sync import PERSONS_INDEX
from bot.source.git import GitRepository
from bot.usecases.okf import sync_okf

QUEUE = (
    '"""A small task queue."""\n'
    "\n"
    "\n"
    "class Queue:\n"
    "    def __init__(self):\n"
    "        self.items = []\n"
    "\n"
    "    def push(self, item):\n"
    "        self.items.append(item)\n"
    "\n"
    "    def pop(self):\n"
    "        return self.items.pop(0)\n"
)  # pop is lines 11-12
PEEK = "    def peek(self):\n        return self.items[0]\n\n"
WORKERS = "def run(queue, handle):\n    while queue.items:\n        handle(queue.pop())\n"

MKDOCS = "site_name: Taskq\nnav:\n  - Home: index.md\n  - Guide: guide/index.md\n"
HOME = (  # MkDocs front matter: not OKF, and not an index OpenWiki or Wikiwarden would write
    "---\ntitle: Home\nhide:\n  - navigation\n---\n\n# Taskq\n\nWelcome. Start with the [queue](guide/queue.md).\n"
)
GUIDE_HOME = "# Guide\n\nThe guide walks through the [queue](queue.md) and the [workers](deep/workers.md).\n"
QUEUE_PAGE = "# The queue\n\n`Queue.pop` takes the oldest task first.\n"
WORKERS_PAGE = "---\ntype: Guide\ntitle: Workers\n---\n\n# Workers\n\n`run` hands every task to `handle`.\n"
ABOUT_PAGE = "# About\n\nTaskq is a teaching example.\n"
PERSONS = {"docs/index.md": HOME, "docs/guide/index.md": GUIDE_HOME}

pytestmark = pytest.mark.usefixtures("isolated_cli")


@dataclass
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def site(repo: GitRepo) -> GitRepo:
    """The MkDocs site and its code, committed as v1; nothing grounded yet."""
    repo.write("mkdocs.yml", MKDOCS)
    repo.write("README.md", "# Taskq\n")
    repo.write("src/taskq/queue.py", QUEUE)
    repo.write("src/taskq/workers.py", WORKERS)
    for path, text in PERSONS.items():
        repo.write(path, text)
    repo.write("docs/guide/queue.md", QUEUE_PAGE)
    repo.write("docs/guide/deep/workers.md", WORKERS_PAGE)
    repo.write("docs/about.md", ABOUT_PAGE)
    repo.commit("a MkDocs site", tag="v1")
    return repo


def _outside_docs(root: Path) -> dict[str, str]:
    """A digest of every file of the repository outside docs/ (and outside git's own folder)."""
    digests = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.is_file() and not relative.startswith((".git/", "docs/")):
            digests[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


class Site:
    """Runs commands on the site and checks, after each, that only docs/ changed and the person's pages did not."""

    def __init__(self, repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
        self.repo = repo
        self.capsys = capsys
        self.outside = _outside_docs(repo.root)

    def __call__(self, *args: str) -> Run:
        words = 2 if args[0] in ("claim", "okf") else 1  # the options follow the (sub)command
        code = main([*args[:words], "--repo", str(self.repo.root), "--wiki-dir", "docs", *args[words:]])
        captured = self.capsys.readouterr()
        assert _outside_docs(self.repo.root) == self.outside, f"{args} wrote outside docs/"
        for path, text in PERSONS.items():
            assert self.repo.read(path) == text.encode(), f"{args} changed the person's {path}"
        return Run(code, captured.out, captured.err)

    def changed(self) -> list[str]:
        out = self.repo.git("status", "--porcelain", "--untracked-files=all")
        return sorted(line[3:] for line in out.splitlines())


@pytest.fixture
def cli(site: GitRepo, capsys: pytest.CaptureFixture[str]) -> Site:
    return Site(site, capsys)


def _added(run: Run) -> str:
    assert run.code == 0, run.err
    match = re.search(r"^added (claim_[0-9a-f]{32}) to ", run.out, re.M)
    assert match, run.out
    return match.group(1)


def test_every_command_keeps_a_docs_folder(site: GitRepo, cli: Site) -> None:
    # -- ground by hand: sidecars in docs/.claims/, pages named any way OpenWiki's tools accept ----------------
    pop = _added(cli("claim", "add", "guide/queue.md", "Queue.pop takes the oldest task first",
                     "repo://src/taskq/queue.py#L11-L12"))  # fmt: skip
    run_claim = _added(cli("claim", "add", "/docs/guide/deep/workers.md", "run hands every task to handle",
                           "repo://src/taskq/workers.py#L1-L3"))  # fmt: skip
    assert cli.changed() == ["docs/.claims/guide/deep/workers.json", "docs/.claims/guide/queue.json"]
    sidecar = parse_sidecar(site.read("docs/.claims/guide/queue.json"), "docs/.claims/guide/queue.json")
    assert sidecar.page_version == page_version(QUEUE_PAGE.encode())
    assert [c.id for c in sidecar.claims] == [pop]

    listed = cli("claim", "list", "--format", "json")
    assert listed.code == 0
    assert {(c["page"], c["id"]) for c in json.loads(listed.out)["claims"]} == {
        ("docs/guide/queue.md", pop),
        ("docs/guide/deep/workers.md", run_claim),
    }
    refused = cli("claim", "add", "index.md", "the home page welcomes", "repo://README.md")
    assert refused.code == 2 and "not a grounded wiki page" in refused.err  # a reserved page is no concept
    site.commit("grounded", tag="grounded")

    # -- check: the full sweep, pages and sidecars under docs/, the person's index pages are not pages -------------
    full = cli("check", "--format", "json")
    assert full.code == 0, full.out
    report = json.loads(full.out)
    assert report["wiki_dir"] == "docs"
    assert {(p["page"], p["sidecar"]) for p in report["pages"]} == {
        ("docs/guide/queue.md", "docs/.claims/guide/queue.json"),
        ("docs/guide/deep/workers.md", "docs/.claims/guide/deep/workers.json"),
    }
    assert report["ungrounded_pages"] == ["docs/about.md"]

    # -- a change: pop moves below a new peek, run changes; check --base sees both ------------------------------------
    site.write("src/taskq/queue.py", QUEUE.replace("    def pop", PEEK + "    def pop"))
    site.write("src/taskq/workers.py", WORKERS.replace("queue.items", "len(queue.items) > 0"))
    cli.outside = _outside_docs(site.root)  # the change is the test's own; the commands must add nothing to it
    diff = cli("check", "--base", "grounded", "--format", "json")
    assert diff.code == 1
    verdicts = {c["id"]: (c["verdict"], c["touched"]) for p in json.loads(diff.out)["pages"] for c in p["claims"]}
    assert verdicts == {pop: ("moved", True), run_claim: ("stale", True)}

    # -- fix without a model: pop re-anchored, run left for a person; only docs/ written ------------------------------
    fixed = cli("fix", "--base", "grounded", "--model", "none")
    assert fixed.code == 1, fixed.out + fixed.err
    assert "1 claim still needs a person." in fixed.out
    moved = parse_sidecar(site.read("docs/.claims/guide/queue.json"), "docs/.claims/guide/queue.json")
    assert [e.resource for e in moved.claims[0].evidence] == ["repo://src/taskq/queue.py#L14-L15"]
    queue_page = site.read("docs/guide/queue.md").decode()
    assert queue_page == QUEUE_PAGE  # a person's docs site: a page without front matter gets none from the fix
    assert not (site.root / "docs/.last-update.json").exists()

    # -- a person confirms run; everything holds again -----------------------------------------------------------------
    confirmed = cli("claim", "confirm", run_claim)
    assert confirmed.code == 0, confirmed.err
    assert "repo://src/taskq/workers.py#L1-L3" in confirmed.out
    assert cli("check").code == 0

    # -- OKF: a person's site (its .claims/ is Wikiwarden's) is synced only when asked (--init) -----------------------
    status = cli.changed()
    unasked = cli("okf", "sync")
    assert unasked.code == 0 and "docs/ is not an OpenWiki wiki" in unasked.out and cli.changed() == status
    dry = cli("okf", "sync", "--init", "--dry-run")
    assert dry.code == 0 and "would write docs/about.md" in dry.out and cli.changed() == status
    # -- then sync brings pages and generated indexes up to date and leaves the person's index pages -----------------
    synced = cli("okf", "sync", "--init", "--indexes")  # --indexes: new index pages the site then publishes
    assert synced.code == 0, synced.err
    written = set(re.findall(r"^wrote (\S+)$", synced.out, re.M))
    assert "docs/index.md" not in written and "docs/guide/index.md" not in written
    assert f"left as it is: docs/index.md: {PERSONS_INDEX}\n" in synced.out  # said, on stdout: not a failure
    assert f"left as it is: docs/guide/index.md: {PERSONS_INDEX}\n" in synced.out
    assert {"docs/about.md", "docs/guide/deep/index.md"} <= written
    assert all(path.startswith("docs/") for path in written)
    assert site.read("docs/guide/deep/index.md") == b"# Files\n\n- [Workers](workers.md)\n"
    assert site.read("docs/about.md").startswith(b'---\ntype: "Reference"\ntitle: "About"\n---\n')  # a person's
    workers_page = site.read("docs/guide/deep/workers.md").decode()
    assert (
        "sources:\n  - id: openwiki-source-" in workers_page
        and "resource: repo://src/taskq/workers.py\n" in workers_page
    )
    again = cli("okf", "sync")
    assert again.code == 0 and "everything is up to date" in again.out
    with GitRepository(site.root) as git:  # what sync leaves by design, and why (the command's report of it: cli.py)
        assert [path for path, _why in sync_okf(git, "docs", dry_run=True).kept] == [
            "docs/guide/index.md",
            "docs/index.md",
        ]

    validated = cli("okf", "validate", "--format", "json")
    document = json.loads(validated.out)
    assert validated.code == 0, document
    assert document["bundle"] == "docs" and document["errors"] == 0
    # The person's home page stands where OKF expects the root index: said, never failed on (sync leaves it).
    assert [(p["file"], p["field"], p["severity"]) for p in document["problems"]] == [
        ("index.md", "hide", "warning"),
        ("index.md", "okf_version", "warning"),
    ]
    assert "a page of a person's own" in document["problems"][0]["problem"]

    # -- retract: the sidecar keeps the other claim --------------------------------------------------------------------
    retracted = cli("claim", "retract", pop)
    assert retracted.code == 0 and "docs/.claims/guide/queue.json" in retracted.out
    assert parse_sidecar(site.read("docs/.claims/guide/queue.json"), "docs/.claims/guide/queue.json").claims == ()
    assert cli("check").code == 0
    assert cli("okf", "sync").code == 0  # a page without claims: no sources, no machine's word that it holds
    assert (
        site.read("docs/guide/queue.md") == b'---\ntype: "Reference"\ntitle: "The queue"\n---\n\n' + QUEUE_PAGE.encode()
    )
