"""The claims core, pure: evidence resources and versions, locating spans, sidecars, and the sweep.

The names below are loaded on first use (PEP 562), so importing one small module of the package (its errors, its
page rules) does not load the whole engine: the command line's start-up stays short.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .errors import EvidenceResourceError, EvidenceSecurityError, SidecarError
    from .evidence import Resolution, resolve_evidence, track_evidence
    from .resources import canonical_resource
    from .track import Tracked
    from .verdicts import OpenWikiVerdict, Verdict

_EXPORTS = {
    "EvidenceResourceError": ".errors",
    "EvidenceSecurityError": ".errors",
    "SidecarError": ".errors",
    "Resolution": ".evidence",
    "resolve_evidence": ".evidence",
    "track_evidence": ".evidence",
    "canonical_resource": ".resources",
    "Tracked": ".track",
    "OpenWikiVerdict": ".verdicts",
    "Verdict": ".verdicts",
}

__all__ = [
    "EvidenceResourceError",
    "EvidenceSecurityError",
    "OpenWikiVerdict",
    "Resolution",
    "SidecarError",
    "Tracked",
    "Verdict",
    "canonical_resource",
    "resolve_evidence",
    "track_evidence",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value
