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
