"""The shape of the code, read from its imports with `ast`: imports point inward and never loop.

- no import loop among the modules of `bot/` (imports inside functions and under TYPE_CHECKING count too);
- the pure core (`bot/claims`, `bot/okf`, `bot/fix`, `bot/ground`) imports nothing of `bot/` beyond itself (and
  the package root, which holds only the version), and none of the standard modules that start processes, send
  signals, open sockets or steer the garbage collector (`os`, `subprocess`, `signal`, `gc`, `socket`,
  `multiprocessing`): that is handed in (`bot.claims.parallel.Parallel`, implemented by `bot/parallel`);
- the renderers (`bot/report`) import the core only, and the core never imports them;
- each layer imports only the layers below it: `source/` and `agent/` the core (never `github/`), the use
  cases the core, `source/` and `agent/`; `github/` and `jobs/` sit above; the faces on top;
- `github/` never imports `agent/`: `web.py` and `worker.py` build the App's agents and hand them to its runtime;
- nothing imports the use cases but the faces and the App's job runners;
- inside `github/`, what is written to GitHub (`content/`) is decided without the calls (`api/`), the job runners
  (`runners/`), the runtime or the webhook handlers; the calls know only the content; the handlers only the content
  (the check run's names and buttons), the payload models and the event -> change rules (`events.py`, which read
  the payloads alone); the runtime the calls and the content, never the runners;
- the App's runtime does not import the runners (the table is handed to it).

Each rule is checked on the real package, and each checker is shown to catch a violation, so the test
fails the day a new import breaks a rule.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[1] / "bot"

CORE = {"claims", "okf", "fix", "ground"}
# leaves every layer above the core may use
INFRASTRUCTURE = {"settings", "metrics", "logs", "lifetime", "extras", "parallel"}
# `cli` a package: the parser, a module per command; `jobhost` the App's job in its own process (web and worker's)
FACES = {"cli", "demo", "web", "worker", "jobhost", "action", "__main__"}
# What each part of bot/ may import (besides itself, and the package root `bot` for the version).
ALLOWED: dict[str, set[str]] = {
    "claims": set(),
    "okf": {"claims"},
    "fix": {"claims", "okf"},
    "ground": {"claims", "okf", "fix"},
    "settings": set(),
    "metrics": set(),
    "logs": set(),
    "lifetime": set(),
    "extras": set(),
    "parallel": {"lifetime"},  # what a one-shot process keeps to its end is the process policy's too
    "report": CORE,
    "source": CORE,
    "agent": CORE | INFRASTRUCTURE,
    "usecases": CORE | {"source", "agent"} | INFRASTRUCTURE,
    "jobs": INFRASTRUCTURE,
    "github": CORE | {"report", "source", "usecases", "jobs"} | INFRASTRUCTURE,  # handed its agents, never imports them
}
USE_CASE_CALLERS = {
    "bot.cli.check", "bot.cli.claim", "bot.cli.fix", "bot.cli.ground", "bot.cli.init", "bot.cli.okf", "bot.demo",
    "bot.action", "bot.github.runners.check", "bot.github.runners.fix", "bot.github.runners.ground",
}  # fmt: skip
# Inside bot/github: what each group may import of the App besides itself (`runtime` is the module runtime.py).
GITHUB_ALLOWED: dict[str, set[str]] = {
    "payloads": set(),  # GitHub's events as models
    "events": {"payloads"},  # the pure event -> change rules the handlers and the Action share
    "content": set(),
    "api": {"content"},
    "handlers": {"content", "payloads", "events"},
    "runtime": {"api", "content"},
    "runners": {"api", "content", "runtime"},
}
# The repository's settings (`.github/wikiwarden.yml`): data every face and the App read, not a use case to call.
SETTINGS_DATA = {"bot.usecases.config", "bot.usecases.config_file"}


# The standard modules the core may not import, wherever the import stands: it does no I/O and starts no process.
PROCESS_MODULES = {"os", "subprocess", "signal", "gc", "socket", "multiprocessing"}
# Exceptions, each with its reason (none today: keep it so; `os.path`-only use is better replaced by `posixpath`).
PROCESS_MODULE_EXCEPTIONS: dict[str, set[str]] = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(BOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(BOT.rglob("*.py"))}


def imports_of(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules of bot/ that `name` imports, wherever the import stands (a function, TYPE_CHECKING)."""
    known = set(known)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:  # `from pkg import sub` imports the module pkg.sub when there is one
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in known else target)
    return {m for m in found if m in known and m != name}


