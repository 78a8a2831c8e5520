"""The docs' generated parts, written from the code so they cannot drift from it: each command's synopsis and
options from the argparse parser (`bot.cli.build_parser`), every setting of `.github/wikiwarden.yml` from its
pydantic models, every `WIKIWARDEN_*` variable from the App's settings, and every output the docs and the README
show, made by running the commands (scripts/docs_outputs.py: the getting-started walkthrough, each command page's
example, the demo's excerpt).

Each part stands in a page between two markers; the prose around it is written by hand and never touched.

    python scripts/docs_reference.py --write   # rewrite the generated parts (also without --write)
    python scripts/docs_reference.py --check   # write nothing; exit 1 naming each page that differs

The test suite runs the check (tests/test_docs_site.py), so a changed flag, setting or output fails CI until the
pages are regenerated.
"""

from __future__ import annotations

import argparse
import re
import sys
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parent))  # docs_outputs, beside this script

from docs_outputs import output_blocks

from bot.cli import build_parser
from bot.settings import ENV_PREFIX, ModelSettings, Settings
from bot.usecases.config_file import RepoConfig

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
COMMANDS = DOCS / "reference" / "commands"
CONFIGURATION = DOCS / "reference" / "configuration.md"
BEGIN = "<!-- generated: {key} (python scripts/docs_reference.py writes this part; do not edit it by hand) -->"
END = "<!-- end generated: {key} -->"
_BLOCK = re.compile(r"<!-- generated: (?P<key>[\w .:-]+?) \(.*?\) -->\n.*?<!-- end generated: (?P=key) -->", re.S)


def _cell(text: str) -> str:
    """Text for one Markdown table cell: one line, no column break."""
    return " ".join(text.split()).replace("|", "\\|")


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return str(action.metavar)
    if action.choices is not None:
        return "{" + ",".join(str(choice) for choice in action.choices) + "}"
    return action.dest.upper()


def _is_switch(action: argparse.Action) -> bool:
    return action.nargs == 0


def _spelling(action: argparse.Action) -> str:
    """How the synopsis writes one argument (its own, stable rendering: argparse's changes between Pythons)."""
    if not action.option_strings:
        name = _metavar(action)
        return {"?": f"[{name}]", "*": f"[{name}...]", "+": f"{name}..."}.get(str(action.nargs), name)
    if isinstance(action, argparse.BooleanOptionalAction):
        return " | ".join(action.option_strings)
    longest = max(action.option_strings, key=len)
    return longest if _is_switch(action) else f"{longest} {_metavar(action)}"


def _arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        action
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction)
    ]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each subcommand's one-line help, as `wikiwarden --help` lists it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {choice.dest: choice.help or "" for choice in action._choices_actions}
    return {}


def _default(action: argparse.Action) -> str:
    if _is_switch(action) and not isinstance(action, argparse.BooleanOptionalAction):
        return ""
    if action.default is None or action.default is argparse.SUPPRESS:
        return ""
    if isinstance(action, argparse.BooleanOptionalAction):
        return f"`{action.option_strings[0] if action.default else action.option_strings[1]}`"
    return f"`{action.default}`"


def _command(name: str, parser: argparse.ArgumentParser, summary: str, level: int) -> Iterator[str]:
    arguments = _arguments(parser)
    synopsis = " ".join(
        [f"wikiwarden {name}"]
        + [_spelling(a) if not a.option_strings or a.required else f"[{_spelling(a)}]" for a in arguments]
    )
    subcommands = _subcommands(parser)
    if subcommands:
        synopsis += " ACTION ..."
    yield "## Usage" if level == 2 else f"{'#' * level} `wikiwarden {name}`"
    yield ""
    yield "```text"
    yield synopsis
    yield "```"
    yield ""
    words = parser.description or summary
    if words:
        yield _cell(words)
        yield ""
    if arguments:
        yield "| argument | default | what it does |"
        yield "|---|---|---|"
        for action in arguments:
            value = "" if _is_switch(action) else f" {_metavar(action)}"
            spelled = ", ".join(f"`{flag}{value}`" for flag in action.option_strings) or f"`{_metavar(action)}`"
            meaning = action.help or ""
            if action.choices is not None and action.metavar is None:
                meaning = (
                    (meaning + "; " if meaning else "")
                    + "one of "
                    + ", ".join(f"`{choice}`" for choice in action.choices)
                )
            if action.required and action.option_strings:
                meaning = "required; " + meaning
            yield f"| {spelled} | {_default(action)} | {_cell(meaning)} |"
        yield ""
    helps = _helps(parser)
    for sub, subparser in subcommands.items():
        yield from _command(f"{name} {sub}", subparser, helps.get(sub, ""), level + 1)


def command_blocks() -> dict[str, str]:
    """Each command's generated part, by the command's name."""
    parser = build_parser()
    helps = _helps(parser)
    return {name: "\n".join(_command(name, sub, helps.get(name, ""), 2)) for name, sub in _subcommands(parser).items()}


# ---- .github/wikiwarden.yml and WIKIWARDEN_* ----


