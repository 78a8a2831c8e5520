"""The docs site as its builder sees it: MkDocs with INHERIT, exclude_docs, snippets and the blog; Sphinx's conf.py
read without running it."""

from __future__ import annotations

from bot.ground.site import fragments, read_site

BASE = b"""\
site_name: Acme
docs_dir: documentation
exclude_docs: |
  snippets/
  drafts/*.md
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
  - pymdownx.snippets:
      base_path: [documentation/snippets, .]
plugins:
  - search
  - blog:
      blog_dir: news
theme:
  name: material
  palette: {primary: indigo}
"""
TOP = b"""\
INHERIT: config/base.yml
theme:
  palette: {accent: red}
extra: !ENV [SITE_EXTRA, none]
nav:
  - index.md
"""


def reader(files: dict[str, bytes]):
    return files.get


def test_inherited_config_excludes_fragments_and_names_the_blog() -> None:
    site = read_site(reader({"mkdocs.yml": TOP.replace(b"config/base.yml", b"base.yml"), "base.yml": BASE}))
    assert site.kind == "mkdocs" and site.problems == ()
    assert site.docs_dir == "documentation"
    assert site.excluded("documentation/snippets/install.md")
    assert site.excluded("documentation/drafts/idea.md")
    assert site.excluded("documentation/.hidden.md")  # MkDocs leaves out dot files always
    assert not site.excluded("documentation/guide.md")
    assert site.excluded("README.md")  # outside docs_dir
    assert site.published("documentation/guide.md") and not site.published("documentation/snippets/install.md")
    assert site.blog_dirs == ("documentation/news",) and site.post_dirs == ("documentation/news/posts",)
    assert site.is_post("documentation/news/posts/2024-hello.md") and not site.is_post("documentation/news/index.md")
    assert site.in_blog("documentation/news/index.md")
    assert site.snippet_bases == ("documentation/snippets", "")
    assert site.has_nav


def test_inherit_is_relative_to_the_inheriting_file_and_a_loop_is_said() -> None:
    site = read_site(reader({"mkdocs.yml": TOP, "config/base.yml": BASE}))
    assert site.docs_dir == "documentation" and site.excluded("documentation/snippets/a.md")
    looping = read_site(reader({"mkdocs.yml": b"INHERIT: a.yml\n", "a.yml": b"INHERIT: mkdocs.yml\ndocs_dir: d\n"}))
    assert looping.docs_dir == "d" and any("loops" in p for p in looping.problems)
    missing = read_site(reader({"mkdocs.yml": b"INHERIT: gone.yml\n"}))
    assert missing.docs_dir == "docs" and any("gone.yml" in p for p in missing.problems)


def test_a_bad_config_is_a_problem_said_not_a_crash() -> None:
    deep = b"a: " + b"[" * 100 + b"]" * 100 + b"\n"
    for data in (b"site_name: [unclosed\n", deep, b"- a list\n", b"x" * (300 * 1024)):
        site = read_site(reader({"mkdocs.yml": data}))
        assert site.kind == "mkdocs" and site.docs_dir == "docs" and len(site.problems) == 1, data[:20]


def test_snippet_includes_resolve_against_the_base_paths() -> None:
    site = read_site(reader({"mkdocs.yml": TOP.replace(b"config/base.yml", b"base.yml"), "base.yml": BASE}))
    paths = ["documentation/snippets/install.md", "documentation/snippets/other.md", "documentation/guide.md"]
    page = 'Intro\n\n--8<-- "install.md"\n\n;--8<-- "other.md"\n--8<--\nother.md:3:5\n--8<--\n'
    assert site.includes("documentation/guide.md", page, paths) == [
        "documentation/snippets/install.md",
        "documentation/snippets/other.md",
    ]
    texts = {"documentation/guide.md": page, "documentation/snippets/install.md": "x", "documentation/news/a.md": ""}
    assert fragments(site, texts, paths) == {"documentation/snippets/install.md": ["documentation/guide.md"]}


def test_an_excluded_fragment_nobody_includes_is_still_a_fragment() -> None:
    site = read_site(reader({"mkdocs.yml": TOP.replace(b"config/base.yml", b"base.yml"), "base.yml": BASE}))
    assert fragments(site, {"documentation/snippets/lone.md": ""}, []) == {"documentation/snippets/lone.md": []}


CONF = b"""\
import os, sys
sys.path.insert(0, os.path.abspath(".."))
project = "Acme"
master_doc = "contents"
exclude_patterns = ["_build", "includes/*.rst"]
exclude_patterns += ["drafts/**"]
source_suffix = {".rst": "restructuredtext"}
version = compute_version()
"""


def test_sphinx_conf_is_read_without_running_it() -> None:
    site = read_site(reader({"doc/conf.py": CONF}))
    assert site.kind == "sphinx" and site.docs_dir == "doc" and site.root_doc == "contents"
    assert site.excluded("doc/_build/html/x.rst") and site.excluded("doc/includes/install.rst")
    assert site.excluded("doc/drafts/a/b.rst") and not site.excluded("doc/includes/deeper/x.rst")
    assert site.published("doc/guide.rst") and not site.published("doc/guide.md")
    page = "Guide\n=====\n\n.. include:: includes/install.rst\n.. include:: /includes/other.rst\n"
    paths = ["doc/includes/install.rst", "doc/includes/other.rst"]
    assert site.includes("doc/guide.rst", page, paths) == paths
    assert fragments(site, {"doc/guide.rst": page, "doc/includes/install.rst": ""}, paths) == {
        "doc/includes/install.rst": ["doc/guide.rst"]
    }


def test_a_conf_py_that_does_not_parse_reads_as_sphinx_defaults() -> None:
    site = read_site(reader({"docs/conf.py": b"def (:\n"}))
    assert site.kind == "sphinx" and site.root_doc == "index" and site.problems


def test_no_site_publishes_every_page() -> None:
    site = read_site(reader({}))
    assert (
        site.kind is None and site.docs_dir is None and site.published("docs/a.md") and not site.excluded("docs/a.md")
    )


def test_the_current_module_of_a_sphinx_page_follows_its_directives() -> None:
    from bot.ground.site import current_module, current_modules

    page = (
        "API\n===\n\n.. module:: acme\n\n:func:`build`\n\n.. currentmodule:: acme.core\n\n:func:`build`\n\n"
        ".. py:currentmodule:: None\n\n:func:`acme.core.build`\n"
    )
    assert current_modules(page) == [(4, "acme"), (8, "acme.core"), (12, None)]
    assert [current_module(page, line) for line in (1, 6, 10, 14)] == [None, "acme", "acme.core", None]
