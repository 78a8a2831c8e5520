"""The docs site as its builder sees it: which pages MkDocs or Sphinx publishes, which are include fragments, blog
posts, or excluded, read from the site's own configuration without running anything.

MkDocs: `mkdocs.yml` (or `mkdocs.yaml`) with its `INHERIT` chain merged as MkDocs merges it (mappings deeply,
anything else replaced), `docs_dir`, `exclude_docs` and `not_in_nav` (gitignore-style, relative to `docs_dir`;
MkDocs always leaves out dot files and `templates/`), the `pymdownx.snippets` extension's `base_path`s and the
Material blog plugin's `blog_dir` and `post_dir`. YAML is read capped (`bot.okf.yaml12`), and a tag only the
builder resolves (`!!python/name:…`, `!ENV`) reads as nothing. Sphinx: `conf.py` read with `ast`, never run:
`exclude_patterns`, `root_doc`/`master_doc`, `source_suffix`, each taken only when written as a literal.

Includes are read off the pages: `--8<-- "path"` lines (and their block form) resolve against the snippets' base
paths; `.. include:: path` against the including page's folder (a leading `/` against Sphinx's source folder). A
fragment is a page another page includes, or one under a snippet base path that the site excludes: its text is
read only through its includers, so its relative links resolve from each of them.

The builder that serves the wiki folder (`builder`), for how its links map to source files (`bot.ground.routes`):
MkDocs and Sphinx as above; otherwise the nearest configuration at or above the wiki folder: Docusaurus
(`docusaurus.config.*`: the docs, blog and pages plugins' folders and route bases), mdBook (`book.toml`'s `src`),
Hugo (`hugo.*`, or `config.*` beside a `content/` wiki), Mintlify (`mint.json`, `docs.json`), VitePress
(`.vitepress/config.*`), Astro Starlight (`astro.config.*` naming starlight). JavaScript and TypeScript configs are
never run: only literal settings are read, by bounded linear scans, and a setting written any other way makes the
site's routes unknown (`routes_known`: an unmapped route is then a note, never a failure). MkDocs' plugins that
generate files (`gen-files` scripts' literal outputs, `coverage`'s page, `redirects`' old pages, `llmstxt`'s
files) are listed in `generated`. Pure: a file reader in, a `Site` out.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..claims.ignore import IgnoreRules

MKDOCS_CONFIGS = ("mkdocs.yml", "mkdocs.yaml")
SPHINX_FOLDERS = ("docs", "doc", "documentation", "docs/source", "doc/source", "source", ".")
MAX_INHERIT = 8  # INHERIT chains longer than this are refused (a loop, or a config no site needs)
MAX_CONFIG_BYTES = 256 * 1024
_MKDOCS_ALWAYS_EXCLUDED = ".*\n/templates/\n"
_BLOG_PLUGINS = frozenset({"blog", "material/blog"})
_SNIPPET_LINE = re.compile(r"^[ \t]*(;?)-{1,}8<-{1,}[ \t]*(?:(['\"])(.+?)\2)?[ \t]*$")
_RST_INCLUDE = re.compile(r"^[ \t]*\.\.[ \t]+(?:include|literalinclude)::[ \t]*(\S+)[ \t]*$", re.M)
_CURRENT_MODULE = re.compile(r"^[ \t]*\.\.[ \t]+(?:py:)?(currentmodule|module)::[ \t]*(\S*)[ \t]*$", re.M)
_PART_SUFFIX = re.compile(r"(?::-?[0-9]*){1,2}$|:[A-Za-z_][\w-]*$")
MAX_SCANNED_SCRIPTS = 8  # gen-files scripts read for the files they write


@dataclass(frozen=True)
class ContentRoot:
    """A folder of source files a builder serves under a route: `folder` from the repository's top, `route` the URL
    path it is served at without slashes ("" the site's top), `role` what the builder makes of it: "docs" (pages
    with routes of their own), "blog" (posts), "pages" (a page per file), "static" (files served as they are)."""

    folder: str
    route: str
    role: str


@dataclass(frozen=True)
class Site:
    """What a docs site's builder publishes. `kind` None: no MkDocs or Sphinx configuration was found (every page
    of the wiki folder is a page, nothing is excluded)."""

    kind: str | None = None  # "mkdocs" or "sphinx"
    config: str | None = None  # the file read (the top of an INHERIT chain)
    docs_dir: str | None = None  # the folder the builder reads pages from, from the repository's top
    exclude: IgnoreRules = field(default_factory=IgnoreRules)  # patterns relative to docs_dir
    not_in_nav: IgnoreRules = field(default_factory=IgnoreRules)
    has_nav: bool = False  # an explicit `nav:`
    snippet_bases: tuple[str, ...] = ()  # pymdownx.snippets' base paths, from the repository's top ("" the top)
    blog_dirs: tuple[str, ...] = ()  # each blog plugin's folder, from the repository's top
    post_dirs: tuple[str, ...] = ()  # each blog's posts folder
    sphinx_excludes: tuple[str, ...] = ()  # exclude_patterns, relative to the source folder
    root_doc: str | None = None
    source_suffixes: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()  # what could not be read, in words (the site is then read as far as it could be)
    # How the builder serves the wiki folder's links (`bot.ground.routes`): "mkdocs", "sphinx", "docusaurus",
    # "mdbook", "hugo", "mintlify", "vitepress", "starlight"; None when no configuration was found.
    builder: str | None = None
    site_dir: str | None = None  # the folder of the builder's configuration, from the repository's top
    roots: tuple[ContentRoot, ...] = ()
    routes_known: bool = True  # False: a route setting is not written as a literal; unmapped routes are notes
    generated: tuple[str, ...] = ()  # files the build writes (MkDocs plugins), from the repository's top
    generated_dirs: tuple[str, ...] = ()  # folders a gen-files script writes files into under names not literal

    def relative(self, path: str) -> str | None:
        """`path` relative to the docs folder, None when it lies outside it."""
        if self.docs_dir is None:
            return None
        if self.docs_dir in ("", "."):
            return path
        prefix = self.docs_dir + "/"
        return path[len(prefix) :] if path.startswith(prefix) else None

    def excluded(self, path: str) -> bool:
        """Whether the builder leaves `path` out (exclude_docs, exclude_patterns, dot files), or it lies outside
        the folder the builder reads."""
        if self.kind is None:
            return False
        relative = self.relative(path)
        if relative is None:
            return True
        if self.kind == "sphinx":
            return any(_sphinx_match(pattern, relative) for pattern in self.sphinx_excludes)
        return self.exclude.ignored(relative)

    def left_out(self, path: str) -> bool:
        """A page inside the folder the builder reads that it does not publish (excluded: a fragment, a draft)."""
        return self.kind is not None and self.relative(path) is not None and self.excluded(path)

    def in_blog(self, path: str) -> bool:
        """A page or folder inside a blog plugin's folder (its index, its posts, its archive)."""
        return any(_under(path, folder) for folder in self.blog_dirs)

    def is_post(self, path: str) -> bool:
        """A blog post: history, written as of its date, never rewritten or bound."""
        return any(_under(path, folder) for folder in self.post_dirs)

    def published(self, path: str) -> bool:
        """Whether the builder publishes `path` as a page of the site (no configuration: every page is)."""
        if self.kind is None:
            return True
        if self.excluded(path):
            return False
        if self.kind == "sphinx":
            return path.lower().endswith(self.source_suffixes or (".rst",))
        return path.lower().endswith((".md", ".markdown"))

    def includes(self, page: str, text: str, paths: Iterable[str]) -> list[str]:
        """The files a page includes (`--8<--` snippets, reStructuredText's `include`) that exist in `paths`."""
        existing = set(paths)
        found: list[str] = []
        for name in (*_snippet_names(text), *(self._rst_includes(page, text) if page.endswith(".rst") else ())):
            for candidate in self._resolved(page, name):
                if candidate in existing and candidate not in found:
                    found.append(candidate)
                    break
        return found

    def _rst_includes(self, page: str, text: str) -> list[str]:
        return [match.group(1) for match in _RST_INCLUDE.finditer(text)]

    def _resolved(self, page: str, name: str) -> list[str]:
        """Where an included name may stand, in the builder's order."""
        if "://" in name:
            return []
        if page.endswith(".rst"):
            if name.startswith("/") and self.docs_dir is not None:
                return [_joined(self.docs_dir, name.lstrip("/"))]
            return [_joined(posixpath.dirname(page), name)]
        name = _PART_SUFFIX.sub("", name) or name
        bases = self.snippet_bases or ("",)
        return [_joined(base, name) for base in bases]


