"""`okf sync`'s plan on a docs site people wrote (a copy of a few files of HTTPX's MkDocs site, tests/data/httpx_docs):
an index goes only into a folder with pages, a title never comes from a code block, and the pages of a folder that
is not an OpenWiki wiki never get `openwiki_generated`. What OpenWiki's own wiki gets stays what OpenWiki writes.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from bot.okf.index import plan_indexes, render_index
from bot.okf.project import first_heading, normalize_concept
from bot.okf.sync import PERSONS_INDEX, plan_sync, recognise

SITE = Path(__file__).parents[1] / "data" / "httpx_docs"
OKF_WIKI = Path(__file__).parents[1] / "data" / "okf_wiki"
ROOT = '---\nokf_version: "0.2"\n---\n\n'
TIMEOUTS_TITLE = b'---\ntype: "Reference"\ntitle: "Timeouts"\n---\n\n'


def files_of(folder: Path, under: str) -> dict[str, bytes]:
    return {f"{under}/{p.relative_to(folder).as_posix()}": p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture
def site() -> dict[str, bytes]:
    return files_of(SITE / "docs", "docs")


def test_the_fixture_is_httpx_as_published(site: dict[str, bytes]) -> None:
    """Every file's git blob hash is the one NOTICE.md names (an editor that strips a trailing space breaks it)."""
    listed = dict(re.findall(r"^\| `(docs/[^`]+)` \| `([0-9a-f]{40})` \|$", (SITE / "NOTICE.md").read_text(), re.M))
    blobs = {path: hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest() for path, data in site.items()}
    assert blobs == listed
    assert sum(p.stat().st_size for p in SITE.rglob("*") if p.is_file()) < 60 * 1024  # kept small


# -- an index only where there are pages ---------------------------------------------------------------------------


def test_an_index_goes_only_into_folders_with_pages(site: dict[str, bytes]) -> None:
    planned = plan_indexes(site, "docs")
    assert planned.writes == {"docs/advanced/index.md": b"# Files\n\n- [resource-limits](resource-limits.md)\n"
                              b"- [timeouts](timeouts.md)\n"}  # fmt: skip
    assert planned.kept == ["docs/index.md"]  # the home page, a person's: never overwritten
    # Not css/, img/, overrides/ or overrides/partials/: a site would publish an index.md there as a page.


def test_a_folder_with_pages_only_below_it_gets_an_index_that_lists_them() -> None:
    files = {"w/a.md": b"# A\n", "w/api/v1/b.md": b"# B\n", "w/api/logo.png": b"\x89PNG", "w/theme/x.html": b"<p>"}
    assert plan_indexes(files, "w").writes == {
        "w/index.md": f"{ROOT}# Files\n\n- [a](a.md)\n\n# Directories\n\n- [api](api/)\n".encode(),
        "w/api/index.md": b"# Directories\n\n- [v1](v1/)\n",
        "w/api/v1/index.md": b"# Files\n\n- [b](b.md)\n",
    }
    assert plan_indexes({"w/css/site.css": b"p {}", "w/img/a.png": b"\x89PNG"}, "w").writes == {}


def test_an_index_already_in_a_folder_without_pages_is_kept_up_to_date_as_openwiki_keeps_it() -> None:
    """Its pages were deleted: OpenWiki rewrites the index it wrote there (and lists the folder); so does sync, which
    only never creates one there. A person's index.md in such a folder is no index of the wiki's at all."""
    files = {
        "w/a.md": b"# A\n",
        "w/old/index.md": b"# Files\n\n- [Gone](gone.md)\n",
        "w/notes/index.md": b"# Notes\n\nMine.\n",
    }
    assert plan_indexes(files, "w").writes == {
        "w/index.md": f"{ROOT}# Files\n\n- [a](a.md)\n\n# Directories\n\n- [old](old/)\n".encode(),
        "w/old/index.md": b"# Files\n",
    }
    assert plan_indexes(files, "w").kept == []


def test_an_openwiki_wikis_folders_all_hold_pages_so_its_indexes_are_openwikis() -> None:
    """OpenWiki indexes every folder; in a wiki of pages that is every folder with pages, byte for byte the same."""
    files = files_of(OKF_WIKI, "openwiki")
    planned = plan_indexes(files, "openwiki")
    assert set(planned.writes) == {"openwiki/index.md", "openwiki/nested/index.md", "openwiki/nested/deep/index.md"}
    assert planned.writes["openwiki/nested/index.md"] == render_index([], ["deep"], False).encode()


# -- titles ----------------------------------------------------------------------------------------------------------


def test_a_title_never_comes_from_a_code_block(site: dict[str, bytes]) -> None:
    timeouts = site["docs/advanced/timeouts.md"].decode()
    assert "\n# Using the top-level API:\n" in timeouts  # OpenWiki's rule, and Wikiwarden's before, took this
    assert first_heading(timeouts) is None
    assert normalize_concept(timeouts, "docs/advanced/timeouts.md", generated=False) == (
        TIMEOUTS_TITLE.decode() + timeouts
    )
    assert first_heading(site["docs/index.md"].decode()) is None  # its only `# ` line is a shell comment
    assert first_heading(site["docs/http2.md"].decode()) == "HTTP/2"


