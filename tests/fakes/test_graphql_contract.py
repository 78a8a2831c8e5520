"""The fake GitHub's GraphQL endpoint: validation against GitHub's schema, and blob lookups by oid and expression."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from fakegithub.graphql import execute

SCHEMA = Path(__file__).parents[1] / "data" / "github" / "schema.graphql"
INSTALLATION = 7
BLOB_FIELDS = "oid byteSize isBinary isTruncated text"


def git_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


class StandInRepo:
    """What the endpoint needs of a repository: blobs by oid, and `<commit>:<path>` lookups."""

    def __init__(self, files: dict[str, bytes], commit: str, installation_id: int = INSTALLATION) -> None:
        self.blobs = {git_oid(data): data for data in files.values()}
        self.paths = {f"{commit}:{path}": data for path, data in files.items()}
        self.installation_id = installation_id

    def blob(self, oid: str) -> bytes | None:
        return self.blobs.get(oid)

    def object_at(self, expression: str) -> bytes | None:
        return self.paths.get(expression)


class StandInState:
    def __init__(self, repos: dict[tuple[str, str], StandInRepo]) -> None:
        self.repos = repos
        self.violations: list[str] = []

    def get_repo(self, owner: str, name: str) -> StandInRepo | None:
        return self.repos.get((owner.lower(), name.lower()))


COMMIT = "c" * 40
BIG = ("x" * 511_999 + "é" + "tail").encode()  # é straddles the 512,000-byte limit
FILES = {
    "README.md": b"# Docs\n",
    "wiki/index.md": "Caf\u00e9 \u2014 na\u00efve\n".encode(),
    "logo.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    "latin1.txt": "caf\u00e9".encode("latin-1"),
    "late-nul.txt": b"a" * 8_000 + b"\0",
    "big.txt": BIG,
    "exact.txt": b"y" * 512_000,
}


@pytest.fixture
def state() -> StandInState:
    return StandInState(
        {
            ("octo", "docs"): StandInRepo(FILES, COMMIT),
            ("other", "private"): StandInRepo({"secret.md": b"no"}, COMMIT, installation_id=99),
        }
    )


def blob_query(*objects: str, fields: str = BLOB_FIELDS) -> str:
    aliased = " ".join(f"b{i}: object({arg}) {{ ... on Blob {{ {fields} }} }}" for i, arg in enumerate(objects))
    return f"query($owner: String!, $name: String!) {{ repository(owner: $owner, name: $name) {{ {aliased} }} }}"


def run(state: StandInState, query: str, owner: str = "octo", name: str = "docs") -> tuple[int, dict]:
    return execute(state, INSTALLATION, {"query": query, "variables": {"owner": owner, "name": name}})


def by_oid(data: bytes) -> str:
    return f'oid: "{git_oid(data)}"'


def test_the_schema_is_githubs_whole_schema() -> None:
    text = SCHEMA.read_text(encoding="utf-8")
    assert text.startswith("# GitHub's public GraphQL schema, from @octokit/graphql-schema@")
    for definition in ("type Blob implements GitObject & Node", "interface GitObject", "type Repository implements"):
        assert definition in text
    assert "type Mutation" in text  # not pruned


# -- validation -------------------------------------------------------------------------------------------


def test_the_supported_shape_validates(state: StandInState) -> None:
    status, body = run(state, blob_query(by_oid(FILES["README.md"]), by_oid(FILES["wiki/index.md"])))
    assert status == 200
    assert "errors" not in body
    assert state.violations == []


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (blob_query(by_oid(b"x"), fields="oid byteSise"), "Cannot query field 'byteSise' on type 'Blob'"),
        (blob_query(by_oid(b"x"), fields="oid contents"), "Cannot query field 'contents' on type 'Blob'"),
        (blob_query('oid: "not-a-sha"'), "GitObjectID"),
        (blob_query("oid: 12"), "GitObjectID"),
        (blob_query('sha: "' + "a" * 40 + '"'), "Unknown argument 'sha'"),
        ("query { repository(owner: $owner, name: $name) { id } }", "Variable '$owner' is not defined"),
        (
            'query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { object(oid: "'
            + "a" * 40
            + '") { oid text } } }',
            "Cannot query field 'text' on type 'GitObject'",
        ),
        (
            '{ repository(owner: "octo", name: "docs") { object(oid: "' + "a" * 40 + '") { ... on Blob { oid } }',
            "Syntax Error",
        ),
    ],
)
def test_an_invalid_query_is_refused_as_github_does(state: StandInState, query: str, message: str) -> None:
    status, body = run(state, query)
    assert status == 200
    assert "data" not in body
    assert any(message in error["message"] for error in body["errors"])
    assert state.violations and all(v.startswith("graphql: ") for v in state.violations)


def test_missing_variables_are_refused(state: StandInState) -> None:
    status, body = execute(state, INSTALLATION, {"query": blob_query(by_oid(b"x")), "variables": {"owner": "octo"}})
    assert status == 200
    assert "$name" in body["errors"][0]["message"]
    assert state.violations


def test_a_request_without_a_query_is_refused(state: StandInState) -> None:
    status, body = execute(state, INSTALLATION, {"variables": {}})
    assert status == 200
    assert body["errors"][0]["message"] == "A query attribute must be specified and must be a string."
    assert state.violations


def test_fields_the_fake_does_not_serve_are_errors(state: StandInState) -> None:
    status, body = run(state, blob_query(by_oid(FILES["README.md"]), fields="oid commitUrl"))
    assert status == 200
    assert "does not serve Blob.commitUrl" in body["errors"][0]["message"]
    assert state.violations


# -- execution --------------------------------------------------------------------------------------------


def test_blobs_by_oid(state: StandInState) -> None:
    readme, index = FILES["README.md"], FILES["wiki/index.md"]
    unknown = "0" * 40
    status, body = run(state, blob_query(by_oid(readme), by_oid(index), f'oid: "{unknown}"'))
    assert status == 200
    assert body == {
        "data": {
            "repository": {
                "b0": {
                    "oid": git_oid(readme),
                    "byteSize": 7,
                    "isBinary": False,
                    "isTruncated": False,
                    "text": "# Docs\n",
                },
                "b1": {
                    "oid": git_oid(index),
                    "byteSize": len(index),
                    "isBinary": False,
                    "isTruncated": False,
                    "text": "Café — naïve\n",
                },
                "b2": None,
            }
        }
    }
    assert state.violations == []


def test_an_uppercase_oid_is_read_as_lowercase(state: StandInState) -> None:
    oid = git_oid(FILES["README.md"])
    _, body = run(state, blob_query(f'oid: "{oid.upper()}"', fields="oid text"))
    assert body["data"]["repository"]["b0"] == {"oid": oid, "text": "# Docs\n"}


def test_blobs_by_expression(state: StandInState) -> None:
    query = blob_query(f'expression: "{COMMIT}:wiki/index.md"', f'expression: "{COMMIT}:nowhere.md"')
    _, body = run(state, query)
    found = body["data"]["repository"]
    assert found["b0"]["oid"] == git_oid(FILES["wiki/index.md"])
    assert found["b0"]["text"] == "Café — naïve\n"
    assert found["b1"] is None


def test_oids_can_come_in_variables(state: StandInState) -> None:
    query = (
        "query($owner: String!, $name: String!, $oid: GitObjectID!) {"
        " repository(owner: $owner, name: $name) { object(oid: $oid) { ... on Blob { text } } } }"
    )
    variables = {"owner": "octo", "name": "docs", "oid": git_oid(FILES["README.md"])}
    assert execute(state, INSTALLATION, {"query": query, "variables": variables}) == (
        200,
        {"data": {"repository": {"object": {"text": "# Docs\n"}}}},
    )
    variables["oid"] = "nope"
    status, body = execute(state, INSTALLATION, {"query": query, "variables": variables})
    assert status == 200 and "GitObjectID" in body["errors"][0]["message"]


@pytest.mark.parametrize(
    ("path", "binary"),
    [("logo.png", True), ("latin1.txt", True), ("late-nul.txt", False), ("README.md", False)],
)
def test_binary_blobs_have_no_text(state: StandInState, path: str, binary: bool) -> None:
    """Binary: a NUL in the first 8000 bytes, or not UTF-8. A NUL later on is text (and valid UTF-8)."""
    _, body = run(state, blob_query(by_oid(FILES[path])))
    blob = body["data"]["repository"]["b0"]
    assert blob["isBinary"] is binary
    assert (blob["text"] is None) is binary
    assert blob["byteSize"] == len(FILES[path])


def test_large_blobs_are_truncated_at_512000_bytes(state: StandInState) -> None:
    _, body = run(state, blob_query(by_oid(BIG), by_oid(FILES["exact.txt"])))
    big, exact = body["data"]["repository"]["b0"], body["data"]["repository"]["b1"]
    assert big["isTruncated"] is True
    assert big["isBinary"] is False
    assert big["byteSize"] == len(BIG)
    assert big["text"] == "x" * 511_999  # the cut-through é is left out, not mangled
    assert exact["isTruncated"] is False
    assert len(exact["text"]) == 512_000


def test_an_unknown_repository_is_not_found(state: StandInState) -> None:
    status, body = run(state, blob_query(by_oid(b"x")), owner="octo", name="nothing")
    assert status == 200
    assert body["data"] == {"repository": None}
    assert body["errors"][0]["type"] == "NOT_FOUND"
    assert body["errors"][0]["message"] == "Could not resolve to a Repository with the name 'octo/nothing'."
    assert state.violations == []  # a lookup that fails is GitHub's answer, not the bot's mistake


def test_a_repository_of_another_installation_is_not_found(state: StandInState) -> None:
    _, body = run(state, blob_query(by_oid(b"no")), owner="other", name="private")
    assert body["data"] == {"repository": None}
    assert body["errors"][0]["type"] == "NOT_FOUND"


def test_many_aliases_in_one_query(state: StandInState) -> None:
    oids = [by_oid(data) for data in FILES.values()]
    many = [oids[i % len(oids)] for i in range(500)]
    status, body = run(state, blob_query(*many, fields="oid byteSize"))
    assert status == 200
    assert len(body["data"]["repository"]) == 500
    assert state.violations == []


def test_more_than_500_objects_are_refused(state: StandInState) -> None:
    status, body = run(state, blob_query(*[by_oid(FILES["README.md"])] * 501, fields="oid"))
    assert status == 200
    assert "data" not in body
    assert "501" in body["errors"][0]["message"]
    assert state.violations
