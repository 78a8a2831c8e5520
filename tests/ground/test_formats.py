"""The page kinds a check reads (Markdown, MDX, reStructuredText), each read into the same mentions (code spans and
links, on the exact page line each stands on) and code blocks.

reStructuredText is read with docutils: rich's own Sphinx docs (excerpts in tests/data/rst), each role and directive
a page uses to name code or files, and the promises made about it: no file is ever read, nothing is printed, a
malformed page never raises and keeps what could be read, docutils keeps working as before for anyone else in the
process. MDX is Markdown with JSX: imports, tags and expressions name nothing and move no line."""

from __future__ import annotations

import copy
import functools
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.ground import formats
from bot.ground.formats import PAGE_SUFFIXES, CodeBlock, code_blocks, page_kind, page_mentions
from bot.ground.references import MAX_SPAN, Mention, mentions

ROOT = Path(__file__).resolve().parents[2]
RICH = ROOT / "tests" / "data" / "rst"


def found(path: str, text: str) -> list[tuple[str, str, int]]:
    return [(m.text, m.kind, m.line) for m in page_mentions(path, text)]


def rst(text: str) -> list[tuple[str, str, int]]:
    return found("docs/page.rst", text)


def rich(name: str) -> str:
    return (RICH / name).read_text(encoding="utf-8")


# --- kinds -------------------------------------------------------------------------------------------------------


def test_the_kinds_of_page_by_suffix() -> None:
    assert PAGE_SUFFIXES == (".md", ".markdown", ".mdx", ".rst")
    assert [page_kind(p) for p in ("a/b.md", "b.markdown", "c.mdx", "docs/d.rst", "E.MD", "f.Rst")] == [
        "markdown", "markdown", "mdx", "rst", "markdown", "rst"
    ]  # fmt: skip
    assert [page_kind(p) for p in ("notes.txt", "src/q.py", "README", "md", "x.md.bak", "")] == [None] * 6
    assert page_mentions("notes.txt", "``a`` and `b`") == []
    assert code_blocks("notes.txt", "```\ncode\n```\n") == []


def test_a_markdown_page_is_read_as_references_reads_it() -> None:
    page = "---\ntitle: q\n---\n\n# Queue\n\nThe `drain` method of [the queue](../src/q.py).\n"
    assert page_mentions("wiki/q.md", page) == mentions(page)
    assert found("wiki/q.markdown", page) == [("drain", "code", 7), ("../src/q.py", "link", 7)]


def test_markdown_code_blocks_fenced_and_indented_with_their_first_line_of_code() -> None:
    page = "---\ntitle: q\n---\nText `x`.\n\n```python title=q.py\ndef push():\n    pass\n```\n\n    indented()\n\n~~~\n~~~\n"
    assert code_blocks("q.md", page) == [
        CodeBlock(7, "def push():\n    pass", "python"),
        CodeBlock(11, "indented()", None),
    ]  # the empty fence holds no code


# --- reStructuredText: rich's docs -------------------------------------------------------------------------------


def test_rich_console_page_roles_literals_and_literal_blocks() -> None:
    page = rich("console.rst")
    assert rst(page) == [
        ("rich.console.Console", "code", 4),
        ("rich.console.Console.size", "code", 21),
        ("rich.console.Console.encoding", "code", 22),
        ("rich.console.Console.is_terminal", "code", 23),
        ("rich.console.Console.color_system", "code", 24),
        ("color_system", "code", 30),
        ("rich.console.Console", "code", 30),
        ("color_system", "code", 32),
        ("None", "code", 34),
        ('"auto"', "code", 35),
        ('"standard"', "code", 36),
        ('"256"', "code", 37),
        ('"truecolor"', "code", 38),
        ('"windows"', "code", 39),
    ]
    assert code_blocks("docs/console.rst", page) == [
        CodeBlock(6, "from rich.console import Console\nconsole = Console()", None),
        CodeBlock(11, "from my_project.console import console", None),
    ]


def test_rich_mentions_on_a_paragraphs_continuation_lines() -> None:
    assert rst(rich("live.rst")) == [
        ("rich.live.Live.stop", "code", 5),
        ("transient=True", "code", 6),  # the paragraph's second line
        ("refresh_per_second", "code", 11),
        ("rich.live.Live", "code", 11),
        ("auto_refresh=False", "code", 14),
        ("rich.live.Live.refresh", "code", 15),  # the second line of the paragraph from line 14
        ("rich.live.Live.update", "code", 15),
        ("refresh=True", "code", 15),
        ("vertical_overflow", "code", 21),  # the second line, below a line that ends without a mention
        ("rich.live.Live", "code", 21),
    ]


