"""The fake GitHub's REST contract: GitHub's OpenAPI subset and the request validator built on it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fakegithub.openapi import OPERATIONS, validate_request

SUBSET = Path(__file__).parents[1] / "data" / "github" / "openapi-subset.json"
SHA = "a" * 40

# Every operation the bot may call: (id, method, path template).
LISTED = [
    ("apps/get-authenticated", "GET", "/app"),
    ("apps/create-installation-access-token", "POST", "/app/installations/{installation_id}/access_tokens"),
    ("apps/get-repo-installation", "GET", "/repos/{owner}/{repo}/installation"),
    ("repos/get", "GET", "/repos/{owner}/{repo}"),
    ("git/get-tree", "GET", "/repos/{owner}/{repo}/git/trees/{tree_sha}"),
    ("git/get-blob", "GET", "/repos/{owner}/{repo}/git/blobs/{file_sha}"),
    ("git/get-commit", "GET", "/repos/{owner}/{repo}/git/commits/{commit_sha}"),
    ("repos/list-commits", "GET", "/repos/{owner}/{repo}/commits"),
    ("repos/compare-commits", "GET", "/repos/{owner}/{repo}/compare/{basehead}"),
    ("checks/create", "POST", "/repos/{owner}/{repo}/check-runs"),
    ("checks/update", "PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("checks/get", "GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("checks/list-for-ref", "GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs"),
    ("pulls/list", "GET", "/repos/{owner}/{repo}/pulls"),
    ("pulls/create", "POST", "/repos/{owner}/{repo}/pulls"),
    ("pulls/get", "GET", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("pulls/update", "PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("git/create-blob", "POST", "/repos/{owner}/{repo}/git/blobs"),
    ("git/create-tree", "POST", "/repos/{owner}/{repo}/git/trees"),
    ("git/create-commit", "POST", "/repos/{owner}/{repo}/git/commits"),
    ("git/get-ref", "GET", "/repos/{owner}/{repo}/git/ref/{ref}"),
    ("git/create-ref", "POST", "/repos/{owner}/{repo}/git/refs"),
    ("git/update-ref", "PATCH", "/repos/{owner}/{repo}/git/refs/{ref}"),
    ("issues/create-comment", "POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
]

# One request the bot could really send, per operation: (method, path, query, body).
ALLOWED = {
    "apps/get-authenticated": ("GET", "/app", {}, None),
    "apps/create-installation-access-token": (
        "POST",
        "/app/installations/42/access_tokens",
        {},
        {"repositories": ["docs"], "permissions": {"contents": "write", "checks": "write", "pull_requests": "write"}},
    ),
    "apps/get-repo-installation": ("GET", "/repos/octo/docs/installation", {}, None),
    "repos/get": ("GET", "/repos/octo/docs", {}, None),
    "git/get-tree": ("GET", f"/repos/octo/docs/git/trees/{SHA}", {"recursive": ["1"]}, None),
    "git/get-blob": ("GET", f"/repos/octo/docs/git/blobs/{SHA}", {}, None),
    "git/get-commit": ("GET", f"/repos/octo/docs/git/commits/{SHA}", {}, None),
    "repos/list-commits": (
        "GET",
        "/repos/octo/docs/commits",
        {
            "sha": ["main"],
            "path": ["wiki/index.md"],
            "since": ["2024-05-01T00:00:00Z"],
            "per_page": ["100"],
            "page": ["2"],
        },
        None,
    ),
    "repos/compare-commits": ("GET", f"/repos/octo/docs/compare/{SHA}...{'b' * 40}", {"per_page": ["100"]}, None),
    "checks/create": (
        "POST",
        "/repos/octo/docs/check-runs",
        {},
        {
            "name": "wikiwarden",
            "head_sha": SHA,
            "status": "in_progress",
            "started_at": "2024-05-01T12:00:00Z",
            "output": {"title": "Checking the wiki", "summary": "3 pages"},
        },
    ),
    "checks/update": (
        "PATCH",
        "/repos/octo/docs/check-runs/7",
        {},
        {
            "status": "completed",
            "conclusion": "failure",
            "completed_at": "2024-05-01T12:01:00+00:00",
            "output": {
                "title": "1 stale claim",
                "summary": "wiki/a.md",
                "annotations": [
                    {
                        "path": "wiki/a.md",
                        "start_line": 3,
                        "end_line": 3,
                        "annotation_level": "warning",
                        "message": "stale",
                    }
                ],
            },
            "actions": [{"label": "Fix", "description": "Open a pull request", "identifier": "fix"}],
        },
    ),
    "checks/get": ("GET", "/repos/octo/docs/check-runs/7", {}, None),
    "checks/list-for-ref": (
        "GET",
        f"/repos/octo/docs/commits/{SHA}/check-runs",
        {"check_name": ["wikiwarden"], "filter": ["latest"], "status": ["completed"], "app_id": ["9"]},
        None,
    ),
    "pulls/list": (
        "GET",
        "/repos/octo/docs/pulls",
        {"state": ["open"], "head": ["octo:wikiwarden/fix"], "base": ["main"], "direction": ["desc"]},
        None,
    ),
    "pulls/create": (
        "POST",
        "/repos/octo/docs/pulls",
        {},
        {"title": "Wiki fixes", "head": "wikiwarden/fix", "base": "main", "body": "…", "maintainer_can_modify": True},
    ),
    "pulls/get": ("GET", "/repos/octo/docs/pulls/12", {}, None),
    "pulls/update": ("PATCH", "/repos/octo/docs/pulls/12", {}, {"title": "Wiki fixes (2)", "state": "closed"}),
    "git/create-blob": ("POST", "/repos/octo/docs/git/blobs", {}, {"content": "aGk=", "encoding": "base64"}),
    "git/create-tree": (
        "POST",
        "/repos/octo/docs/git/trees",
        {},
        {
            "base_tree": SHA,
            "tree": [
                {"path": "wiki/a.md", "mode": "100644", "type": "blob", "sha": "c" * 40},
                {"path": "wiki/old.md", "mode": "100644", "type": "blob", "sha": None},  # nullable: deletes
                {"path": "wiki/b.md", "mode": "100644", "type": "blob", "content": "text"},
            ],
        },
    ),
    "git/create-commit": (
        "POST",
        "/repos/octo/docs/git/commits",
        {},
        {
            "message": "Fix the wiki",
            "tree": "d" * 40,
            "parents": [SHA],
            "author": {"name": "W", "email": "w@x.invalid"},
        },
    ),
    "git/get-ref": ("GET", "/repos/octo/docs/git/ref/heads/main", {}, None),
    "git/create-ref": ("POST", "/repos/octo/docs/git/refs", {}, {"ref": "refs/heads/wikiwarden/fix", "sha": SHA}),
    "git/update-ref": ("PATCH", "/repos/octo/docs/git/refs/heads/wikiwarden/fix", {}, {"sha": SHA, "force": True}),
    "issues/create-comment": ("POST", "/repos/octo/docs/issues/12/comments", {}, {"body": "Done."}),
}


def load_subset() -> dict:
    return json.loads(SUBSET.read_text(encoding="utf-8"))


def test_the_subset_holds_every_listed_operation_and_nothing_else() -> None:
    subset = load_subset()
    found = sorted(
        (operation["operationId"], method.upper(), template)
        for template, item in subset["paths"].items()
        for method, operation in item.items()
        if method != "parameters"
    )
    assert found == sorted(LISTED)
    assert sorted(OPERATIONS) == sorted(op for op, _, _ in LISTED)
    assert re.fullmatch(r"@octokit/openapi@\d+\.\d+\.\d+", subset["x-source"])
    assert subset["openapi"].startswith("3.0")  # so the validator reads schemas as draft 4 with `nullable`


def test_the_subset_is_self_contained() -> None:
    subset = load_subset()
    text = json.dumps(subset)
    for ref in set(re.findall(r'"\$ref": "([^"]+)"', text)):
        node = subset
        for token in ref.removeprefix("#/").split("/"):
            node = node[token.replace("~1", "/").replace("~0", "~")]


def test_every_operation_has_an_allowed_example() -> None:
    assert sorted(ALLOWED) == sorted(OPERATIONS)


@pytest.mark.parametrize("operation_id", sorted(ALLOWED))
def test_an_allowed_request_passes(operation_id: str) -> None:
    method, path, query, body = ALLOWED[operation_id]
    assert validate_request(method, path, query, body) == (operation_id, None)


@pytest.mark.parametrize(
    ("method", "path", "operation_id"),
    [
        ("GET", "/repos/octo/docs/git/ref/heads/feature/x", "git/get-ref"),
        ("GET", "/repos/octo/docs/git/ref/heads%2Ffeature%2Fx", "git/get-ref"),  # as uritemplate encodes it
        ("GET", "/repos/octo/docs/git/ref/tags/v1.2", "git/get-ref"),
        ("PATCH", "/repos/octo/docs/git/refs/heads/feature/x", "git/update-ref"),
        ("GET", "/repos/octo/docs/compare/main...feature/x", "repos/compare-commits"),
        ("GET", "/repos/octo/docs/compare/octo:main...fork:feature", "repos/compare-commits"),
        ("GET", "/repos/octo/docs/commits/feature/x/check-runs", "checks/list-for-ref"),
        ("GET", "/repos/octo/docs/git/trees/main", "git/get-tree"),
    ],
)
def test_multi_segment_parameters(method: str, path: str, operation_id: str) -> None:
    body = {"sha": SHA} if method == "PATCH" else None
    assert validate_request(method, path, {}, body) == (operation_id, None)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/repos/octo/docs/wiki"),
        ("GET", "/repos/octo/docs/contents/README.md"),
        ("DELETE", "/repos/octo/docs"),  # a known path, not with this method
        ("PUT", "/repos/octo/docs/pulls/12"),
        ("GET", "/repos/octo/docs/"),
        ("GET", "/repos/octo/docs/git/refs/heads/main"),  # git/get-ref is /git/ref/, singular
        ("GET", "/app/installations/42/access_tokens"),
    ],
)
def test_an_unknown_route_has_no_operation(method: str, path: str) -> None:
    assert validate_request(method, path, {}, None) == (None, f"no such operation: {method} {path}")


@pytest.mark.parametrize(
    ("method", "path", "query", "body", "operation_id", "why"),
    [
        # Query parameters the operation does not declare, or values that do not fit.
        ("GET", "/repos/octo/docs/commits", {"ref": ["main"]}, None, "repos/list-commits", "'ref' is not declared"),
        (
            "GET",
            f"/repos/octo/docs/git/trees/{SHA}",
            {"recursive": ["1"], "depth": ["2"]},
            None,
            "git/get-tree",
            "'depth'",
        ),
        ("GET", "/repos/octo/docs/pulls", {"state": ["merged"]}, None, "pulls/list", "'merged' is not one of"),
        (
            "GET",
            f"/repos/octo/docs/commits/{SHA}/check-runs",
            {"status": ["done"]},
            None,
            "checks/list-for-ref",
            "'done'",
        ),
        ("GET", "/repos/octo/docs/commits", {"per_page": ["many"]}, None, "repos/list-commits", "integer"),
        ("GET", "/repos/octo/docs/pulls", {"state": ["open", "closed"]}, None, "pulls/list", "given 2 times"),
        # Path parameters whose schema is an integer.
        ("GET", "/repos/octo/docs/pulls/twelve", {}, None, "pulls/get", "pull_number"),
        ("PATCH", "/repos/octo/docs/check-runs/latest", {}, {}, "checks/update", "check_run_id"),
        # Bodies.
        (
            "POST",
            "/repos/octo/docs/check-runs",
            {},
            {"name": "w", "head_sha": SHA, "status": "done"},
            "checks/create",
            "'done' is not one of",
        ),
        ("PATCH", "/repos/octo/docs/check-runs/7", {}, {"status": "done"}, "checks/update", "'done'"),
        (
            "PATCH",
            "/repos/octo/docs/check-runs/7",
            {},
            {"conclusion": "passed"},
            "checks/update",
            "'passed' is not one of",
        ),
        (
            "POST",
            "/repos/octo/docs/check-runs",
            {},
            {"name": "wikiwarden"},
            "checks/create",
            "'head_sha' is a required property",
        ),
        (
            "POST",
            "/repos/octo/docs/git/refs",
            {},
            {"ref": "refs/heads/x"},
            "git/create-ref",
            "'sha' is a required property",
        ),
        (
            "POST",
            "/repos/octo/docs/issues/12/comments",
            {},
            {"text": "hi"},
            "issues/create-comment",
            "'body' is a required property",
        ),
        (
            "POST",
            "/repos/octo/docs/pulls",
            {},
            {"title": "t", "head": "x"},
            "pulls/create",
            "'base' is a required property",
        ),
        (
            "POST",
            "/repos/octo/docs/git/trees",
            {},
            {"tree": [{"path": "a", "mode": "644", "type": "blob", "sha": SHA}]},
            "git/create-tree",
            "'644' is not one of",
        ),
        (
            "POST",
            "/repos/octo/docs/git/trees",
            {},
            {"tree": [{"path": "a", "mode": "100644", "type": "blob", "sha": 7}]},
            "git/create-tree",
            "7 is not of type",
        ),
        (
            "POST",
            "/repos/octo/docs/check-runs",
            {},
            {"name": "w", "head_sha": SHA, "started_at": "yesterday"},
            "checks/create",
            "date-time",
        ),
        (
            "POST",
            "/repos/octo/docs/check-runs",
            {},
            {"name": "w", "head_sha": SHA, "output": {"title": "t"}},
            "checks/create",
            "'summary' is a required property",
        ),
        (
            "PATCH",
            "/repos/octo/docs/git/refs/heads/main",
            {},
            {"sha": SHA, "force": "yes"},
            "git/update-ref",
            "'yes' is not of type 'boolean'",
        ),
        (
            "POST",
            "/app/installations/42/access_tokens",
            {},
            {"permissions": {"contents": "admin"}},
            "apps/create-installation-access-token",
            "'admin'",
        ),
        # A body where none is taken, none where one is required.
        ("GET", "/repos/octo/docs", {}, {"name": "docs"}, "repos/get", "takes no request body"),
        ("POST", "/repos/octo/docs/check-runs", {}, None, "checks/create", "requires a JSON request body"),
    ],
)
def test_a_bad_request_is_refused(
    method: str, path: str, query: dict, body: object, operation_id: str, why: str
) -> None:
    found, problem = validate_request(method, path, query, body)
    assert found == operation_id
    assert problem is not None
    assert why in problem


def test_a_completed_check_run_needs_a_conclusion() -> None:
    """checks/update says so with anyOf: status completed requires conclusion."""
    found, problem = validate_request("PATCH", "/repos/octo/docs/check-runs/7", {}, {"status": "completed"})
    assert found == "checks/update"
    assert problem is not None and "'conclusion' is a required property" in problem
    ok = {"status": "completed", "conclusion": "success"}
    assert validate_request("PATCH", "/repos/octo/docs/check-runs/7", {}, ok) == ("checks/update", None)


@pytest.mark.parametrize("value", ["1", "true", "0", "yes"])
def test_recursive_is_a_string_in_githubs_description(value: str) -> None:
    """git/get-tree declares `recursive` as a string: GitHub recurses for any value, so any value passes."""
    path = f"/repos/octo/docs/git/trees/{SHA}"
    assert validate_request("GET", path, {"recursive": [value]}, None) == ("git/get-tree", None)


def test_optional_bodies_may_be_left_out() -> None:
    assert validate_request("POST", "/app/installations/42/access_tokens", {}, None)[1] is None
    assert validate_request("PATCH", "/repos/octo/docs/pulls/12", {}, None)[1] is None


def _forbids_extra_properties(node: object) -> bool:
    if isinstance(node, dict):
        if node.get("additionalProperties") is False:
            return True
        return any(_forbids_extra_properties(value) for value in node.values())
    if isinstance(node, list):
        return any(_forbids_extra_properties(value) for value in node)
    return False


def test_extra_body_fields_pass_because_no_request_schema_forbids_them() -> None:
    """GitHub's description never says additionalProperties: false for these bodies (GitHub ignores unknown
    fields), so the validator must not refuse them either. If a new description starts forbidding them,
    this test fails and a refusal test belongs here instead."""
    subset = load_subset()
    bodies = [
        operation["requestBody"]
        for item in subset["paths"].values()
        for method, operation in item.items()
        if method != "parameters" and "requestBody" in operation
    ]
    seen: set[str] = set()
    pending = [ref for body in bodies for ref in re.findall(r'"\$ref": "([^"]+)"', json.dumps(body))]
    while pending:  # the components the bodies reference, and theirs
        ref = pending.pop()
        if ref not in seen:
            seen.add(ref)
            _, section, name = ref.removeprefix("#/").split("/")
            component = subset["components"][section][name]
            bodies.append(component)
            pending.extend(re.findall(r'"\$ref": "([^"]+)"', json.dumps(component)))
    assert "#/components/schemas/app-permissions" in seen
    assert not any(_forbids_extra_properties(body) for body in bodies)
    extra = {"body": "Done.", "reactions": 3}
    assert validate_request("POST", "/repos/octo/docs/issues/12/comments", {}, extra) == ("issues/create-comment", None)
