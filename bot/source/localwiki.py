"""Writes to the wiki of a local checkout: sidecars replaced atomically, never through a symlink, under the wiki's
lock (`writing`), so that Wikiwarden processes writing one wiki at once each see the others' changes."""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

from ..claims.errors import EvidenceSecurityError
from ..claims.pages import sidecar_for
from ..claims.sidecar import Claim, Sidecar, parse_sidecar, render_sidecar
from ..claims.snapshot import Kind
from ..claims.sweep import load_wiki
from .git import WorktreeSnapshot
from .safeio import POSIX, Folder

log = logging.getLogger(__name__)


class LocalWiki:
    """The wiki folder of a working tree, read and written the way OpenWiki persists claims."""

    def __init__(self, root: Path, wiki_dir: str) -> None:
        self.root = root
        self.wiki_dir = wiki_dir
        self.snapshot = WorktreeSnapshot(root)

    def _check_real(self, relative: str, *, must_exist: bool) -> Path:
        """Refuse a path whose file or any folder on the way is a symlink (OpenWiki's persistence rule)."""
        parts = relative.split("/")
        for k in range(1, len(parts) + 1):
            here = self.root.joinpath(*parts[:k])
            try:
                mode = os.lstat(here).st_mode
            except FileNotFoundError:
                if must_exist and k == len(parts):
                    raise FileNotFoundError(f"{relative} does not exist") from None
                return self.root / relative
            if stat.S_ISLNK(mode):
                raise EvidenceSecurityError(f"{'/'.join(parts[:k])} is a symlink; refusing to read or write through it")
            if k < len(parts) and not stat.S_ISDIR(mode):
                raise NotADirectoryError(f"{'/'.join(parts[:k])} is not a folder")
        if not stat.S_ISREG(os.lstat(self.root / relative).st_mode):
            raise IsADirectoryError(f"{relative} is not a regular file")
        return self.root / relative

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the wiki's lock for a read-modify-write: every Wikiwarden command that writes the wiki (`claim`,
        `fix`, `ground`, `okf sync`) takes it from its first read to its last write, so a second one waits for the
        first and then reads what it wrote (twelve `claim add` at once on one page: twelve claims). The lock is the
        wiki folder's own (flock, `safeio`): nothing is written for it. Where it cannot be taken the writes go on
        unlocked, each still atomic: on Windows, which has no such lock (the README says so), silently; on a
        filesystem that cannot lock a folder (NFS), with a warning.
        A wiki folder not made yet has nothing to lock, and one that is not a folder (a symlink) is refused by the
        command's own checks, which say why."""
        try:
            folder = Folder.open(self.root / self.wiki_dir)
        except OSError:
            folder = None
        if folder is None:
            yield
            return

        def waiting() -> None:
            log.warning("another wikiwarden command is writing %s/: waiting for it to finish", self.wiki_dir)

        with folder, folder.locked(waiting) as problem:
            if problem is not None and POSIX:  # on Windows there is no lock to take (README): nothing to say
                log.warning("%s/ could not be locked (%s): written without the lock", self.wiki_dir, problem.strerror)
            self.snapshot = WorktreeSnapshot(self.root)  # read afresh: what was read before the lock may be stale
            yield

    def read_page(self, page: str) -> bytes:
        return self._check_real(page, must_exist=True).read_bytes()

    def read_sidecar(self, page: str) -> Sidecar | None:
        """The page's sidecar, None when it has none; SidecarError when it is not valid schema v1."""
        path = sidecar_for(page, self.wiki_dir)
        target = self._check_real(path, must_exist=False)
        if not target.exists():
            return None
        return parse_sidecar(target.read_bytes(), path)

    def write_sidecar(self, page: str, sidecar: Sidecar) -> str:
        """Write a page's sidecar, byte-identical to OpenWiki's, next to a page that must exist."""
        path = sidecar_for(page, self.wiki_dir)
        self._check_real(page, must_exist=True)
        self.write_file(path, render_sidecar(sidecar))
        return path

    def write_file(self, path: str, content: bytes) -> None:
        """Write atomically (a temporary file beside it, then rename over), never through a symlink."""
        if not (path + "/").startswith(self.wiki_dir + "/"):
            raise ValueError(f"{path} is outside the wiki folder {self.wiki_dir}/")
        self._check_real(path, must_exist=False)
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        self._check_real(path, must_exist=False)  # the folders just made are real; check nothing raced in
        content = _in_the_files_line_endings(target, content)
        temp = target.parent / f".{target.name}.{uuid.uuid4()}.tmp"
        try:
            with open(temp, "xb") as handle:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, target)
        finally:
            if temp.exists():
                temp.unlink()

    def files(self) -> tuple[dict[str, bytes], list[str]]:
        """Every regular file under the wiki folder, and the paths skipped because they are symlinks."""
        found: dict[str, bytes] = {}
        links: list[str] = []
        for path, entry in self.snapshot.walk(self.wiki_dir):
            if entry.kind is Kind.FILE:
                found[path] = self.snapshot.read(path)
            elif entry.kind is Kind.SYMLINK:
                links.append(path)
        return found, links

    def all_claims(self) -> list[tuple[str, Claim]]:
        """Every claim of every readable sidecar, as (page, claim); used to find ids and keep them unique."""
        found: list[tuple[str, Claim]] = []
        for loaded in load_wiki(self.snapshot, self.wiki_dir).pages:
            if loaded.sidecar is not None:
                found.extend((loaded.page, claim) for claim in loaded.sidecar.claims)
        return found

    def find(self, claim_id: str) -> str:
        """The page holding claim `claim_id`."""
        pages = [page for page, claim in self.all_claims() if claim.id == claim_id]
        if not pages:
            raise LookupError(f"no claim {claim_id} in {self.wiki_dir}/")
        if len(pages) > 1:
            raise LookupError(f"claim {claim_id} appears on several pages: {', '.join(pages)}")
        return pages[0]


def _in_the_files_line_endings(target: Path, content: bytes) -> bytes:
    """`content` with CRLF line endings where the file it replaces has them throughout (a Windows checkout: git's
    autocrlf or `eol=crlf` wrote it so): the working tree is read as git sees it, with LF, and a page a fix or a
    sync rewrites must not change every line's ending on disk. A new file, or one of mixed endings, is left LF."""
    try:
        existing = target.read_bytes() if target.is_file() and not target.is_symlink() else b""
    except OSError:
        return content
    lines = existing.count(b"\n")
    if not lines or existing.count(b"\r\n") != lines or b"\r\n" in content or b"\0" in content[:8000]:
        return content
    return content.replace(b"\n", b"\r\n")
