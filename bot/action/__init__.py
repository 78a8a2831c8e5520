"""The GitHub Action's one step (`wikiwarden action`, run by `action.yml`): check the change the workflow's event
describes in the checkout, report it the ways Actions shows things (annotations, the job summary, step outputs,
the exit status), and, when asked, propose the App's own fix pull request with the workflow's token.

Everything the runner hands over is read here: the event payload (`GITHUB_EVENT_PATH`), the runner's variables
and the action's inputs (`INPUT_*`, mapped in `action.yml`). The decisions are pure functions (the event to the
commits to compare, the outputs, the exit status); the check and the fix are the use cases every face runs.

This module is the step; its parts: `inputs` (the action's inputs), `event` (the change the event asks to check),
`outputs` (the log, the job summary, the outputs, the exit status), `fix` (the fix, proposed as the App does).

The payload and the repository are untrusted. The payload is read into the App's payload models
(`bot.github.payloads`), and branch names are checked again before git's command line sees them; every workflow
command is escaped (`bot.report.ci`); the readable report is printed between `::stop-commands::` markers, so no
line of a page can act as a command; outputs are written with a delimiter that is not in their value. The token
is only handed to the GitHub client, never printed.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .event import EventChange, change_from_event
from .fix import propose, why_no_fix
from .inputs import ActionError, ActionInputs, conclusion_for, read_inputs
from .outputs import (
    EXIT_ERROR,
    EXIT_OK,
    FIX_SUMMARY_BYTES,
    SUMMARY_BYTES,
    Runner,
    escaped,
    exit_status,
    job_summary,
    output_values,
)

if TYPE_CHECKING:
    from ..claims.results import SweepReport
    from ..source.git import GitRepository
    from ..usecases.config_file import RepoConfig

NO_CACHE_KEY = (
    "No cache-key: only a cache this branch or pull request saved under its own name is restored, and its files "
    "are checked against their digests only. A job that may save this repository's caches (a run on the default "
    "branch, pull_request_target, another step of this job) could plant one that changes the verdict: give "
    "cache-key a secret, and only a cache signed with it is used."
)
EVENT_BYTES = 64 << 20  # a payload is a few kilobytes; GitHub sends at most 25 MB
_FULL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")


def run_action(env: Mapping[str, str], out: TextIO = sys.stdout) -> int:
    """The step: 0 when nothing needs attention (or the conclusion is neutral), 1 when something does, 2 when
    the step could not check or could not propose the fix it was asked for (an `::error::` says why)."""
    runner = Runner(out, env.get("GITHUB_STEP_SUMMARY") or None, env.get("GITHUB_OUTPUT") or None)
    try:
        return asyncio.run(_run(env, runner))
    except ActionError as exc:
        runner.error(str(exc))
        return EXIT_ERROR
    finally:
        out.flush()


def _event(env: Mapping[str, str]) -> tuple[EventChange, str]:
    """The event's change, and the repository (`owner/name`) the step runs for."""
    name, path, repository = env.get("GITHUB_EVENT_NAME"), env.get("GITHUB_EVENT_PATH"), env.get("GITHUB_REPOSITORY")
    if not name or not path or not repository:
        raise ActionError("not running as a GitHub Actions step: GITHUB_EVENT_NAME, _EVENT_PATH or _REPOSITORY unset")
    if not _FULL_NAME.fullmatch(repository):
        raise ActionError("GITHUB_REPOSITORY is not owner/name")
    try:
        with open(path, "rb") as handle:
            raw = handle.read(EVENT_BYTES + 1)
        if len(raw) > EVENT_BYTES:
            raise ActionError("the event payload is too large to read")
        payload = json.loads(raw)
    except RecursionError:  # the parser's own depth guard (the interpreter's recursion limit): a hostile payload
        raise ActionError("the event payload is nested too deeply to read") from None
    except (OSError, ValueError) as exc:
        raise ActionError(f"cannot read the event payload GITHUB_EVENT_PATH names: {type(exc).__name__}") from None
    if not isinstance(payload, dict):
        raise ActionError("the event payload is not a JSON object")
    return change_from_event(name, payload, env.get("GITHUB_SHA")), repository


