"""bench/human_docs.py's evaluation files and arithmetic: the pre-registered corpus is well formed and its halves
are apart, every label of the labels file reads, and precision and recall come out of reports joined with labels
as docs/evaluation.md says (a failing report labeled real or false, one nobody labeled listed apart, a miss caught
when the check fails at its place)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("human_docs", ROOT / "bench" / "human_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["human_docs"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


bench = _bench()


def test_the_corpus_is_split_into_halves_apart_with_pinned_ranges() -> None:
    data = json.loads((ROOT / "bench" / "human_docs_corpus.json").read_text())
    repositories = data["repositories"]
    names = [r["repository"] for r in repositories]
    assert len(names) == len(set(names))  # a repository is in one half only
    halves = {half: [r for r in repositories if r["half"] == half] for half in bench.HALVES}
    assert set(r["half"] for r in repositories) == set(bench.HALVES)
    assert len(halves["tuning"]) + len(halves["heldout"]) >= 20
    assert 2 <= len(halves["kept_out"]) <= 4
    for entry in repositories:
        assert entry["pairs"] >= 1 and entry["docs"] and entry["first"] != entry["last"]
        assert len(entry["first_commit"]) == len(entry["last_commit"]) == 40
    languages = {r["language"] for r in halves["heldout"]}
    assert {"python", "typescript", "go", "rust"} <= languages


def test_every_line_of_the_labels_file_is_a_label() -> None:
    labels = bench.read_labels(ROOT / "bench" / "human_docs_labels.jsonl")
    corpus = json.loads((ROOT / "bench" / "human_docs_corpus.json").read_text())["repositories"]
    known = {r["repository"] for r in corpus}
    assert labels and all(label.repository in known for label in labels)
    assert all(label.verdict in bench.VERDICTS and label.reason for label in labels)


def _record(page: str, line: int, target: str, *, text: str = "", attention: bool = True) -> dict[str, object]:
    return {"base": "1.0", "head": "1.1", "page": page, "line": line, "target": target, "text": text or target,
            "attention": attention}  # fmt: skip


def _label(page: str, line: int, target: str, verdict: str, *, miss: bool = False) -> object:
    return bench.Label("o/r", "1.0", "1.1", page, line, target, verdict, "why", miss=miss)


def test_precision_and_recall_from_reports_joined_with_labels() -> None:
    records: list[dict[str, object]] = [
        {"base": "1.0", "head": "1.1", "seconds": 1.5},
        {"base": "1.1", "head": "1.2", "error": "no docs folder"},
        _record("docs/a.md", 3, "pkg.mod.Gone"),  # labeled real
        _record("docs/a.md", 9, "scripts/x.py"),  # labeled false
        _record("docs/b.md", 1, "pkg.Other"),  # nobody's label
        _record("docs/b.md", 4, "requirements.txt", attention=False),  # a note on a labeled miss: not caught
        _record("docs/c.md", 7, "pkg.mod.Obj.run", text="`Obj.run`"),  # a miss, now failing under another name
    ]
    labels = [
        _label("docs/a.md", 3, "pkg.mod.Gone", "real"),
        _label("docs/a.md", 9, "scripts/x.py", "false"),
        _label("docs/b.md", 4, "requirements.txt", "real", miss=True),
        _label("docs/c.md", 7, "run", "real", miss=True),
        _label("docs/d.md", 1, "gone.py", "real"),  # real breakage no report names any more
        bench.Label("other/repo", "1.0", "1.1", "docs/a.md", 3, "pkg.mod.Gone", "false", "another repository's"),
    ]
    row = bench.judge("o/r", records, labels)
    assert (row.pairs, row.not_checked, row.seconds) == (1, 1, 1.5)
    assert (row.failing, row.real, row.false, row.notes) == (4, 2, 1, 1)
    assert [r["target"] for r in row.unlabeled] == ["pkg.Other"]
    assert (row.caught, row.breakage) == (2, 4)
    summary = bench.table([row])[-1]
    assert "precision 67% (2 of 3" in summary and "recall 50% (2 of 4" in summary


def test_a_report_matches_a_label_by_place_and_by_what_it_names() -> None:
    label = _label("docs/a.md", 3, "Config.get_deserialized", "real")
    assert label.matches(_record("docs/a.md", 3, "mdbook_core::config::Config::get_deserialized"))
    assert not label.matches(_record("docs/a.md", 3, "Config.get"))  # another mention on the line
    assert not label.matches(_record("docs/a.md", 4, "Config.get_deserialized"))  # another line
    assert not label.matches({**_record("docs/a.md", 3, "Config.get_deserialized"), "head": "1.2"})  # another pair
    assert _label("docs/a.md", 3, "tests", "real", miss=True).matches(_record("docs/a.md", 3, "packages/x/tests"))


_GOOD = {"repository": "o/r", "base": "1", "head": "2", "page": "p", "line": 1, "target": "t", "verdict": "real",
         "reason": "r"}  # fmt: skip


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('{"repository": "o/r"}', "not a label"),
        (json.dumps({**_GOOD, "line": "x"}), "not a label"),
        (json.dumps({**_GOOD, "verdict": "maybe"}), "verdict 'maybe'"),
        (json.dumps({**_GOOD, "verdict": "false", "miss": True}), "a miss is real breakage"),
        ("not json", "not a label"),
    ],
)
def test_a_line_that_is_no_label_is_refused_by_its_number(tmp_path: Path, line: str, says: str) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(f"# a comment\n\n{line}\n")
    with pytest.raises(SystemExit, match=f"labels.jsonl:3: .*{says}"):
        bench.read_labels(labels)


def test_a_half_runs_from_a_mirror_with_its_pinned_range(tmp_path: Path) -> None:
    """The corpus mode end to end on a small bare mirror: the clone made from it, the pinned pairs checked, the
    removed function's failing report joined with its label, every report in the JSON file."""
    work = tmp_path / "work"
    work.mkdir()

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True, text=True).stdout

    git("init", "-q", "-b", "main")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    (work / "pkg").mkdir()
    (work / "docs").mkdir()
    (work / "pkg" / "api.py").write_text("def fetch_all():\n    return 1\n\n\ndef keep():\n    return 2\n")
    (work / "docs" / "index.md").write_text("# Use\n\nCall `fetch_all()` or `keep()`.\n")
    git("add", ".")
    git("commit", "-q", "-m", "one")
    git("tag", "1.0")
    (work / "pkg" / "api.py").write_text("def keep():\n    return 2\n")
    git("commit", "-q", "-am", "two")
    git("tag", "1.1")
    first, last = git("rev-parse", "1.0").strip(), git("rev-parse", "1.1").strip()
    mirrors = tmp_path / "mirrors"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirrors / "o+r" / "repo")], check=True)
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps({"repositories": [
        {"repository": "o/r", "half": "tuning", "docs": "docs", "format": "mkdocs", "language": "python",
         "tags": None, "pairs": 1, "first": "1.0", "last": "1.1", "first_commit": first, "last_commit": last},
    ]}))  # fmt: skip
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"repository": "o/r", "base": "1.0", "head": "1.1", "page": "docs/index.md",
                                  "line": 3, "target": "fetch_all", "verdict": "real", "reason": "gone"}) + "\n")  # fmt: skip
    found = tmp_path / "found.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "human_docs.py"), "--corpus", str(corpus), "--half", "tuning",
         "--mirrors", str(mirrors), "--clones", str(tmp_path / "clones"), "--labels", str(labels),
         "--json", str(found)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "| o/r | 1 | 1 | 1 | 0 | 0 | 0 | 1 of 1 |" in run.stdout, run.stdout
    assert "precision 100% (1 of 1" in run.stdout
    reports = [r for r in json.loads(found.read_text()) if "page" in r]
    assert [(r["repository"], r["page"], r["line"], r["attention"]) for r in reports] == [
        ("o/r", "docs/index.md", 3, True)
    ]
    moved = json.loads(corpus.read_text())
    moved["repositories"][0]["last_commit"] = first  # the tag no longer where the corpus pinned it
    corpus.write_text(json.dumps(moved))
    refused = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "human_docs.py"), "--corpus", str(corpus), "--half", "tuning",
         "--mirrors", str(mirrors), "--clones", str(tmp_path / "clones"), "--plan"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert refused.returncode != 0 and "the corpus pinned" in refused.stderr