def test_rich_notes_links_and_the_same_literal_twice_on_a_line() -> None:
    got = rst(rich("console_environment.rst"))
    assert got[:8] == [
        ("FORCE_COLOR", "code", 1),
        ("TERM", "code", 1),
        ("NO_COLOR", "code", 3),
        ("NO_COLOR", "code", 3),
        ("FORCE_COLOR", "code", 3),
        ("https://no-color.org/", "link", 3),  # `no_color <https://no-color.org/>`_
        ("NO_COLOR", "code", 6),  # in a note
        ("TTY_COMPATIBLE", "code", 8),
    ]
    assert [m for m in got if m[2] in (12, 13, 14)] == [
        ("TTY_COMPATIBLE=1", "code", 13),
        ("TTY_INTERACTIVE=0", "code", 13),
    ]  # the second note; `:ref:` on line 10 names a label, not code
    assert [m[0] for m in got if m[2] == 10] == ["TTY_INTERACTIVE", '"0"', '"1"']
    assert len(got) == 24


def test_rich_automodule_and_toctree() -> None:
    assert rst(rich("reference_console.rst")) == [("rich.console", "code", 4)]
    got = rst(rich("index.rst"))
    assert got[:3] == [("introduction.rst", "link", 13), ("console.rst", "link", 14), ("style.rst", "link", 15)]
    assert got[-3:] == [("protocol.rst", "link", 36), ("reference.rst", "link", 38), ("appendix.rst", "link", 39)]
    assert len(got) == 24  # the entries only: not `toctree` in the comment above it, not the :ref: labels below


# --- reStructuredText: roles -------------------------------------------------------------------------------------

ROLES = ["func", "class", "meth", "mod", "attr", "exc", "data", "obj", "const"]


@pytest.mark.parametrize("role", ROLES + [f"py:{role}" for role in ROLES])
def test_each_python_role_names_its_target(role: str) -> None:
    assert rst(f"Intro.\n\nSee :{role}:`pkg.mod.Name` here.\n") == [("pkg.mod.Name", "code", 3)]


@pytest.mark.parametrize(
    ("written", "target"),
    [
        ("~rich.console.Console.print", "rich.console.Console.print"),
        ("!rich.console.Console", "rich.console.Console"),
        (".Console.print", "Console.print"),
        ("~.Console.print", "Console.print"),
        ("the table <rich.table.Table>", "rich.table.Table"),
        ("printing <~rich.console.Console.print>", "rich.console.Console.print"),
        ("Console.print()", "Console.print()"),
    ],
)
def test_a_python_roles_target_without_sphinx_prefixes_and_title(written: str, target: str) -> None:
    assert rst(f":meth:`{written}`\n") == [(target, "code", 1)]


def test_doc_download_file_code_and_literal_roles() -> None:
    page = (
        "Read :doc:`the intro <guide/intro>` and :doc:`/reference/api`,\n"
        "get :download:`the script <../examples/demo.py>`,\n"
        "edit :file:`src/queue.py`, run :code:`queue.drain()` or :literal:`drain`.\n"
    )
    assert rst(page) == [
        ("guide/intro", "link", 1),
        ("/reference/api", "link", 1),
        ("../examples/demo.py", "link", 2),
        ("src/queue.py", "code", 3),
        ("queue.drain()", "code", 3),
        ("drain", "code", 3),
    ]


def test_a_file_role_and_a_literal_over_two_lines_are_as_written() -> None:
    page = "Edit :file:`.github/workflows/ci.yml` or :file:`~/.config/x`, and ``a long\nliteral``.\n"
    assert rst(page) == [
        (".github/workflows/ci.yml", "code", 1),  # Python's `~` and `.` prefixes are a path's own here
        ("~/.config/x", "code", 1),
        ("a long literal", "code", 1),  # a line break in a literal reads as a space, as in Markdown
    ]


def test_other_and_unknown_roles_are_their_text() -> None:
    page = "See :ref:`label`, :term:`glossary`, :pep:`8`, :myext:`thing` and `title`.\n\nThen ``kept``.\n"
    assert rst(page) == [("kept", "code", 3)]


