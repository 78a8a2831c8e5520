"""The one rule for writing into a person's docs, in one place: Wikiwarden writes a page only where a command's
purpose is to change it (`fix` rewriting a stale copied block or a renamed reference, `claim`, `okf sync --init`
when asked), and then only those lines.

- OKF front matter (`sources`, `generated`, `verified`, titles) only in an OKF wiki: OpenWiki's, or one
  `okf sync --init` made OKF. A person's docs site keeps its front matter as written (none stays none).
- History is never bound or rewritten: changelogs and release notes (by name, or the settings' `history`), and the
  blog plugin's folders (posts, their index, their archive).
- A page the site does not publish (an include fragment, an excluded draft) is never bound, nor given front matter:
  it is read through the pages including it.
- No new page where the site would publish it, unless asked (`okf sync --init --indexes`), and never in a blog's
  folder or one the site leaves out.
- Sidecars and quotes files live in the wiki's dot folders (`.claims/`, `.wikiwarden/`), which MkDocs never
  publishes and Sphinx never reads as pages.

Pure: the site and the wiki's recognition in, answers out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..claims.ignore import IgnoreRules
from .certainty import is_history_page
from .site import Site


@dataclass(frozen=True)
class WritingRules:
    """What a command may write into the wiki folder's pages. The defaults are an OKF wiki's (OpenWiki's own folder
    has no site and no history pages of a person's)."""

    okf_wiki: bool = True
    site: Site = field(default_factory=Site)
    history: IgnoreRules = field(default_factory=IgnoreRules)

    @classmethod
    def of(cls, okf_wiki: bool, site: Site | None = None, history: tuple[str, ...] | list[str] = ()) -> WritingRules:
        return cls(okf_wiki, site or Site(), IgnoreRules("\n".join(history)))

    @property
    def okf_front_matter(self) -> bool:
        """Whether OKF's fields may be written into a page's front matter."""
        return self.okf_wiki

    def is_history(self, page: str) -> bool:
        """A page that records the past: a changelog or release notes, a page the settings call history, a blog
        plugin's page."""
        return is_history_page(page) or self.history.ignored(page) or self.site.in_blog(page)

    def why_not_bound(self, page: str) -> str | None:
        """Why a page's code blocks are not bound as snippet claims (None: they may be)."""
        if self.is_history(page):
            return "history (a changelog, release notes or a blog's page): never bound or rewritten"
        if self.site.left_out(page):
            return "the site does not publish it (an include fragment or an excluded page): read through its includers"
        return None

    def why_left(self, page: str) -> str | None:
        """Why `okf sync` leaves a page of a docs site as it is (None: it may be given OKF front matter)."""
        if self.is_history(page):
            return "history (a changelog, release notes or a blog's page): never rewritten"
        if self.site.left_out(page):
            return "the site does not publish it (an include fragment or an excluded page): no front matter"
        return None

    def may_create_index(self, folder: str, asked: bool) -> bool:
        """Whether a new `index.md` may be written in `folder`: always in an OpenWiki wiki with no site; on a docs
        site only when asked, in a folder the site publishes and no blog's."""
        if self.site.kind is None:
            return True
        path = f"{folder}/index.md"
        return asked and self.site.published(path) and not self.site.in_blog(path)
