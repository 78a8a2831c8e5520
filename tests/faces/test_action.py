"""The GitHub Action's decisions (bot/action/), one by one: the inputs, the event payload to the change checked
(GitHub's own example payloads, tests/data/webhooks), the outputs and their file, the exit status, the job
summary's size, the log's stop-commands; and action.yml's shape: a composite action whose scripts take their
inputs from `env:` only, and whose outputs are the step's."""

from __future__ import annotations

import copy
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest
from apptools import example
from citools import parse_output_file
from conftest import GitRepo
from fixtools import build_shop
from ruamel.yaml import YAML

from bot.action import run_action
from bot.action.event import EventChange, change_from_event
from bot.action.fix import why_no_fix
from bot.action.inputs import (
    CONCLUSIONS,
    DEFAULT_CONCLUSION,
    GITHUB_ACTIONS_LOGIN,
    ActionError,
    ActionInputs,
    conclusion_for,
    read_inputs,
)
from bot.action.outputs import Runner, exit_status, fix_summary, format_outputs, job_summary, output_values
from bot.claims.verdicts import Verdict
from bot.source.git import GitRepository
from bot.usecases.check import check_repository
from bot.usecases.config_file import RepoConfig

ACTION_YML = Path(__file__).resolve().parents[2] / "action.yml"
SHA_A, SHA_B = "a" * 40, "b" * 40
ZERO = "0" * 40


# -- the inputs ------------------------------------------------------------------------------------------------


def test_inputs_left_unset_take_their_defaults() -> None:
    assert read_inputs({}) == ActionInputs()
    empty = {f"INPUT_{name}": "" for name in ("PATH", "WIKI_DIR", "CONCLUSION", "FIX", "TOKEN", "BOT_LOGIN", "MODEL")}
    inputs = read_inputs(empty)
    assert inputs == ActionInputs()
    assert inputs.bot_login == GITHUB_ACTIONS_LOGIN and inputs.fix is False and inputs.wiki_dir is None


def test_inputs_are_read_and_checked() -> None:
    inputs = read_inputs(
        {
            "INPUT_PATH": "site",
            "INPUT_WIKI_DIR": "./docs/wiki/",
            "INPUT_CONCLUSION": "neutral",
            "INPUT_FIX": "True",
            "INPUT_TOKEN": "ghs_secret",
            "INPUT_BOT_LOGIN": "octo-bot",
            "INPUT_MODEL": "m",
            "INPUT_OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
            "INPUT_OPENAI_API_KEY": "sk-secret",
            "WIKIWARDEN_MUTATION_SPACING_SECONDS": "0",
        }
    )
    assert inputs == ActionInputs(
        path="site", wiki_dir="docs/wiki", conclusion="neutral", fix=True, token="ghs_secret", bot_login="octo-bot",
        model="m", openai_base_url="http://127.0.0.1:1/v1", openai_api_key="sk-secret", mutation_spacing_seconds=0.0,
    )  # fmt: skip
    assert "ghs_secret" not in repr(inputs) and "sk-secret" not in repr(inputs)  # a traceback never shows them


@pytest.mark.parametrize("none", ["none", "None", " NONE "])
def test_a_model_named_none_is_no_model(none: str) -> None:
    """`model: none` says no model, as WIKIWARDEN_MODEL=none and `--model none` do (never a model's name)."""
    assert read_inputs({"INPUT_MODEL": none, "INPUT_FIX": "true"}).model is None
    assert read_inputs({"INPUT_MODEL": "none-such"}).model == "none-such"


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({"INPUT_FIX": "yes"}, "input fix must be true or false"),
        ({"INPUT_CONCLUSION": "success"}, "input conclusion must be one of neutral, failure, action_required"),
        ({"INPUT_WIKI_DIR": "../elsewhere"}, "input wiki-dir"),
        ({"WIKIWARDEN_MUTATION_SPACING_SECONDS": "soon"}, "must be a number"),
        ({"WIKIWARDEN_MUTATION_SPACING_SECONDS": "nan"}, "must be a number"),
    ],
)
def test_an_input_that_cannot_be_used_is_named(env: dict[str, str], problem: str) -> None:
    with pytest.raises(ActionError, match=re.escape(problem)):
        read_inputs(env)


# -- the event -------------------------------------------------------------------------------------------------


def push(**fields: Any) -> dict[str, Any]:
    """GitHub's example branch push (`push.5`: the creation of the default branch `master`), with `fields`."""
    data = example("push.5")
    data.update(fields)
    return data


def pull(action: str = "opened", **head: Any) -> dict[str, Any]:
    data = example("pull_request.opened.2") if action == "opened" else example(f"pull_request.{action}.1")
    data["pull_request"]["head"].update(head)
    return data


