"""The evidence index: what a sidecar cites, told from its bytes exactly (or "anything" when it cannot be), and a
diff-aware sweep that reads only the sidecars it shows can cite the change, reporting what a sweep reading every
sidecar reports."""

from __future__ import annotations

import pytest
from apptools import grounded
from conftest import ReadsSnapshot
from sweeptools import sidecars_read

from bot.claims.citations import EvidenceIndex, StoredCitations, cited_paths, may_cite
from bot.claims.ignore import IGNORE_FILE
from bot.claims.options import SweepOptions
from bot.claims.sidecar import Claim, EvidenceRecord, parse_sidecar, render_sidecar
from bot.claims.snapshot import Change, FileChange, MemorySnapshot
from bot.claims.sweep import Sweeper, sidecar_blobs, wiki_reads
from bot.claims.sweep import reader as reader_module
from bot.claims.verdicts import Verdict

CODE = {f"src/m{n}.py": "".join(f"def f{n}_{i}():\n    return {i}\n\n" for i in range(6)) for n in range(6)}
# page p cites modules p and p + 1: a change to one module concerns two pages of six
CLAIMS = {
    f"p{p}.md": [(f"f{p}", [f"repo://src/m{p}.py#L1-L2"]), (f"g{p}", [f"repo://src/m{(p + 1) % 6}.py#L4-L5"])]
    for p in range(6)
}


def _sidecar(paths: str) -> bytes:
    return (
        '{\n  "schemaVersion": 1,\n  "claims": [\n'
        + ",\n".join(f'    {{"resource": "{p}", "version": "x"}}' for p in paths.split())
        + "\n  ]\n}\n"
    ).encode()


@pytest.mark.parametrize(
    ("resources", "cited"),
    [
        ("repo://src/a.py#L1-L2 repo://src/b.py", {"src/a.py", "src/b.py"}),
        ("repo://src/a.py#L1-L2 repo://src/a.py#L5-L6", {"src/a.py"}),
        ("repo://src/./a.py repo://src//b.py", {"src/a.py", "src/b.py"}),  # not normalised: parsed
        ("repo://src/a%20b.py", {"src/a b.py"}),
        ("", set()),
    ],
)
def test_what_a_sidecar_cites_is_read_from_its_bytes(resources: str, cited: set[str]) -> None:
    assert cited_paths(_sidecar(resources)) == frozenset(cited)


@pytest.mark.parametrize(
    "data",
    [
        _sidecar("repo://src/a.py").replace(b"src/a.py", b"src\\/a.py"),  # a JSON escape: the bytes may hide a path
        _sidecar("repo://../outside.py"),  # a path that does not parse: its claim is reported by every sweep
        _sidecar("repo://src/a.py").replace(b"a.py", b"\xff.py"),  # not UTF-8: not a path it can name
    ],
)
def test_a_sidecar_whose_bytes_cannot_tell_may_cite_anything(data: bytes) -> None:
    assert cited_paths(data) is None
    assert may_cite(None, {"src/anything.py"})


def test_the_index_keeps_apart_what_it_learnt() -> None:
    index = EvidenceIndex({"a": frozenset({"x.py"})})
    index.learn("a", frozenset({"y.py"}))  # known already: kept as it was (a blob id is its bytes)
    index.learn("b", None)
    assert index.cited("a") == {"x.py"} and index.cited("b") is None
    assert index.learnt == {"b": None} and "b" in index and len(index) == 2
    assert dict(index.items()) == {"a": {"x.py"}, "b": None}
    with pytest.raises(KeyError):
        index.cited("c")


def _stored_index() -> EvidenceIndex:
    paths = ["src/a.py", "src/b.py", "src/c.py"]
    return EvidenceIndex(
        {"known": frozenset({"src/d.py"})}, StoredCitations(paths, {"s1": [0, 1], "s2": [2], "s3": None, "s4": []})
    )


