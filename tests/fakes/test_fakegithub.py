"""The fake GitHub, exercised the way the App will use it: the real gidgethub client over real HTTP on
127.0.0.1, no mocks. Git object ids are checked against the real git binary."""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import jwt
import pytest
from fakegithub import FakeGitHub, FakeRepo, Signature, checks
from fakegithub.gitobjects import MODE_TREE, ObjectStore, TreeEntry, object_id
from gidgethub import BadRequest, GitHubBroken, InvalidField, RateLimitExceeded, ValidationError, apps
from gidgethub.aiohttp import GitHubAPI

pytest_plugins = ["fakegithub.fixtures"]

OWNER, NAME, INSTALLATION = "acme", "widgets", 7
REPO = {"owner": OWNER, "repo": NAME}
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "unused",
    "GIT_AUTHOR_EMAIL": "unused@example.invalid",
    "GIT_COMMITTER_NAME": "unused",
    "GIT_COMMITTER_EMAIL": "unused@example.invalid",
}


# -- fixtures ------------------------------------------------------------------------------------------
@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as client_session:
        yield client_session


@pytest.fixture
def repo(fake_github: FakeGitHub) -> FakeRepo:
    fake_github.add_installation(INSTALLATION, OWNER)
    return fake_github.create_repo(OWNER, NAME, INSTALLATION)


def app_client(fake: FakeGitHub, session: aiohttp.ClientSession) -> GitHubAPI:
    return GitHubAPI(session, "wikiwarden-tests", base_url=fake.base_url)


async def installation_client(fake: FakeGitHub, session: aiohttp.ClientSession, cache: dict | None = None) -> GitHubAPI:
    minted = await apps.get_installation_access_token(
        app_client(fake, session),
        installation_id=str(INSTALLATION),
        app_id=str(fake.app_id),
        private_key=fake.private_key_pem,
    )
    return GitHubAPI(session, "wikiwarden-tests", oauth_token=minted["token"], base_url=fake.base_url, cache=cache)


@pytest.fixture
async def gh(fake_github: FakeGitHub, repo: FakeRepo, session: aiohttp.ClientSession) -> GitHubAPI:
    return await installation_client(fake_github, session)