def test_the_example_push_creating_the_default_branch_checks_every_claim() -> None:
    data = example("push.5")
    after = data["after"]
    assert change_from_event("push", data) == EventChange(
        "push", after, head_label=f"master ({after[:12]})", base=None, base_label=None, merge_base=True,
        target="master", repository_id=data["repository"]["id"], sender="Codertocat",
    )  # fmt: skip


def test_a_push_is_checked_from_before_to_after() -> None:
    change = change_from_event("push", push(created=False, before=SHA_A, after=SHA_B))
    assert (change.head, change.base, change.merge_base, change.base_label) == (SHA_B, SHA_A, True, SHA_A[:12])
    assert change.target == "master" and change.pr_number is None and change.sender == "Codertocat"


def test_a_force_push_is_compared_tree_to_tree() -> None:
    change = change_from_event("push", push(created=False, forced=True, before=SHA_A, after=SHA_B))
    assert (change.base, change.merge_base) == (SHA_A, False)
    assert change.base_label == f"before the force-push ({SHA_A[:12]})"


def test_a_new_branch_is_checked_from_where_it_left_the_default_branch() -> None:
    change = change_from_event("push", push(ref="refs/heads/feature/x", after=SHA_B))
    assert (change.base, change.merge_base, change.base_label, change.target) == ("master", True, "master", "feature/x")


@pytest.mark.parametrize("name", ["push.1", "push.2", "push.7"])
def test_tags_and_deleted_branches_are_not_checked(name: str) -> None:
    change = change_from_event("push", example(name))
    assert change.head is None and change.skipped


def test_a_deleted_branch_is_not_checked() -> None:
    change = change_from_event("push", push(created=False, deleted=True, before=SHA_A, after=ZERO))
    assert change.head is None and change.skipped == "the branch was deleted: nothing to check"


def test_a_pull_request_is_checked_from_where_it_left_its_base() -> None:
    data = pull(sha=SHA_B)
    data["pull_request"]["base"]["sha"] = SHA_A
    change = change_from_event("pull_request", data)
    number = data["pull_request"]["number"]
    assert change == EventChange(
        "pull_request", SHA_B, head_label=f"#{number} ({SHA_B[:12]})", base=SHA_A, base_label="master",
        merge_base=True, target="changes", pr_number=number, repository_id=data["repository"]["id"],
        sender="Codertocat",
    )  # fmt: skip


def test_a_fork_pull_request_has_no_branch_to_fix() -> None:
    data = pull()
    data["pull_request"]["head"]["repo"] = {**data["pull_request"]["head"]["repo"], "full_name": "someone/Hello-World"}
    assert change_from_event("pull_request", data).target is None
    data["pull_request"]["head"]["repo"] = None  # the fork was deleted
    assert change_from_event("pull_request", data).target is None


def test_a_closed_pull_request_is_not_checked() -> None:
    data = example("pull_request.closed.1")
    change = change_from_event("pull_request", data)
    number = data["pull_request"]["number"]
    assert change == EventChange("pull_request", None, pr_number=number, skipped=f"#{number} was closed: nothing to check")


@pytest.mark.parametrize("number", [None, "5", 5.0, True, False, 0, -3, [5], {"n": 5}])
def test_a_pull_request_without_a_positive_whole_number_is_refused(number: Any) -> None:
    """The number names the pull request a fix and the summary speak of: anything but a whole number above 0
    (a string, a float, a bool, which Python counts as an int) is a payload not to act on."""
    data = pull(sha=SHA_B)
    data["pull_request"]["number"] = number
    with pytest.raises(ActionError, match=r"^the event payload's pull_request\.number is not a number$"):
        change_from_event("pull_request", data)
    del data["pull_request"]["number"]
    with pytest.raises(ActionError, match=r"pull_request\.number is not a number"):
        change_from_event("pull_request", data)
    closed = {**data, "action": "closed", "pull_request": {**data["pull_request"], "number": number}}
    with pytest.raises(ActionError, match=r"pull_request\.number is not a number"):  # before anything else
        change_from_event("pull_request", closed)


@pytest.mark.parametrize("number", [1, 2**40])
def test_any_whole_number_above_0_names_the_pull_request(number: int) -> None:
    data = pull(sha=SHA_B)
    data["pull_request"]["number"] = number
    change = change_from_event("pull_request", data)
    assert change.pr_number == number and change.head_label == f"#{number} ({SHA_B[:12]})"


def test_another_event_checks_the_commit_as_a_whole() -> None:
    change = change_from_event("workflow_dispatch", {"repository": {"id": 7}}, SHA_B)
    assert (change.head, change.base, change.target) == (SHA_B, None, None)
    with pytest.raises(ActionError, match="names no commit"):
        change_from_event("schedule", {}, None)


