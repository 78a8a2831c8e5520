"""What the jobs that propose a pull request (the fix, the grounding) share around their work: the check run to
report on, and a failure turned into one note on it, in words (a permanent one is not tried again)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ...jobs import Attempt, Job
from ...jobs.requests import FixRequest, GroundRequest
from ...report.inert import prose
from ..api.check_runs import find_check_run, note_on_check_run
from ..api.client import GitHubClient
from ..api.failures import permanent_text
from ..content.check_output import explain
from ..content.pull_requests import ProposalKind, ProposalStatus

if TYPE_CHECKING:
    from ..runtime import AppRuntime

log = logging.getLogger(__name__)


async def run_proposal(
    rt: AppRuntime,
    job: Job,
    attempt: Attempt,
    kind: ProposalKind,
    work: Callable[[GitHubClient], Awaitable[ProposalStatus]],
) -> None:
    """Run `work` for the job's request, then say on its check run what came of it. A failure is noted on the run
    on the last try only (earlier ones are tried again), or at once when no retry can cure it."""
    request = job.request
    assert isinstance(request, FixRequest | GroundRequest)
    repo_name, head_sha = request.repo.full_name, request.head_sha
    gh = await rt.client(request.repo.installation_id)  # an uninstalled App fails here for good: no run to tell
    run_id = request.check_run_id
    label = kind.noun.capitalize()
    try:
        if run_id is None:
            run_id = await find_check_run(gh, repo_name, head_sha, rt.settings.app_id)
        status = await work(gh)
    except Exception as exc:
        permanent = await rt.permanent_failure(request.repo, exc)
        if permanent is None and not attempt.final:
            log.warning("%s failed, to be tried again: %s", kind.noun, type(exc).__name__, extra={"head": head_sha})
            raise
        if permanent is None:  # expected failures are logged once, in words, by the queue
            log.exception("%s failed", kind.noun, extra={"repo": repo_name, "head": head_sha, "delivery": job.delivery})
        if run_id is not None:  # the run can still be reached: say why on it
            text = permanent_text(str(permanent)) if permanent is not None else explain(exc)
            try:
                note = f"Wikiwarden could not propose a {kind.noun}: {prose(text)}"
                async with rt.note_lock(run_id):
                    await note_on_check_run(gh, repo_name, run_id, note, None, kind.name, label)
            except Exception:
                if permanent is None:  # else it is the same refusal again: the queue's line says it
                    log.exception(
                        "could not report the failed %s on the check run", kind.noun, extra={"repo": repo_name}
                    )
        if permanent is not None:
            raise permanent from exc
        raise
    if run_id is not None:
        async with rt.note_lock(run_id):
            await note_on_check_run(gh, repo_name, run_id, status.text, status.url, kind.name, label)