# -- git object ids against the real git binary ----------------------------------------------------------
def git(cwd: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
        env={**os.environ, **GIT_ENV, **(env or {})},
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode().strip()


def test_git_object_ids_equal_gits(tmp_path: Path) -> None:
    fake = FakeGitHub()
    fake.add_installation(1, "acme")
    repo = fake.create_repo("acme", "ids", 1)
    submodule = "1234567890abcdef1234567890abcdef12345678"
    files: dict[str, bytes | str | None] = {
        "a.txt": "plain\n",
        "a-b": b"dash sorts before the directory a/\n",
        "a/inner.md": "# inside\n",
        "a0": "zero sorts after a/\n",
        "a.b/x": "a tree named a.b\n",
        "bin/run.sh": "#!/bin/sh\necho hi\n",
        "empty": b"",
        "binary.bin": bytes(range(256)),
        "ünïcode/名前.txt": "non-ASCII names are bytes too\n",
    }
    first = repo.commit(
        files,
        message="First\n\nWith a body.",
        symlinks={"link": "a/inner.md"},
        executable={"bin/run.sh"},
        submodules={"vendor/lib": submodule},
        author=("Ada Lovelace", "ada@example.com"),
    )
    second = repo.commit({"a.txt": "changed\n", "a0": None}, message="Second")
    side = repo.commit({"side.txt": "side\n"}, branch="side", start_from=first)
    store = repo.store
    merge = store.put_commit(
        store.read_commit(second).tree,
        [second, side],
        Signature("Merger", "m@example.com", 1_700_000_500, "+0200"),
        Signature("Committer", "c@example.com", 1_700_000_600, "-0130"),
        "Merge side\n",
    )

    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    # blobs: git hash-object
    for data in repo.files_at(first).values():
        assert git(work, "hash-object", "-w", "--stdin", stdin=data) == object_id("blob", data)
    # trees: git mktree, one level at a time, fed git's own listing format
    for sha in (store.read_commit(c).tree for c in (first, second, side)):
        for _, entry in [("", TreeEntry(MODE_TREE, "", sha)), *store.walk(sha)]:
            if entry.mode != MODE_TREE:
                continue
            listing = "".join(f"{e.mode} {e.kind} {e.sha}\t{e.name}\n" for e in store.read_tree(entry.sha))
            assert git(work, "mktree", "--missing", stdin=listing.encode()) == entry.sha
    # the root tree also through a real index, built from a real working tree
    for path, data in repo.files_at(first).items():
        target = work / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if path == "link":
            os.symlink(data.decode(), target)
        else:
            target.write_bytes(data)
    (work / "bin/run.sh").chmod(0o755)
    git(work, "add", "-A")
    git(work, "update-index", "--add", "--cacheinfo", f"160000,{submodule},vendor/lib")
    assert git(work, "write-tree") == store.read_commit(first).tree
    # commits: git commit-tree with the same identities, dates and message bytes
    for sha in (first, second, side, merge):
        commit = store.read_commit(sha)
        env = {
            "GIT_AUTHOR_NAME": commit.author.name,
            "GIT_AUTHOR_EMAIL": commit.author.email,
            "GIT_AUTHOR_DATE": f"{commit.author.timestamp} {commit.author.offset}",
            "GIT_COMMITTER_NAME": commit.committer.name,
            "GIT_COMMITTER_EMAIL": commit.committer.email,
            "GIT_COMMITTER_DATE": f"{commit.committer.timestamp} {commit.committer.offset}",
        }
        parents = [arg for p in commit.parents for arg in ("-p", p)]
        made = git(work, "commit-tree", commit.tree, *parents, stdin=commit.message.encode(), env=env)
        assert made == sha
        assert git(work, "cat-file", "-p", sha).startswith(f"tree {commit.tree}")
    assert git(work, "merge-base", second, side) == store.merge_base(second, side) == first


def test_tree_order_is_gits() -> None:
    store = ObjectStore()
    blob = store.put_blob(b"x")
    sub = store.put_tree([TreeEntry("100644", "f", blob)])
    entries = [TreeEntry("100644", "a-b", blob), TreeEntry(MODE_TREE, "a", sub), TreeEntry("100644", "a.c", blob)]
    assert [e.name for e in store.read_tree(store.put_tree(entries))] == ["a-b", "a.c", "a"]


# -- authentication ------------------------------------------------------------------------------------
async def test_jwt_auth_and_token_minting(
    fake_github: FakeGitHub, repo: FakeRepo, session: aiohttp.ClientSession
) -> None:
    app_gh = app_client(fake_github, session)
    token = apps.get_jwt(app_id=str(fake_github.app_id), private_key=fake_github.private_key_pem)
    app = await app_gh.getitem("/app", jwt=token)
    assert (app["id"], app["slug"]) == (1234, "wikiwarden")
    assert (await app_gh.getitem("/repos/acme/widgets/installation", jwt=token))["id"] == INSTALLATION

    minted = await apps.get_installation_access_token(
        app_gh, installation_id=str(INSTALLATION), app_id="1234", private_key=fake_github.private_key_pem
    )
    assert minted["token"].startswith("ghs_") and minted["expires_at"].endswith("Z")
    assert minted["permissions"]["checks"] == "write"
    assert fake_github.token_mints == 1

    gh = GitHubAPI(session, "t", oauth_token=minted["token"], base_url=fake_github.base_url)
    assert (await gh.getitem("/repos/{owner}/{repo}", REPO))["full_name"] == "acme/widgets"
    # a JWT signed with another key, one living longer than 10 minutes, an int `iss`, a token on /app
    other_key = FakeGitHub(fresh_key=True).private_key_pem
    for bad in (
        apps.get_jwt(app_id="1234", private_key=other_key),
        apps.get_jwt(app_id="1234", private_key=fake_github.private_key_pem, expiration=11 * 60),
        apps.get_jwt(app_id="999", private_key=fake_github.private_key_pem),
    ):
        with pytest.raises(BadRequest) as failed:
            await app_gh.getitem("/app", jwt=bad)
        assert failed.value.status_code == 401
        assert str(failed.value) == "A JSON web token could not be decoded"
    claims = {"iat": int(fake_github.now()) - 60, "exp": int(fake_github.now()) + 540, "iss": 1234}
    int_iss = jwt.PyJWS().encode(json.dumps(claims).encode(), fake_github.private_key_pem, algorithm="RS256")
    assert (await app_gh.getitem("/app", jwt=int_iss))["id"] == 1234
    with pytest.raises(BadRequest, match="JSON web token"):
        await app_gh.getitem("/app", oauth_token=minted["token"])
    # another installation's repository is invisible; an expired token is refused
    fake_github.add_installation(8, "other")
    fake_github.create_repo("other", "secret", 8)
    with pytest.raises(BadRequest) as hidden:
        await gh.getitem("/repos/other/secret")
    assert hidden.value.status_code == 404
    fake_github.expire_tokens()
    with pytest.raises(BadRequest, match="Bad credentials"):
        await gh.getitem("/repos/{owner}/{repo}", REPO)
    assert [r.status for r in fake_github.requests if r.path == "/app"] == [200, 401, 401, 401, 200, 401]


async def test_installation_permissions_are_enforced(fake_github: FakeGitHub, session: aiohttp.ClientSession) -> None:
    fake_github.add_installation(INSTALLATION, OWNER, permissions={"metadata": "read", "contents": "read"})
    repo = fake_github.create_repo(OWNER, NAME, INSTALLATION)
    sha = repo.commit({"a": "a\n"})
    gh = await installation_client(fake_github, session)
    assert (await gh.getitem("/repos/{owner}/{repo}/git/commits/{sha}", {**REPO, "sha": sha}))["sha"] == sha
    with pytest.raises(BadRequest, match="Resource not accessible by integration"):
        await gh.post("/repos/{owner}/{repo}/check-runs", REPO, data={"name": "wiki", "head_sha": sha})


# -- trees, blobs, compare -----------------------------------------------------------------------------
async def test_trees_and_blobs(fake_github: FakeGitHub, repo: FakeRepo, gh: GitHubAPI) -> None:
    text = ("line of text that is long enough to wrap base64 twice " * 3).encode()
    sha = repo.commit(
        {"README.md": text, "docs/guide.md": "guide\n", "tool": "#!/bin/sh\n"},
        symlinks={"docs/latest": "guide.md"},
        executable={"tool"},
        submodules={"vendor/lib": "ab" * 20},
    )
    for rev in ("main", sha):
        listing = await gh.getitem("/repos/{owner}/{repo}/git/trees/{sha}?recursive=1", {**REPO, "sha": rev})
        assert listing["sha"] == repo.store.read_commit(sha).tree and listing["truncated"] is False
    entries = {e["path"]: e for e in listing["tree"]}
    assert list(entries) == ["README.md", "docs", "docs/guide.md", "docs/latest", "tool", "vendor", "vendor/lib"]
    assert (entries["docs"]["mode"], entries["docs"]["type"]) == ("040000", "tree")
    assert (entries["docs/latest"]["mode"], entries["docs/latest"]["size"]) == ("120000", len("guide.md"))
    assert (entries["tool"]["mode"], entries["README.md"]["size"]) == ("100755", len(text))
    assert entries["vendor/lib"] == {"path": "vendor/lib", "mode": "160000", "type": "commit", "sha": "ab" * 20}
    top = await gh.getitem("/repos/{owner}/{repo}/git/trees/{sha}", {**REPO, "sha": sha})
    assert [e["path"] for e in top["tree"]] == ["README.md", "docs", "tool", "vendor"]

    blob = await gh.getitem("/repos/{owner}/{repo}/git/blobs/{sha}", {**REPO, "sha": entries["README.md"]["sha"]})
    lines = blob["content"].split("\n")
    assert all(len(line) == 60 for line in lines[:-2]) and lines[-1] == ""
    assert base64.b64decode(blob["content"]) == text and blob["encoding"] == "base64" and blob["size"] == len(text)
    with pytest.raises(BadRequest) as missing:
        await gh.getitem("/repos/{owner}/{repo}/git/blobs/{sha}", {**REPO, "sha": "0" * 40})
    assert missing.value.status_code == 404


async def test_compare_reports_renames_patches_and_binary_files(repo: FakeRepo, gh: GitHubAPI) -> None:
    body = "".join(f"line {n}\n" for n in range(1, 21))
    base = repo.commit({"old/name.md": body, "keep.txt": "a\nb\nc\n", "gone.txt": "bye\n", "logo.png": b"\x89PNG\0\1"})
    repo.commit(
        {
            "old/name.md": None,
            "new/name.md": body.replace("line 7\n", "line seven\n"),
            "keep.txt": "a\nB\nc",
            "gone.txt": None,
            "logo.png": b"\x89PNG\0\2",
            "added.txt": "new\n",
        },
        branch="feature",
    )
    compared = await gh.getitem("/repos/{owner}/{repo}/compare/{basehead}", {**REPO, "basehead": "main...feature"})
    assert (compared["status"], compared["ahead_by"], compared["behind_by"]) == ("ahead", 1, 0)
    assert compared["merge_base_commit"]["sha"] == compared["base_commit"]["sha"] == base
    files = {f["filename"]: f for f in compared["files"]}
    assert {n: f["status"] for n, f in files.items()} == {
        "added.txt": "added",
        "gone.txt": "removed",
        "keep.txt": "modified",
        "logo.png": "modified",
        "new/name.md": "renamed",
    }
    renamed = files["new/name.md"]
    assert renamed["previous_filename"] == "old/name.md"
    assert (renamed["additions"], renamed["deletions"], renamed["changes"]) == (1, 1, 2)
    assert (
        renamed["patch"]
        == "@@ -4,7 +4,7 @@\n line 4\n line 5\n line 6\n-line 7\n+line seven\n line 8\n line 9\n line 10"
    )
    assert files["keep.txt"]["patch"] == "@@ -1,3 +1,3 @@\n a\n-b\n-c\n+B\n+c\n\\ No newline at end of file"
    assert "patch" not in files["logo.png"]
    assert files["added.txt"]["sha"] == repo.entries_at("feature")["added.txt"][1]


async def test_compare_lists_at_most_300_files(repo: FakeRepo, gh: GitHubAPI) -> None:
    repo.commit({"README.md": "hi\n"})
    repo.commit({f"docs/page{n:03}.md": f"page {n}\n" for n in range(350)}, branch="big")
    compared = await gh.getitem("/repos/{owner}/{repo}/compare/{basehead}", {**REPO, "basehead": "main...big"})
    assert len(compared["files"]) == 300
    assert compared["files"][0]["filename"] == "docs/page000.md"
    assert compared["files"][-1]["filename"] == "docs/page299.md"


async def test_compare_after_a_force_push_starts_from_the_merge_base(repo: FakeRepo, gh: GitHubAPI) -> None:
    a = repo.commit({"f.txt": "a\n"}, message="A")
    b = repo.commit({"f.txt": "b\n"}, message="B")
    c = repo.commit({"g.txt": "feature\n"}, branch="feature", message="C")
    rewritten = repo.commit_tree({"f.txt": "b'\n"}, parents=[a], message="B rewritten")
    repo.set_ref("main", rewritten)  # a force-push to main
    for dots in ("...", ".."):
        compared = await gh.getitem(
            "/repos/{owner}/{repo}/compare/{basehead}", {**REPO, "basehead": f"main{dots}feature"}
        )
        assert compared["merge_base_commit"]["sha"] == a
        assert (compared["status"], compared["ahead_by"], compared["behind_by"]) == ("diverged", 2, 1)
        assert [x["sha"] for x in compared["commits"]] == [b, c]  # oldest first
        assert [x["commit"]["message"] for x in compared["commits"]] == ["B", "C"]
        assert {f["filename"] for f in compared["files"]} == {"f.txt", "g.txt"}
    with pytest.raises(BadRequest) as unknown:
        await gh.getitem("/repos/{owner}/{repo}/compare/{basehead}", {**REPO, "basehead": f"main...{'f' * 40}"})
    assert unknown.value.status_code == 404


# -- pagination and conditional requests ---------------------------------------------------------------
async def test_commits_paginate_with_link_headers(fake_github: FakeGitHub, repo: FakeRepo, gh: GitHubAPI) -> None:
    shas = [repo.commit({"n.txt": f"{n}\n"}, message=f"commit {n}") for n in range(45)]
    listed = [c["sha"] async for c in gh.getiter("/repos/{owner}/{repo}/commits?per_page=20", REPO)]
    assert listed == shas[::-1]
    pages = [r.query.get("page", ["1"])[0] for r in fake_github.requests if r.path.endswith("/commits")]
    assert pages == ["1", "2", "3"]
    first = await gh.getitem("/repos/{owner}/{repo}/commits?sha={sha}&per_page=1", {**REPO, "sha": shas[1]})
    assert first[0]["commit"]["author"] == {"name": "Test", "email": "t@example.com", "date": "2023-11-14T22:13:22Z"}
    assert first[0]["author"] is None and first[0]["parents"][0]["sha"] == shas[0]


async def test_etag_answers_304_without_spending_rate_limit(
    fake_github: FakeGitHub, repo: FakeRepo, session: aiohttp.ClientSession
) -> None:
    repo.commit({"a": "a\n"})
    cache: dict = {}
    gh = await installation_client(fake_github, session, cache=cache)
    first = await gh.getitem("/repos/{owner}/{repo}", REPO)
    remaining = fake_github.rate_limit["remaining"]
    again = await gh.getitem("/repos/{owner}/{repo}", REPO)
    assert again == first
    assert fake_github.rate_limit["remaining"] == remaining
    assert [r.status for r in fake_github.requests if r.path == "/repos/acme/widgets"] == [200, 304]
    repo.default_branch = "trunk"  # the answer changes, so the ETag does
    assert (await gh.getitem("/repos/{owner}/{repo}", REPO))["default_branch"] == "trunk"
    assert fake_github.rate_limit["remaining"] == remaining - 1


# -- check runs ----------------------------------------------------------------------------------------
def annotations(count: int, start: int = 0) -> list[dict]:
    return [
        {"path": "README.md", "start_line": n + 1, "end_line": n + 1, "annotation_level": "warning", "message": f"m{n}"}
        for n in range(start, start + count)
    ]


async def test_check_runs_validate_like_github(fake_github: FakeGitHub, repo: FakeRepo, gh: GitHubAPI) -> None:
    sha = repo.commit({"README.md": "x\n"})
    url = "/repos/{owner}/{repo}/check-runs"
    output = {"title": "t", "summary": "s"}
    bad_bodies = [
        {"head_sha": sha},
        {"name": "wiki", "head_sha": sha, "status": "completed"},
        {"name": "wiki", "head_sha": sha, "status": "waiting"},
        {"name": "wiki", "head_sha": sha, "conclusion": "stale"},
        {"name": "wiki", "head_sha": sha, "output": {"title": "only a title"}},
        {"name": "wiki", "head_sha": sha, "output": {**output, "text": "x" * 65536}},
        {"name": "wiki", "head_sha": sha, "output": {**output, "annotations": annotations(51)}},
        {
            "name": "wiki",
            "head_sha": sha,
            "output": {**output, "annotations": [{**annotations(1)[0], "end_line": 3, "start_column": 2}]},
        },
        {
            "name": "wiki",
            "head_sha": sha,
            "output": {**output, "annotations": [{**annotations(1)[0], "title": "t" * 256}]},
        },
        {"name": "wiki", "head_sha": sha, "actions": [{"label": "Fix", "description": "d", "identifier": "fix"}] * 4},
        {"name": "wiki", "head_sha": sha, "actions": [{"label": "L" * 21, "description": "d", "identifier": "fix"}]},
    ]
    for body in bad_bodies:
        # the OpenAPI schema (InvalidField, "Invalid request.") or the fake's own rules (ValidationError or
        # InvalidField, "Validation Failed") refuse it; either way it is a 422 and a recorded violation
        with pytest.raises((InvalidField, ValidationError)) as rejected:
            await gh.post(url, REPO, data=body)
        assert rejected.value.status_code == 422, body
    assert len(fake_github.violations) == len(bad_bodies)
    fake_github.violations.clear()  # provoked on purpose
    with pytest.raises(InvalidField, match="head_sha") as unknown:
        await gh.post(url, REPO, data={"name": "wiki", "head_sha": "e" * 40})
    assert unknown.value.errors[0]["message"] == f"No commit found for SHA: {'e' * 40}"
    assert repo.check_runs == []


def test_check_run_rules() -> None:
    ok = {"name": "wiki", "head_sha": "a" * 40}
    output = {"title": "t", "summary": "s"}

    def codes(body: dict, **kwargs: object) -> list[tuple[str, str]]:
        return [(e["field"], e["code"]) for e in checks.validate(body, **kwargs)]  # type: ignore[arg-type]

    assert codes(ok, create=True) == []
    assert codes({"name": "wiki"}, create=True) == [("head_sha", "missing_field")]
    assert codes({**ok, "status": "completed"}, create=True) == [("conclusion", "custom")]
    assert codes({"status": "completed"}, create=False, current={"conclusion": "success"}) == []
    assert codes({**ok, "conclusion": "stale"}, create=True) == [("conclusion", "invalid")]
    assert codes({**ok, "output": {"summary": "s"}}, create=True) == [("output.title", "missing_field")]
    assert codes({**ok, "output": {**output, "summary": "s" * 65536}}, create=True) == [("output.summary", "custom")]
    assert codes({**ok, "output": {**output, "annotations": annotations(51)}}, create=True) == [
        ("output.annotations", "custom")
    ]
    multi_line = {**annotations(1)[0], "end_line": 2, "start_column": 1, "end_column": 4}
    assert codes({**ok, "output": {**output, "annotations": [multi_line]}}, create=True) == [
        ("output.annotations[0].start_column", "custom"),
        ("output.annotations[0].end_column", "custom"),
    ]
    single_line = {**annotations(1)[0], "start_column": 1, "end_column": 4, "raw_details": "r" * 65536}
    assert codes({**ok, "output": {**output, "annotations": [single_line]}}, create=True) == []
    huge = {**annotations(1)[0], "message": "m" * 65537, "annotation_level": "error"}
    assert codes({**ok, "output": {**output, "annotations": [huge]}}, create=True) == [
        ("output.annotations[0].annotation_level", "missing_field"),
        ("output.annotations[0].message", "custom"),
    ]
    action = {"label": "Fix wiki", "description": "Open a pull request that fixes it", "identifier": "fix"}
    assert codes({**ok, "actions": [action] * 3}, create=True) == []
    assert codes({**ok, "actions": [action] * 4}, create=True) == [("actions", "custom")]
    assert codes({**ok, "actions": [{**action, "description": "d" * 41}]}, create=True) == [
        ("actions[0].description", "custom")
    ]
    assert codes({**ok, "actions": [{**action, "identifier": "i" * 21}]}, create=True) == [
        ("actions[0].identifier", "custom")
    ]


async def test_check_run_updates_append_annotations(fake_github: FakeGitHub, repo: FakeRepo, gh: GitHubAPI) -> None:
    sha = repo.commit({"README.md": "x\n"})
    created = await gh.post(
        "/repos/{owner}/{repo}/check-runs",
        REPO,
        data={
            "name": "wiki",
            "head_sha": sha,
            "status": "in_progress",
            "output": {"title": "t", "summary": "s", "annotations": annotations(50)},
        },
    )
    assert (created["status"], created["app"]["id"], created["output"]["annotations_count"]) == (
        "in_progress",
        1234,
        50,
    )
    run_url = "/repos/{owner}/{repo}/check-runs/{id}"
    ids = {**REPO, "id": created["id"]}
    await gh.patch(run_url, ids, data={"output": {"title": "t", "summary": "more", "annotations": annotations(50, 50)}})
    done = await gh.patch(
        run_url,
        ids,
        data={"conclusion": "neutral", "output": {"title": "t", "summary": "s", "annotations": annotations(5, 100)}},
    )
    assert (done["status"], done["conclusion"], done["output"]["annotations_count"]) == ("completed", "neutral", 105)
    stored = repo.check_runs[0]
    assert [a["message"] for a in stored["annotations"]] == [f"m{n}" for n in range(105)]
    assert [h["method"] for h in stored["history"]] == ["POST", "PATCH", "PATCH"]
    assert (stored["app_id"], stored["completed_at"] is not None) == (1234, True)

    repo.add_check_run("wiki", sha, app_id=99, conclusion="success")
    await gh.post("/repos/{owner}/{repo}/check-runs", REPO, data={"name": "wiki", "head_sha": sha})
    for_ref = "/repos/{owner}/{repo}/commits/{ref}/check-runs"
    latest = await gh.getitem(for_ref + "?check_name=wiki&app_id=1234", {**REPO, "ref": "main"})
    assert latest["total_count"] == 1 and latest["check_runs"][0]["status"] == "queued"
    everything = await gh.getitem(for_ref + "?filter=all", {**REPO, "ref": sha})
    assert everything["total_count"] == 3


# -- git data and pull requests ------------------------------------------------------------------------
async def test_git_data_commit_pull_request_and_refs(fake_github: FakeGitHub, repo: FakeRepo, gh: GitHubAPI) -> None:
    base = repo.commit({"wiki/a.md": "A\n", "wiki/b.md": "B\n", "src/x.py": "x = 1\n"})
    ref = await gh.getitem("/repos/{owner}/{repo}/git/ref/{ref}", {**REPO, "ref": "heads/main"})
    assert ref == {**ref, "ref": "refs/heads/main", "object": {**ref["object"], "sha": base, "type": "commit"}}
    head = await gh.getitem("/repos/{owner}/{repo}/git/commits/{sha}", {**REPO, "sha": base})
    blob = await gh.post(
        "/repos/{owner}/{repo}/git/blobs",
        REPO,
        data={"content": base64.b64encode(b"\0bin").decode(), "encoding": "base64"},
    )
    with pytest.raises(BadRequest) as both:
        await gh.post(
            "/repos/{owner}/{repo}/git/trees",
            REPO,
            data={
                "base_tree": head["tree"]["sha"],
                "tree": [{"path": "x", "mode": "100644", "type": "blob", "sha": blob["sha"], "content": "x"}],
            },
        )
    assert both.value.status_code == 422
    tree = await gh.post(
        "/repos/{owner}/{repo}/git/trees",
        REPO,
        data={
            "base_tree": head["tree"]["sha"],
            "tree": [
                {"path": "wiki/a.md", "mode": "100644", "type": "blob", "content": "A, fixed\n"},
                {"path": "wiki/b.md", "mode": "100644", "type": "blob", "sha": None},
                {"path": "wiki/deep/new.md", "mode": "100644", "type": "blob", "content": "new\n"},
                {"path": "assets/logo.bin", "mode": "100644", "type": "blob", "sha": blob["sha"]},
            ],
        },
    )
    commit = await gh.post(
        "/repos/{owner}/{repo}/git/commits",
        REPO,
        data={"message": "Fix the wiki", "tree": tree["sha"], "parents": [base]},
    )
    assert commit["author"]["name"] == "wikiwarden[bot]" and commit["verification"]["verified"] is True
    assert repo.files_at(commit["sha"]) == {
        "assets/logo.bin": b"\0bin",
        "src/x.py": b"x = 1\n",
        "wiki/a.md": b"A, fixed\n",
        "wiki/deep/new.md": b"new\n",
    }
    with pytest.raises(BadRequest, match="not a valid ref name"):
        await gh.post("/repos/{owner}/{repo}/git/refs", REPO, data={"ref": "heads/fix", "sha": commit["sha"]})
    await gh.post(
        "/repos/{owner}/{repo}/git/refs", REPO, data={"ref": "refs/heads/wikiwarden/fix", "sha": commit["sha"]}
    )
    with pytest.raises(BadRequest, match="Reference already exists"):
        await gh.post("/repos/{owner}/{repo}/git/refs", REPO, data={"ref": "refs/heads/wikiwarden/fix", "sha": base})
    assert repo.ref("wikiwarden/fix") == commit["sha"]

    pulls = "/repos/{owner}/{repo}/pulls"
    opened = await gh.post(
        pulls, REPO, data={"title": "Fix the wiki", "head": "wikiwarden/fix", "base": "main", "body": "b"}
    )
    assert (opened["number"], opened["merged"], opened["user"]["login"], opened["user"]["type"]) == (
        1,
        False,
        "wikiwarden[bot]",
        "Bot",
    )
    assert (opened["head"]["sha"], opened["base"]["sha"], opened["head"]["repo"]["full_name"]) == (
        commit["sha"],
        base,
        "acme/widgets",
    )
    with pytest.raises(ValidationError, match=r"A pull request already exists for acme:wikiwarden/fix\."):
        await gh.post(pulls, REPO, data={"title": "again", "head": "acme:wikiwarden/fix", "base": "main"})
    repo.commit({"other.txt": "o\n"}, branch="empty-change", start_from="main")
    repo.set_ref("empty-change", base)
    with pytest.raises(ValidationError, match="No commits between main and empty-change"):
        await gh.post(pulls, REPO, data={"title": "nothing", "head": "empty-change", "base": "main"})
    found = await gh.getitem(pulls + "?head={head}&state=open", {**REPO, "head": "acme:wikiwarden/fix"})
    assert [p["number"] for p in found] == [1] and "merged" not in found[0]  # lists carry pull-request-simple
    edited = await gh.patch(pulls + "/{n}", {**REPO, "n": 1}, data={"title": "Fix the wiki (2)", "body": "new body"})
    assert (edited["title"], repo.pulls[0]["body"]) == ("Fix the wiki (2)", "new body")
    await gh.getitem(pulls + "?head=wikiwarden/fix", REPO)
    assert fake_github.violations == [
        "GET /repos/acme/widgets/pulls: head='wikiwarden/fix' lacks the 'owner:' prefix, so GitHub ignores the filter"
    ]
    fake_github.violations.clear()

    # a human pushes to main; the bot's branch cannot be moved there without force
    human = repo.commit({"src/x.py": "x = 2\n"}, message="human change")
    refs = "/repos/{owner}/{repo}/git/refs/{ref}"
    with pytest.raises(BadRequest, match="Update is not a fast forward"):
        await gh.patch(refs, {**REPO, "ref": "heads/wikiwarden/fix"}, data={"sha": human})
    moved = await gh.patch(refs, {**REPO, "ref": "heads/wikiwarden/fix"}, data={"sha": human, "force": True})
    assert moved["object"]["sha"] == human == repo.pulls[0]["head"]["sha"]
    await gh.post("/repos/{owner}/{repo}/issues/{n}/comments", {**REPO, "n": 1}, data={"body": "Done."})
    assert [(c["issue_number"], c["body"]) for c in repo.comments] == [(1, "Done.")]


# -- faults and rate limits ----------------------------------------------------------------------------
async def test_injected_faults(fake_github: FakeGitHub, repo: FakeRepo, gh: GitHubAPI) -> None:
    path = "/repos/{owner}/{repo}"
    fake_github.fail_next("GET", r"^/repos/acme/widgets$", 500, times=2)
    for _ in range(2):
        with pytest.raises(GitHubBroken):
            await gh.getitem(path, REPO)
    assert (await gh.getitem(path, REPO))["name"] == "widgets"

    fake_github.fail_next("get", r"/widgets$", 403, headers={"retry-after": "1"})
    with pytest.raises(BadRequest) as secondary:
        await gh.getitem(path, REPO)
    assert type(secondary.value) is BadRequest and secondary.value.headers["retry-after"] == "1"
    assert "secondary rate limit" in str(secondary.value)

    fake_github.fail_next("*", r"/widgets$", 403, headers={"x-ratelimit-remaining": "0"})
    with pytest.raises(RateLimitExceeded):
        await gh.getitem(path, REPO)
    fake_github.fail_next("GET", r"/widgets$", 429, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "123"})
    with pytest.raises(BadRequest) as primary_429:
        await gh.getitem(path, REPO)
    assert primary_429.value.status_code == 429 and primary_429.value.headers["x-ratelimit-reset"] == "123"
    fake_github.fail_next("POST", r"/git/trees$", 409)
    with pytest.raises(BadRequest, match="Git Repository is empty"):
        await gh.post("/repos/{owner}/{repo}/git/trees", REPO, data={"tree": []})
    assert fake_github.faults == []


