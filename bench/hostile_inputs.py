"""How long each page reader and each glob takes on the worst inputs a repository can write: linear or not.

    python bench/hostile_inputs.py                        # every case at 10 KB, 100 KB and 1 MiB, 60 s cap each
    python bench/hostile_inputs.py --cap 20 --only mdx    # the cases whose name holds `mdx`, 20 s cap
    python bench/hostile_inputs.py --code /tmp/main-src   # another checkout's code (`git archive main | tar -x`)

A page reader is timed on one page of the case's shape (`page_mentions` and `code_blocks`, as a check reads a
page), a glob on one path (`IgnoreRules(glob).ignored(path)`, as `.openwikiignore`, `references.exclude` and
`.gitignore` are matched). Each case runs in a child process of its own, killed at the cap (printed `> N s`); once
a size is over the cap, the larger sizes are not tried (printed `> N s` too, marked `*`). Linear means about ten
times longer per step (10 KB -> 100 KB -> 1 MiB); quadratic a hundred times. Nothing is asserted: the figures are
printed. The cases are the issue's reproductions and the others found reading the scanners (issue 42).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = (10 * 1024, 100 * 1024, 1024 * 1024)


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


# A page's shape at a size: (the page's name, its text).
PAGES: dict[str, Callable[[int], tuple[str, str]]] = {
    "markdown: ]( repeated": lambda n: ("p.md", _repeat("](", n)),
    "markdown: [ repeated": lambda n: ("p.md", _repeat("[", n)),
    "markdown: <a { repeated": lambda n: ("p.md", _repeat("<a {", n)),
    "markdown: backtick runs 1, 2, 3...": lambda n: ("p.md", _backtick_runs(n)),
    "mdx: ]( repeated": lambda n: ("p.mdx", _repeat("](", n)),
    "mdx: <a { repeated": lambda n: ("p.mdx", _repeat("<a {", n)),
    "mdx: <a b={ repeated": lambda n: ("p.mdx", _repeat("<a b={", n)),
    "mdx: <a {} repeated, one } short": lambda n: ("p.mdx", _repeat("<a {", n // 2) + _repeat("}", n // 2)),
    "mdx: { repeated": lambda n: ("p.mdx", _repeat("{", n)),
    'mdx: <a {"\\" repeated': lambda n: ("p.mdx", "<a {" + _repeat('"\\', n - 4)),
    "mdx: <a '<a ' repeated": lambda n: ("p.mdx", _repeat("<a '", n)),
    "mdx: import { and a blank line, repeated": lambda n: ("p.mdx", _repeat("import {\n\n", n)),
    "mdx: backtick runs 1, 2, 3...": lambda n: ("p.mdx", _backtick_runs(n)),
    "rst: a role over lines of a <b": lambda n: ("p.rst", ":func:`" + _repeat("a <b\n", n - 9) + "`\n"),
    "rst: lines of a <b": lambda n: ("p.rst", _repeat("a <b\n", n)),
    "rst: a role's title <target> over lines": lambda n: ("p.rst", ":doc:`" + _repeat("a <b\n", n - 12) + "<c>`\n"),
    "rst: .. role:: with spaces": lambda n: ("p.rst", _repeat(".. role:: a" + " " * 9000 + "x\n\n", n)),
}

# A glob's shape: (the glob, the path it is matched against at a size).
GLOBS: dict[str, tuple[str, Callable[[int], str]]] = {
    "glob: **a**a**a**a**a**a**a**a**a**a**b (the issue's)": ("**a**a**a**a**a**a**a**a**a**a**b", lambda n: "a" * n),
    "glob: *a*a*a*a*a*a*a*a*a*a*b": ("*a*a*a*a*a*a*a*a*a*a*b", lambda n: "a" * n),
    "glob: /**/a/**/a/**/a/**/a/**/b": ("/**/a/**/a/**/a/**/a/**/b", lambda n: _repeat("a/", n)),
    "glob: ?*?*?* ... 1,000 characters": ("?*" * 500, lambda n: "a" * n + "/"),
    "glob: *a*a ... 1,000 characters": ("*a" * 499 + "*b", lambda n: "a" * n),
}


def _backtick_runs(size: int) -> str:
    """Runs of 1, 2, 3... backticks, each closing nowhere: every run searched its paragraph for its closing."""
    out, run = [], 1
    while sum(map(len, out)) < size:
        out.append("`" * run + " a ")
        run += 1
    return "".join(out)[:size]


def _run_case(name: str, size: int) -> float:
    """One case at one size, timed in this process (the child)."""
    if name in GLOBS:
        from bot.claims.ignore import IgnoreRules

        glob, path_of = GLOBS[name]
        path = path_of(size)
        start = time.perf_counter()
        IgnoreRules(glob).ignored(path)
        return time.perf_counter() - start
    from bot.ground.formats import code_blocks, page_mentions

    path, text = PAGES[name](size)
    start = time.perf_counter()
    page_mentions(path, text)
    code_blocks(path, text)
    return time.perf_counter() - start


def _child(name: str, size: int, code: Path, cap: float) -> str:
    command = [sys.executable, __file__, "--child", name, "--bytes", str(size), "--code", str(code)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=cap, check=False)
    except subprocess.TimeoutExpired:
        return f"> {cap:g} s"
    if done.returncode != 0:
        return "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1]
    return f"{float(done.stdout):.3f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cap", type=float, default=60.0, help="seconds before a case is killed (default 60)")
    parser.add_argument("--only", default="", help="only the cases whose name holds this")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose code is timed (default: this)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--bytes", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(args.code.resolve()))
    if args.child is not None:
        print(_run_case(args.child, args.bytes))
        return
    names = [name for name in [*PAGES, *GLOBS] if args.only in name]
    width = max(len(name) for name in names)
    print(f"code: {args.code.resolve()}   cap: {args.cap:g} s per case")
    print(f"{'case':<{width}}  {'10 KB':>12}  {'100 KB':>12}  {'1 MiB':>12}")
    for name in names:
        cells, over = [], False
        for size in SIZES:
            cell = f"> {args.cap:g} s *" if over else _child(name, size, args.code, args.cap)
            over = over or cell.startswith(">")
            cells.append(cell)
        print(f"{name:<{width}}  " + "  ".join(f"{cell:>12}" for cell in cells), flush=True)


if __name__ == "__main__":
    main()
