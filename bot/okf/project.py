"""The OKF fields Wikiwarden owns, projected onto a page: `sources` from its claims, `generated` when its body
changed, `verified` after reconciliation, and the minimal block a page without a usable `type` gets.

Where OpenWiki defines the bytes, they are OpenWiki's: the same entries, ids, order and renderings. Where it
would disturb what a person wrote (re-rendering other entries, dropping fields, changing line endings),
Wikiwarden edits surgically instead; see `frontmatter.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from hashlib import sha256
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..claims.collation import collation_key
from ..claims.errors import EvidenceResourceError
from ..claims.resources import parse_resource
from ..claims.sidecar import JS_WHITESPACE, js_trim
from .frontmatter import FrontMatterError, Page, field_chunks, set_field
from .render import json_quoted, list_item

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

SOURCE_ID_PREFIX = "openwiki-source-"
WIKIWARDEN_ACTOR_PREFIX = "wikiwarden/"
ACTOR = WIKIWARDEN_ACTOR_PREFIX + __version__  # who Wikiwarden is in `generated`, `verified` and `.last-update.json`
GENERATED_FLAG = "openwiki_generated"
_MISSING = object()
_JS_SPACE = f"[{re.escape(JS_WHITESPACE)}]"  # JavaScript's \s
# OpenWiki's firstHeading, `#\s+(.+?)\s*` on one line, its title trimmed: the line after `#` trimmed, when a space
# follows the `#` (matched as written, the lazy group tried each length against the rest: a long line took hours)
_FIRST_H1 = re.compile(rf"#{_JS_SPACE}")
_MAY_HAVE_H1 = re.compile(r"^ {0,3}[#=]", re.M)  # without such a line a page has no level-one heading

# OpenWiki's localised concept type for derived pages (index-labels); other languages fall back to English.
CONCEPT_TYPES = {
    "en": "Reference", "ar": "مرجع", "ca": "Referència", "cs": "Reference", "da": "Reference", "de": "Referenz",
    "el": "Αναφορά", "es": "Referencia", "fr": "Référence", "hi": "संदर्भ", "hr": "Referenca", "id": "Referensi",
    "it": "Riferimento", "ja": "リファレンス", "ko": "참조", "ms": "Rujukan", "nb": "Referanse", "nl": "Referentie",
    "no": "Referanse", "pt": "Referência", "ro": "Referință", "ru": "Справочник", "sk": "Referencia",
    "sr": "Референца", "sv": "Referens", "th": "อ้างอิง", "tr": "Referans", "uk": "Довідник", "vi": "Tham khảo",
    "zh": "参考", "zh-TW": "參考",
}  # fmt: skip


def localized(table: dict[str, Any], language: str) -> Any:
    """OpenWiki's lookup: the exact tag, then its primary language subtag, then English."""
    if language in table:
        return table[language]
    return table.get(language.split("-", 1)[0].lower(), table["en"])


# -- sources ------------------------------------------------------------------------------------


def source_id(resource: str) -> str:
    """`openwiki-source-` and the first 24 hex digits of sha256 of the whole-file resource."""
    return SOURCE_ID_PREFIX + sha256(resource.encode("utf-8")).hexdigest()[:24]


def whole_file_resources(resources: Iterable[str]) -> list[str]:
    """The claims' evidence collapsed to whole files, deduplicated, in `localeCompare` order."""
    files = set()
    for resource in resources:
        try:
            files.add(parse_resource(resource).whole_file.canonical)
        except EvidenceResourceError:
            continue  # a bad resource is reported by the sweep; it has no source to project
    return sorted(files, key=collation_key)


