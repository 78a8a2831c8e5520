"""Mutation testing of the core: would the tests notice if a rule broke?

Each mutant is one small change to one module (a comparison swapped, a `+` turned into `-`, a constant off by one, a
statement deleted, a regex quantifier off by one, `fullmatch` made `match`, ...). The module's tests run against it;
a failing run (or one that hangs past the timeout) kills the mutant, a passing run lets it survive. A survivor is a
rule the tests do not pin, unless the mutant is equivalent (it changes nothing observable); those are judged by
hand, with the reason, in bench/mutation_equivalent.json.

    python bench/mutation.py                                   # every module with a default test selection
    python bench/mutation.py bot/claims/linediff.py            # one module, its default tests
    python bench/mutation.py bot/claims/linediff.py --tests tests/claims/test_linediff.py
    python bench/mutation.py bot/claims/track.py --function _track_span --list
    python bench/mutation.py bot/claims/versions.py --dry-run  # the mutants, without running anything

It never writes into the repository: `bot/`, `tests/`, `pyproject.toml` and the other files the tests read
(`COPIED_FOLDERS`, `COPIED_FILES`: action.yml, docs/, ...) are copied, as they stand in the working tree, to a
temporary folder, one mutant at a time is written there, and `python -m pytest -x -q -p
no:cacheprovider <tests>` runs from that folder. A canary mutant that makes the module raise on import must be
killed first: it proves the tests import the copy and not the repository through the editable install.

Prints, per module: mutants, killed (of which by timeout), survived, equivalent, and the kill rate over the
non-equivalent mutants; then every survivor not judged equivalent (file:line, function, the original and the
mutated code). `--list` also lists the equivalent survivors with their reasons. Exit status 1 when a module's
kill rate is below --threshold (default 90%).
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENT_FILE = Path(__file__).resolve().with_name("mutation_equivalent.json")
# What the tests read besides the code: the Action's tests read action.yml and the docs' Action page, the
# deployment's tests the deploy folder, app.yml and pyproject.toml's scripts, the docs tests the site and its generator.
COPIED_FOLDERS = ("bot", "tests", "deploy", "docs", "scripts")
COPIED_FILES = ("pyproject.toml", "action.yml", "app.yml", "README.md", "mkdocs.yml", ".pre-commit-hooks.yaml")
# Each mutant's last outcome, by key, outside the repository: what --incremental reuses.
LAST_RUN_FILE = Path(tempfile.gettempdir()) / "wikiwarden-mutation-outcomes.json"

# The tests that pin each module's rules, fastest and most direct first (`-x` stops at the first failure).
DEFAULT_TESTS: dict[str, list[str]] = {
    "bot/claims/track.py": [
        "tests/claims/test_track.py",
        "tests/claims/test_tracking.py",
    ],
    "bot/claims/linediff.py": [
        "tests/claims/test_linediff.py",
        "tests/claims/test_tracking.py",
    ],
    "bot/claims/versions.py": [
        "tests/claims/test_versions.py",
        "tests/claims/test_vectors.py",
    ],
    "bot/claims/verdict_cache.py": [
        "tests/claims/test_verdict_cache.py",
    ],
    "bot/claims/citations.py": [
        "tests/claims/test_citations.py",
    ],
    "bot/claims/sidecar.py": [
        "tests/claims/test_sidecar.py",
    ],
    "bot/claims/resources.py": [
        "tests/claims/test_resources.py",
        "tests/claims/test_vectors.py",
        "tests/claims/test_citations.py",
    ],
    "bot/claims/parallel.py": [
        "tests/test_parallel.py",
        "tests/claims/test_sweep_forked.py",
    ],
    "bot/parallel/fork.py": [
        "tests/test_parallel.py",
        "tests/claims/test_sweep_forked.py",
    ],
    "bot/fix/check.py": [
        "tests/fix/test_check.py",
        "tests/fix/test_fix_core.py",
    ],
    "bot/github/handlers/signature.py": [
        "tests/github/test_signature.py",
    ],
    "bot/ground/check.py": [
        "tests/ground/test_ground_check.py",
        "tests/faces/cli/test_cli_ground.py",
    ],
    "bot/ground/findings.py": [
        "tests/ground/test_findings.py",
        "tests/usecases/test_use_cases.py",
    ],
    "bot/ground/reading.py": [
        "tests/ground/test_reading.py",
    ],
    "bot/ground/certainty.py": [
        "tests/ground/test_certainty.py",
        "tests/faces/cli/test_cli_python_references.py",
        "tests/faces/cli/test_cli_references.py",
    ],
    "bot/ground/python/judge.py": [
        "tests/ground/python/test_python_judge.py",
        "tests/faces/cli/test_cli_python_references.py",
    ],
    "bot/ground/python/roots.py": [
        "tests/ground/python/test_python_roots.py",
    ],
    "bot/claims/collation.py": [
        "tests/claims/test_collation.py",
    ],
}

# -- the mutants ---------------------------------------------------------------------------------------------

_COMPARISONS: dict[type[ast.cmpop], list[tuple[str, type[ast.cmpop]]]] = {
    ast.Lt: [("comparison boundary", ast.LtE), ("comparison negated", ast.GtE)],
    ast.LtE: [("comparison boundary", ast.Lt), ("comparison negated", ast.Gt)],
    ast.Gt: [("comparison boundary", ast.GtE), ("comparison negated", ast.LtE)],
    ast.GtE: [("comparison boundary", ast.Gt), ("comparison negated", ast.Lt)],
    ast.Eq: [("comparison negated", ast.NotEq)],
    ast.NotEq: [("comparison negated", ast.Eq)],
    ast.In: [("comparison negated", ast.NotIn)],
    ast.NotIn: [("comparison negated", ast.In)],
    ast.Is: [("identity negated", ast.IsNot)],
    ast.IsNot: [("identity negated", ast.Is)],
}
_ARITHMETIC: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}
# Statements whose deletion is a mutant: assignments, calls for their effect, loop control.
_DELETABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Continue, ast.Break)


@dataclass(frozen=True)
class Mutant:
    path: str  # as given, relative to the repository
    line: int
    function: str  # qualified name of the enclosing function or class, or <module>
    statement: str  # the enclosing statement (a compound one by its header): context that survives line moves
    operator: str
    original: str
    mutated: str
    source: str  # the whole mutated module
    occurrence: int = 1  # the n-th mutant reading the same in the same statement (`1 -> 2` twice in `a == 1 == b`)

    @property
    def key(self) -> str:
        """How bench/mutation_equivalent.json names the mutant: no line number, so it survives code moving."""
        suffix = f" #{self.occurrence}" if self.occurrence > 1 else ""
        return f"{self.function} :: {self.statement} :: {self.original} -> {self.mutated}{suffix}"


@dataclass
class _Site:
    """One place to mutate: the node, what replaces it, and where it stands."""

    node: ast.AST
    replacement: ast.AST
    operator: str
    function: str
    statement: str


def _header(statement: ast.stmt) -> str:
    """A statement as one line: a compound statement by its header alone."""
    if isinstance(statement, ast.If):
        return f"if {ast.unparse(statement.test)}:"
    if isinstance(statement, ast.While):
        return f"while {ast.unparse(statement.test)}:"
    if isinstance(statement, ast.For):
        return f"for {ast.unparse(statement.target)} in {ast.unparse(statement.iter)}:"
    if isinstance(statement, ast.With):
        return f"with {', '.join(ast.unparse(item) for item in statement.items)}:"
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return f"def {statement.name}"
    return " ".join(ast.unparse(statement).split())


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _expression_sites(node: ast.expr, function: str, statement: str) -> Iterator[_Site]:
    """Every mutant of an expression and of the expressions inside it."""
    for child in ast.walk(node):
        for replacement, operator in _expression_mutants(child):
            yield _Site(child, replacement, operator, function, statement)


def _expression_mutants(node: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    if isinstance(node, ast.Compare):
        for k, op in enumerate(node.ops):
            for operator, other in _COMPARISONS.get(type(op), []):
                mutated = copy.deepcopy(node)
                mutated.ops[k] = other()
                yield mutated, operator
    elif isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        mutated = copy.deepcopy(node)
        mutated.op = _ARITHMETIC[type(node.op)]()
        yield mutated, "arithmetic"
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield copy.deepcopy(node.operand), "unary minus removed"
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield copy.deepcopy(node.operand), "not removed"
    elif isinstance(node, ast.BoolOp):
        mutated = copy.deepcopy(node)
        mutated.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield mutated, "and/or swapped"
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        yield ast.Constant(not node.value), "True/False flipped"
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield ast.Constant(node.value + 1), "constant off by one"
        yield ast.Constant(node.value - 1), "constant off by one"
    elif _is_compiled_pattern(node):
        assert isinstance(node, ast.Call) and isinstance(node.args[0], ast.Constant)
        for pattern in _quantifiers_off_by_one(node.args[0].value):
            mutated = copy.deepcopy(node)
            mutated.args[0] = ast.Constant(pattern)
            yield mutated, "regex quantifier off by one"
    elif isinstance(node, ast.Attribute) and node.attr == "fullmatch":
        mutated = copy.deepcopy(node)
        mutated.attr = "match"
        yield mutated, "fullmatch -> match"
    elif isinstance(node, ast.Slice):
        for bound in ("lower", "upper"):
            value = getattr(node, bound)
            if value is None:
                continue
            dropped = copy.deepcopy(node)
            setattr(dropped, bound, None)
            yield dropped, "slice bound dropped"
            if not (isinstance(value, ast.Constant) and type(value.value) is int):  # constants: off by one above
                for op in (ast.Add, ast.Sub):
                    shifted = copy.deepcopy(node)
                    setattr(shifted, bound, ast.BinOp(copy.deepcopy(value), op(), ast.Constant(1)))
                    yield shifted, "slice bound off by one"


def _is_compiled_pattern(node: ast.AST) -> bool:
    """`re.compile("...")`: the rule a regex states lives in its literal, which no other operator touches."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "compile"
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str | bytes)
    )