@pytest.mark.parametrize(
    ("event", "payload", "where"),
    [
        ("push", push(after="HEAD"), "after"),
        ("push", push(after=SHA_A[:39] + "g"), "after"),
        ("push", push(before=None), "before"),
        ("push", push(ref="refs/heads/x\n::error::y"), "ref"),
        ("push", push(ref=["refs/heads/x"]), "ref"),
        (
            "push",
            push(ref="refs/heads/feature", after=SHA_B, repository={"default_branch": "--upload-pack=x"}),
            "default_branch",
        ),
        ("pull_request", pull(sha="--output=/tmp/x"), "pull_request.head.sha"),
        ("pull_request", pull(ref="-x"), "pull_request.head.ref"),
        ("pull_request", {**pull(), "pull_request": None}, "pull_request"),
    ],
)
def test_a_payload_field_that_git_or_github_should_not_see_is_refused(
    event: str, payload: dict[str, Any], where: str
) -> None:
    with pytest.raises(ActionError, match=re.escape(where)):
        change_from_event(event, copy.deepcopy(payload))


# -- what the step reports -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("needs_attention", "conclusion", "status"),
    [
        (False, "failure", 0),
        (False, "neutral", 0),
        (True, "neutral", 0),
        (True, "failure", 1),
        (True, "action_required", 1),
    ],
)
def test_the_exit_status_follows_the_conclusion(needs_attention: bool, conclusion: str, status: int) -> None:
    assert exit_status(needs_attention, conclusion) == status


def test_the_conclusion_is_the_input_else_the_config_file_else_failure() -> None:
    assert get_args(RepoConfig.model_fields["conclusion"].annotation) == CONCLUSIONS  # the same words as the App's
    assert DEFAULT_CONCLUSION in CONCLUSIONS
    assert conclusion_for(ActionInputs(conclusion="neutral"), "failure") == "neutral"
    assert conclusion_for(ActionInputs(), "action_required") == "action_required"
    assert conclusion_for(ActionInputs(), None) == "failure"


@pytest.fixture
def shop_report(repo: GitRepo) -> Any:
    """The shop (tests/fixtools.py) checked through its change: one claim each moved, stale, cosmetic, unresolved,
    and the legacy page names `checkout_v1`, which the change removed."""
    build_shop(repo)
    with GitRepository(repo.root) as git:
        return check_repository(git, base="v1", head="HEAD")


def test_the_outputs_are_the_reports_counts(shop_report: Any) -> None:
    assert output_values(shop_report) == {
        "fresh": "0", "moved": "1", "cosmetic": "1", "stale": "1", "unresolved": "1", "error": "0", "claims": "4",
        "touched": "4", "broken-references": "1", "unreadable-sidecars": "0", "needs-attention": "true",
    }  # fmt: skip
    assert (
        why_no_fix(change_from_event("push", push(created=False, before=SHA_A, after=SHA_B)), "bot", shop_report)
        is None
    )


def test_outputs_are_written_so_that_no_value_can_write_another() -> None:
    hostile = "x\nneeds-attention=false\nname<<EOF\nforged\nEOF"
    text = format_outputs({"pull-request": hostile, "stale": "2"}, "ghadelimiter_0123")
    assert parse_output_file(text) == {"pull-request": hostile, "stale": "2"}
    with pytest.raises(ValueError, match="delimiter"):
        format_outputs({"pull-request": "a\nghadelimiter_0123\nstale=0"}, "ghadelimiter_0123")
    with pytest.raises(ValueError, match="not an output name"):
        format_outputs({"a\nb": "1"}, "ghadelimiter_0123")


def test_the_runner_appends_outputs_with_a_fresh_delimiter(tmp_path: Path) -> None:
    outputs = tmp_path / "output"
    runner = Runner(io.StringIO(), None, str(outputs))
    runner.set_outputs({"stale": "1"})
    runner.set_outputs({"pull-request": "https://github.com/o/r/pull/1"})
    text = outputs.read_text()
    assert parse_output_file(text) == {"stale": "1", "pull-request": "https://github.com/o/r/pull/1"}
    delimiters = re.findall(r"^[a-z-]+<<(.+)$", text, re.M)
    assert len(set(delimiters)) == 2 and all(re.fullmatch(r"ghadelimiter_[0-9a-f]{32}", d) for d in delimiters)


def test_repository_text_in_the_log_cannot_act_as_a_workflow_command() -> None:
    out = io.StringIO()
    Runner(out, None, None).log_untrusted("Wikiwarden check", "a page says\n::add-mask::x\n::error::forged\n")
    lines = out.getvalue().splitlines()
    token = lines[1].removeprefix("::stop-commands::")
    assert re.fullmatch(r"[0-9a-f]{32}", token)
    assert lines == [
        "::group::Wikiwarden check", f"::stop-commands::{token}", "a page says", "::add-mask::x", "::error::forged",
        f"::{token}::", "::endgroup::",
    ]  # fmt: skip


