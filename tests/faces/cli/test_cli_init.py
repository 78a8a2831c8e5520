"""`wikiwarden init`: the first settings for the docs folder a repository has, written without a question and
never over a file that exists."""

from __future__ import annotations

import os

import pytest
from conftest import GitRepo

import bot
from bot.usecases.config_file import parse_repo_config
from bot.usecases.init import find_docs

pytestmark = pytest.mark.usefixtures("isolated_cli")


def test_init_writes_the_three_files_for_a_mkdocs_site_and_check_then_reads_them(repo: GitRepo, cli) -> None:
    repo.write("mkdocs.yml", "site_name: X\ndocs_dir: 'site-docs'  # where the pages are\n")
    repo.write("site-docs/index.md", "# X\n\nSee `src/x.py`.\n")
    repo.write("src/x.py", "x = 1\n")
    repo.commit("a site")
    run = cli("init", "--repo", repo.root)
    assert run.code == 0, run.err
    assert run.out.splitlines()[:4] == [
        "docs folder: site-docs/ (found by the docs_dir of mkdocs.yml)",
        "wrote .github/wikiwarden.yml",
        "wrote .github/workflows/wikiwarden.yml",
        "wrote .pre-commit-config.yaml",
    ]
    config = parse_repo_config(repo.read(".github/wikiwarden.yml"))  # what it writes is a valid config
    assert config.wiki_dir == "site-docs" and config.references.exclude == ()
    workflow = repo.read(".github/workflows/wikiwarden.yml").decode()
    # What it writes pins this release: the Action's major tag, the hook's own tag (never a moving branch).
    major = bot.__version__.split(".")[0]
    assert 'branches: ["main"]' in workflow and f"uses: wikiwarden/wikiwarden@v{major}  #" in workflow
    pre_commit = repo.read(".pre-commit-config.yaml").decode()
    assert "id: wikiwarden" in pre_commit and f"rev: v{bot.__version__}  #" in pre_commit
    check = cli("check", "--repo", repo.root)
    assert check.code == 0 and "Wikiwarden check · site-docs/" in check.out


def test_init_never_overwrites_and_says_what_to_add_by_hand(repo: GitRepo, cli) -> None:
    repo.write("docs/index.md", "# Docs\n")
    repo.write(".github/wikiwarden.yml", "wiki_dir: docs\nconclusion: failure\n")
    repo.write(".pre-commit-config.yaml", "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n")
    repo.commit("a repository with settings")
    run = cli("init", "--repo", repo.root)
    assert run.code == 0
    assert "left .github/wikiwarden.yml: exists: left as it is" in run.out
    assert "left .pre-commit-config.yaml: exists: add this entry under `repos:`" in run.out
    assert "  - repo: https://github.com/wikiwarden/wikiwarden" in run.out
    assert repo.read(".github/wikiwarden.yml") == b"wiki_dir: docs\nconclusion: failure\n"
    assert b"wikiwarden" not in repo.read(".pre-commit-config.yaml")
    assert "wrote .github/workflows/wikiwarden.yml" in run.out


def test_init_finds_openwiki_then_sphinx_then_the_usual_names_and_takes_wiki_dir(repo: GitRepo, cli) -> None:
    repo.write("doc/source/conf.py", "project = 'x'\n")
    repo.write("doc/source/index.rst", "X\n=\n")
    repo.commit("a Sphinx site")
    assert find_docs(repo_snapshot(repo)) == ("doc", "Sphinx's doc/source/conf.py")
    repo.write("openwiki/a.md", "# A\n")
    assert find_docs(repo_snapshot(repo)) == ("openwiki", "an OpenWiki wiki")
    run = cli("init", "--repo", repo.root, "--wiki-dir", "doc/source")
    assert "docs folder: doc/source/ (found by --wiki-dir)" in run.out


def test_init_with_no_docs_folder_says_to_name_it(repo: GitRepo, cli) -> None:
    repo.write("src/x.py", "x = 1\n")
    repo.commit("code only")
    run = cli("init", "--repo", repo.root)
    assert run.code == 2 and "no docs folder found" in run.err and "--wiki-dir" in run.err
    assert not (repo.root / ".github").exists()


