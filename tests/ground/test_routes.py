"""Links as each docs builder serves them (bot/ground/routes.py, on the site model of bot/ground/site.py): a route
the builder maps to a source file is not missing, one it maps to nothing fails, one it cannot map with certainty
(settings not literal, a plugin's route, a generated page) is a note. Each case fails a plain check without the
site's routes (the `without` assertion) and reads right with them."""

from __future__ import annotations

import pytest

from bot.ground.findings import OBJECT_IN_FILE, PLACEHOLDER, missing_paths
from bot.ground.references import mentions
from bot.ground.routes import (
    Resolution,
    Routes,
    docusaurus_doc_route,
    docusaurus_post_route,
    front_matter,
    front_matter_pages,
    resolve_link,
    routes,
)
from bot.ground.site import ContentRoot, Site, read_site

DOCUSAURUS_CONFIG = b"""\
export default {
  title: 'Acme',
  presets: [['@docusaurus/preset-classic', {docs: {sidebarPath: './sidebars.js'}, blog: {showReadingTime: true}}]],
};
"""

DOCUSAURUS = {
    "www/docusaurus.config.ts": DOCUSAURUS_CONFIG,
    "www/docs/server/context.md": b"# Context\n",
    "www/docs/server/routers.md": b"# Routers\n",
    "www/docs/main/quickstart.mdx": b"---\nid: quickstart\nslug: /quickstart\n---\n# Quick\n",
    "www/docs/server/adapters-intro.md": b"---\nid: adapters\nslug: /server/adapters\n---\n# Adapters\n",
    "www/docs/01-guides/02-intro.md": b"# Intro\n",
    "www/docs/01-guides/README.md": b"# Guides\n",
    "www/docs/client/renamed.md": b"---\nid: vanilla\n---\n# Vanilla\n",
    "www/docs/_partial.mdx": b"a partial\n",
    "www/blog/2025-02-17-new-client.mdx": b"---\nslug: introducing-client\n---\n# New\n",
    "www/blog/2024-01-02-hello.md": b"# Hello\n",
    "www/src/pages/community.tsx": b"export default 1;\n",
    "www/static/img/logo.svg": b"<svg/>",
    "www/versioned_docs/version-10.x/server/context.md": b"# Old context\n",
}


def _site(files: dict[str, bytes], wiki_dir: str) -> tuple[Site, Routes]:
    site = read_site(files.get, wiki_dir=wiki_dir)
    fronts = {page: front_matter(files[page].decode()) for page in front_matter_pages(site, files)}
    return site, routes(site, frozenset(files), fronts)


def _failing(files: dict[str, bytes], page: str, text: str, wiki_dir: str, with_routes: bool = True) -> list[str]:
    """The targets a full sweep fails `page` on, for its text, with the site's routes (or without, as before)."""
    _, found = _site(files, wiki_dir)
    refs = missing_paths(page, mentions(f"# P\n\n{text}\n"), frozenset(files), wiki_dir, found if with_routes else None)
    return [ref.text for ref in refs if ref.attention]


def _notes(files: dict[str, bytes], page: str, text: str, wiki_dir: str) -> list[tuple[str, str | None]]:
    _, found = _site(files, wiki_dir)
    return [
        (ref.text, ref.note)
        for ref in missing_paths(page, mentions(f"# P\n\n{text}\n"), frozenset(files), wiki_dir, found)
        if not ref.attention
    ]


def test_docusaurus_is_found_above_the_wiki_folder_and_read_without_running() -> None:
    site = read_site(DOCUSAURUS.get, wiki_dir="www/docs")
    assert (site.builder, site.site_dir, site.routes_known, site.kind) == ("docusaurus", "www", True, None)
    assert site.roots[:2] == (ContentRoot("www/docs", "docs", "docs"), ContentRoot("www/blog", "blog", "blog"))
    assert read_site(DOCUSAURUS.get).builder is None  # without the wiki folder, nothing but MkDocs and Sphinx
    custom = {"docusaurus.config.js": b"module.exports = {presets: [['classic', {docs: {routeBasePath: '/'}}]]};"}
    assert read_site(custom.get, wiki_dir="docs").roots[0] == ContentRoot("docs", "", "docs")
    computed = {"docusaurus.config.js": b"const base = 'x';\nmodule.exports = {docs: {routeBasePath: base}};"}
    assert read_site(computed.get, wiki_dir="docs").routes_known is False
    second = {"docusaurus.config.js": b"plugins: [['@docusaurus/plugin-content-docs', {id: 'api', path: 'api'}]]"}
    assert read_site(second.get, wiki_dir="docs").routes_known is False


