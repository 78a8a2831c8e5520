"""The docs site as its builder sees it, through the command line: include fragments a site excludes through an
INHERITed config are read through the pages including them, blog posts are history."""

from __future__ import annotations

import json

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


RETRY_PY = '''"""Retries."""


def retry(call, attempts=3):
    """Call `call` until it succeeds."""
    for attempt in range(attempts):
        result = call(attempt)
        if result is not None:
            return result
    raise RuntimeError("gave up")
'''
BLOCK = '''```python
def retry(call, attempts=3):
    """Call `call` until it succeeds."""
    for attempt in range(attempts):
        result = call(attempt)
        if result is not None:
            return result
    raise RuntimeError("gave up")
```
'''


@pytest.fixture
def copied(site: GitRepo) -> GitRepo:
    """The site with the same block copied on a page with front matter, a blog post and a changelog."""
    site.write("src/acme/retry.py", RETRY_PY)
    site.write("docs/guide/retry.md", "---\ntitle: Retrying\n---\n\n# Retrying\n\n" + BLOCK)
    site.write("docs/blog/posts/retries.md", "---\ndate: 2024-01-01\n---\n\n# Retries are here\n\n" + BLOCK)
    site.write("docs/changelog.md", "# Changelog\n\n## 1.0\n\n" + BLOCK)
    site.commit("copies", tag="v2")
    return site


def test_ground_without_a_model_binds_only_a_published_page_and_writes_no_front_matter(copied: GitRepo, cli) -> None:
    pages = {p: copied.read(p) for p in ("docs/guide/retry.md", "docs/blog/posts/retries.md", "docs/changelog.md")}
    dry = cli("ground", "--repo", copied.root, "--dry-run")
    assert (
        "would bind 1 code block copied from the source on 1 page as snippet claims; would write "
        "docs/.claims/guide/retry.json, docs/.wikiwarden/quotes/guide/retry.json" in dry.out
    ), dry.out
    assert "bound 1" not in dry.out and not (copied.root / "docs/.claims").exists()
    run = cli("ground", "--repo", copied.root)
    assert (
        "bound 1 code block copied from the source on 1 page as snippet claims; wrote "
        "docs/.claims/guide/retry.json, docs/.wikiwarden/quotes/guide/retry.json" in run.out
    ), run.out
    assert "left docs/blog/posts/retries.md unbound: history" in run.out
    assert "left docs/changelog.md unbound: history" in run.out
    assert {p: copied.read(p) for p in pages} == pages  # no page written: no `sources`, no `generated`
    assert copied.git("status", "--porcelain").splitlines() == ["?? docs/.claims/", "?? docs/.wikiwarden/"]


def test_fix_rewrites_only_the_copied_lines_of_a_site_page_with_front_matter(copied: GitRepo, cli) -> None:
    assert cli("ground", "--repo", copied.root).code in (0, 1)
    copied.commit("bound", tag="v3")
    copied.write(
        "src/acme/retry.py", RETRY_PY.replace('raise RuntimeError("gave up")', 'raise TimeoutError("gave up")')
    )
    copied.commit("TimeoutError")
    before = copied.read("docs/guide/retry.md").decode()
    run = cli("fix", "--repo", copied.root, "--base", "v3")
    after = copied.read("docs/guide/retry.md").decode()
    assert after == before.replace('raise RuntimeError("gave up")', 'raise TimeoutError("gave up")'), run.out
    assert copied.read("docs/changelog.md").decode().count("RuntimeError") == 1  # history: left as written


def test_okf_sync_init_on_a_material_site_leaves_the_blog_fragments_and_publishes_no_new_page(
    site: GitRepo, cli
) -> None:
    site.write("docs/install.md", "# Install **Acme** with `pip`\n\nRun it.\n")
    site.commit("an install page")
    before = {p: site.read(p) for p in ("docs/snippets/install.md", "docs/blog/posts/launch.md", "docs/index.md")}
    run = cli("okf", "sync", "--repo", site.root, "--init")
    assert run.code == 0, run.err
    written = sorted(line.removeprefix("wrote ") for line in run.out.splitlines() if line.startswith("wrote "))
    assert written == [
        "docs/.wikiwarden/okf.json",
        "docs/guide/config.md",
        "docs/guide/setup.md",
        "docs/guide/use.md",
        "docs/install.md",
    ], run.out
    assert site.read("docs/install.md").decode().startswith('---\ntype: "Reference"\ntitle: "Install Acme with pip"\n')
    assert {p: site.read(p) for p in before} == before  # the fragment, the post, the person's home page
    assert "left as it is: docs/blog/posts/launch.md: history" in run.out
    assert "left as it is: docs/snippets/install.md: the site does not publish it" in run.out
    site.commit("synced")
    again = cli("okf", "sync", "--repo", site.root, "--indexes")  # an OKF wiki now: synced unasked
    assert again.code == 0, again.err
    assert [line for line in again.out.splitlines() if line.startswith("wrote ")] == ["wrote docs/guide/index.md"]


def test_check_with_docs_and_no_settings_points_to_init_and_the_folder(repo: GitRepo, cli) -> None:
    repo.write("docs/index.md", "# Docs\n")
    repo.commit("docs, no settings")
    run = cli("check", "--repo", repo.root)
    assert run.code == 2
    assert (
        "the wiki folder openwiki/ does not exist and no .github/wikiwarden.yml names one; the docs look to be in "
        "docs/ (its name): run `wikiwarden init` to write the settings naming it, or check it now with --wiki-dir "
        "docs" in run.err
    ), run.err
    named = cli("check", "--repo", repo.root, "--wiki-dir", "openwiki")  # named on purpose: no guess
    assert named.code == 2 and "wikiwarden init" not in named.err
    assert cli("init", "--repo", repo.root).code == 0
    assert cli("check", "--repo", repo.root).code == 0


def test_sarif_places_a_stale_copied_block_at_its_line_on_the_page(copied: GitRepo, cli) -> None:
    cli("ground", "--repo", copied.root)
    copied.commit("bound", tag="v3")
    copied.write(
        "src/acme/retry.py", RETRY_PY.replace('raise RuntimeError("gave up")', 'raise TimeoutError("gave up")')
    )
    copied.commit("TimeoutError")
    run = cli("check", "--repo", copied.root, "--base", "v3", "--format", "sarif")
    (result,) = [r for r in json.loads(run.out)["runs"][0]["results"] if r["ruleId"] == "wikiwarden/stale"]
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "docs/guide/retry.md"
    lines = copied.read("docs/guide/retry.md").decode().split("\n")
    assert related["physicalLocation"]["region"]["startLine"] == lines.index("def retry(call, attempts=3):") + 1 == 8
