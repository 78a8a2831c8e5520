"""The working tree as a snapshot, read as git would store it (`WorktreeSnapshot`), and what git knows of it."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from ...claims.errors import UnreadableFileError
from ...claims.snapshot import Entry, Kind, git_blob_id
from .. import gitclean
from .process import _BLOB_CACHE_BYTES, MissingObjectError, _git, _git_side_by_side
from .snapshots import ObjectStore, _lacks

# What `git config` is asked for the working tree: core.autocrlf, where attributes may come from, the filter drivers
# (names as git prints them: section and variable lowercased, a driver's name as written), and a sparse checkout.
_WORKTREE_CONFIG = r"^(core\.(autocrlf|attributesfile|sparsecheckout)|attr\.tree|filter\..+\.(clean|process|required))$"


class _WorktreeGit:
    """What git knows of a working tree, asked once per snapshot: git's settings for the clean conversions, and
    the files (tracked, and untracked but not ignored: the listing every check's references and fix need anyway),
    which say whether a `.gitattributes` file may choose a conversion (one `git config` and one `git ls-files`,
    side by side); and when first needed, git's index (each file's blob id, and which files are marked
    assume-unchanged or skip-worktree) and which files its stat info shows modified (side by side again)."""

    def __init__(self, repo: ObjectStore) -> None:
        self.repo = repo
        config, listed = _git_side_by_side(
            repo.root,
            ("config", "-z", "--get-regexp", _WORKTREE_CONFIG),
            ("ls-files", "-z", "--cached", "--others", "--exclude-standard"),
            exit_ok=(1,),  # `git config --get-regexp` finding nothing
        )
        self.paths = [p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p]
        attributes = any(p == ".gitattributes" or p.endswith("/.gitattributes") for p in self.paths)
        entries = []
        for item in config.split(b"\0"):
            if item:
                key, newline, value = item.decode("utf-8", "surrogateescape").partition("\n")
                entries.append((key, value if newline else None))
        self.settings = gitclean.settings(entries)
        sparse = [value for key, value in entries if key.lower() == "core.sparsecheckout"]
        self.sparse = bool(sparse) and gitclean.config_bool(sparse[-1])  # the last value wins
        self.attributes = bool(attributes) or _attribute_files_exist(repo, entries)
        self.converting = self.settings.autocrlf != "false" or self.attributes
        self._files: dict[str, str] | None = None
        self._flagged: set[str] = set()
        self._skipped: set[str] = set()
        self._modified: set[str] = set()
        self._conversions: dict[str, gitclean.Conversion] = {}
        self._none = gitclean.NONE

    def _index(self) -> dict[str, str]:
        """The index's regular files (their flags and git's stat view of them kept beside)."""
        listing, modified = _git_side_by_side(
            self.repo.root, ("ls-files", "-v", "--stage", "-z"), ("diff-files", "--name-only", "-z", "--no-renames")
        )
        files: dict[str, str] = {}
        for record in listing.split(b"\0"):
            meta, _, name = record.partition(b"\t")
            if len(meta) < 50:
                continue
            path = name.decode("utf-8", "surrogateescape")
            tag = meta[:1]
            if meta[2:].startswith((b"100644 ", b"100755 ")) and meta.endswith(b" 0"):
                files[path] = meta[9:].split(b" ", 1)[0].decode()
            if tag.islower():  # `-v`: assume-unchanged
                self._flagged.add(path)
            if tag in (b"S", b"s"):
                self._flagged.add(path)
                self._skipped.add(path)
        self._modified = {p.decode("utf-8", "surrogateescape") for p in modified.split(b"\0") if p}
        return files

    @property
    def files(self) -> dict[str, str]:
        """The regular files of git's index (stage 0), by path: their blob ids."""
        if self._files is None:
            self._files = self._index()
        return self._files

    @property
    def flagged(self) -> set[str]:
        """Files marked assume-unchanged or skip-worktree: git does not look at them on disk."""
        if self._files is None:
            self._files = self._index()
        return self._flagged

    @property
    def skipped(self) -> set[str]:
        """Files marked skip-worktree (a sparse checkout's files outside its cone, for one)."""
        if self._files is None:
            self._files = self._index()
        return self._skipped

    @property
    def modified(self) -> set[str]:
        """Files git's stat info shows changed since git last wrote or hashed them (a racily clean one git hashes
        again); assume-unchanged and skip-worktree files are never among them."""
        if self._files is None:
            self._files = self._index()
        return self._modified

    def unmodified(self, path: str) -> str | None:
        """The blob id of a regular file git's index holds and sees unmodified on disk (no flag, stat unchanged):
        git stores exactly that blob for it."""
        oid = self.files.get(path)
        if oid is None or path in self.flagged or path in self.modified:
            return None
        return oid

    def conversion(self, path: str) -> gitclean.Conversion:
        """The clean conversions git applies to `path` (`learn` asks git about many at once)."""
        if not self.converting:
            return self._none
        known = self._conversions.get(path)
        if known is None:
            self.learn([path])
            known = self._conversions[path]
        return known

    def learn(self, paths: Iterable[str]) -> None:
        """The conversions of `paths`, from one `git check-attr` (none when no attributes file exists)."""
        if not self.converting:
            return
        unknown = [p for p in dict.fromkeys(paths) if p not in self._conversions]
        if not unknown:
            return
        if not self.attributes:
            for path in unknown:
                self._conversions[path] = gitclean.conversion({}, self.settings)
            return
        attributes: dict[str, dict[str, str]] = {path: {} for path in unknown}
        out = _git(
            self.repo.root,
            "check-attr", "-z", "--stdin", *gitclean.ATTRIBUTES,
            input=b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in unknown),
        )  # fmt: skip
        for path, attribute, value in gitclean.check_attr_records(out):
            attributes.setdefault(path, {})[attribute] = value
        for path in unknown:
            self._conversions[path] = gitclean.conversion(attributes[path], self.settings)


