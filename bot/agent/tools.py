"""The agent's tools, read-only: more lines of a file, and a literal search. Both go through the CodeView,
so they obey the evidence rules (no symlinks, binaries, ignored files, sidecars or secrets of the wiki)."""

from __future__ import annotations

import json
from typing import Any

from ..claims.errors import Problem
from ..fix.view import CodeView
from .prompts import fence

MAX_LINES = 200
NEWLINE = "\n"

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read_lines",
            "description": "Read lines of a file of the repository at the commit under review (1-based, inclusive; "
            f"at most {MAX_LINES} lines at a time).",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "the file, relative to the repository root"},
                    "start": {"type": "integer", "minimum": 1},
                    "end": {"type": "integer", "minimum": 1},
                },
                "required": ["path", "start", "end"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Find lines containing a literal text in the files the change touched and the folders "
            "of this page's evidence. Case-sensitive; at most 30 hits.",
            "parameters": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "within": {"type": "string", "description": 'a folder to search in, or "" for all of them'},
                },
                "required": ["text", "within"],
                "additionalProperties": False,
            },
        },
    },
]


async def run_tool(name: str, arguments: str, view: CodeView) -> str:
    """The tool's answer as text for the model (an error is an answer too: the model can correct itself)."""
    try:
        args = json.loads(arguments or "{}")
        if not isinstance(args, dict):
            raise ValueError("arguments must be a JSON object")
    except ValueError as exc:
        return f"error: the arguments are not a JSON object ({exc})"
    if name == "read_lines":
        path, start, end = args.get("path"), args.get("start"), args.get("end")
        if (
            not isinstance(path, str)
            or not isinstance(start, int)
            or not isinstance(end, int)
            or start < 1
            or end < start
        ):
            return "error: read_lines needs a path and 1 <= start <= end"
        text = await view.read(path.lstrip("/"))
        if text is None:
            return f"error: {path} does not exist"
        if isinstance(text, Problem):
            return f"error: {text.message}"
        end = min(end, start + MAX_LINES - 1, text.line_count)
        if start > text.line_count:
            return f"error: {path} has only {text.line_count} lines"
        body = "".join(f"{n}: {text.lines[n - 1].decode('utf-8', 'replace')}" for n in range(start, end + 1))
        return f"{path} lines {start}-{end} of {text.line_count}:\n{fence(body.rstrip(NEWLINE))}"
    if name == "search":
        needle, within = args.get("text"), args.get("within", "")
        if not isinstance(needle, str) or not needle.strip() or not isinstance(within, str):
            return "error: search needs a non-empty text"
        hits = await view.search(needle, within.lstrip("/"))
        if not hits:
            return "no line contains that text"
        return fence("\n".join(f"{h.path}:{h.line}: {h.text}" for h in hits))
    return f"error: there is no tool {name!r}"
