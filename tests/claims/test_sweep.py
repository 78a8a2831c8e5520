"""The sweep over real git repositories: every verdict, every kind of bad input, diff-aware scope."""

from __future__ import annotations

import json

import pytest
from conftest import GitRepo, ReadsSnapshot

from bot.claims import Verdict
from bot.claims.options import SweepOptions
from bot.claims.pages import WikiFolderError
from bot.claims.results import SweepReport
from bot.claims.sidecar import EvidenceRecord, parse_sidecar, render_sidecar
from bot.claims.snapshot import MemorySnapshot
from bot.claims.sweep import sweep
from bot.source.git import GitRepository
from bot.usecases.check import check_repository
from bot.usecases.claims import HandKeptClaims

QUEUE = (
    "class Queue:\n    def push(self, x):\n        self.items.append(x)\n\n"
    "    def pop(self):\n        return self.items.pop(0)\n"
)
POOL = "WORKERS = 4\n\n\ndef run(tasks):\n    return [t() for t in tasks]\n"
PAGE = "---\ntype: Concept\n---\n\n# Page\n\nProse.\n"


def _ground(
    repo: GitRepo, claims: dict[str, list[tuple[str, list[str]]]], wiki_dir: str = "openwiki"
) -> dict[str, str]:
    """Write pages, add the claims through the hand-kept-claims use case, commit; statement → claim id."""
    ids = {}
    for page in claims:
        repo.write(f"{wiki_dir}/{page}", PAGE)
    with GitRepository(repo.root) as git:
        keeper = HandKeptClaims(git, wiki_dir)
        for page, items in claims.items():
            for statement, resources in items:
                ids[statement] = keeper.add(page, statement, resources).claim.id  # type: ignore[union-attr]
    repo.commit("ground the wiki", tag="base")
    return ids


def _check(repo: GitRepo, base: str | None = "base", head: str | None = "HEAD", **options: object) -> SweepReport:
    with GitRepository(repo.root) as git:
        return check_repository(git, base, head, SweepOptions(**options))  # type: ignore[arg-type]


def _claims(report: SweepReport) -> dict[str, object]:
    return {claim.statement: claim for _, claim in report.claims()}


@pytest.fixture
def grounded(repo: GitRepo) -> tuple[GitRepo, dict[str, str]]:
    repo.write("src/queue.py", QUEUE)
    repo.write("src/pool.py", POOL)
    repo.write("src/legacy.py", "def old():\n    return 0\n")
    repo.write("src/keep.py", "KEEP = 1\n")
    repo.commit("code")
    ids = _ground(
        repo,
        {
            "queue.md": [
                ("push appends", ["repo://src/queue.py#L2-L3"]),
                ("pop takes the first", ["repo://src/queue.py#L5-L6"]),
            ],
            "pool.md": [
                ("four workers", ["repo://src/pool.py#L1"]),
                ("run runs all", ["repo://src/pool.py#L4-L5"]),
                ("whole pool file", ["repo://src/pool.py"]),
            ],
            "legacy.md": [("old returns 0", ["repo://src/legacy.py#L1-L2"])],
            "keep.md": [("keep is one", ["repo://src/keep.py#L1"])],
        },
    )
    return repo, ids


def test_every_claim_fresh_right_after_grounding(grounded: tuple[GitRepo, dict[str, str]]) -> None:
    repo, _ = grounded
    for report in (_check(repo, base=None), _check(repo, base="base"), _check(repo, base=None, head=None)):
        assert report.summary["fresh"] == report.summary["claims"] or report.mode == "diff"
        assert not report.needs_attention