def _quantifiers_off_by_one(pattern: str | bytes) -> Iterator[str | bytes]:
    """The pattern with each bound of each `{m}` / `{m,n}` quantifier one lower and one higher."""
    text = pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern
    for match in re.finditer(r"\{(\d+)(?:,(\d+))?\}", text):
        for group in (1, 2):
            if match.group(group) is None:
                continue
            bound = int(match.group(group))
            for other in (bound - 1, bound + 1):
                if other < 0:
                    continue
                mutated = text[: match.start(group)] + str(other) + text[match.end(group) :]
                yield mutated.encode("latin-1") if isinstance(pattern, bytes) else mutated


def _sites(tree: ast.Module) -> Iterator[_Site]:
    """Every mutant of a module, in source order. Left alone: docstrings, annotations (never evaluated under
    `from __future__ import annotations`), asserts (internal invariants, not rules), imports, and the module's
    own statements (only the expressions of its constants are mutated)."""

    def body(statements: list[ast.stmt], function: str, in_function: bool) -> Iterator[_Site]:
        for statement in statements:
            if _is_docstring(statement) or isinstance(statement, ast.Assert | ast.Import | ast.ImportFrom):
                continue
            yield from visit(statement, function, in_function)

    def visit(statement: ast.stmt, function: str, in_function: bool) -> Iterator[_Site]:
        header = _header(statement)
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = statement.name if function == "<module>" else f"{function}.{statement.name}"
            if not isinstance(statement, ast.ClassDef):
                for default in [*statement.args.defaults, *statement.args.kw_defaults]:
                    if default is not None:
                        yield from _expression_sites(default, name, header)
            yield from body(statement.body, name, not isinstance(statement, ast.ClassDef))
            return
        if in_function and isinstance(statement, _DELETABLE) and not _is_docstring(statement):
            yield _Site(statement, ast.Pass(), "statement deleted", function, header)
        if in_function and isinstance(statement, ast.Return) and statement.value is not None:
            value = statement.value
            if not (isinstance(value, ast.Constant) and value.value is None):
                yield _Site(statement, ast.Return(ast.Constant(None)), "return None", function, header)
        for name, value in ast.iter_fields(statement):
            if name in ("annotation", "returns", "type_comment"):
                continue
            if name in ("targets", "target") and isinstance(statement, ast.Assign | ast.AugAssign | ast.AnnAssign):
                continue
            if isinstance(value, ast.expr):
                yield from _expression_sites(value, function, header)
            elif isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield from body(value, function, in_function)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.expr):
                        yield from _expression_sites(item, function, header)
                    elif isinstance(item, ast.withitem):
                        yield from _expression_sites(item.context_expr, function, header)
                    elif isinstance(item, ast.ExceptHandler):  # the exception types are not rules; the body is
                        yield from body(item.body, function, in_function)
        if isinstance(statement, ast.AugAssign):
            flipped = copy.deepcopy(statement)
            flipped.op = _ARITHMETIC.get(type(statement.op), type(statement.op))()
            if type(flipped.op) is not type(statement.op):
                yield _Site(statement, flipped, "arithmetic", function, header)

    yield from body(tree.body, "<module>", False)