async def test_primary_rate_limit(fake_github: FakeGitHub, repo: FakeRepo, gh: GitHubAPI) -> None:
    fake_github.rate_limit.update(limit=100, remaining=2)
    first = await gh.getitem("/repos/{owner}/{repo}", REPO)
    assert first["name"] == "widgets" and gh.rate_limit.remaining == 1 and gh.rate_limit.limit == 100
    await gh.getitem("/repos/{owner}/{repo}", REPO)
    for _ in range(2):
        with pytest.raises(RateLimitExceeded, match="API rate limit exceeded"):
            await gh.getitem("/repos/{owner}/{repo}", REPO)
    assert fake_github.rate_limit["remaining"] == 0
    fake_github.rate_limit["reset"] = int(fake_github.now()) - 1  # the hour is over
    await gh.getitem("/repos/{owner}/{repo}", REPO)
    assert fake_github.rate_limit["remaining"] == 99


# -- what the fake refuses to fake ---------------------------------------------------------------------
@pytest.mark.github_violations_expected  # without it, the fixture would fail this test at teardown
async def test_unknown_routes_answer_501_and_are_violations(
    fake_github: FakeGitHub, repo: FakeRepo, gh: GitHubAPI
) -> None:
    for path in ("/repos/acme/widgets/frobnicate", "/repos/acme/widgets/branches"):
        with pytest.raises(GitHubBroken) as missing:
            await gh.getitem(path)
        assert missing.value.status_code == 501
    assert len(fake_github.violations) == 2
    assert fake_github.requests[-1][:4] == ("GET", "/repos/acme/widgets/branches", {}, 501)


