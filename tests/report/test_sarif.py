"""`--format sarif`: SARIF 2.1.0 for code scanning, validated against the official schema (tests/data/sarif)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from citools import HOSTILE_CITED, HOSTILE_PATH, INJECTION, demo_reports, hostile_report, sarif_errors, sarif_schema
from conftest import GIT_ENV

from bot.claims.results import SweepReport
from bot.report.check import render
from bot.report.ci import RULES, SARIF_RESULT_LIMIT, artifact_uri, render_sarif, sarif_log
from bot.source.git import GitRepository
from bot.usecases.check import check_repository

# An embedded link of a SARIF plain-text message, `[text](id)`, whose brackets are not escaped.
_EMBEDDED_LINK = re.compile(r"(?<!\\)\[(?:[^\]\\]|\\.)*(?<!\\)\]\(")


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("demo") / "repo"


@pytest.fixture(scope="module")
def demo(demo_root: Path) -> tuple[SweepReport, SweepReport]:
    return demo_reports(demo_root)


def _messages(log: dict) -> list[str]:
    run = log["runs"][0]
    texts = [r["message"]["text"] for r in run["results"]]
    return texts + [loc["message"]["text"] for r in run["results"] for loc in r.get("relatedLocations", [])]


def test_the_schema_is_the_official_one_and_the_log_names_it() -> None:
    schema = sarif_schema()  # (its sha256 is checked on reading)
    assert schema["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    assert schema["properties"]["version"]["enum"] == ["2.1.0"]
    log = sarif_log(SweepReport("working tree", None, "openwiki", ()))
    assert log["$schema"] == schema["id"] and log["version"] == "2.1.0"
    assert sarif_errors(log) == []
    assert log["runs"][0]["results"] == []


def test_the_validator_catches_what_breaks_the_schema() -> None:
    log = sarif_log(SweepReport("working tree", None, "openwiki", ()))
    assert sarif_errors({**log, "version": "2.2.0"})
    bad = json.loads(json.dumps(log))
    bad["runs"][0]["results"] = [{"message": {"text": "x"}, "level": "fatal"}]
    assert sarif_errors(bad)
    location = {"physicalLocation": {"artifactLocation": {"uri": "src/a b.py"}}}  # a space: no URI reference
    bad["runs"][0]["results"] = [{"message": {"text": "x"}, "locations": [location]}]
    assert any("uri-reference" in error for error in sarif_errors(bad))


def test_the_demo_is_one_result_per_finding_located_on_the_code(demo) -> None:
    diff, full = demo
    for report in (diff, full):
        assert sarif_errors(sarif_log(report)) == []
    log = json.loads(render(diff, "sarif"))
    assert log == sarif_log(diff)
    [run] = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "Wikiwarden" and driver["version"] and driver["informationUri"].startswith("https://")
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert rule_ids == [
        "wikiwarden/stale",
        "wikiwarden/unresolved",
        "wikiwarden/error",
        "wikiwarden/broken-reference",
        "wikiwarden/unreadable-sidecar",
    ]
    assert all(rule["shortDescription"]["text"] and rule["help"]["text"] for rule in driver["rules"])
    results = run["results"]
    assert all(rule_ids[r["ruleIndex"]] == r["ruleId"] for r in results)

    def where(result: dict) -> tuple:
        physical = result["locations"][0]["physicalLocation"]
        region = physical["region"]
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        return (
            result["ruleId"],
            result["level"],
            physical["artifactLocation"]["uri"],
            region["startLine"],
            region["endLine"],
        )

    assert [where(r) for r in results] == [
        ("wikiwarden/error", "error", "openwiki/configuration.md", 1, 1),  # a symlink: the page, its first line
        ("wikiwarden/stale", "error", "src/taskq/retry.py", 5, 5),  # where the changed evidence stands now
        ("wikiwarden/stale", "error", "src/taskq/retry.py", 8, 9),
        ("wikiwarden/unresolved", "error", "openwiki/workers.md", 1, 1),  # legacy.py deleted whole
        ("wikiwarden/broken-reference", "error", "openwiki/workers.md", 8, 8),
    ]
    stale = results[1]
    assert stale["message"]["text"].startswith("A failing task is tried 3 times.\n\nClaim claim_")
    assert stale["relatedLocations"] == [
        {
            "id": 1,  # the one related location of a result: the page its message's `[text](1)` would link to
            "physicalLocation": {
                "artifactLocation": {"uri": "openwiki/workers.md", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 1, "endLine": 1},
            },
            "message": {"text": "the wiki page"},
        }
    ]
    assert (
        stale["properties"]["verdict"] == "stale"
        and stale["properties"]["resource"] == "repo://src/taskq/retry.py#L5-L5"
    )
    assert "relatedLocations" not in results[3]  # already on the page
    assert run["properties"]["summary"] == diff.summary and run["properties"]["needsAttention"] is True
    fingerprints = [r["partialFingerprints"]["wikiwarden/v1"] for r in results]
    assert len(set(fingerprints)) == len(results)


def test_re_anchored_evidence_is_never_a_result(demo) -> None:
    diff, _ = demo
    assert render(diff, "sarif", attention_only=False) == render(diff, "sarif")
    verdicts = {r["properties"].get("verdict") for r in sarif_log(diff)["runs"][0]["results"]}
    assert verdicts == {"stale", "unresolved", "error", None}  # None: the broken reference


def test_fingerprints_stay_as_the_evidence_moves(demo, demo_root: Path, tmp_path: Path) -> None:
    """Code scanning matches alerts run after run by their fingerprints: a claim's stays the same while its code
    moves, so moving it does not close one alert and open another."""
    diff, _ = demo
    root = tmp_path / "repo"
    shutil.copytree(demo_root, root, symlinks=True)
    retry = root / "src/taskq/retry.py"
    retry.write_text("# three lines\n# pushing the code\n# down\n" + retry.read_text())
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "commit", "-qam", "push retry.py down"], cwd=root, env=env, check=True)
    with GitRepository(root) as repo:
        later = check_repository(repo, base="v1", head="HEAD")

    def by_fingerprint(report: SweepReport) -> dict[str, tuple[str, int]]:
        results = sarif_log(report)["runs"][0]["results"]
        return {
            r["partialFingerprints"]["wikiwarden/v1"]: (
                r["ruleId"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"],
            )
            for r in results
        }

    before, after = by_fingerprint(diff), by_fingerprint(later)
    assert set(before) == set(after)
    moved = {key: (before[key], after[key]) for key in before if before[key] != after[key]}
    assert sorted(moved.values()) == [
        (("wikiwarden/stale", 5), ("wikiwarden/stale", 8)),
        (("wikiwarden/stale", 8), ("wikiwarden/stale", 11)),
    ]


def test_hostile_strings_stay_data() -> None:
    report = hostile_report()
    log = sarif_log(report)
    assert sarif_errors(log) == []  # every uri a valid URI reference, whatever the path holds
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == [
        "wikiwarden/error",  # the claim's own (its id)
        "wikiwarden/stale",
        "wikiwarden/unresolved",
        "wikiwarden/error",  # its third evidence's
        "wikiwarden/unreadable-sidecar",
        "wikiwarden/broken-reference",
    ]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    for uri in uris:
        parts = urlsplit(uri)
        assert not parts.scheme and not parts.netloc and not parts.query and not parts.fragment, uri
    assert {unquote(uri) for uri in uris} >= {HOSTILE_CITED, HOSTILE_PATH}
    for text in _messages(log):  # no embedded link, and mentions defused
        assert not _EMBEDDED_LINK.search(text), text
        assert "@octocat" not in text
    assert "\\[link\\](1)" in results[1]["message"]["text"]
    assert results[1]["properties"]["statement"] == INJECTION  # data, JSON-encoded, kept whole
    ref = report.broken_references[0]
    assert results[5]["properties"] == {  # what the reference is about, as data
        "page": ref.page, "line": ref.line, "text": ref.text, "target": ref.target, "what": ref.what,
        "renamedTo": ref.renamed_to, "attention": True, "note": None,
    }  # fmt: skip


def test_artifact_uris_are_relative_references() -> None:
    assert artifact_uri("src/taskq/queue.py") == "src/taskq/queue.py"
    assert artifact_uri("a:b/c d#1%.py") == "a%3Ab/c%20d%231%25.py"  # never a scheme, a fragment or an escape
    assert artifact_uri("docs/café.md") == "docs/caf%C3%A9.md"
    assert unquote(artifact_uri("src/\udcff.py"), errors="surrogateescape") == "src/\udcff.py"  # a non-UTF-8 name


def test_results_past_the_limit_are_left_out_worst_first(demo) -> None:
    diff, _ = demo
    assert SARIF_RESULT_LIMIT == 25_000  # GitHub code scanning refuses a run with more
    log = sarif_log(hostile_report(), max_results=2)
    assert sarif_errors(log) == []
    [run] = log["runs"]
    assert [r["level"] for r in run["results"]] == ["error", "error"]
    [invocation] = run["invocations"]
    assert invocation == {
        "executionSuccessful": True,  # the run itself went well: only its results were cut
        "toolExecutionNotifications": [
            {"level": "warning", "message": {"text": "4 more results were left out (limit 2)."}}
        ],
    }
    assert "invocations" not in sarif_log(diff)["runs"][0]
    exactly = sarif_log(hostile_report(), max_results=6)["runs"][0]  # as many results as the limit: none left out
    assert len(exactly["results"]) == 6 and "invocations" not in exactly
    [one_more] = sarif_log(hostile_report(), max_results=5)["runs"][0]["invocations"]
    assert one_more["toolExecutionNotifications"][0]["message"]["text"] == "1 more result was left out (limit 5)."


def test_every_rule_is_described() -> None:
    assert set(RULES) == {"stale", "unresolved", "error", "broken-reference", "unreadable-sidecar"}
    for rule in RULES.values():
        assert rule.id == f"wikiwarden/{rule.id.removeprefix('wikiwarden/')}" and rule.name[0].isupper()
        assert rule.short and rule.full and rule.help
    assert render_sarif(SweepReport("working tree", None, "openwiki", ())).endswith("}\n")