def _replace(tree: ast.Module, index: int, replacement: ast.AST) -> ast.Module:
    """A copy of `tree` with its `index`-th node (in ast.walk order) replaced."""
    mutated = copy.deepcopy(tree)
    target = list(ast.walk(mutated))[index]
    for parent in ast.walk(mutated):
        for name, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, name, copy.deepcopy(replacement))
                return ast.fix_missing_locations(mutated)
            if isinstance(value, list) and any(item is target for item in value):
                value[next(i for i, item in enumerate(value) if item is target)] = copy.deepcopy(replacement)
                return ast.fix_missing_locations(mutated)
    raise LookupError(f"node {index} has no parent")


def mutants(path: str, source: str, function: str | None = None) -> list[Mutant]:
    """Every mutant of a module (those of one function and what it encloses, with `function`)."""
    tree = ast.parse(source)
    index = {id(node): n for n, node in enumerate(ast.walk(tree))}
    found: list[Mutant] = []
    seen: set[str] = set()
    occurrences: Counter[tuple[str, str, str, str]] = Counter()
    for site in _sites(tree):
        if function is not None and site.function != function and not site.function.startswith(function + "."):
            continue
        mutated_tree = _replace(tree, index[id(site.node)], site.replacement)
        mutated_source = ast.unparse(mutated_tree)
        if mutated_source in seen:  # two operators giving the same code (e.g. `-(1)` as `-0` and as `1 - 1`)
            continue
        try:
            compile(mutated_source, path, "exec")
        except SyntaxError:
            continue
        seen.add(mutated_source)
        original, mutated = " ".join(ast.unparse(site.node).split()), " ".join(ast.unparse(site.replacement).split())
        occurrences[site.function, site.statement, original, mutated] += 1
        line = getattr(site.node, "lineno", 0)
        occurrence = occurrences[site.function, site.statement, original, mutated]
        where = (path, line, site.function, site.statement)
        found.append(Mutant(*where, site.operator, original, mutated, mutated_source, occurrence))
    return found