@pytest.mark.parametrize(
    ("body", "title"),
    [
        ("```python\n# a comment\n```\n\n# Real\n", "Real"),
        ("~~~\n# tilde fence\n~~~\n", None),
        ("Intro.\n\n    # indented code\n\nText.\n", None),
        ("<div>\n# inside an HTML block\n</div>\n\n# After\n", "After"),
        ("> # quoted\n\n- # listed\n", None),  # a heading in a quote or a list item is not the page's
        ("```\nunclosed fence\n# still code\n", None),
        ("Setext title\n============\n\n# Later\n", "Setext title"),
        ("Over two\nlines\n===\n", "Over two lines"),
        ("Second level\n------------\n\n## Also second\n", None),  # OpenWiki takes only `# `, and so level one
        ('# Hello "World" #\n', 'Hello "World" #'),  # OpenWiki's text: the closing sequence kept
        ("  # Indented\n\n# Flush\n", "Flush"),  # OpenWiki takes a `# ` only at the start of its line
        ("#\n\n# Named\n", "Named"),  # an empty heading names nothing
        ("# Title\r\n\r\nBody\r\n", "Title"),
    ],
)
def test_the_title_is_the_first_real_level_one_heading(body: str, title: str | None) -> None:
    assert first_heading(body) == title


# -- whose folder it is ----------------------------------------------------------------------------------------------

LAST_UPDATE = b'{\n  "updatedAt": "2026-08-22T08:02:55.052Z",\n  "command": "update",\n  "language": "en"\n}\n'


def test_an_openwiki_wiki_is_recognised_by_what_openwiki_leaves(site: dict[str, bytes]) -> None:
    assert not recognise(site, "docs").is_openwiki_wiki
    sidecar = {"docs/.claims/http2.json": b"{}"}  # grounded by hand: a person's pages still
    assert not recognise({**site, **sidecar}, "docs").is_openwiki_wiki
    ran = recognise({**site, "docs/.last-update.json": LAST_UPDATE}, "docs")
    assert ran.is_openwiki_wiki and ran.pages_by_openwiki
    # An index in OpenWiki's form: OpenWiki's, or an earlier `okf sync --init` over a person's pages.
    indexed = recognise({**site, "docs/advanced/index.md": b"# Files\n\n- [T](timeouts.md)\n"}, "docs")
    assert indexed.is_openwiki_wiki and not indexed.pages_by_openwiki
    assert indexed.generated_indexes == ("docs/advanced/index.md",)
    fixture = recognise(files_of(OKF_WIKI, "openwiki"), "openwiki")
    assert fixture.generated_indexes == ("openwiki/index.md",) and not fixture.pages_by_openwiki
    hidden = recognise({**site, "docs/.git/index.md": b"# Files\n"}, "docs")  # nothing in a dot folder counts
    assert not hidden.is_openwiki_wiki


def test_a_persons_pages_get_type_and_title_and_never_openwiki_generated(site: dict[str, bytes]) -> None:
    plan = plan_sync(site, "docs", {}, pages_by_openwiki=False)
    assert sorted(plan.writes) == [
        "docs/advanced/index.md",
        "docs/advanced/resource-limits.md",
        "docs/advanced/timeouts.md",
        "docs/http2.md",
    ]
    assert not any(b"openwiki_generated" in content for content in plan.writes.values())
    assert plan.writes["docs/advanced/timeouts.md"] == TIMEOUTS_TITLE + site["docs/advanced/timeouts.md"]
    assert plan.writes["docs/http2.md"].startswith(b'---\ntype: "Reference"\ntitle: "HTTP/2"\n---\n\n# HTTP/2\n')
    assert plan.writes["docs/advanced/index.md"] == (
        b"# Files\n\n- [Resource limits](resource-limits.md)\n- [Timeouts](timeouts.md)\n"
    )
    assert plan.kept == [("docs/index.md", PERSONS_INDEX)]
    assert plan.counts() == (3, 1)
    assert plan.problems == []


def test_openwikis_pages_are_migrated_as_openwiki_migrates_them(site: dict[str, bytes]) -> None:
    """The same pages, OpenWiki's: its first run's minimal block, `openwiki_generated` and all."""
    plan = plan_sync(site, "docs", {}, pages_by_openwiki=True)
    assert plan.writes["docs/advanced/timeouts.md"] == (
        b'---\ntype: "Reference"\ntitle: "Timeouts"\nopenwiki_generated: true\n---\n\n'
        + site["docs/advanced/timeouts.md"]
    )
    person = "---\ntitle: Home\n---\n\n# Home\n"  # front matter without `type`: both fields added, no flag
    assert normalize_concept(person, "docs/home.md", generated=False) == (
        '---\ntype: "Reference"\ntitle: Home\n---\n\n# Home\n'
    )
    assert normalize_concept(person, "docs/home.md") == (
        '---\ntype: "Reference"\ntitle: Home\nopenwiki_generated: true\n---\n\n# Home\n'
    )
