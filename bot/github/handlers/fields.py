"""What every job needs to know of the delivery that caused it: the installation and the repository."""

from __future__ import annotations

from typing import Any

from ...jobs.requests import RepoRef


def repo_ref(data: dict[str, Any]) -> RepoRef:
    repo = data["repository"]
    return RepoRef(
        installation_id=data["installation"]["id"],
        full_name=repo["full_name"],
        id=repo["id"],
        html_url=repo.get("html_url"),
    )
