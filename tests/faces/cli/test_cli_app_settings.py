"""`wikiwarden serve` and `wikiwarden worker` check every setting before they start and print every problem at once,
one line each, exit 2: an operator learns in one run what three runs told one at a time before (the App's id, the
webhook secret's length, the private key). `manifest` reads the App's manifest from the package's data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clitools import Run

pytestmark = pytest.mark.usefixtures("isolated_cli")

ONE_KEY = "WIKIWARDEN_PRIVATE_KEY, WIKIWARDEN_PRIVATE_KEY_PATH: set exactly one (the key's text, or a file of it)"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nxx\n-----END RSA PRIVATE KEY-----\n"


def problems(run: Run) -> list[str]:
    """Exit 2, nothing on stdout, and the lines of stderr, each a problem in words (no Python internals)."""
    assert run.code == 2, (run.code, run.out, run.err)
    assert run.out == ""
    lines = run.err.splitlines()
    assert all(line.startswith("wikiwarden: error: WIKIWARDEN_") for line in lines), run.err
    assert "Traceback" not in run.err and "pydantic" not in run.err, run.err
    return [line.removeprefix("wikiwarden: error: ") for line in lines]


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_three_settings_missing_are_three_lines_of_one_run(cli, command: str) -> None:
    lines = problems(cli(command))
    assert len(lines) == 3, lines
    assert lines[0] == "WIKIWARDEN_APP_ID: Field required"
    assert lines[1] == "WIKIWARDEN_WEBHOOK_SECRET: Field required"
    assert lines[2] == ONE_KEY


def test_every_kind_of_problem_in_one_run(cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A bad id, a short secret, an unreadable key file and a bad URL: four problems, four lines, whatever their kind.
    monkeypatch.setenv("WIKIWARDEN_APP_ID", "zero")
    monkeypatch.setenv("WIKIWARDEN_WEBHOOK_SECRET", "short")
    monkeypatch.setenv("WIKIWARDEN_PRIVATE_KEY_PATH", str(tmp_path / "missing.pem"))
    monkeypatch.setenv("WIKIWARDEN_GITHUB_API_URL", "ftp://nope")
    lines = problems(cli("serve"))
    assert [line.split(":")[0] for line in lines] == [
        "WIKIWARDEN_APP_ID",
        "WIKIWARDEN_WEBHOOK_SECRET",
        "WIKIWARDEN_GITHUB_API_URL",
        "WIKIWARDEN_PRIVATE_KEY_PATH",
    ], lines
    assert "at least 16" in lines[1] and "cannot read" in lines[3] and "missing.pem" in lines[3], lines


def test_a_key_that_is_not_pem_is_named_beside_the_other_problems(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIKIWARDEN_PRIVATE_KEY", "not a key")
    lines = problems(cli("worker"))
    assert lines == [
        "WIKIWARDEN_APP_ID: Field required",
        "WIKIWARDEN_WEBHOOK_SECRET: Field required",
        "WIKIWARDEN_PRIVATE_KEY: not a PEM private key",
    ]


def test_both_keys_given_is_one_problem_not_two(cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    key = tmp_path / "key.pem"
    key.write_text(PEM)
    monkeypatch.setenv("WIKIWARDEN_APP_ID", "12")
    monkeypatch.setenv("WIKIWARDEN_WEBHOOK_SECRET", "a-long-enough-secret")
    monkeypatch.setenv("WIKIWARDEN_PRIVATE_KEY", PEM)
    monkeypatch.setenv("WIKIWARDEN_PRIVATE_KEY_PATH", str(key))
    run = cli("serve")
    assert problems(run) == [ONE_KEY]


def test_manifest_reads_app_yml_from_the_package(cli) -> None:
    run = cli("manifest", "--webhook-url", "https://bot.example.org/webhook", "--name", "Our Wikiwarden")
    assert run.code == 0, run.err
    manifest = json.loads(run.out)
    assert manifest["name"] == "Our Wikiwarden"
    assert manifest["hook_attributes"]["url"] == "https://bot.example.org/webhook"
    assert manifest["default_events"] == ["push", "pull_request", "check_suite", "check_run"]
    assert manifest["default_permissions"] == {
        "checks": "write",
        "contents": "write",
        "pull_requests": "write",
        "metadata": "read",
    }
    assert manifest["public"] is False


def test_manifest_refuses_a_webhook_url_github_cannot_reach_safely(cli) -> None:
    run = cli("manifest", "--webhook-url", "http://bot.example.org/webhook")
    assert run.code == 2 and "https://" in run.err and run.out == ""