def _under(path: str, folder: str) -> bool:
    return folder in ("", ".") or path == folder or path.startswith(folder.rstrip("/") + "/")


def _joined(folder: str, name: str) -> str:
    joined = posixpath.normpath(posixpath.join(folder, name)) if folder not in ("", ".") else posixpath.normpath(name)
    return "" if joined == "." else joined


def _snippet_names(text: str) -> list[str]:
    """The files `pymdownx.snippets` lines name: `--8<-- "file"` on a line, or a block of names between two bare
    `--8<--` lines; a line starting `;` is escaped (shown, not included)."""
    if "8<" not in text:
        return []
    names: list[str] = []
    in_block = False
    for line in text.split("\n"):
        match = _SNIPPET_LINE.match(line)
        if match is not None:
            if match.group(1):
                continue
            if match.group(3) is not None:
                names.append(match.group(3).strip())
            else:
                in_block = not in_block
            continue
        if in_block:
            name = line.strip()
            if name and not name.startswith(";"):
                names.append(name)
    return names


def _sphinx_match(pattern: str, relative: str) -> bool:
    """Sphinx's exclude_patterns: a glob (`*` within a folder, `**` across) matched against the path or any of
    its folders."""
    regex = re.compile(_sphinx_glob(pattern.strip("/")))
    parts = relative.split("/")
    return any(regex.fullmatch("/".join(parts[:k])) for k in range(1, len(parts) + 1))


