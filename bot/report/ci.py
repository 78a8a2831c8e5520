"""A sweep report in CI's own formats: GitHub Actions workflow commands (`--format github`: annotations in the log,
on the run and on the pull request's diff) and SARIF 2.1.0 (`--format sarif`: GitHub code scanning and any other
SARIF reader). Both show the findings of `attention.findings`, located on the code.

Repository content is untrusted, and a workflow command is a line the runner acts on. Every value goes through
`inert.plain` (one line: no line break of its own; mentions defused) and then GitHub's escaping, the inverse of the
runner's parser (actions/runner `ActionCommand.TryParseV2`): `%`, CR and LF in the message; also `:` and `,` in a
property, which would otherwise end the property list or the property. So a statement holding `\\n::set-output` or
`::add-mask::` stays text inside one annotation and never starts a command of its own.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple
from urllib.parse import quote

from .. import __version__
from ..claims.results import SweepReport
from .attention import LEVELS, Finding, Place, findings
from .inert import plain
from .jsonout import dumps
from .phrasing import summary_line
from .wording import plural, printable

# -- GitHub Actions workflow commands --------------------------------------------------------------------

_COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}
_OTHER_LINE_BREAKS = re.compile("[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_UNGROUNDED_NAMED = 20


def escape_data(text: str) -> str:
    """A workflow command's message, as the runner reads it back: `%` first, so `%0A` in the text stays text.

    The runner ends a line only at CR or LF, but other readers of a log (Python's `splitlines`, editors) also end
    one at VT, FF, the information separators, NEL and the Unicode line and paragraph separators; GitHub has no
    escape for those, so they are shown as U+FFFD, as `printable` shows control characters."""
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return _OTHER_LINE_BREAKS.sub("\ufffd", escaped)


def escape_property(text: str) -> str:
    """A workflow command's property value: the message's escapes, and `:` and `,`, which end properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str, **properties: str | int | None) -> str:
    """One `::command key=value,...::message` line; properties that are None are left out."""
    given = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{command}{' ' + given if given else ''}::{escape_data(message)}"


def _annotation(finding: Finding) -> str:
    message = finding.message
    if finding.details:  # code, shown as it is (control characters made visible), one line each
        message += "\n\n" + "\n".join(printable(line) for line in finding.details)
    return workflow_command(
        _COMMANDS[finding.level],
        message,
        file=finding.place.path,
        line=finding.place.start,
        endLine=finding.place.end,
        title=finding.title,
    )


def render_github(report: SweepReport, attention_only: bool = True) -> str:
    """Workflow commands, worst first: an annotation per finding (errors, then warnings, then, without
    `attention_only`, a notice per evidence re-anchored and one for the pages without claims), then a one-line
    summary notice. GitHub shows only so many annotations of a step; the log keeps every line."""
    found = findings(report, text=plain, reanchored=not attention_only, notes=not attention_only)
    found.sort(key=lambda f: LEVELS.index(f.level))
    lines = [_annotation(finding) for finding in found]
    if not attention_only and report.ungrounded_pages:
        pages = report.ungrounded_pages
        named = ", ".join(plain(page) for page in pages[:_UNGROUNDED_NAMED])
        more = f" and {len(pages) - _UNGROUNDED_NAMED} more" if len(pages) > _UNGROUNDED_NAMED else ""
        message = f"{plural(len(pages), 'page has', 'pages have')} no claims, so nothing checks them: {named}{more}."
        lines.append(workflow_command("notice", message, title="Wikiwarden: pages without claims"))
    verdict = "The wiki needs attention." if report.needs_attention else "Nothing needs attention."
    lines.append(workflow_command("notice", f"{summary_line(report)}. {verdict}", title="Wikiwarden"))
    return "\n".join(lines) + "\n"


# -- SARIF 2.1.0 ---------------------------------------------------------------------------------------------

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/wikiwarden/wikiwarden"
SRCROOT = "%SRCROOT%"
# GitHub code scanning rejects a run of more than 25,000 results; the worst are kept.
SARIF_RESULT_LIMIT = 25_000
FINGERPRINT_KEY = "wikiwarden/v1"


class Rule(NamedTuple):
    id: str
    name: str
    short: str
    full: str
    help: str


