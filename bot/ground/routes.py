"""How a docs site's builder resolves a link to a source file: the routes of the site model (`bot.ground.site`).

A link a reader follows on the built site names a *route* (`/docs/server/context`, `../cli/index.html`), not always
a file of the repository. Each builder maps routes to its source files its own way (from its documentation):

- Docusaurus: a doc's route is the docs plugin's `routeBasePath` and its slug: its path in the docs folder
  without the extension, number prefixes (`01-intro`) stripped, the front matter `id` replacing the file's name,
  `index.md`, `README.md` or a file named like its folder standing for the folder, and a front matter `slug`
  replacing it all (from the docs folder when it starts with `/`, else from the file's folder). A blog post's
  route is its `slug`, else its date and name (`2025-02-17-x.md` at `/blog/2025/02/17/x`); `src/pages/x.tsx`
  is `/x`, `static/x.png` is `/x.png`. A file link (`/docs/a.mdx`) resolves from the docs folder, then the site.
  A URL path resolves against the page's own route.
- mdBook: `x.md` is served as `x.html`, a folder's `README.md` (or `index.md`) as its `index.html`.
- MkDocs and Sphinx: `x.md`/`x.rst` as `x.html` or `x/` (`references.link_paths`), and files MkDocs plugins
  write (`Site.generated`).
- Hugo: `/a/b/` from `content/a/b.md`, `content/a/b/index.md` or `_index.md`; `static/` as it is.
- Mintlify, VitePress, Starlight: a page at its path from the content folder without its extension (`index` its
  folder's), `public/` as it is.

A link the builder would resolve is not broken. One it cannot be mapped with certainty (a route whose settings are
not literal, a route a plugin or the front matter of a page not read makes, a page a build generates) is a note,
never a failure. Pure: the site, the repository's paths and the pages' front matter in, resolutions out.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from .site import ContentRoot, Site

_PAGE_SUFFIXES = (".md", ".mdx", ".markdown")
_SCRIPT_SUFFIXES = (".js", ".jsx", ".ts", ".tsx", ".md", ".mdx")
_NUMBER_PREFIX = re.compile(r"^\d+\s*[-_.]+\s*(?=[^-_.\s])")
_DATED = re.compile(r"^(\d{4})-(\d{2})-(\d{2})-(.+)$")
_FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_FRONT_KEY = re.compile(r"^(id|slug|url)[ \t]*:[ \t]*(['\"]?)([^'\"\n#]*?)\2[ \t]*(?:#.*)?$", re.M)
MAX_FRONT_MATTER = 16 * 1024  # a front matter longer than this is not read for routes


class Resolution(NamedTuple):
    """How a builder serves a link: `path` the source file it serves it from (the link is not broken); `note` why
    it cannot be mapped with certainty (a note, not a failure); neither: the builder maps it to nothing (broken)."""

    path: str | None = None
    note: str | None = None


def front_matter(text: str) -> dict[str, str]:
    """The route settings of a page's YAML front matter (`id`, `slug`, `url`), written as plain scalars."""
    head = text[: MAX_FRONT_MATTER + 8]
    match = _FRONT.match(head)
    if match is None:
        return {}
    return {m.group(1): m.group(3).strip() for m in _FRONT_KEY.finditer(match.group(1)) if m.group(3).strip()}


def _strip_numbers(part: str) -> str:
    return _NUMBER_PREFIX.sub("", part)


def _roots(site: Site, role: str) -> list[ContentRoot]:
    return [root for root in site.roots if root.role == role]


def _inside(path: str, folder: str) -> str | None:
    """`path` relative to `folder`, None when outside it."""
    if folder in ("", "."):
        return path
    return path[len(folder) + 1 :] if path.startswith(folder + "/") else None


def _route(base: str, slug: str) -> str:
    return "/".join(part for part in (base.strip("/"), slug.strip("/")) if part)