def test_a_notice_built_from_untrusted_text_stays_one_command() -> None:
    out = io.StringIO()
    Runner(out, None, None).command("notice", "branch x\n::error::forged%0A", title="a:b,c")
    assert out.getvalue() == "::notice title=a%3Ab%2Cc::branch x%0A::error::forged%250A\n"


def test_the_job_summary_fits_githubs_limit_in_bytes(shop_report: Any) -> None:
    whole = job_summary(shop_report)
    assert "The tax rate is 20%." in whole
    cut = job_summary(shop_report, limit_bytes=600)
    assert len(cut.encode()) <= 600 and cut != whole


def test_the_fix_section_of_the_summary() -> None:
    assert fix_summary("Fix pull request #3 opened: 1 updated.", "https://github.com/o/r/pull/3") == (
        "\n### Wikiwarden fix\n\nFix pull request #3 opened: 1 updated.\n\nhttps://github.com/o/r/pull/3\n"
    )
    assert fix_summary("Nothing to fix.", None) == "\n### Wikiwarden fix\n\nNothing to fix.\n"


def test_a_long_fix_section_is_cut_at_a_line_to_its_room() -> None:
    note = "".join(f"- page {n} updated\n" for n in range(2_000))
    section = fix_summary(note, "https://github.com/o/r/pull/3", limit_bytes=1_000)
    assert len(section.encode()) <= 1_000
    assert section.startswith("\n### Wikiwarden fix\n\n- page 0 updated\n")
    assert section.endswith("updated\n\n_…cut here to fit._\n\nhttps://github.com/o/r/pull/3\n")


def test_every_output_of_the_step_escapes_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    """git hands over a name that is not UTF-8 with its bytes as lone surrogates: each output writes them as the
    command line prints them, `\\udce9`, instead of failing."""
    name = "openwiki/caf\udce9.md"
    out, summary, outputs = io.StringIO(), tmp_path / "summary", tmp_path / "output"
    runner = Runner(out, str(summary), str(outputs))
    runner.command("notice", f"{name} changed", title=name)
    runner.log_untrusted("Wikiwarden check", f"{name}\n")
    runner.append_summary(f"| {name} |\n")
    runner.set_outputs({"pull-request": name})
    assert out.getvalue().encode()  # all of it UTF-8
    assert "openwiki/caf\\udce9.md changed" in out.getvalue() and "\nopenwiki/caf\\udce9.md\n" in out.getvalue()
    assert summary.read_text() == "| openwiki/caf\\udce9.md |\n"
    assert parse_output_file(outputs.read_text()) == {"pull-request": "openwiki/caf\\udce9.md"}


def test_a_wiki_with_nothing_moved_or_stale_asks_no_fix(repo: GitRepo) -> None:
    build_shop(repo)
    with GitRepository(repo.root) as git:
        report = check_repository(git, base="HEAD", head="HEAD")
    change = change_from_event("push", push(created=False, before=SHA_A, after=SHA_B))
    assert why_no_fix(change, GITHUB_ACTIONS_LOGIN, report) == (
        "Nothing to fix: no claim has evidence to re-anchor or to re-verify."
    )
    assert output_values(report)["needs-attention"] == "false"


def test_no_fix_follows_another_event_or_the_bots_own_push(shop_report: Any) -> None:
    manual = change_from_event("workflow_dispatch", {}, SHA_B)
    assert why_no_fix(manual, GITHUB_ACTIONS_LOGIN, shop_report) == (
        "No fix: the fix follows push and pull_request events, not workflow_dispatch."
    )
    own = push(created=False, before=SHA_A, after=SHA_B, sender={"login": GITHUB_ACTIONS_LOGIN, "type": "Bot"})
    assert why_no_fix(change_from_event("push", own), GITHUB_ACTIONS_LOGIN, shop_report) == (
        "No fix: github-actions[bot] caused this event, as it does by pushing a fix."
    )
    assert why_no_fix(change_from_event("push", own), "octo-bot", shop_report) is None  # another token's login
    opened = pull(sha=SHA_B)
    assert why_no_fix(change_from_event("pull_request", opened), GITHUB_ACTIONS_LOGIN, shop_report) is None


# -- action.yml ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def action() -> dict[str, Any]:
    loaded = YAML(typ="safe").load(ACTION_YML.read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_action_yml_is_a_composite_action(action: dict[str, Any]) -> None:
    assert action["name"] == "Wikiwarden" and action["description"]
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    assert [s.get("id") for s in steps] == ["python", "install", "memory", "restore", "check", "save"]
    for step in steps:
        assert ("uses" in step) != ("run" in step), step
        if "run" in step:
            assert step["shell"] == "bash", step  # a composite action's run step must name its shell
    assert steps[0]["uses"].startswith("actions/setup-python@")
    assert steps[0]["with"]["update-environment"] is False  # the job's own Python is left alone


def test_inputs_reach_the_scripts_only_through_env(action: dict[str, Any]) -> None:
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], step["id"]  # an expression in a script is spliced in as shell code
    check_env = next(s for s in action["runs"]["steps"] if s.get("id") == "check")["env"]
    for name in action["inputs"]:
        if name != "python-version":
            env_name = "INPUT_" + name.upper().replace("-", "_")
            assert check_env[env_name] == f"${{{{ inputs.{name} }}}}", name
    for name, spec in action["inputs"].items():
        assert spec["description"] and spec["required"] is False and isinstance(spec["default"], str), name


