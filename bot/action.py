"""The GitHub Action's one step (`wikiwarden action`, run by `action.yml`): check the change the workflow's event
describes in the checkout, report it the ways Actions shows things (annotations, the job summary, step outputs,
the exit status), and, when asked, propose the App's own fix pull request with the workflow's token.

Everything the runner hands over is read here: the event payload (`GITHUB_EVENT_PATH`), the runner's variables
and the action's inputs (`INPUT_*`, mapped in `action.yml`). The decisions are pure functions (the event to the
commits to compare, the outputs, the exit status); the check and the fix are the use cases every face runs.

The payload and the repository are untrusted. The payload is read into the App's payload models
(`bot.github.payloads`), and branch names are checked again before git's command line sees them; every workflow
command is escaped (`bot.claims.ci`); the readable report is printed between `::stop-commands::` markers, so no
line of a page can act as a command; outputs are written with a delimiter that is not in their value. The token
is only handed to the GitHub client, never printed.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import secrets
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from pydantic import ValidationError

from .claims.ci import workflow_command
from .claims.pages import normalize_wiki_dir
from .claims.verdicts import Verdict
from .extras import missing_extra
from .github.events import Change, Skipped, pull_request_change, pull_request_skipped, push_change
from .github.payloads import WorkflowEvent, WorkflowPullRequest, WorkflowPullRequestNumber, WorkflowPush

if TYPE_CHECKING:
    from .agent.factory import AgentFactory
    from .claims.results import SweepReport
    from .fix.engine import Decider
    from .github.client import GitHubClient
    from .source.git import GitRepository
    from .source.github import GitHubSnapshot, GitHubSource
    from .usecases.config_file import RepoConfig

GITHUB_ACTIONS_LOGIN = "github-actions[bot]"  # who commits and opens pull requests with the workflow's GITHUB_TOKEN
CONCLUSIONS = ("neutral", "failure", "action_required")  # RepoConfig.conclusion's values
DEFAULT_CONCLUSION = "failure"  # a step passes or fails: a check that never fails the job is easily missed
SUMMARY_BYTES = 1 << 20  # GitHub refuses a step's job summary above 1 MiB
FIX_SUMMARY_BYTES = 16 << 10  # the fix's section of the summary, kept free for it when fix is on (a few lines)
EVENT_BYTES = 64 << 20  # a payload is a few kilobytes; GitHub sends at most 25 MB
EXIT_OK, EXIT_ATTENTION, EXIT_ERROR = 0, 1, 2
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # SHA-1, or a SHA-256 repository
_FULL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
W = TypeVar("W", bound=WorkflowEvent)


class ActionError(Exception):
    """The step cannot run as configured, or its event cannot be read: said in one line, exit status 2."""


# -- the inputs ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionInputs:
    """The action's inputs as `action.yml` passes them (`INPUT_*`); an empty value is an input left unset."""

    path: str = "."
    wiki_dir: str | None = None  # None: the config's `wiki_dir`, else openwiki
    conclusion: str | None = None  # None: the config's `conclusion` when it sets one, else DEFAULT_CONCLUSION
    fix: bool = False
    token: str | None = field(default=None, repr=False)
    bot_login: str = GITHUB_ACTIONS_LOGIN
    model: str | None = None
    openai_base_url: str | None = None
    openai_api_key: str | None = field(default=None, repr=False)
    mutation_spacing_seconds: float = 1.0
    cache: bool = True  # the sweep's memory in the checkout's git directory (action.yml keeps it between runs)


