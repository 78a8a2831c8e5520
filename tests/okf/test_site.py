"""`okf sync`'s plan on a docs site people wrote (a copy of a few files of HTTPX's MkDocs site, tests/data/httpx_docs):
a title never comes from a code block.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from bot.okf.project import first_heading, normalize_concept

SITE = Path(__file__).parents[1] / "data" / "httpx_docs"
TIMEOUTS_TITLE = b'---\ntype: "Reference"\ntitle: "Timeouts"\nopenwiki_generated: true\n---\n\n'


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


# -- titles ----------------------------------------------------------------------------------------------------------


def test_a_title_never_comes_from_a_code_block(site: dict[str, bytes]) -> None:
    timeouts = site["docs/advanced/timeouts.md"].decode()
    assert "\n# Using the top-level API:\n" in timeouts  # OpenWiki's rule, and Wikiwarden's before, took this
    assert first_heading(timeouts) is None
    assert normalize_concept(timeouts, "docs/advanced/timeouts.md") == (TIMEOUTS_TITLE.decode() + timeouts)
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