def canary(source: str) -> str:
    """The module made to raise on import: the one mutant every test selection must kill."""
    tree = ast.parse(source)
    at = 0
    for at, statement in enumerate(tree.body):  # noqa: B007 - after the docstring and __future__ imports
        if not (
            _is_docstring(statement) or (isinstance(statement, ast.ImportFrom) and statement.module == "__future__")
        ):
            break
    raising = ast.parse("raise RuntimeError('mutation canary: the tests imported the mutated copy')").body
    tree.body[at:at] = raising
    return ast.unparse(ast.fix_missing_locations(tree))


# -- running ---------------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    mutant: Mutant
    status: str  # killed, timeout, survived
    seconds: float
    reused: bool = False  # taken from the last run (--incremental), not run again


def load_last_run() -> dict[str, dict[str, str]]:
    try:
        saved: dict[str, dict[str, str]] = json.loads(LAST_RUN_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return saved


def save_last_run(result: ModuleResult) -> None:
    saved = load_last_run()
    saved[result.path] = {o.mutant.key: o.status for o in result.outcomes}
    LAST_RUN_FILE.write_text(json.dumps(saved, indent=1, sort_keys=True), encoding="utf-8")


@dataclass
class ModuleResult:
    path: str
    tests: list[str]
    outcomes: list[Outcome] = field(default_factory=list)
    equivalent: dict[str, str] = field(default_factory=dict)  # key → reason, for the survivors judged equivalent

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def survivors(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "survived"]

    @property
    def unjudged(self) -> list[Outcome]:
        return [o for o in self.survivors if o.mutant.key not in self.equivalent]

    @property
    def kill_rate(self) -> float:
        relevant = len(self.outcomes) - (len(self.survivors) - len(self.unjudged))
        return 100.0 * (self.count("killed") + self.count("timeout")) / relevant if relevant else 100.0


class Workspace:
    """A copy of the repository's code and tests in a temporary folder, where mutants are written and run."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="wikiwarden-mutation-"))
        ignore = shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.pyc")
        for folder in COPIED_FOLDERS:
            if (ROOT / folder).is_dir():
                shutil.copytree(ROOT / folder, self.root / folder, ignore=ignore)
        for name in COPIED_FILES:
            if (ROOT / name).is_file():
                shutil.copy2(ROOT / name, self.root / name)
        # The copy first on the path, whatever the editable install says; the canary checks it.
        self.env = {**os.environ, "PYTHONPATH": str(self.root), "PYTHONHASHSEED": "0"}

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def write(self, path: str, source: str) -> None:
        target = self.root / path
        target.write_text(source, encoding="utf-8")
        # A compiled copy of another version of the module may carry the same size and mtime: drop it.
        for stale in (target.parent / "__pycache__").glob(f"{target.stem}.*.pyc"):
            stale.unlink()

    def run(self, tests: list[str], timeout: float) -> tuple[str, float, str]:
        """killed, timeout or survived; the seconds it took; the tail of pytest's output."""
        args = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
        if not any("hypothesis" in (self.root / t).read_text(encoding="utf-8") for t in tests):
            args += ["-p", "no:hypothesispytest"]  # a second of start-up the selection does not use
        started = time.perf_counter()
        process = subprocess.Popen(
            [*args, *tests],
            cwd=self.root,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its whole process group is ended on a timeout
        )
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return "timeout", time.perf_counter() - started, ""
        # A run passes when pytest says so: a mutant that ends the test process early with status 0 (a forked
        # child's `os._exit(0)` run by the parent) leaves no summary, and is killed.
        passed = process.returncode == 0 and re.search(rb"^\d+ passed", output, re.MULTILINE) is not None
        status = "survived" if passed else "killed"
        return status, time.perf_counter() - started, output.decode(errors="replace")[-2000:]


def load_equivalent(path: str) -> dict[str, str]:
    if not EQUIVALENT_FILE.exists():
        return {}
    judged: dict[str, dict[str, str]] = json.loads(EQUIVALENT_FILE.read_text(encoding="utf-8"))
    return judged.get(path, {})


def run_module(
    workspace: Workspace,
    path: str,
    tests: list[str],
    function: str | None,
    progress: Callable[[str], None],
    incremental: bool = False,
) -> ModuleResult:
    original = (ROOT / path).read_text(encoding="utf-8")
    result = ModuleResult(path, tests)
    status, baseline, output = workspace.run(tests, timeout=600)
    if status != "survived":
        raise SystemExit(f"{path}: the tests fail before any mutant ({' '.join(tests)}):\n{output}")
    timeout = 1.5 * baseline + 5
    workspace.write(path, canary(original))
    status, _, _ = workspace.run(tests, timeout=timeout)
    if status == "survived":
        raise SystemExit(f"{path}: the canary survived: the tests do not import the copy in {workspace.root}")
    found = mutants(path, original, function)
    progress(f"{path}: {len(found)} mutants; baseline {baseline:.1f} s, timeout {timeout:.0f} s; {' '.join(tests)}")
    # A kill stands as long as the tests only grow: with --incremental, killed mutants are not run again.
    last = load_last_run().get(path, {}) if incremental else {}
    try:
        for n, mutant in enumerate(found, 1):
            if last.get(mutant.key) in ("killed", "timeout"):
                result.outcomes.append(Outcome(mutant, last[mutant.key], 0.0, reused=True))
                continue
            workspace.write(path, mutant.source)
            status, seconds, _ = workspace.run(tests, timeout=timeout)
            result.outcomes.append(Outcome(mutant, status, seconds))
            if status == "survived":
                progress(
                    f"  [{n}/{len(found)}] survived {path}:{mutant.line} `{mutant.original}` -> `{mutant.mutated}`"
                )
    finally:
        workspace.write(path, original)
    if function is None:
        save_last_run(result)
    judged = load_equivalent(path)
    result.equivalent = {o.mutant.key: judged[o.mutant.key] for o in result.survivors if o.mutant.key in judged}
    return result


def report(result: ModuleResult, list_all: bool) -> list[str]:
    killed, timeouts = result.count("killed"), result.count("timeout")
    equivalent = len(result.survivors) - len(result.unjudged)
    reused = sum(1 for o in result.outcomes if o.reused)
    lines = [
        f"{result.path}: {len(result.outcomes)} mutants, {killed + timeouts} killed ({timeouts} by timeout), "
        f"{len(result.survivors)} survived ({equivalent} equivalent), "
        f"kill rate {result.kill_rate:.1f}% of {len(result.outcomes) - equivalent} non-equivalent"
        + (f" ({reused} kills reused from the last run)" if reused else "")
    ]
    for outcome in result.unjudged:
        m = outcome.mutant
        lines.append(f"  SURVIVED {m.path}:{m.line} [{m.function}] {m.operator}: `{m.original}` -> `{m.mutated}`")
        lines.append(f"           in: {m.statement}")
        lines.append(f"           key: {m.key}")
    if list_all:
        for outcome in result.survivors:
            m = outcome.mutant
            if m.key in result.equivalent:
                lines.append(f"  equivalent {m.path}:{m.line} [{m.function}] `{m.original}` -> `{m.mutated}`")
                lines.append(f"             because {result.equivalent[m.key]}")
    stale = set(load_equivalent(result.path)) - {o.mutant.key for o in result.survivors}
    for key in sorted(stale):
        lines.append(f"  note: judged equivalent but no longer a survivor (killed, or its code changed): {key}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="modules to mutate (default: every one with a default selection)")
    parser.add_argument("--tests", nargs="+", help="the tests to run against each mutant (default: the module's)")
    parser.add_argument("--function", help="only the mutants inside this function (qualified name, e.g. LineDiff)")
    parser.add_argument("--list", action="store_true", help="also list the survivors judged equivalent, and why")
    parser.add_argument("--dry-run", action="store_true", help="list the mutants without running any test")
    parser.add_argument(
        "--incremental", action="store_true", help="reuse the last run's kills: run only its survivors and new mutants"
    )
    parser.add_argument("--threshold", type=float, default=90.0, help="the kill rate a module must reach (percent)")
    args = parser.parse_args(argv)
    modules = args.modules or [m for m in DEFAULT_TESTS if (ROOT / m).exists()]
    for module in modules:
        if not (ROOT / module).is_file():
            parser.error(f"{module}: no such module in {ROOT}")
        if not args.tests and module not in DEFAULT_TESTS:
            parser.error(f"{module} has no default test selection: name its tests with --tests")

    if args.dry_run:
        for module in modules:
            found = mutants(module, (ROOT / module).read_text(encoding="utf-8"), args.function)
            print(f"{module}: {len(found)} mutants {dict(Counter(m.operator for m in found))}")
            for m in found:
                print(f"  {m.path}:{m.line} [{m.function}] {m.operator}: `{m.original}` -> `{m.mutated}`")
        return 0

    # A stopped run still removes its copy.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    workspace = Workspace()
    results = []
    try:
        for module in modules:
            tests = args.tests or DEFAULT_TESTS[module]
            progress = lambda line: print(line, flush=True)  # noqa: E731
            results.append(run_module(workspace, module, tests, args.function, progress, args.incremental))
            print("\n".join(report(results[-1], args.list)), flush=True)
    finally:
        workspace.close()
    if len(results) > 1:
        print("\nmodule                          mutants  killed  timeouts  survived  equivalent  kill rate")
        for r in results:
            equivalent = len(r.survivors) - len(r.unjudged)
            print(
                f"{r.path:<32}{len(r.outcomes):>7}{r.count('killed') + r.count('timeout'):>8}{r.count('timeout'):>10}"
                f"{len(r.survivors):>10}{equivalent:>12}{r.kill_rate:>10.1f}%"
            )
    return 0 if all(r.kill_rate >= args.threshold for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
