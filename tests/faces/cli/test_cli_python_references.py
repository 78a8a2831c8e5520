"""Python references resolved as Python does (griffe), through the command line: each false alarm and each miss
issue 43 found on docs nobody here had tuned on, as a small repository of its own. A name rooted in the standard
library beside a private namesake, a member inherited from another package's base, a re-export from a dependency
and a how-to's reader paths are not failures; a removed public class on its component's page, the repository's
own deleted requirements.txt on a contributing page, a stale import and a removed keyword in a code block are."""

from __future__ import annotations

import pytest
from conftest import GitRepo

pytestmark = pytest.mark.usefixtures("isolated_cli")

CONFIG = "wiki_dir: docs\n"


def project(repo: GitRepo, files: dict[str, str], pages: dict[str, str]) -> GitRepo:
    """A Python project with docs in docs/, committed and tagged v1."""
    repo.write(".github/wikiwarden.yml", CONFIG)
    repo.write("pyproject.toml", '[project]\nname = "pkg"\ndependencies = ["SQLAlchemy>=2", "dbdriver"]\n')
    for path, text in {**files, **pages}.items():
        repo.write(path, text)
    repo.commit("v1", tag="v1")
    return repo


def failing(cli, repo: GitRepo) -> tuple[int, str, list[dict]]:
    run = cli("check", "--repo", repo.root, "--base", "v1", "--verbose")
    document = cli("check", "--repo", repo.root, "--base", "v1", "--format", "json").json()
    return run.code, run.out, document["broken_references"]


ENCODER = '''class _Encoder:
    """Writes the records."""

    def dumps(self, value):
        text = repr(value)
        return text
'''


def test_a_standard_library_name_beside_a_private_namesake_module_is_not_the_projects(repo: GitRepo, cli) -> None:
    project(
        repo,
        {"src/pkg/__init__.py": "", "src/pkg/json.py": ENCODER},
        {"docs/guide.md": "# Guide\n\nSerialise the settings with `json.dumps()` and read them with `json.loads()`.\n"},
    )
    repo.write("src/pkg/json.py", 'class _Encoder:\n    """Writes the records."""\n')
    repo.commit("dumps goes")
    code, out, found = failing(cli, repo)
    assert code == 0, out
    assert found == []  # Python's json, not pkg/json.py: not even a note


SESSION = '''from sqlalchemy.orm import Session as _Base


class Session(_Base):
    """The project's session."""

    def get(self, key):
        row = super().get(key)
        return row
'''


def test_a_method_inherited_from_another_packages_base_is_a_note(repo: GitRepo, cli) -> None:
    project(
        repo,
        {"src/pkg/__init__.py": "", "src/pkg/session.py": SESSION},
        {"docs/orm.md": "# ORM\n\nFetch a row by its key with `session.get()`.\n"},
    )
    repo.write("src/pkg/session.py", SESSION.split("    def get", maxsplit=1)[0])
    repo.commit("the override goes: the base's get stays")
    code, out, found = failing(cli, repo)
    assert code == 0, out
    assert [(r["text"], r["attention"]) for r in found] == [("session.get()", False)]
    assert "a base of another package (sqlalchemy.orm.Session)" in found[0]["note"]


def test_a_name_the_package_re_exports_from_a_dependency_is_alive(repo: GitRepo, cli) -> None:
    project(
        repo,
        {
            "src/pkg/__init__.py": "from .db import connect\n",
            "src/pkg/db.py": "def connect(url):\n    handle = open_handle(url)\n    return handle\n",
        },
        {"docs/db.md": "# Database\n\nOpen a connection with `connect()`, or `pkg.connect(url)`.\n"},
    )
    repo.write("src/pkg/__init__.py", "from dbdriver import connect\n")
    repo.write("src/pkg/db.py", '"""Nothing of its own any more."""\n')
    repo.commit("connect comes from the driver now")
    code, out, found = failing(cli, repo)
    assert code == 0, out
    assert found == []


