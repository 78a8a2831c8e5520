"""A forged `.git/wikiwarden/` costs time, never a verdict (issue 42): each of the review's forgeries of the memory an
earlier check left (the verdict cache given the files' new blob ids, the evidence index emptied, the pages' readings
emptied) gives `wikiwarden check` the report and the exit status of `--no-cache`. With WIKIWARDEN_CACHE_KEY only what
was signed with it is used; without it the files' digests catch an edit (a forger who recomputes the plain digest is
one who can write the repository's git directory, which git trusts as well: its hooks run)."""

from __future__ import annotations

from typing import Any

import pytest
from clitools import Run, added_id
from conftest import GitRepo
from forgery import FILES, FORGERIES, RESOURCE, forge, head_blobs, second_commit, two_commits

pytestmark = pytest.mark.usefixtures("isolated_cli")

KEY = "k" * 16 + "0123456789abcdef0123456789abcdef"
# (key, how the forger leaves the seal): without a key a recomputed plain digest is the trusted git directory's
CASES = [(None, "edited"), (None, "another key"), (KEY, "edited"), (KEY, "plain digest"), (KEY, "another key")]


def _check(cli: Any, repo: GitRepo, forgery: str, *more: str) -> Run:
    base = ("--base", "HEAD~1") if forgery == "index" else ()  # the evidence index serves a diff-aware check
    return cli("check", "--repo", repo.root, "--format", "json", *base, *more)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("key", "how"), CASES)
@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_forged_memory_gives_the_verdict_of_no_cache(
    repo: GitRepo, cli: Any, monkeypatch: pytest.MonkeyPatch, forgery: str, key: str | None, how: str
) -> None:
    if key is not None:
        monkeypatch.setenv("WIKIWARDEN_CACHE_KEY", key)
    two_commits(repo)
    added_id(cli("claim", "add", "--repo", repo.root, "a.md", "a returns 1.", RESOURCE))
    repo.commit("ground")
    honest = cli("check", "--repo", repo.root, "--format", "json")  # keeps the memory of commit one
    assert (honest.code, honest.err) == (0, "")
    second_commit(repo, forgery)
    expected = _check(cli, repo, forgery, "--no-cache")
    assert expected.code == 1  # the claim is stale, or the page names a deleted file
    forge(repo.root / ".git" / "wikiwarden", forgery, how, head_blobs(repo))
    run = _check(cli, repo, forgery)
    assert (run.code, run.json()) == (expected.code, expected.json())
    assert f"{FILES[forgery]} is " in run.err and "not used, and replaced after this sweep" in run.err
    again = _check(cli, repo, forgery)  # the forged file was replaced by this check's own
    assert (again.code, again.json(), again.err) == (expected.code, expected.json(), "")


def test_with_a_key_the_memory_is_signed_and_used_only_under_that_key(
    repo: GitRepo, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    two_commits(repo)
    added_id(cli("claim", "add", "--repo", repo.root, "a.md", "a returns 1.", RESOURCE))
    repo.commit("ground")
    monkeypatch.setenv("WIKIWARDEN_CACHE_KEY", KEY)
    first = cli("check", "--repo", repo.root, "--format", "json")
    folder = repo.root / ".git" / "wikiwarden"
    assert all((folder / name).read_bytes().startswith(b'{"seal":"hmac-sha256:') for name in FILES.values())
    again = cli("check", "--repo", repo.root, "--format", "json")  # signed with it: used without a word
    assert (again.code, again.out, again.err) == (first.code, first.out, "")
    monkeypatch.setenv("WIKIWARDEN_CACHE_KEY", KEY.upper())  # another key: nothing used, every file said
    other = cli("check", "--repo", repo.root, "--format", "json")
    assert other.out == first.out and other.err.count("is not signed with this cache key") == 3
    monkeypatch.delenv("WIKIWARDEN_CACHE_KEY")  # no key: a signed file cannot be verified
    plain = cli("check", "--repo", repo.root, "--format", "json")
    assert plain.out == first.out and plain.err.count("signed with a cache key this check was not given") == 3


@pytest.mark.parametrize("key", ["short", "x" * 31, "x" * 4097])
def test_a_cache_key_that_cannot_be_a_secret_is_refused_in_one_line(
    repo: GitRepo, cli: Any, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    two_commits(repo)
    monkeypatch.setenv("WIKIWARDEN_CACHE_KEY", key)
    run = cli("check", "--repo", repo.root)
    assert run.code == 2 and run.err.count("\n") == 1 and "WIKIWARDEN_CACHE_KEY: the cache key is" in run.err
    assert not (repo.root / ".git" / "wikiwarden").exists()
    assert cli("check", "--repo", repo.root, "--no-cache").code == 0  # not read when there is no cache
