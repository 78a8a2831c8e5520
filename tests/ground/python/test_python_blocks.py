"""A page's Python code blocks (fences, reStructuredText directives, doctest sessions) and what they use: imported
names and modules, and keywords passed to what they imported, each at its page line."""

from __future__ import annotations

from bot.ground.python.blocks import Use, python_blocks, uses

MARKDOWN = """# Title

```python
from pkg.urls import parse_url as p
import pkg.widgets
import pkg.extra as extra
c = pkg.widgets.Client(proxies={}, timeout=3)
extra.make(size=1)
p(**options)
other(x=1)
```

```
>>> from pkg import Client as C
>>> C(
...    proxies=1)
output line
```

```js
import x from "pkg";
```

```
plain = text(a=1)
```

  ~~~py
  from pkg.x import y
  ...
  def f(:
  ~~~

```python
```
"""
RST = """Title
=====

.. code-block:: python
   :caption: x

   from pkg.urls import parse_url
   parse_url(strict=True)

Prose.

>>> from pkg import a
>>> a(k=1)

.. code-block:: bash

   from pkg import nothing

.. doctest::

   >>> from pkg import b

.. code::

   >>> from pkg import c
"""


def test_markdown_blocks_and_their_uses() -> None:
    found = [use for block in python_blocks(MARKDOWN, "markdown") for use in uses(block)]
    assert found == [
        Use(4, "pkg.urls", "parse_url", written="from pkg.urls import parse_url"),
        Use(5, "pkg.widgets", "", written="import pkg.widgets"),
        Use(6, "pkg.extra", "", written="import pkg.extra"),
        Use(7, "pkg.widgets", "Client", "proxies", "pkg.widgets.Client(proxies=...)"),
        Use(7, "pkg.widgets", "Client", "timeout", "pkg.widgets.Client(timeout=...)"),
        Use(8, "pkg.extra", "make", "size", "extra.make(size=...)"),
        Use(14, "pkg", "Client", written="from pkg import Client"),
        Use(16, "pkg", "Client", "proxies", "C(proxies=...)"),
        Use(29, "pkg.x", "y", written="from pkg.x import y"),  # a block that does not parse: its imports
    ]


def test_rst_blocks_and_their_uses() -> None:
    found = [use for block in python_blocks(RST, "rst") for use in uses(block)]
    assert [(u.line, u.module, u.name, u.keyword) for u in found] == [
        (7, "pkg.urls", "parse_url", ""),
        (8, "pkg.urls", "parse_url", "strict"),
        (12, "pkg", "a", ""),
        (13, "pkg", "a", "k"),
        (21, "pkg", "b", ""),
        (25, "pkg", "c", ""),
    ]


def test_a_block_is_its_code_without_prompts_or_margin() -> None:
    blocks = python_blocks(MARKDOWN, "markdown")
    assert blocks[0].code.startswith("from pkg.urls import parse_url as p\nimport pkg.widgets\n")
    assert blocks[1].code == "from pkg import Client as C\nC(\n   proxies=1)"
    assert [line for line, _ in blocks[1].lines] == [14, 15, 16]
