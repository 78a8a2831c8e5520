"""`check_commit`, the check an event asks of a checkout (the Action's): the base a commit or a fetched branch,
and a base the checkout does not hold said, with every claim checked instead."""

from __future__ import annotations

import asyncio

import pytest
from conftest import GitRepo
from fixtools import build_shop

from bot.claims.pages import WikiFolderError
from bot.claims.results import SweepReport
from bot.source.git import GitRepository
from bot.usecases.check import check_commit, check_repository
from bot.usecases.config import Config, Overrides


def checked(repo: GitRepo, base: str | None, missing: list[str], **options: object) -> tuple[SweepReport, Config]:
    with GitRepository(repo.root) as git:
        head = git.resolve("HEAD")
        return asyncio.run(
            check_commit(git, head, base, base_missing=lambda: missing.append("said"), **options)  # type: ignore[arg-type]
        )


def test_a_commit_as_the_base_is_the_command_lines_diff_aware_check(repo: GitRepo) -> None:
    build_shop(repo)
    v1 = repo.git("rev-parse", "v1").strip()
    missing: list[str] = []
    report, config = checked(repo, v1, missing, base_label="v1")
    with GitRepository(repo.root) as git:
        expected = check_repository(git, base="v1", head="HEAD")
    assert report.summary == expected.summary and report.base is not None and missing == []
    assert config.wiki_dir == "openwiki"


def test_a_branch_as_the_base_is_the_one_the_checkout_fetched_else_the_local_one(repo: GitRepo) -> None:
    build_shop(repo)
    repo.git("branch", "first", "v1")
    report, _ = checked(repo, "first", [])
    assert report.summary["touched"] == 4  # the local branch: the change from v1
    repo.git("update-ref", "refs/remotes/origin/first", "HEAD")  # the fetched one wins: nothing changed since
    report, _ = checked(repo, "first", [])
    assert report.base is not None and report.summary["touched"] == 0


def test_a_base_the_checkout_does_not_hold_is_said_and_every_claim_is_checked(repo: GitRepo) -> None:
    build_shop(repo)
    for base in ("c" * 40, "gone-branch"):
        missing: list[str] = []
        report, _ = checked(repo, base, missing)
        assert missing == ["said"] and report.base is None and report.summary["claims"] == 4, base


def test_the_overrides_name_the_wiki_and_a_wiki_that_is_not_there_is_an_error(repo: GitRepo) -> None:
    build_shop(repo)
    with pytest.raises(WikiFolderError, match="docs/"):
        checked(repo, None, [], overrides=Overrides(wiki_dir="docs"))