def _sphinx_glob(pattern: str) -> str:
    out, index = [], 0
    while index < len(pattern):
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return "".join(out)


Reader = Callable[[str], bytes | None]


def read_site(read: Reader, folders: Iterable[str] = SPHINX_FOLDERS, wiki_dir: str | None = None) -> Site:
    """The site of a repository, through `read` (a path from the repository's top → its bytes, None when it is no
    file): MkDocs' configuration at the top, else Sphinx's `conf.py` in the usual folders; else, given the wiki
    folder, the nearest other builder's configuration at or above it (`builder_site`); `Site()` when none."""
    for name in MKDOCS_CONFIGS:
        data = read(name)
        if data is not None:
            return mkdocs_site(name, read)
    for folder in folders:
        path = "conf.py" if folder == "." else f"{folder}/conf.py"
        data = read(path)
        if data is not None:
            return sphinx_site(path, data)
    if wiki_dir is not None:
        return builder_site(read, wiki_dir)
    return Site()


_DOCUSAURUS = tuple(f"docusaurus.config.{e}" for e in ("ts", "js", "mjs", "cjs", "mts"))
_VITEPRESS = tuple(f".vitepress/config.{e}" for e in ("ts", "js", "mjs", "mts", "cjs", "cts"))
_ASTRO = tuple(f"astro.config.{e}" for e in ("mjs", "ts", "js", "mts"))
_HUGO = tuple(f"hugo.{e}" for e in ("toml", "yaml", "yml", "json"))
_HUGO_LEGACY = tuple(f"config.{e}" for e in ("toml", "yaml", "yml", "json"))
_MINTLIFY = ("mint.json", "docs.json")


def _folders_up(wiki_dir: str) -> list[str]:
    """The wiki folder and every folder above it, nearest first, ending with the repository's top ("")."""
    found, folder = [], _joined("", wiki_dir.strip("/"))
    while True:
        found.append(folder)
        if not folder:
            return found
        folder = posixpath.dirname(folder)


