"""YAML 1.2 (core schema) as OpenWiki reads front matter: unique keys, and timestamps stay strings.

Every document is untrusted (a page's front matter, a repository's `.github/wikiwarden.yml`), so it is capped
before it is parsed: its size, then the nesting of its flow collections (`[[[…]]]` costs ruamel's scanner time
quadratic in the depth, seconds for a few kilobytes), then the nesting of every collection, read off the parser's
events, which come without recursion. Only a document within the caps is built into Python objects; whatever
still goes wrong there (an integer of more digits than Python converts) is a YAMLError like any other.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

__all__ = ["MAX_DEPTH", "MAX_YAML_CHARS", "YAMLError", "YAMLLimitError", "load_yaml", "yaml_problem"]

MAX_YAML_CHARS = 256 * 1024  # front matter and config files are a few kilobytes; this is generous
MAX_DEPTH = 32  # nesting of collections: OKF front matter needs 3, the config file 2


class YAMLLimitError(YAMLError):
    """A document refused before (or instead of) being built: too large, too deep, or an impossible value."""


class _CoreConstructor(SafeConstructor):
    """The core schema has no timestamp type: `at: 2026-08-22T08:02:55.052Z` is a string, as in OpenWiki.

    A subclass, so the rule does not leak into other users of ruamel.yaml in the same process.
    """


_CoreConstructor.add_constructor(
    "tag:yaml.org,2002:timestamp", lambda constructor, node: constructor.construct_scalar(node)
)


class _LenientConstructor(_CoreConstructor):
    """The core schema, and any other tag read as nothing: a site's `mkdocs.yml` names Python objects
    (`!!python/name:material.extensions.emoji.twemoji`) and environment variables (`!ENV`) that only its builder
    resolves; reading the rest of the file must not stop there, and nothing is ever imported or looked up."""


_LenientConstructor.add_multi_constructor("", lambda constructor, suffix, node: None)


def _loader(lenient: bool = False) -> YAML:
    yaml = YAML(typ="safe", pure=True)  # a fresh loader per call: ruamel's loaders keep state
    yaml.Constructor = _LenientConstructor if lenient else _CoreConstructor
    yaml.version = (1, 2)
    yaml.allow_duplicate_keys = False
    return yaml


def _flow_depth(text: str, limit: int) -> int:
    """The deepest nesting of `[`/`{` in the text, counted without parsing (an upper bound: brackets inside
    quoted strings count too), stopping as soon as it passes `limit`."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif char in "]}" and depth:
            depth -= 1
    return deepest


def _check_limits(text: str, max_chars: int, max_depth: int) -> None:
    if len(text) > max_chars:
        raise YAMLLimitError(f"the document is {len(text):,} characters long; at most {max_chars:,} are read")
    if _flow_depth(text, max_depth) > max_depth:
        raise YAMLLimitError(f"collections are nested more than {max_depth} deep")
    depth = 0
    for event in _loader().parse(text):
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > max_depth:
                raise YAMLLimitError(f"collections are nested more than {max_depth} deep")
        elif isinstance(event, CollectionEndEvent):
            depth -= 1


def load_yaml(
    text: str, *, max_chars: int = MAX_YAML_CHARS, max_depth: int = MAX_DEPTH, unknown_tags: bool = False
) -> Any:
    """Parse one YAML document; raises YAMLError (with a line and column where the parser gives one) when it is
    not valid YAML 1.2, and YAMLLimitError when it passes the size or depth caps or holds an impossible value.
    `unknown_tags`: a value of a tag outside the core schema is read as None instead of refused (a builder's
    config file)."""
    _check_limits(text, max_chars, max_depth)
    try:
        return _loader(unknown_tags).load(text)
    except ValueError as exc:  # the constructor's int() past Python's conversion limit (4,300 digits)
        if "digits" in str(exc):
            raise YAMLLimitError("an integer has more digits than can be read (4,300 at most)") from None
        raise YAMLLimitError(f"a value cannot be read: {' '.join(str(exc).split())[:200]}") from None
    except RecursionError:  # not reachable within the depth cap; kept so no input can end in a crash
        raise YAMLLimitError(f"collections are nested more than {max_depth} deep") from None


def yaml_problem(exc: YAMLError) -> str:
    """A YAML error in one line of words: what is wrong and where (`found duplicate key "a" … at line 2, column
    1`), without the parser's excerpt, caret lines or links."""
    problem = getattr(exc, "problem", None)
    if not problem:
        return " ".join(str(exc).split())[:300]
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    context = getattr(exc, "context", None)
    return " ".join((f"{problem}{where}" + (f" ({context})" if context else "")).split())[:300]