def test_inputs_default_as_the_command_does(action: dict[str, Any]) -> None:
    inputs = action["inputs"]
    env = {
        "INPUT_" + n.upper().replace("-", "_"): spec["default"]
        for n, spec in inputs.items()
        if "${{" not in spec["default"]
    }
    assert read_inputs(env) == ActionInputs()
    assert inputs["token"]["default"] == "${{ github.token }}"


def test_the_outputs_are_the_check_steps(action: dict[str, Any], shop_report: Any) -> None:
    outputs = action["outputs"]
    for name, spec in outputs.items():
        assert spec["value"] == f"${{{{ steps.check.outputs.{name} }}}}" and spec["description"], name
    assert set(outputs) == set(output_values(shop_report)) | {"pull-request"}
    assert {v.value for v in Verdict} <= set(outputs)


# -- the sweep's memory, kept between runs by actions/cache -------------------------------------------------------

_CONDITION = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*) (==|!=) '([^']*)'")


def step_runs(step: dict[str, Any], context: dict[str, Any]) -> bool:
    """A step's `if:` as Actions evaluates the forms action.yml uses: `a.b.c == 'x'` (or `!=`; strings compare
    case-insensitively, a missing value is ''), `!cancelled()` in a run not cancelled, joined by `&&`."""
    condition = step.get("if", "success()").strip()
    if condition.startswith("${{") and condition.endswith("}}"):
        condition = condition[3:-2].strip()
    result = True
    for term in (t.strip() for t in condition.split("&&")):
        if term in ("!cancelled()", "always()", "success()"):  # the steps before ran, as the save step needs
            continue
        found = _CONDITION.fullmatch(term)
        assert found is not None, f"unsupported condition {term!r}"
        value: Any = context
        for part in found[1].split("."):
            value = value.get(part, "") if isinstance(value, dict) else ""
        equal = str(value).lower() == found[3].lower()
        result = result and (equal if found[2] == "==" else not equal)
    return result


def _expressions(value: Any) -> list[str]:
    return re.findall(r"\$\{\{\s*(.*?)\s*\}\}", json.dumps(value))


def test_the_memory_is_restored_before_the_check_and_saved_after(action: dict[str, Any]) -> None:
    steps = {s["id"]: s for s in action["runs"]["steps"]}
    order = [s["id"] for s in action["runs"]["steps"]]
    restore, save = steps["restore"], steps["save"]
    assert order.index("memory") < order.index("restore") < order.index("check") < order.index("save")
    # Pinned by commit, as zizmor's unpinned-uses asks (scripts/lint_workflows.sh); the tag is in a comment.
    assert re.fullmatch(r"actions/cache/restore@[0-9a-f]{40}", restore["uses"])
    assert save["uses"] == restore["uses"].replace("/restore@", "/save@")
    folder = "${{ steps.memory.outputs.folder }}"
    assert restore["with"]["path"] == save["with"]["path"] == folder  # the folder git names (below)
    # the memory step names the cache (tests/faces/test_action_cache.py: signed or not, the runner, the ref, the commit)
    assert restore["with"]["key"] == "${{ steps.memory.outputs.key }}"
    assert restore["with"]["restore-keys"] == "${{ steps.memory.outputs.restore-keys }}"
    assert save["with"]["key"] == "${{ steps.restore.outputs.cache-primary-key }}"
    # inputs reach the cache only through the memory step's `env:`, never spliced into a `with:` or a script
    for step in (restore, save):
        assert all(e.startswith(("steps.", "!cancelled()")) for e in _expressions(step))
    assert steps["memory"]["env"] == {"INPUT_PATH": "${{ inputs.path }}", "SIGNED": "${{ inputs.cache-key != '' }}"}
    assert steps["check"]["env"]["INPUT_CACHE"] == "${{ inputs.cache }}"