@pytest.mark.parametrize(
    ("relative", "front", "route"),
    [
        ("server/context.md", {}, "docs/server/context"),
        ("main/quickstart.mdx", {"id": "quickstart", "slug": "/quickstart"}, "docs/quickstart"),
        ("client/renamed.md", {"id": "vanilla"}, "docs/client/vanilla"),
        ("client/links/overview.md", {"slug": "../links"}, "docs/client/links"),
        ("01-guides/02-intro.md", {}, "docs/guides/intro"),
        ("01-guides/README.md", {}, "docs/guides"),
        ("guides/guides.md", {}, "docs/guides"),
        ("index.md", {}, "docs"),
    ],
)
def test_a_docusaurus_docs_route(relative: str, front: dict[str, str], route: str) -> None:
    assert docusaurus_doc_route(relative, front, "docs") == route


def test_a_docusaurus_blog_route_and_front_matter() -> None:
    assert docusaurus_post_route("2024-01-02-hello.md", {}, "blog") == "blog/2024/01/02/hello"
    assert docusaurus_post_route("2025-02-17-x/index.mdx", {"slug": "intro"}, "blog") == "blog/intro"
    assert front_matter("---\nid: 'a'\nslug: /b # a comment\ntitle: T\n---\n# x\n") == {"id": "a", "slug": "/b"}
    assert front_matter("# no front matter\nid: x\n") == {}


def test_docusaurus_routes_resolve_and_a_route_to_no_page_fails() -> None:
    page = "www/docs/server/routers.md"
    links = (
        "[a](/docs/server/context), [b](/docs/quickstart#x), [c](/docs/server/adapters), [d](/docs/guides/intro), "
        "[e](/docs/guides), [f](/docs/client/vanilla), [g](/blog/introducing-client), [h](/blog/2024/01/02/hello), "
        "[i](/community), [j](/img/logo.svg), [k](/docs/server/context.md), [l](context)"
    )
    assert len(_failing(DOCUSAURUS, page, links, "www/docs", with_routes=False)) == 11  # main's reading: 11 alarms
    assert _failing(DOCUSAURUS, page, links, "www/docs") == []
    assert _failing(DOCUSAURUS, page, "[gone](/docs/server/gone) and [typo](contxt)", "www/docs") == [
        "/docs/server/gone",
        "contxt",
    ]


def test_docusaurus_routes_it_cannot_map_with_certainty_are_notes() -> None:
    page = "www/docs/server/routers.md"
    notes = _notes(DOCUSAURUS, page, "[a](/blog/tags/news), [b](/showcase), [c](/docs/v9/server/gone)", "www/docs")
    assert [text for text, _ in notes] == ["/blog/tags/news", "/showcase", "/docs/v9/server/gone"]
    unknown = {**DOCUSAURUS, "www/docusaurus.config.ts": b"export default {docs: {routeBasePath: base}};"}
    assert _failing(unknown, page, "[gone](/docs/server/gone)", "www/docs") == []
    assert _notes(unknown, page, "[gone](/docs/server/gone)", "www/docs")[0][0] == "/docs/server/gone"


def test_docusaurus_docs_at_the_sites_top_fail_only_in_their_own_sections() -> None:
    files = {
        "docusaurus.config.js": b"module.exports = {presets: [['classic', {docs: {routeBasePath: '/'}}]]};",
        "docs/guide/setup.md": b"# Setup\n",
        "blog/2024-01-02-hello.md": b"# Hello\n",
    }
    page = "docs/guide/setup.md"
    assert _failing(files, page, "[s](/guide/setup), [h](/blog/2024/01/02/hello)", "docs") == []
    assert _failing(files, page, "[gone](/guide/gone), [search](/search), [t](/blog/tags/x)", "docs") == ["/guide/gone"]


def test_a_docusaurus_route_needs_the_front_matter_read_to_fail() -> None:
    site = read_site(DOCUSAURUS.get, wiki_dir="www/docs")
    unread = routes(site, frozenset(DOCUSAURUS))  # front matter not read: a slug may make any route
    assert resolve_link(unread, "/docs/server/gone", "www/docs/a.md", []).note is not None
    assert resolve_link(unread, "/docs/server/context", "www/docs/a.md", []) == Resolution("www/docs/server/context.md")


