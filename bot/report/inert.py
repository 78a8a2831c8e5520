"""Untrusted text (repository content, model output) made inert before it reaches GitHub.

What GitHub does with text, and so what must not pass (GitHub Docs, "Autolinked references and URLs", "Linking a
pull request to an issue", "Basic writing and formatting syntax"):

- `@login` and `@org/team` notify those people; `#123`, `GH-123`, `owner/repo#123` and the URL of an issue or pull
  request link to it and leave a cross-reference on it; after a closing keyword (`closes`, `fixes`, `resolves`...)
  in a pull request's body, or in a commit message reaching the default branch, they close it on merge.
- GitHub finds these in plain text as much as in Markdown: pull request titles, commit messages (the fix's commit
  message is its title; a squash merge can copy the body into one) and email replies quoting a body. A Markdown
  escape (`\\#1`) or a code span protects only where Markdown is rendered. So the defence is in the characters:
  a WORD JOINER (U+2060) goes between the trigger and what follows it (`@⁠login`, `#⁠1`, `GH-⁠1`, `https:⁠//`,
  `www⁠.`). It is invisible and not whitespace (the line cannot break after an `@`), and no reference pattern
  matches across it; Dependabot and Renovate defuse mentions the same way with a zero-width space. A closing
  keyword followed by no reference closes nothing, so keywords themselves are left alone.
- Only what GitHub would act on is touched: an `@` before a letter or digit, a `#` before a digit, `GH-` before a
  digit, the `://` of http, https and ftp URLs (what GFM autolinks, issue URLs among them) and `www.`. Resources
  (`repo://src/q.py#L3-L9`), claim ids, paths and branch names without those stay byte for byte, so they can be
  copied from GitHub into `wikiwarden claim confirm`. Custom autolinks a repository configures (`JIRA-1`) only
  link out and notify nobody; they are left alone.

Then each context gets its form:

- `prose` for running Markdown (bold text, a list item, a table cell, a heading): one line; `&`, `<` and `>` as
  entities (no raw HTML, no entity turning into a `@`); every character that opens inline structure escaped
  (backslash, backtick, `*`, `_`, `[`, `]`, `|`, `~`, `$`, `#`), and the block markers a line can start with
  (`+`, `-`, `=`, `1.`, `1)`); `>` is an entity already. Nothing it holds can close the bold or the cell around
  it or start a block, and it reads exactly as written.
- `code` for an inline code span (ids, pages, resources, branch and model names): CommonMark's rule, a backtick
  run longer than any inside, padded with a space when the text starts or ends with a backtick or a space; line
  breaks are spaces (a blank line would end the paragraph). Not for table cells: `|` would split the row there.
- `fence` for a fenced code block (a diff): backticks outnumbering any run in the content, so no line closes it.
  Code shown as code (the check run's diffs, an annotation's `raw_details`) is left verbatim: GitHub makes no
  mention or reference inside it, those surfaces never become commit messages or emails, and code copied from
  them must be the code.
- `plain` for GitHub's plain-text fields, which render no Markdown (a pull request's or check run's title, an
  annotation's title and message): one line, defused; `defuse` keeps the lines of a longer plain text.
"""

from __future__ import annotations

import re

from .wording import one_line, printable

WORD_JOINER = "\u2060"
# Zero-width positions inside what GitHub would act on: after an @ or a # or GH- that a reference continues,
# between a URL scheme and its //, between www and its dot.
_TRIGGERS = re.compile(
    r"(?<=@)(?=[^\W_])|(?<=#)(?=\d)"
    r"|(?i:(?<=GH-)(?=\d)|(?<=https:)(?=//)|(?<=http:)(?=//)|(?<=ftp:)(?=//)|(?<=\bwww)(?=\.))"
)
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_SPECIAL = re.compile(r"[&<>\\`*_\[\]|~$#]")
_BLOCK_START = re.compile(r"^(?:[+=-]|\d{1,9}(?=[.)]))")
_BACKTICKS = re.compile(r"`+")
_LINE_ENDING = re.compile(r"\r\n|\r|\n")


def defuse(text: str) -> str:
    """`text` with every mention, issue reference and autolinked URL broken by an invisible word joiner; lines kept."""
    return _TRIGGERS.sub(WORD_JOINER, printable(text))


def plain(text: str) -> str:
    """One inert line for a plain-text field (a title, an annotation's title): no Markdown is rendered there."""
    return defuse(one_line(text))


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    return _ENTITIES.get(char) or "\\" + char


def prose(text: str) -> str:
    """Untrusted text in running Markdown: one line that reads as written and cannot restructure the document."""
    escaped = _SPECIAL.sub(_escape, plain(text))
    start = _BLOCK_START.match(escaped)
    if start is None:
        return escaped
    if start.group()[0].isdigit():  # an ordered list's number: escape the delimiter after it
        return escaped[: start.end()] + "\\" + escaped[start.end() :]
    return "\\" + escaped


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def code(text: str) -> str:
    """Untrusted text as one inline code span that nothing inside can close."""
    content = defuse(_LINE_ENDING.sub(" ", text))
    ticks = "`" * (_longest_backtick_run(content) + 1)
    if not content.strip(" "):
        return f"{ticks}{content or ' '}{ticks}"
    pad = " " if content[0] in "` " or content[-1] in "` " else ""
    return f"{ticks}{pad}{content}{pad}{ticks}"


def fence(content: str) -> str:
    """The backtick fence of a code block holding `content`: longer than any backtick run inside it."""
    return "`" * max(3, _longest_backtick_run(content) + 1)


__all__ = ("WORD_JOINER", "code", "defuse", "fence", "plain", "prose")