def _flag(name: str, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    raise ActionError(f"input {name} must be true or false, not {value.strip()[:40]!r}")


def read_inputs(env: Mapping[str, str]) -> ActionInputs:
    """The inputs from the environment, checked (ActionError naming the input that cannot be used)."""

    def given(name: str) -> str | None:
        value = env.get(f"INPUT_{name}", "").strip()
        return value or None

    conclusion = given("CONCLUSION")
    if conclusion is not None and conclusion not in CONCLUSIONS:
        raise ActionError(f"input conclusion must be one of {', '.join(CONCLUSIONS)}, not {conclusion[:40]!r}")
    wiki_dir = given("WIKI_DIR")
    if wiki_dir is not None:
        try:
            wiki_dir = normalize_wiki_dir(wiki_dir)
        except ValueError as exc:
            raise ActionError(f"input wiki-dir: {exc}") from None
    spacing = env.get("WIKIWARDEN_MUTATION_SPACING_SECONDS", "").strip() or "1.0"
    try:
        mutation_spacing = float(spacing)
    except ValueError:
        mutation_spacing = math.nan
    if not math.isfinite(mutation_spacing):
        raise ActionError("WIKIWARDEN_MUTATION_SPACING_SECONDS must be a number of seconds")
    return ActionInputs(
        path=given("PATH") or ".",
        wiki_dir=wiki_dir,
        conclusion=conclusion,
        fix=_flag("fix", given("FIX") or "false"),
        token=given("TOKEN"),
        bot_login=given("BOT_LOGIN") or GITHUB_ACTIONS_LOGIN,
        model=given("MODEL"),
        openai_base_url=given("OPENAI_BASE_URL"),
        openai_api_key=given("OPENAI_API_KEY"),
        mutation_spacing_seconds=max(mutation_spacing, 0.0),
        cache=_flag("cache", given("CACHE") or "true"),
    )


# -- the event -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EventChange:
    """What the workflow's event asks to check, by the rules the App reads the same event with
    (`bot.github.events`): the commit, the change it is compared through, and where a fix would go."""

    event: str
    head: str | None  # None: nothing to check (`skipped` says why)
    head_label: str | None = None
    base: str | None = None  # a commit, or (a new branch) the default branch's name; None: every claim
    base_label: str | None = None
    merge_base: bool = True  # compare from where head left base, as a pull request does; False: tree to tree
    target: str | None = None  # the branch a fix goes to; None for a fork's pull request
    pr_number: int | None = None
    repository_id: int | None = None
    skipped: str | None = None
    sender: str | None = None  # who caused the event


def _name(value: str, where: str) -> str:
    """A branch or ref name git sees on its command line: never an option, nor a control character."""
    if len(value) > 1024 or _CONTROL.search(value) or value[0] == "-":
        raise ActionError(f"the event payload's {where} is not a branch name")
    return value


def _refused(exc: ValidationError) -> ActionError:
    """The first field of the payload that does not fit, named in the Action's words."""
    where = ".".join(str(part) for part in exc.errors(include_url=False)[0]["loc"])
    field = where.rpartition(".")[2]
    if where == "pull_request":
        return ActionError("the event payload has no pull_request")
    if field == "number":
        return ActionError(f"the event payload's {where} is not a number")
    if field in ("sha", "before", "after"):
        return ActionError(f"the event payload's {where} is not a commit id")
    if field in ("ref", "default_branch"):
        return ActionError(f"the event payload's {where} is not a branch name")
    return ActionError(f"the event payload's {where or 'body'} does not fit its event")


def _parsed(model: type[W], payload: Mapping[str, Any]) -> W:
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        raise _refused(exc) from None


def change_from_event(event: str, payload: Mapping[str, Any], sha: str | None = None) -> EventChange:
    """The change to check for `event` (GITHUB_EVENT_NAME) and its payload, by the App's rules
    (`bot.github.events`); `sha` (GITHUB_SHA) is checked as a whole for any other event (a schedule, a manual
    run)."""
    if event == "push":
        return _push(_parsed(WorkflowPush, payload))
    if event == "pull_request":
        return _pull_request(payload)
    surrounding = _parsed(WorkflowEvent, payload)
    if sha and not _SHA.fullmatch(sha):
        raise ActionError("the event payload's GITHUB_SHA is not a commit id")
    if not sha:
        raise ActionError(f"a {event} event names no commit to check (GITHUB_SHA is not set)")
    return EventChange(event, sha, head_label=sha[:12], merge_base=False, **_who(surrounding))


def _who(event: WorkflowEvent) -> dict[str, Any]:
    """The repository's id and the sender's login, where the payload names them."""
    return {
        "repository_id": event.repository.id if event.repository else None,
        "sender": event.sender.login if event.sender else None,
    }


def _from(event: str, change: Change | Skipped, surrounding: WorkflowEvent) -> EventChange:
    if isinstance(change, Skipped):
        return EventChange(event, None, skipped=change.reason)
    return EventChange(
        event, change.head, head_label=change.head_label, base=change.base, base_label=change.base_label,
        merge_base=change.merge_base, target=change.target, pr_number=change.pr_number, **_who(surrounding),
    )  # fmt: skip


def _push(push: WorkflowPush) -> EventChange:
    _name(push.ref, "ref")
    default = push.repository.default_branch if push.repository else None
    change = push_change(push, default)
    if not isinstance(change, Skipped) and default is not None:
        _name(default, "repository.default_branch")
    return _from("push", change, push)


def _pull_request(payload: Mapping[str, Any]) -> EventChange:
    numbered = _parsed(WorkflowPullRequestNumber, payload)  # the number first: even a closed one's skip says it
    number = numbered.pull_request.number
    skipped = pull_request_skipped(numbered.action, number)
    if skipped is not None:
        return EventChange("pull_request", None, pr_number=number, skipped=skipped.reason)
    event = _parsed(WorkflowPullRequest, payload)
    _name(event.pull_request.head.ref, "pull_request.head.ref")
    _name(event.pull_request.base.ref, "pull_request.base.ref")
    own = event.repository.full_name if event.repository else None
    return _from("pull_request", pull_request_change(event.pull_request, own), event)


# -- what the step reports -------------------------------------------------------------------------------------


def conclusion_for(inputs: ActionInputs, configured: str | None) -> str:
    """The input's conclusion, else the one `.github/wikiwarden.yml` sets (`configured`), else DEFAULT_CONCLUSION."""
    return inputs.conclusion or configured or DEFAULT_CONCLUSION


def exit_status(needs_attention: bool, conclusion: str) -> int:
    """A job step has no neutral or "action required" state: neutral passes (the annotations and the summary still
    say what needs attention), failure and action_required fail the step."""
    return EXIT_ATTENTION if needs_attention and conclusion != "neutral" else EXIT_OK


def output_values(report: SweepReport) -> dict[str, str]:
    """The step's outputs for a check: claims per verdict, and the counts a workflow branches on."""
    summary = report.summary
    values = {verdict.value: str(summary[verdict.value]) for verdict in Verdict}
    values.update(
        claims=str(summary["claims"]),
        touched=str(summary["touched"]),
        **{"broken-references": str(summary["broken_references"]), "unreadable-sidecars": str(summary["page_errors"])},
    )
    values["needs-attention"] = "true" if report.needs_attention else "false"
    return values


def format_outputs(values: Mapping[str, str], delimiter: str) -> str:
    """`GITHUB_OUTPUT` lines in the multi-line form (`name<<DELIMITER`), so no value can end its own entry early or
    write another output: the delimiter must not be a line of any value (the caller draws a random one)."""
    lines = []
    for name, value in values.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name):
            raise ValueError(f"not an output name: {name!r}")
        if delimiter in value.splitlines() or delimiter in name:
            raise ValueError("the delimiter occurs in an output")
        lines += [f"{name}<<{delimiter}", value, delimiter]
    return "\n".join(lines) + "\n" if lines else ""


