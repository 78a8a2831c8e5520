"""Index files, rendered byte-compatibly with OpenWiki: one per folder of the wiki, the root one carrying
`okf_version: "0.2"`, entries sorted by link target in `localeCompare` order.

OpenWiki owns its `openwiki/` folder and rewrites every `index.md` in it. A wiki folder may be a person's (`docs/`
of a MkDocs site), so only an index OpenWiki or Wikiwarden wrote is rewritten, recognised by its form; any other
`index.md` is a page of its own, left as it is. OpenWiki also writes an index into every folder, one of stylesheets
or images too; a site publishes such an `index.md` as a page, so an index is written only where it lists pages.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import quote

from ..claims.collation import collation_key
from ..claims.sidecar import js_trim
from .frontmatter import FrontMatterError, Page
from .project import localized

INDEX = "index.md"
ROOT_FRONT_MATTER = '---\nokf_version: "0.2"\n---\n\n'
NOT_INDEXED = frozenset({"index.md", "log.md", "_plan.md", "INSTRUCTIONS.md"})  # case-sensitive, as OpenWiki

# OpenWiki's localised section headings (index-labels): (files, directories).
HEADINGS = {
    "en": ("Files", "Directories"), "ar": ("ملفات", "مجلدات"), "bg": ("Файлове", "Директории"),
    "ca": ("Fitxers", "Directoris"), "cs": ("Soubory", "Adresáře"), "da": ("Filer", "Mapper"),
    "de": ("Dateien", "Verzeichnisse"), "el": ("Αρχεία", "Κατάλογοι"), "es": ("Archivos", "Directorios"),
    "fi": ("Tiedostot", "Hakemistot"), "fr": ("Fichiers", "Répertoires"), "he": ("קבצים", "תיקיות"),
    "hi": ("फ़ाइलें", "निर्देशिकाएँ"), "hr": ("Datoteke", "Direktoriji"), "hu": ("Fájlok", "Könyvtárak"),
    "id": ("Berkas", "Direktori"), "it": ("File", "Cartelle"), "ja": ("ファイル", "ディレクトリ"),
    "ko": ("파일", "디렉터리"), "ms": ("Fail", "Direktori"), "nb": ("Filer", "Mapper"), "nl": ("Bestanden", "Mappen"),
    "no": ("Filer", "Mapper"), "pl": ("Pliki", "Katalogi"), "pt": ("Arquivos", "Diretórios"),
    "pt-PT": ("Ficheiros", "Diretórios"), "ro": ("Fișiere", "Directoare"), "ru": ("Файлы", "Каталоги"),
    "sk": ("Súbory", "Adresáre"), "sl": ("Datoteke", "Mape"), "sr": ("Датотеке", "Директоријуми"),
    "sv": ("Filer", "Kataloger"), "th": ("ไฟล์", "ไดเรกทอรี"), "tr": ("Dosyalar", "Dizinler"),
    "uk": ("Файли", "Каталоги"), "vi": ("Tập tin", "Thư mục"), "zh": ("文件", "目录"), "zh-TW": ("檔案", "目錄"),
}  # fmt: skip


_PAIRS = frozenset(HEADINGS.values())
_FOLDER_HEADINGS = frozenset(folders for _files, folders in _PAIRS)  # no language's files heading is among them
_LABEL = r"\[(?:[^\\\[\]\n]|\\.)*\]"  # as _label escapes it
_HREF = r"[A-Za-z0-9\-_.!~*'()%]+"  # what encodeURIComponent leaves and writes
_FILE_ITEM = re.compile(rf"- {_LABEL}\({_HREF}\)(?: - .*)?")
_FOLDER_ITEM = re.compile(rf"- {_LABEL}\({_HREF}/\)")
_LEGACY_TYPE = "Documentation Index"  # OpenWiki 0.2.0's front matter on every index, before OKF v0.1


def is_indexed_page(name: str) -> bool:
    """A file an index lists: a non-dot `.md` file that is not an index, a log or OpenWiki's own file."""
    return not name.startswith(".") and name.lower().endswith(".md") and name not in NOT_INDEXED


@dataclass(frozen=True)
class Entry:
    name: str
    title: str | None = None
    description: str | None = None


def page_entry(name: str, content: bytes) -> Entry:
    """What an index shows for a page: its usable `title` and `description`, if its front matter has them."""
    try:
        fields = Page.parse(content.decode("utf-8", "replace")).fields()
    except FrontMatterError:
        fields = {}

    def usable(key: str) -> str | None:
        value = fields.get(key)
        return value if isinstance(value, str) and js_trim(value) else None

    return Entry(name, usable("title"), usable("description"))


def _href(name: str) -> str:
    return quote(name, safe="!*'()")  # encodeURIComponent


