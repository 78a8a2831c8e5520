"""The check run's calls to GitHub: find ours on a commit, start it, complete it with its content
(`content/check_output.py` decides it) within GitHub's limits (50 annotations per request, the rest appended by
further updates), and put a proposal's note on it."""

from __future__ import annotations

from typing import Any

from ..content.check_output import CHECK_NAME, CheckOutput, with_note
from .client import GitHubClient

ANNOTATIONS_PER_REQUEST = 50


async def find_check_run(gh: GitHubClient, repo: str, head_sha: str, app_id: int) -> int | None:
    """Our run on this commit, if one exists (so a second analysis updates it instead of adding one)."""
    owner, name = repo.split("/", 1)
    found = await gh.getitem(
        "/repos/{owner}/{repo}/commits/{ref}/check-runs{?check_name,app_id}",
        url_vars={"owner": owner, "repo": name, "ref": head_sha, "check_name": CHECK_NAME, "app_id": str(app_id)},
    )
    runs = [r for r in found.get("check_runs", []) if r.get("name") == CHECK_NAME]
    return max((r["id"] for r in runs), default=None)


async def start_check_run(gh: GitHubClient, repo: str, head_sha: str, external_id: str) -> int:
    owner, name = repo.split("/", 1)
    created = await gh.post(
        "/repos/{owner}/{repo}/check-runs",
        url_vars={"owner": owner, "repo": name},
        data={
            "name": CHECK_NAME,
            "head_sha": head_sha,
            "status": "in_progress",
            "external_id": external_id,
            "output": {"title": "Checking the wiki's claims", "summary": "Wikiwarden is reading the change."},
        },
    )
    return int(created["id"])


async def complete_check_run(gh: GitHubClient, repo: str, run_id: int, output: CheckOutput) -> None:
    """Finish the run: the first 50 annotations with the conclusion, the rest in further updates."""
    owner, name = repo.split("/", 1)
    url = "/repos/{owner}/{repo}/check-runs/{run_id}"
    url_vars = {"owner": owner, "repo": name, "run_id": str(run_id)}
    batches = [
        output.annotations[i : i + ANNOTATIONS_PER_REQUEST]
        for i in range(0, len(output.annotations), ANNOTATIONS_PER_REQUEST)
    ] or [[]]
    body: dict[str, Any] = {
        "status": "completed",
        "conclusion": output.conclusion,
        "output": {"title": output.title, "summary": output.summary, "annotations": batches[0]},
        "actions": output.actions,
    }
    await gh.patch(url, url_vars=url_vars, data=body)
    for batch in batches[1:]:  # annotations are appended by each update
        await gh.patch(
            url,
            url_vars=url_vars,
            data={"output": {"title": output.title, "summary": output.summary, "annotations": batch}},
        )


async def note_on_check_run(
    gh: GitHubClient, repo: str, run_id: int, text: str, url: str | None = None, name: str = "fix", label: str = "Fix"
) -> None:
    """Say on the check run what a fix (or grounding: `name`, `label`) did, and link the run to the pull request
    (its details link)."""
    owner, short = repo.split("/", 1)
    url_vars = {"owner": owner, "repo": short, "run_id": str(run_id)}
    run = await gh.getitem("/repos/{owner}/{repo}/check-runs/{run_id}", url_vars=url_vars)
    output = run.get("output") or {}
    body: dict[str, Any] = {
        "output": {
            "title": output.get("title") or CHECK_NAME,
            "summary": with_note(output.get("summary") or "", text, url, name, label),
        }
    }
    if url:
        body["details_url"] = url
    await gh.patch("/repos/{owner}/{repo}/check-runs/{run_id}", url_vars=url_vars, data=body)