@pytest.mark.parametrize("cache", ["true", "false", "False"])
def test_cache_false_skips_the_cache_steps_and_the_memory(action: dict[str, Any], cache: str) -> None:
    steps = {s["id"]: s for s in action["runs"]["steps"]}
    on = cache == "true"
    context: dict[str, Any] = {"inputs": {"cache": cache}, "steps": {}}
    assert step_runs(steps["memory"], context) is on
    if on:  # the memory step names the folder; a check that ran sets its outputs
        context["steps"]["memory"] = {"outputs": {"folder": "/w/.git/wikiwarden"}}
        context["steps"]["check"] = {"outputs": {"claims": "3"}}
    assert step_runs(steps["restore"], context) is on
    assert step_runs(steps["save"], context) is on
    assert read_inputs({"INPUT_CACHE": cache}).cache is on  # and the check runs without the memory


def test_the_cache_is_saved_once_the_check_ran_and_not_over_an_exact_hit(action: dict[str, Any]) -> None:
    save = next(s for s in action["runs"]["steps"] if s.get("id") == "save")
    ran = {"memory": {"outputs": {"folder": "/w/.git/wikiwarden"}}, "check": {"outputs": {"claims": "0"}}}
    assert step_runs(save, {"inputs": {"cache": "true"}, "steps": ran})  # after a failing check too
    hit = {**ran, "restore": {"outputs": {"cache-hit": "true"}}}
    assert not step_runs(save, {"inputs": {"cache": "true"}, "steps": hit})
    skipped = {**ran, "check": {"outputs": {}}}  # a tag push, or a step that could not check: no memory written
    assert not step_runs(save, {"inputs": {"cache": "true"}, "steps": skipped})


def _memory_step(action: dict[str, Any], tmp_path: Path, workspace: Path, path: str) -> dict[str, str]:
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "memory")
    script, output = tmp_path / "memory.sh", tmp_path / "memory-output"
    script.write_text(step["run"])
    output.write_text("")
    env = {
        "PATH": os.environ["PATH"], "GITHUB_WORKSPACE": str(workspace), "GITHUB_OUTPUT": str(output),
        "INPUT_PATH": path, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(tmp_path), "SIGNED": "false", "GITHUB_REF": "refs/heads/main",
        "GITHUB_SHA": "a" * 40, "RUNNER_OS": "Linux",
    }  # fmt: skip
    subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], env=env, check=True, cwd=tmp_path)
    outputs = parse_output_file(output.read_text())  # and the cache's name: tests/faces/test_action_cache.py
    return {"folder": outputs["folder"]} if "folder" in outputs else outputs


def test_the_memory_step_names_the_folder_the_check_keeps_its_memory_in(
    action: dict[str, Any], repo: GitRepo, tmp_path: Path
) -> None:
    build_shop(repo)
    _step_without((), repo, tmp_path)  # the Action's check, which keeps its memory
    with GitRepository(repo.root) as git:
        kept = (git.common_dir() / "wikiwarden").resolve()
    assert (kept / "evidence-index-v1.json").is_file()
    assert _memory_step(action, tmp_path, repo.root, ".") == {"folder": str(kept)}
    assert _memory_step(action, tmp_path, repo.root.parent, repo.root.name) == {"folder": str(kept)}  # `path`
    # a checkout that is a linked worktree: its `.git` is a file, the memory is in the common git directory
    linked = tmp_path / "linked checkout"
    repo.git("worktree", "add", "-q", "--detach", str(linked))
    assert (linked / ".git").is_file()
    assert _memory_step(action, tmp_path, tmp_path, "linked checkout") == {"folder": str(kept)}
    # no repository there, or a path meant as code: no folder, nothing run
    (tmp_path / "plain").mkdir()
    assert _memory_step(action, tmp_path, tmp_path, "plain") == {}
    assert _memory_step(action, tmp_path, tmp_path, "$(touch pwned)") == {}
    assert not (tmp_path / "pwned").exists()


def test_the_action_keeps_its_memory_unless_cache_is_false(repo: GitRepo, tmp_path: Path) -> None:
    build_shop(repo)
    folder = repo.root / ".git" / "wikiwarden"
    off = _step_without((), repo, tmp_path, conclusion="neutral", cache="false")
    assert (off.returncode, off.stderr) == (0, "") and not folder.exists()
    on = _step_without((), repo, tmp_path, conclusion="neutral")
    assert (on.returncode, on.stderr) == (0, "") and (folder / "evidence-index-v1.json").is_file()
    again = _step_without((), repo, tmp_path, conclusion="neutral")  # with the memory: the same report
    assert _readable_report(again.stdout) == _readable_report(on.stdout) == _readable_report(off.stdout)


def _readable_report(stdout: str) -> str:
    """The report the step prints between workflow commands turned off and on again."""
    token = stdout.split("::stop-commands::", 1)[1].split("\n", 1)[0]
    return stdout.split(f"::stop-commands::{token}\n", 1)[1].split(f"\n::{token}::", 1)[0]


