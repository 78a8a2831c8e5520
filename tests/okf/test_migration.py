"""Migrating a wiki to OKF v0.2 as OpenWiki 0.4.0 does it (`src/okf/index-sync.ts`, `generated-provenance.ts`,
`claims-verification.ts` and `claims/brains/code/session.ts` at its release commit fb0f96ec), and never overwriting
an `index.md` that a person wrote.

OpenWiki owns its `openwiki/` folder and rewrites every `index.md` in it. Wikiwarden also keeps folders a person owns
(`docs/`), so it rewrites only an index OpenWiki (any version since 0.2.0, which began generating them) or Wikiwarden
wrote, recognised by its form; anything else is a person's page, left byte for byte and reported.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import GitRepo

from bot.claims.sidecar import (
    Claim,
    EvidenceRecord,
    Sidecar,
    Verification,
    page_version,
    parse_sidecar,
    render_sidecar,
)
from bot.cli import main
from bot.okf.index import HEADINGS, Entry, is_generated_index, plan_indexes, render_index
from bot.okf.project import producer_prefix, project_sources, project_verified, source_id, stamp_generated
from bot.okf.sync import GroundedPage, plan_sync
from bot.okf.validate import validate_bundle
from bot.source.git import GitRepository
from bot.usecases.claims import HandKeptClaims
from bot.usecases.okf import sync_okf

OPENWIKI = "openwiki/0.4.0"
T = "2026-08-22T08:02:55.052Z"

# What OpenWiki 0.3.3 (OKF v0.1) wrote at the root, and what 0.2.0 wrote in every folder, byte for byte.
V033_ROOT = '---\nokf_version: "0.1"\n---\n\n# Files\n\n- [Old format](old.md)\n\n# Directories\n\n- [guide](guide/)\n'
V020_ROOT = (
    '---\ntype: Documentation Index\ntitle: "OpenWiki"\ndescription: "Files and subdirectories in OpenWiki."\n---\n\n'
    "# Files\n\n- [Quickstart](quickstart.md) - Start here.\n"
)
V020_GUIDE = (
    '---\ntype: Documentation Index\ntitle: "Guide"\ndescription: "Files and subdirectories in Guide."\n---\n\n'
    "# Files\n\n- [Held](held.md)\n"
)
MKDOCS_HOME = "---\ntitle: Home\nhide:\n  - navigation\n---\n\n# Taskq\n\nWelcome. Read the [guide](guide/).\n"
PLAIN_HOME = "# Guide\n\nThe guide walks through the [queue](queue.md).\n"


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


# -- which index.md is a generated one ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        render_index([Entry("a.md", "A [x]\\", "Does a."), Entry("a(b).md"), Entry("é t.md")], ["sub", "Été"], True),
        render_index([Entry("p.md", "P")], ["d"], False, "de"),
        render_index([], [], True),
        render_index([], ["only"], False, "zh-TW"),
        V033_ROOT,
        V020_ROOT,
        V020_GUIDE,
        '---\ntype: Documentation Index\ntitle: "Empty"\ndescription: "Files and subdirectories in Empty."\n---\n\n\n',
        V033_ROOT.replace("\n", "\r\n"),  # a checkout with core.autocrlf
    ],
)
def test_indexes_openwiki_or_wikiwarden_wrote_are_recognised(content: str) -> None:
    assert is_generated_index(content.encode())


@pytest.mark.parametrize(
    "content",
    [
        MKDOCS_HOME,  # MkDocs front matter and prose
        PLAIN_HOME,  # no front matter, prose
        "# Contents\n\n- [Install](install.md)\n",  # a person's heading over a list of links
        "# Files\n\n- [Install](install.md)\n\nSee also the FAQ.\n",  # a generated index a person added to
        "# Files\n\n- [Docs](https://example.com/docs)\n",  # a link no index writes
        "# Directories\n\n- [guide](guide/) - the guide\n",  # directories carry no description
        "# Files\n\n- [guide](guide/)\n",  # a folder listed as a file
        "# Directories\n\n- [guide](guide/)\n\n# Files\n\n- [a](a.md)\n",  # sections out of order
        "# Files\n\n- [a](a.md)\n\n# Verzeichnisse\n\n- [d](d/)\n",  # headings of two languages
        '---\nokf_version: "0.2"\ntitle: Home\n---\n\n# Files\n',  # more front matter than an index carries
        "---\ntype: Documentation Index\ntitle: Guide\n---\n\n# Files\n",
        "- [a](a.md)\n\n# Files\n",  # an item before any heading
        "",
        "\n\n",
    ],
)
def test_a_persons_index_is_not_taken_for_a_generated_one(content: str) -> None:
    assert not is_generated_index(content.encode())


def test_an_index_that_is_not_utf8_is_a_persons() -> None:
    assert not is_generated_index(b"# Files\n\n- [\xff](a.md)\n")


def test_every_heading_openwiki_localises_is_recognised() -> None:
    for language in HEADINGS:
        assert is_generated_index(render_index([Entry("a.md")], ["d"], True, language).encode()), language


def test_plan_indexes_leaves_a_persons_index_and_says_so() -> None:
    files = {
        "docs/index.md": MKDOCS_HOME.encode(),
        "docs/a.md": b"---\ntype: X\ntitle: A\n---\n",
        "docs/guide/index.md": PLAIN_HOME.encode(),
        "docs/guide/queue.md": b"# Queue\n",
        "docs/guide/deep/w.md": b"# W\n",
        "docs/old/index.md": V020_GUIDE.encode(),
        "docs/old/held.md": b"---\ntype: X\ntitle: Held\n---\n",
    }
    planned = plan_indexes(files, "docs")
    assert planned.kept == ["docs/guide/index.md", "docs/index.md"]
    assert planned.writes == {
        "docs/guide/deep/index.md": b"# Files\n\n- [w](w.md)\n",
        "docs/old/index.md": b"# Files\n\n- [Held](held.md)\n",
    }


def test_validate_warns_of_a_persons_index_and_fails_a_generated_one_out_of_form() -> None:
    problems = validate_bundle(
        {
            "index.md": MKDOCS_HOME.encode(),
            "guide/index.md": V020_GUIDE.encode(),
            "guide/held.md": b"---\ntype: X\n---\n",
        }
    )
    assert [(p.path, p.field, p.severity) for p in problems] == [
        ("guide/index.md", "", "error"),  # 0.2.0's front matter, which sync removes
        ("index.md", "hide", "warning"),  # the person's home page, which sync leaves
        ("index.md", "okf_version", "warning"),
    ]
    assert "a page of a person's own" in problems[1].problem


# -- okf sync of an OpenWiki 0.3.3 (OKF v0.1) wiki ------------------------------------------------------------------


def _with_verification(repo: GitRepo, sidecar_path: str, verification: Verification) -> None:
    sidecar = parse_sidecar(repo.read(sidecar_path), sidecar_path)
    repo.write(sidecar_path, render_sidecar(Sidecar(sidecar.page_version, sidecar.claims, verification)))


@pytest.fixture
def v01_wiki(repo: GitRepo) -> GitRepo:
    """A wiki OpenWiki 0.3.3 wrote (root index at okf_version 0.1, a folder index of 0.2.0's form, a page with
    v0.1's `timestamp`), grounded by OpenWiki 0.4.0's claims; then the code changes under it."""
    repo.write("src/a.py", "def a():\n    return 1\n")
    repo.write("src/b.py", "def b():\n    return 2\n")
    repo.write("openwiki/index.md", V033_ROOT)
    repo.write("openwiki/guide/index.md", V020_GUIDE)
    repo.write(
        "openwiki/old.md", "---\ntype: Concept\ntitle: Old format\ntimestamp: 2025-01-01T00:00:00Z\n---\n\nBody\n"
    )
    repo.write("openwiki/guide/held.md", "---\ntype: Guide\ntitle: Held\n---\n\n# Held\n\n`a` returns 1.\n")
    repo.write("openwiki/guide/fresh.md", "---\ntype: Guide\ntitle: Fresh\n---\n\n# Fresh\n\n`a` is a function.\n")
    repo.write(
        "openwiki/guide/broken.md",
        "---\ntype: Guide\ntitle: Broken\nverified:\n  - by: human:jane\n    at: 2026-08-01T00:00:00Z\n"
        "  - by: wikiwarden/0.0.1\n    at: 2026-08-02T00:00:00Z\n---\n\n`a` and `b` return numbers.\n",
    )
    repo.commit("the wiki")
    with GitRepository(repo.root) as git:
        keeper = HandKeptClaims(git, "openwiki")
        keeper.add("guide/held.md", "a returns one", ["repo://src/a.py#L1-L2"])
        keeper.add("guide/fresh.md", "a is a function", ["repo://src/a.py#L1"])
        keeper.add("guide/broken.md", "a returns one", ["repo://src/a.py#L1-L2"])
        keeper.add("guide/broken.md", "b returns two", ["repo://src/b.py#L2"])
    for page in ("held", "broken"):  # reconciled by OpenWiki 0.4.0: its durable record of the page
        _with_verification(repo, f"openwiki/.claims/guide/{page}.json", Verification(OPENWIKI, T))
    repo.commit("claims")
    repo.write("src/a.py", "import os\n\n\ndef a():\n    return 1\n")  # a moves: still exactly what was cited
    repo.write("src/b.py", "def b():\n    return 3\n")  # b's claim goes stale
    return repo


def test_sync_migrates_an_openwiki_033_wiki_as_openwiki_040_does(
    v01_wiki: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = v01_wiki
    old = repo.read("openwiki/old.md")
    assert main(["okf", "sync", "--repo", str(repo.root)]) == 0
    capsys.readouterr()

    # The root index declares OKF v0.2; the 0.2.0-style folder index loses the front matter v0.2 forbids there.
    assert repo.read("openwiki/index.md") == (
        b'---\nokf_version: "0.2"\n---\n\n# Files\n\n- [Old format](old.md)\n\n# Directories\n\n- [guide](guide/)\n'
    )
    assert repo.read("openwiki/guide/index.md") == (
        b"# Files\n\n- [Broken](broken.md)\n- [Fresh](fresh.md)\n- [Held](held.md)\n"
    )
    # v0.1's `timestamp` is retired only when `generated` is stamped, on a body change; sync changes no body.
    assert repo.read("openwiki/old.md") == old

    a, b = source_id("repo://src/a.py"), source_id("repo://src/b.py")
    # Every claim holds exactly as recorded (a moved within its file, its text unchanged): OpenWiki's durable
    # record of the page's reconciliation, in its sidecar, is its `verified` event, after the projected sources.
    held = repo.read("openwiki/guide/held.md").decode()
    assert held == (
        f"---\ntype: Guide\ntitle: Held\nsources:\n  - id: {a}\n    resource: repo://src/a.py\n"
        f"verified:\n  - by: {OPENWIKI}\n    at: {T}\n---\n\n# Held\n\n`a` returns 1.\n"
    )
    # Every claim holds, but no reconciliation was ever recorded (grounded by hand): nothing to stamp.
    fresh = repo.read("openwiki/guide/fresh.md").decode()
    assert "sources:" in fresh and "verified:" not in fresh
    # A claim is stale: no machine event stays or is added; the person's event is kept as written.
    broken = repo.read("openwiki/guide/broken.md").decode()
    assert broken == (
        "---\ntype: Guide\ntitle: Broken\nverified:\n  - by: human:jane\n    at: 2026-08-01T00:00:00Z\n"
        f"sources:\n  - id: {a}\n    resource: repo://src/a.py\n  - id: {b}\n    resource: repo://src/b.py\n"
        "---\n\n`a` and `b` return numbers.\n"
    )
    for page in ("held", "broken"):  # pageVersion follows the page; the durable record is kept
        path = f"openwiki/.claims/guide/{page}.json"
        sidecar = parse_sidecar(repo.read(path), path)
        assert sidecar.page_version == page_version(repo.read(f"openwiki/guide/{page}.md"))
        assert sidecar.verification == Verification(OPENWIKI, T)

    before = {p: p.read_bytes() for p in (repo.root / "openwiki").rglob("*") if p.is_file()}
    assert main(["okf", "sync", "--repo", str(repo.root)]) == 0  # a second sync changes nothing
    assert "everything is up to date" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in (repo.root / "openwiki").rglob("*") if p.is_file()} == before


def test_verified_is_stamped_only_when_every_claim_holds() -> None:
    """The record is projected for the page whose claims all resolve to their stored versions; a claim that
    merely holds in Wikiwarden's eyes (moved to another file, re-anchoring pending) does not earn it."""
    page = b"---\ntype: Guide\n---\n\nBody\n"
    claims = (Claim("claim_" + "1" * 32, "a is one", (EvidenceRecord("repo://a.py#L1-L1", "v"),)),)
    record = Verification("wikiwarden/0.0.9", T)

    def grounded(holds: bool, attention: bool, verification: Verification | None, held=claims) -> GroundedPage:
        sidecar = Sidecar("sha256:" + "0" * 64, held, verification)
        return GroundedPage("w/.claims/p.json", sidecar, ["repo://a.py#L1-L1"], attention, holds=holds)

    def synced(page_state: GroundedPage) -> str:
        return plan_sync({"w/p.md": page}, "w", {"w/p.md": page_state}).writes["w/p.md"].decode()

    stamped = synced(grounded(True, False, record))
    assert stamped.endswith(f"verified:\n  - by: wikiwarden/0.0.9\n    at: {T}\n---\n\nBody\n")
    assert "verified:" not in synced(grounded(False, False, record))
    assert "verified:" not in synced(grounded(False, True, record))
    assert "verified:" not in synced(grounded(True, False, None))
    assert "verified:" not in synced(grounded(True, False, record, held=()))  # no claim, nothing verified
    ours = b"---\ntype: Guide\nverified:\n  - by: wikiwarden/0.0.1\n    at: 2026-08-02T00:00:00Z\n---\n\nBody\n"
    retracted = GroundedPage("w/.claims/p.json", Sidecar("sha256:" + "0" * 64, ()), [], False, holds=True)
    emptied = plan_sync({"w/p.md": ours}, "w", {"w/p.md": retracted})
    assert emptied.writes["w/p.md"] == page  # every claim retracted: our event goes with them


def test_the_record_replaces_only_its_own_producers_events() -> None:
    page = (
        b"---\ntype: Guide\nverified:\n  - by: openwiki/0.3.3\n    at: 2026-08-01T00:00:00.000Z\n"
        b"  - by: wikiwarden/0.0.1\n    at: 2026-08-02T00:00:00Z\n---\n\nBody\n"
    )
    claim = Claim("claim_" + "1" * 32, "a is one", (EvidenceRecord("repo://a.py#L1-L1", "v"),))
    sidecar = Sidecar("sha256:" + "0" * 64, (claim,), Verification(OPENWIKI, T))
    state = GroundedPage("w/.claims/p.json", sidecar, ["repo://a.py#L1-L1"], False, holds=True)
    written = plan_sync({"w/p.md": page}, "w", {"w/p.md": state}).writes["w/p.md"].decode()
    assert written == (
        "---\ntype: Guide\nverified:\n  - by: wikiwarden/0.0.1\n    at: 2026-08-02T00:00:00Z\n"
        f"  - by: {OPENWIKI}\n    at: {T}\nsources:\n  - id: {source_id('repo://a.py')}\n    resource: repo://a.py\n"
        "---\n\nBody\n"
    )


def test_a_producer_is_its_actor_up_to_the_version() -> None:
    assert producer_prefix("openwiki/0.4.0") == "openwiki/" and producer_prefix("wikiwarden/1.2") == "wikiwarden/"
    page = "---\ntype: G\nverified:\n  - by: codex\n    at: 2026-01-01T00:00:00Z\n  - by: codex-ci\n---\nB\n"
    assert project_verified(page, ("codex", T), producer_prefix("codex")) == (
        f"---\ntype: G\nverified:\n  - by: codex-ci\n  - by: codex\n    at: {T}\n---\nB\n"
    )  # an actor without a version is a producer of its own: codex-ci is someone else


# -- generated: v0.1's timestamp retired on a body change, as OpenWiki 0.4.0's finalizeGeneratedProvenance ----------


def test_timestamp_is_retired_into_generated_when_the_body_changes() -> None:
    """OpenWiki's own case ("bumps at and drops legacy timestamp when the body changes"), byte for byte."""
    before = '---\ntype: Reference\ntitle: Page\ntimestamp: "2026-07-16T20:00:00Z"\n---\n\n# Page\n\nOld body.\n'
    after = before.replace("Old body.", "New body.")
    assert stamp_generated(before, after, OPENWIKI, T) == (
        f'---\ntype: Reference\ntitle: Page\ngenerated: {{by: "{OPENWIKI}", at: "{T}"}}\n---\n\n# Page\n\nNew body.\n'
    )
    assert stamp_generated(before, before, OPENWIKI, T) == before  # "leaves a preserved unstamped page unstamped"


def test_a_first_block_is_no_body_change() -> None:
    """OpenWiki gives a page without front matter its block before it takes the body's hash, so the blank line that
    separates a new block from the body is not a change of the body: metadata alone earns no `generated`."""
    for before in ("# Page\n\nBody.\n", "\ufeff# Page\n\nBody.\n", "# Page\r\n\r\nBody.\r\n"):
        after = project_sources(before, ["repo://src/a.py#L1-L1"])
        assert stamp_generated(before, after, OPENWIKI, T) == after
        changed = after.replace("Body.", "New body.")
        assert "generated:" in stamp_generated(before, changed, OPENWIKI, T)


# -- a person's index.md, in the root and in sub-folders -------------------------------------------------------------


@pytest.fixture
def mkdocs(repo: GitRepo) -> GitRepo:
    repo.write("mkdocs.yml", "site_name: Taskq\n")
    repo.write("docs/index.md", MKDOCS_HOME)
    repo.write("docs/guide/index.md", PLAIN_HOME)
    repo.write("docs/guide/queue.md", "# Queue\n\nIt queues.\n")
    repo.write("docs/guide/deep/workers.md", "---\ntype: Guide\ntitle: Workers\n---\n\nThey work.\n")
    repo.write("docs/edited/index.md", "# Files\n\n- [Notes](notes.md)\n\nAsk Jane before adding pages here.\n")
    repo.write("docs/edited/notes.md", "---\ntype: Note\ntitle: Notes\n---\n")
    repo.commit("a MkDocs site")
    return repo


def test_sync_never_overwrites_a_persons_index(mkdocs: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    persons = ("docs/index.md", "docs/guide/index.md", "docs/edited/index.md")
    before = {path: mkdocs.read(path) for path in persons}
    with GitRepository(mkdocs.root) as git:
        unasked = sync_okf(git, "docs", init=True, dry_run=True)  # a site: no new index.md unless asked
        plan = sync_okf(git, "docs", init=True, indexes=True)  # a person's site: synced only when asked
    assert set(unasked.writes) == {"docs/guide/queue.md", "docs/.wikiwarden/okf.json"}
    assert [path for path, _why in plan.kept] == ["docs/edited/index.md", "docs/guide/index.md", "docs/index.md"]
    assert all("not an index OpenWiki or Wikiwarden wrote" in why for _path, why in plan.kept)
    assert plan.problems == []
    assert {path: mkdocs.read(path) for path in persons} == before
    assert mkdocs.read("docs/guide/deep/index.md") == b"# Files\n\n- [Workers](workers.md)\n"
    assert set(plan.writes) == {"docs/guide/queue.md", "docs/guide/deep/index.md", "docs/.wikiwarden/okf.json"}

    assert main(["okf", "sync", "--repo", str(mkdocs.root), "--wiki-dir", "docs"]) == 0  # nothing is wrong
    assert "everything is up to date" in capsys.readouterr().out
    assert {path: mkdocs.read(path) for path in persons} == before


def test_a_symlinked_index_is_left_and_reported(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.write("openwiki/a.md", "---\ntype: X\ntitle: A\n---\n")
    repo.write("notes.md", "# Notes\n")
    repo.symlink("openwiki/index.md", "../notes.md")
    repo.commit("wiki")
    assert main(["okf", "sync", "--repo", str(repo.root)]) == 1
    assert "left as it is: openwiki/index.md: a symlink" in capsys.readouterr().err
    assert os.readlink(repo.root / "openwiki/index.md") == "../notes.md"
    assert repo.read("notes.md") == b"# Notes\n"
