"""Modules, packages and definitions renamed, through the command line as a user meets them: `check --base` names
the new dotted path wherever a page writes the old one (code spans, autorefs identifiers, mkdocstrings' `:::`
lines, Sphinx's roles with and without `~`, `automodule` and `currentmodule` lines), `fix --base` rewrites each
as written without a model, and `check` passes after."""

from __future__ import annotations

import pytest
from conftest import GitRepo

pytestmark = pytest.mark.usefixtures("isolated_cli")

PANEL = "class Panel:\n    def draw(self, canvas):\n        canvas.fill()\n        return canvas\n"
TABLE = "class Table:\n    def rows(self):\n        return list(self._rows)\n"
APP = "class App:\n    def run(self, jobs):\n        for job in jobs:\n            job()\n        return len(jobs)\n"
API_PAGE = """# API

The widgets live in `pkg.widgets`; draw with `pkg.widgets.Panel.draw()`.
See [the panel][pkg.widgets.Panel] and [`run()`][pkg.app.App.run].

::: pkg.widgets
    options:
      show_source: false
"""
REF_PAGE = """Reference
=========

.. currentmodule:: pkg.dispatch

The module :mod:`pkg.dispatch` holds :class:`~pkg.dispatch.Table` and :class:`pkg.dispatch.Table`.

.. automodule:: pkg.dispatch
   :members:
"""


@pytest.fixture
def api(repo: GitRepo) -> GitRepo:
    """A src/ layout package with a module, a package and a class, documented by a MkDocs page (mkdocstrings,
    autorefs) and a Sphinx page."""
    repo.write("src/pkg/__init__.py", "")
    repo.write("src/pkg/widgets.py", PANEL)
    repo.write("src/pkg/dispatch/__init__.py", "from .table import Table\n")
    repo.write("src/pkg/dispatch/table.py", TABLE)
    repo.write("src/pkg/app.py", APP)
    repo.write("docs/api.md", API_PAGE)
    repo.write("docs/conf.py", "project = 'pkg'\n")
    repo.write("docs/ref.rst", REF_PAGE)
    repo.commit("code and docs", tag="v1")
    return repo


def test_a_module_renamed_is_named_by_its_new_dotted_path_and_fix_rewrites_every_form(api: GitRepo, cli) -> None:
    api.git("mv", "src/pkg/widgets.py", "src/pkg/widget_kit.py")
    api.commit("widgets becomes widget_kit")
    run = cli("check", "--repo", api.root, "--wiki-dir", "docs", "--base", "v1")
    assert run.code == 1, run.out
    assert "  ✗ docs/api.md:3  pkg.widgets: renamed by this change to pkg.widget_kit\n" in run.out
    assert (
        "  ✗ docs/api.md:3  pkg.widgets.Panel.draw() (pkg.widgets.Panel.draw): renamed by this change to "
        "pkg.widget_kit.Panel.draw\n"
    ) in run.out
    assert "  ✗ docs/api.md:4  pkg.widgets.Panel: renamed by this change to pkg.widget_kit.Panel\n" in run.out
    assert "  ✗ docs/api.md:6  pkg.widgets: renamed by this change to pkg.widget_kit\n" in run.out
    assert "4 broken references" in run.out
    document = cli("check", "--repo", api.root, "--wiki-dir", "docs", "--base", "v1", "--format", "json").json()
    assert {(r["target"], r["renamed_to"]) for r in document["broken_references"]} == {
        ("pkg.widgets", "pkg.widget_kit"),
        ("pkg.widgets.Panel.draw", "pkg.widget_kit.Panel.draw"),
        ("pkg.widgets.Panel", "pkg.widget_kit.Panel"),
    }
    fixed = cli("fix", "--repo", api.root, "--wiki-dir", "docs", "--base", "v1")
    assert fixed.code == 0, fixed.out
    assert "✎ docs/api.md:6  pkg.widgets → pkg.widget_kit" in fixed.out
    assert api.read("docs/api.md").decode() == API_PAGE.replace("pkg.widgets", "pkg.widget_kit")
    assert api.read("docs/ref.rst").decode() == REF_PAGE  # names nothing renamed
    for args in (("--base", "v1"), ()):
        again = cli("check", "--repo", api.root, "--wiki-dir", "docs", *args)
        assert again.code == 0, again.out


def test_a_package_renamed_is_named_by_its_new_dotted_path_and_fix_rewrites_roles_and_directives(
    api: GitRepo, cli
) -> None:
    api.git("mv", "src/pkg/dispatch", "src/pkg/tables")
    api.commit("dispatch becomes tables")
    run = cli("check", "--repo", api.root, "--wiki-dir", "docs", "--base", "v1")
    assert run.code == 1, run.out
    assert "  ✗ docs/ref.rst:4  pkg.dispatch: renamed by this change to pkg.tables\n" in run.out  # currentmodule
    assert "  ✗ docs/ref.rst:6  pkg.dispatch: renamed by this change to pkg.tables\n" in run.out  # :mod:
    assert "  ✗ docs/ref.rst:6  pkg.dispatch.Table: renamed by this change to pkg.tables.Table\n" in run.out
    assert "  ✗ docs/ref.rst:8  pkg.dispatch: renamed by this change to pkg.tables\n" in run.out  # automodule
    fixed = cli("fix", "--repo", api.root, "--wiki-dir", "docs", "--base", "v1")
    assert fixed.code == 0, fixed.out
    assert api.read("docs/ref.rst").decode() == REF_PAGE.replace("pkg.dispatch", "pkg.tables")
    assert ":class:`~pkg.tables.Table` and :class:`pkg.tables.Table`" in api.read("docs/ref.rst").decode()
    assert api.read("docs/api.md").decode() == API_PAGE
    for args in (("--base", "v1"), ()):
        again = cli("check", "--repo", api.root, "--wiki-dir", "docs", *args)
        assert again.code == 0, again.out


def test_a_method_renamed_fix_rewrites_the_link_text_and_its_autorefs_identifier(api: GitRepo, cli) -> None:
    api.write("src/pkg/app.py", APP.replace("def run(", "def run_all("))
    api.commit("run becomes run_all")
    run = cli("check", "--repo", api.root, "--wiki-dir", "docs", "--base", "v1")
    assert run.code == 1, run.out
    assert "  ✗ docs/api.md:4  pkg.app.App.run: renamed by this change to pkg.app.App.run_all\n" in run.out
    fixed = cli("fix", "--repo", api.root, "--wiki-dir", "docs", "--base", "v1")
    assert fixed.code == 0, fixed.out
    assert (
        "See [the panel][pkg.widgets.Panel] and [`run_all()`][pkg.app.App.run_all].\n"
        in api.read("docs/api.md").decode()
    )
    again = cli("check", "--repo", api.root, "--wiki-dir", "docs", "--base", "v1")
    assert again.code == 0, again.out


def test_a_module_left_importable_under_its_old_name_is_not_reported(api: GitRepo, cli) -> None:
    api.git("mv", "src/pkg/widgets.py", "src/pkg/widget_kit.py")
    api.write("src/pkg/widgets/__init__.py", "from ..widget_kit import Panel\n")  # the old name, kept
    api.commit("widgets becomes widget_kit, the old name kept")
    run = cli("check", "--repo", api.root, "--wiki-dir", "docs", "--base", "v1")
    assert "pkg.widget_kit" not in run.out
