"""The Python evaluator: references judged by the API at the head (outside the project, still reachable, a member
a base of another package may give, unreadable code), code blocks' imports and keywords against the API at the
base and the head, the keywords a change removed, and the plan of what to read."""

from __future__ import annotations

from bot.claims.results import BrokenReference
from bot.ground.python.api import load_api
from bot.ground.python.judge import (
    block_breakage,
    imported_packages,
    judged,
    kind_of,
    outside,
    package_files,
    packages_named,
    plan,
    written_root,
)
from bot.ground.python.keywords import removed_keywords, suspect_blocks

BASE = {
    "src/pkg/__init__.py": "from .client import Client\nfrom .db import connect\n",
    "src/pkg/client.py": "class Client:\n    def __init__(self, timeout=5, proxies=None, /, *, verify=True):\n        pass\n",
    "src/pkg/db.py": "def connect(url):\n    pass\n",
    "src/pkg/json.py": "class _E:\n    def dumps(self):\n        pass\n",
    "src/pkg/urls.py": "def parse_url(u):\n    pass\n\n\ndef join(*a):\n    pass\n",
}
HEAD = {
    "src/pkg/__init__.py": "from .client import Client\nfrom dbdriver import connect\n",
    "src/pkg/client.py": "class Client:\n    def __init__(self, timeout=5):\n        pass\n",
    "src/pkg/db.py": "",
    "src/pkg/json.py": "class _E:\n    pass\n",
    "src/pkg/urls.py": "def join(*a):\n    pass\n",
}
MODULES = {"src/pkg/db.py": "pkg.db", "src/pkg/json.py": "pkg.json", "src/pkg/urls.py": "pkg.urls"}


def ref(text: str, target: str, path: str, kind: str = "code") -> BrokenReference:
    return BrokenReference("docs/a.md", 3, text, target, path, "removed", kind=kind)


def test_written_root_and_outside() -> None:
    assert written_root("json.dumps()") == "json"
    assert written_root("~pkg.mod.X") == "pkg"
    assert written_root("Queue#drain") == "Queue"
    assert written_root("  ") is None
    roots = {"json", "os"}
    assert outside(ref("json.dumps()", "_E.dumps", "src/pkg/json.py"), roots, {"pkg"})
    assert outside(ref("os::path", "path", "src/pkg/os.py"), roots, {"pkg"})
    assert not outside(ref("json", "json", "src/pkg/json.py"), roots, {"pkg"})  # bare: not rooted anywhere
    assert not outside(ref("jsonx.dumps()", "_E.dumps", "src/pkg/json.py"), roots, {"pkg"})
    assert not outside(ref("json.dumps()", "_E.dumps", "src/pkg/json.py"), roots, {"pkg", "json"})  # its own
    assert not outside(ref("json.dumps", "json.dumps", "json.dumps", kind="code"), roots, {"pkg"})  # a path
    assert not outside(ref("json.dumps", "_E.dumps", "src/pkg/json.py", kind="link"), roots, {"pkg"})


def test_judged_by_the_api_at_the_head() -> None:
    head = load_api(HEAD)
    refs = [
        ref("json.dumps()", "_E.dumps", "src/pkg/json.py"),  # the standard library's: left out
        ref("connect()", "connect", "src/pkg/db.py"),  # re-exported from a dependency: alive
        ref("pkg.urls.parse_url", "parse_url", "src/pkg/urls.py"),  # gone: kept
        ref("src/pkg/urls.py", "src/pkg/urls.py", "src/pkg/urls.py"),  # a path: as it was
        ref("Widget", "Widget", "src/ui.ts"),  # another language: as it was
        ref("pkg.Client", "Client", "src/pkg/client.py"),  # still there: left out
        ref("pkg()", "pkg", "src/pkg/__init__.py"),  # a function named as the package: not the package itself
        ref("urls", "urls", "scripts/release.py"),  # a function of a script gone: not the module pkg.urls
    ]
    assert [r.text for r in judged(refs, head, MODULES, {"json", "dbdriver"})] == [
        "pkg.urls.parse_url",
        "src/pkg/urls.py",
        "Widget",
        "pkg()",
        "urls",
    ]


def test_judged_notes_say_why() -> None:
    head = load_api({"pkg/__init__.py": "", "pkg/s.py": "from ext import Base\n\n\nclass S(Base):\n    pass\n",
                     "pkg/bad.py": "def (:\n"})  # fmt: skip
    found = judged(
        [ref("S.get()", "S.get", "pkg/s.py"), ref("pkg.bad.f()", "f", "pkg/bad.py")],
        head,
        {"pkg/s.py": "pkg.s", "pkg/bad.py": "pkg.bad"},
        {"ext"},
    )
    assert [(r.attention, (r.note or "")[:40]) for r in found] == [
        (False, "a member a class may inherit from a base"),
        (False, "griffe could not read the code: pkg/bad."),
    ]


PAGE = """# Use

```python
from pkg.urls import parse_url, join
from pkg import Client
from json import dumps
from pkg.nowhere import thing
Client(proxies=1, timeout=2, verify=False, other=3)
```
"""


