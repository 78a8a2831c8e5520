"""Git objects exactly as git stores them: blob, tree and commit bytes, their SHA-1 ids, and a commit graph.

Everything here is byte-compatible with git (`git hash-object`, `git mktree`, `git commit-tree`), so the
shas the fake hands out are the shas a real clone of the same content would have.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MODE_FILE = "100644"
MODE_EXECUTABLE = "100755"
MODE_SYMLINK = "120000"
MODE_TREE = "40000"  # as git writes it inside tree objects; the REST API shows "040000"
MODE_GITLINK = "160000"
BLOB_MODES = frozenset({MODE_FILE, MODE_EXECUTABLE, MODE_SYMLINK})
ZERO_SHA = "0" * 40


def object_id(kind: str, data: bytes) -> str:
    """git's object id: SHA-1 over `<kind> <len>\\0<data>`."""
    header = f"{kind} {len(data)}\0".encode()
    return hashlib.sha1(header + data, usedforsecurity=False).hexdigest()


def api_mode(mode: str) -> str:
    """The mode as the REST API spells it (trees are "040000")."""
    return "040000" if mode == MODE_TREE else mode


def kind_of_mode(mode: str) -> str:
    """The object type a tree entry of this mode points at."""
    if mode == MODE_TREE:
        return "tree"
    if mode == MODE_GITLINK:
        return "commit"
    return "blob"


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One entry of a tree object."""

    mode: str
    name: str
    sha: str

    @property
    def kind(self) -> str:
        return kind_of_mode(self.mode)


def tree_sort_key(entry: TreeEntry) -> bytes:
    """git's tree order: names as bytes, a subtree compared as if its name ended in '/'."""
    name = entry.name.encode()
    return name + b"/" if entry.mode == MODE_TREE else name


def serialize_tree(entries: Iterable[TreeEntry]) -> bytes:
    """The bytes of a tree object: `<mode> <name>\\0<20-byte sha>` per entry, in git's order."""
    ordered = sorted(entries, key=tree_sort_key)
    names = [e.name for e in ordered]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate names in a tree: {names}")
    out = bytearray()
    for entry in ordered:
        if not entry.name or "/" in entry.name or entry.name in (".", ".."):
            raise ValueError(f"invalid tree entry name {entry.name!r}")
        out += f"{entry.mode} {entry.name}\0".encode() + bytes.fromhex(entry.sha)
    return bytes(out)


def parse_tree(data: bytes) -> tuple[TreeEntry, ...]:
    entries = []
    pos = 0
    while pos < len(data):
        space = data.index(b" ", pos)
        nul = data.index(b"\0", space)
        mode = data[pos:space].decode()
        name = data[space + 1 : nul].decode()
        sha = data[nul + 1 : nul + 21].hex()
        entries.append(TreeEntry(mode, name, sha))
        pos = nul + 21
    return tuple(entries)


