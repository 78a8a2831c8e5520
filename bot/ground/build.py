"""From a page's checked grounding to the files to write: its sidecar (byte-compatible with OpenWiki), its prose
(corrected where the code contradicted it), its OKF `sources`, `generated` and `verified`, and its quotes file."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from ..claims.sidecar import Claim, Sidecar, page_version, render_sidecar
from ..claims.snippet import front_matter_moved
from ..okf.frontmatter import FrontMatterError
from ..okf.project import project_sources, project_verified, stamp_generated
from .answer import Unsupported
from .check import CheckedGrounding, claim_id
from .quotes import Quotes, quotes_path, render_quotes


@dataclass
class PageGrounding:
    """What grounding did to one page, and the files that say so."""

    page: str
    added: list[Claim] = field(default_factory=list)
    corrected: bool = False  # its prose was corrected where the code contradicted it
    unsupported: list[Unsupported] = field(default_factory=list)  # statements left for a person
    refused: list[tuple[str, str]] = field(default_factory=list)  # (statement, why) of claims the checks refused
    problem: str | None = None  # why nothing could be done (the model failed, the page cannot be edited)
    files: dict[str, bytes] = field(default_factory=dict)


def ground_page(
    page: str,
    text: str,
    sidecar_path: str,
    sidecar: Sidecar | None,
    checked: CheckedGrounding,
    taken: Collection[str],
    quotes: Quotes,
    *,
    wiki_dir: str,
    actor: str,
    at: str,
    existing_hold: bool = True,
    accepted: bool = True,
    okf_front_matter: bool = True,
) -> PageGrounding:
    """Add the accepted claims (ids derived from page and statement, never one already `taken`) to the page's
    sidecar and write what follows from them. `verified` is stamped only when every claim of the page holds
    (`existing_hold` for the claims it had) and nothing was refused or left unsupported. `accepted`: whether the
    checks accepted the answer as a whole (else `checked` is the last answer refused, of which what passed is kept).
    `okf_front_matter`: whether the page is an OKF wiki's (else its front matter is left as its author wrote it:
    `bot.ground.writing`)."""
    result = PageGrounding(page, unsupported=list(checked.unsupported), refused=list(checked.refused))
    old = list(sidecar.claims) if sidecar else []
    used = set(taken)
    kept_quotes = dict(quotes.quotes)
    for statement in checked.claims:
        new_id = claim_id(page, statement.statement, used)
        used.add(new_id)
        claim = Claim(new_id, statement.statement, statement.evidence)
        result.added.append(claim)
        kept_quotes[new_id] = statement.quote
    claims = old + result.added
    final = text
    if result.added or checked.text != text:
        complete = existing_hold and not result.refused and not result.unsupported and bool(claims)
        try:
            new_text = checked.text
            if okf_front_matter:
                new_text = project_sources(new_text, [r.resource for c in claims for r in c.evidence])
                new_text = stamp_generated(text, new_text, actor, at)
                new_text = project_verified(new_text, (actor, at) if complete else None)
        except FrontMatterError as exc:
            result.problem = f"the page's front matter cannot be updated ({exc}); nothing written"
            return result
        result.corrected = checked.text != text
        final = new_text
        claims = front_matter_moved(claims, checked.text, new_text)  # a copied block's page line moves with it
        result.added = [c for c in claims if c.id in {a.id for a in result.added}]
        content = new_text.encode("utf-8")
        # The sidecar's `verification` is OpenWiki's record of its own reconciliation, which OpenWiki 0.4 projects
        # into `verified` next to every other producer's event: Wikiwarden's record there would be projected again
        # beside its own front-matter event at each OpenWiki run. So it is kept as OpenWiki left it, never written.
        previous = sidecar.verification if sidecar else None
        new_sidecar = Sidecar(page_version(content), tuple(claims), previous if claims else None)
        if new_text != text:
            result.files[page] = content
        if sidecar is None or new_sidecar != sidecar:
            result.files[sidecar_path] = render_sidecar(new_sidecar)
    # Read whole only when the answer was accepted and nothing in it refused: a page whose answer was refused (not
    # JSON, a refused edit, every claim refused) is asked again, not taken for a page that states nothing the code
    # shows.
    grounded = page_version(final.encode()) if accepted and not result.refused else quotes.grounded
    wanted = Quotes({c.id: kept_quotes[c.id] for c in claims if c.id in kept_quotes}, grounded)
    if wanted != quotes:
        result.files[quotes_path(page, wiki_dir)] = render_quotes(wanted)
    return result
