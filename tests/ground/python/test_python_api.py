"""The Python API read with griffe from texts: module names from paths, re-exports from the package and from
dependencies, wildcard imports, inherited members and bases from other packages, and the bad inputs (a syntax
error, a huge module, a cycle of re-exports, a load over its time) as `unknown` with the reason, never a crash."""

from __future__ import annotations

import pytest

from bot.ground.python.api import MAX_MODULE_BYTES, load_api, module_names

FILES = {
    "src/pkg/__init__.py": "from dbdriver import connect\nfrom .widgets import Panel\n__all__ = ['Panel', 'connect']\n",
    "src/pkg/widgets.py": (
        "from sqlalchemy.orm import Session as _Base\n\n\nclass Panel:\n    def show(self, x, proxies=None):\n"
        "        pass\n\n\nclass Session(_Base):\n    def own(self):\n        pass\n\n\n"
        "class Local(Session):\n    pass\n\n\nclass Plain:\n    pass\n\n\nclass Child(Plain):\n    pass\n"
    ),
    "src/pkg/sub/__init__.py": "from ..widgets import *\n",
    "src/pkg/cyc.py": "from .cyc2 import a\n",
    "src/pkg/cyc2.py": "from .cyc import a\n",
    "src/pkg/bad.py": "def broken(:\n",
    "src/pkg/bad_child/__init__.py": "x = 1\n",
}


def test_module_names_follow_packages_and_loose_modules() -> None:
    names = module_names(
        [
            "src/pkg/__init__.py", "src/pkg/a.py", "src/pkg/sub/__init__.py", "src/pkg/sub/b.py", "tool.py",
            "src/single.py", "scripts/run.py", "docs/conf.py", "src/pkg/no-id.py", "src/pkg/c.pyi", "src/pkg/a.pyi",
            "stubs/__init__.pyi", "src/other/x.py",
        ]
    )  # fmt: skip
    assert names == {
        "src/pkg/__init__.py": "pkg",
        "src/pkg/a.py": "pkg.a",
        "src/pkg/c.pyi": "pkg.c",
        "src/pkg/sub/__init__.py": "pkg.sub",
        "src/pkg/sub/b.py": "pkg.sub.b",
        "tool.py": "tool",
        "src/single.py": "single",
        "stubs/__init__.pyi": "stubs",
    }


def test_names_resolve_through_aliases_exports_and_wildcards() -> None:
    api = load_api(FILES)
    assert api.packages == frozenset({"pkg"})
    assert api.locate("pkg.Panel").state == "found"
    assert api.locate("pkg.sub.Panel.show").state == "found"  # a wildcard import of a sibling
    assert api.locate("pkg.connect").state == "external"  # a dependency's, re-exported
    assert api.locate("pkg.widgets.Panel.gone").state == "missing"
    assert api.locate("pkg.gone").state == "missing"
    assert api.locate("other.thing").state == "missing"  # not the project's
    found = api.locate("pkg.Panel").obj
    assert found is not None and api.file_of(found) == "src/pkg/widgets.py"


def test_a_member_a_class_lacks_is_told_apart_by_its_bases() -> None:
    api = load_api(FILES)
    assert api.locate("pkg.widgets.Session.own").state == "found"
    missing = api.locate("pkg.widgets.Session.get")
    assert (missing.state, missing.why) == ("external_base", "sqlalchemy.orm.Session")
    through = api.locate("pkg.widgets.Local.get")  # a base in the project whose own base is another package's
    assert (through.state, through.why) == ("external_base", "sqlalchemy.orm.Session")
    assert api.locate("pkg.widgets.Child.get").state == "missing"  # bases all the project's: certainly gone


def test_what_griffe_cannot_read_is_unknown_with_the_reason() -> None:
    api = load_api(FILES)
    bad = api.locate("pkg.bad.broken")
    assert bad.state == "unknown" and bad.why is not None
    assert bad.why.startswith("src/pkg/bad.py: griffe cannot read it (SyntaxError")
    cycle = api.locate("pkg.cyc.a")
    assert cycle.state == "unknown" and cycle.why is not None and "cycle of re-exports" in cycle.why


def test_a_huge_module_is_not_read_and_its_names_are_unknown() -> None:
    huge = "x = 1\n" * (MAX_MODULE_BYTES // 6 + 1)
    api = load_api({"pkg/__init__.py": "", "pkg/gen.py": huge, "pkg/gen_sub/__init__.py": ""})
    found = api.locate("pkg.gen.x")
    assert found.state == "unknown" and found.why is not None and "over 1,048,576" in found.why
    assert api.locate("pkg.gen_sub").state == "found"


def test_a_package_under_an_unread_one_is_unknown_too() -> None:
    api = load_api({"pkg/__init__.py": "def (:\n", "pkg/mod.py": "x = 1\n"})
    found = api.locate("pkg.mod.x")
    assert found.state == "unknown" and found.why is not None and found.why.startswith("pkg/__init__.py: griffe")


@pytest.mark.parametrize(("budget", "read"), [(10.0, True), (0.5, False)])
def test_the_load_stops_when_its_time_is_spent(budget: float, read: bool) -> None:
    ticks = iter(range(100))
    api = load_api({"pkg/__init__.py": "", "pkg/a.py": "x = 1\n"}, clock=lambda: float(next(ticks)), budget=budget)
    located = api.locate("pkg.a.x")
    assert (located.state == "found") is read
    if not read:
        assert located.why == "pkg/a.py: not read: the API's load took over 0.5 s"


def test_own_limits_the_packages_loaded() -> None:
    api = load_api({"a/__init__.py": "x = 1\n", "b/__init__.py": "y = 1\n"}, own={"b"})
    assert api.packages == frozenset({"b"})
    assert api.locate("a.x").state == "missing" and api.locate("b.y").state == "found"


def test_modules_are_visited_as_lookups_reach_them() -> None:
    files = {
        "pkg/__init__.py": "from .a import A\n",
        "pkg/a.py": "from .base import Base\n\n\nclass A(Base):\n    pass\n",
        "pkg/base.py": "class Base:\n    def run(self):\n        pass\n",
        "pkg/unrelated.py": "x = 1\n",
        "pkg/other/__init__.py": "y = 2\n",
    }
    api = load_api(files)
    assert api.loaded == 0
    assert api.locate("pkg.A.run").state == "found"  # through the re-export, into the base's module
    assert api.loaded == 3  # pkg, pkg.a, pkg.base: not the unrelated modules
    assert api.locate("pkg.other.y").state == "found" and api.loaded == 4
    assert api.load("pkg.nowhere") is None and api.load("pkg") is api.load("pkg")