def _type(annotation: Any) -> str:
    """A setting's type in words, from its annotation."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return " or ".join(f"`{value}`" for value in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type(arg) for arg in typing.get_args(annotation))
    if origin is tuple:
        return f"list of {_type(typing.get_args(annotation)[0])}s"
    name = getattr(annotation, "__name__", str(annotation))
    return {
        "StrictInt": "integer", "int": "integer", "StrictBool": "boolean", "bool": "boolean",
        "StrictStr": "string", "str": "string", "SecretStr": "string (secret)", "float": "number",
        "Path": "path", "NoneType": "null",
    }.get(name, name)  # fmt: skip


def _bounds(field: Any) -> str:
    words = []
    for item in field.metadata:
        for attribute, sign in (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤"), ("min_length", "length ≥")):
            bound = getattr(item, attribute, None)
            if bound is not None:
                words.append(f"{sign} {bound:,}" if isinstance(bound, int) else f"{sign} {bound}")
    return ", ".join(words)


def _shown(value: Any) -> str:
    if hasattr(value, "get_secret_value"):
        value = value.get_secret_value()
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, tuple):
        return "`[]`" if not value else "`[" + ", ".join(map(str, value)) + "]`"
    return f"`{value}`"


def _config_fields(model: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _config_fields(annotation, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", field


def config_block() -> str:
    """Every setting of `.github/wikiwarden.yml`: a table, then the whole file with its defaults."""
    lines = ["| setting | type | default | what it does |", "|---|---|---|---|"]
    for key, field in _config_fields(RepoConfig):
        kind = _type(field.annotation)
        bounds = _bounds(field)
        lines.append(
            f"| `{key}` | {kind}{f' ({bounds})' if bounds else ''} | {_shown(field.default)} | "
            f"{_cell(field.description or '')} |"
        )
    lines += ["", "The whole file, every setting at its default:", "", "```yaml"]
    defaults = RepoConfig().model_dump()
    section = ""
    for key, field in _config_fields(RepoConfig):
        *parents, leaf = key.split(".")
        value = defaults
        for part in key.split("."):
            value = value[part]
        if parents and parents[0] != section:
            lines.append(f"{parents[0]}:")
        section = parents[0] if parents else ""
        shown = _shown(value).strip("`")
        setting = f"{'  ' * len(parents)}{leaf}: {shown}"
        lines.append(f"{setting:<32}# {' '.join((field.description or '').split())}")
    lines.append("```")
    return "\n".join(lines)


def environment_block() -> str:
    """Every `WIKIWARDEN_*` variable of the App's settings, and which the command line's model reads too."""
    lines = ["| variable | type | default | read by | what it does |", "|---|---|---|---|---|"]
    for name, field in Settings.model_fields.items():
        required = field.is_required()
        default = "required" if required else _shown(field.default)
        readers = "`fix`, `ground`, the App" if name in ModelSettings.model_fields else "the App"
        bounds = _bounds(field)
        kind = _type(field.annotation) + (f" ({bounds})" if bounds else "")
        lines.append(
            f"| `{ENV_PREFIX}{name.upper()}` | {kind} | {default} | {readers} | {_cell(field.description or '')} |"
        )
    return "\n".join(lines)


def reference_blocks() -> dict[Path, dict[str, str]]:
    """The reference's generated parts (from the parser and the settings' models), by page and key."""
    pages: dict[Path, dict[str, str]] = {
        COMMANDS / f"{name.replace(' ', '-')}.md": {f"wikiwarden {name}": block}
        for name, block in command_blocks().items()
    }
    pages[CONFIGURATION] = {"wikiwarden.yml": config_block(), "environment": environment_block()}
    return pages


def blocks() -> dict[Path, dict[str, str]]:
    """Every generated part, by page and key: the reference's, and the outputs (the commands run anew)."""
    pages = reference_blocks()
    for page, parts in output_blocks().items():
        pages.setdefault(page, {}).update(parts)
    return pages


def rendered(page: Path, parts: dict[str, str]) -> str:
    """The page with its generated parts written anew; ValueError when a part has no markers in it."""
    return rendered_text(page.read_text(encoding="utf-8") if page.exists() else "", parts, page)


def rendered_text(text: str, parts: dict[str, str], page: Path) -> str:
    """`text`, a page's, with its generated parts written anew (the prose around them kept byte for byte)."""
    for key, block in parts.items():
        fresh = f"{BEGIN.format(key=key)}\n{block}\n{END.format(key=key)}"
        found = [m for m in _BLOCK.finditer(text) if m["key"] == key]
        if not found:
            raise ValueError(f"{page.relative_to(ROOT)}: no place for the generated part {key!r}: add the lines\n"
                             f"{BEGIN.format(key=key)}\n{END.format(key=key)}")  # fmt: skip
        text = text[: found[0].start()] + fresh + text[found[0].end() :]
    return text


def differing(pages: dict[Path, dict[str, str]]) -> list[str]:
    """Each page (relative to the repository) whose generated parts differ from `pages`' or have no place in it."""
    found = []
    for page, parts in pages.items():
        try:
            if page.read_text(encoding="utf-8") != rendered(page, parts):
                found.append(str(page.relative_to(ROOT)))
        except (ValueError, FileNotFoundError):
            found.append(str(page.relative_to(ROOT)))
    return found


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = args.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite every page that differs (the default)")
    mode.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each page that differs")
    options = args.parse_args(argv)
    stale, unplaced = [], []
    for page, parts in blocks().items():
        try:
            text = rendered(page, parts)
        except ValueError as exc:
            print(exc, file=sys.stderr)
            unplaced.append(page)
            continue
        if page.read_text(encoding="utf-8") != text:
            stale.append(page)
            if not options.check:
                page.write_text(text, encoding="utf-8")
    for page in stale:
        print(f"{'differs' if options.check else 'written'}: {page.relative_to(ROOT)}")
    for page in unplaced:
        print(f"not written (a generated part has no place in it): {page.relative_to(ROOT)}")
    return 1 if unplaced or (options.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
