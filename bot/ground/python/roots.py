"""The names a page may root a dotted name in that are not the project's: the standard library, the declared
dependencies' import names (pyproject.toml, setup.cfg, requirements files) and the Sphinx site's intersphinx roots
(its `conf.py` read with `ast`, never run). `json.dumps()` on a page means Python's `json`, whatever module of the
project is named `json.py`. Pure: texts in, names out.
"""

from __future__ import annotations

import ast
import configparser
import posixpath
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping

MAX_CONFIG_BYTES = 1 << 20  # a settings file larger than this is not read

# Distributions whose import name is not their name normalised (`pyyaml` is imported as `yaml`).
_IMPORT_NAMES = {
    "pyyaml": "yaml",
    "beautifulsoup4": "bs4",
    "pillow": "PIL",
    "scikit_learn": "sklearn",
    "scikit_image": "skimage",
    "python_dateutil": "dateutil",
    "attrs": "attr",
    "pyjwt": "jwt",
    "opencv_python": "cv2",
    "protobuf": "google",
    "msgpack_python": "msgpack",
    "typing_extensions": "typing_extensions",
    "pymysql": "pymysql",
    "psycopg2_binary": "psycopg2",
    "python_multipart": "multipart",
    "ruamel.yaml": "ruamel",
}
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
# The settings files that declare a project's dependencies, by name.
_REQUIREMENTS_FILE = re.compile(r"(?:^|/)(?:[\w.-]*requirements[\w.-]*\.(?:txt|in)|requirements/[\w.-]+\.(?:txt|in))$")


def stdlib_names() -> frozenset[str]:
    """The standard library's top-level modules (and `builtins`' names' home)."""
    return frozenset(sys.stdlib_module_names) | {"builtins", "__future__"}


def is_dependency_file(path: str) -> bool:
    """A file that may declare the project's dependencies or a Sphinx site's intersphinx roots."""
    name = posixpath.basename(path)
    return name in ("pyproject.toml", "setup.cfg", "conf.py") or bool(_REQUIREMENTS_FILE.search(path))


def import_names(requirement: str) -> set[str]:
    """The names code imports a distribution by (`python-dateutil` → `dateutil`, `typing-extensions` →
    `typing_extensions`): its name normalised, and the known exceptions."""
    found = _REQUIREMENT.match(requirement)
    if found is None:
        return set()
    name = found[1].lower()
    normal = re.sub(r"[-.]+", "_", name)
    names = {normal}
    if name in _IMPORT_NAMES:
        names.add(_IMPORT_NAMES[name])
    if normal in _IMPORT_NAMES:
        names.add(_IMPORT_NAMES[normal])
    for prefix in ("python_", "py_", "django_"):
        if normal.startswith(prefix) and len(normal) > len(prefix):
            names.add(normal[len(prefix) :])
    return names


def declared(path: str, text: str) -> set[str]:
    """The import names of the dependencies a settings file declares (nothing from one that cannot be read)."""
    if len(text) > MAX_CONFIG_BYTES:
        return set()
    name = posixpath.basename(path)
    if name == "pyproject.toml":
        requirements = _pyproject(text)
    elif name == "setup.cfg":
        requirements = _setup_cfg(text)
    elif name == "conf.py":
        return intersphinx_roots(text)
    else:
        requirements = [line for line in text.splitlines() if not line.lstrip().startswith(("#", "-"))]
    return {n for requirement in requirements for n in import_names(requirement)}


def _pyproject(text: str) -> list[str]:
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return []
    found: list[str] = []
    project = data.get("project")
    if isinstance(project, dict):
        found += _strings(project.get("dependencies"))
        extras = project.get("optional-dependencies")
        if isinstance(extras, dict):
            for value in extras.values():
                found += _strings(value)
    groups = data.get("dependency-groups")
    if isinstance(groups, dict):
        for value in groups.values():
            found += _strings(value)
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    if isinstance(poetry, dict):
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        group = poetry.get("group")
        if isinstance(group, dict):
            tables += [g.get("dependencies") for g in group.values() if isinstance(g, dict)]
        found += [key for table in tables if isinstance(table, dict) for key in table if key != "python"]
    return found


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _setup_cfg(text: str) -> list[str]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    found: list[str] = []
    if parser.has_option("options", "install_requires"):
        found += parser.get("options", "install_requires").splitlines()
    if parser.has_section("options.extras_require"):
        for _, value in parser.items("options.extras_require"):
            found += value.splitlines()
    return [line for line in found if line.strip()]


def intersphinx_roots(conf_py: str) -> set[str]:
    """The keys of a Sphinx `conf.py`'s `intersphinx_mapping` (a literal dict; read with `ast`, never run): the
    projects a site links into by name (`python`, `sqlalchemy`)."""
    try:
        tree = ast.parse(conf_py)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = any(isinstance(t, ast.Name) and t.id == "intersphinx_mapping" for t in targets)
            if named and isinstance(node.value, ast.Dict):
                found.update(
                    k.value.replace("-", "_")
                    for k in node.value.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)
                )
    return found


def external_roots(settings: Mapping[str, str], own: Iterable[str]) -> frozenset[str]:
    """The roots outside the project: the standard library's modules, the dependencies `settings` (path → text of
    the files `is_dependency_file` names) declare and the intersphinx roots, but the project's own top-level
    packages and modules (`own`), which a page naming them means."""
    found = set(stdlib_names())
    for path, text in settings.items():
        found |= declared(path, text)
    return frozenset(found - set(own))