def test_a_pages_default_role_and_its_own_roles() -> None:
    page = (
        "`plain` text.\n\n"
        ".. default-role:: py:obj\n\n"
        "`rich.text.Text` by default.\n\n"
        ".. role:: python(code)\n\n"
        ":python:`print(1)` inline, and :class:`Explicit`.\n\n"
        ".. default-role::\n\n"
        "`plain again`.\n"
    )
    assert rst(page) == [("rich.text.Text", "code", 5), ("print(1)", "code", 9), ("Explicit", "code", 9)]


def test_a_role_over_two_lines_stands_on_its_first() -> None:
    assert rst("Intro.\n\nUse :class:`the\nthing <pkg.Thing>` and ``after``.\n") == [
        ("pkg.Thing", "code", 3),
        ("after", "code", 4),
    ]


# --- reStructuredText: links and directives ----------------------------------------------------------------------


def test_hyperlinks_with_a_uri_and_hyperlink_targets() -> None:
    page = (
        "Title\n=====\n\n"
        "See `the queue <../src/queue.py>`_, `docs <https://example.com/docs>`_, `named`_ and https://bare.example.\n\n"
        ".. _named: src/worker.py\n"
        ".. _long name:\n"
        "   docs/far/away.md\n"
        ".. __: anonymous/target.py\n"
        ".. _label:\n\n"
        "Text.\n"
    )
    assert rst(page) == [
        ("../src/queue.py", "link", 4),
        ("https://example.com/docs", "link", 4),
        ("https://bare.example", "link", 4),
        ("src/worker.py", "link", 6),
        ("docs/far/away.md", "link", 8),  # the URI's line, below the target's name
        ("anonymous/target.py", "link", 9),
    ]  # `named`_ is a reference to a target (its URI is the target's mention); `.. _label:` has no URI


def test_include_and_literalinclude_are_links_to_their_files() -> None:
    page = (
        ".. include:: ../README.rst\n\n"
        ".. literalinclude:: ../examples/table.py\n"
        "   :language: python\n"
        "   :lines: 1-10\n\n"
        ".. include::\n   snippets/long.rst\n\n"
        ".. include:: <isonum.txt>\n"
    )
    assert rst(page) == [
        ("../README.rst", "link", 1),
        ("../examples/table.py", "link", 3),
        ("snippets/long.rst", "link", 8),
    ]  # `<isonum.txt>` is one of docutils' own files, not the repository's


AUTODOC = ["automodule", "autoclass", "autofunction", "automethod", "autoattribute", "autoexception", "autodata"]


@pytest.mark.parametrize("directive", AUTODOC)
def test_each_autodoc_directive_names_its_dotted_name(directive: str) -> None:
    page = f"Reference\n=========\n\n.. {directive}:: rich.console.Console(file=None)\n   :members:\n\n   More ``notes``.\n"
    assert rst(page) == [("rich.console.Console", "code", 4), ("notes", "code", 7)]


def test_code_blocks_are_never_mentions() -> None:
    page = (
        "Run this::\n\n"
        "    print(``not_a_mention``)\n\n"
        ".. code-block:: python\n"
        "   :caption: ``caption``\n\n"
        "   x = ``nor_this``\n\n"
        ".. code:: bash\n\n   echo ``no``\n\n"
        ".. sourcecode::\n\n   plain()\n\n"
        ">>> doctest(``no``)\n"
        "1\n\n"
        ".. testcode::\n\n   tested()\n\n"
        ".. doctest::\n\n   >>> 1 + 1\n   2\n\n"
        ".. testoutput::\n\n   output ``no``\n\n"
        ".. raw:: html\n\n   <code>``raw``</code>\n\n"
        "After ``yes``.\n"
    )
    assert rst(page) == [("yes", "code", 38)]
    assert code_blocks("docs/page.rst", page) == [
        CodeBlock(3, "print(``not_a_mention``)", None),
        CodeBlock(8, "x = ``nor_this``", "python"),
        CodeBlock(12, "echo ``no``", "bash"),
        CodeBlock(16, "plain()", None),
        CodeBlock(18, ">>> doctest(``no``)\n1", "pycon"),
        CodeBlock(23, "tested()", "python"),
        CodeBlock(27, ">>> 1 + 1\n2", "pycon"),
    ]


