"""A plain check of docs whose links are a builder's routes, through the command line: tRPC's Docusaurus site
(`/docs/server/context`, a page named by its front matter's slug) and mdBook's guide (`../cli/index.html` for
`cli/README.md`) pass; a route to no page still fails; a route the builder's settings leave unknown is a note."""

from __future__ import annotations

import pytest
from conftest import GitRepo

pytestmark = pytest.mark.usefixtures("isolated_cli")

CONFIG = "export default {\n  title: 'Acme',\n  presets: [['classic', {docs: {sidebarPath: './sidebars.js'}}]],\n};\n"


def test_docusaurus_routes_resolve_to_their_pages_and_a_route_to_no_page_fails(repo: GitRepo, cli) -> None:
    repo.write(".github/wikiwarden.yml", "wiki_dir: www/docs\n")
    repo.write("www/docusaurus.config.ts", CONFIG)
    repo.write("www/docs/server/context.md", "# Context\n\nSee [routers](/docs/server/routers#merging).\n")
    repo.write(
        "www/docs/server/routers.md",
        "# Routers\n\nThe [context](/docs/server/context) and [start](/docs/quickstart).\n",
    )
    repo.write("www/docs/main/quickstart.mdx", "---\nid: quickstart\nslug: /quickstart\n---\n\n# Quickstart\n")
    repo.write("src/index.ts", "export const x = 1;\n")
    repo.commit("a Docusaurus site")
    run = cli("check", "--repo", repo.root)
    assert run.code == 0, run.out  # main failed all three: "missing docs/server/context", ...
    repo.write("www/docs/server/routers.md", "# Routers\n\nThe [context](/docs/server/contexts).\n")
    repo.commit("a typo in a route")
    run = cli("check", "--repo", repo.root)
    assert run.code == 1 and "/docs/server/contexts" in run.out
    repo.write(
        "www/docusaurus.config.ts", "const base = process.env.BASE;\nexport default {docs: {routeBasePath: base}};\n"
    )
    repo.commit("a route base read from the environment")
    run = cli("check", "--repo", repo.root, "--verbose")
    assert run.code == 0, run.out  # the routes are unknown now: the link is a note
    assert "no source file here maps to with certainty" in run.out


def test_mdbook_index_html_is_a_folders_readme_and_a_gone_chapter_fails(repo: GitRepo, cli) -> None:
    repo.write(".github/wikiwarden.yml", "wiki_dir: guide/src\n")
    repo.write("guide/book.toml", '[book]\ntitle = "Guide"\n')
    repo.write("guide/src/SUMMARY.md", "- [Intro](README.md)\n- [CLI](cli/README.md)\n")
    repo.write("guide/src/README.md", "# Intro\n\nSee [the CLI](cli/index.html) and edit `src/SUMMARY.md`.\n")
    repo.write("guide/src/cli/README.md", "# CLI\n\nSee [build](build.html).\n")
    repo.write("guide/src/cli/build.md", "# build\n")
    repo.write("src/main.rs", "fn main() {}\n")
    repo.commit("a book")
    run = cli("check", "--repo", repo.root)
    assert run.code == 0, run.out  # main failed `cli/index.html` and `src/SUMMARY.md`
    repo.remove("guide/src/cli/build.md")
    repo.commit("a chapter gone")
    run = cli("check", "--repo", repo.root)
    assert run.code == 1 and "build.html" in run.out