def test_edits_moves_renames_reformatting_and_deletions(grounded: tuple[GitRepo, dict[str, str]]) -> None:
    repo, _ = grounded
    repo.write("src/queue.py", "# header\n" + QUEUE.replace("pop(0)", "popleft()"))
    (repo.root / "src/workers").mkdir()
    repo.git("mv", "src/pool.py", "src/workers/pool.py")
    repo.write("src/workers/pool.py", POOL.replace("\n", "\r\n"))
    repo.remove("src/legacy.py")
    repo.commit("change everything")
    report = _check(repo)
    claims = _claims(report)
    push, pop = claims["push appends"], claims["pop takes the first"]
    assert (push.verdict, push.touched) == (Verdict.MOVED, True)  # type: ignore[attr-defined]
    assert push.evidence[0].resource_now == "repo://src/queue.py#L3-L4"  # type: ignore[attr-defined]
    assert push.evidence[0].openwiki_verdict.value == "fresh"  # type: ignore[attr-defined]
    assert pop.verdict is Verdict.STALE  # type: ignore[attr-defined]
    assert pop.evidence[0].old_text.endswith("pop(0)\n")  # type: ignore[attr-defined]
    assert pop.evidence[0].new_text.endswith("popleft()\n")  # type: ignore[attr-defined]
    assert pop.evidence[0].span == (6, 7)  # type: ignore[attr-defined]
    for statement in ("four workers", "run runs all", "whole pool file"):
        claim = claims[statement]
        assert claim.verdict is Verdict.COSMETIC, statement  # type: ignore[attr-defined]
        assert claim.evidence[0].resource_now.startswith("repo://src/workers/pool.py")  # type: ignore[attr-defined]
        assert claim.evidence[0].openwiki_verdict.value == "unresolved"  # type: ignore[attr-defined]
    assert claims["old returns 0"].verdict is Verdict.UNRESOLVED  # type: ignore[attr-defined]
    # keep.md cites nothing the change touched: not re-checked in a diff-aware sweep.
    assert "keep is one" not in claims
    assert report.unaffected_pages == 1
    everything = _claims(_check(repo, recheck_all=True))
    assert everything["keep is one"].verdict is Verdict.FRESH  # type: ignore[attr-defined]
    assert report.needs_attention


def test_full_sweep_without_a_base_uses_openwiki_search_but_reanchors_moves(grounded) -> None:
    repo, _ = grounded
    repo.write("src/queue.py", "# header\n# more\n" + QUEUE)
    repo.commit("shift")
    claims = _claims(_check(repo, base=None))
    push = claims["push appends"]
    assert (push.verdict, push.touched) == (Verdict.MOVED, False)  # type: ignore[attr-defined]
    assert push.evidence[0].span == (4, 5)  # type: ignore[attr-defined]
    assert claims["keep is one"].verdict is Verdict.FRESH  # type: ignore[attr-defined]


def test_cross_file_move_found_among_added_lines(grounded) -> None:
    repo, _ = grounded
    repo.write("src/queue.py", QUEUE.split("\n    def pop", maxsplit=1)[0] + "\n")
    repo.write("src/popper.py", "# popping lives here now\n\n    def pop(self):\n        return self.items.pop(0)\n")
    repo.commit("move pop")
    pop = _claims(_check(repo))["pop takes the first"]
    assert (pop.verdict, pop.evidence[0].resource_now) == (Verdict.MOVED, "repo://src/popper.py#L3-L4")  # type: ignore[attr-defined]
    assert pop.evidence[0].version_now == pop.evidence[0].version  # type: ignore[attr-defined]


def test_uncommitted_work_is_checked_against_the_base(grounded) -> None:
    repo, _ = grounded
    repo.write("src/keep.py", "KEEP = 2\n")
    repo.write("src/new_module.py", "def old():\n    return 0\n")
    repo.remove("src/legacy.py")
    claims = _claims(_check(repo, base="HEAD", head=None))
    assert claims["keep is one"].verdict is Verdict.STALE  # type: ignore[attr-defined]
    moved = claims["old returns 0"]
    # legacy.py deleted, its text in an untracked file: moved there.
    assert (moved.verdict, moved.evidence[0].resource_now) == (Verdict.MOVED, "repo://src/new_module.py#L1-L2")  # type: ignore[attr-defined]


