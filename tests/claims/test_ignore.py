""".openwikiignore rules (IgnoreRules): gitignore-like, last match wins, case-insensitive (spec §1.6)."""

from __future__ import annotations

import re

import pytest
from deadline import finishes
from hypothesis import given
from hypothesis import strategies as st

from bot.claims.ignore import MAX_PATTERN_CHARS, MAX_PATTERNS, IgnoreLimitError, IgnoreRules
from bot.claims.resources import normalize_posix

# (rules file, path, ignored?)
CASES: list[tuple[str, str, bool]] = [
    # Blank lines and `#` comments are skipped; lines are trimmed.
    ("", "anything.py", False),
    ("\n\n   \n\t\n", "anything.py", False),
    ("# secret.txt\n", "secret.txt", False),
    ("# secret.txt\n", "# secret.txt", False),
    ("   # indented comment\n", "# indented comment", False),
    ("  secret.txt  \n", "secret.txt", True),
    ("\tsecret.txt\t\n", "secret.txt", True),
    ("secret.txt\r\n", "secret.txt", True),
    ("a.txt\r\nb.txt\r\n", "b.txt", True),
    ("first.txt\nsecond.txt", "second.txt", True),
    # `!` negates; the last matching rule wins.
    ("*.log\n!keep.log\n", "app.log", True),
    ("*.log\n!keep.log\n", "keep.log", False),
    ("*.log\n!keep.log\n", "sub/dir/keep.log", False),
    ("!keep.log\n*.log\n", "keep.log", True),
    ("*.log\n!keep.log\nkeep.log\n", "keep.log", True),
    ("!anything.py\n", "anything.py", False),
    ("secret/\n!secret/public.txt\n", "secret/public.txt", False),
    ("secret/\n!secret/public.txt\n", "secret/private.txt", True),
    ("secret/\n!secret/public.txt\n", "other/secret/public.txt", True),
    ("data/\n!data/keep/\n", "data/keep/x.csv", False),
    ("data/\n!data/keep/\n", "data/drop/x.csv", True),
    # A leading `/` anchors to the root.
    ("/build\n", "build", True),
    ("/build\n", "build/out.js", True),
    ("/build\n", "src/build", False),
    ("/build\n", "src/build/out.js", False),
    ("/build\n", "builds/out.js", False),
    # So does an embedded `/`.
    ("docs/internal\n", "docs/internal", True),
    ("docs/internal\n", "docs/internal/plan.md", True),
    ("docs/internal\n", "a/docs/internal/plan.md", False),
    ("docs/internal\n", "docs/internals/plan.md", False),
    ("/docs/*.md\n", "docs/a.md", True),
    ("/docs/*.md\n", "docs/sub/a.md", False),
    ("/docs/*.md\n", "x/docs/a.md", False),
    # Unanchored names match at any depth, as a file or as a folder.
    ("build\n", "build", True),
    ("build\n", "src/build", True),
    ("build\n", "src/build/out.js", True),
    ("build\n", "a/b/c/build/d/e.js", True),
    ("build\n", "builds", False),
    ("build\n", "rebuild", False),
    ("build\n", "src/rebuild/out.js", False),
    ("build\n", "build.txt", False),
    ("*.md\n", "README.md", True),
    ("*.md\n", "deep/er/notes.md", True),
    ("*.md\n", "notes.mdx", False),
    # A trailing `/` is directory-only: everything below the folder, never a file of that name.
    ("logs/\n", "logs/a.txt", True),
    ("logs/\n", "logs/2024/01/a.txt", True),
    ("logs/\n", "app/logs/a.txt", True),
    ("logs/\n", "logs", False),
    ("logs/\n", "app/logs", False),
    ("logs/\n", "logs.txt", False),
    ("logs/\n", "mylogs/a.txt", False),
    ("/logs/\n", "logs/a.txt", True),
    ("/logs/\n", "app/logs/a.txt", False),
    ("docs/tmp/\n", "docs/tmp/x.md", True),
    ("docs/tmp/\n", "docs/tmp", False),
    ("docs/tmp/\n", "a/docs/tmp/x.md", False),
    ("logs//\n", "logs/a.txt", True),
    # `*` matches within one segment only.
    ("*.py\n", "a.py", True),
    ("*.py\n", "src/pkg/a.py", True),
    ("*.py\n", "a.pyc", False),
    ("*.py\n", "a.py/inside.txt", True),
    ("src/*.py\n", "src/a.py", True),
    ("src/*.py\n", "src/sub/a.py", False),
    ("src/*.py\n", "lib/src/a.py", False),
    ("src/*\n", "src/a", True),
    ("src/*\n", "src/sub/deep.py", True),
    ("src/*\n", "src", False),
    ("a*z\n", "abcz", True),
    ("a*z\n", "az", True),
    ("/a*z\n", "a/z", False),
    ("test_*.py\n", "tests/test_x.py", True),
    ("test_*.py\n", "tests/x_test.py", False),
    # `?` is one character, never a slash.
    ("?.txt\n", "a.txt", True),
    ("?.txt\n", "dir/b.txt", True),
    ("?.txt\n", "ab.txt", False),
    ("?.txt\n", ".txt", False),
    ("file?.md\n", "file1.md", True),
    ("file?.md\n", "file10.md", False),
    ("/a?b\n", "a/b", False),
    ("/a?b\n", "axb", True),
    # `**/` is zero or more folders.
    ("**/cache\n", "cache", True),
    ("**/cache\n", "a/cache", True),
    ("**/cache\n", "a/b/cache/x.bin", True),
    ("**/cache\n", "a/mycache", False),
    ("**/*.secret\n", "k.secret", True),
    ("**/*.secret\n", "x/y/k.secret", True),
    ("a/**/b\n", "a/b", True),
    ("a/**/b\n", "a/x/b", True),
    ("a/**/b\n", "a/x/y/b/z.txt", True),
    ("a/**/b\n", "x/a/b", False),
    ("a/**/b\n", "a/xb", False),
    ("/a/**/b\n", "a/x/b", True),
    # A trailing `/**` is everything inside the folder; a bare `**` is everything.
    ("docs/**\n", "docs/x.md", True),
    ("docs/**\n", "docs/a/b/c.md", True),
    ("docs/**\n", "docs", False),
    ("docs/**\n", "other/docs/x.md", False),
    ("**\n", "a", True),
    ("**\n", "a/b/c.txt", True),
    ("**\n!keep/**\n", "keep/x", False),
    ("**\n!keep/**\n", "drop/x", True),
    # Every other character is literal.
    ("a+b.txt\n", "a+b.txt", True),
    ("a+b.txt\n", "aab.txt", False),
    ("x.md\n", "xamd", False),
    ("(draft).md\n", "(draft).md", True),
    ("$HOME\n", "$HOME/x", True),
    ("a|b\n", "a", False),
    # Matching is case-insensitive, in both directions.
    ("SECRET/\n", "secret/x.py", True),
    ("SECRET/\n", "Secret/X.PY", True),
    ("secret/\n", "SECRET/x.py", True),
    ("*.LOG\n", "app.log", True),
    ("*.log\n", "APP.LOG", True),
    ("/Docs/Internal\n", "docs/internal/plan.md", True),
    ("*.log\n!KEEP.log\n", "keep.LOG", False),
    ("Straße.md\n", "STRASSE.md", False),
    ("ÉTÉ/\n", "été/x.md", True),
    # A rule on a folder covers everything below it.
    ("vendor\n", "vendor/a/b/c.py", True),
    ("src/generated\n", "src/generated/x/y.py", True),
    ("*.d\n", "conf.d/settings", True),
    ("node_modules\n", "packages/app/node_modules/left-pad/index.js", True),
    # Empty patterns are dropped.
    ("/\n", "x", False),
    ("!\n", "x", False),
    ("!/\n", "x", False),
]


