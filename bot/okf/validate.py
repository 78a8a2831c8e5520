"""OKF v0.2 conformance of a bundle: every problem as (file, field, problem), errors apart from warnings.

Errors are what §11 requires (front matter that parses, a non-empty `type`, indexes and logs in their form)
and malformed values of the optional field families (§5–§10) when present; warnings are what still reads
but should change (v0.1's `timestamp`, an unknown `okf_version`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..claims.sidecar import js_trim
from .frontmatter import FrontMatterError, Page
from .index import is_generated_index

RESERVED = frozenset({"index.md", "log.md"})
STATUSES = frozenset({"draft", "stable", "deprecated"})
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})")
_LOG_HEADING = re.compile(r"^## (.*)$", re.M)  # rstripped: `(.*?)\s*$` was quadratic in a line of spaces
_PERSONS_PAGE = " (a page of a person's own, not a generated index: okf sync leaves it as it is)"


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    field: str  # "" for the file as a whole
    problem: str
    severity: str = "error"  # or "warning"


def is_timestamp(value: Any) -> bool:
    """ISO 8601 date and time with an explicit offset, with real calendar values (§5)."""
    if not isinstance(value, str) or not _TIMESTAMP.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(js_trim(value))


class _Checker:
    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[Problem] = []

    def add(self, field: str, problem: str, severity: str = "error") -> None:
        self.problems.append(Problem(self.path, field, problem, severity))

    def text(self, fields: Mapping[str, Any], key: str, where: str | None = None) -> None:
        if key in fields and not _text(fields[key]):
            self.add(where or key, "must be a non-empty string")

    def timestamp(self, value: Any, where: str) -> None:
        if not is_timestamp(value):
            self.add(where, "must be an ISO 8601 date and time with an offset, like 2026-08-20T12:00:00Z")

    def event(self, value: Any, where: str, at_required: bool = False) -> None:
        if not isinstance(value, dict):
            self.add(where, "must be a mapping with `by` (and `at`)")
            return
        if not _text(value.get("by")):
            self.add(f"{where}.by", "is required and must be a non-empty actor string")
        if "at" in value:
            self.timestamp(value["at"], f"{where}.at")
        elif at_required:
            self.add(f"{where}.at", "is required")


def check_concept(path: str, content: bytes) -> list[Problem]:
    """Problems of one concept page's front matter."""
    check = _Checker(path)
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        check.add("", "is not UTF-8")
        return check.problems
    page = Page.parse(text)
    if not page.has_front_matter:
        check.add("", "has no front matter (a `---` block with at least `type`)")
        return check.problems
    try:
        fields = page.fields()
    except FrontMatterError as exc:
        check.add("", str(exc))
        return check.problems
    _check_fields(check, fields)
    return check.problems


def _check_fields(check: _Checker, fields: dict[str, Any]) -> None:
    """The problems of a concept's fields, each said where it stands."""
    if not _text(fields.get("type")):
        check.add("type", "is required and must be a non-empty string")
    for key in ("title", "description", "resource"):
        check.text(fields, key)
    if "tags" in fields and (not isinstance(fields["tags"], list) or not all(_text(t) for t in fields["tags"])):
        check.add("tags", "must be a list of non-empty strings")
    if "sources" in fields:
        _check_sources(check, fields["sources"])
    if "usage_window" in fields:
        _window(check, fields["usage_window"], "usage_window")
    if "generated" in fields:
        check.event(fields["generated"], "generated")
    if "verified" in fields:
        verified = fields["verified"]
        events = verified if isinstance(verified, list) else [verified]
        for n, event in enumerate(events):
            check.event(event, f"verified[{n}]" if isinstance(verified, list) else "verified", at_required=True)
    if "status" in fields and fields["status"] not in STATUSES:
        check.add("status", "must be draft, stable or deprecated")
    if "stale_after" in fields:
        check.timestamp(fields["stale_after"], "stale_after")
    if "timestamp" in fields:
        check.add("timestamp", "is OKF v0.1; v0.2 uses `generated.at`", "warning")
    if fields.get("type") == "Attested Computation" and not _text(fields.get("runtime")):
        check.add("runtime", "is required for an Attested Computation")