# A stand-in for setup-python's interpreter: `-I -m venv DIR` makes DIR/bin/python (itself), any other call is
# logged (a venv made without -I too, which fails the test), so the install step's own shell runs as written,
# without a network or a package index.
STAND_IN_PYTHON = """#!/bin/sh
if [ "$1" = "-I" ] && [ "$2" = "-m" ] && [ "$3" = "venv" ]; then mkdir -p "$4/bin" && cp "$0" "$4/bin/python"; exit 0; fi
printf '%s\\n' "$@" > "$CALLS"
"""


@pytest.mark.parametrize(
    ("fix", "model", "requirement"),
    [
        ("false", "", "/opt/actions/wikiwarden"),
        ("true", "", "/opt/actions/wikiwarden[app]"),
        ("false", "gpt-x", "/opt/actions/wikiwarden[agent]"),
        ("true", "gpt-x", "/opt/actions/wikiwarden[app,agent]"),
        ("true", "none", "/opt/actions/wikiwarden[app]"),  # `none` is no model: no model's client
        ("false", "None", "/opt/actions/wikiwarden"),
    ],
)
def test_the_install_step_adds_the_extras_of_what_is_asked(
    action: dict[str, Any], tmp_path: Path, fix: str, model: str, requirement: str
) -> None:
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "install")
    assert step["env"] == {
        "SETUP_PYTHON": "${{ steps.python.outputs.python-path }}", "WANTS_FIX": "${{ inputs.fix }}",
        "WANTS_MODEL": "${{ inputs.model }}",
    }  # fmt: skip
    python = tmp_path / "python"
    python.write_text(STAND_IN_PYTHON)
    python.chmod(0o755)
    script, output, calls = tmp_path / "install.sh", tmp_path / "output", tmp_path / "calls"
    script.write_text(step["run"])
    env = {
        "PATH": os.environ["PATH"], "SETUP_PYTHON": str(python), "WANTS_FIX": fix, "WANTS_MODEL": model,
        "GITHUB_ACTION_PATH": "/opt/actions/wikiwarden", "RUNNER_TEMP": str(tmp_path), "GITHUB_OUTPUT": str(output),
        "CALLS": str(calls),
    }  # fmt: skip
    subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], env=env, check=True)
    venv_python = tmp_path / "wikiwarden-venv" / "bin" / "python"
    assert calls.read_text().splitlines() == [
        "-I", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", requirement
    ]  # fmt: skip
    assert output.read_text() == f"python={venv_python}\n"


# -- the step without the App's extra --------------------------------------------------------------------------


def _step_without(
    modules: tuple[str, ...], repo: GitRepo, tmp_path: Path, since: str = "v1", **inputs: str
) -> subprocess.CompletedProcess[str]:
    """`wikiwarden action` for a push from `since` to the repository's last commit, in a fresh interpreter where
    `modules` cannot be imported (the extra that brings them is not installed)."""
    before, after = repo.git("rev-parse", since, "HEAD").split()
    event = tmp_path / "event.json"
    event.write_text(json.dumps(push(created=False, before=before, after=after)))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("WIKIWARDEN_", "GITHUB_", "INPUT_"))},
        "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "Codertocat/Hello-World",
        "GITHUB_WORKSPACE": str(repo.root), "GITHUB_OUTPUT": str(tmp_path / "output"),
        **{f"INPUT_{name.upper()}": value for name, value in inputs.items()},
    }  # fmt: skip
    code = (
        "import sys\n"
        f"for name in {modules!r}:\n"
        "    sys.modules[name] = None\n"
        "from bot.cli import main\n"
        "sys.exit(main(['action']))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, check=False
    )


APP_EXTRA = ("aiohttp", "gidgethub", "arq", "jwt", "pythonjsonlogger")
AGENT_EXTRA = ("openai",)