@pytest.mark.parametrize(("rules", "path", "expected"), CASES)
def test_ignored(rules: str, path: str, expected: bool) -> None:
    assert IgnoreRules(rules).ignored(path) is expected


@pytest.mark.parametrize(
    ("rules", "active"),
    [("", False), ("\n# only a comment\n  \n", False), ("/\n!\n", False), ("x\n", True), ("!x\n", True)],
)
def test_rules_are_active_only_when_some_rule_was_parsed(rules: str, active: bool) -> None:
    assert bool(IgnoreRules(rules)) is active


def test_default_is_empty() -> None:
    assert not IgnoreRules()
    assert IgnoreRules().ignored("anything/at/all.py") is False


@pytest.mark.parametrize("space", ["\ufeff", "\u00a0", "\u2028", "\u3000", "\u000b", "\u000c"])
def test_lines_are_trimmed_as_javascript_trims(space: str) -> None:
    # OpenWiki reads the file as UTF-8 without stripping a BOM, then String.prototype.trim()s every line,
    # which removes U+FEFF and every other JS whitespace character.
    rules = IgnoreRules(f"{space}secret/{space}\n{space}*.key\n")
    assert rules.ignored("secret/x.py")
    assert rules.ignored("deep/id.key")
    assert not rules.ignored("public/x.py")


def test_byte_order_mark_does_not_disable_the_first_rule() -> None:
    assert IgnoreRules("\ufeffsecret/\nprivate/\n").ignored("secret/token.txt")