def builder_site(read: Reader, wiki_dir: str) -> Site:
    """The site of the nearest builder configuration at or above `wiki_dir` (not MkDocs' or Sphinx's, which
    `read_site` looks for first); `Site()` when there is none."""
    for folder in _folders_up(wiki_dir):

        def here(name: str, folder: str = folder) -> str:
            return _joined(folder, name)

        for name in _DOCUSAURUS:
            data = read(here(name))
            if data is not None:
                return docusaurus_site(here(name), data)
        data = read(here("book.toml"))
        if data is not None:
            return mdbook_site(here("book.toml"), data)
        for name in _VITEPRESS:
            data = read(here(name))
            if data is not None:
                return vitepress_site(folder, here(name), data)
        for name in _ASTRO:
            data = read(here(name))
            if data is not None and b"starlight" in data[:MAX_CONFIG_BYTES]:
                return starlight_site(folder, here(name), data)
        for name in _MINTLIFY:
            data = read(here(name))
            if data is not None and (name == "mint.json" or b"mintlify" in data[:MAX_CONFIG_BYTES]):
                return mintlify_site(folder, here(name), data)
        content = _joined(folder, "content")
        in_content = _under(wiki_dir, content)
        for name in (*_HUGO, *(_HUGO_LEGACY if in_content else ())):
            data = read(here(name))
            if data is not None:
                return hugo_site(folder, here(name), data)
    return Site()


def _config_text(path: str, data: bytes, problems: list[str]) -> str:
    if len(data) > MAX_CONFIG_BYTES:
        problems.append(f"{path}: {len(data):,} bytes, over {MAX_CONFIG_BYTES:,}: not read")
        return ""
    return data.decode("utf-8", "replace")


def _literals(text: str, key: str) -> tuple[list[str], bool]:
    """The literal string values a JavaScript or TypeScript config gives `key` (`key: 'value'`), and whether every
    place it sets `key` was such a literal (a variable or an expression is not read). One linear scan."""
    written = re.findall(rf"(?<![\w$.]){key}\s*:", text)
    values = [m.group(2) for m in re.finditer(rf"(?<![\w$.]){key}\s*:\s*(['\"`])([^'\"`\n$]*)\1", text)]
    return values, len(values) == len(written)


def docusaurus_site(path: str, data: bytes) -> Site:
    """A Docusaurus site: the classic preset's docs (folder `docs`, served at `routeBasePath`, `docs` by default),
    blog (`blog`), pages (`src/pages`) and static files (`static`), beside the config. A second docs plugin, or a
    route base not written as a literal, makes the routes unknown."""
    problems: list[str] = []
    text = _config_text(path, data, problems)
    site_dir = posixpath.dirname(path)
    _, literal = _literals(text, "routeBasePath")
    # A docs or blog plugin declared on its own (a second instance, its own folder and route): not read.
    instances = re.search(r"""['"`]@docusaurus/plugin-content-(?:docs|blog)['"`]""", text)
    known = literal and not problems and instances is None
    docs_route, blog_route = "docs", "blog"
    for match in re.finditer(r"(?<![\w$.])routeBasePath\s*:\s*(['\"`])([^'\"`\n$]*)\1", text):
        before = text[max(0, match.start() - 2000) : match.start()]
        owner = max(("docs", before.rfind("docs:")), ("blog", before.rfind("blog:")), key=lambda pair: pair[1])
        if owner[1] < 0:
            known = False
        elif owner[0] == "docs":
            docs_route = match.group(2).strip("/")
        else:
            blog_route = match.group(2).strip("/")
    roots = (
        ContentRoot(_joined(site_dir, "docs"), docs_route, "docs"),
        ContentRoot(_joined(site_dir, "blog"), blog_route, "blog"),
        ContentRoot(_joined(site_dir, "src/pages"), "", "pages"),
        ContentRoot(_joined(site_dir, "static"), "", "static"),
    )
    return Site(
        config=path, builder="docusaurus", site_dir=site_dir, roots=roots, routes_known=known, problems=tuple(problems)
    )


