"""Index files, the conformance validator, and `okf sync` on a real repository, with everything Wikiwarden
writes checked by two independent OKF validators (vault2okf and okf-cli, from PyPI) as well as by `okf validate`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import GitRepo
from okf.api import validate as okf_cli_validate
from vault2okf.validate import validate_bundle as independent_validate

from bot.cli import main
from bot.okf.index import Entry, plan_indexes, render_index
from bot.okf.validate import check_concept, is_timestamp, validate_bundle
from bot.source.git import GitRepository
from bot.usecases.claims import HandKeptClaims

FIXTURE = Path(__file__).parents[1] / "data" / "okf_wiki"


# -- index files (§1.5) --------------------------------------------------------------------------


def test_root_index_bytes_are_openwikis() -> None:
    files = [
        Entry("zeta.md", "Zeta [beta]\\", "Last one"),
        Entry("Alpha.md"),
        Entry("_x.md"),
        Entry("a b.md", "Spaced"),
    ]
    assert render_index(files, ["sub", "Été"], is_root=True) == (
        '---\nokf_version: "0.2"\n---\n\n# Files\n\n- [_x](_x.md)\n- [Spaced](a%20b.md)\n- [Alpha](Alpha.md)\n'
        "- [Zeta \\[beta\\]\\\\](zeta.md) - Last one\n\n# Directories\n\n- [Été](%C3%89t%C3%A9/)\n- [sub](sub/)\n"
    )


def test_empty_and_localised_indexes() -> None:
    assert render_index([], [], is_root=False) == "# Files\n"
    assert render_index([], [], is_root=True) == '---\nokf_version: "0.2"\n---\n\n# Files\n'
    assert render_index([Entry("p.md", "页")], [], False, "zh") == "# 文件\n\n- [页](p.md)\n"
    assert (
        render_index([Entry("p.md")], ["d"], False, "pt-BR")
        == "# Arquivos\n\n- [p](p.md)\n\n# Diretórios\n\n- [d](d/)\n"
    )


def test_plan_indexes_lists_every_folder_and_rewrites_only_what_changed() -> None:
    files = {
        "wiki/a.md": b"---\ntype: X\ntitle: A\ndescription: d\n---\n",
        "wiki/.claims/a.json": b"{}",
        "wiki/INSTRUCTIONS.md": b"brief",
        "wiki/log.md": b"# Log\n",
        "wiki/sub/deep/b.md": b"# b",
        "wiki/index.md": b'---\nokf_version: "0.1"\n---\n\n# Files\n\n- [Gone](gone.md)\n',  # OpenWiki 0.3's, stale
    }
    planned = plan_indexes(files, "wiki")
    assert planned.writes == {
        "wiki/index.md": b'---\nokf_version: "0.2"\n---\n\n# Files\n\n- [A](a.md) - d\n\n# Directories\n\n- [sub](sub/)\n',
        "wiki/sub/index.md": b"# Directories\n\n- [deep](deep/)\n",
        "wiki/sub/deep/index.md": b"# Files\n\n- [b](b.md)\n",
    }
    assert planned.kept == []
    again = plan_indexes({**files, **planned.writes}, "wiki")
    assert again.writes == {} and again.kept == []


# -- the validator ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "ok"),
    [("2026-08-20T12:00:00Z", True), ("2026-08-20T12:00:00.052+02:00", True), ("2026-08-20T12:00Z", True),
     ("2026-08-20", False), ("2026-08-20 12:00:00+00:00", False), ("2026-02-30T00:00:00Z", False), (20260820, False)],
)  # fmt: skip
def test_timestamps(value: object, ok: bool) -> None:
    assert is_timestamp(value) is ok


@pytest.mark.parametrize(
    ("page", "field", "problem"),
    [
        (b"no front matter\n", "", "no front matter"),
        (b"---\ntype: [\n---\n", "", "invalid YAML"),
        (b"---\ntitle: x\n---\n", "type", "required"),
        (b"---\ntype: X\ntags: [a, '']\n---\n", "tags", "non-empty strings"),
        (b"---\ntype: X\nsources: [{title: t}]\n---\n", "sources[0].resource", "required"),
        (b"---\ntype: X\nsources: oops\n---\n", "sources", "list"),
        (b"---\ntype: X\ngenerated: {at: 2026-01-01T00:00:00Z}\n---\n", "generated.by", "required"),
        (b"---\ntype: X\ngenerated: {by: a, at: 2026-01-01}\n---\n", "generated.at", "ISO 8601"),
        (b"---\ntype: X\nverified: {by: a}\n---\n", "verified.at", "required"),
        (b"---\ntype: X\nverified: [{by: a, at: x}]\n---\n", "verified[0].at", "ISO 8601"),
        (b"---\ntype: X\nstatus: done\n---\n", "status", "draft, stable or deprecated"),
        (b"---\ntype: X\nstale_after: 2027-01-01\n---\n", "stale_after", "ISO 8601"),
        (b"---\ntype: Attested Computation\n---\n", "runtime", "required"),
        (b"---\ntype: X\ntimestamp: 2025-01-01T00:00:00Z\n---\n", "timestamp", "v0.1"),
        (b"\xff---\n", "", "not UTF-8"),
    ],
)
def test_concept_problems(page: bytes, field: str, problem: str) -> None:
    problems = check_concept("p.md", page)
    assert any(p.field == field and problem in p.problem for p in problems), problems


def test_indexes_logs_and_reserved_names() -> None:
    problems = validate_bundle(
        {
            "index.md": b"---\nokf_version: 0.2\nother: 1\n---\n",
            "sub/index.md": b'---\nokf_version: "0.2"\n---\n',
            "sub/log.md": b"# Log\n\n## 2026-13-01\n",
            "ok.md": b"---\ntype: X\n---\n",
            ".hidden/x.md": b"not checked",
        }
    )
    found = {(p.path, p.field) for p in problems}
    assert ("index.md", "okf_version") in found and ("index.md", "other") in found
    assert ("sub/index.md", "") in found and ("sub/log.md", "") in found
    assert not any(p.path in ("ok.md", ".hidden/x.md") for p in problems)


# -- okf sync on a repository -------------------------------------------------------------------


@pytest.fixture
def odd_wiki(repo: GitRepo) -> GitRepo:
    """The odd fixture wiki as openwiki/, with code and claims on three pages."""
    shutil.copytree(FIXTURE, repo.root / "openwiki")
    repo.write("src/a.py", "def a():\n    return 1\n")
    repo.write("src/b.py", "def b():\n    return 2\n")
    repo.write(".last-update.json", "{}")
    repo.commit("wiki and code")
    with GitRepository(repo.root) as git:
        keeper = HandKeptClaims(git, "openwiki")
        keeper.add("plain.md", "a returns one", ["repo://src/a.py#L1-L2"])
        keeper.add("crlf.md", "b returns two", ["repo://src/b.py#L2"])
        keeper.add("verified_list.md", "a is a function", ["repo://src/a.py#L1", "repo://src/b.py"])
    repo.commit("claims", tag="grounded")
    return repo


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_sync_writes_conformant_pages_and_keeps_the_rest(odd_wiki: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = odd_wiki
    repo.write("src/b.py", "def b():\n    return 3\n")  # the claims on crlf.md and verified_list.md go stale
    before = _files(repo.root / "openwiki")
    assert main(["okf", "sync", str(repo.root / "openwiki")]) == 1  # two pages it cannot read are reported
    _out, err = capsys.readouterr()
    assert "left as it is: openwiki/invalid_yaml.md" in err and "openwiki/duplicate_key.md" in err
    after = _files(repo.root / "openwiki")
    written = {path for path in after if after[path] != before.get(path)}
    assert "plain.md" in written and "index.md" in written and "nested/index.md" in written
    assert "invalid_yaml.md" not in written and "duplicate_key.md" not in written

    plain = after["plain.md"].decode()
    assert "sources:\n  - id: openwiki-source-" in plain and "resource: repo://src/a.py\n" in plain
    crlf = after["crlf.md"].decode()
    assert "\r\nsources:\r\n  - id: openwiki-source-" in crlf and "\n" not in crlf.replace("\r\n", "")
    verified = after["verified_list.md"].decode()  # stale claims: our event goes, the others stay
    assert "wikiwarden/0.0.1" not in verified and "human:carol   # reviewed by hand" in verified
    assert "openwiki/0.3.3" in verified
    sidecar = json.loads(after[".claims/plain.json"])
    from bot.claims.sidecar import page_version

    assert sidecar["pageVersion"] == page_version(after["plain.md"])

    # Everything Wikiwarden wrote passes an independent validator and our own.
    report = independent_validate(repo.root / "openwiki")
    independent_errors = [
        d.to_dict() for d in report.diagnostics if d.severity.name == "ERROR" and str(d.path) in written
    ]
    assert independent_errors == []
    assert any(str(d.path) == "invalid_yaml.md" for d in report.diagnostics)  # it does see the broken pages
    okf_cli_errors = okf_cli_validate(repo.root / "openwiki").errors
    assert [e for e in okf_cli_errors if e.split(":", 1)[0] in written] == []
    assert any(e.startswith("invalid_yaml.md:") for e in okf_cli_errors)  # it sees the broken pages too
    # A page with a byte-order mark and no front matter gets a block that every reader sees: no mark before it.
    assert after["bom_no_front_matter.md"].startswith(b"---\n")
    assert "bom_no_front_matter.md" in written
    ours = [p for p in validate_bundle({k: v for k, v in after.items()}) if p.severity == "error" and p.path in written]
    assert ours == []

    # A second sync changes nothing.
    assert main(["okf", "sync", str(repo.root / "openwiki")]) == 1
    assert _files(repo.root / "openwiki") == after


def test_sync_dry_run_writes_nothing(odd_wiki: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    before = _files(odd_wiki.root / "openwiki")
    main(["okf", "sync", "--dry-run", str(odd_wiki.root / "openwiki")])
    assert "would write openwiki/plain.md" in capsys.readouterr().out
    assert _files(odd_wiki.root / "openwiki") == before


def test_validate_command(odd_wiki: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    wiki = odd_wiki.root / "openwiki"
    assert main(["okf", "validate", str(wiki), "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    problems = {(p["file"], p["field"]) for p in document["problems"]}
    assert ("invalid_yaml.md", "") in problems and ("no_type.md", "type") in problems
    assert document["errors"] > 0
    clean = odd_wiki.root / "clean"
    clean.mkdir()
    (clean / "index.md").write_text('---\nokf_version: "0.2"\n---\n\n# Files\n\n- [A](a.md)\n')
    (clean / "a.md").write_text("---\ntype: Note\n---\n")
    assert main(["okf", "validate", str(clean)]) == 0
    assert main(["okf", "validate", str(odd_wiki.root / "missing")]) == 2


def test_a_block_added_to_a_page_with_a_byte_order_mark_goes_first(tmp_path: Path) -> None:
    """Readers that do not skip a byte-order mark (OpenWiki, okf-cli) must still see the new block."""
    from bot.okf.frontmatter import set_field
    from bot.okf.project import normalize_concept, project_sources

    page = "\ufeff# Only a mark\n\nBody.\n"
    for written in (
        set_field(page, "type", ["type: Note"]),
        project_sources(page, ["repo://src/a.py#L1"]),
        normalize_concept(page, "p.md"),
    ):
        assert written.startswith("---\n") and "\ufeff" not in written, written
        assert written.endswith("# Only a mark\n\nBody.\n")
        (tmp_path / "p.md").write_text(written if "type:" in written else set_field(written, "type", ["type: N"]))
        assert okf_cli_validate(tmp_path).errors == []