async def test_routes_beyond_the_openapi_subset(fake_github: FakeGitHub, repo: FakeRepo, gh: GitHubAPI) -> None:
    """Routes the fake serves although the bot does not call them yet (the OpenAPI subset would refuse them)."""
    fake_github.validate_requests = False
    base = repo.commit({"README.md": "hi\n", "docs/a.md": "a\n"}, symlinks={"docs/link": "a.md"})
    head = repo.commit({"docs/a.md": "a, edited\n", "docs/b.md": "b\n"}, branch="topic", message="Topic")
    pr = repo.open_pull("topic", title="Topic", user="alice")
    assert pr["number"] == 1

    files = await gh.getitem("/repos/{owner}/{repo}/pulls/1/files", REPO)
    assert [(f["filename"], f["status"]) for f in files] == [("docs/a.md", "modified"), ("docs/b.md", "added")]
    assert [c["sha"] async for c in gh.getiter("/repos/{owner}/{repo}/pulls/1/commits", REPO)] == [head]
    single = await gh.getitem("/repos/{owner}/{repo}/commits/{ref}", {**REPO, "ref": "topic"})
    assert (single["sha"], single["stats"]["total"], len(single["files"])) == (head, 3, 2)
    readme = await gh.getitem(
        "/repos/{owner}/{repo}/contents/{path}?ref={ref}", {**REPO, "path": "README.md", "ref": base}
    )
    assert base64.b64decode(readme["content"]) == b"hi\n"
    listing = await gh.getitem("/repos/{owner}/{repo}/contents/{path}", {**REPO, "path": "docs"})
    assert [(e["name"], e["type"]) for e in listing] == [("a.md", "file"), ("link", "symlink")]
    refs = await gh.getitem("/repos/{owner}/{repo}/git/matching-refs/{ref}", {**REPO, "ref": "heads/"})
    assert [r["ref"] for r in refs] == ["refs/heads/main", "refs/heads/topic"]

    run = await gh.post(
        "/repos/{owner}/{repo}/check-runs",
        REPO,
        data={
            "name": "wiki",
            "head_sha": head,
            "output": {"title": "t", "summary": "s", "annotations": annotations(40)},
        },
    )
    assert [p["number"] for p in run["pull_requests"]] == [1]
    await gh.patch(
        "/repos/{owner}/{repo}/check-runs/{id}",
        {**REPO, "id": run["id"]},
        data={"output": {"title": "t", "summary": "s", "annotations": annotations(40, 40)}},
    )
    listed = [
        a async for a in gh.getiter("/repos/{owner}/{repo}/check-runs/{id}/annotations", {**REPO, "id": run["id"]})
    ]
    assert [a["message"] for a in listed] == [f"m{n}" for n in range(80)]

    comment = await gh.post("/repos/{owner}/{repo}/issues/1/comments", REPO, data={"body": "first"})
    await gh.patch("/repos/{owner}/{repo}/issues/comments/{id}", {**REPO, "id": comment["id"]}, data={"body": "second"})
    bodies = [c["body"] async for c in gh.getiter("/repos/{owner}/{repo}/issues/1/comments", REPO)]
    assert bodies == ["second"]
    assert (await gh.getitem("/installation/repositories"))["total_count"] == 1
    assert (await gh.getitem("/rate_limit"))["resources"]["core"]["limit"] == 5000

    await gh.delete("/repos/{owner}/{repo}/git/refs/{ref}", {**REPO, "ref": "heads/topic"})
    assert repo.pulls[0]["state"] == "closed"  # deleting the head branch closes its pull request
    assert fake_github.violations == []