def docusaurus_doc_route(relative: str, front: Mapping[str, str], base: str) -> str:
    """The route of a doc at `relative` (from the docs folder) with its front matter, under the route `base`
    (Docusaurus' slug: see the module's rules)."""
    folder, name = posixpath.split(posixpath.splitext(relative)[0])
    folder_slug = "/".join(_strip_numbers(part) for part in folder.split("/") if part)
    slug = front.get("slug")
    if slug is not None and slug.startswith("/"):
        return _route(base, slug)
    unprefixed = _strip_numbers(name)
    index = unprefixed.lower() in ("index", "readme") or (bool(folder) and unprefixed == posixpath.basename(folder))
    if slug is None and index:
        return _route(base, folder_slug)
    last = slug if slug is not None else front.get("id", unprefixed)
    return _route(base, posixpath.normpath(posixpath.join("/" + folder_slug, last)))


def docusaurus_post_route(relative: str, front: Mapping[str, str], base: str) -> str:
    """The route of a blog post at `relative` (from the blog folder): its `slug`, else its date and name."""
    slug = front.get("slug")
    if slug is not None:
        return _route(base, slug)
    stem = posixpath.splitext(relative)[0]
    if posixpath.basename(stem).lower() in ("index", "readme"):
        stem = posixpath.dirname(stem)
    folder, name = posixpath.split(stem)
    dated = _DATED.match(name)
    if dated:
        name = "/".join(dated.groups())
    return _route(base, posixpath.join(folder, name) if folder else name)


@dataclass(frozen=True)
class Routes:
    """A site's routes: the builder's site model, the repository's paths, and the routes of its pages (route →
    source file) as far as the pages' front matter was read (`front_read`)."""

    site: Site
    paths: Collection[str]
    table: Mapping[str, str] = field(default_factory=dict)
    front_read: bool = False
    served: Mapping[str, str] = field(default_factory=dict)  # source file → its route (the table turned round)
    versions: tuple[str, ...] = ()  # Docusaurus' versioned docs folders (`www/versioned_docs/version-10.x`)

    def from_site(self, path: str) -> str | None:
        """The file `path` names when read from the site's own folder (the builder's configuration's, when that is
        not the repository's top), if it exists: a page names the site's files as its builder's root sees them."""
        site_dir = self.site.site_dir
        if not site_dir or site_dir == ".":
            return None
        joined = posixpath.normpath(posixpath.join(site_dir, path))
        return joined if joined in self.paths else None

    def route_of(self, page: str) -> str | None:
        """The route a page is served at, when the table knows it."""
        return self.served.get(page)


def front_matter_pages(site: Site, paths: Collection[str]) -> list[str]:
    """The pages whose front matter makes their routes (Docusaurus' docs and blog posts), to be read for `routes`."""
    if site.builder != "docusaurus":
        return []
    folders = [root.folder for root in site.roots if root.role in ("docs", "blog")]
    return sorted(
        p for p in paths if p.lower().endswith(_PAGE_SUFFIXES) and any(_inside(p, f) is not None for f in folders)
    )


def routes(site: Site, paths: Collection[str], fronts: Mapping[str, Mapping[str, str]] | None = None) -> Routes:
    """The site's routes: each Docusaurus doc and blog post's route from its path and front matter (`fronts`, a
    page → its `front_matter`; None when not read, and a slug or id then unknown)."""
    table: dict[str, str] = {}
    if site.builder == "docusaurus":
        for page in front_matter_pages(site, paths):
            name = posixpath.basename(page)
            if name.startswith("_"):
                continue  # a partial: imported by pages, never served
            front = (fronts or {}).get(page, {})
            for root in site.roots:
                relative = _inside(page, root.folder)
                if relative is None:
                    continue
                if root.role == "docs":
                    table.setdefault(docusaurus_doc_route(relative, front, root.route), page)
                elif root.role == "blog":
                    table.setdefault(docusaurus_post_route(relative, front, root.route), page)
    served: dict[str, str] = {}
    for route, page in table.items():
        served.setdefault(page, route)
    return Routes(site, paths, table, fronts is not None, served, _versions(site, paths))