async def _run(env: Mapping[str, str], runner: Runner) -> int:
    from ..claims.errors import ClaimsError  # noqa: PLC0415 - what the check may raise on purpose
    from ..claims.pages import WikiFolderError  # noqa: PLC0415
    from ..source.git import GitError, GitRepository  # noqa: PLC0415

    inputs = read_inputs(env)
    change, repository = _event(env)
    if change.skipped is not None:
        runner.command("notice", change.skipped, title="Wikiwarden")
        return EXIT_OK
    if inputs.fix and not inputs.token:
        raise ActionError("fix: true needs a token that may write contents and pull requests (input token)")
    assert change.head is not None
    workspace = Path(env.get("GITHUB_WORKSPACE") or ".")
    try:
        repo = GitRepository(workspace / inputs.path)
    except GitError as exc:
        raise ActionError(f"the checkout: {exc}") from None
    with repo:
        try:
            report, config, configured = await _check(repo, change, inputs, runner)
        except (GitError, WikiFolderError, ClaimsError) as exc:
            raise ActionError(_checkout_problem(repo, exc)) from None
    conclusion = conclusion_for(inputs, configured)
    # The fix's section is written after the fix: the report leaves it room, so the whole stays within the limit.
    _report(report, runner, SUMMARY_BYTES - FIX_SUMMARY_BYTES if inputs.fix else SUMMARY_BYTES)
    status = exit_status(report.needs_attention, conclusion)
    if inputs.fix:
        no_fix = why_no_fix(change, inputs.bot_login, report)
        if no_fix is not None:
            runner.command("notice", no_fix, title="Wikiwarden fix")
        elif not await propose(env, inputs, change, repository, config, runner):
            return EXIT_ERROR
    return status


def _checkout_problem(repo: GitRepository, exc: Exception) -> str:
    """Why the checkout could not be checked, first of all when its history is too shallow to hold the commits."""
    message = " ".join(str(exc).split())
    if repo.is_shallow():
        return (
            "The checkout is too shallow for this check: set `fetch-depth: 0` on actions/checkout (it fetches one "
            f"commit by default), so the commits this event compares are in it. ({message})"
        )
    return message


async def _check(
    repo: GitRepository, change: EventChange, inputs: ActionInputs, runner: Runner
) -> tuple[SweepReport, RepoConfig, str | None]:
    """The use case's check of the event's change in the checkout; the config it was checked with (the inputs
    over `.github/wikiwarden.yml`), and the conclusion the file sets (None when it sets none)."""
    from ..claims.ignore import IgnoreLimitError  # noqa: PLC0415
    from ..ground.baseline import BaselineError  # noqa: PLC0415
    from ..parallel import usable_processors  # noqa: PLC0415
    from ..source.memory import CacheKeyError, cache_key  # noqa: PLC0415
    from ..usecases.check import check_commit, local_memory  # noqa: PLC0415
    from ..usecases.config import Overrides  # noqa: PLC0415
    from ..usecases.config_file import ConfigError  # noqa: PLC0415

    assert change.head is not None

    def base_missing() -> None:
        runner.command(
            "warning",
            f"The base {change.base_label or change.base} is not in the checkout (a force-push's old commit, or a "
            "branch actions/checkout did not fetch): every claim is checked instead.",
            title="Wikiwarden",
        )

    # The sweep's memory, as `wikiwarden check` keeps it; action.yml restores it before this step and saves it
    # after. It only ever spares reading: a file that does not verify (under `cache-key` when given) is not used
    # and is replaced, saying so in the log.
    try:
        key = cache_key(inputs.cache_key)
    except CacheKeyError as exc:
        raise ActionError(f"input cache-key: {exc}") from None
    memory = None
    if inputs.cache:
        memory = local_memory(repo, lambda note: runner.command("notice", note, title="Wikiwarden cache"), key)
        if key is None:  # said in the log, not as an annotation: every run without the key would carry one
            runner.out.write(f"Wikiwarden cache: {NO_CACHE_KEY}\n")
    try:
        # a one-shot process on the runner's processors, like `wikiwarden check`: a large full sweep shares them
        report, settings = await check_commit(
            repo, change.head, change.base, head_label=change.head_label, base_label=change.base_label,
            merge_base=change.merge_base, overrides=Overrides(wiki_dir=inputs.wiki_dir), memory=memory,
            processes=usable_processors(), base_missing=base_missing,
        )  # fmt: skip
    except (ConfigError, BaselineError, IgnoreLimitError) as exc:
        raise ActionError(str(exc)) from None
    configured = settings.file.conclusion if settings.file and "conclusion" in settings.file.model_fields_set else None
    return report, settings.repo_config(), configured


def _report(report: SweepReport, runner: Runner, summary_bytes: int) -> None:
    from ..report.check import render  # noqa: PLC0415

    runner.log_untrusted("Wikiwarden check", render(report, "text"))
    runner.out.write(escaped(render(report, "github", attention_only=True)))
    runner.append_summary(job_summary(report, summary_bytes))
    runner.set_outputs(output_values(report))
