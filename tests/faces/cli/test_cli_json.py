"""Every command's JSON document, as written by the command line: byte for byte what the standard library's
encoder wrote before (two-space indentation, UTF-8 rather than ASCII escapes), on the demo repository and on
hostile strings, and still valid UTF-8 JSON where a path is not UTF-8 at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GitRepo

from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar
from bot.claims.text import FileText
from bot.claims.versions import lines_version
from bot.demo import build_demo_repository
from bot.report.check import report_json
from bot.source.git import GitRepository
from bot.usecases.check import check_repository

pytestmark = pytest.mark.usefixtures("isolated_cli")

HOSTILE = 'é ü 日本 🙂 "quoted" back\\slash \t tab \x01\x1f controls \x7f DEL \u2028\u2029 separators </script>'


def _stdlib(document: object) -> str:
    """What the commands wrote before orjson: the reference form."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "repo"
    build_demo_repository(root)
    return root


@pytest.mark.parametrize(
    ("args", "check_args"),
    [
        ((), {"base": None, "head": None}),
        (("--base", "v1", "--head", "v2"), {"base": "v1", "head": "v2"}),
        (("--base", "v1", "--head", "v2", "--attention-only"), {"base": "v1", "head": "v2"}),
    ],
)
def test_check_writes_the_document_the_standard_encoder_wrote(cli, demo: Path, args, check_args) -> None:
    run = cli("check", "--repo", demo, "--format", "json", *args)
    assert run.code in (0, 1), run.err
    with GitRepository(demo) as repo:
        report = check_repository(repo, **check_args)
    document = report_json(report, attention_only="--attention-only" in args)
    assert run.out == _stdlib(document)
    assert json.loads(run.out) == document and document["format_version"] == 1


def test_the_other_commands_json_is_in_the_same_form(cli, demo: Path) -> None:
    for argv in (
        ("claim", "list", "--repo", demo, "--format", "json"),
        ("okf", "validate", "--repo", demo, "--format", "json"),
        ("ground", "--repo", demo, "--model", "none", "--format", "json"),
        ("check", "--repo", demo, "--format", "sarif"),
    ):
        run = cli(*argv)
        assert run.code in (0, 1), (argv, run.err)
        assert run.out == _stdlib(json.loads(run.out)), argv


def _hostile_wiki(repo: GitRepo, page_path: str) -> None:
    source = "".join(f"line {i} {HOSTILE}\n" for i in range(12))
    repo.write("src/a.py", source)
    page = f"---\ntype: Concept\n---\n\n# {HOSTILE}\n".encode()
    repo.write(f"openwiki/{page_path}.md", page)
    evidence = EvidenceRecord("repo://src/a.py#L2-L3", lines_version(FileText(source.encode()), 1, 3))
    claim = Claim("claim_" + "0" * 32, f"Statement: {HOSTILE}", (evidence,))
    repo.write(f"openwiki/.claims/{page_path}.json", render_sidecar(Sidecar(page_version(page), (claim,))))
    repo.commit("wiki")


def test_hostile_strings_come_out_as_the_standard_encoder_wrote_them(cli, repo: GitRepo) -> None:
    _hostile_wiki(repo, "späte Seite")
    repo.write("src/a.py", f"moved down {HOSTILE}\n" + repo.read("src/a.py").decode())
    run = cli("check", "--repo", repo.root, "--format", "json", "--base", "HEAD")
    with GitRepository(repo.root) as git:
        document = report_json(check_repository(git, base="HEAD"))
    assert run.out == _stdlib(document)
    [page] = json.loads(run.out)["pages"]
    assert page["page"] == "openwiki/späte Seite.md" and page["claims"][0]["statement"] == f"Statement: {HOSTILE}"
    assert page["claims"][0]["evidence"][0]["verdict"] == "moved"


def test_a_path_that_is_not_utf8_still_gives_valid_json(cli, repo: GitRepo) -> None:
    """git hands such a name over in surrogateescape: a lone surrogate, which orjson refuses and no UTF-8 stream
    can take raw; it is written as the standard encoder wrote it, a `\\udcxx` escape."""
    _hostile_wiki(repo, "a")
    repo.write("openwiki/caf\udce9.md", "---\ntype: Concept\n---\n\n# Not UTF-8\n")
    repo.commit("a name that is not UTF-8")
    run = cli("check", "--repo", repo.root, "--format", "json")
    assert run.code == 0, run.err
    document = json.loads(run.out.encode("utf-8"))
    with GitRepository(repo.root) as git:
        before = _stdlib(report_json(check_repository(git)))
    assert run.out == before.encode("utf-8", "backslashreplace").decode()  # as main()'s stdout always wrote it
    assert "openwiki/caf\udce9.md" in document["ungrounded_pages"]
    assert "\\udce9" in run.out and document["pages"][0]["claims"][0]["statement"] == f"Statement: {HOSTILE}"