def test_highlight_gives_literal_blocks_below_it_their_language() -> None:
    page = "Before::\n\n    a()\n\n.. highlight:: python3\n\nAfter::\n\n    b()\n\n.. code-block::\n\n   c()\n"
    assert code_blocks("p.rst", page) == [
        CodeBlock(3, "a()", None),
        CodeBlock(9, "b()", "python3"),
        CodeBlock(13, "c()", "python3"),
    ]


def test_code_blocks_in_lists_notes_and_unknown_directives_on_their_lines() -> None:
    page = (
        "1. Step::\n\n"
        "       in_list()\n\n"
        ".. note::\n\n"
        "   .. code-block:: console\n\n"
        "      $ in_note\n\n"
        ".. tab:: Shell\n\n"
        "   Some text.\n\n"
        "      quoted::\n\n"
        "         in_tab()\n"
    )
    assert code_blocks("p.rst", page) == [
        CodeBlock(3, "in_list()", None),
        CodeBlock(9, "$ in_note", "console"),
        CodeBlock(17, "in_tab()", None),
    ]


def test_unknown_directives_keep_the_mentions_in_their_body() -> None:
    page = (
        ".. toctree::\n"
        "   :maxdepth: 2\n"
        "   :glob:\n\n"
        "   self\n"
        "   guide/*\n"
        "   The API <api/index>\n\n"
        ".. versionadded:: 2.0 ``first_line``\n"
        "   Use :func:`pkg.new` now.\n\n"
        ".. deprecated:: 1.9\n\n"
        "   Use ``other`` instead.\n\n"
        ".. autosummary::\n"
        "   :toctree: generated\n\n"
        "   ~rich.console.Console\n"
        "   rich.text.Text\n\n"
        ".. tabs::\n\n"
        "   .. tab:: Python\n\n"
        "      Tab title ``in_title``\n"
        "      ----------------------\n\n"
        "      Call ``tabbed()``.\n\n"
        ".. only:: html\n\n"
        "   Only ``here``.\n\n"
        ".. py:function:: spam(eggs)\n\n"
        "   Described ``spam``.\n"
    )
    assert rst(page) == [
        ("api/index", "link", 7),  # toctree: `self` and the glob pattern are no files
        ("first_line", "code", 9),
        ("pkg.new", "code", 10),
        ("other", "code", 14),
        ("rich.console.Console", "code", 19),  # autosummary entries
        ("rich.text.Text", "code", 20),
        ("in_title", "code", 26),  # a section title inside a tab
        ("tabbed()", "code", 29),
        ("here", "code", 33),
        ("spam", "code", 37),
    ]


def test_mentions_in_tables_on_their_own_lines() -> None:
    page = (
        "+--------------+-----------------+\n"
        "| Header       | ``head``        |\n"
        "+==============+=================+\n"
        "| ``grid_one`` | a cell over     |\n"
        "|              | two ``grid_2``  |\n"
        "+--------------+-----------------+\n\n"
        "============  ===============\n"
        "name          meaning\n"
        "============  ===============\n"
        "``simple``    :func:`pkg.f`\n"
        "============  ===============\n\n"
        ".. list-table:: Options\n"
        "   :header-rows: 1\n\n"
        "   * - Name\n"
        "     - Meaning\n"
        "   * - ``listed``\n"
        "     - see\n"
        "       :class:`pkg.C`\n"
    )
    assert rst(page) == [
        ("head", "code", 2),
        ("grid_one", "code", 4),
        ("grid_2", "code", 5),
        ("simple", "code", 11),
        ("pkg.f", "code", 11),
        ("listed", "code", 19),
        ("pkg.C", "code", 21),  # the second line of its cell
    ]


def test_mentions_in_titles_lists_definitions_fields_and_substitutions() -> None:
    page = (
        "The ``title``\n"
        "=============\n\n"
        "* item ``one``\n"
        "  continued ``two``\n\n"
        "term ``three``\n"
        "   definition ``four``\n\n"
        ":field: ``five``\n\n"
        ".. |sub| replace:: ``six``\n\n"
        ".. admonition:: Title with ``seven``\n\n"
        "   Body ``eight``.\n"
    )
    assert [(m[0], m[2]) for m in rst(page)] == [
        ("title", 1), ("one", 4), ("two", 5), ("three", 7), ("four", 8), ("five", 10), ("six", 12),
        ("seven", 14), ("eight", 16),
    ]  # fmt: skip


