"""The grounding pull request, decided without I/O: which pages a run grounds, what it proposes (its key, for the
no-reproposal rule), its title and body, and what the check run says. The branch, the marker and the publication
rules are the fix's (`pull_requests.py`, kind `GROUND`).

- A run grounds the pages the open grounding pull request already proposes (their accepted answers come back
  from the answer cache at no cost) and at most `max_pages_per_ground` more, in OpenWiki's page order: a later
  run continues where the last one stopped, in the same pull request, until it is merged.
- The key is what the grounding decides (claims, their evidence, corrected prose, statements left unsupported),
  not its timestamps or the model's words, so the same grounding of a later commit is the same proposal.
- Every untrusted string (page names, statements, quotes, the model's reasons, the branch) goes through
  `bot.report.inert`: `plain` in the title, `code`, `prose` and `fence` in the body.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

from ...claims.pages import CLAIMS_DIR, page_for
from ...fix.engine import Usage
from ...ground.build import PageGrounding
from ...ground.quotes import QUOTES_DIR, QuotesError, parse_quotes, quotes_path
from ...ground.work import GroundWork
from ...okf.frontmatter import FrontMatterError, Page
from ...report.fix import BODY_LIMIT, Link, model_line
from ...report.inert import code, fence, plain, prose
from ...report.wording import plural
from .pull_requests import GROUND


class Grounded(Protocol):
    """What a grounding run did (the use case's `GroundResult`): every page, the pages left, the model's cost."""

    @property
    def pages(self) -> Sequence[PageGrounding]: ...

    @property
    def waiting(self) -> Sequence[str]: ...

    @property
    def usage(self) -> Usage: ...

    @property
    def model(self) -> str | None: ...


_DIFF_LINES = 24
_CUT_NOTE = "\n_…the list was cut here to fit; the pull request's files hold every page it grounds._\n"


def proposed_pages(paths: Collection[str], wiki_dir: str) -> set[str]:
    """The pages whose grounding files (the page, its sidecar, its quotes file) are among `paths`."""
    pages = set()
    claims, quotes = f"{wiki_dir}/{CLAIMS_DIR}/", f"{wiki_dir}/{QUOTES_DIR}/"
    for path in paths:
        if path.startswith(claims) and path.endswith(".json"):
            pages.add(page_for(path, wiki_dir))
        elif path.startswith(quotes) and path.endswith(".json"):
            pages.add(f"{wiki_dir}/{path[len(quotes) : -len('.json')]}.md")
        elif path.startswith(f"{wiki_dir}/") and path.endswith(".md"):
            pages.add(path)
    return pages


def next_batch(
    work: Sequence[GroundWork], waiting: Sequence[str], proposed: Collection[str], size: int
) -> tuple[list[GroundWork], list[str]]:
    """The pages this run grounds (of `work`, in page order): those the open pull request proposes, and at most
    `size` others; the others wait, in order, before `waiting`, for a later run."""
    kept, extra, others = [], [], 0
    for item in work:
        if item.page in proposed:
            kept.append(item)
        elif others < size:
            kept.append(item)
            others += 1
        else:
            extra.append(item.page)
    return kept, [*extra, *waiting]


def _body_of(text: str) -> str:
    try:
        return Page.parse(text).body
    except FrontMatterError:
        return text


def _new_text(page: PageGrounding) -> str | None:
    data = page.files.get(page.page)
    return data.decode("utf-8", "replace") if data is not None else None


def grounding_key(pages: Sequence[PageGrounding]) -> str:
    """What a grounding decides, without its timestamps, reasons or costs: equal keys are the same proposal."""
    decided = []
    for page in pages:
        if not page.files:
            continue  # nothing proposed for it
        new = _new_text(page)
        corrected = hashlib.sha256(_body_of(new).encode()).hexdigest() if page.corrected and new else ""
        decided.append(
            (
                page.page,
                [(c.id, c.statement, [r.resource for r in c.evidence]) for c in page.added],
                corrected,
                sorted(u.quote for u in page.unsupported),
            )
        )
    return hashlib.sha256(json.dumps(sorted(decided)).encode()).hexdigest()[:32]


def ground_counts(pages: Sequence[PageGrounding]) -> str:
    """What the grounding does, counted: pages, claims added, pages corrected, statements left for a person."""
    parts = [plural(len(pages), "page"), plural(sum(len(p.added) for p in pages), "claim") + " added"]
    for count, one, many in (
        (sum(1 for p in pages if p.corrected), "page corrected", "pages corrected"),
        (sum(len(p.unsupported) for p in pages), "statement unsupported", "statements unsupported"),
        (sum(len(p.refused) for p in pages), "claim refused", "claims refused"),
        (sum(1 for p in pages if p.problem), "page not grounded", "pages not grounded"),
    ):
        if count:
            parts.append(plural(count, one, many))
    return ", ".join(parts)


def ground_tail(result: Grounded) -> str:
    """What the check run adds about what is left: statements and pages for a person, pages for the next run."""
    tail = ""
    statements = sum(len(p.unsupported) + len(p.refused) for p in result.pages)
    if statements:
        tail += " " + plural(statements, "statement needs a person.", "statements need a person.")
    failed = sum(1 for p in result.pages if p.problem)
    if failed:
        tail += " " + plural(failed, "page was not grounded.", "pages were not grounded.")
    if result.waiting:
        more = plural(len(result.waiting), "more page without claims waits", "more pages without claims wait")
        tail += f" {more} for the next run."
    return tail


def _correction(before: str | None, page: PageGrounding) -> list[str]:
    """The prose the grounding corrected, as a diff in a fence no line of it can close."""
    new = _new_text(page)
    if before is None or new is None:
        return []
    lines = list(difflib.unified_diff(_body_of(before).splitlines(), _body_of(new).splitlines(), lineterm="", n=0))
    lines = [line for line in lines[2:] if not line.startswith("@@")]
    if len(lines) > _DIFF_LINES:
        lines = [*lines[:_DIFF_LINES], f"… {plural(len(lines) - _DIFF_LINES, 'more diff line')}"]
    marker = fence("\n".join(lines))
    shown = [f"  {line}" for line in lines]
    return [
        "",
        "  <details><summary>what changed</summary>",
        "",
        f"  {marker}diff",
        *shown,
        f"  {marker}",
        "  </details>",
        "",
    ]


def _page_block(page: PageGrounding, before: str | None, wiki_dir: str, link: Link | None) -> list[str]:
    lines = ["", f"### {code(page.page)}", ""]
    quotes_file = quotes_path(page.page, wiki_dir)
    quotes: dict[str, str] = {}
    if quotes_file in page.files:
        with contextlib.suppress(QuotesError):  # this run wrote it; were it unreadable, the claims show without quotes
            quotes = parse_quotes(page.files[quotes_file], quotes_file).quotes
    for claim in page.added:
        lines.append(f"- [x] **added** “{prose(claim.statement)}” · {code(claim.id)}")
        quote = quotes.get(claim.id)
        evidence = []
        for record in claim.evidence:
            url = link(record.resource, "now") if link else None
            evidence.append(code(record.resource) + (f" ([now]({url}))" if url else ""))
        lines.append("  " + (f"Quote: “{prose(quote)}”. " if quote else "") + "Evidence: " + ", ".join(evidence))
    if page.corrected:
        lines.append("- [x] **corrected**: the prose now says what the code shows")
        lines += _correction(before, page)
    lines += [f"- [ ] **unsupported** “{prose(u.quote)}”: {prose(u.reason)}" for u in page.unsupported]
    lines += [f"- [ ] **refused** “{prose(statement)}”: {prose(why)}" for statement, why in page.refused]
    if page.problem:
        lines.append(f"- [ ] **not grounded**: {prose(page.problem)}")
    if not (page.added or page.corrected or page.unsupported or page.refused or page.problem):
        lines.append("Nothing to claim: the page states nothing the code shows (it is not asked about again "
                     "until it changes).")  # fmt: skip
    return lines


def ground_body(
    result: Grounded,
    before: Mapping[str, str],
    *,
    heading: str,
    marker: str,
    wiki_dir: str,
    link: Link | None = None,
) -> str:
    """Every page of the run: claims added (with the page text each grounds and its evidence), prose corrected,
    statements left unsupported, claims refused, pages that could not be grounded; then what waits and what it
    cost. Cut between pages below GitHub's limit."""
    head = [marker, f"## {heading}", "", ground_counts(result.pages).capitalize() + "."]
    tail = [""]
    if result.waiting:
        more = plural(len(result.waiting), "more page without claims waits", "more pages without claims wait")
        tail += [f"{more} for the next run (**Ground wiki** again, or the next push with `ground: auto`).", ""]
    if result.model:
        tail.append(model_line(result.model, result.usage))
    else:
        tail.append("No model is configured: nothing could be grounded.")
    budget = BODY_LIMIT - len("\n".join(head + tail)) - len(_CUT_NOTE) - 2
    lines = list(head)
    for page in result.pages:
        block = _page_block(page, before.get(page.page), wiki_dir, link)
        size = len("\n".join(block)) + 1
        if size > budget:
            lines.append(_CUT_NOTE)
            break
        budget -= size
        lines += block
    return "\n".join(lines + tail) + "\n"


def ground_proposal(
    result: Grounded, before: Mapping[str, str], *, target: str, fixed: str, wiki_dir: str, link: Link | None
) -> tuple[str, str, str]:
    """The grounding's key, the pull request's title and its body."""
    key = grounding_key(result.pages)
    body = ground_body(
        result, before, heading=f"Wikiwarden: grounding the wiki of {code(target)}", marker=GROUND.marker(None, key),
        wiki_dir=wiki_dir, link=link,
    )  # fmt: skip
    title = f"Wiki grounding of {plain(target)} {fixed[:7]}: {ground_counts(result.pages)}"[:250]
    return key, title, body
