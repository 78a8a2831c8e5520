"""`wikiwarden okf sync` on a docs site people wrote (a copy of a few files of HTTPX's MkDocs site,
tests/data/httpx_docs) and on OpenWiki wikis: a person's folder is written only with `--init`, and then only its pages
and the indexes of folders that hold pages, with titles from real headings and no `openwiki_generated`; an OpenWiki
wiki is migrated unasked, as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from clitools import status
from conftest import GitRepo

SITE = Path(__file__).parents[2] / "data" / "httpx_docs" / "docs"
PAGES = ["docs/advanced/resource-limits.md", "docs/advanced/timeouts.md", "docs/http2.md"]
WRITTEN = sorted([*PAGES, "docs/.wikiwarden/okf.json"])  # a MkDocs site: no new index.md unless --indexes asks
LAST_UPDATE = (
    '{\n  "updatedAt": "2026-08-22T08:02:55.052Z",\n  "command": "update",\n  "gitHead": "'
    + "0" * 40
    + '",\n  "model": "none",\n  "status": "complete",\n  "language": "en"\n}\n'
)

pytestmark = pytest.mark.usefixtures("isolated_cli")


@pytest.fixture
def site(repo: GitRepo) -> GitRepo:
    shutil.copytree(SITE, repo.root / "docs")
    repo.write("mkdocs.yml", "site_name: HTTPX\ntheme:\n  custom_dir: docs/overrides\n")
    repo.commit("the site")
    return repo


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts
    }


def test_without_init_a_persons_site_is_left_and_sync_says_how(site: GitRepo, cli) -> None:
    before = _files(site.root)
    run = cli("okf", "sync", "--repo", site.root, "--wiki-dir", "docs")
    assert (run.code, run.err) == (0, "")
    assert run.out == (
        "docs/ is not an OpenWiki wiki (no .last-update.json, no index.md OpenWiki or Wikiwarden wrote): okf sync "
        f"would add front matter to 3 pages; run `wikiwarden okf sync --repo {site.root} "
        "--wiki-dir docs --init` to do so\n"
    )
    assert status(site.root) == [] and _files(site.root) == before

    dry = cli("okf", "sync", "--repo", site.root, "--wiki-dir", "docs", "--dry-run")
    assert dry.code == 0
    assert [line for line in dry.out.splitlines() if line.startswith("would write ")] == [
        f"would write {path}" for path in PAGES
    ]
    assert "left as it is: docs/index.md: a page of its own" in dry.out
    assert dry.out.endswith("--wiki-dir docs --init` to do so\n")
    assert status(site.root) == []


def test_the_command_it_suggests_is_the_one_to_run(site: GitRepo, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """The folder named in .github/wikiwarden.yml: the suggestion needs no --wiki-dir, and running it syncs."""
    site.write(".github/wikiwarden.yml", "wiki_dir: docs\n")
    site.commit("the config names the site")
    monkeypatch.chdir(site.root)
    run = cli("okf", "sync")
    assert run.code == 0 and run.out.endswith("; run `wikiwarden okf sync --init` to do so\n"), run.out
    assert status(site.root) == []
    assert cli("okf", "sync", "--init").code == 0
    assert status(site.root) == WRITTEN


def test_a_grounded_persons_site_is_still_a_persons(site: GitRepo, cli) -> None:
    """A `.claims/` folder is Wikiwarden's too: grounding a person's page makes the site no OpenWiki wiki."""
    assert cli("claim", "add", "--repo", site.root, "--wiki-dir", "docs", "http2.md", "The site is HTTPX's",
               "repo://mkdocs.yml#L1").code == 0  # fmt: skip
    site.commit("grounded")
    run = cli("okf", "sync", "--repo", site.root, "--wiki-dir", "docs")
    assert run.code == 0 and "docs/ is not an OpenWiki wiki" in run.out
    assert status(site.root) == []


def test_init_writes_only_pages_and_the_indexes_of_folders_with_pages(site: GitRepo, cli) -> None:
    dry = cli("okf", "sync", "--repo", site.root, "--wiki-dir", "docs", "--init", "--dry-run")
    assert dry.code == 0 and f"would write {WRITTEN[0]}\n" in dry.out and "--init` to do so" not in dry.out
    assert status(site.root) == []

    before = _files(site.root)
    run = cli("okf", "sync", "--repo", site.root, "--wiki-dir", "docs", "--init")
    assert (run.code, run.err) == (0, "")
    assert [line for line in run.out.splitlines() if line.startswith("wrote ")] == [f"wrote {p}" for p in WRITTEN]
    assert status(site.root) == WRITTEN  # nothing else, in particular:
    for folder in ("docs/css", "docs/img", "docs/overrides", "docs/overrides/partials"):
        assert not (site.root / folder / "index.md").exists(), folder
    after = _files(site.root)
    assert after["docs/index.md"] == before["docs/index.md"]  # the home page, a person's
    assert not any(b"openwiki_generated" in content for content in after.values())
    # Its first `# ` line is a comment in a code block: the title is the file's name, as MkDocs' nav has it.
    assert after["docs/advanced/timeouts.md"] == (
        b'---\ntype: "Reference"\ntitle: "Timeouts"\n---\n\n' + before["docs/advanced/timeouts.md"]
    )
    assert after["docs/http2.md"].startswith(b'---\ntype: "Reference"\ntitle: "HTTP/2"\n---\n\n# HTTP/2\n')
    assert "docs/advanced/index.md" not in after  # a new page the site would publish: only with --indexes

    # The marker it wrote makes the folder an OKF wiki sync keeps: later runs need no --init, and find nothing to do.
    site.commit("synced")
    again = cli("okf", "sync", "--repo", site.root, "--wiki-dir", "docs")
    assert (again.code, again.out) == (0, "left as it is: docs/index.md: a page of its own, not an index OpenWiki "
                                          "or Wikiwarden wrote: never overwritten\neverything is up to date\n")  # fmt: skip
    # A page a person adds later is still a person's: `type` and `title`, no `openwiki_generated`.
    site.write("docs/advanced/retries.md", "Retries\n=======\n\n```python\n# not a title\n```\n")
    later = cli("okf", "sync", "--repo", site.root, "--wiki-dir", "docs")
    assert later.code == 0 and "wrote docs/advanced/retries.md\n" in later.out
    assert site.read("docs/advanced/retries.md").startswith(b'---\ntype: "Reference"\ntitle: "Retries"\n---\n')


def _openwiki_wiki(repo: GitRepo, last_update: bool) -> GitRepo:
    repo.write("openwiki/index.md", '---\nokf_version: "0.2"\n---\n\n# Files\n\n- [Old](old.md)\n')
    repo.write("openwiki/old.md", "---\ntype: Concept\ntitle: Old\n---\n\nStill here.\n")
    repo.write("openwiki/guide/setup.md", "```sh\n# install it\n```\n\n# Setting up\n\nRun it.\n")
    repo.write("openwiki/guide/diagram.svg", "<svg/>")
    repo.write("openwiki/assets/logo.svg", "<svg/>")
    if last_update:
        repo.write("openwiki/.last-update.json", LAST_UPDATE)
    repo.commit("an OpenWiki wiki")
    return repo


def test_an_openwiki_wiki_is_still_migrated_unasked(repo: GitRepo, cli) -> None:
    wiki = _openwiki_wiki(repo, last_update=True)
    run = cli("okf", "sync", "--repo", wiki.root)
    assert (run.code, run.err) == (0, "")
    assert status(wiki.root) == ["openwiki/guide/index.md", "openwiki/guide/setup.md", "openwiki/index.md"]
    assert wiki.read("openwiki/guide/setup.md").startswith(
        b'---\ntype: "Reference"\ntitle: "Setting up"\nopenwiki_generated: true\n---\n\n```sh\n'
    )  # OpenWiki's pages: its first run's flag; the title from the heading, not the comment before it
    assert wiki.read("openwiki/index.md") == (
        b'---\nokf_version: "0.2"\n---\n\n# Files\n\n- [Old](old.md)\n\n# Directories\n\n- [guide](guide/)\n'
    )  # no assets/ (no pages in it): OpenWiki would index it; a folder of pictures has nothing to list
    assert wiki.read("openwiki/guide/index.md") == b"# Files\n\n- [Setting up](setup.md)\n"


def test_a_wiki_known_only_by_its_index_is_synced_but_its_pages_are_not_called_openwikis(repo: GitRepo, cli) -> None:
    """Without `.last-update.json` the index may be one `okf sync --init` wrote over a person's pages."""
    wiki = _openwiki_wiki(repo, last_update=False)
    run = cli("okf", "sync", "--repo", wiki.root)
    assert (run.code, run.err) == (0, "")
    assert status(wiki.root) == ["openwiki/guide/index.md", "openwiki/guide/setup.md", "openwiki/index.md"]
    assert wiki.read("openwiki/guide/setup.md").startswith(b'---\ntype: "Reference"\ntitle: "Setting up"\n---\n\n')
