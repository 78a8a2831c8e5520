"""Which Markdown files of the wiki are grounded pages, and where each page's sidecar lives (§1.1)."""

from __future__ import annotations

import posixpath

from .snapshot import Kind, Snapshot

DEFAULT_WIKI_DIR = "openwiki"
CONFIG_PATH = ".github/wikiwarden.yml"  # a repository's own settings (read by bot.usecases.config)
CLAIMS_DIR = ".claims"
RESERVED_PAGES = frozenset({"index.md", "log.md", "instructions.md", "_plan.md"})


def normalize_wiki_dir(wiki_dir: str) -> str:
    """A repository-relative folder without leading or trailing slashes; refuses escapes and the root."""
    cleaned = posixpath.normpath(wiki_dir.replace("\\", "/").strip()).strip("/")
    first = cleaned.split("/", 1)[0].lower()
    if cleaned in ("", "."):
        raise ValueError(
            f"the wiki folder cannot be the repository's top ({wiki_dir!r}): every file of the repository would be a "
            "page of it, and the code a page names would be the wiki. Name the folder that holds the docs (docs, "
            "openwiki, or `wiki_dir` in .github/wikiwarden.yml); a README at the top is not checked"
        )
    if first in ("..", ".git"):
        raise ValueError(f"wiki folder must be a folder inside the repository, got {wiki_dir!r}")
    return cleaned


def normalize_repo_path(value: str) -> str:
    """A file path of the repository, relative to its top; ValueError for one outside it or the top itself."""
    cleaned = posixpath.normpath(value.replace("\\", "/").strip()).lstrip("/")
    if cleaned in ("", ".") or cleaned.split("/", 1)[0] in ("..", ".git"):
        raise ValueError(f"must be a file inside the repository, got {value!r}")
    return cleaned


class WikiFolderError(ValueError):
    """The folder named as the wiki cannot be it: missing, a file, a symlink, or its `.claims` is one."""


def wiki_folder_problem(snapshot: Snapshot, wiki_dir: str) -> str | None:
    """Why `wiki_dir` cannot be the wiki in `snapshot`, in words, or None.

    A check of a folder that is not there would find no page and pass, and OpenWiki neither reads nor writes a
    wiki or its claims through a symlink (a walk skips them, so they too would pass unchecked).
    """
    where = snapshot.label if snapshot.commit is not None else f"the {snapshot.label}"  # the working tree, the index
    found = snapshot.entry(wiki_dir)
    if found is None:
        return f"the wiki folder {wiki_dir}/ does not exist in {where}; name it with --wiki-dir"
    if found.kind is Kind.SYMLINK:
        return (
            f"the wiki folder {wiki_dir} is a symlink (or lies under one) in {where}; OpenWiki neither reads nor "
            "writes a wiki through one: name the real folder"
        )
    if found.kind is not Kind.DIRECTORY:
        return f"the wiki folder {wiki_dir} is not a folder in {where}"
    claims = f"{wiki_dir}/{CLAIMS_DIR}"
    below = snapshot.entry(claims)
    if below is not None and below.kind is Kind.SYMLINK:
        return f"{claims} is a symlink in {where}; OpenWiki neither reads nor writes claims through one"
    if below is not None and below.kind is not Kind.DIRECTORY:
        return f"{claims} is not a folder in {where}"
    return None


def require_wiki_folder(snapshot: Snapshot, wiki_dir: str) -> None:
    """Raise WikiFolderError when `wiki_dir` cannot be the wiki in `snapshot`."""
    problem = wiki_folder_problem(snapshot, wiki_dir)
    if problem is not None:
        raise WikiFolderError(problem)


def is_grounded_page(relative: str) -> bool:
    """OpenWiki's `isGroundedWikiPage` for a path relative to the wiki folder."""
    segments = relative.split("/")
    if not relative.endswith(".md") or any(s in ("", ".", "..") for s in segments):
        return False
    if any(s.lower() == CLAIMS_DIR for s in segments[:-1]):
        return False
    return segments[-1].lower() not in RESERVED_PAGES


def sidecar_for(page: str, wiki_dir: str) -> str:
    """`<wiki>/a/b.md` → `<wiki>/.claims/a/b.json`."""
    relative = _relative(page, wiki_dir)
    if not relative.endswith(".md"):
        raise ValueError(f"{page!r} is not a Markdown page")
    return f"{wiki_dir}/{CLAIMS_DIR}/{relative[: -len('.md')]}.json"


def page_for(sidecar: str, wiki_dir: str) -> str:
    """`<wiki>/.claims/a/b.json` → `<wiki>/a/b.md`."""
    relative = _relative(sidecar, f"{wiki_dir}/{CLAIMS_DIR}")
    if not relative.endswith(".json"):
        raise ValueError(f"{sidecar!r} is not a sidecar (.json)")
    return f"{wiki_dir}/{relative[: -len('.json')]}.md"


def is_sidecar(path: str, wiki_dir: str) -> bool:
    prefix = f"{wiki_dir}/{CLAIMS_DIR}/"
    return path.startswith(prefix) and path.endswith(".json") and not posixpath.basename(path).startswith(".")


def page_argument(argument: str, wiki_dir: str) -> str:
    """A page named as OpenWiki's tools accept it (`/<wiki>/x.md`, `<wiki>/x.md`, or `x.md`) → `<wiki>/x.md`."""
    path = argument.replace("\\", "/").lstrip("/")
    if path.startswith("./"):
        path = path[2:]
    if not (path + "/").startswith(wiki_dir + "/"):
        path = f"{wiki_dir}/{path}"
    relative = _relative(path, wiki_dir)
    if not is_grounded_page(relative):
        raise ValueError(f"{argument!r} is not a grounded wiki page (a .md file in {wiki_dir}/, not a reserved one)")
    return path


def _relative(path: str, folder: str) -> str:
    prefix = folder + "/"
    if not path.startswith(prefix):
        raise ValueError(f"{path!r} is not inside {folder}/")
    return path[len(prefix) :]