_FIX = (
    "If it still holds, `wikiwarden claim confirm ID` records its evidence as it stands now; otherwise correct "
    "the page and `wikiwarden claim retract ID` or replace the claim. `wikiwarden fix` does this with a model."
)
RULES: dict[str, Rule] = {
    rule.id.removeprefix("wikiwarden/"): rule
    for rule in (
        Rule(
            "wikiwarden/stale",
            "StaleClaim",
            "A wiki claim's evidence changed",
            "The code a wiki page's claim cites as its evidence changed since the claim was last checked, so the "
            "claim may no longer be true.",
            f"Read the claim against the code shown. {_FIX}",
        ),
        Rule(
            "wikiwarden/unresolved",
            "UnresolvedClaim",
            "A wiki claim's evidence is gone",
            "The text a wiki page's claim cites as its evidence, or the file holding it, is no longer in the "
            "repository, and it was not found moved elsewhere.",
            "Point the claim at the code that now supports it (`wikiwarden claim add` with the new evidence), or "
            "retract it (`wikiwarden claim retract ID`) and correct the page.",
        ),
        Rule(
            "wikiwarden/error",
            "ClaimError",
            "A wiki claim cannot be checked",
            "A wiki page's claim cannot be checked: its evidence names no readable file (a bad resource, a symlink, "
            "a binary, oversized or ignored file), or its id is used twice.",
            "The message says why. Mend the claim's evidence in the page's sidecar, or retract the claim.",
        ),
        Rule(
            "wikiwarden/broken-reference",
            "BrokenReference",
            "A wiki page names code that is gone",
            "A code span or link of a wiki page names a definition or a file that was removed or renamed, or a "
            "path that does not exist.",
            "Correct the page: name the definition by its new name, or describe what replaced it.",
        ),
        Rule(
            "wikiwarden/unreadable-sidecar",
            "UnreadableSidecar",
            "A wiki page's claims cannot be read",
            "The sidecar file holding a wiki page's claims (openwiki/.claims/) cannot be used, so none of the "
            "page's claims were checked.",
            "The message says why. Repair the sidecar (it is JSON, OpenWiki's claims schema v1) or restore it.",
        ),
    )
}
_RULE_INDEX = {key: index for index, key in enumerate(RULES)}


def sarif_text(text: str) -> str:
    """An untrusted value in a SARIF message: one inert line whose brackets cannot form an embedded link
    (`[text](1)` is a link to a related location in SARIF's plain-text messages)."""
    return plain(text).replace("[", "\\[").replace("]", "\\]")


def artifact_uri(path: str) -> str:
    """A repository path as a relative URI reference: every character but letters, digits, `/` and `_.-~`
    percent-encoded (UTF-8), so a space, a `#`, a `%` or a `:` in the first segment cannot change its meaning."""
    return quote(path.encode("utf-8", "surrogateescape"), safe="/")


def _location(place: Place) -> dict[str, Any]:
    start = place.start or 1  # the file as a whole: code scanning needs a line, so its first
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": artifact_uri(place.path), "uriBaseId": SRCROOT},
            "region": {"startLine": start, "endLine": max(start, place.end or start)},
        }
    }


def _properties(finding: Finding) -> dict[str, Any]:
    """What the finding is about, as data (JSON-encoded, so raw values are safe here)."""
    properties: dict[str, Any] = {"page": finding.page.path}
    if finding.claim is not None:
        properties.update(claim=finding.claim.id, statement=finding.claim.statement, touched=finding.claim.touched)
    if finding.evidence is not None:
        evidence = finding.evidence
        properties.update(verdict=evidence.verdict.value, resource=evidence.resource, resourceNow=evidence.resource_now)
    if finding.reference is not None:
        ref = finding.reference
        properties.update(
            line=ref.line,
            text=ref.text,
            target=ref.target,
            what=ref.what,
            renamedTo=ref.renamed_to,
            attention=ref.attention,
            note=ref.note,
        )
    return properties


def _result(finding: Finding) -> dict[str, Any]:
    rule = RULES[finding.rule]
    result: dict[str, Any] = {
        "ruleId": rule.id,
        "ruleIndex": _RULE_INDEX[finding.rule],
        "level": finding.level,
        "message": {"text": finding.message},
        "locations": [_location(finding.place)],
    }
    if finding.page != finding.place:
        page = {"id": 1, **_location(finding.page), "message": {"text": "the wiki page"}}
        result["relatedLocations"] = [page]
    result["partialFingerprints"] = {FINGERPRINT_KEY: finding.fingerprint}
    result["properties"] = _properties(finding)
    return result


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.short},
        "fullDescription": {"text": rule.full},
        "help": {"text": rule.help, "markdown": rule.help},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["documentation", "maintainability"], "precision": "very-high"},
    }


def sarif_log(report: SweepReport, max_results: int = SARIF_RESULT_LIMIT) -> dict[str, Any]:
    """The SARIF log: one run of Wikiwarden, a result per finding that needs attention (never re-anchored
    evidence: a result is an alert) and per broken reference that is only a note (level `note`), errors before
    warnings before notes, at most `max_results` of them."""
    found = sorted(findings(report, text=sarif_text), key=lambda f: LEVELS.index(f.level))
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "Wikiwarden",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_rule(rule) for rule in RULES.values()],
            }
        },
        "results": [_result(finding) for finding in found[:max_results]],
    }
    if len(found) > max_results:
        left_out = plural(len(found) - max_results, "more result was", "more results were")
        notification = {"level": "warning", "message": {"text": f"{left_out} left out (limit {max_results})."}}
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [notification]}]
    run["properties"] = {
        "mode": report.mode,
        "head": report.head,
        "base": report.base,
        "wikiDir": report.wiki_dir,
        "summary": report.summary,
        "needsAttention": report.needs_attention,
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def render_sarif(report: SweepReport, max_results: int = SARIF_RESULT_LIMIT) -> str:
    return dumps(sarif_log(report, max_results))


__all__ = (
    "RULES",
    "SARIF_RESULT_LIMIT",
    "SARIF_SCHEMA",
    "artifact_uri",
    "escape_data",
    "escape_property",
    "render_github",
    "render_sarif",
    "sarif_log",
    "sarif_text",
    "workflow_command",
)