def test_line_numbers_count_the_pages_line_breaks_only() -> None:
    """docutils splits lines with `str.splitlines` (at a lone CR, a form feed, U+2028...); the page's lines are its
    `\\n`s, as editors and GitHub count them, whatever else it holds."""
    page = "A\r\n``one``\r\nform\x0cfeed ``two``\nsep\u2028arator ``three``\nlone\rcr ``four``\n``five``\n"
    assert [(m[0], m[2]) for m in rst(page)] == [("one", 2), ("two", 3), ("three", 4), ("four", 5), ("five", 6)]


def test_mentions_are_as_long_as_references_allow() -> None:
    name = "a" * MAX_SPAN
    assert rst(f"``{name}`` and ``{name}b`` and ````\n") == [(name, "code", 1)]


# --- reStructuredText: the promises ------------------------------------------------------------------------------

_OPENED: list[str] = []
_WATCHING = threading.Event()


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _WATCHING.is_set() and args and isinstance(args[0], str):
        _OPENED.append(args[0])


def test_an_include_whose_file_exists_is_not_read(tmp_path: Path) -> None:
    if not getattr(sys, "_wikiwarden_audit", False):
        sys.addaudithook(_audit)  # hooks stay for the process: this one only records while the test watches
        sys._wikiwarden_audit = True  # type: ignore[attr-defined]
    included = tmp_path / "included.rst"
    included.write_text("Included ``secret`` text.\n")
    data = tmp_path / "data.csv"
    data.write_text('"``cell``"\n')
    page = (
        f".. include:: {included}\n\n"
        f".. literalinclude:: {included}\n\n"
        f".. csv-table::\n   :file: {data}\n\n"
        f".. raw:: html\n   :file: {data}\n\n"
        "After ``after``.\n"
    )
    _OPENED.clear()
    _WATCHING.set()
    try:
        got = rst(page)
    finally:
        _WATCHING.clear()
    assert got == [(str(included), "link", 1), (str(included), "link", 3), ("after", "code", 11)]
    assert not [path for path in _OPENED if path.startswith(str(tmp_path))]


MALFORMED = {
    "an inline literal never closed": "Open ``never closed and :meth:`half\n\nNext ``ok``.\n",
    "a grid table broken": "+-----+\n| ``x`` |\n+--+\n\nNext ``ok``.\n",
    "a directive with bad options": ".. code-block:: python\n   :bad option\n   x\n\n.. image::\n\nNext ``ok``.\n",
    "a title where none may be": "Intro.\n\n  Quoted ``t``\n  -----------\n\nNext ``ok``.\n",
    "an unknown role and directive": ":nope:`x` and .. and `unclosed\n\n.. nope::\n   :x: y\n\nNext ``ok``.\n",
    "inconsistent titles": "A\n=\n\nB\n-\n\nC\n=\n\nD\n~\n\nE\n*\n\nF\n-\n\nNext ``ok``.\n",
    "a line docutils refuses": "x" * 20_000 + "\n\nNext ``ok``.\n",
    "NUL characters": "Zero\x00 byte\x00\n\nNext ``ok``.\n",
    "bad indentation": "Para\n   indented\n  less\n     more\n\n- a\n - b\n\nNext ``ok``.\n",
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_rst_never_raises_nor_prints_and_keeps_what_it_can(
    name: str, capfd: pytest.CaptureFixture[str]
) -> None:
    page = MALFORMED[name]
    got = rst(page)
    code_blocks("p.rst", page)
    assert ("ok", "code", page.count("\n")) in got
    assert capfd.readouterr() == ("", "")


def test_a_page_nested_past_pythons_recursion_limit_keeps_what_came_before(capfd: pytest.CaptureFixture[str]) -> None:
    page = "Top ``top``.\n\n" + "".join("  " * depth + "- item\n\n" for depth in range(600))
    assert rst(page)[0] == ("top", "code", 1)
    assert capfd.readouterr() == ("", "")


RST_PIECES = [
    "``", "`", ":meth:", ":doc:", "<", ">", "`_", "__", ".. ", "::", "code-block", "include", "_x:", "|", "+--+", "===",
    "\n", "\n\n", "   ", "\t", "a", "b.c", "* ", "1. ", ">>> ", "\\", "\r", "\x00",
]  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(RST_PIECES), max_size=60).map("".join))
def test_any_rst_is_read_without_raising_or_printing(capfd: pytest.CaptureFixture[str], page: str) -> None:
    lines = page.count("\n") + 1
    for mention in page_mentions("p.rst", page):
        assert 1 <= mention.line <= lines and 0 < len(mention.text) <= MAX_SPAN
    for block in code_blocks("p.rst", page):
        assert 1 <= block.line <= lines
    assert capfd.readouterr() == ("", "")


