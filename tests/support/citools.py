"""Reading CI formats the way CI reads them: workflow commands and GITHUB_OUTPUT files as the GitHub Actions runner
parses them, SARIF against the official schema.

`runner_commands` follows actions/runner (`src/Runner.Common/ActionCommand.cs`, `TryParseV2`): the runner reads
its step's output line by line (a line ends at LF, CR or CRLF), trims the start of each line, and a line is a
command when it starts with `::`, the text up to the next `::` is a registered command name (and, after a space,
`key=value` properties split at `,` and at the first `=`), the rest its data. Properties unescape `%0D`, `%0A`,
`%3A`, `%2C` and then `%25`; data `%0D`, `%0A`, then `%25`: in that order, as the runner does.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator, FormatChecker

# Commands the runner registers (ActionCommandManager's extensions, and stop-commands).
REGISTERED = {
    "add-mask",
    "add-matcher",
    "add-path",
    "debug",
    "echo",
    "endgroup",
    "error",
    "group",
    "notice",
    "remove-matcher",
    "save-state",
    "set-env",
    "set-output",
    "stop-commands",
    "warning",
}
ANNOTATIONS = {"error", "warning", "notice"}
SCHEMA = Path(__file__).parents[1] / "data" / "sarif" / "sarif-schema-2.1.0.json"
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"


@dataclass
class Command:
    name: str
    properties: dict[str, str] = field(default_factory=dict)
    data: str = ""


def _unescape(text: str, mappings: list[tuple[str, str]]) -> str:
    for escaped, char in mappings:
        text = text.replace(escaped, char)
    return text


_DATA = [("%0D", "\r"), ("%0A", "\n"), ("%25", "%")]
_PROPERTY = [("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")]


def parse_line(line: str) -> Command | None:
    """The command the runner finds on one line of output, or None."""
    message = line.lstrip()
    if not message.startswith("::"):
        return None
    end = message.find("::", 2)
    if end < 0:
        return None
    info = message[2:end]
    name, _, props = info.partition(" ")
    if name.lower() not in REGISTERED:
        return None
    command = Command(name.lower())
    for prop in (p for p in props.strip().split(",") if p):
        key, sep, value = prop.partition("=")
        if sep and key and value:
            command.properties[key] = _unescape(value, _PROPERTY)
    command.data = _unescape(message[end + 2 :], _DATA)
    return command


def runner_lines(output: str) -> list[str]:
    """The lines the runner reads (.NET's ReadLine: a line ends at CRLF, CR or LF; nothing else)."""
    return [line for line in re.split(r"\r\n|\r|\n", output) if line]


def runner_commands(output: str) -> list[Command | None]:
    """Each line's command, None for a line that is no command."""
    return [parse_line(line) for line in runner_lines(output)]


def annotations(output: str) -> list[Command]:
    """The output's commands, asserting every line is one and only an annotation (never set-output, add-mask...)."""
    commands = runner_commands(output)
    assert all(c is not None for c in commands), [line for line in runner_lines(output) if parse_line(line) is None]
    found = [c for c in commands if c is not None]
    assert {c.name for c in found} <= ANNOTATIONS, [c.name for c in found]
    return found


@cache
def _schema() -> dict[str, Any]:
    raw = SCHEMA.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == SCHEMA_SHA256, "tests/data/sarif/sarif-schema-2.1.0.json was edited"
    return json.loads(raw)


def sarif_schema() -> dict[str, Any]:
    return _schema()


def sarif_errors(log: Any) -> list[str]:
    """Every way `log` breaks the SARIF 2.1.0 schema, formats included (`uri`, `uri-reference`: rfc3986-validator)."""
    checker = FormatChecker(["uri", "uri-reference"])
    assert {"uri", "uri-reference"} <= set(checker.checkers), "rfc3986-validator is missing: formats would go unchecked"
    validator = Draft4Validator(_schema(), format_checker=checker)
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(log)]


# -- reports to render -------------------------------------------------------------------------------------------

# What repository content could hold to break out of an annotation: a second command on a line of its own (LF,
# CR, CRLF, and separators the runner does not split on), escapes the runner would decode, property delimiters,
# the legacy ##[ syntax, an embedded SARIF link, mentions.
INJECTION = (
    "true.\n::set-output name=pwned::1\r::add-mask::hunter2\r\n::stop-commands::tok "
    "%0A::error::fake %25 %3A %2C , : ::warning file=x.py::y ##[set-output name=a]b "
    "\u2028::notice::ls \x85::debug::nel [link](1) @octocat #7"
)


def demo_reports(root: Path) -> tuple[Any, Any]:
    """The demo repository (every verdict, a broken reference) built at `root`: its diff-aware check from v1 to v2,
    and its full sweep of v2."""
    from bot.demo import build_demo_repository
    from bot.source.git import GitRepository
    from bot.usecases.check import check_repository

    build_demo_repository(root)
    with GitRepository(root) as repo:
        return check_repository(repo, base="v1", head="v2"), check_repository(repo, base=None, head="v2")


HOSTILE_PATH = "src/we,ird:na%me #1\n::error::x.py"  # git allows any byte but NUL and / in a name
HOSTILE_CITED = "src/we,ird:na%me #1 ::error::x.py"  # a resource allows no control character


def hostile_report(base: str | None = "base") -> Any:
    """A report whose every untrusted string (statement, id, page, sidecar, resources, paths, reasons, reference)
    carries `INJECTION`, with one finding of each kind."""
    from bot.claims.results import BrokenReference, ClaimResult, EvidenceResult, PageResult, SweepReport
    from bot.claims.verdicts import OpenWikiVerdict, Verdict

    path = HOSTILE_PATH
    encoded = "src/we%2Cird%3Ana%25me%20%231%20%3A%3Aerror%3A%3Ax.py"
    stale = EvidenceResult(
        f"repo://{encoded}#L1-L2", "v", Verdict.STALE, OpenWikiVerdict.STALE, span=(3, 4),
        resource_now=f"repo://{encoded}#L3-L4", version_now="v2", touched=True,
        old_text=f"x = 1\n{INJECTION}\n", new_text="x = 2\n::set-output name=diff::1\n",
    )  # fmt: skip
    gone = EvidenceResult(
        "repo://src/gone.py#L1-L1", "v", Verdict.UNRESOLVED, OpenWikiVerdict.UNRESOLVED, touched=True,
        old_text=INJECTION, anchor=(path, 7),
    )  # fmt: skip
    errored = EvidenceResult("repo://src/e.py#L1", "v", Verdict.ERROR, None, error=INJECTION, touched=True)
    claim = ClaimResult(f"claim_{INJECTION}", INJECTION, Verdict.ERROR, True, (stale, gone, errored), error=INJECTION)
    page = PageResult(f"openwiki/{INJECTION}.md", "openwiki/.claims/p.json", None, (claim,))
    unreadable = PageResult("openwiki/u.md", f"openwiki/.claims/{INJECTION}.json", INJECTION)
    ref = BrokenReference(page.page, 3, INJECTION, INJECTION, path, "renamed", renamed_to=INJECTION, at=(path, 9))
    return SweepReport("head", base, "openwiki", (page, unreadable), broken_references=(ref,))


def parse_output_file(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it (actions/runner `SetOutputFileCommand`): `name=value` lines, and
    `name<<DELIMITER` followed by the value's lines up to a line that is exactly the delimiter."""
    values, lines, i = {}, text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value_lines = []
            while lines[i] != delimiter:
                value_lines.append(lines[i])
                i += 1
            i += 1
            values[name] = "\n".join(value_lines)
        else:
            name, value = line.split("=", 1)
            values[name] = value
    return values
