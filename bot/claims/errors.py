"""Errors of the claims core, named after OpenWiki's so their meaning carries over, and the problem type the
sweep returns where it cannot evaluate something."""

from typing import NamedTuple


class ClaimsError(Exception):
    """Base class of every error the claims core raises on purpose."""


class EvidenceResourceError(ClaimsError, ValueError):
    """A `repo://` evidence resource that cannot be accepted (syntax, reserved path, escape, ignored)."""


class EvidenceSecurityError(ClaimsError):
    """Evidence that resolves through a symlink: refused so it cannot be mistaken for a missing file."""


class UnreadableFileError(ClaimsError):
    """A file a snapshot lists but cannot produce (a blob a partial clone or a trimmed mirror lacks): an error on
    the claims or the page that need it, never the end of the run."""


class SidecarError(ClaimsError, ValueError):
    """A claims sidecar that does not satisfy schema v1; the message names the file and the problem."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class Problem(NamedTuple):
    """Why a file or a resource cannot be evidence, in words: returned rather than raised, so a sweep goes on
    and reports it on the one claim it concerns."""

    message: str

    def __str__(self) -> str:
        return self.message