@functools.cache
def _other_settings() -> Any:
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    options = get_default_settings(Parser)  # once: it silences docutils' warnings in a way threads undo
    options.report_level, options.halt_level, options.warning_stream = 5, 5, False
    return options


def other_docutils_user(source: str) -> str:
    """The document docutils makes of `source` for a program of its own: its default settings, its parser."""
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    document = new_document("<other>", copy.copy(_other_settings()))
    Parser().parse(source, document)
    return str(document.pformat())


def test_docutils_works_as_before_for_everyone_else() -> None:
    """Reading a page changes nothing for another docutils user in the process: `toctree` is still unknown to it,
    its `include` still reads files, `code-block` is still docutils' own, and `:meth:` still no role."""
    source = (
        ".. toctree::\n\n   a\n\n.. include:: /nonexistent/x.rst\n\n.. code-block:: python\n\n   x = 1\n\n:meth:`x`\n"
    )
    formats._read_rst.cache_clear()
    before = other_docutils_user(source)
    assert rst(source) == [("a", "link", 3), ("/nonexistent/x.rst", "link", 5), ("x", "code", 11)]
    after = other_docutils_user(source)
    assert after == before
    assert 'Unknown directive type "toctree"' in after and "No such file or directory" in after
    assert 'Unknown interpreted text role "meth"' in after


def test_a_second_reader_reads_its_own_directives() -> None:
    """Two readers built at once on first use (threads): the directive lookup one of them installed serves the
    other's pages with the other's directives."""
    second = formats._rst_reader.__wrapped__()
    page = ".. include:: ../README.rst\n\n.. versionadded:: 2\n   ``kept``\n"
    assert [(m.text, m.line) for m in second(page).mentions] == [("../README.rst", 1), ("kept", 4)]
    assert rst(page) == [("../README.rst", "link", 1), ("kept", "code", 4)]


def test_pages_read_in_threads_beside_other_docutils_users() -> None:
    def others(_: int) -> str:
        return other_docutils_user(".. toctree::\n\n   a\n\n:meth:`x`\n")

    def ours(n: int) -> list[tuple[str, str, int]]:
        return rst(f"{rich('live.rst')}\n.. {n}\n")  # a page of its own each time: parsed, not recalled

    expected_other, expected_ours = others(0), rst(rich("live.rst"))
    with ThreadPoolExecutor(max_workers=8) as pool:
        other_results = pool.map(others, range(40))
        our_results = pool.map(ours, range(40))
        assert all(result == expected_other for result in other_results)
        assert all(result == expected_ours for result in our_results)


