"""The fake GitHub's state: the App and its key, installations and tokens, repositories with real git objects,
check runs, pull requests and comments, plus the knobs tests turn (faults, rate limits, the request log).

Tests build state directly (`create_repo`, `FakeRepo.commit`) and then let the code under test reach it over
HTTP through `server.create_app`. Nothing here knows about HTTP.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import itertools
import re
import secrets
import string
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from .gitobjects import (
    MODE_EXECUTABLE,
    MODE_FILE,
    MODE_GITLINK,
    MODE_SYMLINK,
    Flat,
    ObjectStore,
    Signature,
)

DEFAULT_PERMISSIONS = {
    "checks": "write",
    "contents": "write",
    "issues": "write",
    "metadata": "read",
    "pull_requests": "write",
}
COMMIT_EPOCH = 1_700_000_000  # commits made through FakeRepo get deterministic dates from here on
_TOKEN_ALPHABET = string.ascii_letters + string.digits


@functools.cache
def _shared_key_pem() -> str:
    """One RSA key per test process: generating a 2048-bit key per test would dominate the suite's time."""
    return _new_key_pem()


def _new_key_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def iso(epoch: float) -> str:
    """An epoch as GitHub writes timestamps: `2024-01-02T03:04:05Z`."""
    return datetime.fromtimestamp(int(epoch), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def node_id(kind: str, number: int | str) -> str:
    return base64.b64encode(f"{kind}:{number}".encode()).decode().rstrip("=")


class RequestRecord(NamedTuple):
    """One request the fake answered."""

    method: str
    path: str
    query: dict[str, list[str]]
    status: int
    operation_id: str | None
    body: Any = None  # the request's JSON body, as sent (None without one)


@dataclass
class Installation:
    id: int
    account_login: str
    account_type: str
    permissions: dict[str, str]
    repository_selection: str
    repos: set[str] = field(default_factory=set)  # lower-case full names
    created_at: float = 0.0


@dataclass
class Token:
    token: str
    installation_id: int
    expires_at: float
    permissions: dict[str, str]
    repos: set[str] | None  # None: every repository of the installation


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    status: int
    headers: dict[str, str]
    body: Any
    times: int


class FakeGitHub:
    """The whole fake: one GitHub App, its installations, and the repositories they cover."""

    def __init__(
        self,
        app_id: int = 1234,
        app_slug: str = "wikiwarden",
        webhook_secret: str = "fake-webhook-secret",
        token_ttl: int = 3600,
        *,
        client_id: str | None = None,
        app_name: str | None = None,
        app_owner: str = "wikiwarden-dev",
        private_key_pem: str | None = None,
        fresh_key: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.app_id = app_id
        self.app_slug = app_slug
        self.app_name = app_name or app_slug.capitalize()
        self.app_owner = app_owner
        self.client_id = client_id or f"Iv1.{hashlib.sha1(str(app_id).encode()).hexdigest()[:16]}"
        self.webhook_secret = webhook_secret
        self.token_ttl = token_ttl
        self.clock = clock
        self.private_key_pem = private_key_pem or (_new_key_pem() if fresh_key else _shared_key_pem())
        self.public_key = serialization.load_pem_private_key(self.private_key_pem.encode(), None).public_key()
        self.base_url = "http://fake-github.invalid"
        self.web_url = "https://github.com"

        self.installations: dict[int, Installation] = {}
        self.repos: dict[str, FakeRepo] = {}
        self.tokens: dict[str, Token] = {}
        self.token_mints = 0
        now = int(self.clock())
        self.rate_limit: dict[str, int] = {"limit": 5000, "remaining": 5000, "reset": now + 3600}
        self.graphql_rate_limit: dict[str, int] = {"limit": 5000, "remaining": 5000, "reset": now + 3600}
        self.app_rate_limit: dict[str, int] = {"limit": 5000, "remaining": 5000, "reset": now + 3600}
        self.requests: list[RequestRecord] = []
        self.violations: list[str] = []
        self.faults: list[Fault] = []
        self.delays: list[Fault] = []  # requests to hold before answering (body: the seconds)
        self.held = 0  # requests being held right now
        self.users_by_email: dict[str, str] = {}
        self.validate_requests = True  # check requests against fakegithub.openapi when that module exists
        self.tree_entry_limit = 100_000  # GitHub truncates recursive tree listings past this many entries
        self.commit_clock = COMMIT_EPOCH
        self._ids = itertools.count(1000)
        self._user_ids: dict[str, int] = {}
        self._user_types: dict[str, str] = {}
        self.bot_user_id = 41_000_000 + app_id
        self._user_ids[self.bot_login.lower()] = self.bot_user_id

    # -- identities ------------------------------------------------------------------------------------
    @property
    def bot_login(self) -> str:
        return f"{self.app_slug}[bot]"

    @property
    def bot_email(self) -> str:
        return f"{self.bot_user_id}+{self.app_slug}[bot]@users.noreply.github.com"

    def next_id(self) -> int:
        return next(self._ids)

    def now(self) -> float:
        return self.clock()

    def next_commit_time(self) -> int:
        self.commit_clock += 1
        return self.commit_clock

    def add_user(self, login: str, email: str | None = None, type: str = "User") -> None:
        """Declare a user: commits by `email` then show `login` as their author, as GitHub maps them."""
        self._user_types[login.lower()] = type
        if email:
            self.users_by_email[email.lower()] = login

    def user_json(self, login: str) -> dict[str, Any]:
        key = login.lower()
        if key not in self._user_ids:
            self._user_ids[key] = 500_000 + len(self._user_ids)
        kind = self._user_types.get(key) or ("Bot" if login.endswith("[bot]") else "User")
        return {
            "login": login,
            "id": self._user_ids[key],
            "node_id": node_id(kind, self._user_ids[key]),
            "type": kind,
            "site_admin": False,
            "url": f"{self.base_url}/users/{login}",
            "html_url": f"{self.web_url}/{login.removesuffix('[bot]')}",
            "avatar_url": f"https://avatars.githubusercontent.com/u/{self._user_ids[key]}?v=4",
        }

    def user_for_email(self, email: str) -> dict[str, Any] | None:
        if email.lower() == self.bot_email.lower():
            return self.user_json(self.bot_login)
        login = self.users_by_email.get(email.lower())
        return self.user_json(login) if login else None

    def app_json(self) -> dict[str, Any]:
        return {
            "id": self.app_id,
            "slug": self.app_slug,
            "node_id": node_id("App", self.app_id),
            "client_id": self.client_id,
            "name": self.app_name,
            "description": "",
            "owner": self.user_json(self.app_owner),
            "external_url": f"{self.web_url}/{self.app_owner}",
            "html_url": f"{self.web_url}/apps/{self.app_slug}",
            "created_at": iso(COMMIT_EPOCH),
            "updated_at": iso(COMMIT_EPOCH),
            "permissions": dict(DEFAULT_PERMISSIONS),
            "events": ["check_run", "check_suite", "pull_request", "push"],
            "installations_count": len(self.installations),
        }

    # -- installations and tokens ----------------------------------------------------------------------
    def add_installation(
        self,
        installation_id: int,
        account_login: str,
        *,
        account_type: str = "Organization",
        permissions: Mapping[str, str] | None = None,
        repository_selection: str = "selected",
    ) -> None:
        self.installations[installation_id] = Installation(
            installation_id,
            account_login,
            account_type,
            dict(DEFAULT_PERMISSIONS if permissions is None else permissions),
            repository_selection,
            created_at=self.now(),
        )
        self._user_types.setdefault(account_login.lower(), account_type)

    def installation_json(self, inst: Installation) -> dict[str, Any]:
        return {
            "id": inst.id,
            "account": self.user_json(inst.account_login),
            "app_id": self.app_id,
            "app_slug": self.app_slug,
            "client_id": self.client_id,
            "target_id": self.user_json(inst.account_login)["id"],
            "target_type": inst.account_type,
            "permissions": dict(inst.permissions),
            "events": ["check_run", "check_suite", "pull_request", "push"],
            "repository_selection": inst.repository_selection,
            "access_tokens_url": f"{self.base_url}/app/installations/{inst.id}/access_tokens",
            "repositories_url": f"{self.base_url}/installation/repositories",
            "html_url": f"{self.web_url}/organizations/{inst.account_login}/settings/installations/{inst.id}",
            "created_at": iso(inst.created_at),
            "updated_at": iso(inst.created_at),
            "single_file_name": None,
            "suspended_at": None,
            "suspended_by": None,
        }

    def issue_token(
        self,
        installation_id: int,
        repos: Iterable[str] | None = None,
        permissions: Mapping[str, str] | None = None,
    ) -> Token:
        """Mint an installation token (what POST /app/installations/{id}/access_tokens does)."""
        inst = self.installations[installation_id]
        value = "ghs_" + "".join(secrets.choice(_TOKEN_ALPHABET) for _ in range(36))
        token = Token(
            value,
            installation_id,
            self.now() + self.token_ttl,
            dict(inst.permissions if permissions is None else permissions),
            None if repos is None else {r.lower() for r in repos},
        )
        self.tokens[value] = token
        self.token_mints += 1
        return token

    def expire_tokens(self, installation_id: int | None = None) -> None:
        """Expire every token (of one installation): the next request using one gets 401 Bad credentials."""
        for token in self.tokens.values():
            if installation_id is None or token.installation_id == installation_id:
                token.expires_at = min(token.expires_at, self.now() - 1)

    def sign_webhook(self, body: bytes) -> str:
        """The `X-Hub-Signature-256` value GitHub would send with `body`."""
        return "sha256=" + hmac.new(self.webhook_secret.encode(), body, hashlib.sha256).hexdigest()

    # -- repositories ----------------------------------------------------------------------------------
    def create_repo(
        self, owner: str, name: str, installation_id: int, default_branch: str = "main", private: bool = False
    ) -> FakeRepo:
        full = f"{owner}/{name}"
        if full.lower() in self.repos:
            raise ValueError(f"{full} exists")
        if installation_id not in self.installations:
            raise KeyError(f"no installation {installation_id}; call add_installation first")
        repo = FakeRepo(self, owner, name, self.next_id(), installation_id, default_branch, private)
        self.repos[full.lower()] = repo
        self.installations[installation_id].repos.add(full.lower())
        return repo

    def repo(self, full_name: str) -> FakeRepo:
        return self.repos[full_name.lower()]

    def get_repo(self, owner: str, name: str) -> FakeRepo | None:
        """The repository `owner/name` (case-insensitive), or None; what `fakegithub.graphql` looks up."""
        return self.find_repo(owner, name)

    def find_repo(self, owner: str, name: str) -> FakeRepo | None:
        return self.repos.get(f"{owner}/{name}".lower())

    def installation_of(self, repo: FakeRepo) -> Installation | None:
        return self.installations.get(repo.installation_id)

    # -- faults ----------------------------------------------------------------------------------------
    def fail_next(
        self,
        method: str,
        path_regex: str,
        status: int,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
        times: int = 1,
    ) -> None:
        """Answer the next `times` requests whose method and path match with this response instead.

        `method` is case-insensitive ("*" matches any); `path_regex` is searched (re.search) in the request
        path. Without `body`, a GitHub-like message for the status is sent. Given headers override the
        computed ones (so `x-ratelimit-remaining: 0` makes a primary rate-limit response).
        """
        self.faults.append(Fault(method.upper(), re.compile(path_regex), status, dict(headers or {}), body, times))

    def delay_next(self, method: str, path_regex: str, seconds: float, times: int = 1) -> None:
        """Hold the answer to the next `times` matching requests for `seconds` (then answer normally): a slow
        GitHub, or a job to kill in the middle."""
        self.delays.append(Fault(method.upper(), re.compile(path_regex), 0, {}, seconds, times))

    def take_delay(self, method: str, path: str) -> float:
        for delay in self.delays:
            if delay.method in ("*", method.upper()) and delay.pattern.search(path):
                delay.times -= 1
                if delay.times <= 0:
                    self.delays.remove(delay)
                return float(delay.body)
        return 0.0

    def take_fault(self, method: str, path: str) -> Fault | None:
        for fault in self.faults:
            if fault.method in ("*", method.upper()) and fault.pattern.search(path):
                fault.times -= 1
                if fault.times <= 0:
                    self.faults.remove(fault)
                return fault
        return None

    def violation(self, text: str) -> None:
        self.violations.append(text)


class FakeRepo:
    """A repository: a git object store, refs, and the check runs, pulls and comments made on it."""

    def __init__(
        self,
        fake: FakeGitHub,
        owner: str,
        name: str,
        repo_id: int,
        installation_id: int,
        default_branch: str,
        private: bool,
    ) -> None:
        self.fake = fake
        self.owner = owner
        self.name = name
        self.id = repo_id
        self.installation_id = installation_id
        self.default_branch = default_branch
        self.private = private
        self.store = ObjectStore()
        self.refs: dict[str, str] = {}  # "refs/heads/main" -> commit sha
        self.check_runs: list[dict[str, Any]] = []
        self.pulls: list[dict[str, Any]] = []
        self.comments: list[dict[str, Any]] = []
        self.check_suites: dict[tuple[int, str], int] = {}  # (app id, head sha) -> check suite id
        self.signed_commits: set[str] = set()  # commits the App made without an author (GitHub signs them)
        self.created_at = self.pushed_at = fake.now()
        self._numbers = itertools.count(1)  # issues and pull requests share numbers

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def next_number(self) -> int:
        return next(self._numbers)

    # -- refs ------------------------------------------------------------------------------------------
    @staticmethod
    def ref_name(branch: str) -> str:
        return branch if branch.startswith("refs/") else f"refs/heads/{branch}"

    def ref(self, branch: str) -> str:
        return self.refs[self.ref_name(branch)]

    def set_ref(self, branch: str, sha: str) -> None:
        """Point a branch (or a full `refs/...` name) at a commit, creating it or moving it (force)."""
        if self.store.kind(sha) != "commit":
            raise KeyError(f"no commit {sha} in {self.full_name}")
        name = self.ref_name(branch)
        self.refs[name] = sha
        self.ref_moved(name)

    def delete_ref(self, branch: str) -> None:
        name = self.ref_name(branch)
        del self.refs[name]
        self.ref_moved(name)

    def ref_moved(self, name: str) -> None:
        """Keep open pull requests in step with their branches; a deleted head branch closes its PRs."""
        self.pushed_at = self.fake.now()
        if not name.startswith("refs/heads/"):
            return
        branch = name.removeprefix("refs/heads/")
        sha = self.refs.get(name)
        for pr in self.pulls:
            if pr["state"] != "open":
                continue
            if pr["head"]["ref"] == branch:
                if sha is None:
                    pr["state"] = "closed"
                    pr["closed_at"] = pr["updated_at"] = iso(self.fake.now())
                else:
                    pr["head"]["sha"] = sha
            if pr["base"]["ref"] == branch and sha is not None:
                pr["base"]["sha"] = sha

    def branches(self) -> dict[str, str]:
        return {k.removeprefix("refs/heads/"): v for k, v in self.refs.items() if k.startswith("refs/heads/")}

    def resolve(self, rev: str) -> str | None:
        """A commit sha for a full sha, a branch or tag name, `heads/x`, `tags/x` or `refs/...` (as git does)."""
        if re.fullmatch(r"[0-9a-f]{40}", rev):
            return rev if self.store.kind(rev) == "commit" else None
        for name in (rev, f"refs/{rev}", f"refs/heads/{rev}", f"refs/tags/{rev}"):
            if name.startswith("refs/") and name in self.refs:
                return self.refs[name]
        if re.fullmatch(r"[0-9a-f]{7,39}", rev):
            found = [s for s, (k, _) in self.store.objects.items() if k == "commit" and s.startswith(rev)]
            if len(found) == 1:
                return found[0]
        return None

    def resolve_tree(self, rev: str) -> str | None:
        """A tree sha for a tree sha or anything `resolve` accepts (git's tree-ish)."""
        if re.fullmatch(r"[0-9a-f]{40}", rev) and self.store.kind(rev) == "tree":
            return rev
        commit = self.resolve(rev)
        return self.store.read_commit(commit).tree if commit else None

    # -- content ---------------------------------------------------------------------------------------
    def entries_at(self, rev: str) -> Flat:
        """path -> (mode, sha) of every file, symlink and gitlink at a commit, branch or tree."""
        tree = self.resolve_tree(rev)
        if tree is None:
            raise KeyError(f"unknown revision {rev!r} in {self.full_name}")
        return self.store.flatten(tree)

    def files_at(self, rev: str) -> dict[str, bytes]:
        """path -> bytes of every file and symlink (its target) at a commit, branch or tree."""
        return {
            path: self.store.read_blob(sha)
            for path, (mode, sha) in self.entries_at(rev).items()
            if mode != MODE_GITLINK
        }

    def blob(self, sha: str) -> bytes | None:
        """A blob's bytes by id, or None (for anything else or an unknown id)."""
        return self.store.read_blob(sha) if self.store.kind(sha) == "blob" else None

    def object_at(self, expression: str) -> bytes | None:
        """The blob named by a `rev:path` expression (`main:README.md`, `HEAD:docs/a.md`), or None."""
        rev, sep, path = expression.partition(":")
        if not sep:
            return None
        commit = self.resolve(self.default_branch if rev in ("", "HEAD") else rev)
        if commit is None:
            return None
        found = self.store.lookup(self.store.read_commit(commit).tree, path)
        return self.blob(found[1]) if found and found[0] != MODE_GITLINK else None

    def _apply(
        self,
        flat: Flat,
        files: Mapping[str, bytes | str | None],
        symlinks: Mapping[str, str] | None,
        executable: Iterable[str],
        submodules: Mapping[str, str] | None,
    ) -> Flat:
        flat = dict(flat)

        def clear(path: str) -> None:
            flat.pop(path, None)
            prefix = path + "/"
            for other in [p for p in flat if p.startswith(prefix)]:
                del flat[other]
            parts = path.split("/")
            for k in range(1, len(parts)):
                flat.pop("/".join(parts[:k]), None)  # a file where a directory must go

        executable = set(executable)
        for raw_path, content in files.items():
            path = raw_path.strip("/")
            if content is None:
                clear(path)
                continue
            data = content.encode() if isinstance(content, str) else bytes(content)
            old_mode = flat.get(path, (MODE_FILE, ""))[0]
            mode = MODE_EXECUTABLE if path in executable or old_mode == MODE_EXECUTABLE else MODE_FILE
            clear(path)
            flat[path] = (mode, self.store.put_blob(data))
        for raw_path, target in (symlinks or {}).items():
            path = raw_path.strip("/")
            clear(path)
            flat[path] = (MODE_SYMLINK, self.store.put_blob(target.encode()))
        for raw_path, sha in (submodules or {}).items():
            path = raw_path.strip("/")
            clear(path)
            flat[path] = (MODE_GITLINK, sha)
        return flat

    def _signature(self, who: tuple[str, str] | Signature, timestamp: int | None) -> Signature:
        if isinstance(who, Signature):
            return who
        return Signature(who[0], who[1], timestamp if timestamp is not None else self.fake.next_commit_time())

    def commit_tree(
        self,
        files: Mapping[str, bytes | str | None],
        parents: Iterable[str] = (),
        message: str = "change",
        *,
        symlinks: Mapping[str, str] | None = None,
        executable: Iterable[str] = (),
        submodules: Mapping[str, str] | None = None,
        author: tuple[str, str] | Signature = ("Test", "t@example.com"),
        committer: tuple[str, str] | Signature | None = None,
        timestamp: int | None = None,
    ) -> str:
        """A commit whose tree is the first parent's with `files` applied (None deletes), no branch moved.

        The message gets a final newline as `git commit` writes it; the API shows it without.
        """
        parents = list(parents)
        base = self.store.read_commit(parents[0]).tree if parents else None
        flat = self._apply(self.store.flatten(base), files, symlinks, executable, submodules)
        tree = self.store.build(flat)
        author_sig = self._signature(author, timestamp)
        committer_sig = self._signature(committer, author_sig.timestamp) if committer else author_sig
        text = message if message.endswith("\n") else message + "\n"
        return self.store.put_commit(tree, parents, author_sig, committer_sig, text)

    def commit(
        self,
        files: Mapping[str, bytes | str | None],
        message: str = "change",
        branch: str | None = None,
        symlinks: Mapping[str, str] | None = None,
        author: tuple[str, str] | Signature = ("Test", "t@example.com"),
        *,
        executable: Iterable[str] = (),
        submodules: Mapping[str, str] | None = None,
        committer: tuple[str, str] | Signature | None = None,
        start_from: str | None = None,
        orphan: bool = False,
        timestamp: int | None = None,
    ) -> str:
        """Commit `files` (None deletes a path) on top of `branch` and move the branch; returns the sha.

        `branch` defaults to the repository's default branch. A branch that does not exist yet starts from `start_from` (a branch or sha), else from the default
        branch when that exists, else (or with `orphan=True`) as a root commit.
        """
        branch = branch or self.default_branch
        name = self.ref_name(branch)
        if name in self.refs:
            parents = [self.refs[name]]
        elif orphan:
            parents = []
        elif start_from is not None:
            start = self.resolve(start_from)
            if start is None:
                raise KeyError(f"unknown revision {start_from!r}")
            parents = [start]
        elif self.ref_name(self.default_branch) in self.refs:
            parents = [self.refs[self.ref_name(self.default_branch)]]
        else:
            parents = []
        sha = self.commit_tree(
            files,
            parents,
            message,
            symlinks=symlinks,
            executable=executable,
            submodules=submodules,
            author=author,
            committer=committer,
            timestamp=timestamp,
        )
        self.set_ref(branch, sha)
        return sha

    # -- pull requests, check runs (for seeding state that "someone else" made) -------------------------
    def open_pull(
        self, head: str, base: str | None = None, title: str = "A change", body: str | None = "", user: str = "octocat"
    ) -> dict[str, Any]:
        """Open a pull request as a human would (no API call, no validation beyond the branches existing)."""
        base = base or self.default_branch
        now = iso(self.fake.now())
        pr = {
            "id": self.fake.next_id(),
            "number": self.next_number(),
            "state": "open",
            "title": title,
            "body": body,
            "user": {"login": user, "type": "Bot" if user.endswith("[bot]") else "User"},
            "head": {"ref": head, "sha": self.ref(head)},
            "base": {"ref": base, "sha": self.ref(base)},
            "draft": False,
            "merged": False,
            "merged_at": None,
            "merge_commit_sha": None,
            "maintainer_can_modify": False,
            "created_at": now,
            "updated_at": now,
            "closed_at": None,
        }
        self.pulls.append(pr)
        return pr

    def pull(self, number: int) -> dict[str, Any] | None:
        return next((p for p in self.pulls if p["number"] == number), None)

    def merge_pull(self, number: int, message: str | None = None) -> str:
        """Merge a pull request with a merge commit (as the web UI's default), closing it."""
        pr = self.pull(number)
        if pr is None or pr["state"] != "open":
            raise ValueError(f"pull request {number} is not open")
        head, base = self.ref(pr["head"]["ref"]), self.ref(pr["base"]["ref"])
        tree = self.store.read_commit(head).tree
        if not self.store.is_ancestor(base, head):
            merged = self.store.flatten(self.store.read_commit(base).tree)
            merge_base = self.store.merge_base(base, head)
            before = self.store.flatten(self.store.read_commit(merge_base).tree if merge_base else None)
            after = self.store.flatten(tree)
            for path in set(before) | set(after):
                if before.get(path) != after.get(path):
                    if path in after:
                        merged[path] = after[path]
                    else:
                        merged.pop(path, None)
            tree = self.store.build(merged)
        sig = Signature("GitHub", "noreply@github.com", self.fake.next_commit_time())
        text = message or f"Merge pull request #{number} from {self.owner}/{pr['head']['ref']}\n\n{pr['title']}"
        sha = self.store.put_commit(tree, [base, head], sig, sig, text)
        self.set_ref(pr["base"]["ref"], sha)
        now = iso(self.fake.now())
        pr.update(state="closed", merged=True, merged_at=now, closed_at=now, updated_at=now, merge_commit_sha=sha)
        return sha

    def add_check_run(self, name: str, head_sha: str, app_id: int | None = None, **fields: Any) -> dict[str, Any]:
        """Seed a check run (e.g. another App's) without going through the API."""
        run = {
            "id": self.fake.next_id(),
            "name": name,
            "head_sha": head_sha,
            "status": "completed" if fields.get("conclusion") else "queued",
            "conclusion": None,
            "started_at": iso(self.fake.now()),
            "completed_at": None,
            "details_url": None,
            "external_id": None,
            "output": {"title": None, "summary": None, "text": None},
            "actions": [],
            "app_id": self.fake.app_id if app_id is None else app_id,
            "annotations": [],
            "history": [],
        }
        run.update(fields)
        self.check_runs.append(run)
        return run
