"""The roots outside the project: the standard library, the dependencies pyproject.toml, setup.cfg and
requirements files declare (by their import names), and a Sphinx site's intersphinx roots read without running
conf.py; the project's own packages never among them."""

from __future__ import annotations

import pytest

from bot.ground.python.roots import declared, external_roots, import_names, intersphinx_roots, is_dependency_file

PYPROJECT = """[project]
name = "pkg"
dependencies = ["SQLAlchemy>=2", "python-dateutil", "PyYAML; python_version>'3'"]

[project.optional-dependencies]
http = ["httpx[http2]>=0.27"]

[dependency-groups]
dev = ["pytest", {include-group = "lint"}]

[tool.poetry.dependencies]
python = "^3.10"
attrs = "*"

[tool.poetry.group.docs.dependencies]
mkdocs-material = "*"
"""
SETUP_CFG = """[options]
install_requires =
    click>=8
    typing-extensions

[options.extras_require]
fast = uvloop
"""
CONF_PY = """import os
extensions = ["sphinx.ext.intersphinx"]
intersphinx_mapping = {"python": ("https://docs.python.org/3", None), "sqlalchemy-core": ("x", None)}
os.system("never run")
"""


@pytest.mark.parametrize(
    ("requirement", "names"),
    [
        ("SQLAlchemy>=2", {"sqlalchemy"}),
        ("python-dateutil", {"python_dateutil", "dateutil"}),
        ("PyYAML", {"pyyaml", "yaml"}),
        ("beautifulsoup4", {"beautifulsoup4", "bs4"}),
        ("zope.interface", {"zope_interface"}),
        ("ruamel.yaml", {"ruamel_yaml", "ruamel"}),
        ("django-filter", {"django_filter", "filter"}),
        ("py-cpuinfo", {"py_cpuinfo", "cpuinfo"}),
        ("python", {"python"}),
        ("  # a comment", set()),
    ],
)
def test_import_names(requirement: str, names: set[str]) -> None:
    assert import_names(requirement) == names


def test_what_each_settings_file_declares() -> None:
    assert declared("pyproject.toml", PYPROJECT) >= {"sqlalchemy", "dateutil", "yaml", "httpx", "pytest", "attr"}
    assert "mkdocs_material" in declared("pyproject.toml", PYPROJECT)
    assert "python" not in declared("pyproject.toml", PYPROJECT)
    assert declared("setup.cfg", SETUP_CFG) == {"click", "typing_extensions", "uvloop"}
    assert declared("requirements-dev.txt", "-r base.txt\n# tools\nblack==24.1\n\nrequests\n") == {"black", "requests"}
    assert declared("docs/conf.py", CONF_PY) == {"python", "sqlalchemy_core"}


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("pyproject.toml", "[project\n"),
        ("pyproject.toml", "project = 3\ntool = 1\n"),
        ("setup.cfg", "[options\n"),
        ("docs/conf.py", "intersphinx_mapping = {\n"),
        ("requirements.txt", "x" * (1 << 21)),
    ],
)
def test_a_settings_file_that_cannot_be_read_declares_nothing(path: str, text: str) -> None:
    assert declared(path, text) == set()


def test_intersphinx_roots_only_from_a_literal_mapping() -> None:
    assert intersphinx_roots("intersphinx_mapping: dict = {'attrs': ('u', None), 3: 4}\n") == {"attrs"}
    assert intersphinx_roots("intersphinx_mapping = make()\nother = {'x': 1}\n") == set()


@pytest.mark.parametrize(
    ("path", "is_one"),
    [
        ("pyproject.toml", True), ("sub/setup.cfg", True), ("docs/conf.py", True), ("requirements.txt", True),
        ("requirements/dev.txt", True), ("dev-requirements.in", True), ("setup.py", False), ("README.md", False),
        ("src/requirements.py", False),
    ],
)  # fmt: skip
def test_is_dependency_file(path: str, is_one: bool) -> None:
    assert is_dependency_file(path) is is_one


def test_external_roots_are_the_standard_library_and_dependencies_but_the_projects_own() -> None:
    roots = external_roots({"pyproject.toml": PYPROJECT}, own={"pkg", "json"})
    assert {"os", "sys", "sqlalchemy", "yaml", "builtins", "__future__"} <= roots
    assert "json" not in roots and "pkg" not in roots  # a project's own top-level `json` package is its own