def escaped(text: str) -> str:
    """Text as the step writes it: a name git handed over undecoded (not UTF-8: lone surrogates) with those bytes
    as `\\udcxx` escapes, as the command line prints them (its streams' `backslashreplace`); nothing else changes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def job_summary(report: SweepReport, limit_bytes: int = SUMMARY_BYTES) -> str:
    """The check run's Markdown report, cut (safely: never inside a fence or a claim) to fit a job summary of
    `limit_bytes`, names that are not UTF-8 escaped."""
    from .claims.report import render_markdown  # noqa: PLC0415 - with the rest of the report's code

    limit = limit_bytes
    while True:
        text = escaped(render_markdown(report, limit=limit))
        size = len(text.encode())
        if size <= limit_bytes or limit == 0:
            return text
        # Non-ASCII text takes more bytes than characters: cut in proportion, and always by something.
        limit = max(min(limit - 1, limit * limit_bytes // size), 0)


def fix_summary(text: str, url: str | None, limit_bytes: int = FIX_SUMMARY_BYTES) -> str:
    """The fix's section of the job summary (`text` is inert Markdown: the App's note on its check run), at most
    `limit_bytes` (the room the report left it: longer, the note is cut at a line)."""
    link = f"\n\n{escaped(url)}" if url else ""
    section = f"\n### Wikiwarden fix\n\n{escaped(text)}{link}\n"
    if len(section.encode()) <= limit_bytes:
        return section
    cut = "\n\n_…cut here to fit._"
    room = limit_bytes - len(f"\n### Wikiwarden fix\n\n{cut}{link}\n".encode())
    kept = escaped(text).encode()[: max(room, 0)].decode("utf-8", "ignore")
    kept = kept[: kept.rfind("\n")] if "\n" in kept else ""
    return f"\n### Wikiwarden fix\n\n{kept}{cut}{link}\n"


def why_no_fix(change: EventChange, bot_login: str, report: SweepReport) -> str | None:
    """Why a run asked to fix proposes nothing (None: it proposes the fix). The fix follows a push or a pull
    request (a fork's: the fix itself says why there is none); never the bot's own push, as the App ignores its
    own events; and only when the check found evidence to re-anchor or a claim to re-verify."""
    if change.event not in ("push", "pull_request"):
        return f"No fix: the fix follows push and pull_request events, not {change.event}."
    if change.sender is not None and change.sender == bot_login:
        return f"No fix: {bot_login} caused this event, as it does by pushing a fix."
    acted_on = (Verdict.MOVED, Verdict.COSMETIC, Verdict.STALE, Verdict.UNRESOLVED)
    if not any(claim.verdict in acted_on for _, claim in report.claims()):
        return "Nothing to fix: no claim has evidence to re-anchor or to re-verify."
    return None


# -- the step ----------------------------------------------------------------------------------------------------


@dataclass
class Runner:
    """Where the step writes: the log (workflow commands), the job summary and the outputs files."""

    out: TextIO
    summary_path: str | None
    output_path: str | None

    def command(self, command: str, message: str, **properties: str | int | None) -> None:
        self.out.write(escaped(workflow_command(command, message, **properties)) + "\n")

    def error(self, message: str) -> None:
        self.command("error", message, title="Wikiwarden")

    def log_untrusted(self, title: str, text: str) -> None:
        """Print text holding repository content, with workflow commands off while it is printed: the runner
        acts on no line of it until it sees the random token that turns them back on."""
        token = secrets.token_hex(16)
        text = escaped(text.rstrip())
        self.out.write(f"::group::{title}\n::stop-commands::{token}\n{text}\n::{token}::\n::endgroup::\n")

    def append_summary(self, markdown: str) -> None:
        if self.summary_path:
            with open(self.summary_path, "a", encoding="utf-8") as summary:
                summary.write(escaped(markdown))

    def set_outputs(self, values: Mapping[str, str]) -> None:
        if self.output_path:
            safe = {name: escaped(value) for name, value in values.items()}
            text = format_outputs(safe, f"ghadelimiter_{secrets.token_hex(16)}")
            with open(self.output_path, "a", encoding="utf-8") as outputs:
                outputs.write(text)


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
    from .claims.errors import ClaimsError  # noqa: PLC0415 - what the check may raise on purpose
    from .claims.pages import WikiFolderError  # noqa: PLC0415
    from .source.git import GitError, GitRepository  # noqa: PLC0415

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
        elif not await _fix(env, inputs, change, repository, config, runner):
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
    from .claims.fanout import usable_processors  # noqa: PLC0415
    from .ground.baseline import BaselineError  # noqa: PLC0415
    from .usecases.check import check_commit, local_memory  # noqa: PLC0415
    from .usecases.config import Overrides  # noqa: PLC0415
    from .usecases.config_file import ConfigError  # noqa: PLC0415

    assert change.head is not None

    def base_missing() -> None:
        runner.command(
            "warning",
            f"The base {change.base_label or change.base} is not in the checkout (a force-push's old commit, or a "
            "branch actions/checkout did not fetch): every claim is checked instead.",
            title="Wikiwarden",
        )

    # The sweep's memory, as `wikiwarden check` keeps it; action.yml restores it before this step and saves it
    # after. It only ever spares reading: a damaged one is replaced, saying so in the log.
    memory = (
        local_memory(repo, lambda note: runner.command("notice", note, title="Wikiwarden cache"))
        if inputs.cache
        else None
    )
    try:
        # a one-shot process on the runner's processors, like `wikiwarden check`: a large full sweep shares them
        report, settings = await check_commit(
            repo, change.head, change.base, head_label=change.head_label, base_label=change.base_label,
            merge_base=change.merge_base, overrides=Overrides(wiki_dir=inputs.wiki_dir), memory=memory,
            processes=usable_processors(), base_missing=base_missing,
        )  # fmt: skip
    except (ConfigError, BaselineError) as exc:
        raise ActionError(str(exc)) from None
    configured = settings.file.conclusion if settings.file and "conclusion" in settings.file.model_fields_set else None
    return report, settings.repo_config(), configured


def _report(report: SweepReport, runner: Runner, summary_bytes: int) -> None:
    from .claims.report import render  # noqa: PLC0415

    runner.log_untrusted("Wikiwarden check", render(report, "text"))
    runner.out.write(escaped(render(report, "github", attention_only=True)))
    runner.append_summary(job_summary(report, summary_bytes))
    runner.set_outputs(output_values(report))


# -- the fix, through the App's own code -----------------------------------------------------------------------


async def _fix(
    env: Mapping[str, str],
    inputs: ActionInputs,
    change: EventChange,
    repository: str,
    config: RepoConfig,
    runner: Runner,
) -> bool:
    """Propose the fix as the App does (`bot.github.fixing.propose_fix`), with the workflow's token; False when it
    could not be proposed (an `::error::` says why)."""
    try:  # the App's GitHub client: action.yml installs the app extra when fix is on
        import aiohttp  # noqa: PLC0415
        from gidgethub import GitHubException  # noqa: PLC0415

        from .github.client import GitHubClient, MutationGate  # noqa: PLC0415
        from .github.fixing import propose_fix  # noqa: PLC0415
        from .github.publish import BranchRace  # noqa: PLC0415
        from .jobs.requests import FixRequest, RepoRef  # noqa: PLC0415
    except ModuleNotFoundError as exc:
        raise ActionError(missing_extra(exc, "app", "fix: true")) from None

    api = (env.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    graphql = env.get("GITHUB_GRAPHQL_URL") or f"{api}/graphql"
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    assert change.head is not None
    request = FixRequest(
        # The workflow's token belongs to an installation of GitHub Actions whose id the step is never told; the
        # fix reads only the repository's name and address.
        repo=RepoRef(
            installation_id=0, full_name=repository, id=change.repository_id or 0, html_url=f"{server}/{repository}"
        ),
        head_sha=change.head,
        target=change.target,
        base=change.base,
        base_label=change.base_label,
        merge_base=change.merge_base,
        pr_number=change.pr_number,
    )
    async with aiohttp.ClientSession() as session:
        gh = GitHubClient(
            session,
            oauth_token=inputs.token,
            base_url=api,
            gate=MutationGate(inputs.mutation_spacing_seconds),  # GitHub asks for about a second between writes
        )
        host = TokenHost(inputs, graphql, config)
        try:
            status = await propose_fix(host, gh, request)
        except (GitHubException, aiohttp.ClientError, TimeoutError, BranchRace) as exc:  # else a bug: its traceback
            runner.error(f"Wikiwarden could not propose the fix: {fix_problem(exc)}")
            return False
        finally:
            await host.close()
    runner.command("notice", status.text, title="Wikiwarden fix")
    runner.append_summary(fix_summary(status.text, status.url))
    runner.set_outputs({"pull-request": status.url or ""})
    return True


def fix_problem(exc: Exception) -> str:
    """A failed fix in words: GitHub's refusal with what usually causes it, a race for the branch, GitHub out of
    reach, or what the App says of a rate limit, a 5xx or a timeout."""
    import aiohttp  # noqa: PLC0415

    from .github.checks import explain  # noqa: PLC0415
    from .github.failures import refusal  # noqa: PLC0415
    from .github.publish import BranchRace  # noqa: PLC0415

    refused = refusal(exc)
    if refused is not None:
        hint = ""
        if refused.status in (401, 403, 404):
            hint = (
                " The token must be allowed to write contents and pull requests (`permissions: contents: write, "
                "pull-requests: write` in the workflow), and for the workflow's GITHUB_TOKEN the repository must "
                "allow GitHub Actions to create pull requests (Settings, Actions, General, Workflow permissions)."
            )
        return f"GitHub refused it ({refused.phrase}: {refused.message}).{hint}"
    if isinstance(exc, BranchRace):
        return f"{exc}; run the workflow again."
    if isinstance(exc, aiohttp.ClientError):
        return f"GitHub could not be reached ({type(exc).__name__}) and kept failing after retries."
    return explain(exc)


class TokenHost:
    """The fix's host in a workflow (`bot.github.fixing.FixHost`): one repository; the config the check used (the
    same commit's file, not bounded by an operator's limits: the repository is its own operator here); the model
    the inputs name (none: re-anchoring only); and the token's login as the bot's."""

    def __init__(self, inputs: ActionInputs, graphql_url: str, config: RepoConfig) -> None:
        from .source.github import SourceCache  # noqa: PLC0415
        from .source.memory import SharedIndex  # noqa: PLC0415

        self.inputs = inputs
        self.graphql_url = graphql_url
        self.config = config
        self.cache = SourceCache()
        self.evidence = SharedIndex()  # one workflow run's: nothing outlives it
        self.agents = _agents(inputs)

    def source(self, gh: GitHubClient, full_name: str) -> GitHubSource:
        from .source.github import GitHubSource  # noqa: PLC0415

        return GitHubSource(gh, full_name, self.graphql_url, self.cache)

    async def bot_login(self) -> str:
        return self.inputs.bot_login

    async def repo_config(self, source: GitHubSource, head: GitHubSnapshot) -> RepoConfig:
        return self.config

    async def close(self) -> None:
        await self.agents.close()


class _NoModel:
    """No model configured: the fix does the deterministic work (re-anchoring) only, as the App does without one."""

    def agent(
        self, repo: str, model: str | None = None, *, per_run: int | None = None, per_day: int | None = None,
        repo_id: int | None = None,
    ) -> Decider | None:  # fmt: skip
        return None

    async def close(self) -> None:
        return None


def _agents(inputs: ActionInputs) -> AgentFactory | _NoModel:
    if inputs.model is None:
        return _NoModel()
    from pydantic import SecretStr  # noqa: PLC0415

    from .settings import ModelSettings  # noqa: PLC0415

    try:
        from .agent.factory import AgentFactory  # noqa: PLC0415 - the model's client: the agent extra
    except ModuleNotFoundError as exc:
        raise ActionError(missing_extra(exc, "agent", "a model")) from None

    key = SecretStr(inputs.openai_api_key) if inputs.openai_api_key else None
    return AgentFactory(ModelSettings(model=inputs.model, openai_base_url=inputs.openai_base_url, openai_api_key=key))