def test_a_how_tos_paths_in_the_readers_project_and_other_repositories_are_notes(repo: GitRepo, cli) -> None:
    repo.write(".github/wikiwarden.yml", CONFIG)
    repo.write("src/pkg/__init__.py", "")
    repo.write(
        "docs/tutorial.md",
        "# Packaging\n\nIn your project, create `src/your_app/__init__.py` and `src/app/cli.py`.\n\n"
        "Grammars differ: in these repos, `src/node-types.json` lists the nodes.\n\n"
        "Our own entry point is `src/pkg/main.py`.\n",
    )
    repo.commit("docs")
    run = cli("check", "--repo", repo.root, "--verbose")
    document = cli("check", "--repo", repo.root, "--format", "json").json()
    by_text = {r["text"]: r["attention"] for r in document["broken_references"]}
    assert by_text == {
        "src/your_app/__init__.py": False,
        "src/app/cli.py": False,
        "src/node-types.json": False,
        "src/pkg/main.py": True,  # said of this repository: a missing file, certain
    }
    assert run.code == 1
    assert "the reader's own project or in another repository" in run.out


PANEL = '''class Panel:
    """A box of controls."""

    def add(self, control):
        self.controls.append(control)
'''


def test_a_public_class_removed_named_in_backticks_on_its_components_page_fails(repo: GitRepo, cli) -> None:
    project(
        repo,
        {"src/pkg/__init__.py": "", "src/pkg/widgets.py": PANEL + "\n\nclass Label:\n    text = ''\n    size = 1\n"},
        {
            "docs/widgets.md": "# Widgets\n\nGroup controls in a `Panel`.\n",
            "docs/intro.md": "# Introduction\n\nA `Panel` of settings, as the word goes.\n",
        },
    )
    repo.write("src/pkg/widgets.py", "class Label:\n    text = ''\n    size = 1\n")
    repo.commit("2.0: Panel goes")
    code, out, found = failing(cli, repo)
    assert code == 1, out
    assert [(r["page"], r["text"], r["attention"]) for r in found] == [
        ("docs/intro.md", "Panel", False),  # another page: a bare word stays a note
        ("docs/widgets.md", "Panel", True),
    ]
    assert "✗ docs/widgets.md:3  Panel: removed by this change" in out


def test_the_repositorys_own_requirements_file_deleted_fails_on_the_contributing_page(repo: GitRepo, cli) -> None:
    project(
        repo,
        {"requirements.txt": "pytest\n", "src/pkg/__init__.py": ""},
        {
            "docs/contributing.md": "# Contributing\n\nInstall the tools using this included `requirements.txt`.\n",
            "docs/deploy.md": "# Deploy\n\nList what you need in `requirements.txt`.\n",
        },
    )
    repo.remove("requirements.txt")
    repo.commit("requirements move into pyproject")
    code, out, found = failing(cli, repo)
    assert code == 1, out
    assert [(r["page"], r["attention"]) for r in found] == [("docs/contributing.md", True), ("docs/deploy.md", False)]


URLS = '''def parse_url(text):
    """Split a URL."""
    return text.split("/")


def join_url(*parts):
    return "/".join(parts)
'''
TUTORIAL = """# Tutorial

Split an address:

```python
from pkg.urls import parse_url, join_url

parts = parse_url("a/b")
```

In a session:

```pycon
>>> from pkg.urls import join_url
>>> join_url("a", "b")
'a/b'
```
"""


def test_a_stale_import_in_a_code_block_fails_at_the_blocks_line(repo: GitRepo, cli) -> None:
    project(repo, {"src/pkg/__init__.py": "", "src/pkg/urls.py": URLS}, {"docs/tutorial.md": TUTORIAL})
    repo.write("src/pkg/urls.py", URLS.split("\n\n\n")[1])
    repo.commit("parse_url goes")
    code, out, found = failing(cli, repo)
    assert code == 1, out
    assert [(r["line"], r["text"], r["target"], r["attention"]) for r in found] == [
        (6, "from pkg.urls import parse_url", "pkg.urls.parse_url", True)
    ]