def _label(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def render_index(files: Iterable[Entry], directories: Iterable[str], is_root: bool, language: str = "en") -> str:
    files_heading, directories_heading = localized(HEADINGS, language)
    file_links = sorted(((_href(e.name), e) for e in files), key=lambda pair: collation_key(pair[0]))
    dir_links = sorted((_href(name) + "/", name) for name in directories)
    dir_links.sort(key=lambda pair: collation_key(pair[0]))
    sections = []
    if file_links:
        items = []
        for href, entry in file_links:
            label = entry.title if entry.title is not None else entry.name.removesuffix(".md")
            line = f"- [{_label(label)}]({href})"
            items.append(f"{line} - {entry.description}" if entry.description is not None else line)
        sections.append(f"# {files_heading}\n\n" + "\n".join(items))
    if dir_links:
        sections.append(f"# {directories_heading}\n\n" + "\n".join(f"- [{_label(n)}]({h})" for h, n in dir_links))
    return (ROOT_FRONT_MATTER if is_root else "") + ("\n\n".join(sections) or f"# {files_heading}") + "\n"


def is_generated_index(content: bytes) -> bool:
    """Whether an `index.md` is one OpenWiki (0.2.0 and later) or Wikiwarden wrote, so rewriting it loses nothing.

    Its front matter is none, `okf_version` alone (0.2.1 and later, at the root) or 0.2.0's `type: Documentation
    Index` with a `title` and a `description`; its body is a files section then a directories section under
    headings of one of OpenWiki's languages, each line a link as they render it (with a description for files).
    Line endings and trailing blanks are not held against it (a checkout or an editor may change them); any other
    line, a description running over several lines included, makes it a person's page.
    """
    try:
        text = content.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    except UnicodeDecodeError:
        return False
    page = Page.parse(text)
    legacy = False
    if page.has_front_matter:
        try:
            fields = page.fields()
        except FrontMatterError:
            return False
        legacy = set(fields) == {"type", "title", "description"} and fields["type"] == _LEGACY_TYPE
        if set(fields) != {"okf_version"} and not legacy:
            return False
    headings: list[str] = []
    for raw in page.body.split("\n"):
        line = raw.rstrip(" \t")
        if not line:
            continue
        if line.startswith("# "):
            headings.append(line[2:])
            continue
        if not headings:
            return False  # a line before the first heading
        if not (_FOLDER_ITEM if headings[-1] in _FOLDER_HEADINGS else _FILE_ITEM).fullmatch(line):
            return False
    if not headings:
        return legacy  # 0.2.0 wrote an empty folder's index as its front matter alone
    return any(headings in ([files], [folders], [files, folders]) for files, folders in _PAIRS)


@dataclass
class IndexPlan:
    writes: dict[str, bytes] = field(default_factory=dict)  # index path → its new content, only what changes
    kept: list[str] = field(default_factory=list)  # indexes of a person's own, left as they are


def _indexed_folders(files: Mapping[str, bytes], wiki_dir: str) -> set[str]:
    """The folders that get an index: those holding, themselves or in a folder below, a page an index lists, or
    an index OpenWiki or Wikiwarden wrote (kept up to date once it is there, as OpenWiki keeps it; never created).

    OpenWiki indexes every folder, pages or not (`collectDirectories`); an OpenWiki wiki's folders hold pages, so
    its indexes come out the same, while a site's `css/`, `img/` or `overrides/partials/` get none.
    """
    folders: set[str] = set()
    for path in files:
        parts = path[len(wiki_dir) + 1 :].split("/")
        if any(part.startswith(".") for part in parts[:-1]):
            continue
        name = parts[-1]
        if is_indexed_page(name) or (name == INDEX and is_generated_index(files[path])):
            folders.update("/".join([wiki_dir, *parts[:depth]]) for depth in range(len(parts)))
    return folders


def plan_indexes(
    files: Mapping[str, bytes],
    wiki_dir: str,
    language: str = "en",
    may_create: Callable[[str], bool] | None = None,
) -> IndexPlan:
    """The index of every folder of the wiki that lists pages (see `_indexed_folders`), for those whose content
    differs from what is there and is not a person's page.

    `files` holds every file under the wiki folder (paths from the repository root), pages as they will be.
    `may_create`: whether a folder with no index may get a new one (a docs site's builder would publish it); a
    folder that may not is left without one, and its parent's index does not list it.
    """
    indexed = _indexed_folders(files, wiki_dir)
    if may_create is not None:
        indexed = {folder for folder in indexed if f"{folder}/{INDEX}" in files or may_create(folder)}
    folders: dict[str, tuple[list[Entry], set[str]]] = {folder: ([], set()) for folder in indexed}
    for folder in indexed:
        if folder != wiki_dir:
            parent, _, name = folder.rpartition("/")
            if parent in folders:
                folders[parent][1].add(name)
    for path in sorted(files):
        folder, _, name = path.rpartition("/")
        if folder in folders and is_indexed_page(name):
            folders[folder][0].append(page_entry(name, files[path]))
    plan = IndexPlan()
    for folder, (entries, subfolders) in sorted(folders.items()):
        content = render_index(entries, subfolders, folder == wiki_dir, language).encode("utf-8")
        path = f"{folder}/{INDEX}"
        existing = files.get(path)
        if existing == content:
            continue
        if existing is not None and not is_generated_index(existing):
            plan.kept.append(path)
        else:
            plan.writes[path] = content
    plan.kept.sort()
    return plan