async def test_graphql_is_routed_with_installation_auth(fake_github: FakeGitHub, repo: FakeRepo, gh: GitHubAPI) -> None:
    if importlib.util.find_spec("fakegithub.graphql") is None:
        pytest.skip("fakegithub/graphql.py is not written yet")
    repo.commit({"docs/a.md": "alpha\n"})
    blob_sha = repo.entries_at("main")["docs/a.md"][1]
    query = (
        "query($owner: String!, $name: String!, $oid: GitObjectID!) { repository(owner: $owner, name: $name) {"
        ' byOid: object(oid: $oid) { ... on Blob { text } } byPath: object(expression: "main:docs/a.md") { oid } } }'
    )
    endpoint = f"{fake_github.base_url}/graphql"
    data = await gh.graphql(query, endpoint=endpoint, owner=OWNER, name=NAME, oid=blob_sha)
    assert data["repository"] == {"byOid": {"text": "alpha\n"}, "byPath": {"oid": blob_sha}}
    assert fake_github.graphql_rate_limit["remaining"] == 4999
    assert fake_github.requests[-1][::4] == ("POST", "graphql")


def test_every_operation_of_the_openapi_subset_is_served() -> None:
    if importlib.util.find_spec("fakegithub.openapi") is None:
        pytest.skip("fakegithub/openapi.py is not written yet")
    from fakegithub.openapi import OPERATIONS
    from fakegithub.rest import ROUTES

    assert set(OPERATIONS) <= {route.op_id for route in ROUTES}
