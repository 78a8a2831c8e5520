"""Errors of the claims core, named after OpenWiki's so their meaning carries over."""


class ClaimsError(Exception):
    """Base class of every error the claims core raises on purpose."""


class EvidenceResourceError(ClaimsError, ValueError):
    """A `repo://` evidence resource that cannot be accepted (syntax, reserved path, escape, ignored)."""


class EvidenceSecurityError(ClaimsError):
    """Evidence that resolves through a symlink: refused so it cannot be mistaken for a missing file."""


class SidecarError(ClaimsError, ValueError):
    """A claims sidecar that does not satisfy schema v1; the message names the file and the problem."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem
