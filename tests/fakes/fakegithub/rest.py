"""The REST routes of the fake GitHub: handlers that read and change `FakeGitHub` state and answer JSON shaped
like GitHub's. Authentication, validation, faults, rate limits and ETags happen around them, in `server.py`.

Each handler is registered with `@route(method, path, operation_id, auth=..., perm=..., query=...)`: the
GitHub operation it implements, how it is authenticated (the App's JWT or an installation token), the
installation permission it needs, and the query parameters it honours (others are reported as violations).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from . import checks
from .diff import FileChange, diff_flat
from .gitobjects import (
    BLOB_MODES,
    MODE_GITLINK,
    MODE_SYMLINK,
    MODE_TREE,
    Signature,
    api_mode,
)
from .state import FakeGitHub, FakeRepo, Installation, Token, iso, node_id

DOCS = "https://docs.github.com/rest"
COMPARE_FILE_CAP = 300
COMPARE_COMMIT_CAP = 250
PULL_FILES_CAP = 3000
PULL_COMMITS_CAP = 250
MAX_BODY = 65536
CONTENTS_MAX_BYTES = 1 << 20


@dataclass
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


class ApiError(Exception):
    """An error answer: status, GitHub's message, optional `errors`, optional headers."""

    def __init__(
        self,
        status: int,
        message: str,
        errors: list[Any] | None = None,
        docs: str = DOCS,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors
        self.docs = docs
        self.headers = headers or {}

    def reply(self) -> Reply:
        body: dict[str, Any] = {"message": self.message}
        if self.errors is not None:
            body["errors"] = self.errors
        body["documentation_url"] = self.docs
        body["status"] = str(self.status)
        return Reply(self.status, body, dict(self.headers))


class NotImplementedByFake(Exception):
    """A real GitHub route that this fake does not implement (answered 501, recorded as a violation)."""


def not_found() -> ApiError:
    return ApiError(404, "Not Found")


def validation_failed(resource: str, *errors: dict[str, Any]) -> ApiError:
    return ApiError(422, "Validation Failed", [{"resource": resource, **e} for e in errors])


@dataclass(frozen=True)
class RouteInfo:
    method: str
    pattern: str
    op_id: str
    auth: str  # "jwt", "token" or "none"
    perm: tuple[tuple[str, str], ...]  # any one of these (permission, level) pairs suffices
    query: frozenset[str]
    handler: Callable[[Ctx], Reply]
    bucket: str = "core"


ROUTES: list[RouteInfo] = []
PAGINATION = ("per_page", "page")
READ_META = (("metadata", "read"),)
READ_CONTENTS = (("contents", "read"),)
WRITE_CONTENTS = (("contents", "write"),)
READ_CHECKS = (("checks", "read"),)
WRITE_CHECKS = (("checks", "write"),)
READ_PULLS = (("pull_requests", "read"),)
WRITE_PULLS = (("pull_requests", "write"),)
COMMENT_PERMS = (("issues", "write"), ("pull_requests", "write"))
COMMENT_READ = (("issues", "read"), ("pull_requests", "read"))


def route(
    method: str,
    pattern: str,
    op_id: str,
    *,
    auth: str = "token",
    perm: Iterable[tuple[str, str]] = (),
    query: Iterable[str] = (),
    bucket: str = "core",
) -> Callable[[Callable[[Ctx], Reply]], Callable[[Ctx], Reply]]:
    def register(handler: Callable[[Ctx], Reply]) -> Callable[[Ctx], Reply]:
        ROUTES.append(RouteInfo(method, pattern, op_id, auth, tuple(perm), frozenset(query), handler, bucket))
        return handler

    return register


@dataclass
class Ctx:
    """What a handler gets: the request, the fake, the parsed body and query, and who is asking."""

    request: web.Request
    fake: FakeGitHub
    body: Any
    query: dict[str, list[str]]
    info: RouteInfo
    token: Token | None = None
    installation: Installation | None = None
    repo_or_none: FakeRepo | None = None

    @property
    def repo(self) -> FakeRepo:
        assert self.repo_or_none is not None
        return self.repo_or_none

    def arg(self, name: str) -> str:
        return self.request.match_info[name]

    def q(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[-1] if values else default

    def json(self) -> dict[str, Any]:
        if self.body is None:
            return {}
        if not isinstance(self.body, dict):
            raise ApiError(400, "Problems parsing JSON")
        return self.body

    def page(self, items: list[Any], default: int = 30, cap: int = 100) -> tuple[list[Any], dict[str, str]]:
        """One page of `items` with GitHub's Link header (next, last, first, prev)."""
        try:
            per_page = min(max(int(self.q("per_page") or default), 1), cap)
            page = max(int(self.q("page") or 1), 1)
        except ValueError as exc:
            raise ApiError(400, "Invalid pagination parameters") from exc
        last = max((len(items) + per_page - 1) // per_page, 1)
        rel = self.request.rel_url

        def link(number: int, name: str) -> str:
            return f'<{self.fake.base_url}{rel.update_query(page=str(number))}>; rel="{name}"'

        links = []
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links += [link(1, "first"), link(min(page - 1, last), "prev")]
        headers = {"Link": ", ".join(links)} if links else {}
        return items[(page - 1) * per_page : page * per_page], headers


# -- JSON views ----------------------------------------------------------------------------------------
def api(repo: FakeRepo, path: str = "") -> str:
    return f"{repo.fake.base_url}/repos/{repo.full_name}{path}"


def web_url(repo: FakeRepo, path: str = "") -> str:
    return f"{repo.fake.web_url}/{repo.full_name}{path}"


def repo_json(repo: FakeRepo) -> dict[str, Any]:
    updated = iso(repo.pushed_at)
    return {
        "id": repo.id,
        "node_id": node_id("Repository", repo.id),
        "name": repo.name,
        "full_name": repo.full_name,
        "private": repo.private,
        "visibility": "private" if repo.private else "public",
        "owner": repo.fake.user_json(repo.owner),
        "html_url": web_url(repo),
        "description": None,
        "fork": False,
        "url": api(repo),
        "git_url": f"git://github.com/{repo.full_name}.git",
        "clone_url": f"{repo.fake.web_url}/{repo.full_name}.git",
        "ssh_url": f"git@github.com:{repo.full_name}.git",
        "default_branch": repo.default_branch,
        "archived": False,
        "disabled": False,
        "is_template": False,
        "size": 0,
        "created_at": iso(repo.created_at),
        "updated_at": updated,
        "pushed_at": updated,
    }


def api_message(message: str) -> str:
    """GitHub shows commit messages without git's final newline."""
    return message.rstrip("\n")


def _signature_json(sig: Signature) -> dict[str, str]:
    return {"name": sig.name, "email": sig.email, "date": sig.iso()}


def _verification(repo: FakeRepo, sha: str) -> dict[str, Any]:
    signed = sha in repo.signed_commits
    return {
        "verified": signed,
        "reason": "valid" if signed else "unsigned",
        "signature": "-----BEGIN PGP SIGNATURE-----\n(fake)\n-----END PGP SIGNATURE-----" if signed else None,
        "payload": None,
        "verified_at": None,
    }


def git_commit_json(repo: FakeRepo, sha: str) -> dict[str, Any]:
    commit = repo.store.read_commit(sha)
    return {
        "sha": sha,
        "node_id": node_id("Commit", sha),
        "url": api(repo, f"/git/commits/{sha}"),
        "html_url": web_url(repo, f"/commit/{sha}"),
        "author": _signature_json(commit.author),
        "committer": _signature_json(commit.committer),
        "tree": {"sha": commit.tree, "url": api(repo, f"/git/trees/{commit.tree}")},
        "message": api_message(commit.message),
        "parents": [
            {"sha": p, "url": api(repo, f"/git/commits/{p}"), "html_url": web_url(repo, f"/commit/{p}")}
            for p in commit.parents
        ],
        "verification": _verification(repo, sha),
    }


def commit_json(repo: FakeRepo, sha: str) -> dict[str, Any]:
    """A commit as the repos API lists it (commits, compare)."""
    commit = repo.store.read_commit(sha)
    fake = repo.fake
    return {
        "sha": sha,
        "node_id": node_id("Commit", sha),
        "url": api(repo, f"/commits/{sha}"),
        "html_url": web_url(repo, f"/commit/{sha}"),
        "comments_url": api(repo, f"/commits/{sha}/comments"),
        "commit": {
            "author": _signature_json(commit.author),
            "committer": _signature_json(commit.committer),
            "message": api_message(commit.message),
            "tree": {"sha": commit.tree, "url": api(repo, f"/git/trees/{commit.tree}")},
            "url": api(repo, f"/git/commits/{sha}"),
            "comment_count": 0,
            "verification": _verification(repo, sha),
        },
        "author": fake.user_for_email(commit.author.email),
        "committer": fake.user_for_email(commit.committer.email),
        "parents": [
            {"sha": p, "url": api(repo, f"/commits/{p}"), "html_url": web_url(repo, f"/commit/{p}")}
            for p in commit.parents
        ],
    }


def file_json(repo: FakeRepo, change: FileChange, ref: str) -> dict[str, Any]:
    item: dict[str, Any] = {
        "sha": change.sha,
        "filename": change.filename,
        "status": change.status,
        "additions": change.additions,
        "deletions": change.deletions,
        "changes": change.additions + change.deletions,
        "blob_url": web_url(repo, f"/blob/{ref}/{change.filename}"),
        "raw_url": web_url(repo, f"/raw/{ref}/{change.filename}"),
        "contents_url": api(repo, f"/contents/{change.filename}?ref={ref}"),
    }
    if change.patch is not None:
        item["patch"] = change.patch
    if change.previous_filename is not None:
        item["previous_filename"] = change.previous_filename
    return item


def changes_between(repo: FakeRepo, old_commit: str | None, new_commit: str) -> list[FileChange]:
    store = repo.store
    old = store.flatten(store.read_commit(old_commit).tree if old_commit else None)
    new = store.flatten(store.read_commit(new_commit).tree)
    return diff_flat(old, new, lambda _mode, sha: store.read_blob(sha))


def b64_lines(data: bytes) -> str:
    """Base64 as GitHub sends blob content: a newline after every 60 characters (Ruby's encode64)."""
    text = base64.b64encode(data).decode()
    return "".join(text[i : i + 60] + "\n" for i in range(0, len(text), 60))


def require_commits(repo: FakeRepo) -> None:
    if not repo.refs:
        raise ApiError(409, "Git Repository is empty.")


def resolve_or_404(repo: FakeRepo, rev: str) -> str:
    sha = repo.resolve(rev)
    if sha is None:
        require_commits(repo)
        raise ApiError(404, f"No commit found for SHA: {rev}")
    return sha


# -- the App (JWT) -------------------------------------------------------------------------------------
@route("GET", "/app", "apps/get-authenticated", auth="jwt")
def get_app(ctx: Ctx) -> Reply:
    return Reply(200, ctx.fake.app_json())


@route("GET", "/app/installations", "apps/list-installations", auth="jwt", query=PAGINATION)
def list_installations(ctx: Ctx) -> Reply:
    items = [ctx.fake.installation_json(i) for i in ctx.fake.installations.values()]
    page, headers = ctx.page(items)
    return Reply(200, page, headers)


def _installation(ctx: Ctx) -> Installation:
    try:
        inst = ctx.fake.installations.get(int(ctx.arg("installation_id")))
    except ValueError:
        inst = None
    if inst is None:
        raise not_found()
    return inst


@route("GET", "/app/installations/{installation_id}", "apps/get-installation", auth="jwt")
def get_installation(ctx: Ctx) -> Reply:
    return Reply(200, ctx.fake.installation_json(_installation(ctx)))


@route(
    "POST", "/app/installations/{installation_id}/access_tokens", "apps/create-installation-access-token", auth="jwt"
)
def create_token(ctx: Ctx) -> Reply:
    inst = _installation(ctx)
    body = ctx.json()
    fake = ctx.fake
    repos: set[str] | None = None
    if body.get("repositories") or body.get("repository_ids"):
        repos = set()
        covered = {fake.repos[r].name.lower(): r for r in inst.repos}
        by_id = {fake.repos[r].id: r for r in inst.repos}
        for name in body.get("repositories") or []:
            if str(name).lower() not in covered:
                raise ApiError(
                    422,
                    "There is at least one repository that does not exist or is not accessible to the parent installation.",
                )
            repos.add(covered[str(name).lower()])
        for repo_id in body.get("repository_ids") or []:
            if repo_id not in by_id:
                raise ApiError(
                    422,
                    "There is at least one repository that does not exist or is not accessible to the parent installation.",
                )
            repos.add(by_id[repo_id])
    permissions = body.get("permissions")
    if permissions is not None:
        for name, level in permissions.items():
            granted = inst.permissions.get(name)
            if granted is None or (level == "write" and granted != "write"):
                raise ApiError(422, "The permissions requested are not granted to this installation.")
    token = fake.issue_token(inst.id, repos, permissions)
    answer: dict[str, Any] = {
        "token": token.token,
        "expires_at": iso(token.expires_at),
        "permissions": dict(token.permissions),
        "repository_selection": "selected" if repos is not None else inst.repository_selection,
    }
    if repos is not None:
        answer["repositories"] = [repo_json(fake.repos[r]) for r in sorted(repos)]
    return Reply(201, answer)


@route("GET", "/repos/{owner}/{repo}/installation", "apps/get-repo-installation", auth="jwt")
def get_repo_installation(ctx: Ctx) -> Reply:
    inst = ctx.fake.installation_of(ctx.repo)
    if inst is None:
        raise not_found()
    return Reply(200, ctx.fake.installation_json(inst))


# -- installation-wide ----------------------------------------------------------------------------------
@route("GET", "/installation/repositories", "apps/list-repos-accessible-to-installation", query=PAGINATION)
def list_installation_repos(ctx: Ctx) -> Reply:
    assert ctx.installation is not None and ctx.token is not None
    names = sorted(ctx.installation.repos if ctx.token.repos is None else ctx.token.repos)
    items = [repo_json(ctx.fake.repos[n]) for n in names]
    page, headers = ctx.page(items)
    return Reply(
        200,
        {
            "total_count": len(items),
            "repositories": page,
            "repository_selection": ctx.installation.repository_selection,
        },
        headers,
    )


@route("GET", "/rate_limit", "rate-limit/get", bucket="none")
def get_rate_limit(ctx: Ctx) -> Reply:
    fake = ctx.fake

    def view(bucket: dict[str, int], name: str) -> dict[str, Any]:
        return {**bucket, "used": bucket["limit"] - bucket["remaining"], "resource": name}

    core = view(fake.rate_limit, "core")
    return Reply(200, {"resources": {"core": core, "graphql": view(fake.graphql_rate_limit, "graphql")}, "rate": core})


# -- repositories --------------------------------------------------------------------------------------


@route("GET", "/repos/{owner}/{repo}", "repos/get", perm=READ_META)
def get_repo(ctx: Ctx) -> Reply:
    return Reply(200, repo_json(ctx.repo))


@route("GET", "/repos/{owner}/{repo}/git/trees/{tree_sha}", "git/get-tree", perm=READ_CONTENTS, query=("recursive",))
def get_tree(ctx: Ctx) -> Reply:
    repo = ctx.repo
    tree = repo.resolve_tree(ctx.arg("tree_sha"))
    if tree is None:
        raise not_found()
    recursive = "recursive" in ctx.query  # any value, even "0" or "false", lists recursively (GitHub's rule)
    store = repo.store
    listing = store.walk(tree) if recursive else ((e.name, e) for e in store.read_tree(tree))
    entries = []
    limit = ctx.fake.tree_entry_limit
    truncated = False
    for path, entry in listing:
        if len(entries) >= limit:
            truncated = True
            break
        item: dict[str, Any] = {"path": path, "mode": api_mode(entry.mode), "type": entry.kind, "sha": entry.sha}
        if entry.kind == "blob":
            item["size"] = len(store.read_blob(entry.sha))
            item["url"] = api(repo, f"/git/blobs/{entry.sha}")
        elif entry.kind == "tree":
            item["url"] = api(repo, f"/git/trees/{entry.sha}")
        entries.append(item)
    return Reply(200, {"sha": tree, "url": api(repo, f"/git/trees/{tree}"), "tree": entries, "truncated": truncated})


@route("GET", "/repos/{owner}/{repo}/git/blobs/{file_sha}", "git/get-blob", perm=READ_CONTENTS)
def get_blob(ctx: Ctx) -> Reply:
    repo, sha = ctx.repo, ctx.arg("file_sha")
    if repo.store.kind(sha) != "blob":
        raise not_found()
    data = repo.store.read_blob(sha)
    return Reply(
        200,
        {
            "sha": sha,
            "node_id": node_id("Blob", sha),
            "size": len(data),
            "url": api(repo, f"/git/blobs/{sha}"),
            "content": b64_lines(data),
            "encoding": "base64",
        },
    )


@route("GET", "/repos/{owner}/{repo}/git/commits/{commit_sha}", "git/get-commit", perm=READ_CONTENTS)
def get_git_commit(ctx: Ctx) -> Reply:
    repo, sha = ctx.repo, ctx.arg("commit_sha")
    if repo.store.kind(sha) != "commit":
        raise not_found()
    return Reply(200, git_commit_json(repo, sha))


def _touches(repo: FakeRepo, sha: str, path: str) -> bool:
    """Whether a commit changes `path` (git log -- path, with merges kept only if they differ from every parent)."""
    store = repo.store
    commit = store.read_commit(sha)
    mine = store.lookup(commit.tree, path)
    if not commit.parents:
        return mine is not None
    return all(store.lookup(store.read_commit(p).tree, path) != mine for p in commit.parents)


@route(
    "GET", "/repos/{owner}/{repo}/commits", "repos/list-commits", perm=READ_CONTENTS, query=("sha", "path", *PAGINATION)
)
def list_commits(ctx: Ctx) -> Reply:
    repo = ctx.repo
    require_commits(repo)
    start = resolve_or_404(repo, ctx.q("sha") or repo.default_branch)
    shas = repo.store.log([start])
    path = ctx.q("path")
    if path:
        shas = [s for s in shas if _touches(repo, s, path)]
    page, headers = ctx.page(shas)
    return Reply(200, [commit_json(repo, s) for s in page], headers)


@route(
    "GET",
    "/repos/{owner}/{repo}/commits/{ref:.+}/check-runs",
    "checks/list-for-ref",
    perm=READ_CHECKS,
    query=("check_name", "status", "filter", "app_id", *PAGINATION),
)
def list_check_runs_for_ref(ctx: Ctx) -> Reply:
    repo, ref = ctx.repo, ctx.arg("ref")
    sha = repo.resolve(ref)
    if sha is None:
        raise ApiError(422, f"No commit found for SHA: {ref}")
    runs = [r for r in repo.check_runs if r["head_sha"] == sha]
    if ctx.q("check_name") is not None:
        runs = [r for r in runs if r["name"] == ctx.q("check_name")]
    if ctx.q("status") is not None:
        runs = [r for r in runs if r["status"] == ctx.q("status")]
    if ctx.q("app_id") is not None:
        runs = [r for r in runs if str(r["app_id"]) == ctx.q("app_id")]
    which = ctx.q("filter", "latest")
    if which not in ("latest", "all"):
        raise ApiError(422, f"filter must be latest or all, not {which!r}")
    runs = sorted(runs, key=lambda r: -r["id"])
    if which == "latest":
        seen: set[tuple[int, str]] = set()
        latest = []
        for run in runs:
            key = (run["app_id"], run["name"])
            if key not in seen:
                seen.add(key)
                latest.append(run)
        runs = latest
    page, headers = ctx.page(runs)
    return Reply(200, {"total_count": len(runs), "check_runs": [check_run_json(repo, r) for r in page]}, headers)


_UNIMPLEMENTED_COMMIT_TAILS = re.compile(r"/(status|statuses|check-suites|comments|pulls|branches-where-head)$")


@route("GET", "/repos/{owner}/{repo}/commits/{ref:.+}", "repos/get-commit", perm=READ_CONTENTS, query=PAGINATION)
def get_commit(ctx: Ctx) -> Reply:
    repo, ref = ctx.repo, ctx.arg("ref")
    if _UNIMPLEMENTED_COMMIT_TAILS.search(ref):
        raise NotImplementedByFake(ref)
    sha = repo.resolve(ref)
    if sha is None:
        require_commits(repo)
        raise ApiError(422, f"No commit found for SHA: {ref}")
    commit = repo.store.read_commit(sha)
    changes = changes_between(repo, commit.parents[0] if commit.parents else None, sha)
    answer = commit_json(repo, sha)
    additions = sum(c.additions for c in changes)
    deletions = sum(c.deletions for c in changes)
    answer["stats"] = {"total": additions + deletions, "additions": additions, "deletions": deletions}
    page, headers = ctx.page(changes[:COMPARE_FILE_CAP], default=COMPARE_FILE_CAP, cap=COMPARE_FILE_CAP)
    answer["files"] = [file_json(repo, c, sha) for c in page]
    return Reply(200, answer, headers)


def _split_basehead(repo: FakeRepo, basehead: str) -> tuple[str, str]:
    if "..." in basehead:
        base, head = basehead.split("...", 1)
    elif ".." in basehead:  # GitHub reads two dots like three: both compare from the merge base
        base, head = basehead.split("..", 1)
    else:
        raise not_found()

    def local(ref: str) -> str:
        if ":" in ref:
            owner, _, branch = ref.partition(":")
            if owner.lower() != repo.owner.lower():
                raise not_found()  # other repositories of the network (forks) are not modelled
            return branch
        return ref

    return local(base), local(head)


@route(
    "GET", "/repos/{owner}/{repo}/compare/{basehead:.+}", "repos/compare-commits", perm=READ_CONTENTS, query=PAGINATION
)
def compare(ctx: Ctx) -> Reply:
    repo = ctx.repo
    require_commits(repo)
    base_name, head_name = _split_basehead(repo, ctx.arg("basehead"))
    base, head = repo.resolve(base_name), repo.resolve(head_name)
    if base is None or head is None:
        raise not_found()
    store = repo.store
    merge_base = store.merge_base(base, head)
    if merge_base is None:
        raise ApiError(404, f"No common ancestor between {base_name} and {head_name}.")
    ahead = store.log([head], [base])
    behind = store.log([base], [head])
    if not ahead and not behind:
        status = "identical"
    elif not behind:
        status = "ahead"
    elif not ahead:
        status = "behind"
    else:
        status = "diverged"
    chronological = list(reversed(ahead))
    headers: dict[str, str] = {}
    first_page = True
    if "page" in ctx.query or "per_page" in ctx.query:
        listed, headers = ctx.page(chronological)
        first_page = int(ctx.q("page") or 1) <= 1
    else:
        listed = chronological[-COMPARE_COMMIT_CAP:]  # the newest 250, the last one the head
    files = changes_between(repo, merge_base, head)[:COMPARE_FILE_CAP] if first_page else []
    basehead = ctx.arg("basehead")
    answer = {
        "url": api(repo, f"/compare/{basehead}"),
        "html_url": web_url(repo, f"/compare/{basehead}"),
        "permalink_url": web_url(repo, f"/compare/{repo.owner}:{base}...{repo.owner}:{head}"),
        "diff_url": web_url(repo, f"/compare/{basehead}.diff"),
        "patch_url": web_url(repo, f"/compare/{basehead}.patch"),
        "base_commit": commit_json(repo, base),
        "merge_base_commit": commit_json(repo, merge_base),
        "status": status,
        "ahead_by": len(ahead),
        "behind_by": len(behind),
        "total_commits": len(ahead),
        "commits": [commit_json(repo, s) for s in listed],
        "files": [file_json(repo, c, head) for c in files],
    }
    return Reply(200, answer, headers)


@route("GET", "/repos/{owner}/{repo}/contents", "repos/get-content", perm=READ_CONTENTS, query=("ref",))
@route("GET", "/repos/{owner}/{repo}/contents/{path:.*}", "repos/get-content", perm=READ_CONTENTS, query=("ref",))
def get_contents(ctx: Ctx) -> Reply:
    repo = ctx.repo
    require_commits(repo)
    ref = ctx.q("ref") or repo.default_branch
    sha = repo.resolve(ref)
    if sha is None:
        raise ApiError(404, f"No commit found for the ref {ref}")
    path = ctx.request.match_info.get("path", "").strip("/")
    store = repo.store
    tree = store.read_commit(sha).tree
    found = store.lookup(tree, path) if path else (MODE_TREE, tree)
    if found is None:
        raise not_found()
    mode, obj = found

    def entry_json(entry_path: str, entry_mode: str, entry_sha: str) -> dict[str, Any]:
        kind = {MODE_TREE: "dir", MODE_SYMLINK: "symlink", MODE_GITLINK: "submodule"}.get(entry_mode, "file")
        size = len(store.read_blob(entry_sha)) if entry_mode in BLOB_MODES else 0
        return {
            "type": kind,
            "name": entry_path.rsplit("/", 1)[-1],
            "path": entry_path,
            "sha": entry_sha,
            "size": size,
            "url": api(repo, f"/contents/{entry_path}?ref={ref}"),
            "html_url": web_url(repo, f"/blob/{ref}/{entry_path}"),
            "git_url": api(repo, f"/git/{'trees' if entry_mode == MODE_TREE else 'blobs'}/{entry_sha}"),
            "download_url": web_url(repo, f"/raw/{ref}/{entry_path}") if kind == "file" else None,
        }

    if mode == MODE_TREE:
        listing = [entry_json(f"{path}/{e.name}" if path else e.name, e.mode, e.sha) for e in store.read_tree(obj)]
        return Reply(200, listing)
    item = entry_json(path, mode, obj)
    if mode == MODE_SYMLINK:
        item["target"] = store.read_blob(obj).decode("utf-8", "replace")
    elif mode == MODE_GITLINK:
        item["submodule_git_url"] = None
    else:
        data = store.read_blob(obj)
        if len(data) > CONTENTS_MAX_BYTES:
            raise ApiError(
                403,
                "This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, "
                "but you can use the Git Data API to request blobs up to 100 MB in size.",
                [{"resource": "Blob", "field": "data", "code": "too_large"}],
            )
        item["content"] = b64_lines(data)
        item["encoding"] = "base64"
    return Reply(200, item)


# -- git data: blobs, trees, commits, refs --------------------------------------------------------------
@route("POST", "/repos/{owner}/{repo}/git/blobs", "git/create-blob", perm=WRITE_CONTENTS)
def create_blob(ctx: Ctx) -> Reply:
    body = ctx.json()
    content = body.get("content")
    encoding = body.get("encoding", "utf-8")
    if not isinstance(content, str):
        raise validation_failed("Blob", {"field": "content", "code": "missing_field"})
    if encoding in ("utf-8", "utf8"):
        data = content.encode()
    elif encoding == "base64":
        try:
            data = base64.b64decode(content, validate=False)
        except (binascii.Error, ValueError) as exc:
            raise ApiError(422, "content is not valid Base64") from exc
    else:
        raise ApiError(422, f"encoding must be utf-8 or base64, not {encoding!r}")
    sha = ctx.repo.store.put_blob(data)
    return Reply(201, {"sha": sha, "url": api(ctx.repo, f"/git/blobs/{sha}")})


_MODE_TYPES = {"100644": "blob", "100755": "blob", "120000": "blob", "040000": "tree", "160000": "commit"}


def _valid_path(path: Any) -> bool:
    if not isinstance(path, str) or not path or path.startswith("/") or path.endswith("/"):
        return False
    return all(part not in ("", ".", "..", ".git") for part in path.split("/"))


@route("POST", "/repos/{owner}/{repo}/git/trees", "git/create-tree", perm=WRITE_CONTENTS)
def create_tree(ctx: Ctx) -> Reply:
    repo, store = ctx.repo, ctx.repo.store
    body = ctx.json()
    entries = body.get("tree")
    if not isinstance(entries, list):
        raise validation_failed("Tree", {"field": "tree", "code": "missing_field"})
    base_tree = body.get("base_tree")
    if base_tree is not None and store.kind(base_tree) != "tree":
        raise ApiError(422, f"base_tree {base_tree} is not a valid tree")
    flat = store.flatten(base_tree)
    for index, entry in enumerate(entries):
        where = f"tree.{index}"
        if not isinstance(entry, dict):
            raise ApiError(422, f"{where} must be an object")
        path, mode, kind = entry.get("path"), entry.get("mode"), entry.get("type")
        if not _valid_path(path):
            raise ApiError(422, f"{where}.path {path!r} is not a valid path")
        mode = "040000" if mode == "40000" else mode
        if mode not in _MODE_TYPES:
            raise ApiError(422, f"{where}.mode {mode!r} is not one of 100644, 100755, 040000, 160000, 120000")
        if kind is not None and kind != _MODE_TYPES[mode]:
            raise ApiError(422, f"{where}: type {kind!r} does not go with mode {mode}")
        kind = _MODE_TYPES[mode]
        has_sha, has_content = "sha" in entry, "content" in entry
        if has_sha and has_content:
            raise ApiError(422, f"{where}: give either sha or content, not both")
        if not has_sha and not has_content:
            raise ApiError(422, f"{where}: either sha or content is required")
        prefix = path + "/"
        for other in [p for p in flat if p == path or p.startswith(prefix)]:
            del flat[other]
        parts = path.split("/")
        for k in range(1, len(parts)):
            flat.pop("/".join(parts[:k]), None)
        if has_content:
            if kind != "blob" or not isinstance(entry["content"], str):
                raise ApiError(422, f"{where}: content is only for blobs, as a string")
            flat[path] = (mode, store.put_blob(entry["content"].encode()))
            continue
        sha = entry["sha"]
        if sha is None:
            continue  # sha: null deletes the path
        if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{40}", sha):
            raise ApiError(422, f"{where}.sha {sha!r} is not a sha")
        if kind == "commit":
            flat[path] = (MODE_GITLINK, sha)
        elif store.kind(sha) != kind:
            raise ApiError(422, f"{where}.sha {sha} is not a valid {kind}")
        elif kind == "tree":
            for sub, value in store.flatten(sha).items():
                flat[f"{path}/{sub}"] = value
        else:
            flat[path] = (mode, sha)
    tree = store.build(flat)
    listing = [
        {
            "path": e.name,
            "mode": api_mode(e.mode),
            "type": e.kind,
            "sha": e.sha,
            **({"size": len(store.read_blob(e.sha))} if e.kind == "blob" else {}),
            **({"url": api(repo, f"/git/{e.kind}s/{e.sha}")} if e.kind != "commit" else {}),
        }
        for e in store.read_tree(tree)
    ]
    return Reply(201, {"sha": tree, "url": api(repo, f"/git/trees/{tree}"), "tree": listing, "truncated": False})


def _person(value: Any, field_name: str, now: int) -> Signature:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str) or not isinstance(value.get("email"), str):
        raise validation_failed("Commit", {"field": field_name, "code": "invalid"})
    if value.get("date"):
        try:
            return Signature.from_iso(value["name"], value["email"], value["date"])
        except ValueError as exc:
            raise validation_failed("Commit", {"field": f"{field_name}.date", "code": "invalid"}) from exc
    return Signature(value["name"], value["email"], now)


@route("POST", "/repos/{owner}/{repo}/git/commits", "git/create-commit", perm=WRITE_CONTENTS)
def create_commit(ctx: Ctx) -> Reply:
    repo, store, fake = ctx.repo, ctx.repo.store, ctx.fake
    body = ctx.json()
    message, tree, parents = body.get("message"), body.get("tree"), body.get("parents", [])
    if not isinstance(message, str):
        raise validation_failed("Commit", {"field": "message", "code": "missing_field"})
    if not isinstance(tree, str) or store.kind(tree) != "tree":
        raise ApiError(422, f"Tree SHA does not exist: {tree}")
    if not isinstance(parents, list) or any(not isinstance(p, str) or store.kind(p) != "commit" for p in parents):
        raise ApiError(422, "Parent SHA does not exist or is not a commit object")
    now = fake.next_commit_time()
    if body.get("author") is None and body.get("committer") is None:
        author = committer = Signature(fake.bot_login, fake.bot_email, now)
        signed = True  # GitHub signs the App's own commits
    else:
        author = _person(body.get("author") or body.get("committer"), "author", now)
        committer = _person(body["committer"], "committer", now) if body.get("committer") else author
        signed = False
    sha = store.put_commit(tree, parents, author, committer, message)
    if signed:
        repo.signed_commits.add(sha)
    return Reply(201, git_commit_json(repo, sha))


def ref_json(repo: FakeRepo, name: str) -> dict[str, Any]:
    sha = repo.refs[name]
    return {
        "ref": name,
        "node_id": node_id("Ref", f"{repo.id}:{name}"),
        "url": api(repo, f"/git/{name}"),
        "object": {"sha": sha, "type": "commit", "url": api(repo, f"/git/commits/{sha}")},
    }


@route("GET", "/repos/{owner}/{repo}/git/ref/{ref:.+}", "git/get-ref", perm=READ_CONTENTS)
def get_ref(ctx: Ctx) -> Reply:
    repo = ctx.repo
    require_commits(repo)
    name = "refs/" + ctx.arg("ref")
    if name not in repo.refs:
        raise not_found()
    return Reply(200, ref_json(repo, name))


@route(
    "GET",
    "/repos/{owner}/{repo}/git/matching-refs/{ref:.*}",
    "git/list-matching-refs",
    perm=READ_CONTENTS,
    query=PAGINATION,
)
def matching_refs(ctx: Ctx) -> Reply:
    repo = ctx.repo
    prefix = "refs/" + ctx.arg("ref")
    items = [ref_json(repo, n) for n in sorted(repo.refs) if n.startswith(prefix)]
    page, headers = ctx.page(items)
    return Reply(200, page, headers)


@route("POST", "/repos/{owner}/{repo}/git/refs", "git/create-ref", perm=WRITE_CONTENTS)
def create_ref(ctx: Ctx) -> Reply:
    repo = ctx.repo
    body = ctx.json()
    name, sha = body.get("ref"), body.get("sha")
    if not isinstance(name, str) or not name.startswith("refs/") or name.count("/") < 2 or name.endswith("/"):
        raise ApiError(422, f"{name} is not a valid ref name.")
    if name in repo.refs:
        raise ApiError(422, "Reference already exists")
    if not isinstance(sha, str) or repo.store.kind(sha) != "commit":
        raise ApiError(422, "Object does not exist")
    repo.set_ref(name, sha)
    return Reply(201, ref_json(repo, name))


@route("PATCH", "/repos/{owner}/{repo}/git/refs/{ref:.+}", "git/update-ref", perm=WRITE_CONTENTS)
def update_ref(ctx: Ctx) -> Reply:
    repo = ctx.repo
    body = ctx.json()
    name = "refs/" + ctx.arg("ref")  # "heads/x", as documented
    sha, force = body.get("sha"), bool(body.get("force", False))
    if name not in repo.refs:
        raise ApiError(422, "Reference does not exist")
    if not isinstance(sha, str) or repo.store.kind(sha) != "commit":
        raise ApiError(422, "Object does not exist")
    if not force and not repo.store.is_ancestor(repo.refs[name], sha):
        raise ApiError(422, "Update is not a fast forward")
    repo.set_ref(name, sha)
    return Reply(200, ref_json(repo, name))


@route("DELETE", "/repos/{owner}/{repo}/git/refs/{ref:.+}", "git/delete-ref", perm=WRITE_CONTENTS)
def delete_ref(ctx: Ctx) -> Reply:
    repo = ctx.repo
    name = "refs/" + ctx.arg("ref")  # "heads/x", as documented
    if name not in repo.refs:
        raise ApiError(422, "Reference does not exist")
    repo.delete_ref(name)
    return Reply(204)


# -- check runs ----------------------------------------------------------------------------------------


def check_run_json(repo: FakeRepo, run: dict[str, Any]) -> dict[str, Any]:
    fake = repo.fake
    output = run.get("output") or {}
    app = fake.app_json() if run["app_id"] == fake.app_id else {"id": run["app_id"], "slug": f"app-{run['app_id']}"}
    key = (run["app_id"], run["head_sha"])
    if key not in repo.check_suites:
        repo.check_suites[key] = fake.next_id()
    suite = repo.check_suites[key]
    pulls = [
        {
            "url": api(repo, f"/pulls/{p['number']}"),
            "id": p["id"],
            "number": p["number"],
            "head": {"ref": p["head"]["ref"], "sha": p["head"]["sha"], "repo": _mini_repo(repo)},
            "base": {"ref": p["base"]["ref"], "sha": p["base"]["sha"], "repo": _mini_repo(repo)},
        }
        for p in repo.pulls
        if p["state"] == "open" and p["head"]["sha"] == run["head_sha"]
    ]
    return {
        "id": run["id"],
        "node_id": node_id("CheckRun", run["id"]),
        "head_sha": run["head_sha"],
        "external_id": run.get("external_id"),
        "url": api(repo, f"/check-runs/{run['id']}"),
        "html_url": web_url(repo, f"/runs/{run['id']}"),
        "details_url": run.get("details_url"),
        "status": run["status"],
        "conclusion": run.get("conclusion"),
        "started_at": run.get("started_at"),
        "completed_at": run.get("completed_at"),
        "output": {
            "title": output.get("title"),
            "summary": output.get("summary"),
            "text": output.get("text"),
            "annotations_count": len(run["annotations"]),
            "annotations_url": api(repo, f"/check-runs/{run['id']}/annotations"),
        },
        "name": run["name"],
        "check_suite": {"id": suite},
        "app": app,
        "pull_requests": pulls,
    }


def _mini_repo(repo: FakeRepo) -> dict[str, Any]:
    return {"id": repo.id, "url": api(repo), "name": repo.name}


def _check_errors(ctx: Ctx, errors: list[dict[str, str]]) -> ApiError:
    ctx.fake.violation(
        f"{ctx.request.method} {ctx.request.path}: check run rejected: " + "; ".join(e["message"] for e in errors)
    )
    return ApiError(422, "Validation Failed", errors, docs=f"{DOCS}/checks/runs")


@route("POST", "/repos/{owner}/{repo}/check-runs", "checks/create", perm=WRITE_CHECKS)
def create_check_run(ctx: Ctx) -> Reply:
    repo, fake = ctx.repo, ctx.fake
    body = ctx.body
    errors = checks.validate(body, create=True)
    if errors:
        raise _check_errors(ctx, errors)
    if repo.store.kind(body["head_sha"]) != "commit":
        raise validation_failed(
            "CheckRun",
            {"field": "head_sha", "code": "invalid", "message": f"No commit found for SHA: {body['head_sha']}"},
        )
    now = iso(fake.now())
    run: dict[str, Any] = {
        "id": fake.next_id(),
        "name": body["name"],
        "head_sha": body["head_sha"],
        "status": "queued",
        "conclusion": None,
        "started_at": now,
        "completed_at": None,
        "details_url": None,
        "external_id": None,
        "output": {"title": None, "summary": None, "text": None},
        "actions": [],
        "app_id": fake.app_id,
        "annotations": [],
        "history": [],
    }
    checks.apply(run, body, now)
    run["history"].append({"method": "POST", "body": body, "at": now})
    repo.check_runs.append(run)
    return Reply(201, check_run_json(repo, run))


def _run(ctx: Ctx) -> dict[str, Any]:
    try:
        wanted = int(ctx.arg("check_run_id"))
    except ValueError:
        raise not_found() from None
    run = next((r for r in ctx.repo.check_runs if r["id"] == wanted), None)
    if run is None:
        raise not_found()
    return run


@route("GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}", "checks/get", perm=READ_CHECKS)
def get_check_run(ctx: Ctx) -> Reply:
    return Reply(200, check_run_json(ctx.repo, _run(ctx)))


@route("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}", "checks/update", perm=WRITE_CHECKS)
def update_check_run(ctx: Ctx) -> Reply:
    run = _run(ctx)
    if run["app_id"] != ctx.fake.app_id:
        raise ApiError(403, "Resource not accessible by integration")
    errors = checks.validate(ctx.body, create=False, current=run)
    if errors:
        raise _check_errors(ctx, errors)
    now = iso(ctx.fake.now())
    checks.apply(run, ctx.body, now)
    run["history"].append({"method": "PATCH", "body": ctx.body, "at": now})
    return Reply(200, check_run_json(ctx.repo, run))


@route(
    "GET",
    "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations",
    "checks/list-annotations",
    perm=READ_CHECKS,
    query=PAGINATION,
)
def list_annotations(ctx: Ctx) -> Reply:
    run = _run(ctx)
    items = [
        {
            "path": a["path"],
            "blob_href": web_url(ctx.repo, f"/blob/{run['head_sha']}/{a['path']}"),
            "start_line": a["start_line"],
            "end_line": a["end_line"],
            "start_column": a.get("start_column"),
            "end_column": a.get("end_column"),
            "annotation_level": a["annotation_level"],
            "title": a.get("title"),
            "message": a["message"],
            "raw_details": a.get("raw_details"),
        }
        for a in run["annotations"]
    ]
    page, headers = ctx.page(items)
    return Reply(200, page, headers)


# -- pull requests -------------------------------------------------------------------------------------


def _side_json(repo: FakeRepo, side: dict[str, Any]) -> dict[str, Any]:
    return {
        "label": f"{repo.owner}:{side['ref']}",
        "ref": side["ref"],
        "sha": side["sha"],
        "user": repo.fake.user_json(repo.owner),
        "repo": repo_json(repo),
    }


def pull_json(repo: FakeRepo, pr: dict[str, Any], *, full: bool = True) -> dict[str, Any]:
    fake = repo.fake
    number = pr["number"]
    answer: dict[str, Any] = {
        "url": api(repo, f"/pulls/{number}"),
        "id": pr["id"],
        "node_id": node_id("PullRequest", pr["id"]),
        "html_url": web_url(repo, f"/pull/{number}"),
        "diff_url": web_url(repo, f"/pull/{number}.diff"),
        "patch_url": web_url(repo, f"/pull/{number}.patch"),
        "issue_url": api(repo, f"/issues/{number}"),
        "commits_url": api(repo, f"/pulls/{number}/commits"),
        "comments_url": api(repo, f"/issues/{number}/comments"),
        "statuses_url": api(repo, f"/statuses/{pr['head']['sha']}"),
        "number": number,
        "state": pr["state"],
        "locked": False,
        "title": pr["title"],
        "user": fake.user_json(pr["user"]["login"]),
        "body": pr["body"],
        "labels": [],
        "milestone": None,
        "created_at": pr["created_at"],
        "updated_at": pr["updated_at"],
        "closed_at": pr["closed_at"],
        "merged_at": pr["merged_at"],
        "merge_commit_sha": pr["merge_commit_sha"],
        "assignees": [],
        "requested_reviewers": [],
        "head": _side_json(repo, pr["head"]),
        "base": _side_json(repo, pr["base"]),
        "author_association": "NONE",
        "auto_merge": None,
        "draft": pr["draft"],
    }
    if full:  # only the single-PR endpoints carry these (GitHub's pull-request vs pull-request-simple)
        store = repo.store
        head, base = pr["head"]["sha"], pr["base"]["sha"]
        merge_base = store.merge_base(base, head)
        changes = changes_between(repo, merge_base, head) if merge_base else []
        answer.update(
            merged=pr["merged"],
            mergeable=None,
            mergeable_state="unknown",
            merged_by=fake.user_json(fake.bot_login) if pr["merged"] else None,
            comments=sum(1 for c in repo.comments if c["issue_number"] == number),
            review_comments=0,
            maintainer_can_modify=pr["maintainer_can_modify"],
            commits=len(store.log([head], [base])),
            additions=sum(c.additions for c in changes),
            deletions=sum(c.deletions for c in changes),
            changed_files=len(changes),
        )
    return answer


def _pull(ctx: Ctx) -> dict[str, Any]:
    try:
        pr = ctx.repo.pull(int(ctx.arg("pull_number")))
    except ValueError:
        pr = None
    if pr is None:
        raise not_found()
    return pr


@route(
    "GET",
    "/repos/{owner}/{repo}/pulls",
    "pulls/list",
    perm=READ_PULLS,
    query=("state", "head", "base", "sort", "direction", *PAGINATION),
)
def list_pulls(ctx: Ctx) -> Reply:
    repo = ctx.repo
    state = ctx.q("state", "open")
    if state not in ("open", "closed", "all"):
        raise validation_failed("PullRequest", {"field": "state", "code": "invalid"})
    pulls = [p for p in repo.pulls if state == "all" or p["state"] == state]
    head = ctx.q("head")
    if head is not None:
        if ":" in head:
            owner, _, branch = head.partition(":")
            pulls = [p for p in pulls if owner.lower() == repo.owner.lower() and p["head"]["ref"] == branch]
        else:  # GitHub silently ignores a head filter without the owner: almost certainly a bug in the caller
            ctx.fake.violation(
                f"GET {ctx.request.path}: head={head!r} lacks the 'owner:' prefix, so GitHub ignores the filter"
            )
    if ctx.q("base") is not None:
        pulls = [p for p in pulls if p["base"]["ref"] == ctx.q("base")]
    sort = ctx.q("sort", "created")
    if sort not in ("created", "updated", "popularity", "long-running"):
        raise validation_failed("PullRequest", {"field": "sort", "code": "invalid"})
    key = "updated_at" if sort == "updated" else "number"
    pulls = sorted(pulls, key=lambda p: (p[key], p["number"]), reverse=ctx.q("direction", "desc") == "desc")
    page, headers = ctx.page(pulls)
    return Reply(200, [pull_json(repo, p, full=False) for p in page], headers)


@route("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", "pulls/get", perm=READ_PULLS)
def get_pull(ctx: Ctx) -> Reply:
    return Reply(200, pull_json(ctx.repo, _pull(ctx)))


def _duplicate(repo: FakeRepo, head: str, base: str, number: int | None = None) -> ApiError | None:
    for pr in repo.pulls:
        if pr["state"] == "open" and pr["head"]["ref"] == head and pr["base"]["ref"] == base and pr["number"] != number:
            return validation_failed(
                "PullRequest", {"code": "custom", "message": f"A pull request already exists for {repo.owner}:{head}."}
            )
    return None


def _body_too_long(body: Any) -> ApiError | None:
    if isinstance(body, str) and len(body) > MAX_BODY:
        return validation_failed(
            "Issue",
            {"field": "body", "code": "custom", "message": f"body is too long (maximum is {MAX_BODY} characters)"},
        )
    return None


@route("POST", "/repos/{owner}/{repo}/pulls", "pulls/create", perm=WRITE_PULLS)
def create_pull(ctx: Ctx) -> Reply:
    repo, fake = ctx.repo, ctx.fake
    body = ctx.json()
    for unsupported in ("issue", "head_repo"):
        if unsupported in body:
            raise NotImplementedByFake(f"pulls/create with {unsupported}")
    title, head, base = body.get("title"), body.get("head"), body.get("base")
    missing = [k for k, v in (("title", title), ("head", head), ("base", base)) if not isinstance(v, str) or not v]
    if missing:
        raise validation_failed("PullRequest", *({"field": k, "code": "missing_field"} for k in missing))
    assert isinstance(head, str) and isinstance(base, str)
    if ":" in head:
        owner, _, head = head.partition(":")
        if owner.lower() != repo.owner.lower():
            raise validation_failed("PullRequest", {"field": "head", "code": "invalid"})
    if repo.ref_name(base) not in repo.refs:
        raise validation_failed("PullRequest", {"field": "base", "code": "invalid"})
    if repo.ref_name(head) not in repo.refs:
        raise validation_failed("PullRequest", {"field": "head", "code": "invalid"})
    if (too_long := _body_too_long(body.get("body"))) is not None:
        raise too_long
    if (duplicate := _duplicate(repo, head, base)) is not None:
        raise duplicate
    head_sha, base_sha = repo.ref(head), repo.ref(base)
    if not repo.store.log([head_sha], [base_sha]):
        raise validation_failed("PullRequest", {"code": "custom", "message": f"No commits between {base} and {head}"})
    now = iso(fake.now())
    pr = {
        "id": fake.next_id(),
        "number": repo.next_number(),
        "state": "open",
        "title": title,
        "body": body.get("body"),
        "user": {"login": fake.bot_login, "type": "Bot"},
        "head": {"ref": head, "sha": head_sha},
        "base": {"ref": base, "sha": base_sha},
        "draft": bool(body.get("draft", False)),
        "merged": False,
        "merged_at": None,
        "merge_commit_sha": None,
        "maintainer_can_modify": bool(body.get("maintainer_can_modify", False)),
        "created_at": now,
        "updated_at": now,
        "closed_at": None,
    }
    repo.pulls.append(pr)
    return Reply(201, pull_json(repo, pr))


@route("PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}", "pulls/update", perm=WRITE_PULLS)
def update_pull(ctx: Ctx) -> Reply:
    repo = ctx.repo
    pr = _pull(ctx)
    body = ctx.json()
    if "title" in body and (not isinstance(body["title"], str) or not body["title"]):
        raise validation_failed("PullRequest", {"field": "title", "code": "missing_field"})
    if (too_long := _body_too_long(body.get("body"))) is not None:
        raise too_long
    base = body.get("base", pr["base"]["ref"])
    if repo.ref_name(base) not in repo.refs:
        raise validation_failed("PullRequest", {"field": "base", "code": "invalid"})
    state = body.get("state", pr["state"])
    if state not in ("open", "closed"):
        raise validation_failed("PullRequest", {"field": "state", "code": "invalid"})
    if state == "open" and pr["state"] == "closed":
        if pr["merged"] or repo.ref_name(pr["head"]["ref"]) not in repo.refs:
            raise validation_failed(
                "PullRequest", {"field": "state", "code": "custom", "message": "state cannot be changed."}
            )
        if (duplicate := _duplicate(repo, pr["head"]["ref"], base, pr["number"])) is not None:
            raise duplicate
    now = iso(ctx.fake.now())
    for key in ("title", "body", "maintainer_can_modify"):
        if key in body:
            pr[key] = body[key]
    if base != pr["base"]["ref"]:
        pr["base"] = {"ref": base, "sha": repo.ref(base)}
    if state != pr["state"]:
        pr["state"] = state
        pr["closed_at"] = now if state == "closed" else None
        if state == "open":
            pr["head"]["sha"] = repo.ref(pr["head"]["ref"])
    pr["updated_at"] = now
    return Reply(200, pull_json(repo, pr))


@route("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files", "pulls/list-files", perm=READ_PULLS, query=PAGINATION)
def list_pull_files(ctx: Ctx) -> Reply:
    repo = ctx.repo
    pr = _pull(ctx)
    merge_base = repo.store.merge_base(pr["base"]["sha"], pr["head"]["sha"])
    changes = changes_between(repo, merge_base, pr["head"]["sha"])[:PULL_FILES_CAP] if merge_base else []
    page, headers = ctx.page(changes)
    return Reply(200, [file_json(repo, c, pr["head"]["sha"]) for c in page], headers)


@route(
    "GET", "/repos/{owner}/{repo}/pulls/{pull_number}/commits", "pulls/list-commits", perm=READ_PULLS, query=PAGINATION
)
def list_pull_commits(ctx: Ctx) -> Reply:
    repo = ctx.repo
    pr = _pull(ctx)
    shas = list(reversed(repo.store.log([pr["head"]["sha"]], [pr["base"]["sha"]])))[:PULL_COMMITS_CAP]
    page, headers = ctx.page(shas)
    return Reply(200, [commit_json(repo, s) for s in page], headers)


# -- issue comments ------------------------------------------------------------------------------------


def comment_json(repo: FakeRepo, comment: dict[str, Any]) -> dict[str, Any]:
    fake = repo.fake
    number = comment["issue_number"]
    return {
        "id": comment["id"],
        "node_id": node_id("IssueComment", comment["id"]),
        "url": api(repo, f"/issues/comments/{comment['id']}"),
        "html_url": web_url(repo, f"/pull/{number}#issuecomment-{comment['id']}"),
        "issue_url": api(repo, f"/issues/{number}"),
        "body": comment["body"],
        "user": fake.user_json(comment["user"]["login"]),
        "created_at": comment["created_at"],
        "updated_at": comment["updated_at"],
        "author_association": "NONE",
        "performed_via_github_app": fake.app_json() if comment["user"]["login"] == fake.bot_login else None,
    }


def _issue_number(ctx: Ctx) -> int:
    try:
        number = int(ctx.arg("issue_number"))
    except ValueError:
        raise not_found() from None
    if ctx.repo.pull(number) is None:
        raise not_found()
    return number


def _comment_body(ctx: Ctx) -> str:
    body = ctx.json().get("body")
    if not isinstance(body, str):
        raise validation_failed("IssueComment", {"field": "body", "code": "missing_field"})
    if len(body) > MAX_BODY:
        raise validation_failed(
            "IssueComment",
            {
                "field": "data",
                "code": "unprocessable",
                "message": f"Body is too long (maximum is {MAX_BODY} characters)",
            },
        )
    return body


@route("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "issues/create-comment", perm=COMMENT_PERMS)
def create_comment(ctx: Ctx) -> Reply:
    number = _issue_number(ctx)
    body = _comment_body(ctx)
    now = iso(ctx.fake.now())
    comment = {
        "id": ctx.fake.next_id(),
        "issue_number": number,
        "body": body,
        "user": {"login": ctx.fake.bot_login, "type": "Bot"},
        "created_at": now,
        "updated_at": now,
    }
    ctx.repo.comments.append(comment)
    return Reply(201, comment_json(ctx.repo, comment))


@route(
    "GET",
    "/repos/{owner}/{repo}/issues/{issue_number}/comments",
    "issues/list-comments",
    perm=COMMENT_READ,
    query=PAGINATION,
)
def list_comments(ctx: Ctx) -> Reply:
    number = _issue_number(ctx)
    items = [comment_json(ctx.repo, c) for c in ctx.repo.comments if c["issue_number"] == number]
    page, headers = ctx.page(items)
    return Reply(200, page, headers)


def _comment(ctx: Ctx) -> dict[str, Any]:
    try:
        wanted = int(ctx.arg("comment_id"))
    except ValueError:
        raise not_found() from None
    comment = next((c for c in ctx.repo.comments if c["id"] == wanted), None)
    if comment is None:
        raise not_found()
    return comment


@route("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "issues/update-comment", perm=COMMENT_PERMS)
def update_comment(ctx: Ctx) -> Reply:
    comment = _comment(ctx)
    comment["body"] = _comment_body(ctx)
    comment["updated_at"] = iso(ctx.fake.now())
    return Reply(200, comment_json(ctx.repo, comment))


@route("DELETE", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "issues/delete-comment", perm=COMMENT_PERMS)
def delete_comment(ctx: Ctx) -> Reply:
    ctx.repo.comments.remove(_comment(ctx))
    return Reply(204)
