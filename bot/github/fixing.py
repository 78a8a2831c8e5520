"""The fix job: the "Fix wiki" button and auto-fix pushes land here.

NOT IMPLEMENTED YET (issue 5): the job is queued and reaches this module, which says so on the check run
instead of pretending to fix anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..jobs import Job
from .checks import CHECK_NAME

if TYPE_CHECKING:
    from .runtime import AppRuntime

NOT_YET = (
    "The fix is not available in this version of Wikiwarden yet: the request was received and queued, but "
    "no pull request will be opened. Correct the claims by hand (`wikiwarden claim confirm` / `retract`)."
)


async def run_fix(rt: AppRuntime, job: Job) -> None:
    data = job.data
    gh = await rt.client(int(data["installation_id"]))
    owner, name = data["repo"].split("/", 1)
    run_id = data.get("check_run_id")
    if run_id is not None:
        await gh.post(
            "/repos/{owner}/{repo}/check-runs",
            url_vars={"owner": owner, "repo": name},
            data={
                "name": f"{CHECK_NAME} fix",
                "head_sha": data["head_sha"],
                "status": "completed",
                "conclusion": "neutral",
                "output": {"title": "The wiki fix is not available yet", "summary": NOT_YET},
            },
        )
