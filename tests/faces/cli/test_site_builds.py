"""Real builds: two small sites (tests/data/sites/) built by their real tools after each command a user runs.

- material/: MkDocs Material with the blog plugin, an INHERITed config (config/base.yml) excluding the
  `pymdownx.snippets` fragments in docs/snippets/, mkdocstrings (`::: acme.core`) and an autorefs identifier
  (`[build][acme.core.build]`), a page copying a function (with front matter) and a blog post copying it too.
- sphinx/: Sphinx with autodoc (`.. autofunction::`, `:func:` roles), an `.. include::` of a fragment its
  `exclude_patterns` leave out, and the reStructuredText silencing comments.

Each site is taken through `init`, `ground` (no model), a code change, `fix --base` and `okf sync --init`: after
each, `mkdocs build --strict` / `sphinx-build -W` still passes, the same pages are published, nothing Wikiwarden
keeps is published, and the files changed are exactly those the command exists to change.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GitRepo

pytestmark = pytest.mark.usefixtures("isolated_cli")

SITES = Path(__file__).parents[2] / "data" / "sites"
QUIET = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def _site(repo: GitRepo, name: str) -> GitRepo:
    shutil.copytree(SITES / name, repo.root, dirs_exist_ok=True)
    repo.commit("the site", tag="v0")
    return repo


def mkdocs_build(root: Path, out: Path) -> set[str]:
    """`mkdocs build --strict` (a failure fails the test with its output); the files it published."""
    shutil.rmtree(out, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)],
        cwd=root, env=QUIET, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return _published(out)


def sphinx_build(root: Path, out: Path) -> set[str]:
    """`sphinx-build -W` (every warning an error); the files it published."""
    shutil.rmtree(out, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "doc", str(out)],
        cwd=root, env=QUIET, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return _published(out)


def _published(out: Path) -> set[str]:
    found = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert not [p for p in found if ".claims" in p or ".wikiwarden" in p], "a sidecar or quotes file was published"
    return {p for p in found if p.endswith(".html")}


def changed(repo: GitRepo) -> list[str]:
    """What the working tree changed since the last commit (untracked folders listed file by file)."""
    lines = repo.git("status", "--porcelain", "--untracked-files=all").splitlines()
    return sorted(line[3:] for line in lines)


def page_diff(repo: GitRepo, path: str) -> list[str]:
    """The lines a page lost and gained since the last commit."""
    diff = repo.git("diff", "-U0", "--", path).splitlines()
    return [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def test_a_material_site_builds_the_same_after_every_command(repo: GitRepo, cli, tmp_path: Path) -> None:
    site = _site(repo, "material")
    out = tmp_path / "built"
    pages = mkdocs_build(site.root, out)
    assert "guide/setup/index.html" in pages and "blog/2024/01/15/retries-are-here/index.html" in pages
    assert not any(p.startswith("snippets/") for p in pages)  # the INHERITed exclude_docs

    # init: its three files, and what it read of the site
    run = cli("init", "--repo", site.root)
    assert run.code == 0, run.err
    assert "site: 1 page the site excludes (docs/snippets/install.md)" in run.out
    assert "site: 1 blog post under docs/blog/posts/" in run.out
    assert changed(site) == [".github/wikiwarden.yml", ".github/workflows/wikiwarden.yml", ".pre-commit-config.yaml"]
    assert mkdocs_build(site.root, out) == pages
    site.commit("init")
    check = cli("check", "--repo", site.root, "--verbose")  # the fragment's link resolves from its includer
    assert check.code == 0 and "install.md:" not in check.out, check.out

    # ground without a model: the copied block's sidecar and quotes file, no page; the post is history
    run = cli("ground", "--repo", site.root)
    assert "left docs/blog/posts/launch.md unbound: history" in run.out
    assert changed(site) == ["docs/.claims/guide/retry.json", "docs/.wikiwarden/quotes/guide/retry.json"], run.out
    assert mkdocs_build(site.root, out) == pages
    site.commit("grounded", tag="grounded")

    # a code change: the copied block is stale, fix rewrites its one line and nothing else
    retry = site.read("src/acme/retry.py").decode()
    site.write("src/acme/retry.py", retry.replace('raise RuntimeError("gave up")', 'raise TimeoutError("gave up")'))
    site.commit("TimeoutError")
    assert cli("check", "--repo", site.root, "--base", "grounded").code == 1
    run = cli("fix", "--repo", site.root, "--base", "grounded")
    assert changed(site) == ["docs/.claims/guide/retry.json", "docs/guide/retry.md"], run.out
    assert page_diff(site, "docs/guide/retry.md") == [
        '-    raise RuntimeError("gave up")',
        '+    raise TimeoutError("gave up")',
    ]
    assert mkdocs_build(site.root, out) == pages
    site.commit("fixed")
    assert cli("check", "--repo", site.root).code == 0

    # okf sync --init: type and a plain title on the published pages; the blog, the fragment, the home page left
    run = cli("okf", "sync", "--repo", site.root, "--init")
    assert run.code == 0, run.err
    assert changed(site) == [
        "docs/.claims/guide/retry.json",  # the page's new pageVersion
        "docs/.wikiwarden/okf.json",
        "docs/guide/api.md",
        "docs/guide/config.md",
        "docs/guide/retry.md",
        "docs/guide/setup.md",
    ], run.out
    assert page_diff(site, "docs/guide/setup.md") == [
        "+---",
        '+type: "Reference"',
        '+title: "Install Acme"',
        "+---",
        "+",
    ]
    assert page_diff(site, "docs/guide/retry.md")[0] == '+type: "Reference"'  # and its claims' OKF `sources`:
    assert page_diff(site, "docs/guide/retry.md")[1:3] == [
        "+sources:",
        "+  - id: openwiki-source-2c2d51d6c65c1c90f6bd8b60",
    ]
    assert mkdocs_build(site.root, out) == pages
    assert "<title>Install Acme - Acme</title>" in (out / "guide/setup/index.html").read_text()
    site.commit("synced")
    assert cli("check", "--repo", site.root).code == 0


def test_a_sphinx_site_builds_the_same_and_renders_no_silencing_comment(repo: GitRepo, cli, tmp_path: Path) -> None:
    site = _site(repo, "sphinx")
    out = tmp_path / "built"
    pages = sphinx_build(site.root, out)
    assert pages == {"genindex.html", "guide.html", "index.html", "search.html"}
    assert "wikiwarden" not in (out / "index.html").read_text()  # the comments render as nothing
    assert "legacy.py" in (out / "index.html").read_text()  # while the paragraphs they silence are shown

    run = cli("init", "--repo", site.root)
    assert run.code == 0 and "docs folder: doc/ (found by Sphinx's doc/conf.py)" in run.out, run.out
    assert changed(site) == [".github/wikiwarden.yml", ".github/workflows/wikiwarden.yml", ".pre-commit-config.yaml"]
    site.commit("init")
    # The silenced paths are missing files, certain failures: the comments hold them; the excluded include is
    # read through index.rst.
    check = cli("check", "--repo", site.root, "--verbose")
    assert check.code == 0 and "legacy.py" not in check.out and "old.py" not in check.out, check.out
    bare = site.read("doc/index.rst").decode().replace(".. wikiwarden: ignore", ".. a comment")
    site.write("doc/index.rst", bare)
    unsilenced = cli("check", "--repo", site.root, "--verbose")
    assert unsilenced.code == 1 and "src/acme/legacy.py" in unsilenced.out and "src/acme/old.py" in unsilenced.out
    site.git("checkout", "--", "doc/index.rst")

    run = cli("ground", "--repo", site.root)
    assert changed(site) == [], run.out  # reStructuredText pages take no claims: nothing written
    assert sphinx_build(site.root, out) == pages

    retry = site.read("src/acme/retry.py").decode()
    site.write("src/acme/retry.py", retry.replace('raise RuntimeError("gave up")', 'raise TimeoutError("gave up")'))
    site.commit("TimeoutError", tag="changed")
    run = cli("fix", "--repo", site.root, "--base", "v0")
    assert changed(site) == [], run.out
    assert sphinx_build(site.root, out) == pages

    run = cli("okf", "sync", "--repo", site.root, "--init")
    assert run.code == 0, run.err
    assert changed(site) == ["doc/.wikiwarden/okf.json"], run.out  # no Markdown page, no new index.md
    assert sphinx_build(site.root, out) == pages
