"""A local repository (`GitRepository`): commits resolved, trees and the index listed, blobs read, changes diffed."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from cachetools import LRUCache

from ...claims.snapshot import Change, FileChange
from .diff import DiffedFile, TreeEntry, _exact_renames, base_listing
from .process import _BLOB_CACHE_BYTES, _OPEN, GitError, MissingObjectError, _CatFile, _git, _git_side_by_side
from .snapshots import CommitSnapshot, IndexSnapshot
from .worktree import WorktreeSnapshot

# The empty blob's id (SHA-1 and SHA-256 repositories): `git add -N` records it as a placeholder in the index.
_EMPTY_BLOBS = frozenset(
    ("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813")
)
SHALLOW_HISTORY = (
    "this clone's history is shallow, so older commits are not in it; fetch more of it (`git fetch --deepen=100`, "
    "or `git fetch --unshallow`; on GitHub Actions, `fetch-depth: 0` for actions/checkout)"
)

# What a change is: full ids and modes at both ends, no user diff drivers, submodules always listed (renames: `_diff`).
_PATHSPECS_PER_LOG = 200  # paths one `git log` is limited to (a command line stays short)
_PATHSPEC_BYTES = 100_000  # the pathspecs of one `git diff` looking for renames (far below any system's limit)
_DIFF_RAW = ("diff", "--raw", "-z", "--no-abbrev", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none")
_LS_TREE_RECORD = re.compile(r"([0-7]+) [a-z]+ ([0-9a-f]+)\t([^\0]*)\0")  # `ls-tree -z`: mode, type, id, path

_WHERE = ("rev-parse", "--is-bare-repository", "--show-toplevel", "--git-common-dir")


class GitRepository:
    """A local repository: commits resolved, trees listed, blobs read once and cached by blob id."""

    def __init__(self, path: str | os.PathLike[str] = ".") -> None:
        start = Path(path)
        if not start.is_dir():
            raise GitError(f"{start} is not a directory")
        try:  # one git for the common case; when it fails, one question at a time says why
            bare, top, common = _git(start, *_WHERE).decode().splitlines()
        except (GitError, ValueError):
            bare, top, common = self._where_step_by_step(start), "", ""
        if bare == "true":
            raise GitError(f"{start} is a bare repository; a working tree is needed")
        if not top:
            try:
                top = _git(start, "rev-parse", "--show-toplevel").decode().strip()
            except GitError as exc:  # inside .git, for instance
                raise GitError(f"{start} is not inside the working tree of a git repository") from exc
        self.root = Path(top)
        self._common_dir = (start / common).absolute() if common else None  # git says it relative to where it ran
        self._cat: _CatFile | None = None  # contents
        self._check: _CatFile | None = None  # sizes
        self._blobs: LRUCache[str, bytes] = LRUCache(maxsize=_BLOB_CACHE_BYTES, getsizeof=len)
        self._sizes: dict[str, int | None] = {}  # None: the object store lacks the blob
        self._asked: set[str] = set()  # blobs asked of `_cat` ahead, answers not taken yet
        self._reading = threading.Lock()  # one reader of `_cat`'s answers at a time
        self._trees: dict[str, dict[str, TreeEntry]] = {}
        self._commits: set[str] = set()  # full commit ids `resolve` gave
        self._diffed: dict[str, tuple[str, tuple[DiffedFile, ...]]] = {}  # base commit → (head commit, raw diff)
        self._partial: bool | None = None  # a partial clone (`is_partial`)
        # diffs whose renames are only the exact ones (a partial clone lacking a blob: `_diff`), by (base, head,
        # staged); and the changes made of them, by id (the change kept, so its id names it)
        self._exact_only: dict[tuple[str, str | None, bool], tuple[DiffedFile, ...]] = {}
        self._unpaired: dict[int, tuple[Change, tuple[str, str | None, bool]]] = {}
        _OPEN.add(self)

    @staticmethod
    def _where_step_by_step(start: Path) -> str:
        """Whether `start` is in a bare repository ("true" or "false"); GitError when it is in none."""
        try:
            return _git(start, "rev-parse", "--is-bare-repository").decode().strip()
        except GitError as exc:
            raise GitError(f"{start} is not inside a git repository") from exc

    def _forget_pipes(self) -> None:
        """In a forked child: the cat-file processes are the parent's (a request from both would mix their
        answers), so the child starts its own when it needs one, and leaves the parent's alone."""
        self._cat = self._check = None
        self._asked = set()
        self._reading = threading.Lock()  # the parent's may have been held by another of its threads

    def _contents(self) -> _CatFile:
        if self._cat is None:
            self._cat = _CatFile(self.root, contents=True)
        return self._cat

    def __enter__(self) -> GitRepository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._reading:
            processes = [process for process in (self._cat, self._check) if process is not None]
            for process in processes:  # both told to end before either is waited for: they end side by side
                process.close(wait=False)
            for process in processes:
                process.reap()
            self._cat = self._check = None
            self._asked.clear()

    def git(self, *args: str) -> bytes:
        return _git(self.root, *args)

    def resolve(self, rev: str) -> str:
        """The full commit id of `rev`; GitError with a clear message when it names no commit."""
        if rev in self._commits:
            return rev  # a commit id it gave: it names that commit for good
        if rev.startswith("-"):
            raise GitError(f"not a revision: {rev!r}")
        try:
            commit = (
                self.git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}").decode().strip()
            )
        except GitError as exc:
            message = f"{rev!r} does not name a commit in {self.root}"
            raise GitError(f"{message}: {SHALLOW_HISTORY}" if self.is_shallow() else message) from exc
        self._commits.add(commit)
        return commit

    def common_dir(self) -> Path:
        """The repository's git directory shared by all its worktrees (`.git` of the main one)."""
        if self._common_dir is None:
            self._common_dir = self.root / self.git("rev-parse", "--git-common-dir").decode().strip()
        return self._common_dir

    def is_shallow(self) -> bool:
        """Whether this clone's history was cut (`git clone --depth`): older commits are then simply absent."""
        return self.git("rev-parse", "--is-shallow-repository").strip() == b"true"

    def tree(self, commit: str) -> dict[str, TreeEntry]:
        """Every file, symlink and submodule of a commit's tree, by path (cached by commit id). Sizes are not
        listed: that would read every blob, and a partial clone would fetch them all (`sizes` asks for some)."""
        listing = self._trees.get(commit)  # a snapshot's commit id: known already, no need to resolve it again
        if listing is not None:
            return listing
        commit = self.resolve(commit)
        listing = self._trees.get(commit)
        if listing is None:
            listing = self._derived_tree(commit)
        if listing is None:
            raw = self.git("ls-tree", "-r", "-z", "--full-tree", commit).decode("utf-8", "surrogateescape")
            new = tuple.__new__  # a listing holds an entry per file: a NamedTuple's own __new__ is Python code
            listing = {name: new(TreeEntry, (mode, oid)) for mode, oid, name in _LS_TREE_RECORD.findall(raw)}
        self._trees[commit] = listing
        return listing

    def _derived_tree(self, commit: str) -> dict[str, TreeEntry] | None:
        """The listing of a change's base commit from its head's listing and the change's raw diff, when the head's
        is known and the base was diffed with it: what `ls-tree` would give, without listing a second tree."""
        known = self._diffed.get(commit)
        if known is None or known[0] not in self._trees:
            return None
        return base_listing(self._trees[known[0]], known[1])

    def index(self) -> dict[str, TreeEntry]:
        """Every file, symlink and submodule of git's index (the one GIT_INDEX_FILE names, as `git commit -a` sets
        for its hooks), by path: what a commit would record now. Read afresh at each call, since staging changes it.

        An entry added with `git add -N` is left out, as a commit leaves it out; unmerged paths (a conflict in
        progress) are a GitError, since nothing is staged for them until the conflict is resolved.
        """
        listing: dict[str, TreeEntry] = {}
        unmerged: list[str] = []
        for record in self.git("ls-files", "--stage", "-z").split(b"\0"):
            if not record:
                continue
            meta, _, name = record.partition(b"\t")
            mode, oid, stage = meta.split()
            path = name.decode("utf-8", "surrogateescape")
            if stage != b"0":
                unmerged.append(path)
            else:
                listing[path] = TreeEntry(mode.decode(), oid.decode())
        if unmerged:
            named = ", ".join(dict.fromkeys(unmerged[:5])) + (", …" if len(set(unmerged)) > 5 else "")
            raise GitError(f"the index has unmerged paths ({named}): resolve the conflict and stage the result first")
        if any(entry.oid in _EMPTY_BLOBS for entry in listing.values()):
            for path in self._intended_only():
                listing.pop(path, None)
        return listing

    def _intended_only(self) -> set[str]:
        """Paths added with `git add -N`: new in the index only when intent-to-add entries are made visible."""

        def added(*flags: str) -> set[str]:
            out = self.git("diff", "--cached", "--name-only", "-z", "--no-renames", "--diff-filter=A", *flags, "--")
            return {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}

        return added("--ita-visible-in-index") - added()

    def head_commit(self) -> str | None:
        """HEAD's commit id; None before the first commit (an unborn branch)."""
        try:
            return self.git("rev-parse", "--verify", "--quiet", "HEAD^{commit}").decode().strip()
        except GitError:
            return None

    def ever_committed(self, commit: str | None, paths: Sequence[str]) -> set[str]:
        """Of `paths`, those some commit of `commit`'s history held (HEAD's when None; none before the first
        commit): one `git log` over the history, limited to those paths, in batches of pathspecs."""
        start = commit or self.head_commit()
        if start is None or not paths:
            return set()
        found: set[str] = set()
        wanted = list(dict.fromkeys(paths))
        for at in range(0, len(wanted), _PATHSPECS_PER_LOG):
            specs = [f":(literal){p}" for p in wanted[at : at + _PATHSPECS_PER_LOG]]
            out = self.git("log", "--format=", "--name-only", "-z", "--no-renames", start, "--", *specs)
            found.update(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p.strip())
        return found & set(wanted)

    def sizes(self, oids: Iterable[str]) -> dict[str, int | None]:
        """Sizes by blob id, None for a blob the object store lacks; one pipelined `--batch-check` for what is not
        known yet (a partial clone fetches the blobs it lacks here, and only those)."""
        wanted = list(dict.fromkeys(oids))
        unknown = [oid for oid in wanted if oid not in self._sizes]
        if unknown:
            if self._check is None:
                self._check = _CatFile(self.root, contents=False)
            for oid, answer in zip(unknown, self._check.read(unknown), strict=True):
                self._sizes[oid] = answer[0] if answer is not None else None
        return {oid: self._sizes[oid] for oid in wanted}

    def read_ahead(self, oids: Iterable[str]) -> None:
        """Ask git for these blobs now, in this order: `read_blobs` takes each as git answers it, so the caller
        works on one while git reads the next (a sweep reads its sidecars and files in the order it asked)."""
        with self._reading:
            new = [
                oid
                for oid in dict.fromkeys(oids)
                if oid not in self._blobs and oid not in self._asked and self._sizes.get(oid, 0) is not None
            ]
            if new:
                self._contents().ask(new)
                self._asked.update(new)

    def read_blobs(self, oids: Iterable[str], *, strict: bool = True) -> dict[str, bytes]:
        """Contents by blob id, through the cache and one pipelined batch for what is not cached (after the answers
        to what was asked ahead). A blob the object store lacks raises MissingObjectError, or is left out when
        not `strict`."""
        with self._reading:
            wanted = list(dict.fromkeys(oids))
            found = {oid: data for oid in wanted if (data := self._blobs.get(oid)) is not None}
            missing = {oid for oid in wanted if oid not in found and self._sizes.get(oid, 0) is not None}
            asked_now = set(missing)
            if missing:
                cat = self._contents()
                new = [oid for oid in wanted if oid in missing and oid not in self._asked]
                cat.ask(new)
                self._asked.update(new)
                while missing:
                    oid, answer = cat.answer()
                    self._asked.discard(oid)
                    missing.discard(oid)
                    if answer is None:
                        self._sizes[oid] = None
                        continue
                    data = answer[1]
                    self._sizes[oid] = len(data)
                    if len(data) <= _BLOB_CACHE_BYTES // 8:  # a huge blob would evict everything else
                        self._blobs[oid] = data
                    if oid in asked_now:
                        found[oid] = data
        if strict:
            for oid in wanted:
                if oid not in found:
                    raise MissingObjectError(f"object {oid} is missing from {self.root}")
        return found

    def commits_touching(self, path: str, limit: int) -> list[str]:
        """The last `limit` commits of HEAD's history that changed `path`, newest first (none before a first
        commit)."""
        try:
            out = self.git("log", f"-n{limit}", "--format=%H", "HEAD", "--", path)
        except GitError:
            return []
        return out.decode().split()

    def snapshot(self, rev: str, label: str | None = None) -> CommitSnapshot:
        return CommitSnapshot(self, self.resolve(rev), label or rev)

    def worktree(self) -> WorktreeSnapshot:
        return WorktreeSnapshot(self.root, repo=self)

    def staged(self) -> IndexSnapshot:
        return IndexSnapshot(self)

    def change(self, base: str, head: str | None = None, label: str | None = None, *, staged: bool = False) -> Change:
        """The change from commit `base` to commit `head` (the working tree when None, the index when `staged`),
        with its base snapshot."""
        base_snapshot = self.snapshot(base, label)
        diffed = self._diff(base_snapshot.commit, head, staged=staged)
        if head is not None:
            self._diffed[base_snapshot.commit] = (head, diffed)
        change = Change(base_snapshot, self._file_changes(diffed, untracked=head is None and not staged))
        key = (base_snapshot.commit, head, staged)
        if key in self._exact_only:
            self._unpaired[id(change)] = (change, key)
        return change

    def renames(self, change: Change, deleted: Collection[str]) -> Change:
        """`change` with git's renames (`-M`) looked for from the files of `deleted` it shows deleted, when its diff
        found only the exact ones (a partial clone lacking a blob: `_diff`): git reads those files' blobs (fetching
        them: they are the ones the wiki cites) and the added files' (a sweep reads those anyway when a file it
        cites is touched), no other. `change` itself when there is nothing to look for, or the blobs cannot be had
        (the claims citing them are errors then)."""
        known = self._unpaired.get(id(change))
        if known is None or known[0] is not change:
            return change
        base, head, staged = key = known[1]
        listed = self._exact_only[key]
        gone = {f.old_path for f in listed if f.status == "D"} & set(deleted)
        added = [f.new_path for f in listed if f.status == "A"]
        specs = [f":(literal){path}" for path in (*sorted(gone), *added)]
        if not gone or not added or sum(len(spec) + 1 for spec in specs) > _PATHSPEC_BYTES:
            return change
        try:
            found = self._raw_diff(base, head, staged=staged, renames=True, paths=specs)
        except GitError:
            return change
        pairs = {f.old_path: f.new_path for f, _ in found if f.status == "R" and f.old_path in gone}
        if not pairs:
            return change
        targets = set(pairs.values())
        files = [
            FileChange(f.old_path, pairs[f.old_path]) if f.new_path is None and f.old_path in pairs else f
            for f in change.files
            if not (f.old_path is None and f.new_path in targets)
        ]
        return Change(change.base, tuple(files))

    def changes(self, base: str, head: str | None = None, *, staged: bool = False) -> tuple[FileChange, ...]:
        """Files that differ from commit `base` to commit `head`, or to the index when `staged`, or to the working
        tree when neither.

        Renames come from git's rename detection. Against the working tree, untracked files (not
        ignored) count as added, since code moved into a new file is part of the change; against the index,
        only what is staged counts, as only that will be committed.
        """
        return self._file_changes(self._diff(base, head, staged=staged), untracked=head is None and not staged)

    def _diff(self, base: str, head: str | None, *, staged: bool) -> tuple[DiffedFile, ...]:
        """`git diff --raw` from `base` (see `changes`): each file's status, paths and entry at the base.

        Renames are git's (`-M`), which reads the deleted and added files' blobs to compare them. In a partial
        clone a blob its object store lacks would be fetched for that, or, the remote out of reach, fail the whole
        diff: there the diff is listed without renames first (no blob read), and when a deleted or an added file's
        blob is missing, renames are only those git finds without reading a blob, files of identical content
        (`_exact_renames`); otherwise git's `-M` runs as everywhere else.
        """
        if staged and head is not None:
            raise ValueError("a change ends at a commit or at the index, not both")
        if not self.is_partial():
            return tuple(file for file, _ in self._raw_diff(base, head, staged=staged, renames=True))
        listed = self._raw_diff(base, head, staged=staged, renames=False)
        deleted = [file.old.oid for file, _ in listed if file.status == "D" and file.old is not None]
        added = [new.oid for file, new in listed if file.status == "A" and new is not None]
        if not deleted or not added:
            return tuple(file for file, _ in listed)  # nothing to pair
        if not self._lacks_any(base, head, deleted, added):
            return tuple(file for file, _ in self._raw_diff(base, head, staged=staged, renames=True))
        exact = self._exact_only[base, head, staged] = _exact_renames(listed)
        return exact

    def _raw_diff(
        self, base: str, head: str | None, *, staged: bool, renames: bool, paths: Sequence[str] = ()
    ) -> list[tuple[DiffedFile, TreeEntry | None]]:
        """Each file of `git diff --raw` (limited to the pathspecs `paths`, when given) with its entry at the head
        (None when deleted)."""
        args = [*_DIFF_RAW, "-M" if renames else "--no-renames"]
        if staged:
            args.append("--cached")
        args.append(base)
        if head is not None:
            args.append(head)
        fields = self.git(*args, "--", *paths).split(b"\0")
        diffed: list[tuple[DiffedFile, TreeEntry | None]] = []
        i = 0
        while i < len(fields) and fields[i]:
            old_mode, new_mode, old_oid, new_oid, status = fields[i][1:].decode().split(" ")
            if status[0] in "RC":
                old, new = fields[i + 1], fields[i + 2]
                i += 3
            else:
                old = new = fields[i + 1]
                i += 2
            entry = TreeEntry(old_mode, old_oid) if status[0] not in "AC" else None
            file = DiffedFile(
                status[0], old.decode("utf-8", "surrogateescape"), new.decode("utf-8", "surrogateescape"), entry
            )
            diffed.append((file, TreeEntry(new_mode, new_oid) if status[0] != "D" else None))
        return diffed

    def is_partial(self) -> bool:
        """Whether this is a partial clone (`git clone --filter`): its object store may lack blobs, fetched from
        a promisor remote when asked for. Told by the repository's config file (`extensions.partialClone`, or a
        remote's `promisor`), read once."""
        if self._partial is None:
            try:
                text = (self.common_dir() / "config").read_text("utf-8", "replace").lower()
            except OSError:
                text = ""
            self._partial = "partialclone" in text or "promisor" in text
        return self._partial

    def _lacks_any(self, base: str, head: str | None, deleted: list[str], added: list[str]) -> bool:
        """Whether the object store lacks one of these blobs, `deleted` at `base` and `added` at `head` (a commit;
        the index's or the working tree's are on disk): asked of `git rev-list --missing=print` over the trees,
        which fetches nothing."""
        base_tree = f"{self.resolve(base)}^{{tree}}"
        listing = ("rev-list", "--objects", "--missing=print", "--no-object-names")
        if head is None:
            outputs = [self.git(*listing, base_tree)]
        else:
            head_tree = f"{self.resolve(head)}^{{tree}}"
            commands = ((*listing, base_tree, f"^{head_tree}"), (*listing, head_tree, f"^{base_tree}"))
            outputs = _git_side_by_side(self.root, *commands)
        missing = {line[1:] for out in outputs for line in out.decode().split() if line.startswith("?")}
        return any(oid in missing for oid in deleted) or (head is not None and any(oid in missing for oid in added))

    def _file_changes(self, diffed: tuple[DiffedFile, ...], *, untracked: bool) -> tuple[FileChange, ...]:
        changes: list[FileChange] = []
        for file in diffed:
            if file.status in "AC":  # a copy's source is unchanged: only its new file is part of the change
                changes.append(FileChange(None, file.new_path))
            elif file.status == "D":
                changes.append(FileChange(file.old_path, None))
            else:
                changes.append(FileChange(file.old_path, file.new_path))
        if untracked:
            listed = self.git("ls-files", "-z", "--others", "--exclude-standard", "--full-name")
            changes.extend(FileChange(None, p.decode("utf-8", "surrogateescape")) for p in listed.split(b"\0") if p)
        return tuple(changes)