def test_the_check_needs_neither_the_app_nor_the_agent_extra(repo: GitRepo, tmp_path: Path) -> None:
    build_shop(repo)
    repo.write(".github/wikiwarden.yml", "conclusion: neutral\n")  # read without the App's modules too
    repo.commit("config")
    done = _step_without(APP_EXTRA + AGENT_EXTRA, repo, tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert " file=src/shop/cart.py,line=3," in done.stdout  # the stale tax rate, annotated where it changed
    assert parse_output_file((tmp_path / "output").read_text())["stale"] == "1"


def test_the_readable_report_names_each_commit_once(repo: GitRepo, tmp_path: Path) -> None:
    """The step's labels already carry the commit (`master (1a2b…)`, a push's base `1a2b…`): the report's header
    shows each commit's digits once, as `wikiwarden check` does."""
    build_shop(repo)
    before, after = repo.git("rev-parse", "v1", "HEAD").split()
    done = _step_without((), repo, tmp_path, conclusion="neutral")
    assert (done.returncode, done.stderr) == (0, "")
    [header] = [line for line in done.stdout.splitlines() if line.startswith("Wikiwarden check · ")]
    assert header == f"Wikiwarden check · openwiki/ · head: master ({after[:12]}) · base: {before[:12]}"


def test_the_fix_without_the_app_extra_says_what_to_install(repo: GitRepo, tmp_path: Path) -> None:
    build_shop(repo)
    done = _step_without(APP_EXTRA, repo, tmp_path, fix="true", token="ghs_x", conclusion="neutral")
    assert done.returncode == 2 and done.stderr == ""
    assert done.stdout.splitlines()[-1] == (
        "::error title=Wikiwarden::fix: true needs the app extra (aiohttp is not installed): pip install "
        "'wikiwarden[app]'"
    )


def test_the_docs_workflow_is_ready_to_use(action: dict[str, Any]) -> None:
    section = (ACTION_YML.parent / "docs" / "action.md").read_text()
    block = re.search(r"`\.github/workflows/wikiwarden\.yml`:\n\n```yaml\n(.*?)```", section, re.S)
    assert block is not None
    workflow = YAML(typ="safe").load(block[1])
    assert set(workflow[True if True in workflow else "on"]) == {"push", "pull_request"}  # YAML 1.1 reads `on` as true
    assert workflow["permissions"] == {"contents": "write", "pull-requests": "write"}
    checkout, wikiwarden = workflow["jobs"]["wiki"]["steps"]
    assert checkout["uses"].startswith("actions/checkout@") and checkout["with"]["fetch-depth"] == 0
    assert wikiwarden["uses"].startswith("wikiwarden/wikiwarden@") and set(wikiwarden["with"]) <= set(action["inputs"])
    for name in action["inputs"]:  # every input is documented in the section's table
        assert re.search(rf"^\| [^|]*`{name}`", section, re.M), name


def test_a_failed_fix_is_said_in_words() -> None:
    from http import HTTPStatus

    import aiohttp
    from gidgethub import BadRequest, GitHubBroken

    from bot.action.fix import fix_problem
    from bot.github.api.publish import BranchRace

    refused = BadRequest(HTTPStatus.FORBIDDEN, "Resource not accessible by integration")
    assert fix_problem(refused).startswith(
        "GitHub refused it (403 Forbidden: Resource not accessible by integration). The token must be allowed to "
        "write contents and pull requests"
    )
    unprocessable = BadRequest(HTTPStatus.UNPROCESSABLE_ENTITY, "Validation Failed")
    assert fix_problem(unprocessable) == "GitHub refused it (422 Unprocessable Entity: Validation Failed)."
    assert fix_problem(BranchRace("wikiwarden/fix/main")) == (
        "the branch wikiwarden/fix/main was created by someone else meanwhile; run the workflow again."
    )
    assert fix_problem(aiohttp.ServerDisconnectedError()) == (
        "GitHub could not be reached (ServerDisconnectedError) and kept failing after retries."
    )
    assert fix_problem(GitHubBroken(HTTPStatus.BAD_GATEWAY)) == (
        "GitHub answered 502 (Bad Gateway) and kept doing so after retries."
    )
    assert fix_problem(TimeoutError()) == "GitHub did not answer in time."


# -- a hostile event payload -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "the event payload is nested too deeply to read"),
        (b'{"a": ' * 100_000 + b"1" + b"}" * 100_000, "the event payload is nested too deeply to read"),
        (b'{"ref": "refs/heads/x", ', "cannot read the event payload GITHUB_EVENT_PATH names: JSONDecodeError"),
    ],
    ids=["arrays", "objects", "cut-short"],
)
def test_an_event_payload_that_cannot_be_read_is_said_in_one_line(
    tmp_path: Path, payload: bytes, problem: str
) -> None:
    event = tmp_path / "event.json"
    event.write_bytes(payload)
    out = io.StringIO()
    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "o/r"}
    assert run_action(env, out) == 2
    assert out.getvalue() == f"::error title=Wikiwarden::{problem}\n"


def test_the_examples_pin_a_release_never_a_branch() -> None:
    # The README's and the docs' YAML examples teach what users copy: the Action by its major tag (moved to every
    # release of it by .github/workflows/release.yml), the hook by this release's tag; never `@main` or `rev: main`.
    import bot

    root = ACTION_YML.parent
    major, version = bot.__version__.split(".")[0], bot.__version__
    texts = {path: path.read_text() for path in [root / "README.md", *sorted((root / "docs").rglob("*.md"))]}
    uses = [(p, m) for p, t in texts.items() for m in re.findall(r"^\s+- uses: wikiwarden/wikiwarden@(\S+)", t, re.M)]
    hooks = [(p, t) for p, t in texts.items() if "wikiwarden/wikiwarden" in t]
    revs = [(p, m) for p, t in hooks for m in re.findall(r"^\s+rev: (\S+)", t, re.M)]
    assert uses and revs
    assert all(ref == f"v{major}" for _, ref in uses), uses
    assert all(rev == f"v{version}" for _, rev in revs), revs
