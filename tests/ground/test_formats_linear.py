"""The page readers on the worst pages a repository can write: each page (1 MiB; the rst role 300 KB, the issue's
size: docutils gives up on a larger one before the role's target is read) is read in a child process that must
finish within 30 s (a quadratic scan took hours), and the one-pass scanners read what the regexes and the
rescanning loops they replace read."""

from __future__ import annotations

import re

import pytest
from deadline import finishes
from hypothesis import given
from hypothesis import strategies as st

from bot.ground import formats

MIB = 1024 * 1024

# Each page's text as Python: the reproductions, and the others found reading the scanners.
HOSTILE_PAGES = {
    "mdx ]( repeated": ("p.mdx", "'](' * (MIB // 2)"),
    "mdx <a { repeated": ("p.mdx", "'<a {' * (MIB // 4)"),
    "mdx <a b={ repeated": ("p.mdx", "'<a b={' * (MIB // 6)"),
    'mdx <a {"\\ repeated': ("p.mdx", "'<a {' + '\"\\\\' * (MIB // 2)"),
    "mdx import { and a blank line, repeated": ("p.mdx", "'import {\\n\\n' * (MIB // 10)"),
    "mdx backtick runs 1, 2, 3...": ("p.mdx", "''.join('`' * k + ' a ' for k in range(1, 1400))"),
    # the issue's: the role's text ends in `a <b` (a role's end may not follow a space, a line break)
    "rst a role over lines of a <b": ("p.rst", "':func:`' + 'a <b\\n' * (300 * 1024 // 5) + 'a <b`\\n'"),
}

READ = """
import sys
from bot.ground.formats import code_blocks, page_mentions
MIB = 1024 * 1024
path, text = sys.argv[1], eval(sys.argv[2])
print(len(page_mentions(path, text)), len(code_blocks(path, text)))
"""


@pytest.mark.parametrize("name", HOSTILE_PAGES)
def test_a_hostile_page_is_read_in_time(name: str) -> None:
    path, text = HOSTILE_PAGES[name]
    mentions, blocks = map(int, finishes(READ, 30, (path, text)).split())
    assert blocks == 0
    assert mentions <= 1  # none of these pages names anything but the rst role (its target, once)


def test_a_role_over_many_lines_names_what_sphinx_reads_as_its_target() -> None:
    # `title <target>`: from the first `<` to the closing `>`, as Sphinx's regex reads it, line breaks as spaces
    page = ":doc:`" + "a <b\n" * 3 + "<c>`\n"
    assert [(m.text, m.kind) for m in formats.page_mentions("p.rst", page)] == [("b a <b a <b <c", "link")]


_SPHINX_TITLE = re.compile(r"^(.+?)\s*(?<!\x00)<(.*?)>$", re.DOTALL)  # what `_explicit_target` reads in one pass


@given(st.text(alphabet="<> \n\t\x00ab\u2003", max_size=14))
def test_the_explicit_target_is_the_sphinx_regex_s(text: str) -> None:
    match = _SPHINX_TITLE.match(text)
    assert formats._explicit_target(text) == (match[2] if match else None)


_MDX_PIECES = ["[", "]", "(", ")", "](", "<", ">", "<a ", "</a>", "{", "}", "\\", "'", '"', "`", "``", "/*", "*/",
               "//", "\n", "\n\n", " ", "a", "import {\n", "export ", "```", "    "]  # fmt: skip


@given(st.lists(st.sampled_from(_MDX_PIECES), max_size=40))
def test_every_line_of_an_mdx_page_keeps_its_number(pieces: list[str]) -> None:
    page = "".join(pieces)
    assert formats._mdx_markdown.__wrapped__(page).count("\n") == page.count("\n")