MDBOOK = {
    "guide/book.toml": b'[book]\ntitle = "Guide"\nsrc = "src"\n\n[output.html]\nsite-url = "/x/"\n',
    "guide/src/SUMMARY.md": b"- [Intro](README.md)\n",
    "guide/src/README.md": b"# Intro\n",
    "guide/src/404.md": b"# Not found\n",
    "guide/src/cli/README.md": b"# CLI\n",
    "guide/src/cli/build.md": b"# build\n",
    "guide/src/guide/creating.md": b"# Creating\n",
    "src/main.rs": b"fn main() {}\n",
}


def test_mdbook_serves_readme_as_index_html_and_md_as_html() -> None:
    page = "guide/src/guide/creating.md"
    text = "[cli](../cli/index.html), [build](../cli/build.html), [top](/cli/build.html), the book's `src/SUMMARY.md`"
    assert _failing(MDBOOK, page, text, "guide/src", with_routes=False) == ["../cli/index.html", "src/SUMMARY.md"]
    assert _failing(MDBOOK, page, text, "guide/src") == []
    assert _failing(MDBOOK, page, "[gone](../cli/serve.html) and `src/gone.md`", "guide/src") == [
        "../cli/serve.html",
        "src/gone.md",
    ]
    site = read_site(MDBOOK.get, wiki_dir="guide/src")
    assert (site.builder, site.roots) == ("mdbook", (ContentRoot("guide/src", "", "docs"),))


MKDOCS = b"""\
site_name: Acme
plugins:
  - search
  - gen-files:
      scripts:
        - scripts/gen_json.py
        - scripts/gen_ref.py
  - coverage:
      page_path: guide/coverage
  - redirects:
      redirect_maps:
        old.md: guide/new.md
"""
GEN_JSON = b'import mkdocs_gen_files\nwith mkdocs_gen_files.open("api.json", "w") as fd:\n    fd.write("{}")\n'
GEN_REF = b'import mkdocs_gen_files\nfor name in ["a", "b"]:\n    mkdocs_gen_files.open(f"reference/{name}.md", "w")\n'


def test_files_mkdocs_plugins_generate_are_notes() -> None:
    files = {
        "mkdocs.yml": MKDOCS,
        "scripts/gen_json.py": GEN_JSON,
        "scripts/gen_ref.py": GEN_REF,
        "docs/index.md": b"# A\n",
        "docs/guide/new.md": b"# New\n",
    }
    site = read_site(files.get)
    assert site.generated == ("docs/api.json", "docs/guide/coverage.md", "docs/old.md")
    assert site.generated_dirs == ("docs/reference",)
    text = "[cov](guide/coverage.md), [dump](api.json), [old](old.md), [ref](reference/a.md)"
    assert _failing(files, "docs/index.md", text, "docs", with_routes=False) == [
        "guide/coverage.md",
        "api.json",
        "old.md",
        "reference/a.md",
    ]
    assert _failing(files, "docs/index.md", text, "docs") == []
    assert {note for _, note in _notes(files, "docs/index.md", text, "docs")} == {
        "a file the site's build generates (a plugin's page or a gen-files script's output), not a source file"
    }
    assert _failing(files, "docs/index.md", "[gone](guide/gone.md)", "docs") == ["guide/gone.md"]
    broken = {**files, "scripts/gen_ref.py": b"def (:\n"}
    assert "does not parse" in read_site(broken.get).problems[0]


HUGO = {
    "site/config.toml": b'baseURL = "https://example.com/"\ntitle = "Acme"\n',
    "site/content/_index.md": b"# Home\n",
    "site/content/docs/_index.md": b"# Docs\n",
    "site/content/docs/install.md": b"# Install\n",
    "site/content/docs/guide/index.md": b"# Guide\n",
    "site/static/logo.png": b"png",
}


def test_hugo_routes_from_content_and_an_unmapped_route_is_a_note() -> None:
    page = "site/content/docs/install.md"
    text = "[docs](/docs/), [guide](/docs/guide/), [install](/docs/install/), [logo](/logo.png)"
    assert _failing(HUGO, page, text, "site/content", with_routes=False) == ["/logo.png"]  # from static/
    assert _failing(HUGO, page, text, "site/content") == []
    assert _notes(HUGO, page, "[x](/docs/custom-url/)", "site/content")[0][0] == "/docs/custom-url/"  # a `url:` may
    assert read_site(HUGO.get, wiki_dir="site/content").builder == "hugo"
    assert read_site(HUGO.get, wiki_dir="site/other").builder is None  # config.toml alone is not Hugo's