def standard_imports(path: Path) -> set[str]:
    """The top-level names of every module `path` imports absolutely (`os.path` → `os`), wherever the import stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.partition(".")[0])
    return found


def process_violations(imported: Mapping[str, set[str]]) -> list[str]:
    """Every module of the core importing a standard module that does I/O on processes, signals, sockets or the
    collector (`imported`: module → the top-level names it imports)."""
    return [
        f"{module} imports {name}: the core starts no process and does no I/O (hand it in: bot.claims.parallel)"
        for module, names in sorted(imported.items())
        if part(module) in CORE
        for name in sorted(names & PROCESS_MODULES)
        if name not in PROCESS_MODULE_EXCEPTIONS.get(module, set())
    ]


def import_graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports_of(name, path, found) for name, path in found.items()}


def part(module: str) -> str:
    """The part of bot/ a module belongs to: `bot.claims.sweep` → `claims`, `bot.cli` → `cli`, `bot` → ``."""
    return module.split(".")[1] if "." in module else ""


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (or a module importing itself): the loops."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_violations(graph: Mapping[str, set[str]]) -> list[str]:
    """Every import that points outward: from a part to a part it may not import."""
    problems = []
    for module, targets in sorted(graph.items()):
        source = part(module)
        if source in FACES or source == "":
            continue
        allowed = ALLOWED.get(source)
        if allowed is None:
            problems.append(f"{module}: bot/{source} is not a known part; add it to ALLOWED with its layer")
            continue
        for target in sorted(targets):
            if part(target) not in allowed | {source, ""}:
                problems.append(f"{module} imports {target} (bot/{source} may import {sorted(allowed) or 'nothing'})")
    return problems


def github_group(module: str) -> str:
    """The group of bot/github a module belongs to: `bot.github.api.client` → `api`, `bot.github.runtime` →
    `runtime`, the package itself → ``."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else ""


def github_violations(graph: Mapping[str, set[str]]) -> list[str]:
    """Every import inside bot/github from a group to a group it may not import."""
    problems = []
    for module, targets in sorted(graph.items()):
        if part(module) != "github" or not github_group(module):
            continue
        source = github_group(module)
        allowed = GITHUB_ALLOWED.get(source)
        if allowed is None:
            problems.append(f"{module}: bot/github/{source} is not a known group; add it to GITHUB_ALLOWED")
            continue
        for target in sorted(targets):
            if part(target) == "github" and github_group(target) not in allowed | {source, ""}:
                may = sorted(allowed) or "none"
                problems.append(f"{module} imports {target} (bot/github/{source} may import {may})")
    return problems


def use_case_violations(graph: Mapping[str, set[str]]) -> list[str]:
    return [
        f"{module} imports {target}: only the faces and the App's job runners call the use cases"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if part(target) == "usecases"
        and part(module) != "usecases"
        and module not in USE_CASE_CALLERS
        and target not in SETTINGS_DATA
    ]


# -- the real package ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_graph_is_read(graph: dict[str, set[str]]) -> None:
    assert "bot.claims.sweep.sweeper" in graph and "bot.usecases.check" in graph
    assert "bot.claims.snapshot" in graph["bot.claims.sweep.sweeper"]
    assert "bot.github.runtime" in graph["bot.github.runners.check"]  # an import under TYPE_CHECKING counts
    assert "bot.web" in graph["bot.cli.app"]  # and so does one inside a function


def test_no_import_loop(graph: dict[str, set[str]]) -> None:
    assert cycles(graph) == []


def test_imports_point_inward(graph: dict[str, set[str]]) -> None:
    assert layer_violations(graph) == []


