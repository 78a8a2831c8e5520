"""The YAML loader every untrusted document goes through (front matter, `.github/wikiwarden.yml`): capped in size
and depth before it is parsed, and every failure a YAMLError that says in one line what is wrong."""

from __future__ import annotations

import pytest

from bot.okf.frontmatter import FrontMatterError, Page
from bot.okf.yaml12 import MAX_DEPTH, MAX_YAML_CHARS, YAMLError, YAMLLimitError, load_yaml, yaml_problem


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 5_000 + "]" * 5_000,  # 10 KB of flow sequences: seconds of scanning without the cap
        "a: " + "{x: " * 10_000 + "1" + "}" * 10_000,  # 40 KB of flow mappings
        "- " * 8_000 + "x",  # block sequences nested on one line
        "".join(" " * n + "k:\n" for n in range(MAX_DEPTH + 2)) + " " * (MAX_DEPTH + 2) + "x",  # by indentation
    ],
)
def test_deep_nesting_is_refused_before_it_is_built(text: str) -> None:
    with pytest.raises(YAMLLimitError, match=f"nested more than {MAX_DEPTH} deep"):
        load_yaml(text)


def test_nesting_up_to_the_cap_is_read() -> None:
    text = "a: " + "[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1)
    value = load_yaml(text)  # the mapping and 31 sequences: 32 deep
    for _ in range(MAX_DEPTH):
        value = value["a"] if isinstance(value, dict) else value[0]
    assert value == 1


def test_an_integer_past_pythons_conversion_limit_is_a_yaml_error() -> None:
    with pytest.raises(YAMLLimitError, match=r"an integer has more digits than can be read \(4,300 at most\)"):
        load_yaml("n: " + "9" * 5_000)
    assert load_yaml("n: " + "9" * 4_000)["n"] == int("9" * 4_000)


def test_a_document_past_the_size_cap_is_not_parsed() -> None:
    with pytest.raises(YAMLLimitError, match="at most 262,144 are read"):
        load_yaml("a: " + "x" * MAX_YAML_CHARS)
    assert load_yaml("a: 1", max_chars=4) == {"a": 1}


def test_limit_errors_are_yaml_errors() -> None:
    assert issubclass(YAMLLimitError, YAMLError)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: 1\na: 2\n", 'found duplicate key "a" with value "2" (original value: "1") at line 2, column 1'),
        ("a: [1, 2\n", "expected ',' or ']', but got '<stream end>' at line 2, column 1"),
        ("a: b: c\n", "mapping values are not allowed here at line 1, column 5"),
    ],
)
def test_a_yaml_error_is_one_line_in_words(text: str, problem: str) -> None:
    with pytest.raises(YAMLError) as raised:
        load_yaml(text)
    said = yaml_problem(raised.value)
    assert said.startswith(problem)
    assert "\n" not in said and "http" not in said and "^" not in said


def test_front_matter_goes_through_the_same_caps() -> None:
    page = Page.parse("---\ntitle: " + "[" * 5_000 + "]" * 5_000 + "\n---\n# Body\n")
    with pytest.raises(FrontMatterError, match=f"invalid YAML front matter: collections are nested more than {MAX_DEPTH}"):
        page.fields()
    with pytest.raises(FrontMatterError, match="an integer has more digits"):
        Page.parse("---\nn: " + "9" * 5_000 + "\n---\n").fields()
