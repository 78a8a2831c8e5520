"""The claims core, pure: evidence resources and versions, locating spans, sidecars, and the sweep."""

from .errors import EvidenceResourceError, EvidenceSecurityError, SidecarError
from .evidence import Resolution, resolve_evidence, track_evidence
from .resources import canonical_resource
from .track import Tracked
from .verdicts import OpenWikiVerdict, Verdict

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