CLIENT = '''class Client:
    """Sends requests."""

    def __init__(self, timeout=5.0, proxies=None):
        self.timeout = timeout
        self.proxies = proxies
'''
CLIENT_PAGE = """# Clients

```python
from pkg import Client

client = Client(
    timeout=3,
    proxies={"https": "http://proxy:3128"},
)
```

```python
>>> from pkg import Client as C
>>> C(proxies=None)
```
"""


def test_a_keyword_the_change_removed_fails_where_a_code_block_passes_it(repo: GitRepo, cli) -> None:
    project(
        repo,
        {"src/pkg/__init__.py": "from .client import Client\n", "src/pkg/client.py": CLIENT},
        {"docs/clients.md": CLIENT_PAGE},
    )
    repo.write(
        "src/pkg/client.py", CLIENT.replace(", proxies=None", "").replace("        self.proxies = proxies\n", "")
    )
    repo.commit("proxies go")
    code, out, found = failing(cli, repo)
    assert code == 1, out
    assert [(r["line"], r["text"], r["target"], r["attention"]) for r in found] == [
        (8, "Client(proxies=...)", "pkg.Client(proxies=)", True),
        (14, "C(proxies=...)", "pkg.Client(proxies=)", True),
    ]


def test_a_keyword_a_callable_may_take_through_kwargs_is_a_note(repo: GitRepo, cli) -> None:
    project(
        repo,
        {"src/pkg/__init__.py": "from .client import Client\n", "src/pkg/client.py": CLIENT},
        {"docs/clients.md": CLIENT_PAGE},
    )
    repo.write("src/pkg/client.py", CLIENT.replace(", proxies=None", ", **options").replace("= proxies", "= options"))
    repo.commit("proxies go into options")
    code, out, found = failing(cli, repo)
    assert code == 0, out
    assert {(r["line"], r["attention"]) for r in found} == {(8, False), (14, False)}


def test_a_module_griffe_cannot_read_at_the_head_makes_its_references_notes_saying_why(repo: GitRepo, cli) -> None:
    project(repo, {"src/pkg/__init__.py": "", "src/pkg/urls.py": URLS}, {"docs/tutorial.md": TUTORIAL})
    repo.write("src/pkg/urls.py", "def join_url(*parts:\n    return '/'.join(parts)\n")
    repo.commit("a half-written module")
    code, out, found = failing(cli, repo)
    assert code == 0, out
    assert found and {r["attention"] for r in found} == {False}  # never a failure from what cannot be read
    assert (6, "pkg.urls.parse_url") in {(r["line"], r["target"]) for r in found}
    assert all("src/pkg/urls.py: griffe cannot read it (SyntaxError" in r["note"] for r in found)


def test_a_path_given_as_an_example_of_a_readers_value_is_a_note(repo: GitRepo, cli) -> None:
    """griffe 1.15.0..2.0.0, docs/guide/users/extending.md:22 (h43-eval's tuning half)."""
    project(
        repo,
        {"scripts/exts.py": "class MyExtension:\n    pass\n", "src/pkg/__init__.py": ""},
        {
            "docs/extending.md": "# Extending\n\nAn extension may be:\n\n- the file path to a Python script, for "
            "example `scripts/exts.py` and `scripts/exts.py:MyExtension`\n",
            "docs/scripts.md": "# Scripts\n\nThe release script is `scripts/exts.py`.\n",
        },
    )
    repo.remove("scripts/exts.py")
    repo.commit("the script goes")
    code, out, found = failing(cli, repo)
    assert [(r["page"], r["text"], r["attention"]) for r in found] == [
        ("docs/extending.md", "scripts/exts.py", False),
        ("docs/scripts.md", "scripts/exts.py", True),
    ]
    assert code == 1 and "an example of a value the reader writes" in out


