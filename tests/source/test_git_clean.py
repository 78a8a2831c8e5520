"""The working tree read as git sees it: for each of git's clean conversions, what `WorktreeSnapshot.read` gives
for a file is exactly the blob `git add` then stores for it, and a blob id the snapshot names a file by is the id of
exactly those bytes. git itself is the reference: each case is read before `git add`, then compared with the blob
git stored."""

from __future__ import annotations

import os
import time

import pytest
from conftest import GitRepo

from bot.claims.errors import UnreadableFileError
from bot.claims.snapshot import Entry, Kind, git_blob_id
from bot.source import gitclean
from bot.source.git import GitRepository

CRLF = b"one\r\ntwo\r\nthree\r\n"
LF = b"one\ntwo\nthree\n"

# (name, git config, .gitattributes, bytes committed first or None, bytes on disk when read)
CASES = [
    ("autocrlf, an lf repository", {"core.autocrlf": "true"}, None, LF, CRLF + b"four\r\n"),
    ("autocrlf, untracked", {"core.autocrlf": "true"}, None, None, CRLF),
    ("autocrlf input", {"core.autocrlf": "input"}, None, LF, b"x\r\n" + CRLF),
    ("autocrlf, the index holds crlf", {}, None, CRLF, CRLF + b"four\r\n"),  # autocrlf set after the commit
    ("autocrlf, a lone cr: binary", {"core.autocrlf": "true"}, None, None, b"a\r\nb\rc\r\n"),
    ("autocrlf, a nul: binary", {"core.autocrlf": "true"}, None, None, b"a\r\n\0b\r\n"),
    ("autocrlf, controls: binary", {"core.autocrlf": "true"}, None, None, b"a\r\n" + b"\x01\x02" * 3 + b"b" * 200),
    ("autocrlf, a few controls: text", {"core.autocrlf": "true"}, None, None, b"a\r\n\x01" + b"b" * 200 + b"\r\n"),
    ("autocrlf, a final ctrl-z", {"core.autocrlf": "true"}, None, None, b"a" * 100 + b"\r\n\x1a"),
    ("autocrlf, unset by -text", {"core.autocrlf": "true"}, "* -text\n", None, CRLF),
    ("text", {}, "* text\n", LF, b"a\r\nb\r\r\nc\r"),  # text: every CRLF, lone CRs kept
    ("text=auto", {}, "* text=auto\n", None, CRLF),
    ("text=auto eol=crlf", {}, "* text=auto eol=crlf\n", LF, CRLF + b"four\r\n"),
    ("eol=lf alone makes text", {}, "*.txt eol=lf\n", None, b"a\r\nb\r\r\n"),
    ("eol=crlf", {}, "* text eol=crlf\n", LF, CRLF + b"four\r\n"),
    ("legacy crlf", {}, "* crlf\n", None, CRLF),
    ("legacy -crlf", {"core.autocrlf": "true"}, "* -crlf\n", None, CRLF),
    ("legacy crlf=input", {}, "* crlf=input\n", None, CRLF),
    ("ident", {}, "* ident\n", None, b"$Id: 0123 $\n$Id$ $Id:\n$ x $Id: a b $\n$Id:$\n"),
    ("ident without a close", {}, "* ident\n", None, b"x $Id: open\nmore $Id: y"),
    ("ident and crlf", {"core.autocrlf": "true"}, "* ident\n", LF, b"$Id: deadbeef $\r\nx\r\n"),
    ("a driver not configured", {}, "* filter=nothing\n", None, CRLF),
    ("utf-8 is no re-encoding", {}, "* working-tree-encoding=utf8\n", None, CRLF),
]


def _configure(repo: GitRepo, config: dict[str, str]) -> None:
    for key, value in config.items():
        repo.git("config", key, value)


@pytest.mark.parametrize(("name", "config", "attributes", "committed", "disk"), CASES, ids=[c[0] for c in CASES])
def test_the_working_tree_reads_what_git_add_stores(
    repo: GitRepo, name: str, config: dict[str, str], attributes: str | None, committed: bytes | None, disk: bytes
) -> None:
    if attributes is not None:
        repo.write(".gitattributes", attributes)
    if committed is not None:
        repo.write("f.txt", committed)
    repo.commit()
    if name == "autocrlf, the index holds crlf":
        config = {"core.autocrlf": "true"}
    _configure(repo, config)
    repo.write("f.txt", disk)
    with GitRepository(repo.root) as opened:
        worktree = opened.worktree()
        read = worktree.read("f.txt")
        named = worktree.blob_id("f.txt")
    repo.git("add", "f.txt")
    stored = repo.git("rev-parse", ":f.txt").strip()
    assert git_blob_id(read) == stored, (read, repo.git("cat-file", "blob", stored))
    assert named in (None, stored)
    with GitRepository(repo.root) as opened:  # staged: git's index names the file, the bytes read are the blob's
        worktree = opened.worktree()
        assert worktree.blob_id("f.txt") == stored
        assert git_blob_id(worktree.read("f.txt")) == stored