def test_evidence_already_stale_before_the_change_is_not_touched(grounded) -> None:
    repo, _ = grounded
    repo.write("src/keep.py", "KEEP = 2\n")
    repo.commit("stale but not noticed", tag="middle")
    repo.write("src/keep.py", "KEEP = 2\nOTHER = 3\n")
    repo.commit("another edit")
    claim = _claims(_check(repo, base="middle"))["keep is one"]
    assert (claim.verdict, claim.touched) == (Verdict.STALE, False)  # type: ignore[attr-defined]


def _add_raw_claim(repo: GitRepo, page: str, resource: str, version: str = "repo-file-v1:sha256:" + "0" * 64) -> None:
    path = f"openwiki/.claims/{page[:-3]}.json"
    sidecar = parse_sidecar(repo.read(path), path)
    from bot.claims.sidecar import Claim

    claim = Claim(f"claim_{'f' * 24}{len(sidecar.claims):08x}", f"raw {resource}", (EvidenceRecord(resource, version),))
    repo.write(path, render_sidecar(sidecar.with_claims((*sidecar.claims, claim))))


@pytest.mark.parametrize(
    ("resource", "problem"),
    [
        ("repo://..#L1", "escapes the repository"),
        ("repo://../outside.py", "inside the repository"),
        ("http://example.com/x.py", "Unsupported"),
        ("repo://openwiki/pool.md", "reserved path"),
        ("repo://src/keep.py#L0", "line range"),
        ("repo://src/link.py", "symlink"),
        ("repo://linked/keep.py", "symlink"),
        ("repo://src/blob.bin", "binary"),
        ("repo://src/big.txt", "larger than"),
        ("repo://secret/key.py", ".openwikiignore"),
    ],
)
def test_bad_evidence_is_an_error_on_its_claim_and_the_sweep_goes_on(grounded, resource: str, problem: str) -> None:
    repo, _ = grounded
    repo.symlink("src/link.py", "keep.py")
    repo.symlink("linked", "src")
    repo.write("src/blob.bin", b"\x89PNG\r\n\x1a\n\x00\x00binary")
    repo.write("src/big.txt", "x" * 5000 + "\n")
    repo.write("secret/key.py", "KEY = 1\n")
    repo.write(".openwikiignore", "# keep secrets out\nsecret/\n")
    _add_raw_claim(repo, "keep.md", resource)
    repo.commit("bad evidence")
    for report in (_check(repo, base=None, max_file_bytes=4096), _check(repo, max_file_bytes=4096)):
        claims = _claims(report)
        bad = claims[f"raw {resource}"]
        assert bad.verdict is Verdict.ERROR  # type: ignore[attr-defined]
        assert problem in (bad.evidence[0].error or ""), bad  # type: ignore[attr-defined]
        assert claims["keep is one"].verdict is Verdict.FRESH  # type: ignore[attr-defined]
        assert report.needs_attention