def _check_sources(check: _Checker, sources: Any) -> None:
    if not isinstance(sources, list):
        check.add("sources", "must be a list of mappings")
        return
    for n, entry in enumerate(sources):
        where = f"sources[{n}]"
        if not isinstance(entry, dict):
            check.add(where, "must be a mapping with a `resource`")
            continue
        if not _text(entry.get("resource")):
            check.add(f"{where}.resource", "is required and must be a non-empty string")
        for key in ("id", "title", "author"):
            check.text(entry, key, f"{where}.{key}")
        if "usage_count" in entry and (
            isinstance(entry["usage_count"], bool) or not isinstance(entry["usage_count"], int | float)
        ):
            check.add(f"{where}.usage_count", "must be a number")
        if "last_modified" in entry:
            check.timestamp(entry["last_modified"], f"{where}.last_modified")
        if "usage_window" in entry:
            _window(check, entry["usage_window"], f"{where}.usage_window")


def _window(check: _Checker, value: Any, where: str) -> None:
    if not isinstance(value, dict) or set(value) != {"from", "to"}:
        check.add(where, "must be a mapping {from, to}")
        return
    check.timestamp(value["from"], f"{where}.from")
    check.timestamp(value["to"], f"{where}.to")


def check_index(path: str, content: bytes, is_root: bool) -> list[Problem]:
    """Problems of an index's front matter. Those of a person's own page in the index's place (a MkDocs home page)
    are warnings: `okf sync` never overwrites it, so failing on it would fail every run, yet OKF readers take it for
    the folder's index, which a person should know."""
    check = _Checker(path)
    page = Page.parse(content.decode("utf-8", "replace"))
    if not page.has_front_matter:
        return check.problems
    severity, whose = ("error", "") if is_generated_index(content) else ("warning", _PERSONS_PAGE)
    if not is_root:
        check.add("", "only the bundle's root index may carry front matter" + whose, severity)
        return check.problems
    try:
        fields = page.fields()
    except FrontMatterError as exc:
        check.add("", str(exc) + whose, severity)
        return check.problems
    extra = sorted(set(fields) - {"okf_version"})
    if extra:
        check.add(extra[0], "the root index's front matter holds only `okf_version`" + whose, severity)
    if "okf_version" in fields:
        version = fields["okf_version"]
        if not isinstance(version, str):
            check.add("okf_version", 'must be a quoted string, like "0.2"')
        elif version != "0.2":
            check.add("okf_version", f"is {version!r}; this is an OKF v0.2 bundle", "warning")
    return check.problems


def check_log(path: str, content: bytes) -> list[Problem]:
    check = _Checker(path)
    text = content.decode("utf-8", "replace")
    if Page.parse(text).has_front_matter:
        check.add("", "a log carries no front matter")
    for heading in (found.rstrip() for found in _LOG_HEADING.findall(text)):
        try:
            datetime.strptime(heading, "%Y-%m-%d")
        except ValueError:
            check.add("", f"log heading `## {heading}` must be a date, YYYY-MM-DD")
    return check.problems


def validate_bundle(files: Mapping[str, bytes], root: str = "") -> list[Problem]:
    """Every problem of the bundle whose files (paths below `root`) are given; dot folders are not part of it."""
    prefix = f"{root}/" if root else ""
    problems: list[Problem] = []
    for path in sorted(files):
        relative = path[len(prefix) :]
        parts = relative.split("/")
        if not relative.lower().endswith(".md") or any(part.startswith(".") for part in parts):
            continue
        name = parts[-1]
        if name == "index.md":
            problems.extend(check_index(path, files[path], is_root=len(parts) == 1))
        elif name == "log.md":
            problems.extend(check_log(path, files[path]))
        else:
            problems.extend(check_concept(path, files[path]))
    root_index = files.get(f"{prefix}index.md")
    if root_index is not None and "okf_version" not in _safe_fields(root_index):
        missing = Problem(f"{prefix}index.md", "okf_version", 'is missing; declare okf_version: "0.2"', "warning")
        problems.append(missing)
    return problems


def _safe_fields(content: bytes) -> dict[str, Any]:
    try:
        return Page.parse(content.decode("utf-8", "replace")).fields()
    except FrontMatterError:
        return {}