def test_the_core_starts_no_process_and_leaves_the_collector_alone() -> None:
    imported = {name: standard_imports(path) for name, path in modules().items()}
    # the checker reads them where they are
    assert "os" in imported["bot.parallel.fork"] and "gc" in imported["bot.parallel.collector"]
    assert process_violations(imported) == []


def test_the_package_root_holds_only_the_version(graph: dict[str, set[str]]) -> None:
    assert graph["bot"] == set()


def test_only_the_faces_and_the_job_runners_call_the_use_cases(graph: dict[str, set[str]]) -> None:
    assert use_case_violations(graph) == []
    callers = {
        module
        for module, targets in graph.items()
        if any(part(t) == "usecases" and t not in SETTINGS_DATA for t in targets)
    }
    assert callers - {m for m in graph if part(m) == "usecases"} == USE_CASE_CALLERS


def test_the_apps_groups_stay_apart(graph: dict[str, set[str]]) -> None:
    assert github_violations(graph) == []
    assert {github_group(m) for m in graph if part(m) == "github"} == set(GITHUB_ALLOWED) | {""}


def test_the_runtime_does_not_import_the_runners(graph: dict[str, set[str]]) -> None:
    runners = {module for module in graph if module.startswith("bot.github.runners")}
    assert graph["bot.github.runtime"].isdisjoint(runners)
    assert {"bot.github.runners.check", "bot.github.runners.fix"} <= graph["bot.github.runners.table"]
    assert "bot.github.runners.table" in graph["bot.web"] and "bot.github.runners.table" in graph["bot.worker"]


def test_the_faces_hand_the_app_its_agents(graph: dict[str, set[str]]) -> None:
    reaching = {m for m, targets in graph.items() if part(m) == "github" and any(part(t) == "agent" for t in targets)}
    assert reaching == set()
    assert "bot.agent.factory" in graph["bot.web"] and "bot.agent.factory" in graph["bot.worker"]


# -- the checkers catch what they are for ------------------------------------------------------------------


def test_a_loop_is_found() -> None:
    graph = {"bot.a.x": {"bot.a.y"}, "bot.a.y": {"bot.a.z"}, "bot.a.z": {"bot.a.x"}, "bot.a.w": {"bot.a.x"}}
    assert cycles(graph) == [["bot.a.x", "bot.a.y", "bot.a.z"]]
    assert cycles({"bot.a.x": {"bot.a.x"}}) == [["bot.a.x"]]
    assert cycles({"bot.a.x": {"bot.a.y"}, "bot.a.y": set()}) == []


@pytest.mark.parametrize(
    ("module", "target"),
    [
        ("bot.claims.sweep", "bot.source.git"),  # the core reaching out to an adapter
        ("bot.fix.engine", "bot.agent.agent"),
        ("bot.okf.project", "bot.settings"),
        ("bot.claims.sweep", "bot.okf.project"),  # claims is the innermost part
        ("bot.claims.sweep", "bot.report.check"),  # the core never imports its renderers
        ("bot.fix.engine", "bot.report.fix"),
        ("bot.report.check", "bot.source.git"),  # the renderers import the core only
        ("bot.report.fix", "bot.agent.agent"),
        ("bot.report.inert", "bot.github.content.check_output"),
        ("bot.report.check", "bot.usecases.check"),
        ("bot.source.github", "bot.github.api.client"),  # an adapter importing the App
        ("bot.agent.agent", "bot.github.content.check_output"),
        ("bot.usecases.fix", "bot.github.content.pull_requests"),
        ("bot.jobs.redis", "bot.github.runtime"),
        ("bot.github.runtime", "bot.agent.factory"),  # the App is handed its agents by the faces
        ("bot.github.runners.fix", "bot.agent.agent"),
        ("bot.github.content.check_output", "bot.cli"),  # nothing imports a face
        ("bot.report.claims", "bot.usecases.claims"),  # a renderer reads plain data, never a use case
        ("bot.claims.shown", "bot.report.claims"),  # the core never renders
        ("bot.extras", "bot.settings"),  # a leaf
        ("bot.newpart.x", "bot.claims.sweep"),  # a new part must be placed in a layer first
    ],
)
def test_an_outward_import_is_refused(module: str, target: str) -> None:
    assert layer_violations({module: {target}}) != []


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("bot.claims.sweep.sweeper", "os"),  # forking from the core
        ("bot.claims.sweep.shared", "multiprocessing"),
        ("bot.claims.sweep", "gc"),  # steering the collector
        ("bot.okf.sync", "subprocess"),
        ("bot.fix.engine", "socket"),
        ("bot.ground.symbols", "signal"),
    ],
)
def test_a_core_module_importing_process_machinery_is_refused(module: str, name: str) -> None:
    assert process_violations({module: {name, "hashlib"}}) != []


