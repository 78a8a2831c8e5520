"""What every job needs to know of the delivery that caused it: the installation and the repository."""

from __future__ import annotations

from typing import Any


def repo_fields(data: dict[str, Any]) -> dict[str, Any]:
    repo = data["repository"]
    return {
        "installation_id": data["installation"]["id"],
        "repo": repo["full_name"],
        "repo_id": repo["id"],
        "html_url": repo.get("html_url"),
    }