def test_block_breakage_at_the_blocks_lines() -> None:
    base, head = load_api(BASE), load_api(HEAD)
    found = block_breakage("docs/a.md", PAGE, "markdown", base, head, {"json"})
    assert [(r.line, r.text, r.target, r.path, r.attention) for r in found] == [
        (4, "from pkg.urls import parse_url", "pkg.urls.parse_url", "src/pkg/urls.py", True),
        (8, "Client(verify=...)", "pkg.Client(verify=)", "src/pkg/client.py", True),
    ]  # `proxies` was positional-only: no keyword a call could pass
    only = block_breakage("docs/a.md", PAGE, "markdown", base, head, {"json"}, words={"verify"})
    assert [r.line for r in only] == [8]
    assert block_breakage("docs/a.md", PAGE, "markdown", base, base, {"json"}) == []


def test_removed_keywords_of_the_changed_modules() -> None:
    assert removed_keywords(
        {"src/pkg/client.py": BASE["src/pkg/client.py"]}, {"src/pkg/client.py": HEAD["src/pkg/client.py"]}
    ) == {"verify"}  # fmt: skip
    assert removed_keywords({"a.py": "def (:"}, {"a.py": ""}) == frozenset()
    assert removed_keywords({"x.py": "async def f(a, *, b): pass"}, {"x.py": "async def f(a): pass"}) == {"b"}
    assert removed_keywords({"x.py": "def f(a, /): pass"}, {"x.py": "def f(): pass"}) == set()  # positional only
    assert removed_keywords({"x.py": "def f(a): pass"}, {"x.py": "def g(): pass"}) == set()  # the function went
    assert removed_keywords({"x.py": "def f(a): pass"}, {}) == set()  # the file went
    assert removed_keywords({"x.py": "class A:\n    class B:\n        def f(self, k): pass\n"},
                            {"x.py": "class A:\n    class B:\n        def f(self): pass\n"}) == {"k"}  # fmt: skip
    assert removed_keywords({"x.py": "def f(a): pass"}, {"x.py": "x = 1\n" * (1 << 20)}) == set()  # too large


def test_plan_and_package_files() -> None:
    paths = [*BASE, "pyproject.toml", "docs/conf.py", "requirements/dev.txt", "a/b/c/d/requirements.txt", "tool.py"]
    planned = plan(paths, ["pyproject.toml", "docs/conf.py", "requirements/dev.txt", "a/b/c/d/requirements.txt"])
    assert planned.own == frozenset({"pkg", "tool"})
    assert planned.settings == ("docs/conf.py", "pyproject.toml", "requirements/dev.txt")
    assert package_files(paths, {"pkg"}) == sorted(BASE)


def test_suspect_blocks_and_kind_of() -> None:
    assert suspect_blocks(PAGE, {"parse_url"})
    assert not suspect_blocks(PAGE, {"parse"})  # a word, not a part of one
    assert not suspect_blocks("`parse_url` in prose", {"parse_url"})
    assert kind_of("docs/a.RST") == "rst" and kind_of("docs/a.md") == "markdown"


def test_signatures_unchanged_or_reflowed_remove_nothing() -> None:
    base = (
        "def f(a,\n      b=1):  # old\n    return a\n\n\nclass C:\n    async def g(self, *, k=(1, 2)):\n        pass\n"
    )
    assert removed_keywords({"x.py": base}, {"x.py": base.replace("# old", "# new") + "\nx = 1\n"}) == set()
    assert removed_keywords({"x.py": base}, {"x.py": base.replace("a,\n      b=1", "a, b=1")}) == set()
    assert removed_keywords({"x.py": base}, {"x.py": base.replace("*, k=(1, 2)", "")}) == {"k"}
    assert removed_keywords({"x.py": base}, {"x.py": base.replace(",\n      b=1", "")}) == {"b"}


def test_packages_named_by_references_and_blocks() -> None:
    planned = plan(list(BASE), list(HEAD))
    modules = {"src/pkg/urls.py": "pkg.urls", "tools/x.py": "tools.x"}
    assert packages_named([ref("parse_url()", "parse_url", "src/pkg/urls.py")], {}, planned, modules) == {"pkg"}
    assert packages_named([ref("src/pkg/urls.py", "src/pkg/urls.py", "src/pkg/urls.py")], {}, planned, modules) == set()
    assert packages_named([], {"docs/a.md": PAGE}, planned, modules) == {"pkg"}  # `json` is not the project's
    assert packages_named([], {"docs/a.md": PAGE}, planned, modules, words={"parse_url"}) == {"pkg"}
    assert packages_named([], {"docs/a.md": PAGE}, planned, modules, words={"dumps"}) == set()


def test_the_projects_own_packages_a_package_imports_from_are_the_absolute_imports_naming_one() -> None:
    texts = {
        "packages/lib/src/pkg/__init__.py": "try:\n    from pkgcli import *\nexcept ImportError:\n    pass\n",
        "packages/lib/src/pkg/io.py": "import json\nfrom . import tools\nimport pkgdata.loaders\nfrom os import path\n",
    }
    assert imported_packages(texts, {"pkg", "pkgcli", "pkgdata", "unused"}) == {"pkgcli", "pkgdata"}
