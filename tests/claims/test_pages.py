"""Grounded wiki pages, sidecar path mapping, wiki folder and page-argument normalization (spec §1.1)."""

from __future__ import annotations

import pytest

from bot.claims.pages import (
    CLAIMS_DIR,
    DEFAULT_WIKI_DIR,
    is_grounded_page,
    is_sidecar,
    normalize_wiki_dir,
    page_argument,
    page_for,
    sidecar_for,
)


def test_constants() -> None:
    assert DEFAULT_WIKI_DIR == "openwiki"
    assert CLAIMS_DIR == ".claims"


@pytest.mark.parametrize(
    "relative",
    [
        "quickstart.md",
        "architecture/overview.md",
        "a/b/c/d/deep.md",
        "_skeleton.md",  # a temporary working file, but in neither reserved set: it is grounded
        "sub/_skeleton.md",
        "README.md",
        "index.md.md",
        "indexes.md",
        "my-index.md",
        "log.md.md",
        "changelog.md",
        "plan.md",
        "_plan2.md",
        "instructions-for-users.md",
        "index/page.md",  # a folder named like a reserved page is fine
        "log.md/page.md",
        "claims/page.md",  # `claims` without the dot is an ordinary folder
        ".claimsx/page.md",
        "x.claims/page.md",
        ".claims.md",  # a file, not a `.claims` segment above the page
        "sub/.claims.md",
        ".hidden.md",
        "café/über.md",
        "with space.md",
    ],
)
def test_grounded_pages(relative: str) -> None:
    assert is_grounded_page(relative) is True


@pytest.mark.parametrize(
    "relative",
    [
        # Reserved basenames, compared lower-cased, at any depth.
        "index.md",
        "INDEX.md",
        "Index.md",
        "log.md",
        "LOG.md",
        "instructions.md",
        "INSTRUCTIONS.md",
        "Instructions.md",
        "_plan.md",
        "_PLAN.md",
        "sub/index.md",
        "a/b/INDEX.md",
        "guides/log.md",
        "guides/INSTRUCTIONS.md",
        "guides/_plan.md",
        # Anything below a `.claims` segment, case-insensitively.
        ".claims/x.md",
        ".Claims/x.md",
        ".CLAIMS/x.md",
        "sub/.claims/x.md",
        "a/.cLaImS/b/c.md",
        # Not Markdown.
        "page.txt",
        "page.markdown",
        "page.md.json",
        "page.mdx",
        "page",
        "page.MD",
        "sub/",
        # Empty, `.` and `..` segments.
        "",
        "/x.md",
        "a//b.md",
        "./x.md",
        "a/./b.md",
        "../x.md",
        "a/../b.md",
        "a/b/../../x.md",
    ],
)
def test_ungrounded_pages(relative: str) -> None:
    assert is_grounded_page(relative) is False


@pytest.mark.parametrize("wiki_dir", ["openwiki", "docs/wiki", "a/b/c"])
@pytest.mark.parametrize(
    ("relative_page", "relative_sidecar"),
    [
        ("quickstart.md", "quickstart.json"),
        ("architecture/overview.md", "architecture/overview.json"),
        ("a/b/c/deep.md", "a/b/c/deep.json"),
        ("_skeleton.md", "_skeleton.json"),
        ("café/über.md", "café/über.json"),
        ("with space.md", "with space.json"),
        ("v1.2.md", "v1.2.json"),
        ("x.md.md", "x.md.json"),
    ],
)
def test_sidecar_mapping_round_trip(wiki_dir: str, relative_page: str, relative_sidecar: str) -> None:
    page = f"{wiki_dir}/{relative_page}"
    sidecar = f"{wiki_dir}/.claims/{relative_sidecar}"
    assert sidecar_for(page, wiki_dir) == sidecar
    assert page_for(sidecar, wiki_dir) == page
    assert page_for(sidecar_for(page, wiki_dir), wiki_dir) == page
    assert sidecar_for(page_for(sidecar, wiki_dir), wiki_dir) == sidecar
    assert is_sidecar(sidecar, wiki_dir)
    assert not is_sidecar(page, wiki_dir)


def test_spec_example_mapping() -> None:
    assert sidecar_for("openwiki/a/b.md", "openwiki") == "openwiki/.claims/a/b.json"


@pytest.mark.parametrize(
    ("page", "wiki_dir"),
    [
        ("other/x.md", "openwiki"),
        ("openwikix/x.md", "openwiki"),
        ("x.md", "openwiki"),
        ("docs/x.md", "docs/wiki"),
        ("openwiki/x.md", "docs/wiki"),
    ],
)
def test_sidecar_for_refuses_pages_outside_the_wiki(page: str, wiki_dir: str) -> None:
    with pytest.raises(ValueError, match="not inside"):
        sidecar_for(page, wiki_dir)


@pytest.mark.parametrize(
    ("sidecar", "wiki_dir"),
    [
        ("openwiki/x.json", "openwiki"),
        ("openwiki/claims/x.json", "openwiki"),
        ("other/.claims/x.json", "openwiki"),
        ("openwiki/.claims/x.json", "docs/wiki"),
    ],
)
def test_page_for_refuses_paths_outside_the_claims_folder(sidecar: str, wiki_dir: str) -> None:
    with pytest.raises(ValueError, match="not inside"):
        page_for(sidecar, wiki_dir)


