"""The docs site as its builder sees it, through the command line: include fragments a site excludes through an
INHERITed config are read through the pages including them, blog posts are history."""

from __future__ import annotations

import pytest
from conftest import GitRepo

pytestmark = pytest.mark.usefixtures("isolated_cli")

BASE = """\
docs_dir: docs
exclude_docs: |
  snippets/
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
  - pymdownx.snippets:
      base_path: [docs/snippets]
plugins:
  - blog
"""


@pytest.fixture
def site(repo: GitRepo) -> GitRepo:
    """A MkDocs site whose INHERITed config excludes docs/snippets/, included by two pages in docs/guide/."""
    repo.write(".github/wikiwarden.yml", "wiki_dir: docs\n")
    repo.write("mkdocs.yml", "INHERIT: config/base.yml\nsite_name: Acme\n")
    repo.write("config/base.yml", BASE)
    repo.write("src/acme/core.py", "def build():\n    return 1\n")
    repo.write("docs/index.md", "# Acme\n")
    repo.write("docs/guide/setup.md", '# Setup\n\n--8<-- "install.md"\n')
    repo.write("docs/guide/use.md", '# Use\n\n--8<-- "install.md"\n')
    repo.write("docs/guide/config.md", "# Config\n")
    # Relative to the including pages (docs/guide/), not to the fragment's folder: fine from both.
    repo.write("docs/snippets/install.md", "Then read [the configuration](config.md) and call `acme.core.build()`.\n")
    repo.write("docs/blog/posts/launch.md", "# Launch\n\nRead [the old page](gone.md).\n")
    repo.commit("a site", tag="v1")
    return repo


def test_an_excluded_fragment_links_from_the_pages_including_it_no_false_alarm(site: GitRepo, cli) -> None:
    run = cli("check", "--repo", site.root, "--verbose")
    assert run.code == 0, run.out
    assert "install.md:" not in run.out and "launch.md:" not in run.out  # no reference of either (a post is history)


def test_a_link_broken_from_the_including_pages_is_reported_on_the_fragments_line(site: GitRepo, cli) -> None:
    site.write("docs/snippets/install.md", "Then read [the settings](settings.md).\n")
    site.commit("a bad link")
    run = cli("check", "--repo", site.root, "--verbose")
    assert run.code == 1
    assert "docs/snippets/install.md:1  settings.md (docs/guide/settings.md)" in run.out


def test_a_change_breaking_what_a_fragment_names_is_reported_on_the_fragment(site: GitRepo, cli) -> None:
    site.write("src/acme/core.py", "def make():\n    return 1\n")
    site.commit("build goes")
    run = cli("check", "--repo", site.root, "--base", "v1", "--verbose")
    assert run.code == 1, run.out
    assert "docs/snippets/install.md:1  acme.core.build()" in run.out
