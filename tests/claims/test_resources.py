"""Resources: the shortcut for paths already in normal form, and the sweep's memo of each part, answer exactly as
OpenWiki's parser does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.claims.errors import EvidenceResourceError
from bot.claims.ignore import IGNORE_FILE
from bot.claims.options import SweepOptions
from bot.claims.resources import canonical_resource, check_contained, parse_resource, resource_path
from bot.claims.snapshot import MemorySnapshot
from bot.claims.sweep import Problem, SnapshotReader

VECTORS = Path(__file__).parents[1] / "data" / "vectors" / "resources.jsonl"


@pytest.mark.parametrize(
    ("resource", "canonical"),
    [
        ("repo://src/a.py#L1-L2", "repo://src/a.py#L1-L2"),
        ("repo://.github/workflows/ci.yml", "repo://.github/workflows/ci.yml"),
        ("repo://.../x.py", "repo://.../x.py"),
        ("repo://..a/b..#L3", "repo://..a/b..#L3-L3"),
        ("repo://openwikis/a.md", "repo://openwikis/a.md"),
        ("repo://(x)/y'z*!~.py", "repo://(x)/y'z*!~.py"),
        ("repo://a/./b.py", "repo://a/b.py"),
        ("repo://a/../b.py", "repo://b.py"),
        ("repo://./a.py", "repo://a.py"),
        ("repo://a//b.py", "repo://a/b.py"),
        ("repo://a/b/.", "repo://a/b"),
        ("repo://a%2Fb.py", "repo://a/b.py"),
    ],
)
def test_a_path_is_normalised_unless_it_already_is(resource: str, canonical: str) -> None:
    assert canonical_resource(resource) == canonical


@pytest.mark.parametrize(
    "resource",
    [
        "repo://.git/config",
        "repo://.GIT",
        "repo://OpenWiki/page.md",
        "repo://openwiki",
        "repo://.",
        "repo://./",
        "repo://a/../",
    ],
)
def test_a_reserved_path_is_rejected_even_in_normal_form(resource: str) -> None:
    with pytest.raises(EvidenceResourceError, match=r"reserved path|inside the repository"):
        parse_resource(resource)


def test_resource_path_reads_the_part_before_the_fragment() -> None:
    assert resource_path("repo://a/./b.py") == "a/b.py"
    with pytest.raises(EvidenceResourceError, match="Unsupported"):
        resource_path("https://a/b.py")


def _expected(reader: SnapshotReader, resource: str) -> object:
    """The sweep's answer as the parser and the path's own rules give it, one resource at a time."""
    try:
        res = parse_resource(resource)
    except EvidenceResourceError as exc:
        return Problem(str(exc))
    return reader._path_problem(res) or res


def _reader() -> SnapshotReader:
    files = {IGNORE_FILE: b"vendor/\n", "src/a.py": b"a\n"}
    return SnapshotReader(MemorySnapshot(files, label="head"), SweepOptions())


def test_the_sweep_reads_every_resource_vector_as_the_parser_does() -> None:
    """Each input twice, in order and reversed: the memo of the path part must not leak one resource's answer into
    another citing the same path."""
    inputs = [json.loads(line)["input"] for line in VECTORS.read_text(encoding="utf-8").splitlines()]
    inputs = [i for i in inputs if isinstance(i, str)]
    reader, reference = _reader(), _reader()
    wrong = [r for r in [*inputs, *reversed(inputs)] if reader.resource(r) != _expected(reference, r)]
    assert wrong == []


@pytest.mark.parametrize(
    "resources",
    [
        ["repo://src/a.py#L1-L2", "repo://src/a.py#L0", "repo://src/a.py#L2-L1", "repo://src/a.py"],
        ["repo://vendor/x.py#L1", "repo://vendor/x.py#Lx", "repo://vendor/x.py"],
        ["repo://a/../../x.py#L1", "repo://a/../../x.py#L1-L2", "repo://a/../../x.py#bad"],
        ["repo://openwiki/p.md#L1", "repo://openwiki/p.md", "repo://openwiki/p.md#L2"],
        ["file://src/a.py#L1", "file://src/a.py#L2", "file://src/a.py"],
        ["repo://src/a.py#L1#L2", "repo://src/a.py#L1"],
    ],
)
def test_resources_citing_one_path_each_get_their_own_answer(resources: list[str]) -> None:
    reader = _reader()
    answers = [reader.resource(r) for r in resources]
    assert answers == [_expected(_reader(), r) for r in resources]


def test_line_numbers_up_to_javascripts_largest_safe_integer() -> None:
    assert parse_resource("repo://a.py#L9007199254740991").end == 2**53 - 1
    for fragment in ("L9007199254740992", "L1-L9007199254740992"):
        with pytest.raises(EvidenceResourceError, match="too large"):
            parse_resource(f"repo://a.py#{fragment}")


def test_a_resource_names_its_whole_file_and_moves_with_or_without_a_span() -> None:
    spanned = parse_resource("repo://src/a b.py#L3-L4")
    assert spanned.whole_file == parse_resource("repo://src/a%20b.py") and spanned.whole_file.is_whole_file
    assert not spanned.is_whole_file and spanned.canonical == "repo://src/a%20b.py#L3-L4"
    assert spanned.moved_to("src/b.py", 7, 9).canonical == "repo://src/b.py#L7-L9"
    assert spanned.whole_file.moved_to("src/b.py", 7, 9).canonical == "repo://src/b.py"


def test_the_bare_parent_folder_parses_and_is_refused_as_escaping() -> None:
    res = parse_resource("repo://..#L1")  # OpenWiki's parser lets it through; its resolver refuses it
    assert res.path == ".."
    with pytest.raises(EvidenceResourceError, match="escapes the repository"):
        check_contained(res)
    check_contained(parse_resource("repo://..a/b.py"))


@pytest.mark.parametrize(
    "name", ["src/ex#tra.py", "src/ex%tra.py", "src/ex%20tra.py", "src/ex?tra.py", "src/éx tra.py"]
)
def test_a_repository_path_with_url_special_characters_is_the_file_it_names(name: str) -> None:
    """`path_problem` is asked about a file's own name (a rename's new path), not a resource's text: `#` does not
    cut it and `%` is no escape, so a file so named may be read as code (the App fetched it only then)."""
    reader = _reader()
    assert reader.path_problem(name) is None
    assert reader.path_problem(name.replace("src/", "vendor/")) == Problem(
        f"{name.replace('src/', 'vendor/')} is excluded by {IGNORE_FILE}"
    )