def test_evidence_that_becomes_a_symlink_is_an_error_touched_by_the_change(grounded) -> None:
    repo, _ = grounded
    repo.remove("src/keep.py")
    repo.write("src/real_keep.py", "KEEP = 1\n")
    repo.symlink("src/keep.py", "real_keep.py")
    repo.commit("keep.py is now a link")
    claim = _claims(_check(repo))["keep is one"]
    assert (claim.verdict, claim.touched) == (Verdict.ERROR, True)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{not json", "invalid JSON"),
        (
            b'{"schemaVersion": 1, "pageVersion": "sha256:' + b"0" * 64 + b'", "claims": [], "extra": 1}',
            "unknown key 'extra'",
        ),
        (b'{"schemaVersion": 2, "pageVersion": "x", "claims": []}', "schemaVersion"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_malformed_sidecar_is_an_error_on_its_page_only(grounded, content: bytes, problem: str) -> None:
    repo, _ = grounded
    repo.write("openwiki/.claims/pool.json", content)
    repo.commit("break a sidecar")
    for report in (_check(repo, base=None), _check(repo)):
        pages = {p.page: p for p in report.pages}
        assert problem in (pages["openwiki/pool.md"].error or "")
        assert "openwiki/.claims/pool.json" in (pages["openwiki/pool.md"].error or "")
        assert report.summary["page_errors"] == 1 and report.needs_attention
    assert _claims(_check(repo, base=None))["push appends"].verdict is Verdict.FRESH  # type: ignore[attr-defined]


def test_orphan_symlinked_and_reserved_sidecars(grounded) -> None:
    repo, _ = grounded
    repo.write("openwiki/.claims/gone.json", repo.read("openwiki/.claims/keep.json"))
    repo.symlink("openwiki/.claims/linked.json", "keep.json")
    repo.write("openwiki/linked.md", PAGE)
    repo.write("openwiki/.claims/index.json", repo.read("openwiki/.claims/keep.json"))
    repo.write("openwiki/real.md", PAGE)
    repo.symlink("openwiki/aliased.md", "real.md")
    repo.write("openwiki/.claims/aliased.json", repo.read("openwiki/.claims/queue.json").replace(b"claim_", b"claim_0"))
    repo.commit("odd sidecars")
    for head in ("HEAD", None):
        errors = {p.sidecar: p.error for p in _check(repo, base=None, head=head).pages if p.error}
        assert "orphan sidecar" in errors["openwiki/.claims/gone.json"]
        assert "symlink" in errors["openwiki/.claims/linked.json"]
        assert "reserved page" in errors["openwiki/.claims/index.json"]
        assert "page is a symlink" in errors["openwiki/.claims/aliased.json"]


def test_duplicate_claim_ids_across_pages(grounded) -> None:
    repo, _ids = grounded
    keep = parse_sidecar(repo.read("openwiki/.claims/keep.json"), "keep.json")
    queue = parse_sidecar(repo.read("openwiki/.claims/queue.json"), "queue.json")
    clash = type(keep.claims[0])(queue.claims[0].id, keep.claims[0].statement, keep.claims[0].evidence)
    repo.write("openwiki/.claims/keep.json", render_sidecar(keep.with_claims([clash])))
    repo.commit("clash")
    claims = _claims(_check(repo, base=None))
    for statement, other in (("keep is one", "openwiki/queue.md"), ("push appends", "openwiki/keep.md")):
        claim = claims[statement]
        assert claim.verdict is Verdict.ERROR, statement  # type: ignore[attr-defined]
        assert f"also used on {other}" in (claim.error or "")  # type: ignore[attr-defined]
    assert claims["pop takes the first"].verdict is Verdict.FRESH  # type: ignore[attr-defined]


def test_custom_wiki_folder(repo: GitRepo) -> None:
    repo.write("lib/a.py", "A = 1\nB = 2\n")
    repo.commit("code")
    _ground(repo, {"a.md": [("a is one", ["repo://lib/a.py#L1"])]}, wiki_dir="docs/wiki")
    repo.write("lib/a.py", "A = 10\nB = 2\n")
    repo.commit("edit")
    report = _check(repo, wiki_dir="docs/wiki")
    assert report.wiki_dir == "docs/wiki"
    assert _claims(report)["a is one"].verdict is Verdict.STALE  # type: ignore[attr-defined]
    with pytest.raises(WikiFolderError, match="openwiki/ does not exist"):  # not a wiki with nothing to check
        _check(repo, base=None)


def test_memory_snapshot_gives_the_same_answer_as_git(grounded) -> None:
    repo, _ = grounded
    files = {path: repo.read(path) for path in repo.git("ls-files").split()}
    report = sweep(MemorySnapshot(files, label="memory"))
    assert report.summary["fresh"] == report.summary["claims"] == 7
    json.dumps(report.summary)


@pytest.mark.parametrize(
    "spelling",
    [
        "repo://src/keep.py#L1",
        "repo://./src/keep.py#L1",
        "repo://src//keep.py#L1-L1",
        "repo://src/x/../keep.py#L1",
        "repo://src/./keep.py#L1",
        "repo://src/%6Beep.py#L1",
        "repo://src%2Fkeep.py#L1",
        "repo://src\\keep.py#L1",
        "repo://src/keep.py#L%31",
    ],
)
def test_scoped_sweep_finds_claims_whatever_the_resource_spelling(grounded, spelling: str) -> None:
    """The diff-aware sweep skips sidecars that cannot cite the change; no spelling may slip past it."""
    repo, _ = grounded
    path = "openwiki/.claims/pool.json"
    sidecar = parse_sidecar(repo.read(path), path)
    version = parse_sidecar(repo.read("openwiki/.claims/keep.json"), "k").claims[0].evidence[0].version
    from bot.claims.sidecar import Claim

    odd = Claim("claim_" + "e" * 32, "odd spelling", (EvidenceRecord(spelling, version),))
    repo.write(path, render_sidecar(sidecar.with_claims((*sidecar.claims, odd))))
    repo.commit("an oddly spelled resource", tag="odd")
    repo.write("src/keep.py", "KEEP = 2\n")
    repo.commit("edit keep.py")
    claims = _claims(_check(repo, base="odd"))
    assert claims["odd spelling"].verdict is Verdict.STALE  # type: ignore[attr-defined]
    assert claims["keep is one"].verdict is Verdict.STALE  # type: ignore[attr-defined]
    assert "four workers" not in claims  # same page, cites nothing the change touched: not re-checked


def test_scoped_sweep_rechecks_every_claim_of_a_page_whose_sidecar_changed(grounded) -> None:
    repo, _ = grounded
    with GitRepository(repo.root) as git:
        HandKeptClaims(git, "openwiki").add("pool.md", "another pool claim", ["repo://src/pool.py#L4"])
    repo.commit("one more claim")
    report = _check(repo)
    assert {c.statement for _, c in report.claims()} == {
        "four workers",
        "run runs all",
        "whole pool file",
        "another pool claim",
    }
    assert report.unaffected_pages == 3


def test_unrelated_broken_sidecar_is_reported_by_full_sweeps_not_by_the_change(grounded) -> None:
    repo, _ = grounded
    repo.write("openwiki/.claims/legacy.json", b"{broken")
    repo.commit("break an unrelated sidecar", tag="broken")
    repo.write("src/keep.py", "KEEP = 3\n")
    repo.commit("edit keep")
    assert _check(repo, base="broken").summary["page_errors"] == 0
    assert _check(repo, base="broken", recheck_all=True).summary["page_errors"] == 1
    assert _check(repo, base=None).summary["page_errors"] == 1


def test_confirm_follows_a_rename_through_the_change(grounded) -> None:
    """After `git mv`, plain confirm cannot find the file; `confirm --base` follows git's rename detection."""
    repo, ids = grounded
    (repo.root / "lib").mkdir()
    repo.git("mv", "src/pool.py", "lib/pool.py")
    repo.write("lib/pool.py", "# workers\n" + POOL)
    repo.commit("move the pool")
    with GitRepository(repo.root) as git:
        keeper = HandKeptClaims(git, "openwiki")
        with pytest.raises(Exception, match="does not exist"):
            keeper.confirm(ids["run runs all"])
        edit = keeper.confirm(ids["run runs all"], base="base")
    assert [e.resource for e in edit.claim.evidence] == ["repo://lib/pool.py#L5-L6"]  # type: ignore[union-attr]
    claims = _claims(_check(repo, base=None, head=None))  # the working tree, where confirm wrote
    assert claims["run runs all"].verdict is Verdict.FRESH  # type: ignore[attr-defined]
    assert claims["four workers"].verdict is Verdict.UNRESOLVED  # type: ignore[attr-defined]  # not confirmed


# -- records filed by the file they cite: each path parsed once, each span where it is evaluated ---------------


def _wiki_of(records: dict[str, str]) -> dict[str, bytes]:
    """One page whose claims each cite one resource; a resource's version is that of its lines (when it names
    lines of src/a.py that exist), else made up."""
    from bot.claims.sidecar import Claim, Sidecar, page_version
    from bot.claims.text import FileText
    from bot.claims.versions import lines_version

    code = "".join(f"def f{n}():\n    return {n}\n" for n in range(10)).encode()
    text = FileText(code)
    page = PAGE.encode()
    claims = []
    for n, (statement, resource) in enumerate(records.items()):
        lines = resource.rpartition("#L")[2].split("-L")
        version = "repo-lines-v1:sha256:" + "0" * 64 + ":e30"
        if all(part.isdigit() for part in lines) and len(lines) == 2:
            version = lines_version(text, int(lines[0]) - 1, int(lines[1]))
        claims.append(Claim(f"claim_{n:032x}", statement, (EvidenceRecord(resource, version),)))
    sidecar = render_sidecar(Sidecar(page_version(page), tuple(claims)))
    return {"src/a.py": code, "src/b.py": code, "openwiki/p.md": page, "openwiki/.claims/p.json": sidecar}


ODD_RECORDS = {
    "plain": "repo://src/a.py#L1-L2",
    "a dot segment": "repo://src/./a.py#L3-L4",
    "percent-encoded": "repo://src/%61.py#L5-L6",
    "backwards span": "repo://src/b.py#L5-L4",
    "a second fragment": "repo://src/b.py#L1#L2",
    "the wiki": "repo://openwiki/p.md#L1-L1",
    "escaping": "repo://src/../../a.py#L1-L2",
}


def test_a_file_cited_only_by_records_in_error_is_not_read() -> None:
    from bot.claims.sweep import Sweeper

    head = ReadsSnapshot(_wiki_of(ODD_RECORDS))
    sweeper = Sweeper(head, None, SweepOptions())
    wiki = sweeper.load()
    assert sweeper.reads(wiki) == [(head, ["src/a.py"])]  # src/b.py: cited only by spans that do not parse
    report = sweeper.sweep(wiki)
    verdicts = {claim.statement: claim.verdict for _, claim in report.claims()}
    assert verdicts == {
        "plain": Verdict.FRESH,
        "a dot segment": Verdict.FRESH,  # where it says, in another spelling (the report names its canonical form)
        "percent-encoded": Verdict.FRESH,
        "backwards span": Verdict.ERROR,
        "a second fragment": Verdict.ERROR,
        "the wiki": Verdict.ERROR,
        "escaping": Verdict.ERROR,
    }
    errors = {claim.statement: claim.evidence[0].error for _, claim in report.claims() if claim.evidence[0].error}
    for statement, message in errors.items():
        try:
            from bot.claims.resources import parse_resource

            parse_resource(ODD_RECORDS[statement])
        except ValueError as exc:
            assert message == str(exc), statement  # worded from the whole resource, as OpenWiki words it
    assert "src/b.py" not in head.read_paths


def test_the_verdict_cache_keeps_each_result_under_the_file_it_cites_whatever_its_spelling() -> None:
    from bot.claims.sweep import Sweeper
    from bot.claims.verdict_cache import VerdictCache

    files = _wiki_of(ODD_RECORDS)
    first = Sweeper(MemorySnapshot(files, label="head"), None, SweepOptions())
    first.verdicts = VerdictCache(first.verdict_context)
    report = first.sweep()
    stored = json.loads(json.dumps(first.verdicts.to_json()))  # as a store writes it and reads it back
    again = ReadsSnapshot(files)
    second = Sweeper(again, None, SweepOptions(), verdicts=VerdictCache.from_json(stored, first.verdict_context))
    assert second.sweep() == report
    # Every record citing src/a.py, in any spelling, was answered from the cache: its file was not read again.
    assert [p for p in again.read_paths if p.startswith("src/")] == []
