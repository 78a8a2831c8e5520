"""Forged sweep memories (`.git/wikiwarden/`), as issue 42's review made them: a repository whose second commit makes
its one claim stale and deletes the file its page names, and the three edits of the memory an earlier check left
that change the verdict when they are believed. The forger edits the JSON as it stands (a seal left as it was), or
writes the file again with a seal it can compute without the key: a plain SHA-256 digest, or an HMAC under a key
of its own. Written here from the file format, not with Wikiwarden's own sealing code."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

from conftest import GitRepo

CODE_ONE = "def a():\n    return 1\n"
CODE_TWO = "def a():\n    return 3\n"
PAGE = "---\ntype: Concept\n---\n\n# A\n\n`a` returns 1. The rest is in `src/old.py`.\n"
RESOURCE = "repo://src/a.py#L1-L2"
FORGERIES = ("verdicts", "index", "readings")  # which file the forger edits
FILES = {"verdicts": "verdicts-v1.json", "index": "evidence-index-v1.json", "readings": "pages-v1.json"}
SEALS = ("edited", "plain digest", "another key")  # how the forger leaves the seal
FORGER_KEY = b"the forger's own key, not the secret one"


def two_commits(repo: GitRepo) -> None:
    """Commit one: `a` returns 1, the page names `src/old.py`; the claim is added by the caller, then
    `second_commit` makes the claim stale or deletes `src/old.py` (a broken reference)."""
    repo.write("src/a.py", CODE_ONE)
    repo.write("src/old.py", "X = 1\n")
    repo.write("openwiki/a.md", PAGE)
    repo.commit("one")


def second_commit(repo: GitRepo, forgery: str) -> None:
    """What the forgery hides, and nothing else (the check then needs attention for that one reason): the claim made
    stale for the verdicts and the index, `src/old.py` deleted for the readings."""
    if forgery == "readings":
        repo.remove("src/old.py")
    else:
        repo.write("src/a.py", CODE_TWO)
    repo.commit("two")


def _document(data: bytes) -> dict[str, Any]:
    document = json.loads(data)
    assert isinstance(document, dict)
    return document


def forge(folder: Path, forgery: str, how: str, head_blobs: dict[str, str]) -> None:
    """Edit the memory in `folder` so that, believed, it hides what the second commit did: the verdict cache's
    files given the blob ids they have now (their old verdicts then look current), the evidence index's entries
    emptied (no sidecar cites the change), the pages' readings emptied (no reference left to check)."""
    name = FILES[forgery]
    document = _document((folder / name).read_bytes())
    if forgery == "verdicts":
        files = document["files"]
        assert files, "the honest check kept no verdict"
        document["files"] = [[path, head_blobs.get(path, blob)] for path, blob in files]
    elif forgery == "index":
        assert document["sidecars"], "the honest check kept no index entry"
        document["sidecars"] = {blob: [] for blob in document["sidecars"]}
    else:
        assert document["pages"], "the honest check kept no reading"
        document["pages"] = {blob: [[], []] for blob in document["pages"]}
    seal = document.pop("seal", None)
    body = json.dumps(document, separators=(",", ":")).encode()
    if how == "edited":  # the seal it had, if any, left in front of what was changed
        data = body if seal is None else b'{"seal":' + json.dumps(seal).encode() + b"," + body[1:]
    else:
        scheme = "sha256" if how == "plain digest" else "hmac-sha256"
        message = f"wikiwarden-memory\0{scheme}\0{name}\0".encode() + body[1:]
        if how == "plain digest":
            tag = hashlib.sha256(message).hexdigest()
        else:
            tag = hmac.new(FORGER_KEY, message, hashlib.sha256).hexdigest()
        data = f'{{"seal":"{scheme}:{tag}",'.encode() + body[1:]
    (folder / name).write_bytes(data)


def head_blobs(repo: GitRepo) -> dict[str, str]:
    """Each file's blob id at HEAD."""
    listing = repo.git("ls-tree", "-r", "HEAD")
    return {line.split("\t", 1)[1]: line.split()[2] for line in listing.splitlines()}