@pytest.mark.parametrize(
    "touched",
    [set(), {"src/a.py"}, {"src/c.py"}, {"src/b.py", "src/z.py"}, {"src/d.py"}, {"src/z.py"}, {"src/a.py", "src/c.py"}],
)
def test_a_stored_entry_tells_what_it_may_cite_in_numbers_as_its_paths_would(
    touched: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded = _stored_index()
    expected = {blob: may_cite(decoded.cited(blob), touched) for blob in ("known", "s1", "s2", "s3", "s4")}
    index = _stored_index()

    def no_decoding(self: StoredCitations, blob_id: str) -> None:
        raise AssertionError(f"{blob_id} decoded")

    monkeypatch.setattr(StoredCitations, "decoded", no_decoding)
    assert {blob: index.may_cite(blob, touched) for blob in expected} == expected
    assert {blob: index.may_cite(blob, {"src/c.py"}) for blob in expected} == {  # asked again with other paths
        "known": False,
        "s1": False,
        "s2": True,
        "s3": True,
        "s4": False,
    }
    with pytest.raises(KeyError):
        index.may_cite("unknown", touched)


def test_a_stored_entry_is_decoded_when_asked_for_and_never_learnt_again() -> None:
    assert dict(_stored_index().items()) == {  # every entry, none asked for before
        "known": {"src/d.py"},
        "s1": {"src/a.py", "src/b.py"},
        "s2": {"src/c.py"},
        "s3": None,
        "s4": set(),
    }
    index = _stored_index()
    assert "s1" in index and "s3" in index and "unknown" not in index and len(index) == 5
    assert index.cited("s1") == {"src/a.py", "src/b.py"} and index.cited("s3") is None and index.cited("s4") == set()
    index.learn("s2", frozenset({"src/other.py"}))  # stored already: kept as it was
    assert index.learnt == {} and index.cited("s2") == {"src/c.py"}
    assert dict(index.items()) == {
        "known": {"src/d.py"},
        "s1": {"src/a.py", "src/b.py"},
        "s2": {"src/c.py"},
        "s3": None,
        "s4": set(),
    }
    index.learn("new", None)
    assert len(index) == 6 and index.learnt == {"new": None}  # counted once, decoded entries or not


def test_the_index_keeps_which_sidecars_a_sweep_parsed_and_apart_those_this_sweep_did() -> None:
    index = EvidenceIndex(parsed=["a"])
    assert index.parsed("a") and not index.parsed("b") and index.parsed_now == set()
    index.learn_parsed("a")  # known already: not new
    index.learn_parsed("b")
    assert index.parsed("b") and index.parsed_now == {"b"}


def _change(path: str) -> tuple[dict[str, bytes], dict[str, bytes], Change]:
    base = grounded(CODE, CLAIMS)
    head = dict(base)
    head[path] = head[path].replace(b"return 1\n", b"return 100\n")
    return base, head, Change(MemorySnapshot(base, label="base"), (FileChange(path, path),))


def _full_sweep_index(files: dict[str, bytes]) -> EvidenceIndex:
    """The index a full sweep of `files` teaches."""
    index = EvidenceIndex()
    Sweeper(MemorySnapshot(files), None, SweepOptions(), index=index).sweep()
    return index


def test_a_full_sweep_teaches_what_every_sidecar_cites() -> None:
    files = grounded(CODE, CLAIMS)
    index = _full_sweep_index(files)
    blobs = sidecar_blobs(MemorySnapshot(files))
    assert sorted(index.learnt) == sorted(blobs) and len(blobs) == 6
    by_page = {p: index.cited(MemorySnapshot(files).blob_id(f"openwiki/.claims/{p[:-3]}.json") or "") for p in CLAIMS}
    assert by_page == {f"p{p}.md": {f"src/m{p}.py", f"src/m{(p + 1) % 6}.py"} for p in range(6)}


@pytest.mark.parametrize(
    "resources",
    [
        ["repo://src/m1.py#L1-L2", "repo://src/m2.py#L4-L5"],  # only files the sweep reads
        ["repo://src/m1.py#L1-L2", "repo://src/ignored.py#L1-L2"],  # an ignored file: refused, still cited
        ["repo://openwiki/p0.md#L1-L2", "repo://src/m2.py#L1-L2"],  # the wiki itself: refused, still cited
        ["repo://src/./m1.py#L1-L2", "repo://src/m3.py"],  # not in normal form; a whole file
        ["repo://src/m1.py#L1-L2", "repo://src/m2.py#L0-L1"],  # a span that does not parse: its path is cited
        ["repo://src/m1.py#L1-L2", "repo://../outside.py#L1-L2"],  # a path that does not parse: anything
    ],
)
def test_what_a_full_sweep_learns_a_sidecar_cites_is_what_its_bytes_say(resources: list[str]) -> None:
    """Learnt from the sweep's own filing, or from the sidecar's bytes where the sweep refused a record (ignored,
    in the wiki, a span or path that does not parse), as a diff-aware sweep learns a sidecar it reads: which
    sidecars a diff-aware sweep reads decides which claims in error it reports, so a diff-aware check reports the
    same whether a full sweep taught the index or not."""
    base = grounded(CODE, CLAIMS)
    base[IGNORE_FILE] = b"src/ignored.py\n"
    base["src/ignored.py"] = b"x = 1\n"
    path = "openwiki/.claims/p1.json"  # cites src/m1.py and src/m2.py
    sidecar = parse_sidecar(base[path], path)
    odd = tuple(EvidenceRecord(resource, "repo-file-v1:sha256:" + "0" * 64) for resource in resources)
    base[path] = render_sidecar(sidecar.with_claims([*sidecar.claims, Claim("claim_odd", "Odd.", odd)]))
    index = _full_sweep_index(base)
    assert index.cited(MemorySnapshot(base).blob_id(path) or "") == cited_paths(base[path])
    assert sorted(index.learnt) == sorted(sidecar_blobs(MemorySnapshot(base)))
    head = dict(base)
    head["src/m4.py"] = head["src/m4.py"].replace(b"return 1\n", b"return 100\n")  # cited by p3 and p4 only
    change = Change(MemorySnapshot(base, label="base"), (FileChange("src/m4.py", "src/m4.py"),))
    without = Sweeper(MemorySnapshot(head, label="head"), change, SweepOptions()).sweep()
    assert Sweeper(MemorySnapshot(head, label="head"), change, SweepOptions(), index=index).sweep() == without


def test_a_diff_aware_sweep_reads_only_the_sidecars_the_index_shows_citing_the_change() -> None:
    base, files, change = _change("src/m3.py")
    index = _full_sweep_index(base)  # the sidecars did not change: the index of the base serves the head
    head = ReadsSnapshot(files)
    plain = Sweeper(MemorySnapshot(files, label="head"), change, SweepOptions()).sweep()
    reads = wiki_reads(head, "openwiki", change, SweepOptions(), index)
    assert [p for p in reads if p.endswith(".json")] == ["openwiki/.claims/p2.json", "openwiki/.claims/p3.json"]
    report = Sweeper(head, change, SweepOptions(), index=index).sweep()
    assert report == plain
    assert report.unaffected_pages == 4 and report.summary["stale"] == 1
    assert sorted(p for p in head.read_paths if p.endswith(".json")) == reads[1:]


def test_without_an_index_entry_the_sidecar_is_read_and_learnt() -> None:
    base, files, change = _change("src/m3.py")
    index = _full_sweep_index(base)
    files["openwiki/.claims/p5.json"] = files["openwiki/.claims/p5.json"].replace(b'"f5"', b'"f5 again"')  # a new blob
    head = ReadsSnapshot(files)
    report = Sweeper(head, change, SweepOptions(), index=index).sweep()
    assert report == Sweeper(MemorySnapshot(files, label="head"), change, SweepOptions()).sweep()
    assert "openwiki/.claims/p5.json" in head.read_paths  # the index could not answer for it
    assert list(index.learnt.values())[-1] == {"src/m5.py", "src/m0.py"}


@pytest.mark.parametrize("recheck_all", [True, False])
def test_a_touched_page_or_ignore_file_or_all_means_every_sidecar(recheck_all: bool) -> None:
    base, files, change = _change("src/m3.py")
    index = _full_sweep_index(base)
    if not recheck_all:
        files[".openwikiignore"] = b"nothing\n"
        change = Change(change.base, (*change.files, FileChange(None, ".openwikiignore")))
    options = SweepOptions(recheck_all=recheck_all)
    reads = wiki_reads(MemorySnapshot(files), "openwiki", change, options, index)
    assert [p for p in reads if p.endswith(".json")] == [f"openwiki/.claims/p{n}.json" for n in range(6)]


def test_a_page_whose_text_changed_has_its_sidecar_read() -> None:
    base, files, change = _change("src/m3.py")
    index = _full_sweep_index(base)
    files["openwiki/p0.md"] += b"\nMore prose.\n"
    change = Change(change.base, (*change.files, FileChange("openwiki/p0.md", "openwiki/p0.md")))
    reads = wiki_reads(MemorySnapshot(files), "openwiki", change, SweepOptions(), index)
    assert [p for p in reads if p.endswith(".json")] == [f"openwiki/.claims/p{n}.json" for n in (0, 2, 3)]


@pytest.mark.parametrize("ignoring", [True, False], ids=["with-ignore-rules", "without"])
def test_a_diff_aware_sweep_rechecks_each_claim_citing_the_change_or_in_error(ignoring: bool) -> None:
    """Resources naming a file already seen usable and untouched still have their own span checked (with ignore
    rules every path is checked against them; without, a path in normal form is checked inline)."""
    base, files, change = _change("src/m3.py")
    extra = {
        "other span": "repo://src/m0.py#L4-L5",
        "no such line": "repo://src/m0.py#L0",
        "backwards": "repo://src/m0.py#L5-L4",
        "a second fragment": "repo://src/m0.py#L1#L2",
        "whole file": "repo://src/m0.py",
        "the change": "repo://src/m3.py#L1-L2",
        "the change, spelled oddly": "repo://src/./m3.py#L4",
        "an ignored file": "repo://src/m5.py#L1-L2",
        "an ignored file again": "repo://src/m5.py#L4-L5",
        "the wiki itself": "repo://openwiki/p1.md#L1",
        "a path that does not parse": "repo://src/%zz.py#L1",
        "another scheme": "file://src/m0.py#L1",
        "escaping the repository": "repo://src/../../m0.py#L1",
    }
    path = "openwiki/.claims/p0.json"  # its own claims cite src/m0.py and src/m1.py first
    sidecar = parse_sidecar(files[path], path)
    added = tuple(Claim(f"x{n}", text, (EvidenceRecord(res, "x"),)) for n, (text, res) in enumerate(extra.items()))
    files[path] = base[path] = render_sidecar(sidecar.with_claims(sidecar.claims + added))
    if ignoring:
        files[IGNORE_FILE] = base[IGNORE_FILE] = b"src/m5.py\n"
    report = Sweeper(MemorySnapshot(files, label="head"), change, SweepOptions()).sweep()
    rechecked = {claim.statement for page, claim in report.claims() if page.page == "openwiki/p0.md"}
    ignored = set() if ignoring else {"an ignored file", "an ignored file again"}
    assert rechecked == set(extra) - {"other span", "whole file"} - ignored


def test_a_claim_citing_a_wiki_kept_in_another_folder_is_rechecked_with_the_change() -> None:
    """A path in normal form that is not reserved, checked inline against the wiki folder the options name."""
    claims = {
        "p0.md": [("f0", ["repo://src/m0.py#L1-L2"])],
        "p1.md": [
            ("cites the wiki", ["repo://docs/wiki/p0.md#L1"]),
            ("cites the change", ["repo://src/m3.py#L1-L2"]),
            ("cites another file", ["repo://src/m1.py#L1-L2"]),
        ],
    }
    base = grounded(CODE, claims, wiki="docs/wiki")
    head = dict(base)
    head["src/m3.py"] = head["src/m3.py"].replace(b"return 1\n", b"return 100\n")
    change = Change(MemorySnapshot(base, label="base"), (FileChange("src/m3.py", "src/m3.py"),))
    report = Sweeper(MemorySnapshot(head, label="head"), change, SweepOptions(wiki_dir="docs/wiki")).sweep()
    rechecked = {(page.page, claim.statement): claim.verdict for page, claim in report.claims()}
    assert set(rechecked) == {("docs/wiki/p1.md", "cites the wiki"), ("docs/wiki/p1.md", "cites the change")}
    assert rechecked["docs/wiki/p1.md", "cites the wiki"] is Verdict.ERROR


def test_each_file_a_diff_aware_sweep_meets_is_judged_once_and_a_plain_path_without_the_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, files, change = _change("src/m3.py")
    path = "openwiki/.claims/p0.json"
    sidecar = parse_sidecar(files[path], path)
    odd = ("repo://src/./m3.py#L4", "repo://src/%6D0.py#L1")  # spelled otherwise: the parser says which file
    added = tuple(Claim(f"x{n}", f"odd {n}", (EvidenceRecord(res, "x"),)) for n, res in enumerate(odd))
    files[path] = base[path] = render_sidecar(sidecar.with_claims(sidecar.claims + added))
    judged: list[str] = []
    parsed: list[str] = []
    real_judge, real_parse = reader_module.is_normal_path, reader_module.resource_path
    monkeypatch.setattr(reader_module, "is_normal_path", lambda raw: judged.append(raw) or real_judge(raw))
    monkeypatch.setattr(reader_module, "resource_path", lambda head: parsed.append(head) or real_parse(head))
    report = Sweeper(MemorySnapshot(files, label="head"), change, SweepOptions()).sweep()
    assert {claim.statement for _, claim in report.claims()} >= {"odd 0"}
    assert sorted(judged) == sorted(set(judged))  # once per file, however many ranges cite it
    assert {"src/m0.py", "src/m3.py"} <= set(judged)
    assert sorted(parsed) == sorted(odd_head.partition("#")[0] for odd_head in odd)  # only those not plain


def test_a_diff_aware_sweep_reads_as_read_before_the_sidecars_an_earlier_one_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, files, change = _change("src/m3.py")
    seen = sidecars_read(monkeypatch)
    index = EvidenceIndex()
    first = Sweeper(MemorySnapshot(files, label="head"), change, SweepOptions(), index=index).sweep()
    citing = {"openwiki/.claims/p2.json", "openwiki/.claims/p3.json"}  # pages 2 and 3 cite src/m3.py
    assert seen == dict.fromkeys(citing, False)
    assert index.parsed_now == {MemorySnapshot(files).blob_id(path) for path in citing}
    seen.clear()
    again = EvidenceIndex(dict(index.items()), parsed=index.parsed_now)
    second = Sweeper(MemorySnapshot(files, label="head"), change, SweepOptions(), index=again).sweep()
    assert seen == dict.fromkeys(citing, True) and second == first
    assert again.parsed_now == set()  # nothing new to keep


@pytest.mark.parametrize("error", [FileNotFoundError, LookupError])
def test_a_sidecar_gone_before_it_is_learnt_is_learnt_as_citing_anything(error: type[Exception]) -> None:
    """A sidecar holding a record in error is learnt from its bytes after the sweep; when they cannot be read again
    (the file removed meanwhile, a remote snapshot's blob let go), the check still ends, its report whole, and the
    index says the sidecar may cite anything (read anew by every diff-aware sweep), never a wrong list."""
    files = grounded(CODE, CLAIMS)
    path = "openwiki/.claims/p1.json"
    sidecar = parse_sidecar(files[path], path)
    odd = (EvidenceRecord("repo://openwiki/p0.md#L1-L2", "repo-file-v1:sha256:" + "0" * 64),)
    files[path] = render_sidecar(sidecar.with_claims([*sidecar.claims, Claim("claim_odd", "Odd.", odd)]))

    class Vanishing(MemorySnapshot):
        reads = 0

        def read(self, wanted: str) -> bytes:
            if wanted == path:
                Vanishing.reads += 1
                if Vanishing.reads > 1:
                    raise error(wanted)
            return super().read(wanted)

    index = EvidenceIndex()
    report = Sweeper(Vanishing(files), None, SweepOptions(), index=index).sweep()
    assert report == Sweeper(MemorySnapshot(files), None, SweepOptions()).sweep()
    assert Vanishing.reads == 2 and index.cited(MemorySnapshot(files).blob_id(path) or "") is None
    blob = MemorySnapshot(files).blob_id
    assert index.learnt == {  # every other sidecar: what it cites
        blob(f"openwiki/.claims/p{p}.json"): None if p == 1 else {f"src/m{p}.py", f"src/m{(p + 1) % 6}.py"}
        for p in range(6)
    }