def mdbook_site(path: str, data: bytes) -> Site:
    """An mdBook: its pages in `[book] src` (`src` by default) beside `book.toml`, each `x.md` served as
    `x.html` and a folder's `README.md` as its `index.html`."""
    problems: list[str] = []
    text = _config_text(path, data, problems)
    site_dir = posixpath.dirname(path)
    src = "src"
    section = ""
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped
        elif section == "[book]" and (m := re.fullmatch(r"src\s*=\s*(['\"])([^'\"]*)\1", stripped)):
            src = m.group(2).strip("/") or "."
    return Site(
        config=path,
        builder="mdbook",
        site_dir=site_dir,
        roots=(ContentRoot(_joined(site_dir, src), "", "docs"),),
        problems=tuple(problems),
    )


def hugo_site(folder: str, path: str, data: bytes) -> Site:
    """A Hugo site: pages in `content/` (`contentDir`), files in `static/`. A page's front matter (`slug`, `url`,
    `aliases`) and the taxonomies make routes not read here: an unmapped route is a note."""
    problems: list[str] = []
    text = _config_text(path, data, problems)
    match = re.search(r"(?im)^\s*\"?contentDir\"?\s*[=:]\s*['\"]([^'\"\n]+)['\"]", text)
    content = match.group(1).strip("/") if match else "content"
    roots = (ContentRoot(_joined(folder, content), "", "docs"), ContentRoot(_joined(folder, "static"), "", "static"))
    return Site(config=path, builder="hugo", site_dir=folder, roots=roots, routes_known=False, problems=tuple(problems))


def mintlify_site(folder: str, path: str, data: bytes) -> Site:
    """A Mintlify site: a page is served at its path from the config's folder without its extension; pages made
    from an OpenAPI description, and redirects, make routes no source file maps (then unknown)."""
    problems: list[str] = []
    text = _config_text(path, data, problems)
    known = not problems and '"openapi"' not in text and '"redirects"' not in text
    return Site(
        config=path,
        builder="mintlify",
        site_dir=folder,
        roots=(ContentRoot(folder, "", "docs"),),
        routes_known=known,
        problems=tuple(problems),
    )


def vitepress_site(folder: str, path: str, data: bytes) -> Site:
    """A VitePress site: pages in `srcDir` (the folder holding `.vitepress/` by default), `x.md` served at `/x`
    (or `/x.html`), `index.md` at its folder, `public/` as it is; `rewrites` make routes unknown."""
    problems: list[str] = []
    text = _config_text(path, data, problems)
    src, literal = _literals(text, "srcDir")
    source = _joined(folder, src[0]) if literal and src else folder
    known = literal and not problems and not re.search(r"(?<![\w$.])rewrites\s*:", text)
    roots = (ContentRoot(source, "", "docs"), ContentRoot(_joined(source, "public"), "", "static"))
    return Site(
        config=path, builder="vitepress", site_dir=folder, roots=roots, routes_known=known, problems=tuple(problems)
    )


def starlight_site(folder: str, path: str, data: bytes) -> Site:
    """An Astro Starlight site: pages in `src/content/docs/`, served from the site's `base`; `public/` as it is.
    Redirects, locales or a base not written as a literal make routes unknown."""
    problems: list[str] = []
    text = _config_text(path, data, problems)
    base, literal = _literals(text, "base")
    route = base[0].strip("/") if literal and base else ""
    known = literal and not problems and not re.search(r"(?<![\w$.])(?:redirects|locales)\s*:", text)
    roots = (
        ContentRoot(_joined(folder, "src/content/docs"), route, "docs"),
        ContentRoot(_joined(folder, "src/pages"), route, "pages"),
        ContentRoot(_joined(folder, "public"), route, "static"),
    )
    return Site(
        config=path, builder="starlight", site_dir=folder, roots=roots, routes_known=known, problems=tuple(problems)
    )