def _versions(site: Site, paths: Collection[str]) -> tuple[str, ...]:
    """The folders of a Docusaurus site's older docs versions (`versioned_docs/version-*`)."""
    if site.builder != "docusaurus":
        return ()
    folder = _route(site.site_dir or "", "versioned_docs") + "/"
    found = {
        folder + p[len(folder) :].split("/", 1)[0] for p in paths if p.startswith(folder) and "/" in p[len(folder) :]
    }
    return tuple(sorted(found))


_UNKNOWN_ROUTE = "a route the site's builder makes that no source file here maps to with certainty"
_GENERATED = "a file the site's build generates (a plugin's page or a gen-files script's output), not a source file"
_NO_BUILDER = "a site route, and no builder configuration here says how the site maps routes to files"
_BLOG_ROUTE = "a blog route the builder makes (a post by its date or slug, an archive, a tag, a page of posts)"


def generated(site: Site, readings: list[str]) -> bool:
    """Whether a link's readings name a file the build generates (`Site.generated`, `Site.generated_dirs`)."""
    made = set(site.generated)
    return any(
        r in made or any(r.startswith(folder + "/") for folder in site.generated_dirs if folder) for r in readings
    )


def resolve_link(found: Routes, href: str, page: str, readings: list[str]) -> Resolution:
    """How the site's builder serves a link of `page` (`href` decoded, without its fragment or query) that none of
    its file `readings` (`references.link_paths`) names: a source file, a note, or nothing (broken)."""
    site = found.site
    if generated(site, readings):
        return Resolution(note=_GENERATED)
    builder = site.builder
    if builder == "docusaurus":
        return _docusaurus(found, href, page)
    if builder == "mdbook":
        return _mdbook(found, href, page)
    if builder in ("hugo", "mintlify", "vitepress", "starlight"):
        return _by_path(found, href, page)
    if builder is None and href.startswith("/") and not posixpath.splitext(href.rstrip("/"))[1]:
        return Resolution(note=_NO_BUILDER)
    return Resolution()


def _first(found: Routes, candidates: list[str]) -> str | None:
    return next((c for c in candidates if c in found.paths), None)


def _page_files(base: str, suffixes: tuple[str, ...] = _PAGE_SUFFIXES) -> list[str]:
    """The source files a route `base` may be served from: `base` itself (with an extension), `base.md`…,
    `base/index.md`…, `base.html` read as its page."""
    stem, suffix = posixpath.splitext(base)
    candidates = [base]
    if suffix.lower() in (".html", ".htm"):
        candidates += [stem + s for s in suffixes] + (
            [posixpath.join(posixpath.dirname(base), "README.md")] if posixpath.basename(stem) == "index" else []
        )
    candidates += [base + s for s in suffixes]
    candidates += [posixpath.join(base, "index" + s) for s in suffixes] + [posixpath.join(base, "_index.md")]
    candidates += [posixpath.join(base, "README.md")]
    return [posixpath.normpath(c) for c in candidates if c]