def test_a_bare_word_the_page_calls_a_folder_fails_when_the_folder_moved(repo: GitRepo, cli) -> None:
    """griffe 2.0.2..2.1.0, docs/guide/contributors/architecture.md:107 (h43-eval's tuning half)."""
    project(
        repo,
        {"tests/test_a.py": "def test_a():\n    pass\n", "src/pkg/__init__.py": ""},
        {
            "docs/architecture.md": "# Architecture\n\nOur test suite is located in the `tests` folder.\n",
            "docs/workflow.md": "# Workflow\n\nCommit types:\n\n- `tests`: About tests.\n",
        },
    )
    repo.write("packages/lib/tests/test_a.py", "def test_a():\n    pass\n")
    repo.remove("tests/test_a.py")
    repo.commit("the tests move into the package")
    code, out, found = failing(cli, repo)
    assert [(r["page"], r["attention"]) for r in found] == [("docs/architecture.md", True), ("docs/workflow.md", False)]
    assert code == 1, out


TRANSPORT = '''class AsyncHTTPTransport:
    """Sends requests."""

    def __init__(self, verify=True, retries=0, backend="auto"):
        self.verify = verify
        self.backend = backend
'''
ASYNC_PAGE = """# Async

```python
import anyio
import pkg

async def main():
    transport = pkg.AsyncHTTPTransport(backend="trio")

anyio.run(main, backend='trio')
```
"""


def test_a_removed_keyword_through_a_re_export_fails_and_another_librarys_keyword_does_not(repo: GitRepo, cli) -> None:
    """httpx 0.20.0..0.21.0, docs/async.md:212: `backend` went from AsyncHTTPTransport (h43-eval's tuning half)."""
    project(
        repo,
        {
            "src/pkg/__init__.py": "from ._transports.default import AsyncHTTPTransport\n",
            "src/pkg/_transports/__init__.py": "",
            "src/pkg/_transports/default.py": TRANSPORT,
        },
        {"docs/async.md": ASYNC_PAGE},
    )
    repo.write(
        "src/pkg/_transports/default.py",
        TRANSPORT.replace(', backend="auto"', "").replace("        self.backend = backend\n", ""),
    )
    repo.commit("backend goes")
    code, out, found = failing(cli, repo)
    assert [(r["line"], r["text"], r["target"], r["attention"]) for r in found] == [
        (8, "pkg.AsyncHTTPTransport(backend=...)", "pkg.AsyncHTTPTransport(backend=)", True)
    ]  # anyio.run's `backend` is anyio's
    assert code == 1, out


def test_a_name_re_exported_from_a_sibling_package_of_the_repository_is_alive(repo: GitRepo, cli) -> None:
    """A monorepo split: `main` and `get_parser` move into a sibling package `pkgcli` (packages/cli/src/) that
    `pkg/__init__.py` re-exports with a wildcard import; `pkg.main` and a block's `from pkg import get_parser`
    still resolve. `dump`, which the sibling does not export, is gone: that block's import fails."""
    project(
        repo,
        {
            "src/pkg/__init__.py": "from pkg._cli import dump, get_parser, main\n",
            "src/pkg/_cli.py": "def main():\n    return 0\n\n\ndef get_parser():\n    return None\n\n\n"
            "def dump():\n    return 1\n",
        },
        {
            "docs/cli.md": "# CLI\n\nRun `pkg.main()`.\n\n```python\nfrom pkg import get_parser\n```\n\n"
            "```python\nfrom pkg import dump\n```\n",
        },
    )
    repo.remove("src/pkg/__init__.py")
    repo.remove("src/pkg/_cli.py")
    repo.write(
        "packages/lib/src/pkg/__init__.py",
        '"""The library."""\n\ntry:\n    from pkgcli import *  # noqa: F403\nexcept ImportError:\n    pass\n',
    )
    repo.write(
        "packages/cli/src/pkgcli/__init__.py",
        'from pkgcli._cli import get_parser, main\n\n__all__ = ["get_parser", "main"]\n',
    )
    repo.write("packages/cli/src/pkgcli/_cli.py", "def main():\n    return 0\n\n\ndef get_parser():\n    return None\n")
    repo.commit("the command line goes into its own package of the repository")
    code, out, found = failing(cli, repo)
    assert code == 1, out
    assert [(r["text"], r["attention"]) for r in found] == [("from pkg import dump", True)], out
