"""Front matter round trip on a fixture wiki of 36 odd pages (tests/data/okf_wiki: comments, flow and block
styles, CRLF, BOM, missing or empty front matter, unknown keys, non-ASCII, invalid YAML, ...): nothing changes
when nothing is to change, and only the touched field changes when something is. The fixture's files are
data; its .gitattributes keeps git from converting their line endings."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.okf.frontmatter import FrontMatterError, Page, set_field
from bot.okf.project import normalize_concept, project_sources, project_verified, stamp_generated
from bot.okf.yaml12 import load_yaml

WIKI = Path(__file__).parents[1] / "data" / "okf_wiki"
PAGES = sorted(p.relative_to(WIKI).as_posix() for p in WIKI.rglob("*.md"))
UNREADABLE = {"invalid_yaml.md", "duplicate_key.md"}
ACTOR, AT = "wikiwarden/0.1.0", "2026-08-22T08:02:55.052Z"


def _text(name: str) -> str:
    return (WIKI / name).read_bytes().decode("utf-8")


def _without(text: str, key: str) -> str:
    """The page with field `key` cut out: what must stay byte for byte when only `key` is edited."""
    page = Page.parse(text)
    start = page.key_line(key)
    if start is None:
        return text
    first, end = page.extent(start)
    del page.lines[first:end]
    return page.render()


def test_the_fixture_is_what_the_issue_asks_for() -> None:
    assert len(PAGES) >= 30
    raw = {name: (WIKI / name).read_bytes() for name in PAGES}
    assert any(b"\r\n" in data for data in raw.values())
    assert any(data.startswith(b"\xef\xbb\xbf") for data in raw.values())
    assert any(not data.startswith(b"---") for data in raw.values())
    assert any(any(c > 127 for c in data) for data in raw.values())


@pytest.mark.parametrize("name", PAGES)
def test_every_page_renders_back_byte_for_byte(name: str) -> None:
    text = _text(name)
    assert Page.parse(text).render() == text


@pytest.mark.parametrize("name", PAGES)
def test_nothing_to_do_changes_nothing(name: str) -> None:
    text = _text(name)
    if name in UNREADABLE:
        with pytest.raises(FrontMatterError):
            project_sources(text, [])
        return
    assert stamp_generated(text, text, ACTOR, AT) == text  # the body did not change
    verified = Page.parse(text).fields().get("verified")
    events = verified if isinstance(verified, list) else []
    must_change = isinstance(verified, dict) or any(str(e.get("by", "")).startswith("wikiwarden/") for e in events)
    assert (project_verified(text, None) != text) == must_change  # our old event goes; a bare mapping is listed
    current = Page.parse(text).fields().get("sources")
    owned = [
        s["resource"] for s in current or [] if isinstance(s, dict) and str(s.get("id", "")).startswith("openwiki-")
    ]
    if not owned:
        assert project_sources(text, []) == text
    fields = Page.parse(text).fields()
    if isinstance(fields.get("type"), str) and fields["type"].strip():
        assert normalize_concept(text, name) == text


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize(
    ("key", "edit"),
    [
        ("sources", lambda t: project_sources(t, ["repo://src/new.py#L1-L4", "repo://README.md"])),
        ("verified", lambda t: project_verified(t, (ACTOR, AT))),
        ("generated", lambda t: stamp_generated(None, t, ACTOR, AT)),
    ],
    ids=["sources", "verified", "generated"],
)
def test_an_edit_changes_only_its_field(name: str, key: str, edit) -> None:
    text = _text(name)
    if name in UNREADABLE:
        with pytest.raises(FrontMatterError):
            edit(text)
        return
    fields = Page.parse(text).fields()
    if not Page.parse(text).has_front_matter or not fields.get("type"):
        return  # normalised first in every real flow (see test_normalisation_is_surgical)
    result = edit(text)
    touched = {key, "timestamp"} if key == "generated" else {key}  # stamping `generated` retires v0.1's field
    expected = _without(text, key)
    if key == "generated":
        expected = _without(expected, "timestamp")
    assert _without(result, key) == expected
    after = Page.parse(result).fields()
    assert {k: v for k, v in after.items() if k not in touched} == {k: v for k, v in fields.items() if k not in touched}
    if "\r\n" in "".join(Page.parse(text).lines):
        assert all(line.endswith("\r\n") for line in Page.parse(result).lines)
    assert Page.parse(result).bom == Page.parse(text).bom
    assert Page.parse(result).body == Page.parse(text).body


@pytest.mark.parametrize("name", PAGES)
def test_normalisation_is_surgical(name: str) -> None:
    text = _text(name)
    if name in UNREADABLE:
        with pytest.raises(FrontMatterError):
            normalize_concept(text, name)
        return
    result = normalize_concept(text, name)
    after = Page.parse(result)
    fields = after.fields()
    assert isinstance(fields["type"], str) and fields["type"].strip()
    before = Page.parse(text)
    if before.has_front_matter:
        added = {"type", "title", "openwiki_generated"}
        old = before.fields()
        assert {k: v for k, v in fields.items() if k not in added} == {k: v for k, v in old.items() if k not in added}
        assert after.body == before.body


def test_edits_that_would_change_other_fields_are_refused() -> None:
    # A quoted key is invisible to the line scanner: appending would create a duplicate key.
    text = '---\ntype: Concept\n"sources": [x]\n---\n'
    with pytest.raises(FrontMatterError):
        set_field(text, "sources", ["sources:", "  - resource: y"])
    assert load_yaml("type: Concept\n") == {"type": "Concept"}