def mkdocs_site(name: str, read: Reader) -> Site:
    """The MkDocs site configured by `name` (read with its INHERIT chain)."""
    problems: list[str] = []
    merged: dict[str, Any] = {}
    chain: list[str] = [name]
    for _ in range(MAX_INHERIT + 1):
        path = chain[-1]
        data = read(path)
        if data is None:
            problems.append(f"{path}: INHERITed by {chain[-2]} but not a file" if len(chain) > 1 else f"{path}: gone")
            break
        config = _yaml_mapping(path, data, problems)
        merged = _merge(config, merged)  # the child's keys win over the parent's
        parent = config.get("INHERIT")
        if not isinstance(parent, str) or not parent.strip():
            break
        parent_path = _joined(posixpath.dirname(path), parent.strip())
        if parent_path in chain:
            problems.append(f"{path}: INHERIT loops back to {parent_path}")
            break
        if len(chain) > MAX_INHERIT:
            problems.append(f"{name}: an INHERIT chain longer than {MAX_INHERIT} files: read no further")
            break
        chain.append(parent_path)
    root = posixpath.dirname(name)
    docs = merged.get("docs_dir")
    docs = docs.strip().rstrip("/") if isinstance(docs, str) and docs.strip() else "docs"  # "/x" kept: outside
    docs_dir = _joined(root, docs)
    if docs_dir == ".." or docs_dir.startswith(("../", "/")) or docs.startswith("~"):
        docs_dir = docs  # outside the repository: kept as written, for whoever refuses it to name it
    exclude = _MKDOCS_ALWAYS_EXCLUDED + _patterns(merged.get("exclude_docs"))
    not_in_nav = _patterns(merged.get("not_in_nav"))
    blogs, posts = _blogs(merged.get("plugins"), docs_dir)
    generated, generated_dirs = _generated(merged.get("plugins"), docs_dir, root, read, problems)
    return Site(
        kind="mkdocs",
        builder="mkdocs",
        site_dir=root,
        roots=(ContentRoot(docs_dir, "", "docs"),),
        generated=generated,
        generated_dirs=generated_dirs,
        config=name,
        docs_dir=docs_dir,
        exclude=IgnoreRules(exclude),
        not_in_nav=IgnoreRules(not_in_nav),
        has_nav=isinstance(merged.get("nav"), list),
        snippet_bases=_snippet_bases(merged.get("markdown_extensions"), root),
        blog_dirs=blogs,
        post_dirs=posts,
        problems=tuple(problems),
    )


def _yaml_mapping(path: str, data: bytes, problems: list[str]) -> dict[str, Any]:
    if len(data) > MAX_CONFIG_BYTES:
        problems.append(f"{path}: {len(data):,} bytes, over {MAX_CONFIG_BYTES:,}: not read")
        return {}
    from ..okf.yaml12 import YAMLError, load_yaml, yaml_problem  # noqa: PLC0415 - YAML only for a site that has one

    try:
        loaded = load_yaml(data.decode("utf-8", "replace"), unknown_tags=True)
    except YAMLError as exc:
        problems.append(f"{path}: not valid YAML ({yaml_problem(exc)})")
        return {}
    if not isinstance(loaded, dict):
        problems.append(f"{path}: not a mapping of settings")
        return {}
    return loaded


def _merge(child: Mapping[str, Any], parent: Mapping[str, Any]) -> dict[str, Any]:
    """MkDocs' INHERIT merge: mappings merged key by key, the child's value winning otherwise."""
    merged = dict(parent)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(value, merged[key])
        else:
            merged[key] = value
    return merged


def _patterns(value: Any) -> str:
    if isinstance(value, str):
        return value + "\n"
    if isinstance(value, list):
        return "".join(f"{item}\n" for item in value if isinstance(item, str))
    return ""


def _named_options(entries: Any) -> Iterable[tuple[str, Mapping[str, Any]]]:
    """A `plugins:` or `markdown_extensions:` list (or mapping) as (name, options) pairs."""
    if isinstance(entries, dict):
        entries = [{key: value} for key, value in entries.items()]
    if not isinstance(entries, list):
        return
    for entry in entries:
        if isinstance(entry, str):
            yield entry, {}
        elif isinstance(entry, dict):
            for key, value in entry.items():
                if isinstance(key, str):
                    yield key, value if isinstance(value, dict) else {}


