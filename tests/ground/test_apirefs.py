"""The dotted names a docs site's API tooling reads from a page: mkdocstrings' `:::` lines and autorefs'
identifiers in Markdown, Sphinx's module lines in reStructuredText, each a code mention on its line."""

from __future__ import annotations

from bot.ground.apirefs import api_mentions
from bot.ground.reading import live_mentions
from bot.ground.references import MAX_SPAN, Mention

MARKDOWN = """---
title: API
---
# API

See [the panel][pkg.widgets.Panel] and [`run()`][pkg.app.App.run], or
[Table][pkg.dispatch.Table] or [pkg.dispatch.Row][].

::: pkg.widgets
    options:
      show_source: false

::: pkg.app

```python
::: pkg.in_code
x = y[pkg.in_code_too]
```

A span `[a][pkg.in_span]` is code; [a defined label][pkg.defined] is a link; [words][label] have no dot.

[pkg.defined]: https://example.com/
"""


def test_markdown_api_names_are_mentions_on_their_lines() -> None:
    assert api_mentions("docs/api.md", MARKDOWN) == [
        Mention("pkg.widgets.Panel", "code", 6),
        Mention("pkg.app.App.run", "code", 6),
        Mention("pkg.dispatch.Table", "code", 7),
        Mention("pkg.dispatch.Row", "code", 7),
        Mention("pkg.widgets", "code", 9),
        Mention("pkg.app", "code", 13),
    ]


def test_a_page_without_them_is_not_parsed_for_them_and_other_kinds_have_none() -> None:
    assert api_mentions("docs/a.md", "# A\n\nNothing `pkg.x` here.\n") == []
    assert api_mentions("docs/a.mdx", MARKDOWN) == []
    assert api_mentions("docs/a.txt", MARKDOWN) == []


RST = """Reference
=========

.. currentmodule:: pkg.dispatch

.. py:currentmodule:: pkg.tables
.. module:: pkg.other
.. py:module:: pkg.py_other
.. currentmodule:: None

The module :mod:`pkg.dispatch` holds :class:`~pkg.dispatch.Table`.
"""


def test_rst_module_lines_are_mentions_and_roles_stay_the_pages_own() -> None:
    assert api_mentions("docs/ref.rst", RST) == [
        Mention("pkg.dispatch", "code", 4),
        Mention("pkg.tables", "code", 6),
        Mention("pkg.other", "code", 7),
        Mention("pkg.py_other", "code", 8),
    ]
    live = live_mentions("docs/ref.rst", RST)
    assert [(m.text, m.line) for m in live] == [
        ("pkg.dispatch", 4),
        ("pkg.tables", 6),
        ("pkg.other", 7),
        ("pkg.py_other", 8),
        ("pkg.dispatch", 11),
        ("pkg.dispatch.Table", 11),
    ]


def test_a_check_reads_them_with_the_pages_mentions_in_page_order() -> None:
    """In line order (on a line, the page's spans and links first), none twice."""
    live = live_mentions("docs/api.md", MARKDOWN)
    assert [(m.text, m.kind, m.line) for m in live if m.line <= 9] == [
        ("run()", "code", 6),
        ("pkg.widgets.Panel", "code", 6),
        ("pkg.app.App.run", "code", 6),
        ("pkg.dispatch.Table", "code", 7),
        ("pkg.dispatch.Row", "code", 7),
        ("pkg.widgets", "code", 9),
    ]
    silenced = MARKDOWN.replace("::: pkg.app\n", "<!-- wikiwarden: ignore-next-line -->\n::: pkg.app\n")
    assert "pkg.app" not in [m.text for m in live_mentions("docs/api.md", silenced)]


def test_either_form_alone_is_read() -> None:
    """A page with autorefs identifiers and no `:::` line, and one the other way round (neither is skipped)."""
    assert api_mentions("docs/a.md", "# A\n\nSee [Panel][pkg.widgets.Panel].\n") == [
        Mention("pkg.widgets.Panel", "code", 3)
    ]
    assert api_mentions("docs/a.md", "# A\n\n::: pkg.widgets\n") == [Mention("pkg.widgets", "code", 3)]


def test_an_rst_module_line_is_on_its_own_line_whatever_opens_the_page() -> None:
    assert api_mentions("docs/ref.rst", "\n.. currentmodule:: pkg.dispatch\n") == [Mention("pkg.dispatch", "code", 2)]


def test_a_name_longer_than_a_span_may_be_is_not_read() -> None:
    longest = "pkg." + "x" * (MAX_SPAN - 4)
    assert api_mentions("docs/a.md", f"::: {longest}\n") == [Mention(longest, "code", 1)]
    assert api_mentions("docs/a.md", f"::: {longest}y\n") == []
