"""Hand-kept claims as pure sidecar edits, with OpenWiki's semantics: add appends, confirm keeps the
position and re-baselines the evidence, retract removes; the page version is re-hashed on every write."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .errors import ClaimsError, EvidenceResourceError
from .resources import canonical_resource
from .sidecar import Claim, EvidenceRecord, Sidecar, js_trim, new_claim_id, page_version


class ClaimEditError(ClaimsError, ValueError):
    """A hand edit that cannot be made (empty statement, unknown id, duplicate evidence, a statement the page
    already makes)."""


def _check_evidence(evidence: Sequence[EvidenceRecord]) -> tuple[EvidenceRecord, ...]:
    if not evidence:
        raise ClaimEditError("a claim needs at least one evidence resource")
    seen: set[str] = set()
    for record in evidence:
        key = canonical_resource(record.resource)
        if key in seen:
            raise ClaimEditError(f"evidence {record.resource} is listed twice")
        seen.add(key)
    return tuple(evidence)


def _resources(evidence: Iterable[EvidenceRecord]) -> set[str]:
    """The resources of some evidence, canonical when they parse (a stored one may not: then as written)."""
    found: set[str] = set()
    for record in evidence:
        try:
            found.add(canonical_resource(record.resource))
        except EvidenceResourceError:
            found.add(record.resource)
    return found


def _check_new_statement(claims: Iterable[Claim], statement: str, evidence: Sequence[EvidenceRecord]) -> None:
    """A page states a thing once: the same statement (after trimming) is one claim, whatever its evidence, as
    grounding keeps a page's statements distinct. Two claims of one statement would be checked apart, one reading
    fresh while the other is stale; a person adding evidence means the one claim with more of it."""
    for claim in claims:
        if claim.statement != statement:
            continue
        if _resources(claim.evidence) == _resources(evidence):
            raise ClaimEditError(f"the page already has this claim with this evidence: {claim.id}; nothing written")
        cited = ", ".join(sorted(_resources(claim.evidence)))
        raise ClaimEditError(
            f"the page already states this as {claim.id}, with other evidence ({cited}); one statement is one claim: "
            f"`wikiwarden claim retract {claim.id}`, then add it with all its evidence; nothing written"
        )


def add_claim(
    sidecar: Sidecar | None,
    page: bytes,
    statement: str,
    evidence: Sequence[EvidenceRecord],
    taken_ids: Iterable[str] = (),
) -> tuple[Sidecar, Claim]:
    """Append a new claim with a fresh id (unique across `taken_ids`, i.e. the whole wiki). The page must not
    state the same already (`_check_new_statement`)."""
    statement = js_trim(statement)
    if not statement:
        raise ClaimEditError("the statement is empty")
    claims = sidecar.claims if sidecar else ()
    checked = _check_evidence(evidence)
    _check_new_statement(claims, statement, checked)
    claim = Claim(new_claim_id({*taken_ids, *(c.id for c in claims)}), statement, checked)
    verification = sidecar.verification if sidecar else None
    return Sidecar(page_version(page), (*claims, claim), verification), claim


def replace_evidence(sidecar: Sidecar, page: bytes, claim_id: str, evidence: Sequence[EvidenceRecord]) -> Sidecar:
    """The claim keeps its id, statement and position; its evidence is replaced (confirm re-baselines)."""
    index = _index(sidecar, claim_id)
    claims = list(sidecar.claims)
    claims[index] = Claim(claim_id, claims[index].statement, _check_evidence(evidence))
    return Sidecar(page_version(page), tuple(claims), sidecar.verification)


def retract_claim(sidecar: Sidecar, page: bytes, claim_id: str) -> Sidecar:
    """Remove the claim; a page left with no claims loses its verification record, as in OpenWiki."""
    index = _index(sidecar, claim_id)
    remaining = sidecar.claims[:index] + sidecar.claims[index + 1 :]
    return Sidecar(page_version(page), remaining, sidecar.verification).with_claims(remaining)


def _index(sidecar: Sidecar, claim_id: str) -> int:
    for index, claim in enumerate(sidecar.claims):
        if claim.id == claim_id:
            return index
    raise ClaimEditError(f"no claim {claim_id} on this page")