def test_process_machinery_outside_the_core_and_pure_modules_inside_it_are_allowed(tmp_path: Path) -> None:
    assert process_violations({"bot.parallel.fork": {"os", "signal"}, "bot.source.git": {"subprocess"}}) == []
    assert process_violations({"bot.claims.sweep.sweeper": {"hashlib", "posixpath", "pickle"}}) == []
    written = tmp_path / "m.py"
    written.write_text("import os.path\nfrom gc import disable\nfrom . import sibling\n\ndef f():\n    import signal\n")
    assert standard_imports(written) == {"os", "gc", "signal"}  # submodules, `from` and imports in functions count


def test_an_inward_import_is_allowed() -> None:
    allowed = {
        "bot.usecases.fix": {"bot.fix.engine", "bot.source.git", "bot.agent.factory"},
        "bot.github.runners.fix": {"bot.usecases.fix", "bot.jobs.requests"},
        "bot.okf.project": {"bot"},
        "bot.report.fix": {"bot.fix.engine", "bot.claims.results", "bot.report.inert"},
        "bot.github.content.check_output": {"bot.report.check"},
        "bot.cli": {"bot.web", "bot.usecases.check"},
    }
    assert layer_violations(allowed) == []


@pytest.mark.parametrize(
    ("module", "target"),
    [
        ("bot.github.content.check_output", "bot.github.api.client"),  # content decided without the calls
        ("bot.github.content.pull_requests", "bot.github.runtime"),
        ("bot.github.content.ground_pull_request", "bot.github.runners.ground"),
        ("bot.github.api.publish", "bot.github.runners.fix"),  # the calls know no job
        ("bot.github.api.client", "bot.github.runtime"),
        ("bot.github.handlers.checks", "bot.github.api.check_runs"),  # a handler only turns a payload into jobs
        ("bot.github.handlers.push", "bot.github.runners.check"),
        ("bot.github.runtime", "bot.github.runners.table"),  # the runtime is handed its runners
        ("bot.github.runtime", "bot.github.handlers.routing"),
        ("bot.github.events", "bot.github.api.client"),  # the event rules read the payloads alone
        ("bot.github.payloads", "bot.github.events"),
        ("bot.github.jobs.check", "bot.github.api.client"),  # a new group must be placed first
    ],
)
def test_a_crossing_between_the_apps_groups_is_refused(module: str, target: str) -> None:
    assert github_violations({module: {target}}) != []


def test_the_apps_groups_may_import_what_they_build_on() -> None:
    allowed = {
        "bot.github.api.publish": {"bot.github.content.pull_requests", "bot.github.api.client", "bot.source.github"},
        "bot.github.runners.fix": {"bot.github.api.publish", "bot.github.content.check_output", "bot.github.runtime"},
        "bot.github.runtime": {"bot.github.api.auth", "bot.github.content.check_output"},
        "bot.github.handlers.checks": {"bot.github.content.check_output", "bot.github.handlers.routing"},
    }
    assert github_violations(allowed) == []


def test_a_new_caller_of_the_use_cases_is_refused() -> None:
    assert use_case_violations({"bot.github.content.check_output": {"bot.usecases.check"}}) != []
    assert use_case_violations({"bot.github.runners.check": {"bot.usecases.check"}}) == []
    # the repository's settings are data the App's pure parts may read, not a use case they call
    assert use_case_violations({"bot.github.content.check_output": {"bot.usecases.config_file"}}) == []
    both = {"bot.usecases.config_file", "bot.usecases.fix"}
    assert use_case_violations({"bot.github.content.check_output": both}) != []