def _owned_source(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"].startswith(SOURCE_ID_PREFIX)


def project_sources(text: str, resources: Iterable[str]) -> str:
    """`sources` from the page's claims: other producers' entries first and untouched, then one entry per
    cited file; the field is removed when nothing is left, and the page is unchanged when nothing differs."""
    page = Page.parse(text)
    fields = page.fields()
    raw = fields.get("sources", _MISSING)
    items = raw if isinstance(raw, list) else []
    foreign = [index for index, item in enumerate(items) if not _owned_source(item)]
    taken = {
        items[i]["resource"]
        for i in foreign
        if isinstance(items[i], dict) and isinstance(items[i].get("resource"), str)
    }
    projected = [{"id": source_id(r), "resource": r} for r in whole_file_resources(resources) if r not in taken]
    wanted = [items[i] for i in foreign] + projected
    if (isinstance(raw, list) and wanted == items) or (raw is _MISSING and not wanted):
        return text
    if not wanted:
        return set_field(text, "sources", None)
    kept = _kept_items(page, "sources", raw, foreign)
    lines = ["sources:", *kept]
    for entry in projected:
        lines.extend(list_item(entry))
    return _checked(set_field(text, "sources", lines), "sources", wanted)


def _kept_items(page: Page, key: str, raw: Any, keep: list[int]) -> list[str]:
    """The lines of the items to keep: verbatim when the field is a block sequence, else re-rendered."""
    items = raw if isinstance(raw, list) else ([] if raw is _MISSING else [raw])
    chunks = field_chunks(page, key) if isinstance(raw, list) else None
    if chunks is not None and len(chunks) == len(items):
        return [line.rstrip("\r\n") for i in keep for line in chunks[i]]
    return [line for i in keep for line in list_item(items[i])]


def _checked(text: str, key: str, wanted: list[Any]) -> str:
    if Page.parse(text).fields().get(key) != wanted:
        raise FrontMatterError(f"could not write `{key}` faithfully; page left as it is")
    return text


# -- generated ----------------------------------------------------------------------------------


def generated_line(actor: str, at: str) -> str:
    """`generated: {by: "<actor>", at: "<time>"}`: a flow map with JSON-quoted values, as OpenWiki writes it."""
    return f"generated: {{by: {json_quoted(actor)}, at: {json_quoted(at)}}}"


def stamp_generated(before: str | None, after: str, actor: str, at: str) -> str:
    """Stamp `generated` when the body changed (or the page is new), dropping v0.1's `timestamp`; a page
    whose body did not change keeps its old stamp, whatever happened to its front matter."""
    if before is not None and _same_body(Page.parse(before), Page.parse(after)):
        return after
    text = set_field(after, "generated", [generated_line(actor, at)])
    while Page.parse(text).key_line("timestamp") is not None:
        text = set_field(text, "timestamp", None)
    return text


def _same_body(before: Page, after: Page) -> bool:
    """The bodies are the same, the line break that separates a page's first block from its body aside: OpenWiki
    gives a page its block before it hashes the body, so new metadata alone is no body change."""
    if before.body == after.body:
        return True
    return not before.has_front_matter and after.has_front_matter and after.body == after.eol + before.body


# -- verified -----------------------------------------------------------------------------------


def producer_prefix(actor: str) -> str:
    """The part of an actor that names its producer (`openwiki/` of `openwiki/0.4.0`): events sharing it are the
    same producer's, whatever its version, and one replaces the other, as OpenWiki replaces its own by `^openwiki/`.
    An actor without a version is its own producer."""
    return actor[: actor.index("/") + 1] if "/" in actor else actor


def _own_event(item: Any, prefix: str) -> bool:
    actor = item.get("by") if isinstance(item, dict) else None
    if not isinstance(actor, str):
        return False
    return actor.startswith(prefix) if prefix.endswith("/") else actor == prefix


def project_verified(text: str, event: tuple[str, str] | None, own_prefix: str = WIKIWARDEN_ACTOR_PREFIX) -> str:
    """Wikiwarden's `verified` event: replaced by `event` (by, at), or removed when None. Every other event,
    `human:` ones above all, is kept as written; a bare mapping is normalised to a one-item list."""
    page = Page.parse(text)
    fields = page.fields()
    raw = fields.get("verified", _MISSING)
    items = raw if isinstance(raw, list) else ([] if raw is _MISSING else [raw])
    kept = [index for index, item in enumerate(items) if not _own_event(item, own_prefix)]
    mine = [{"by": event[0], "at": event[1]}] if event else []
    wanted = [items[i] for i in kept] + mine
    if wanted == items and not isinstance(raw, dict):
        return text
    if not wanted:
        return set_field(text, "verified", None)
    lines = ["verified:", *_kept_items(page, "verified", raw, kept)]
    for entry in mine:
        lines.extend(list_item(entry))
    return _checked(set_field(text, "verified", lines), "verified", wanted)


# -- pages without a usable type ----------------------------------------------------------------


@cache
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt  # noqa: PLC0415 - imported only when a page needs a title

    return MarkdownIt("commonmark")


def first_heading(body: str) -> str | None:
    """The title of a page: its first level-one heading as CommonMark reads it, outside any block quote or list.

    OpenWiki (`firstHeading`, `/^#\\s+(.+?)\\s*$/mu`) takes the first line that starts with `# `, a comment in a
    code block too (`# Using the top-level API:` of a Python example). Wikiwarden takes no line of a code block,
    HTML block or quote, and counts a setext heading (`Title` over `=====`), which OpenWiki does not see. Of an
    ATX heading it takes OpenWiki's text (a closing `#` kept) and, as OpenWiki, only one at the start of its line,
    so a page OpenWiki titles from a real heading gets the same title from Wikiwarden.
    """
    if not _MAY_HAVE_H1.search(body):
        return None
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # as markdown-it numbers them
    tokens = _markdown().parse(body)
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.tag != "h1" or token.level != 0 or token.map is None:
            continue
        if token.markup == "#":
            line = lines[token.map[0]]
            title = js_trim(line[1:]) if _FIRST_H1.match(line) else ""
        else:  # setext: its text, over one line or several
            title = js_trim(" ".join(js_trim(line) for line in tokens[index + 1].content.split("\n")))
        if title:
            return title
    return None


def plain_title(title: str) -> str:
    """A heading's text as a reader sees it: Markdown's emphasis, code marks, links and images reduced to their text
    (`Install **Acme**` → `Install Acme`), so a site showing a `title` field as plain text shows no asterisks."""
    if not any(mark in title for mark in "*_`[!<\\&"):
        return title
    found: list[str] = []
    for block in _markdown().parseInline(title):
        for token in block.children or ():
            if token.type in ("text", "code_inline"):
                found.append(token.content)
            elif token.type in ("softbreak", "hardbreak"):
                found.append(" ")
            elif token.type == "image":
                found.append(token.content)
    return js_trim(" ".join("".join(found).split())) or title


def title_from_filename(path: str) -> str:
    base = re.sub(r"\.md$", "", path.rsplit("/", 1)[-1], flags=re.I)
    spaced = js_trim(re.sub(r"[-_]+", " ", base))
    return spaced[:1].upper() + spaced[1:] if spaced else base


def _usable(value: Any) -> bool:
    return isinstance(value, str) and bool(js_trim(value))


def normalize_concept(text: str, path: str, language: str = "en", *, generated: bool = True) -> str:
    """Give a page without a usable `type` one. A page with no front matter gets OpenWiki's minimal block;
    a page whose front matter parses gets `type` (and `title` when it has none) and `openwiki_generated`
    added, everything else kept. Invalid YAML raises FrontMatterError: reported, never rewritten.

    `openwiki_generated: true` tells OpenWiki's agent the metadata is a fallback to rewrite: it is added only
    when `generated` says a tool wrote the page (OpenWiki's pages), never to a person's."""
    page = Page.parse(text)
    concept_type = localized(CONCEPT_TYPES, language)
    if not page.has_front_matter:
        eol = page.eol
        title = _title(page.body, path, generated)
        flag = f"{GENERATED_FLAG}: true{eol}" if generated else ""
        block = f"---{eol}type: {json_quoted(concept_type)}{eol}title: {json_quoted(title)}{eol}{flag}---{eol}{eol}"
        # No byte-order mark before the new block (trimmed with the body's leading whitespace, as OpenWiki
        # trims it): a reader that does not skip one (OpenWiki, okf-cli) would not see the block behind it.
        return block + page.body.lstrip(JS_WHITESPACE)
    fields = page.fields()
    if _usable(fields.get("type")):
        return text
    text = _insert(text, "type", f"type: {json_quoted(concept_type)}")
    if not _usable(fields.get("title")):
        title = _title(page.body, path, generated)
        text = _insert(text, "title", f"title: {json_quoted(title)}", after="type")
    if generated and fields.get(GENERATED_FLAG) is not True:
        text = set_field(text, GENERATED_FLAG, [f"{GENERATED_FLAG}: true"])
    return text


def _title(body: str, path: str, generated: bool) -> str:
    """A page's title: its first heading (as OpenWiki takes it for OpenWiki's pages; as plain text for a person's,
    whose site shows the field), else its file name."""
    heading = first_heading(body)
    if heading is None:
        return title_from_filename(path)
    return heading if generated else plain_title(heading)


def _insert(text: str, key: str, line: str, after: str | None = None) -> str:
    """Set `key` in place when present, else insert it first in the block, or right after field `after`."""
    page = Page.parse(text)
    if page.key_line(key) is not None or not page.has_front_matter:
        return set_field(text, key, [line])
    before = page.fields()
    anchor = page.key_line(after) if after else None
    position = page.extent(anchor)[1] if anchor is not None else 0
    page.lines.insert(position, line + page.eol)
    result = page.render()
    now = Page.parse(result).fields()
    if {k: v for k, v in now.items() if k != key} != {k: v for k, v in before.items() if k != key}:
        raise FrontMatterError(f"adding `{key}` would change other front matter fields; page left as it is")
    return result