def _docusaurus(found: Routes, href: str, page: str) -> Resolution:
    site = found.site
    docs = _roots(site, "docs")
    blog = _roots(site, "blog")
    if href.startswith("/"):
        route = posixpath.normpath(href).strip("/")
        suffix = posixpath.splitext(route)[1].lower()
        if suffix in _PAGE_SUFFIXES:  # a file path: from the docs folder, then the site's
            bases = [root.folder for root in docs] + [site.site_dir or ""]
            path = _first(found, [posixpath.normpath(posixpath.join(b, route)) for b in bases])
            if path is not None:
                return Resolution(path)
        if route in found.table:
            return Resolution(found.table[route])
        for root in _roots(site, "static"):
            path = _first(found, [posixpath.join(root.folder, route), posixpath.join(root.folder, route, "index.html")])
            if path is not None:
                return Resolution(path)
        for root in _roots(site, "pages"):
            base = posixpath.join(root.folder, route) if route else root.folder
            path = _first(found, [base + s for s in _SCRIPT_SUFFIXES] + [f"{base}/index{s}" for s in _SCRIPT_SUFFIXES])
            if path is not None:
                return Resolution(path)
        if any(root.route and (route == root.route or route.startswith(root.route + "/")) for root in blog):
            return Resolution(note=_BLOG_ROUTE)
        for root in docs:
            if root.route and not (route == root.route or route.startswith(root.route + "/")):
                continue
            rest = route[len(root.route) :].strip("/") if root.route else route
            versioned = _versioned(found, rest)
            if versioned is not None:
                return versioned
            if not site.routes_known or not found.front_read:
                return Resolution(note=_UNKNOWN_ROUTE)
            if not root.route and not _in_a_section(found, rest):
                return Resolution(note=_UNKNOWN_ROUTE)  # docs at the site's top: any other plugin's route too
            return Resolution()
        return Resolution(note=_UNKNOWN_ROUTE)
    own = found.route_of(page)
    if own is None:
        return Resolution() if site.routes_known and found.front_read else Resolution(note=_UNKNOWN_ROUTE)
    target = posixpath.normpath(posixpath.join(posixpath.dirname("/" + own), href)).strip("/")
    if target in found.table:
        return Resolution(found.table[target])
    return Resolution() if site.routes_known else Resolution(note=_UNKNOWN_ROUTE)


def _in_a_section(found: Routes, route: str) -> bool:
    """Whether a route lies in a section the docs serve (its first segment is one of theirs)."""
    first = route.split("/", 1)[0]
    return bool(first) and any(known.split("/", 1)[0] == first for known in found.served.values())


def _versioned(found: Routes, rest: str) -> Resolution | None:
    """A route of an older version of the docs (`/docs/v10/x`, served from `versioned_docs/version-10.x/`): the
    version's path is a setting not read, so a route under one is a note unless its page is found."""
    if not found.versions or "/" not in rest:
        return None
    tail = rest.split("/", 1)[1]
    for version in found.versions:
        if _first(found, _page_files(posixpath.join(version, tail))) is not None:
            return Resolution(note="a route of an older version of the docs (versioned_docs): not checked")
    first = rest.split("/", 1)[0]
    if re.fullmatch(r"v?\d+(?:\.\w+)*", first):
        return Resolution(note="a route of an older version of the docs (versioned_docs): not checked")
    return None


def _mdbook(found: Routes, href: str, page: str) -> Resolution:
    """mdBook: `x.html` from `x.md`, `index.html` from the folder's `README.md` (or `index.md`); a link starting
    with `/` from the book's source folder."""
    roots = _roots(found.site, "docs")
    bases = [root.folder for root in roots] if href.startswith("/") else [posixpath.dirname(page)]
    for base in bases:
        target = posixpath.normpath(posixpath.join(base, href.lstrip("/")))
        if target.startswith("../"):
            continue
        path = _first(found, _page_files(target))
        if path is not None:
            return Resolution(path)
    return Resolution()


def _by_path(found: Routes, href: str, page: str) -> Resolution:
    """Hugo, Mintlify, VitePress, Starlight: a route from the content folder (after its route base), a page's path
    without its extension, or its folder's index; files from the static folder."""
    site = found.site
    if not href.startswith("/"):
        return Resolution()
    route = posixpath.normpath(href).strip("/")
    for root in site.roots:
        if root.route and not (route == root.route or route.startswith(root.route + "/")):
            continue
        rest = route[len(root.route) :].strip("/") if root.route else route
        base = posixpath.join(root.folder, rest) if rest else root.folder
        candidates = [base] if root.role == "static" else _page_files(base)
        path = _first(found, candidates)
        if path is not None:
            return Resolution(path)
    if not site.routes_known:
        return Resolution(note=_UNKNOWN_ROUTE)
    return Resolution()