def test_mintlify_pages_by_path_without_extension() -> None:
    files = {
        "docs/mint.json": b'{"name": "Acme", "navigation": [{"group": "Start", "pages": ["quickstart"]}]}',
        "docs/quickstart.mdx": b"# Quick\n",
        "docs/servers/index.mdx": b"# Servers\n",
        "docs/images/a.png": b"png",
    }
    page = "snippets/intro.mdx"  # a page outside the content folder links by the site's routes too
    files[f"docs/{page}"] = b"# Intro\n"
    text = "[q](/quickstart), [s](/servers), [img](/images/a.png)"
    assert _failing(files, f"docs/{page}", text, "docs/snippets", with_routes=False) == [
        "/quickstart",
        "/servers",
        "/images/a.png",
    ]
    assert _failing(files, f"docs/{page}", text, "docs/snippets") == []
    assert _failing(files, f"docs/{page}", "[gone](/servers/gone)", "docs/snippets") == ["/servers/gone"]
    files["docs/mint.json"] = b'{"name": "Acme", "openapi": "openapi.json"}'  # pages made from an API description
    assert _failing(files, f"docs/{page}", "[api](/api-reference/list)", "docs/snippets") == []
    assert _notes(files, f"docs/{page}", "[api](/api-reference/list)", "docs/snippets")[0][0] == "/api-reference/list"


def test_vitepress_and_starlight_routes() -> None:
    vite = {
        "docs/.vitepress/config.ts": b"export default { title: 'Acme', srcDir: '.' }\n",
        "docs/guide/index.md": b"# Guide\n",
        "docs/guide/setup.md": b"# Setup\n",
        "docs/public/logo.svg": b"<svg/>",
    }
    text = "[g](/guide/), [s](/guide/setup), [h](/guide/setup.html), [logo](/logo.svg)"
    assert _failing(vite, "docs/guide/index.md", text, "docs", with_routes=False) == ["/logo.svg"]  # from public/
    assert _failing(vite, "docs/guide/index.md", text, "docs") == []
    assert _failing(vite, "docs/guide/index.md", "[gone](/guide/gone)", "docs") == ["/guide/gone"]
    astro = {
        "astro.config.mjs": b"import starlight from '@astrojs/starlight';\nexport default { base: '/docs', "
        b"integrations: [starlight({})] };",
        "src/content/docs/guides/example.md": b"# Example\n",
        "src/content/docs/index.mdx": b"# Home\n",
    }
    page = "src/content/docs/index.mdx"
    text = "[e](/docs/guides/example/)"
    assert _failing(astro, page, text, "src/content/docs", with_routes=False) == ["/docs/guides/example/"]
    assert _failing(astro, page, text, "src/content/docs") == []
    assert _failing(astro, page, "[gone](/docs/guides/gone/)", "src/content/docs") == ["/docs/guides/gone/"]
    assert read_site(astro.get, wiki_dir="src/content/docs").builder == "starlight"


def test_a_site_route_without_a_builder_is_a_note_a_file_link_still_fails() -> None:
    files = {"docs/a.md": b"# A\n", "src/x.py": b"x = 1\n"}
    assert _failing(files, "docs/a.md", "[r](/api/list) and [f](/src/gone.py)", "docs") == ["/src/gone.py"]


def test_a_placeholder_and_a_file_with_an_object_are_notes() -> None:
    files = {"docs/a.md": b"# A\n", "scripts/exts.py": b"class E: ...\n", "src/x.py": b""}
    text = "[English](ENGLISH_VERSION_URL), `scripts/exts.py:Dynamic`, `scripts/exts.py:E`, `scripts/gone.py:E`"
    assert _failing(files, "docs/a.md", text, "docs") == []  # main failed the first and the last
    # `scripts/exts.py:Dynamic` names an existing file (with an object in it): not missing at all
    assert _notes(files, "docs/a.md", text, "docs") == [
        ("ENGLISH_VERSION_URL", PLACEHOLDER),
        ("scripts/gone.py:E", OBJECT_IN_FILE),
    ]
    assert _failing(files, "docs/a.md", "[gone](GONE.md) and [x](Guide_Page)", "docs") == ["GONE.md", "Guide_Page"]