@pytest.mark.parametrize(
    "path",
    [
        "secret/token.txt",
        "./secret/token.txt",
        "/secret/token.txt",
        "secret//token.txt",
        "secret/./token.txt",
        "other/../secret/token.txt",
        "../secret/token.txt",
        "./other/../secret/token.txt",
    ],
)
def test_paths_are_normalized_before_matching(path: str) -> None:
    # §1.6: `.`/`..` are collapsed and the path is anchored to the root, so no spelling slips past a rule.
    assert IgnoreRules("/secret\n").ignored(path)


@pytest.mark.parametrize("path", ["public/x.py", "./public/x.py", "secret/../public/x.py"])
def test_normalized_paths_outside_a_rule_stay_visible(path: str) -> None:
    assert not IgnoreRules("/secret\n").ignored(path)


# --- linear in the path, whatever the pattern; bounded patterns ------------------------------------------------------

HOSTILE_GLOBS = {
    # (the glob, the path as Python): the 33 bytes against a page of 40 `a`s took years
    "**a x10 **b, 40 a's": ("**a**a**a**a**a**a**a**a**a**a**b", "'a' * 40"),
    "**a x10 **b, 1 MiB of a's": ("**a**a**a**a**a**a**a**a**a**a**b", "'a' * MIB"),
    "*a x10 *b, 1 MiB of a's": ("*a*a*a*a*a*a*a*a*a*a*b", "'a' * MIB"),
    "/**/a x4 /**/b, 1 MiB of a/": ("/**/a/**/a/**/a/**/a/**/b", "'a/' * (MIB // 2)"),
    "?* x499, 1 MiB of a's in a folder": ("?*" * 499, "'a' * MIB + '/'"),
    "*a x498 *b, 1 MiB of a's": ("*a" * 498 + "*b", "'a' * MIB"),
}

MATCH = """
import sys
from bot.claims.ignore import IgnoreRules
MIB = 1024 * 1024
rules = IgnoreRules(sys.argv[1] + "\\n" + "!" + sys.argv[1])  # the negation: both rules are read to the end
print(rules.ignored(eval(sys.argv[2])), IgnoreRules(sys.argv[1]).ignored(eval(sys.argv[2])))
"""


@pytest.mark.parametrize("name", HOSTILE_GLOBS)
def test_a_hostile_glob_is_matched_in_time(name: str) -> None:
    glob, path = HOSTILE_GLOBS[name]
    expected = "True" if glob.startswith("?*") else "False"  # only `?*...` matches (its folder)
    assert finishes(MATCH, 30, (glob, path)).split() == ["False", expected]


def _regex_translation(glob: str) -> str:
    """The regex each rule was (kept as the reference the automaton must agree with; exponential on hostile globs)."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] in "*?":
            out.append("[^/]*" if glob[i] == "*" else "[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


def _regex_ignored(glob: str, path: str) -> bool:
    line = glob.rstrip("/")
    body = _regex_translation(line.lstrip("/"))
    pattern = re.compile(f"^{body}$" if "/" in line else f"^(?:.*/)?{body}$", re.IGNORECASE | re.DOTALL)
    segments = [s for s in normalize_posix("/" + path).split("/") if s]  # `.` and `..` collapsed, as rules see paths
    if any(pattern.match("/".join(segments[:k])) for k in range(1, len(segments))):
        return True
    return not glob.endswith("/") and bool(pattern.match("/".join(segments)))


@given(
    st.text(alphabet="ab*?/.A", min_size=1, max_size=9).filter(lambda g: g.strip("/")),
    st.lists(st.text(alphabet="abAB.*?", min_size=1, max_size=4), max_size=4),
)
def test_the_automaton_matches_what_the_regex_matched(glob: str, segments: list[str]) -> None:
    path = "/".join(segments)
    assert IgnoreRules(glob).ignored(path) is _regex_ignored(glob, path)


def test_a_pattern_too_long_is_refused_in_one_line() -> None:
    IgnoreRules("*" * MAX_PATTERN_CHARS)
    with pytest.raises(IgnoreLimitError) as refused:
        IgnoreRules("ok\n\n" + "a" * (MAX_PATTERN_CHARS + 1), origin="docs/.gitignore")
    assert str(refused.value) == (
        "docs/.gitignore: the pattern on line 3 has 1,001 characters; a pattern may have at most 1,000"
    )


def test_too_many_patterns_are_refused_in_one_line() -> None:
    assert len(IgnoreRules("# a comment\n\n" + "x\n" * MAX_PATTERNS).rules) == MAX_PATTERNS  # comments not counted
    with pytest.raises(IgnoreLimitError) as refused:
        IgnoreRules("x\n" * (MAX_PATTERNS + 1))
    assert str(refused.value) == ".openwikiignore: more than 1,000 patterns; there may be at most that many"