@dataclass(frozen=True, slots=True)
class Signature:
    """An author or committer line: name, email, epoch seconds and a `+HHMM` offset."""

    name: str
    email: str
    timestamp: int
    offset: str = "+0000"

    def line(self) -> str:
        return f"{self.name} <{self.email}> {self.timestamp} {self.offset}"

    def iso(self) -> str:
        """The date as GitHub's REST API shows it (UTC, `Z`)."""
        return datetime.fromtimestamp(self.timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    @staticmethod
    def parse_line(text: str) -> Signature:
        head, _, rest = text.rpartition(">")
        name, _, email = head.partition(" <")
        timestamp, _, offset = rest.strip().partition(" ")
        return Signature(name, email, int(timestamp), offset or "+0000")

    @staticmethod
    def from_iso(name: str, email: str, iso: str) -> Signature:
        """A signature from an ISO 8601 date as the REST API accepts it (`2024-01-01T00:00:00Z`)."""
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        delta = moment.utcoffset() or timedelta(0)
        minutes = int(delta.total_seconds()) // 60
        sign = "-" if minutes < 0 else "+"
        offset = f"{sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"
        return Signature(name, email, int(moment.timestamp()), offset)


def serialize_commit(tree: str, parents: Iterable[str], author: Signature, committer: Signature, message: str) -> bytes:
    """The bytes of a commit object, as `git commit-tree` writes them (the message verbatim)."""
    lines = [f"tree {tree}"]
    lines += [f"parent {p}" for p in parents]
    lines += [f"author {author.line()}", f"committer {committer.line()}"]
    return ("\n".join(lines) + "\n\n" + message).encode()


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str
    tree: str
    parents: tuple[str, ...]
    author: Signature
    committer: Signature
    message: str


def parse_commit(sha: str, data: bytes) -> Commit:
    text = data.decode()
    header, _, message = text.partition("\n\n")
    tree = ""
    parents: list[str] = []
    author = committer = None
    for line in header.split("\n"):
        key, _, value = line.partition(" ")
        if key == "tree":
            tree = value
        elif key == "parent":
            parents.append(value)
        elif key == "author":
            author = Signature.parse_line(value)
        elif key == "committer":
            committer = Signature.parse_line(value)
    assert author is not None and committer is not None
    return Commit(sha, tree, tuple(parents), author, committer, message)


Flat = dict[str, tuple[str, str]]  # path -> (mode, sha), for everything but trees


class ObjectStore:
    """A repository's object database: raw objects by id, parsed on demand, plus graph queries."""

    def __init__(self) -> None:
        self.objects: dict[str, tuple[str, bytes]] = {}
        self._trees: dict[str, tuple[TreeEntry, ...]] = {}
        self._commits: dict[str, Commit] = {}
        self._order: dict[str, int] = {}  # creation order, to break date ties deterministically

    # -- writing ---------------------------------------------------------------------------------------
    def put(self, kind: str, data: bytes) -> str:
        sha = object_id(kind, data)
        if sha not in self.objects:
            self.objects[sha] = (kind, data)
            self._order[sha] = len(self._order)
        return sha

    def put_blob(self, data: bytes) -> str:
        return self.put("blob", data)

    def put_tree(self, entries: Iterable[TreeEntry]) -> str:
        return self.put("tree", serialize_tree(entries))

    def put_commit(
        self, tree: str, parents: Iterable[str], author: Signature, committer: Signature, message: str
    ) -> str:
        parents = tuple(parents)
        if self.kind(tree) != "tree":
            raise KeyError(f"no tree {tree}")
        for parent in parents:
            if self.kind(parent) != "commit":
                raise KeyError(f"no commit {parent}")
        return self.put("commit", serialize_commit(tree, parents, author, committer, message))

    # -- reading ---------------------------------------------------------------------------------------
    def kind(self, sha: str) -> str | None:
        found = self.objects.get(sha)
        return found[0] if found else None

    def read_blob(self, sha: str) -> bytes:
        kind, data = self.objects[sha]
        if kind != "blob":
            raise KeyError(f"{sha} is a {kind}, not a blob")
        return data

    def read_tree(self, sha: str) -> tuple[TreeEntry, ...]:
        cached = self._trees.get(sha)
        if cached is None:
            kind, data = self.objects[sha]
            if kind != "tree":
                raise KeyError(f"{sha} is a {kind}, not a tree")
            cached = self._trees[sha] = parse_tree(data)
        return cached

    def read_commit(self, sha: str) -> Commit:
        cached = self._commits.get(sha)
        if cached is None:
            kind, data = self.objects[sha]
            if kind != "commit":
                raise KeyError(f"{sha} is a {kind}, not a commit")
            cached = self._commits[sha] = parse_commit(sha, data)
        return cached

    def walk(self, tree: str, prefix: str = "") -> Iterator[tuple[str, TreeEntry]]:
        """Every entry under `tree`, depth first, a subtree listed before its contents (`ls-tree -r -t`)."""
        for entry in self.read_tree(tree):
            path = prefix + entry.name
            yield path, entry
            if entry.mode == MODE_TREE:
                yield from self.walk(entry.sha, path + "/")

    def lookup(self, tree: str | None, path: str) -> tuple[str, str] | None:
        """(mode, sha) of the entry at `path` under `tree` (a subtree for a directory), or None."""
        if tree is None:
            return None
        mode, sha = MODE_TREE, tree
        for part in path.strip("/").split("/"):
            if mode != MODE_TREE:
                return None
            entry = next((e for e in self.read_tree(sha) if e.name == part), None)
            if entry is None:
                return None
            mode, sha = entry.mode, entry.sha
        return mode, sha

    def flatten(self, tree: str | None) -> Flat:
        """path -> (mode, sha) of every non-tree entry under `tree` (None: the empty tree)."""
        if tree is None:
            return {}
        return {path: (e.mode, e.sha) for path, e in self.walk(tree) if e.mode != MODE_TREE}

    def build(self, flat: Mapping[str, tuple[str, str]]) -> str:
        """Write the trees holding `flat` (path -> (mode, sha)) and return the root tree's id."""
        root: dict = {}
        for path, (mode, sha) in flat.items():
            parts = path.split("/")
            node = root
            for part in parts[:-1]:
                child = node.setdefault(part, {})
                if not isinstance(child, dict):
                    raise ValueError(f"{path}: {part} is a file")
                node = child
            if isinstance(node.get(parts[-1]), dict):
                raise ValueError(f"{path} is a directory")
            node[parts[-1]] = (mode, sha)
        return self._write(root)

    def _write(self, node: dict) -> str:
        entries = []
        for name, value in node.items():
            if isinstance(value, dict):
                entries.append(TreeEntry(MODE_TREE, name, self._write(value)))
            else:
                entries.append(TreeEntry(value[0], name, value[1]))
        return self.put_tree(entries)

    # -- the commit graph ------------------------------------------------------------------------------
    def ancestors(self, sha: str) -> set[str]:
        """`sha` and every commit reachable from it."""
        seen = {sha}
        stack = [sha]
        while stack:
            for parent in self.read_commit(stack.pop()).parents:
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        return seen

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        return ancestor in self.ancestors(descendant)

    def merge_bases(self, a: str, b: str) -> list[str]:
        """The best common ancestors of `a` and `b` (`git merge-base --all`), newest first."""
        common = self.ancestors(a) & self.ancestors(b)
        dominated: set[str] = set()
        stack = [p for c in common for p in self.read_commit(c).parents]
        while stack:
            sha = stack.pop()
            if sha not in dominated:
                dominated.add(sha)
                stack.extend(self.read_commit(sha).parents)
        return self.by_date(common - dominated)

    def merge_base(self, a: str, b: str) -> str | None:
        bases = self.merge_bases(a, b)
        return bases[0] if bases else None

    def by_date(self, shas: Iterable[str]) -> list[str]:
        """Commits newest first by committer date, later-created first on ties."""
        return sorted(shas, key=self._date_key)

    def _date_key(self, sha: str) -> tuple[int, int]:
        return (-self.read_commit(sha).committer.timestamp, -self._order.get(sha, 0))

    def log(self, heads: Iterable[str], exclude: Iterable[str] = ()) -> list[str]:
        """`git log heads --not exclude`: reachable commits newest first (git's default date order)."""
        hidden: set[str] = set()
        for sha in exclude:
            hidden |= self.ancestors(sha)
        queue = [(self._date_key(h), h) for h in set(heads) if h not in hidden]
        heapq.heapify(queue)
        seen = {h for _, h in queue}
        out = []
        while queue:
            _, sha = heapq.heappop(queue)
            out.append(sha)
            for parent in self.read_commit(sha).parents:
                if parent not in seen and parent not in hidden:
                    seen.add(parent)
                    heapq.heappush(queue, (self._date_key(parent), parent))
        return out