@pytest.mark.parametrize(
    ("path", "wiki_dir", "expected"),
    [
        ("openwiki/.claims/x.json", "openwiki", True),
        ("openwiki/.claims/a/b/c.json", "openwiki", True),
        ("docs/wiki/.claims/x.json", "docs/wiki", True),
        ("openwiki/.claims/x.json", "docs/wiki", False),
        ("openwiki/x.json", "openwiki", False),
        ("openwiki/.claims/x.md", "openwiki", False),
        ("openwiki/.claims/x.json.tmp", "openwiki", False),
        ("openwiki/.claims/.x.json.0f8fad5b-d9cb-469f-a165-70867728950e.tmp", "openwiki", False),
        ("openwiki/.claims/a/.x.json", "openwiki", False),
        ("openwiki/.claims", "openwiki", False),
        ("openwiki/.claims/", "openwiki", False),
        (".claims/x.json", "openwiki", False),
        ("other/openwiki/.claims/x.json", "openwiki", False),
        ("openwiki/.last-update.json", "openwiki", False),
    ],
)
def test_is_sidecar(path: str, wiki_dir: str, expected: bool) -> None:
    assert is_sidecar(path, wiki_dir) is expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("openwiki", "openwiki"),
        ("openwiki/", "openwiki"),
        ("/openwiki", "openwiki"),
        ("  openwiki  ", "openwiki"),
        ("docs/wiki", "docs/wiki"),
        ("docs/wiki/", "docs/wiki"),
        ("./docs", "docs"),
        ("./docs/wiki/", "docs/wiki"),
        ("docs//wiki", "docs/wiki"),
        ("docs/./wiki", "docs/wiki"),
        ("docs/../wiki", "wiki"),
        ("docs\\wiki", "docs/wiki"),
        (".github-wiki", ".github-wiki"),
        ("git", "git"),
    ],
)
def test_normalize_wiki_dir_accepts(given: str, expected: str) -> None:
    assert normalize_wiki_dir(given) == expected


@pytest.mark.parametrize(
    "given",
    [
        *("", " ", ".", "./", "/", "//", "..", "../", "../x", "../../x"),
        *("docs/../..", "docs/../../x", ".git", ".GIT", "./.git", ".git/"),
    ],
)
def test_normalize_wiki_dir_rejects(given: str) -> None:
    with pytest.raises(ValueError, match="wiki folder"):
        normalize_wiki_dir(given)


@pytest.mark.parametrize(
    ("argument", "wiki_dir", "expected"),
    [
        ("/openwiki/x.md", "openwiki", "openwiki/x.md"),
        ("openwiki/x.md", "openwiki", "openwiki/x.md"),
        ("x.md", "openwiki", "openwiki/x.md"),
        ("./x.md", "openwiki", "openwiki/x.md"),
        ("sub/x.md", "openwiki", "openwiki/sub/x.md"),
        ("/openwiki/sub/deep/x.md", "openwiki", "openwiki/sub/deep/x.md"),
        ("openwiki\\sub\\x.md", "openwiki", "openwiki/sub/x.md"),
        ("openwiki.md", "openwiki", "openwiki/openwiki.md"),
        ("openwikix/x.md", "openwiki", "openwiki/openwikix/x.md"),
        ("_skeleton.md", "openwiki", "openwiki/_skeleton.md"),
        ("/docs/wiki/x.md", "docs/wiki", "docs/wiki/x.md"),
        ("docs/wiki/x.md", "docs/wiki", "docs/wiki/x.md"),
        ("x.md", "docs/wiki", "docs/wiki/x.md"),
        ("sub/x.md", "docs/wiki", "docs/wiki/sub/x.md"),
    ],
)
def test_page_argument_accepts(argument: str, wiki_dir: str, expected: str) -> None:
    assert page_argument(argument, wiki_dir) == expected


@pytest.mark.parametrize(
    "argument",
    [
        "index.md",
        "/openwiki/index.md",
        "openwiki/INDEX.md",
        "sub/index.md",
        "log.md",
        "openwiki/log.md",
        "INSTRUCTIONS.md",
        "/openwiki/INSTRUCTIONS.md",
        "instructions.md",
        "_plan.md",
        "openwiki/sub/_PLAN.md",
        ".claims/x.md",
        "openwiki/.claims/x.md",
        "/openwiki/.Claims/x.md",
        "sub/.claims/x.md",
        "openwiki/.claims/x.json",
        "x.txt",
        "openwiki/x.json",
        "openwiki",
        "/openwiki/",
        "openwiki/sub/",
        "",
        "../x.md",
        "openwiki/../x.md",
        "openwiki/a/../x.md",
    ],
)
def test_page_argument_rejects(argument: str) -> None:
    with pytest.raises(ValueError, match=r"grounded wiki page|not inside"):
        page_argument(argument, "openwiki")
