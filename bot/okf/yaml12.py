"""YAML 1.2 (core schema) as OpenWiki reads front matter: unique keys, and timestamps stay strings."""

from __future__ import annotations

from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import YAMLError

__all__ = ["YAMLError", "load_yaml"]


class _CoreConstructor(SafeConstructor):
    """The core schema has no timestamp type: `at: 2026-08-22T08:02:55.052Z` is a string, as in OpenWiki.

    A subclass, so the rule does not leak into other users of ruamel.yaml in the same process.
    """


_CoreConstructor.add_constructor(
    "tag:yaml.org,2002:timestamp", lambda constructor, node: constructor.construct_scalar(node)
)


def load_yaml(text: str) -> Any:
    """Parse one YAML document; raises YAMLError (with a line and column) when it is not valid YAML 1.2."""
    yaml = YAML(typ="safe", pure=True)  # a fresh loader per call: ruamel's loaders keep state
    yaml.Constructor = _CoreConstructor
    yaml.version = (1, 2)
    yaml.allow_duplicate_keys = False
    return yaml.load(text)
