"""What every job needs to know of the delivery that caused it: the installation and the repository."""

from __future__ import annotations

from ...jobs.requests import RepoRef
from ..payloads import RepositoryEvent


def repo_ref(payload: RepositoryEvent) -> RepoRef:
    repo = payload.repository
    return RepoRef(
        installation_id=payload.installation.id, full_name=repo.full_name, id=repo.id, html_url=repo.html_url
    )