def test_docutils_is_imported_only_when_an_rst_page_is_read() -> None:
    script = (
        "import sys\n"
        "from bot.ground.formats import code_blocks, page_mentions\n"
        "assert page_mentions('a.md', '`x`') and page_mentions('b.mdx', 'import A from \"a\"\\n\\n`y`')\n"
        "code_blocks('a.md', '```\\nz\\n```')\n"
        "assert 'docutils' not in sys.modules, 'imported for Markdown'\n"
        "assert page_mentions('c.rst', '``z``')\n"
        "assert 'docutils' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


# --- MDX ---------------------------------------------------------------------------------------------------------

MDX = """---
title: The queue `not_front_matter`
---
import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';
export const meta = {
  author: 'a `not_esm`',

  tags: ['x', `y`],
};

# The queue {/* a comment with `not_comment` */} {#queue}

Call `drain()` from <Kbd>`src/queue.py`</Kbd> and read [the guide](./guide.md).

<Tabs groupId="os" values={[{label: 'Py', value: 'py'}, {label: "a > `not_attr`", value: 'b'}]}>
  <TabItem value="py">

    Use `TaskQueue.push` here.

    ```py title="x.py"
    q.push({"a": `not_fence`})
    ```

  </TabItem>
</Tabs>

<Note
  title="multi-line `not_tag`"
  kind={x > 1 ? "a" : "b"}
>
Inside `Note.body` text.
</Note>

Prose with {props.value} and `{literal}` and `<Literal />` and a < b and <3.
<https://autolink.example> is JSX in MDX, not an autolink.

{
  // a flow expression with `not_expression`
  items.map((i) => <li key={i}>{i}</li>)
}

Last `last` line, [a link](../src/worker.py).
"""


def test_mdx_mentions_skip_esm_jsx_and_expressions_on_the_pages_lines() -> None:
    assert found("docs/queue.mdx", MDX) == [
        ("drain()", "code", 14),
        ("src/queue.py", "code", 14),  # inside an inline JSX element: Markdown
        ("./guide.md", "link", 14),
        ("TaskQueue.push", "code", 19),  # indented four columns inside JSX: a paragraph in MDX, not code
        ("Note.body", "code", 32),
        ("{literal}", "code", 35),  # a code span is code, braces and all
        ("<Literal />", "code", 35),
        ("last", "code", 43),
        ("../src/worker.py", "link", 43),
    ]


def test_mdx_mentions_of_the_same_text_each_on_its_own_line() -> None:
    page = 'import A from "a"\n\n<A>`x` and `x`\n`x`</A> {`x`} `x`\n\n`y` <B y="`x`" /> `x`\n'
    assert found("docs/x.mdx", page) == [
        ("x", "code", 3), ("x", "code", 3),
        ("x", "code", 4), ("x", "code", 4),  # the one in an expression is not read
        ("y", "code", 6), ("x", "code", 6),  # nor the one in a tag's attribute
    ]  # fmt: skip


def test_mdx_code_blocks_fenced_at_any_indentation() -> None:
    assert code_blocks("docs/queue.mdx", MDX) == [CodeBlock(22, 'q.push({"a": `not_fence`})', "py")]
    assert code_blocks(
        "docs/x.mdx", "import A from 'a'\n\n    not_code()\n\n<A>\n\n```js\nlet x = {};\n```\n\n</A>\n"
    ) == [CodeBlock(8, "let x = {};", "js")]


def test_mdx_keeps_every_line_and_leaves_code_as_written() -> None:
    markdown = formats._mdx_markdown(MDX)
    assert markdown.count("\n") == MDX.count("\n")
    assert markdown.split("\n")[13] == "Call `drain()` from `src/queue.py` and read [the guide](./guide.md)."
    assert markdown.split("\n")[21] == 'q.push({"a": `not_fence`})'  # moved to the margin, braces kept


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("Open {never closed `a`\n\nThen `b`.\n", [("a", "code", 1), ("b", "code", 3)]),
        ("<Open never closed `a`\n\nThen `b`.\n", [("a", "code", 1), ("b", "code", 3)]),
        ("export const x = {\n\nunbalanced `a`\n\nThen `b`.\n", [("a", "code", 3), ("b", "code", 5)]),
        ("```js\nnever closed {\n", []),
        ('It\'s {"a"} and `{` then `c`.\n', [("{", "code", 1), ("c", "code", 1)]),
        ("a [link](./x{y}.md) and {z}\n", [("./x%7By%7D.md", "link", 1)]),
        ("\\{not an expression} `d`\n", [("d", "code", 1)]),
        ("", []),
    ],
)
def test_malformed_mdx_never_raises_and_keeps_what_it_can(page: str, expected: list[tuple[str, str, int]]) -> None:
    assert found("p.mdx", page) == expected


MDX_PIECES = [
    "{", "}", "<", ">", "</", "/>", "`", "```", "'", '"', "import ", "export ", "---\n", "/*", "*/", "//", "\n", "\n\n",
    "    ", "a", "B", "[x](y)", "\\", "=", "\r",
]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(MDX_PIECES), max_size=80).map("".join))
def test_any_mdx_is_read_without_raising_and_on_its_lines(page: str) -> None:
    assert formats._mdx_markdown(page).count("\n") == page.count("\n")
    lines = page.count("\n") + 1
    for mention in page_mentions("p.mdx", page):
        assert 1 <= mention.line <= lines
    for block in code_blocks("p.mdx", page):
        assert 1 <= block.line <= lines


def test_a_mention_is_a_mention_of_references() -> None:
    assert all(isinstance(m, Mention) for m in page_mentions("p.rst", "``a``") + page_mentions("p.mdx", "`a`"))
