"""Finding the code blocks a page copies from the repository: exact lines, a common indentation taken off or
added, elision lines for lines left out, markers (embedme, MarkdownSnippets), and what is not a copy: too few
distinctive lines, a block found in two places, lines that differ."""

from __future__ import annotations

from bot.claims.sidecar import Claim, Sidecar, page_version
from bot.ground.formats import CodeBlock
from bot.ground.snippets import SnippetIndex, bind, copies, distinctive

CONFIG_PY = """import os


class Settings:
    \"\"\"What the service reads from its environment.\"\"\"

    def __init__(self, env=os.environ):
        self.host = env.get("HOST", "localhost")
        self.port = int(env.get("PORT", "8080"))
        self.debug = env.get("DEBUG") == "1"

    def url(self):
        return f"http://{self.host}:{self.port}"
"""
SERVICE_TOML = """[service]
name = "orders"
replicas = 3
timeout_seconds = 30
"""
FILES = {"src/app/config.py": CONFIG_PY.encode(), "deploy/service.toml": SERVICE_TOML.encode(), "docs/x.md": b""}


def index() -> SnippetIndex:
    return SnippetIndex(FILES)


def block(text: str, line: int = 3) -> CodeBlock:
    return CodeBlock(line, text, "python")


def test_a_block_of_exact_lines_is_a_copy_of_them() -> None:
    found = index().find(block(SERVICE_TOML.removesuffix("\n")))
    assert found is not None
    assert (found.path, found.ranges, found.matches) == ("deploy/service.toml", ((1, 4),), True)


def test_a_method_shown_without_its_class_indentation_is_a_copy() -> None:
    text = """def __init__(self, env=os.environ):
    self.host = env.get("HOST", "localhost")
    self.port = int(env.get("PORT", "8080"))"""
    found = index().find(block(text))
    assert found is not None
    assert (found.path, found.ranges) == ("src/app/config.py", ((7, 9),))
    assert found.shifts[0].prefix == "    " and found.shifts[0].deeper


def test_a_block_indented_more_than_the_source_is_a_copy_too() -> None:
    text = "\n".join("  " + line for line in SERVICE_TOML.splitlines())
    found = index().find(block(text))
    assert found is not None and found.ranges == ((1, 4),)
    assert found.shifts[0] == ("  ", False)


def test_elision_lines_stand_for_lines_left_out_each_part_in_order_in_one_file() -> None:
    text = """class Settings:
    \"\"\"What the service reads from its environment.\"\"\"
    # ...
    def url(self):
        return f"http://{self.host}:{self.port}\""""
    found = index().find(block(text))
    assert found is not None
    assert found.ranges == ((4, 5), (12, 13))
    for elision in ("...", "    ...", "// ...", "…", "/* ... */"):
        assert index().find(block(text.replace("    # ...", elision))) is not None, elision


def test_parts_out_of_order_are_no_copy() -> None:
    text = """    def url(self):
        return f"http://{self.host}:{self.port}"
...
class Settings:
    \"\"\"What the service reads from its environment.\"\"\""""
    assert index().find(block(text)) is None


def test_too_few_distinctive_lines_is_no_copy() -> None:
    assert not distinctive("}") and not distinctive("    pass") and not distinctive(")")
    assert distinctive("self.debug = x")
    short = 'def url(self):\n    return f"http://{self.host}:{self.port}"'
    assert index().find(block(short)) is None  # two distinctive lines: an example could hold them by chance
    braces = SnippetIndex({"a.js": b"f(\n}\n}\n}\n}\n", "b.js": b"}\n}\n}\n}\n"})
    assert braces.find(block("}\n}\n}\n}")) is None


def test_a_changed_line_is_no_copy() -> None:
    text = SERVICE_TOML.replace("replicas = 3", "replicas = 5").removesuffix("\n")
    assert index().find(block(text)) is None


def test_a_block_found_in_two_places_is_bound_to_neither() -> None:
    twice = SnippetIndex({"a/service.toml": SERVICE_TOML.encode(), "b/service.toml": SERVICE_TOML.encode()})
    assert twice.find(block(SERVICE_TOML.removesuffix("\n"))) is None


def test_pages_are_not_sources() -> None:
    only_docs = SnippetIndex({"docs/a.md": SERVICE_TOML.encode(), "README.rst": SERVICE_TOML.encode()})
    assert only_docs.find(block(SERVICE_TOML.removesuffix("\n"))) is None


def test_an_embedme_marker_binds_its_block_even_when_it_does_not_match_yet() -> None:
    page = '# Config\n\n```toml\n# deploy/service.toml#L2-L3\nname = "old"\n```\n'
    (found,) = copies("docs/config.md", page, index())
    assert (found.path, found.ranges, found.matches) == ("deploy/service.toml", ((2, 3),), False)
    assert found.block.line == 5  # the marker line is no part of the copy
    bound = bind("docs/config.md", page, None, index())
    assert bound.synced == 1
    assert bound.text == '# Config\n\n```toml\n# deploy/service.toml#L2-L3\nname = "orders"\nreplicas = 3\n```\n'
    (statement,) = bound.statements
    assert statement.statement == (
        "Snippet: the code block at line 5 of this page is a copy of deploy/service.toml lines 2-3."
    )
    assert [r.resource for r in statement.evidence] == ["repo://deploy/service.toml#L2-L3"]


def test_a_markdownsnippets_marker_above_the_fence_names_the_file() -> None:
    page = "# Config\n\n<!-- snippet: deploy/service.toml -->\n```toml\n" + SERVICE_TOML + "```\n"
    (found,) = copies("docs/config.md", page, index())
    assert (found.path, found.ranges, found.matches) == ("deploy/service.toml", ((1, 4),), True)


def test_an_embedme_path_relative_to_the_page_folder() -> None:
    files = {"docs/examples/run.sh": b"#!/bin/sh\nset -eu\nexec python -m app --port 8080\n"}
    page = "```sh\n# examples/run.sh\n#!/bin/sh\nset -eu\nexec python -m app --port 8080\n```\n"
    (found,) = copies("docs/guide.md", page, SnippetIndex(files))
    assert (found.path, found.matches) == ("docs/examples/run.sh", True)


def test_rst_code_blocks_and_indented_blocks_are_read_too() -> None:
    rst = "Config\n======\n\n.. code-block:: toml\n\n   " + "\n   ".join(SERVICE_TOML.splitlines()) + "\n"
    (found,) = copies("docs/config.rst", rst, index())
    assert found.path == "deploy/service.toml" and found.block.line == 6
    md = "Config:\n\n    " + "\n    ".join(SERVICE_TOML.splitlines()) + "\n"
    (found,) = copies("docs/config.md", md, index())
    assert found.path == "deploy/service.toml"


def test_binding_skips_a_block_already_bound() -> None:
    page = "# Config\n\n```toml\n" + SERVICE_TOML + "```\n"
    first = bind("docs/config.md", page, None, index())
    (statement,) = first.statements
    sidecar = Sidecar(page_version(page.encode()), (Claim("claim_1", statement.statement, statement.evidence),))
    assert bind("docs/config.md", page, sidecar, index()).statements == []