def test_a_file_git_sees_unmodified_is_read_as_the_index_holds_it(repo: GitRepo) -> None:
    """Attributes that came after the checkout (`* text` over a CRLF file): git sees the file unmodified, stores the
    index's blob on `git add`, and so does the snapshot read it (and name it)."""
    written = repo.write("f.txt", CRLF)
    os.utime(written, (time.time() - 60, time.time() - 60))  # not racily clean: git trusts its stat info
    repo.commit()
    repo.write(".gitattributes", "* text\n")
    repo.commit()
    assert repo.git("status", "--porcelain") == ""
    with GitRepository(repo.root) as opened:
        worktree = opened.worktree()
        assert worktree.read("f.txt") == CRLF
        assert worktree.blob_id("f.txt") == git_blob_id(CRLF)
    repo.git("add", "f.txt")
    assert repo.git("rev-parse", ":f.txt").strip() == git_blob_id(CRLF)


@pytest.mark.parametrize(
    ("attributes", "config", "why"),
    [
        ("f.txt filter=strip\n", {"filter.strip.clean": "tr -d x"}, "filter driver `strip`"),
        ("f.txt filter=strip\n", {"filter.strip.process": "some-process"}, "filter driver `strip`"),
        ("f.txt filter=strip\n", {"filter.strip.required": "true"}, "required but has no command"),
        ("f.txt working-tree-encoding=UTF-16LE\n", {}, "re-encoded from UTF-16LE"),
    ],
)
def test_a_conversion_wikiwarden_does_not_run_reads_the_index_or_says_why_not(
    repo: GitRepo, attributes: str, config: dict[str, str], why: str
) -> None:
    encoding = "utf-16-le" if "UTF-16LE" in attributes else "utf-8"
    repo.write(".gitattributes", attributes)
    written = repo.write("f.txt", LF.decode().encode(encoding))
    os.utime(written, (time.time() - 60, time.time() - 60))  # not racily clean: git trusts its stat info
    repo.commit()
    assert repo.git("cat-file", "blob", ":f.txt").encode() == LF
    _configure(repo, config)
    with GitRepository(repo.root) as opened:  # unmodified: the blob git stores for it
        worktree = opened.worktree()
        assert worktree.read("f.txt") == LF
        assert worktree.blob_id("f.txt") == git_blob_id(LF)
    repo.write("f.txt", ("x" + LF.decode()).encode(encoding))
    with GitRepository(repo.root) as opened:
        worktree = opened.worktree()
        assert worktree.entry("f.txt") == Entry(Kind.FILE)  # no size: what git stores is not known
        with pytest.raises(UnreadableFileError) as raised:
            worktree.read("f.txt")
        assert raised.value.args[0].startswith("f.txt: ") and why in raised.value.args[0]
        assert "--staged" in raised.value.args[0]
        assert worktree.blob_id("f.txt") is None


def test_a_check_without_conversions_reads_the_disk_and_asks_git_nothing_more(repo: GitRepo) -> None:
    repo.write("f.txt", CRLF)
    repo.commit()
    with GitRepository(repo.root) as opened:
        worktree = opened.worktree()
        assert worktree.entry("f.txt") == Entry(Kind.FILE, len(CRLF))  # sizes from the disk
        worktree.prefetch(["f.txt"])
        assert worktree.read("f.txt") == CRLF
        assert opened._cat is None and opened._check is None  # no object read
        view = worktree._git()
        assert view is not None and not view.converting
        assert view._files is None  # nor the index listed: only a blob id needs it
        assert worktree.blob_id("f.txt") == git_blob_id(CRLF)


@pytest.mark.parametrize("flag", ["--assume-unchanged", "--skip-worktree"])
def test_a_file_git_does_not_look_at_is_named_by_the_hash_of_its_bytes(repo: GitRepo, flag: str) -> None:
    repo.write("f.txt", LF)
    repo.commit()
    repo.git("update-index", flag, "f.txt")
    repo.write("f.txt", b"edited\n")
    with GitRepository(repo.root) as opened:
        worktree = opened.worktree()
        assert worktree.blob_id("f.txt") == git_blob_id(b"edited\n")  # not the index's
        assert worktree.read("f.txt") == b"edited\n"
    repo.git("config", "core.autocrlf", "true")
    repo.write("f.txt", b"edited\r\n")
    with GitRepository(repo.root) as opened:
        worktree = opened.worktree()
        assert worktree.blob_id("f.txt") == git_blob_id(b"edited\n")  # cleaned, then hashed
        assert worktree.read("f.txt") == b"edited\n"


def test_settings_and_conversions_follow_git() -> None:
    settings = gitclean.settings(
        [
            ("core.autocrlf", "true"),
            ("core.autocrlf", "input"),
            ("filter.lfs.clean", "git-lfs clean -- %f"),
            ("filter.lfs.required", "true"),
            ("filter.off.clean", "x"),
            ("filter.off.clean", ""),  # the last value wins: no command
        ]
    )
    assert settings.autocrlf == "input"
    assert settings.drivers == {"lfs": gitclean.Driver(True, True), "off": gitclean.Driver(False, False)}
    assert gitclean.conversion({"filter": "off"}, settings) == gitclean.Conversion(gitclean.AUTO)
    assert gitclean.conversion({"text": "unset"}, settings).identity
    assert gitclean.conversion({}, gitclean.Settings()).identity
    assert gitclean.collapse_ident(b"a $Id: x $ b") == b"a $Id$ b"
    assert gitclean.collapse_ident(b"no ident") == b"no ident"