def test_init_never_writes_through_a_symlinked_folder(repo: GitRepo, cli, tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    repo.write("docs/index.md", "# Docs\n")
    os.symlink(outside, repo.root / ".github")
    run = cli("init", "--repo", repo.root)
    assert "left .github/wikiwarden.yml: a symlink, or under one: never written through" in run.out
    assert list(outside.iterdir()) == []


def repo_snapshot(repo: GitRepo):  # type: ignore[no-untyped-def]
    from bot.source.git import GitRepository

    return GitRepository(repo.root).worktree()


def test_init_reads_an_inherited_config_and_says_what_the_site_excludes(repo: GitRepo, cli) -> None:
    repo.write("mkdocs.yml", "INHERIT: config/base.yml\nsite_name: X\n")
    repo.write(
        "config/base.yml",
        "docs_dir: site\nexclude_docs: |\n  snippets/\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
        "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n  - pymdownx.snippets:\n"
        "      base_path: [site/snippets]\nplugins:\n  - blog\n",
    )
    repo.write("site/index.md", '# X\n\n--8<-- "install.md"\n')
    repo.write("site/snippets/install.md", "See [the guide](guide.md).\n")
    repo.write("site/guide.md", "# Guide\n")
    repo.write("site/blog/posts/hello.md", "# Hello\n")
    repo.commit("an inherited site")
    run = cli("init", "--repo", repo.root)
    assert run.code == 0, run.err
    assert run.out.splitlines()[:3] == [
        "docs folder: site/ (found by the docs_dir of mkdocs.yml)",
        "site: 1 page the site excludes (site/snippets/install.md): not checked as pages; an include fragment is "
        "read through the pages including it",
        "site: 1 blog post under site/blog/posts/: history, never bound or rewritten",
    ]


class Watched:
    """A snapshot that records every path it is asked about (entry, walk, read)."""

    def __init__(self, snapshot) -> None:  # type: ignore[no-untyped-def]
        self.snapshot = snapshot
        self.asked: list[str] = []

    def entry(self, path: str):  # type: ignore[no-untyped-def]
        self.asked.append(path)
        return self.snapshot.entry(path)

    def walk(self, top: str):  # type: ignore[no-untyped-def]
        self.asked.append(top)
        return self.snapshot.walk(top)

    def read(self, path: str) -> bytes:
        self.asked.append(path)
        return self.snapshot.read(path)


def _outside(repo: GitRepo) -> None:
    """A folder of pages beside the repository, and a folder `linked` inside it pointing there."""
    outside = repo.root.parent / "outside-docs"
    outside.mkdir()
    (outside / "index.md").write_text("# Not this repository's\n")
    os.symlink(outside, repo.root / "linked")


@pytest.mark.parametrize("docs_dir", ["../outside-docs", "/tmp", "docs/../../outside-docs", "~/docs", "linked"])
def test_init_never_reads_or_names_a_folder_outside_the_repository(repo: GitRepo, cli, docs_dir: str) -> None:
    """mkdocs.yml's `docs_dir` naming a folder outside the repository (or a symlink, which may point anywhere) is
    neither listed nor written into the settings: said in one line, and the docs folder found another way."""
    _outside(repo)
    repo.write("mkdocs.yml", f"site_name: X\ndocs_dir: {docs_dir}\n")
    repo.write("docs/index.md", "# Docs\n")
    repo.commit("a site whose docs_dir points out")
    run = cli("init", "--repo", repo.root)
    assert run.code == 0, run.err
    outside = (
        "mkdocs.yml's docs_dir linked is a symlink (or lies under one): not followed"
        if docs_dir == "linked"
        else f"mkdocs.yml names docs_dir {docs_dir}, which is not a folder inside the repository: not read"
    )
    assert run.out.splitlines()[:2] == ["docs folder: docs/ (found by its name)", outside]
    assert parse_repo_config(repo.read(".github/wikiwarden.yml")).wiki_dir == "docs"
    watched = Watched(repo_snapshot(repo))
    notes: list[str] = []
    assert find_docs(watched, notes) == ("docs", "its name")  # type: ignore[arg-type]
    assert [p for p in watched.asked if p.startswith(("..", "/", "~")) or p.split("/")[0] == "linked"] == (
        ["linked"] if docs_dir == "linked" else []
    )  # the symlink's own entry, never what lies under it
    assert notes == [outside]


def test_init_finds_no_docs_folder_when_the_only_one_is_outside_and_says_why(repo: GitRepo, cli) -> None:
    _outside(repo)
    os.symlink(repo.root.parent / "outside-docs", repo.root / "docs")
    repo.write("mkdocs.yml", "site_name: X\ndocs_dir: ../outside-docs\n")
    repo.write("src/x.py", "x = 1\n")
    repo.commit("code only, docs outside")
    run = cli("init", "--repo", repo.root)
    assert run.code == 2 and len(run.err.strip().splitlines()) == 1
    assert "mkdocs.yml names docs_dir ../outside-docs, which is not a folder inside the repository" in run.err
    assert "the folder docs is a symlink (or lies under one): not followed" in run.err
    assert not (repo.root / ".github").exists()
    named = cli("init", "--repo", repo.root, "--wiki-dir", "docs")
    assert named.code == 2 and "the wiki folder docs is a symlink (or lies under one)" in named.err
    assert not (repo.root / ".github").exists()