def _blogs(plugins: Any, docs_dir: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    blogs, posts = [], []
    for name, options in _named_options(plugins):
        if name not in _BLOG_PLUGINS or options.get("enabled", True) is False:
            continue
        blog = options.get("blog_dir", "blog")
        blog = blog.strip().strip("/") if isinstance(blog, str) else "blog"
        post = options.get("post_dir", "{blog}/posts")
        post = post if isinstance(post, str) else "{blog}/posts"
        post = post.replace("{blog}", blog).strip().strip("/")
        blogs.append(_joined(docs_dir, blog))
        posts.append(_joined(docs_dir, post))
    return tuple(blogs), tuple(posts)


def _generated(
    plugins: Any, docs_dir: str, root: str, read: Reader, problems: list[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The files MkDocs' plugins write into the site (from the repository's top), and the folders a gen-files
    script writes files into under names it computes: `coverage`'s page (`page_path`, `coverage` by default),
    `redirects`' old pages (`redirect_maps`' keys), `llmstxt`'s `llms.txt` and `full_output`, and what each
    `gen-files` script opens (its string literals shaped like a file name; read with `ast`, never run)."""
    files: list[str] = []
    folders: list[str] = []
    for name, options in _named_options(plugins):
        if options.get("enabled", True) is False:
            continue
        if name == "coverage":
            page = options.get("page_path", "coverage")
            if isinstance(page, str) and page.strip("/"):
                files.append(_joined(docs_dir, page.strip("/") + ".md"))
        elif name == "redirects":
            maps = options.get("redirect_maps")
            if isinstance(maps, dict):
                files += [_joined(docs_dir, key) for key in maps if isinstance(key, str)]
        elif name == "llmstxt":
            files.append(_joined(docs_dir, "llms.txt"))
            full = options.get("full_output")
            if isinstance(full, str) and full.strip():
                files.append(_joined(docs_dir, full.strip()))
        elif name == "gen-files":
            scripts = options.get("scripts")
            for script in (scripts if isinstance(scripts, list) else [])[:MAX_SCANNED_SCRIPTS]:
                if isinstance(script, str):
                    written, under = _script_outputs(_joined(root, script), read, problems)
                    files += [_joined(docs_dir, w) for w in written]
                    folders += [_joined(docs_dir, u) for u in under]
    return tuple(dict.fromkeys(files)), tuple(dict.fromkeys(folders))


_FILE_NAME = re.compile(r"[\w.-]+(?:/[\w.-]+)*\.[A-Za-z][\w]{0,7}")
_FOLDER_NAME = re.compile(r"[A-Za-z_][\w-]*(?:/[\w-]+)*")


def _script_outputs(path: str, read: Reader, problems: list[str]) -> tuple[list[str], list[str]]:
    """A gen-files script's outputs as far as its text tells: string literals shaped like a relative file name;
    and, when it opens a file under a name it computes, its literals shaped like a folder name (where it may
    write)."""
    data = read(path)
    if data is None:
        problems.append(f"{path}: a gen-files script the config names, not a file")
        return [], []
    if len(data) > MAX_CONFIG_BYTES:
        problems.append(f"{path}: {len(data):,} bytes, over {MAX_CONFIG_BYTES:,}: not read")
        return [], []
    try:
        tree = ast.parse(data, filename=path)
    except (SyntaxError, ValueError):
        problems.append(f"{path}: does not parse as Python: the files it writes are not known")
        return [], []
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    files = [s.strip("/") for s in strings if _FILE_NAME.fullmatch(s.strip("/")) and not s.startswith("..")]
    computed = any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute | ast.Name)
        and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "open"
        and node.args
        and not isinstance(node.args[0], ast.Constant)
        for node in ast.walk(tree)
    )
    folders = [f for f in _path_prefixes(tree) if _FOLDER_NAME.fullmatch(f)] if computed else []
    return files, folders


def _path_prefixes(tree: ast.AST) -> list[str]:
    """The folders a script builds paths under: an f-string's literal start up to its last `/`
    (`f"reference/{name}.md"`), the literal left of a `/` or `+` (`"reference" / name`), `Path("reference", …)`."""
    found = []
    for node in ast.walk(tree):
        literal: str | None = None
        if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            first = node.values[0].value
            literal = first.rpartition("/")[0] if isinstance(first, str) else None
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.Add):
            left = node.left
            literal = left.value if isinstance(left, ast.Constant) and isinstance(left.value, str) else None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute) and node.args:
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            first_arg = node.args[0]
            if name in ("Path", "PurePosixPath", "join") and isinstance(first_arg, ast.Constant):
                literal = first_arg.value if isinstance(first_arg.value, str) else None
        if literal and literal.strip("/"):
            found.append(literal.strip("/"))
    return found


def _snippet_bases(extensions: Any, root: str) -> tuple[str, ...]:
    for name, options in _named_options(extensions):
        if name != "pymdownx.snippets":
            continue
        base = options.get("base_path", ["."])
        bases = [base] if isinstance(base, str) else base if isinstance(base, list) else ["."]
        return tuple(_joined(root, b.strip()) for b in bases if isinstance(b, str) and "://" not in b)
    return ()


def sphinx_site(path: str, data: bytes) -> Site:
    """The Sphinx site whose `conf.py` is `path`, read with `ast` (never run): its literal settings."""
    problems: list[str] = []
    settings: dict[str, Any] = {}
    try:
        tree = ast.parse(data, filename=path)
    except (SyntaxError, ValueError) as exc:
        problems.append(f"{path}: does not parse as Python ({exc.__class__.__name__}); read as Sphinx's defaults")
        tree = ast.Module(body=[], type_ignores=[])
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    settings[target.id] = _literal(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            settings[node.target.id] = _literal(node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            added, before = _literal(node.value), settings.get(node.target.id)
            if isinstance(added, list | tuple) and isinstance(before, list | tuple):
                settings[node.target.id] = [*before, *added]
    excludes = settings.get("exclude_patterns")
    root_doc = settings.get("root_doc", settings.get("master_doc"))
    suffix = settings.get("source_suffix", ".rst")
    if isinstance(suffix, str):
        suffixes: tuple[str, ...] = (suffix,)
    elif isinstance(suffix, list | tuple | dict):
        suffixes = tuple(s for s in suffix if isinstance(s, str))
    else:
        suffixes = (".rst",)
    return Site(
        kind="sphinx",
        builder="sphinx",
        site_dir=posixpath.dirname(path),
        config=path,
        docs_dir=posixpath.dirname(path),
        sphinx_excludes=tuple(p for p in excludes if isinstance(p, str)) if isinstance(excludes, list | tuple) else (),
        root_doc=root_doc if isinstance(root_doc, str) else "index",
        source_suffixes=suffixes or (".rst",),
        problems=tuple(problems),
    )


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def current_modules(text: str) -> list[tuple[int, str | None]]:
    """A reStructuredText page's `.. currentmodule::` and `.. module::` lines, as (line, module) in page order: from
    each line on, Sphinx resolves a role's relative name (`:func:`build``) in that module (`None` after
    `.. currentmodule:: None`, which resets it)."""
    found: list[tuple[int, str | None]] = []
    for match in _CURRENT_MODULE.finditer(text):
        name = match.group(2)
        found.append((text.count("\n", 0, match.start()) + 1, None if name in ("", "None") else name))
    return found


def current_module(text: str, line: int) -> str | None:
    """The module Sphinx resolves relative names in at page line `line` (1-based), None when none is set."""
    module = None
    for start, name in current_modules(text):
        if start > line:
            break
        module = name
    return module


def fragments(site: Site, pages: Mapping[str, str], paths: Iterable[str]) -> dict[str, list[str]]:
    """Each include fragment of the site (a page another includes that the site does not publish itself, or an
    excluded page under a snippet base path) → the pages including it, sorted (none: read by no page)."""
    every = list(paths)
    includers: dict[str, list[str]] = {}
    for page in sorted(pages):
        for included in site.includes(page, pages[page], every):
            includers.setdefault(included, []).append(page)
    found = {
        page: sorted(set(by))
        for page, by in includers.items()
        if page in pages and page not in by and not site.published(page)
    }
    for page in pages:
        if page not in found and site.excluded(page) and any(_under(page, b) for b in site.snippet_bases if b):
            found[page] = []
    return found