def _attribute_files_exist(repo: ObjectStore, config: list[tuple[str, str | None]]) -> bool:
    """Whether an attributes file other than the working tree's `.gitattributes` files may set attributes:
    `$GIT_COMMON_DIR/info/attributes`, the user's (`core.attributesFile`, else `$XDG_CONFIG_HOME/git/attributes`)
    and the system's (`/etc/gitattributes`, or beside the git program); `attr.tree` or `$GIT_ATTR_SOURCE` name a
    tree of attributes."""
    if os.environ.get("GIT_ATTR_SOURCE"):
        return True
    user: str | None = None
    for key, value in config:
        if key.lower() == "attr.tree":
            return True
        if key.lower() == "core.attributesfile":
            user = value
    home = os.environ.get("HOME", "")
    if user:
        user = home + user[1:] if user.startswith("~/") else user
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else "")
        user = f"{xdg}/git/attributes" if xdg else None
    candidates = [repo.common_dir() / "info" / "attributes"]
    if user:
        candidates.append(repo.root / user)  # a relative core.attributesFile is git's working folder's: the top
    if os.environ.get("GIT_ATTR_NOSYSTEM", "").lower() not in ("1", "true", "yes", "on"):
        candidates.append(Path("/etc/gitattributes"))
        program = shutil.which("git")
        if program:
            candidates += [Path(program).parent.parent / "etc" / "gitattributes"]
            candidates += [Path(program).resolve().parent.parent / "etc" / "gitattributes"]
    for candidate in candidates:
        with contextlib.suppress(OSError):
            if candidate.stat().st_size > 0:
                return True
    return False


class WorktreeSnapshot:
    """The files on disk, uncommitted changes included, read as git sees them: the bytes `git add` would store.

    Where git's settings and attributes convert nothing (no `core.autocrlf`, no attributes file: the common case)
    those are the bytes on disk. Otherwise each file's conversions are learnt once (`git check-attr`, where an
    attributes file exists; `core.autocrlf` alone needs no question): a file
    git converts is read from git's index while git sees it unmodified (what git stores for it, exactly: a CRLF
    checkout of an LF repository is not a change), and from the disk through the clean conversions (`gitclean`)
    once edited. A file's blob id (`blob_id`) is the index's for a file git sees unmodified, the hash of the bytes
    read for a file git does not look at (assume-unchanged, skip-worktree), and unknown for an edited one. A
    skip-worktree file absent from the disk (a sparse checkout) is read from the index, as git sees it.

    Without a repository (`repo` None) the files are read as they are on disk.
    """

    def __init__(self, root: Path, label: str = "working tree", repo: ObjectStore | None = None) -> None:
        self.root = root
        self.label = label
        self.commit: str | None = None
        self._repo = repo
        self._git_view: _WorktreeGit | None = None
        self._dir_is_real: dict[str, bool] = {}
        self._root = str(root)
        self._entries: dict[str, Entry | None] = {}
        self._hashed: dict[str, bytes] = {}  # files git does not look at, read to name their bytes (`blob_id`)

    def _git(self) -> _WorktreeGit | None:
        if self._git_view is None and self._repo is not None:
            self._git_view = _WorktreeGit(self._repo)
        return self._git_view

    def _real_dir(self, relative: str) -> bool:
        """Whether a folder on the way to a file is a real folder (not a symlink to one)."""
        known = self._dir_is_real.get(relative)
        if known is None:
            try:
                known = stat.S_ISDIR(os.lstat(self.root / relative).st_mode)
            except OSError:
                known = True  # absent: the lstat of the file itself will say so
            self._dir_is_real[relative] = known
        return known

    def entry(self, path: str) -> Entry | None:
        """What stands at `path`, looked up once: a sweep asks before it plans a read and again before it reads."""
        if path in self._entries:
            return self._entries[path]
        found = self._entries[path] = self._lookup(path)
        return found

    def _lookup(self, path: str) -> Entry | None:
        parts = path.split("/")
        for k in range(1, len(parts)):
            if not self._real_dir("/".join(parts[:k])):
                return Entry(Kind.SYMLINK) if os.path.islink(self.root.joinpath(*parts[:k])) else None
        try:
            info = os.lstat(f"{self._root}/{path}")
        except (FileNotFoundError, NotADirectoryError):
            git = self._git()
            return Entry(Kind.FILE) if git is not None and self._sparse(git, path) is not None else None
        if stat.S_ISLNK(info.st_mode):
            return Entry(Kind.SYMLINK)
        if stat.S_ISREG(info.st_mode):
            git = self._git()
            # converted, its size is the stored blob's, known once read (a conversion only shrinks a file's bytes)
            return Entry(Kind.FILE, None if git is not None and git.converting else info.st_size)
        if stat.S_ISDIR(info.st_mode):
            return Entry(Kind.DIRECTORY)
        return Entry(Kind.OTHER)

    def _sparse(self, git: _WorktreeGit, path: str) -> str | None:
        """The index's blob id of a sparse checkout's skip-worktree file absent from the disk (git sees it
        unmodified)."""
        if not git.sparse or path not in git.skipped or os.path.lexists(f"{self._root}/{path}"):
            return None
        return git.files.get(path)

    def _disk(self, path: str) -> bytes:
        with open(f"{self._root}/{path}", "rb") as file:
            return file.read()

    def read(self, path: str) -> bytes:
        git = self._git()
        if git is None:
            return self._disk(path)
        hashed = self._hashed.get(path)
        if hashed is not None:
            return hashed
        stored = self._sparse(git, path)
        if stored is None:
            converting = git.conversion(path)
            if converting.identity:
                return self._disk(path)
            stored = git.unmodified(path)
            if stored is None:
                return self._cleaned(git, path, converting)
        return self._stored(path, stored)

    def _stored(self, path: str, oid: str) -> bytes:
        assert self._repo is not None
        try:
            return self._repo.read_blobs([oid])[oid]
        except MissingObjectError:
            raise MissingObjectError(_lacks(path, oid)) from None

    def _cleaned(self, git: _WorktreeGit, path: str, converting: gitclean.Conversion) -> bytes:
        """A file git converts, edited since git wrote it: its bytes on disk through git's clean conversions."""
        if converting.unreproduced is not None:
            raise UnreadableFileError(
                f"{path}: {converting.unreproduced}, and the file differs from git's index: the bytes git would "
                "store for it are known once it is staged (`git add`, then `wikiwarden check --staged`) or committed"
            )

        def index_has_crlf() -> bool:
            oid = git.files.get(path)
            return oid is not None and gitclean.has_crlf_text(self._stored(path, oid))

        return gitclean.clean(self._disk(path), converting, index_has_crlf)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Where git converts files: their conversions asked of git in one batch, and the blobs of those read from
        git's index asked for in one pipelined batch (nothing to batch on a local disk otherwise)."""
        git = self._git()
        if git is None or not git.converting:
            return
        wanted = list(paths)
        git.learn(wanted)
        assert self._repo is not None
        oids = [
            oid
            for path in wanted
            if not git.conversion(path).identity and (oid := git.unmodified(path) or self._sparse(git, path))
        ]
        sizes = self._repo.sizes(oids)
        small = _BLOB_CACHE_BYTES // 8
        self._repo.read_ahead(oid for oid in oids if (size := sizes[oid]) is not None and size <= small)

    def blob_id(self, path: str) -> str | None:
        """git's blob id of the bytes `read` gives for a regular file git tracks, when known without reading it: the
        index's while git sees the file unmodified. A file git does not look at (assume-unchanged, skip-worktree)
        may differ from the index: it is read and hashed. An edited or untracked file has none (its bytes would have
        to be read to be named)."""
        git = self._git()
        if git is None or path not in git.files:
            return None
        if path not in git.flagged:
            return git.unmodified(path)
        sparse = self._sparse(git, path)
        if sparse is not None:
            return sparse
        entry = self.entry(path)
        if entry is None or entry.kind is not Kind.FILE:
            return None
        try:
            data = self._hashed[path] = self.read(path)
        except (OSError, UnreadableFileError):
            return None
        return git_blob_id(data)

    def paths(self) -> list[str] | None:
        """Every file git lists in the working tree: tracked, and untracked but not ignored (listed once); None
        without a repository."""
        git = self._git()
        return list(git.paths) if git is not None else None

    def walk(self, top: str) -> Iterator[tuple[str, Entry]]:
        base = self.root / top
        if not self._real_dir(top) or not base.is_dir():
            return
        for folder, dirs, files in os.walk(base, followlinks=False):
            rel_folder = os.path.relpath(folder, self.root).replace(os.sep, "/")
            for name in sorted(dirs):
                if os.path.islink(os.path.join(folder, name)):
                    yield f"{rel_folder}/{name}", Entry(Kind.SYMLINK)
            dirs[:] = sorted(d for d in dirs if d != ".git" and not os.path.islink(os.path.join(folder, d)))
            for name in sorted(files):
                path = f"{rel_folder}/{name}"
                found = self.entry(path)
                if found is not None:
                    yield path, found
