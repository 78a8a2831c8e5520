"""The `wikiwarden` command: check a local repository's wiki, keep claims by hand, see a demo."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import shlex
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeVar

from . import __version__
from .claims.options import DEFAULT_MAX_FILE_BYTES, SweepOptions
from .claims.pages import DEFAULT_WIKI_DIR, normalize_wiki_dir, require_wiki_folder
from .claims.wording import one_line, plural
from .lifetime import one_shot, outlive

# Everything else is imported by the command that needs it: `wikiwarden check` in a pre-commit hook, or
# `--version`, pays for neither the model's client, the web server, the queue, nor the other commands.
if TYPE_CHECKING:
    from typing import TypeAlias

    from .agent.agent import Agent
    from .agent.factory import AgentFactory
    from .claims.results import SweepReport
    from .settings import ModelSettings, Settings
    from .source.git import GitRepository
    from .usecases.claims import ClaimEdit, HandKeptClaims
    from .usecases.config import Overrides

    _Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]  # what add_subparsers gives

T = TypeVar("T")

EXIT_OK, EXIT_ATTENTION, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or a repository that cannot be used: exit status 2."""


def _wiki_options(parser: argparse.ArgumentParser, repo_default: str | None = ".") -> None:
    parser.add_argument(
        "--repo", default=repo_default, metavar="PATH", help="the repository (default: the current folder)"
    )
    parser.add_argument(
        "--wiki-dir",
        metavar="DIR",
        help=f"the wiki folder, in the repository (default: `wiki_dir` of .github/wikiwarden.yml, else "
        f"{DEFAULT_WIKI_DIR})",
    )


def _common(parser: argparse.ArgumentParser, repo_default: str | None = ".") -> None:
    _wiki_options(parser, repo_default)
    parser.add_argument(
        "--max-file-size",
        type=int,
        metavar="BYTES",
        help="evidence files (and pages) larger than this are reported as errors (default: `limits.max_file_bytes` "
        f"of .github/wikiwarden.yml, else {DEFAULT_MAX_FILE_BYTES})",
    )


def _add_check(commands: _Commands) -> None:
    check = commands.add_parser(
        "check",
        help="report which wiki claims are fresh, moved, cosmetic, stale, unresolved or in error",
        description="Check every claim against its evidence. With --base, carry evidence through the change "
        "from that commit and re-check only what the change can have affected. Exit 0 when nothing needs "
        "attention, 1 when a claim is stale, unresolved or in error, 2 on usage or repository errors.",
    )
    _common(check)
    check.add_argument("--base", metavar="REV", help="compare with this commit (diff-aware sweep)")
    check.add_argument("--head", metavar="REV", help="check this commit from git's objects (default: the working tree)")
    check.add_argument(
        "--staged",
        action="store_true",
        help="check what is staged (git's index), not the working tree, through the change from --base, else from "
        "HEAD: the pre-commit hook's check",
    )
    check.add_argument(
        "--format",
        choices=("text", "markdown", "json", "github", "sarif"),  # bot.claims.report.FORMATS, without importing it
        default="text",
        help="text (default), markdown (the check run's), json, github (GitHub Actions workflow commands: "
        "annotations), sarif (SARIF 2.1.0, for code scanning)",
    )
    check.add_argument(
        "--attention-only",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="list only what needs attention: stale, unresolved or erroneous claims, unreadable sidecars, broken "
        "references (default: on for github, off for the others; sarif only ever holds those)",
    )
    check.add_argument("--all", action="store_true", help="with --base, also re-check claims the change cannot affect")
    check.add_argument(
        "--cache",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="remember which files each sidecar cites and each full sweep's verdicts in .git/wikiwarden/, so the "
        "next check reads only what changed (default: on; never changes a verdict)",
    )
    check.add_argument(
        "--jobs",
        "-j",
        type=int,
        metavar="N",
        help="processes a large full sweep shares its files among, each with 5,000 records to evaluate or more "
        "(default: the processors this process may use, at most 4; 1 sweeps in one process)",
    )
    check.add_argument(
        "--baseline",
        metavar="FILE",
        help="broken references this file holds are notes, not failures (default: `baseline` of "
        ".github/wikiwarden.yml); a path in the repository, read from what is checked",
    )
    check.add_argument(
        "--write-baseline",
        metavar="FILE",
        help="write the broken references that fail this check to FILE (then name it as `baseline`), so only new "
        "ones fail from now on; the exit status is then the claims' alone",
    )
    check.add_argument(
        "--verbose", "-v", action="store_true", help="text format: list fresh claims, and references that are notes"
    )
    check.set_defaults(run=_check)


def _add_claim(commands: _Commands) -> None:
    claim = commands.add_parser("claim", help="keep claims by hand: add, confirm, retract, show, list")
    claim_commands = claim.add_subparsers(dest="claim_command", required=True, metavar="ACTION")
    add = claim_commands.add_parser("add", help="ground a page: add a claim with its evidence")
    _common(add)
    add.add_argument("page", help="the page: openwiki/x.md, /openwiki/x.md or x.md")
    add.add_argument("statement", help="the factual statement the page makes")
    add.add_argument("resources", nargs="+", metavar="RESOURCE", help="evidence, e.g. repo://src/x.py#L10-L24")
    add.set_defaults(run=_claim_add)
    confirm = claim_commands.add_parser("confirm", help="re-baseline a claim's evidence to the code as it is now")
    _common(confirm)
    confirm.add_argument("id")
    confirm.add_argument(
        "--base", metavar="REV", help="follow the evidence through the change from this commit (renames, moves) first"
    )
    confirm.set_defaults(run=_claim_confirm)
    retract = claim_commands.add_parser("retract", help="remove a claim")
    _common(retract)
    retract.add_argument("id")
    retract.set_defaults(run=_claim_retract)
    show = claim_commands.add_parser(
        "show",
        help="a claim's evidence: the text it recorded beside the text there now, and the diff",
        description="For each evidence record: its verdict, the text its version was taken from (the working tree "
        "when it still stands, else the --base commit, else the newest of the file's last 200 commits holding it), "
        "and the text there now, side by side and as a diff, to decide between `claim confirm` and `claim retract`.",
    )
    _common(show)
    show.add_argument("id")
    show.add_argument("--base", metavar="REV", help="look for the recorded text in this commit, and follow the "
                      "evidence through the change from it (renames, moves)")  # fmt: skip
    show.add_argument("--format", choices=("text", "json"), default="text")
    show.set_defaults(run=_claim_show)
    listing = claim_commands.add_parser("list", help="list claims, of one page or of the whole wiki")
    _common(listing)
    listing.add_argument("page", nargs="?")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    listing.set_defaults(run=_claim_list)


def _add_fix(commands: _Commands) -> None:
    fix = commands.add_parser(
        "fix",
        help="fix the wiki in the working tree: re-anchor moved evidence, and (with a model) confirm, update or "
        "retract stale claims and correct the prose",
        description="Without a model (WIKIWARDEN_MODEL or --model) only the deterministic work is done and the "
        "claims that need a model are listed. The model is any OpenAI-compatible server: WIKIWARDEN_OPENAI_BASE_URL, "
        "WIKIWARDEN_OPENAI_API_KEY. Exit 0 when nothing is left flagged, 1 when claims still need a person.",
    )
    _common(fix)
    fix.add_argument(
        "--base",
        metavar="REV",
        help="fix what the change from this commit made stale (default: every claim that needs attention, followed "
        "through the change from the gitHead of the wiki's .last-update.json when it names one)",
    )
    fix.add_argument("--model", help="the model to use (default: WIKIWARDEN_MODEL; 'none' for no model)")
    fix.add_argument("--max-claims", type=int, default=50, metavar="N", help="claims decided in one run (default 50)")
    fix.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    fix.set_defaults(run=_fix)


def _add_ground(commands: _Commands) -> None:
    ground = commands.add_parser(
        "ground",
        help="bring pages without claims under claims: a model proposes each page's claims with evidence, the "
        "checks decide what is written; without a model, list each page's references and candidate evidence",
        description="Grounds the named pages, else the next --max-pages pages of the wiki that have no claims (a "
        "later run continues with the rest). Every claim quotes the page and cites code; quotes, evidence and the "
        "names a statement quotes are checked, versions are computed here. Without a model (WIKIWARDEN_MODEL, "
        "--model; 'none' for none) or with --dry-run nothing is written. Exit 0 when every page was grounded, 1 "
        "when a page or statement needs a person (or, without a model, when pages are left to ground).",
    )
    _common(ground)
    ground.add_argument("pages", nargs="*", metavar="PAGE", help="pages to ground (default: pages without claims)")
    ground.add_argument("--model", help="the model to use (default: WIKIWARDEN_MODEL; 'none' for no model)")
    ground.add_argument("--max-pages", type=int, default=20, metavar="N", help="pages grounded in one run (default 20)")
    ground.add_argument("--dry-run", action="store_true", help="say what would be written, write nothing")
    ground.add_argument("--format", choices=("text", "json"), default="text")
    ground.set_defaults(run=_ground)


def _add_okf(commands: _Commands) -> None:
    okf = commands.add_parser("okf", help="OKF v0.2 metadata: validate a bundle, or bring it up to date")
    okf_commands = okf.add_subparsers(dest="okf_command", required=True, metavar="ACTION")
    validate = okf_commands.add_parser(
        "validate", help="report every OKF v0.2 conformance problem of a bundle (exit 1 when there is an error)"
    )
    _wiki_options(validate)
    validate.add_argument(
        "path", nargs="?", metavar="PATH", help="any bundle folder, in a repository or not (default: the wiki)"
    )
    validate.add_argument("--format", choices=("text", "json"), default="text")
    validate.set_defaults(run=_okf_validate)
    sync = okf_commands.add_parser(
        "sync",
        help="migrate pages, project `sources` from the claims, regenerate indexes (working tree)",
        description="Bring the OKF metadata and indexes of an OpenWiki wiki up to date. A folder is an OpenWiki wiki "
        "when it holds OpenWiki's .last-update.json or an index.md in the form OpenWiki (or an earlier sync) writes; "
        "any other folder, a person's docs site, is written only with --init. An index.md goes only into a folder "
        "with pages, in it or below; a title comes only from a real level-one heading, never from a code block; "
        "openwiki_generated is stamped only on pages OpenWiki wrote (the folder holds .last-update.json). Exit 0 "
        "when nothing is wrong, 1 when a page could not be handled, 2 on usage errors.",
    )
    _common(sync, repo_default=None)
    sync.add_argument(
        "path", nargs="?", metavar="PATH", help="the wiki folder, if named this way too (it must be --wiki-dir)"
    )
    sync.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    sync.add_argument(
        "--init",
        action="store_true",
        help="sync a folder that is not an OpenWiki wiki (a person's docs site): its pages get `type` and `title`, "
        "never `openwiki_generated`",
    )
    sync.set_defaults(run=_okf_sync)


def _add_init(commands: _Commands) -> None:
    init = commands.add_parser(
        "init",
        help="write a starting .github/wikiwarden.yml, the GitHub Actions workflow and the pre-commit entry for the "
        "docs folder this repository has (asks nothing, never overwrites)",
        description="Finds the docs folder (openwiki/, MkDocs' docs_dir, the folder of Sphinx's conf.py, else docs/ "
        "or doc/) unless --wiki-dir names it, and writes each file that does not exist yet; for one that exists, "
        "says what to add by hand.",
    )
    _wiki_options(init)
    init.set_defaults(run=_init)


def _add_serve(commands: _Commands) -> None:
    serve = commands.add_parser(
        "serve", help="run the GitHub App: the webhook server with in-process workers (settings: WIKIWARDEN_*)"
    )
    serve.set_defaults(run=_serve)


def _add_worker(commands: _Commands) -> None:
    worker = commands.add_parser(
        "worker",
        help="run jobs from the Redis queue (WIKIWARDEN_QUEUE_BACKEND=redis); serve enqueues them",
        description="Runs check and fix jobs that `wikiwarden serve` put on the Redis queue. Health and metrics: "
        "GET /healthz and /metrics on WIKIWARDEN_WORKER_PORT. SIGTERM stops it gracefully.",
    )
    worker.set_defaults(run=_worker)


def _add_manifest(commands: _Commands) -> None:
    manifest = commands.add_parser(
        "manifest", help="print app.yml as the JSON GitHub's manifest flow takes, with your webhook URL"
    )
    manifest.add_argument("--webhook-url", required=True, metavar="URL", help="where GitHub sends webhooks")
    manifest.add_argument("--name", help="the App's name (default: app.yml's)")
    manifest.add_argument("--redirect-url", metavar="URL", help="where GitHub sends the code after registration")
    manifest.set_defaults(run=_manifest)


def _add_demo(commands: _Commands) -> None:
    demo = commands.add_parser(
        "demo",
        help="build an example repository whose history moves, renames, reformats, changes and deletes "
        "evidence, then check it",
    )
    demo.add_argument("--dir", metavar="PATH", help="where to build it (default: a new temporary folder)")
    demo.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    demo.set_defaults(run=_demo)


def _add_action(commands: _Commands) -> None:
    action = commands.add_parser(
        "action",
        help="run as the GitHub Action's step (action.yml): check the workflow event's change, annotate it, "
        "write the job summary and outputs, and with fix: true propose the fix pull request",
        description="Reads the runner's environment: GITHUB_EVENT_NAME and GITHUB_EVENT_PATH (the change), "
        "GITHUB_STEP_SUMMARY and GITHUB_OUTPUT (where to report) and the action's inputs (INPUT_*). Exit 0 when "
        "nothing needs attention or the conclusion is neutral, 1 when something does, 2 when the step could not "
        "check or could not propose the fix.",
    )
    action.set_defaults(run=_action)


_COMMANDS: dict[str, Callable[[_Commands], None]] = {
    "check": _add_check,
    "claim": _add_claim,
    "fix": _add_fix,
    "ground": _add_ground,
    "okf": _add_okf,
    "init": _add_init,
    "serve": _add_serve,
    "worker": _add_worker,
    "manifest": _add_manifest,
    "demo": _add_demo,
    "action": _add_action,
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with `only`, a command's name, that command's alone (its arguments, help and
    errors as in the whole parser): every command's parser is 5 to 10 ms of every run (each parser asks gettext
    for its words), a few percent of a check."""
    parser = argparse.ArgumentParser(
        prog="wikiwarden", description="Keep a repository's OpenWiki code wiki honest as the code moves."
    )
    parser.add_argument("--version", action="version", version=f"wikiwarden {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, add in _COMMANDS.items():
        if only is None or name == only:
            add(commands)
    return parser


def _write_json(document: object) -> None:
    """A command's JSON document on stdout: UTF-8 whatever the locale, straight to the binary stream (a full sweep's
    report is hundreds of megabytes: no copy through `str`)."""
    from .claims.jsonout import dumps_bytes  # noqa: PLC0415  (orjson: only where JSON is written)

    _write_bytes((dumps_bytes(document),))


def _write_bytes(chunks: Iterable[bytes | memoryview]) -> None:
    """Chunks of UTF-8 as they come: a report written a page at a time is never held whole."""
    buffer = getattr(sys.stdout, "buffer", None)
    sys.stdout.flush()
    for chunk in chunks:
        if buffer is None:  # a text-only stream (a test's StringIO)
            sys.stdout.write(str(chunk, "utf-8"))
        else:
            buffer.write(chunk)
    if buffer is not None:
        buffer.flush()


def _repo(args: argparse.Namespace, path: str | Path | None = None) -> GitRepository:
    from .source.git import GitError, GitRepository  # noqa: PLC0415

    try:
        return GitRepository(path if path is not None else args.repo)
    except GitError as exc:
        raise UsageError(str(exc)) from exc


def _wiki_dir(given: str, root: Path) -> str:
    """`--wiki-dir` as a folder of the repository: relative to its top, or an absolute path inside it."""
    if os.path.isabs(given):
        absolute = os.path.abspath(given)
        # The folders above it resolved (the repository's own path may run through a symlink), not the folder
        # itself: a symlinked wiki must be seen as one.
        path = Path(os.path.realpath(os.path.dirname(absolute))) / os.path.basename(absolute)
        try:
            given = path.relative_to(root.resolve()).as_posix()
        except ValueError:
            raise UsageError(f"--wiki-dir {given} is outside the repository {root}") from None
    try:
        return normalize_wiki_dir(given)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def _overrides(args: argparse.Namespace, repo: GitRepository) -> Overrides:
    """What the command line says over `.github/wikiwarden.yml`."""
    from .usecases.config import Overrides  # noqa: PLC0415

    size = getattr(args, "max_file_size", None)
    if size is not None and size <= 0:
        raise UsageError("--max-file-size must be a positive number of bytes")
    wiki_dir = _wiki_dir(args.wiki_dir, repo.root) if args.wiki_dir is not None else None
    baseline = getattr(args, "baseline", None)
    if baseline is not None:
        baseline = _repo_file(baseline, repo.root, "--baseline")
    return Overrides(wiki_dir=wiki_dir, max_file_bytes=size, baseline=baseline)


def _repo_file(given: str, root: Path, flag: str) -> str:
    """A file named on the command line as a path of the repository (relative to its top, or absolute in it)."""
    from .claims.pages import normalize_repo_path  # noqa: PLC0415

    if os.path.isabs(given):
        try:
            given = Path(os.path.abspath(given)).relative_to(root.resolve()).as_posix()
        except ValueError:
            raise UsageError(f"{flag} {given} is outside the repository {root}") from None
    try:
        return normalize_repo_path(given)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def _options(args: argparse.Namespace, repo: GitRepository) -> SweepOptions:
    """The sweep's options: the command line's over the working tree's `.github/wikiwarden.yml`."""
    from .usecases.config import read_local_config  # noqa: PLC0415

    return read_local_config(repo, _overrides(args, repo)).sweep_options(getattr(args, "all", False))


def _warn(message: str) -> None:
    print(f"wikiwarden: {one_line(message)}", file=sys.stderr)


def _check(args: argparse.Namespace) -> int:
    from .claims.fanout import usable_processors  # noqa: PLC0415
    from .claims.report import render, report_json_chunks  # noqa: PLC0415
    from .claims.sweep import cyclic_gc_paused  # noqa: PLC0415
    from .source.git import GitError  # noqa: PLC0415
    from .usecases.check import check_repository, local_memory  # noqa: PLC0415

    if args.staged and args.head is not None:
        raise UsageError("--staged checks the index and --head a commit: give one or the other")
    if args.all and args.base is None and not args.staged:
        raise UsageError("--all only makes sense with --base (or --staged)")
    if args.jobs is not None and args.jobs <= 0:
        raise UsageError("--jobs must be a positive number of processes")
    processes = args.jobs if args.jobs is not None else usable_processors()
    # The whole command, not only the sweep: what follows it (the verdict cache kept, the report written) allocates
    # enough for the collector to traverse the sweep's millions of objects, a third of a second at 100k claims,
    # to find no cycle among them.
    with cyclic_gc_paused(), _repo(args) as repo:
        overrides = _overrides(args, repo)
        if args.write_baseline is not None:  # the baseline being written is not read: every reference is judged anew
            overrides = dataclasses.replace(overrides, baseline=None, use_baseline=False)
        try:
            memory = local_memory(repo, _warn) if args.cache else None
            report = check_repository(
                repo,
                args.base,
                args.head,
                overrides=overrides,
                recheck_all=args.all,
                staged=args.staged,
                memory=memory,
                processes=processes,
            )
        except GitError as exc:
            raise UsageError(str(exc)) from exc
        outlive(report)  # freed at the process's end (`run`), not when this returns
        if args.write_baseline is not None:
            return _write_baseline(args.write_baseline, report)
        if args.format == "json":
            _write_bytes(report_json_chunks(report, attention_only=bool(args.attention_only)))
        else:
            sys.stdout.write(render(report, args.format, verbose=args.verbose, attention_only=args.attention_only))
            if args.format == "text":
                sys.stdout.write(_next_steps(args, report))
    return EXIT_ATTENTION if report.needs_attention else EXIT_OK


def _next_steps(args: argparse.Namespace, report: SweepReport) -> str:
    """What to do, after a text report that needs attention: the commands with this check's own options."""
    from .claims.nextsteps import next_steps  # noqa: PLC0415

    given = [("--repo", args.repo if args.repo != "." else None), ("--wiki-dir", args.wiki_dir)]
    given.append(("--max-file-size", str(args.max_file_size) if args.max_file_size is not None else None))
    options = [word for flag, value in given if value is not None for word in (flag, value)]
    base = args.base if args.base is not None else "HEAD" if args.staged and report.base is not None else None
    lines = next_steps(report, options, base)
    return "\n" + "\n".join(lines) + "\n" if lines else ""


def _write_baseline(path: str, report: SweepReport) -> int:
    """`check --write-baseline`: the references that fail the check, written to `path`; the exit status is the
    claims' alone (the references written no longer fail)."""
    from .ground.baseline import render_baseline  # noqa: PLC0415

    failing = [ref for ref in report.broken_references if ref.attention]
    Path(path).write_bytes(render_baseline(failing))
    print(f"wrote {path}: {plural(len(failing), 'broken reference')} (name it as `baseline` in .github/wikiwarden.yml)")
    attention = report.summary["page_errors"] or any(
        report.summary[verdict] for verdict in ("stale", "unresolved", "error")
    )
    return EXIT_ATTENTION if attention else EXIT_OK


def _claims(args: argparse.Namespace) -> tuple[GitRepository, HandKeptClaims]:
    from .usecases.claims import HandKeptClaims  # noqa: PLC0415

    repo = _repo(args)
    try:
        options = _options(args, repo)
        return repo, HandKeptClaims(repo, options.wiki_dir, options.max_file_bytes)
    except BaseException:
        repo.close()
        raise


def _print_claim(headline: str, edit: ClaimEdit) -> int:
    assert edit.claim is not None
    print(headline)
    for record in edit.claim.evidence:
        print(f"  {record.resource}")
    return EXIT_OK


def _claim_add(args: argparse.Namespace) -> int:
    repo, claims = _claims(args)
    with repo:
        edit = claims.add(args.page, args.statement, args.resources)
    assert edit.claim is not None
    return _print_claim(f"added {edit.claim.id} to {edit.page} ({edit.sidecar})", edit)


def _claim_confirm(args: argparse.Namespace) -> int:
    repo, claims = _claims(args)
    with repo:
        edit = claims.confirm(args.id, args.base)
    return _print_claim(f"confirmed {args.id} on {edit.page}; evidence re-baselined to the code as it is now:", edit)


def _claim_retract(args: argparse.Namespace) -> int:
    repo, claims = _claims(args)
    with repo:
        edit = claims.retract(args.id)
    print(f"retracted {args.id} from {edit.page} ({edit.sidecar})")
    return EXIT_OK


def _claim_show(args: argparse.Namespace) -> int:
    import shutil  # noqa: PLC0415

    from .claims.sidebyside import side_by_side, unified  # noqa: PLC0415

    repo, claims = _claims(args)
    with repo:
        shown = claims.show(args.id, args.base)
    if args.format == "json":
        document = {
            "page": shown.page,
            "id": shown.claim.id,
            "statement": shown.claim.statement,
            "evidence": [
                {
                    "resource": e.resource,
                    "verdict": e.verdict.value,
                    "resource_now": e.resource_now,
                    "recorded": e.recorded,
                    "recorded_in": e.recorded_in,
                    "now": e.now,
                    "error": e.error,
                }
                for e in shown.evidence
            ],
        }
        _write_json(document)
        return EXIT_ATTENTION if any(e.verdict.needs_attention for e in shown.evidence) else EXIT_OK
    width = max(30, (shutil.get_terminal_size((120, 24)).columns - 7) // 2)
    print(f"{one_line(shown.claim.id)}  {one_line(shown.page)}")
    print(f"  {one_line(shown.claim.statement)}")
    attention = False
    for e in shown.evidence:
        attention = attention or e.verdict.needs_attention
        moved = f", now at {one_line(e.resource_now)}" if e.resource_now and e.resource_now != e.resource else ""
        print(f"\n{one_line(e.resource)}: {e.verdict.value}{moved}")
        if e.error:
            print(f"  {one_line(e.error)}")
            continue
        source = e.recorded_in if e.recorded_in == "the working tree" else f"commit {(e.recorded_in or '')[:12]}"
        recorded = "recorded: not found in the last 200 commits" if e.recorded is None else f"recorded ({source})"
        now = "now: gone" if e.now is None else "now"
        print(f"  {recorded:<{width}}   {now}")
        rows = side_by_side(e.recorded or "", e.now or "", width)
        print("\n".join(f"  {row}" for row in rows))
        if e.recorded is not None and e.now is not None and e.recorded != e.now:
            print("  diff:")
            print("\n".join(f"    {line}" for line in unified(e.recorded, e.now, "recorded", "now")))
    if attention:
        print(f"\nwikiwarden claim confirm {shown.claim.id}   # the statement still holds: re-baseline its evidence")
        print(f"wikiwarden claim retract {shown.claim.id}   # it does not: remove it (and correct the page)")
    return EXIT_ATTENTION if attention else EXIT_OK


def _claim_list(args: argparse.Namespace) -> int:
    from .claims.sweep import load_wiki  # noqa: PLC0415

    repo, claims = _claims(args)
    with repo:
        found = claims.list(args.page)
        broken = [p for p in load_wiki(claims.wiki.snapshot, claims.wiki_dir).pages if p.error]
    if args.format == "json":
        document = {
            "claims": [
                {
                    "page": page,
                    "id": claim.id,
                    "statement": claim.statement,
                    "evidence": [{"resource": e.resource, "version": e.version} for e in claim.evidence],
                }
                for page, claim in found
            ],
            "errors": [{"page": p.page, "error": p.error} for p in broken],
        }
        _write_json(document)
    else:
        current = None
        for page, claim in found:
            if page != current:
                print(one_line(page))
                current = page
            print(f"  {one_line(claim.id)}  {one_line(claim.statement)}")
            for record in claim.evidence:
                print(f"      {one_line(record.resource)}")
        for unreadable in broken:
            print(f"! {one_line(unreadable.error or '')}", file=sys.stderr)
        if not found and not broken:
            print("no claims")
    return EXIT_ATTENTION if broken else EXIT_OK


def _with_agent(args: argparse.Namespace, repo: GitRepository, work: Callable[[Agent | None], Awaitable[T]]) -> T:
    """Run `work` with the agent `--model` names (else WIKIWARDEN_MODEL's; None with no model or `--model none`),
    in an event loop of its own, and close the model's client after. Without a model, the model's client (the
    `agent` extra) is not needed, nor imported."""
    import asyncio  # noqa: PLC0415

    from .source.git import GitError  # noqa: PLC0415

    settings = _model_settings()
    model = None if args.model == "none" else (args.model or settings.model)

    async def run() -> T:
        if model is None:
            return await work(None)
        factory = _agent_factory(settings)
        try:
            return await work(factory.agent(str(repo.root), model))
        finally:
            await factory.close()

    try:
        return asyncio.run(run())
    except GitError as exc:
        raise UsageError(str(exc)) from exc


def _agent_factory(settings: ModelSettings) -> AgentFactory:
    try:
        from .agent.factory import AgentFactory  # noqa: PLC0415 - the model's client only for a model
    except ModuleNotFoundError as exc:
        raise UsageError(_missing_extra(exc, "agent", "a model")) from exc
    return AgentFactory(settings)


def _missing_extra(exc: ModuleNotFoundError, extra: str, what: str) -> str:
    return f"{what} needs the {extra} extra ({exc.name} is not installed): pip install 'wikiwarden[{extra}]'"


def _model_settings() -> ModelSettings:
    from pydantic import ValidationError  # noqa: PLC0415 - settings are only read by the commands using a model

    from .settings import ModelSettings  # noqa: PLC0415

    try:
        return ModelSettings()
    except ValidationError as exc:
        raise UsageError(f"invalid model settings: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}") from exc


def _fix(args: argparse.Namespace) -> int:
    from .fix.summary import render_text  # noqa: PLC0415
    from .usecases.fix import fix_working_tree, recorded_base  # noqa: PLC0415

    if args.max_claims <= 0:
        raise UsageError("--max-claims must be at least 1")
    from .usecases.config import read_local_config  # noqa: PLC0415

    repo = _repo(args)
    with repo:
        config = read_local_config(repo, _overrides(args, repo))
        options = config.sweep_options()
        base, note = args.base, None
        if base is None:  # every claim that needs attention, followed through the change OpenWiki last saw
            recorded = recorded_base(repo, options.wiki_dir)
            base, note = recorded.commit, recorded.note
            options = SweepOptions(options.wiki_dir, options.max_file_bytes, recheck_all=True)
        result, written = _with_agent(
            args, repo,
            lambda agent: fix_working_tree(
                repo, base=base, options=options, decider=agent, cap=args.max_claims, dry_run=args.dry_run,
                config=config,
            ),
        )  # fmt: skip
    if note is not None:
        print(note)
    if args.dry_run:  # the report below says what the fix did: here, what it would do
        print("dry run: nothing was written; this is what the fix would do")
    sys.stdout.write(render_text(result, [] if args.dry_run else written))
    if args.dry_run and written:
        print("dry run: would write " + ", ".join(written))
    return EXIT_ATTENTION if result.needs_a_person else EXIT_OK


def _ground(args: argparse.Namespace) -> int:
    from .ground import report  # noqa: PLC0415
    from .source.git import GitError  # noqa: PLC0415
    from .usecases.ground import ground_working_tree  # noqa: PLC0415

    if args.max_pages <= 0:
        raise UsageError("--max-pages must be at least 1")
    repo = _repo(args)
    with repo:
        options = _options(args, repo)
        require_wiki_folder(repo.worktree(), options.wiki_dir)
        inputs, result, written = _with_agent(
            args, repo,
            lambda agent: ground_working_tree(
                repo, options=options, grounder=agent, pages=args.pages, max_pages=args.max_pages,
                dry_run=args.dry_run,
            ),
        )  # fmt: skip
        try:
            head = repo.resolve("HEAD")
        except GitError:  # no commit yet
            head = "working tree"
    others = _other_kinds(inputs.other_kinds, options.wiki_dir)
    if result is None:  # no model: the plan a person grounds from by hand
        if args.format == "json":
            sys.stdout.write(report.dumps(report.plan_json(inputs.work, inputs.waiting, options.wiki_dir, head)))
        else:
            sys.stdout.write(report.render_plan_text(inputs.work, inputs.waiting))
            if not inputs.work:
                print("no Markdown page without claims: nothing to ground")
            if inputs.bound is not None and inputs.bound.pages:
                print(_bound_snippets(inputs.bound.bound, len(inputs.bound.pages), written, args.dry_run))
            if others:
                print(others)
        return EXIT_ATTENTION if inputs.work or inputs.waiting else EXIT_OK
    shown = [] if args.dry_run else written
    if args.format == "json":
        document = report.result_json(result.pages, result.waiting, shown, result.model, result.usage)
        sys.stdout.write(report.dumps(document))
    else:
        sys.stdout.write(report.render_result_text(result.pages, result.waiting, shown))
        if args.dry_run and written:
            print("dry run: would write " + ", ".join(written))
        if result.snippets.pages:
            print(_bound_snippets(result.snippets.bound, len(result.snippets.pages), [], True))
        if not result.pages:
            print("no Markdown page without claims: nothing to ground")
        if others:
            print(others)
    return EXIT_ATTENTION if result.needs_a_person else EXIT_OK


def _bound_snippets(blocks: int, pages: int, written: list[str], dry_run: bool) -> str:
    """What binding the copied code blocks did, said in one line (and what it wrote, when it wrote)."""
    said = f"bound {plural(blocks, 'code block')} copied from the source on {plural(pages, 'page')} as snippet claims"
    if written and not dry_run:
        return said + "; wrote " + ", ".join(written)
    return said + ("; dry run: would write " + ", ".join(written) if written else "")


def _other_kinds(pages: list[str], wiki_dir: str) -> str | None:
    """What grounding leaves, said: claims are kept on Markdown pages only (OpenWiki's sidecars are per page of
    Markdown, and OKF is Markdown's), while `check` reads every kind's references."""
    if not pages:
        return None
    rst = sum(1 for p in pages if p.lower().endswith(".rst"))
    kinds = ", ".join(
        part for part in (plural(rst, "reStructuredText page") * bool(rst), plural(len(pages) - rst, "MDX page") *
                          bool(len(pages) - rst)) if part
    )  # fmt: skip
    return (
        f"{wiki_dir}/ holds {kinds}: claims are kept on Markdown pages only, so grounding leaves them; "
        "`wikiwarden check` checks their references"
    )


def _okf_validate(args: argparse.Namespace) -> int:
    from .usecases.okf import validate_okf  # noqa: PLC0415

    if args.path is not None:  # any folder of Markdown, in a repository or not
        folder, shown = Path(args.path), args.path
    else:
        with _repo(args) as repo:
            shown = _options(args, repo).wiki_dir
            require_wiki_folder(repo.worktree(), shown)
            folder = repo.root / shown
    problems = validate_okf(folder)
    errors = [p for p in problems if p.severity == "error"]
    if args.format == "json":
        document = {
            "bundle": str(shown),
            "errors": len(errors),
            "warnings": len(problems) - len(errors),
            "problems": [
                {"file": p.path, "field": p.field, "problem": p.problem, "severity": p.severity} for p in problems
            ],
        }
        _write_json(document)
    else:
        for p in problems:
            where = f"{p.path}: {p.field}" if p.field else p.path
            print(f"{p.severity}: {where}: {p.problem}")
        print(f"{shown}: {plural(len(errors), 'error')}, {plural(len(problems) - len(errors), 'warning')}")
    return EXIT_ATTENTION if errors else EXIT_OK


def _folder_of(path: Path, repo: GitRepository) -> str | None:
    """`path` as a folder of the repository, None when it is not one."""
    try:
        return _wiki_dir(os.path.abspath(path), repo.root)
    except UsageError:
        return None


def _okf_sync(args: argparse.Namespace) -> int:
    """Sync writes index.md into every folder below the one it is given, so it is given only the wiki: the
    folder `--wiki-dir` names, which PATH, when given too, must be."""
    from .usecases.okf import sync_okf  # noqa: PLC0415

    named = Path(args.path) if args.path is not None else None
    if named is not None and not named.exists():
        raise UsageError(f"{args.path} does not exist")
    where: str | Path = "."  # the repository: --repo, else the one holding PATH, else the current folder's
    if args.repo is not None:
        where = args.repo
    elif named is not None:
        where = named if named.is_dir() else named.parent
    with _repo(args, where) as repo:
        options = _options(args, repo)
        if named is not None and _folder_of(named, repo) != options.wiki_dir:
            raise UsageError(
                f"{args.path} is not the wiki folder {options.wiki_dir}/ of {repo.root}; okf sync writes only the "
                f"wiki (if it is the wiki, say so: --wiki-dir {args.path})"
            )
        plan = sync_okf(
            repo, options.wiki_dir, dry_run=args.dry_run, init=args.init, max_file_bytes=options.max_file_bytes
        )
    verb = "would write" if args.dry_run or plan.held else "wrote"
    if args.dry_run or not plan.held:
        for path in sorted(plan.writes):
            print(f"{verb} {path}")
        for path, why in plan.kept:  # a person's page where an index goes: left on purpose, not a problem
            print(f"left as it is: {path}: {why}")
    for path, problem in plan.problems:
        print(f"left as it is: {path}: {problem}", file=sys.stderr)
    if not plan.writes:
        print("everything is up to date")
    elif plan.held:  # a person's folder, and nothing asked sync to write into it: say so, nothing is wrong
        pages, indexes = plan.counts()
        print(
            f"{options.wiki_dir}/ is not an OpenWiki wiki (no .last-update.json, no index.md OpenWiki or Wikiwarden "
            f"wrote): okf sync would add front matter to {plural(pages, 'page')} and indexes to "
            f"{plural(indexes, 'folder')}; run `{_init_command(args)}` to do so"
        )
    return EXIT_ATTENTION if plan.problems else EXIT_OK


def _init_command(args: argparse.Namespace) -> str:
    """What to run to sync the folder anyway: okf sync on the same repository and folder, with --init."""
    words = ["wikiwarden", "okf", "sync"]
    if args.repo is not None:
        words += ["--repo", shlex.quote(str(args.repo))]
    if args.wiki_dir is not None:  # else the folder comes from .github/wikiwarden.yml or is the default
        words += ["--wiki-dir", shlex.quote(str(args.wiki_dir))]
    if args.path is not None:
        words.append(shlex.quote(args.path))
    return " ".join([*words, "--init"])


def _init(args: argparse.Namespace) -> int:
    """`wikiwarden init`: each file of the plan that does not exist is created (never over a file that appeared
    meanwhile); the rest is said."""
    from .source.git import GitError  # noqa: PLC0415
    from .usecases.init import plan_init  # noqa: PLC0415

    with _repo(args) as repo:
        wiki_dir = _wiki_dir(args.wiki_dir, repo.root) if args.wiki_dir is not None else None
        try:
            branch = repo.git("symbolic-ref", "--quiet", "--short", "HEAD").decode().strip() or "main"
        except GitError:  # a detached HEAD
            branch = "main"
        plan = plan_init(repo.worktree(), wiki_dir, branch)
        print(f"docs folder: {plan.wiki_dir}/ (found by {plan.found_by})")
        for path, content in plan.writes.items():  # none is, or lies under, a symlink (the plan left those)
            target = repo.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with target.open("x", encoding="utf-8") as out:
                    out.write(content)
            except FileExistsError:
                print(f"left {path}: it appeared meanwhile")
                continue
            print(f"wrote {path}")
        for path, why in plan.kept:
            print(f"left {path}: {why}")
    print("next: wikiwarden check   (if it finds references that were broken already: wikiwarden check "
          "--write-baseline .github/wikiwarden-baseline.json, then name it as `baseline`)")  # fmt: skip
    return EXIT_OK


# The web process's informational lines (one a delivery) are written together within this time: formatted one by
# one among a burst's deliveries in flight they were a quarter of what a delivery cost it.
LOG_BATCH_SECONDS = 1.0


def _serve(args: argparse.Namespace) -> int:
    # Imported here so `wikiwarden check` (a pre-commit hook) does not pay for the web stack at start-up.
    try:
        from aiohttp import web  # noqa: PLC0415

        from .web import create_app, server_options  # noqa: PLC0415
    except ModuleNotFoundError as exc:
        raise UsageError(_missing_extra(exc, "app", "the GitHub App")) from exc

    settings = _app_settings(batch_seconds=LOG_BATCH_SECONDS)
    web.run_app(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        print=None,
        shutdown_timeout=settings.shutdown_grace_seconds,
        access_log=None,
        **server_options(settings),
    )
    return EXIT_OK


def _app_settings(batch_seconds: float = 0) -> Settings:
    """The App's settings from the environment, and logging set up by them (JSON, secrets scrubbed; informational
    lines written together within `batch_seconds`, see `bot.logs.Batched`)."""
    try:
        from .logs import configure_logging  # noqa: PLC0415
    except ModuleNotFoundError as exc:
        raise UsageError(_missing_extra(exc, "app", "the GitHub App")) from exc
    from .settings import SettingsError, load_settings  # noqa: PLC0415

    try:
        settings = load_settings()
    except SettingsError as exc:
        raise UsageError(str(exc)) from exc
    configure_logging(settings.log_format, settings.log_level, settings.secret_values(), batch_seconds=batch_seconds)
    return settings


def _worker(args: argparse.Namespace) -> int:
    try:
        from .worker import main  # noqa: PLC0415
    except ModuleNotFoundError as exc:
        raise UsageError(_missing_extra(exc, "app", "the GitHub App's worker")) from exc

    settings = _app_settings()
    if settings.queue_backend != "redis":
        raise UsageError("wikiwarden worker runs jobs from Redis: set WIKIWARDEN_QUEUE_BACKEND=redis (and _REDIS_URL)")
    return main(settings)


def _manifest(args: argparse.Namespace) -> int:
    from .okf.yaml12 import load_yaml  # noqa: PLC0415 - only this command needs YAML

    path = Path(__file__).resolve().parent.parent / "app.yml"
    if not path.is_file():
        raise UsageError(f"app.yml not found next to the package ({path})")
    manifest = load_yaml(path.read_text())
    if not args.webhook_url.startswith("https://"):
        raise UsageError("--webhook-url must be an https:// URL GitHub can reach")
    manifest["hook_attributes"]["url"] = args.webhook_url
    if args.name:
        manifest["name"] = args.name
    if args.redirect_url:
        manifest["redirect_url"] = args.redirect_url
    sys.stdout.write(json.dumps(manifest, indent=2) + "\n")
    return EXIT_OK


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo  # noqa: PLC0415

    return run_demo(args.dir, args.format)


def _action(args: argparse.Namespace) -> int:
    from .action import run_action  # noqa: PLC0415

    return run_action(os.environ)


def _in_words(exc: Exception) -> str:
    """An error as one line of words: an OSError's own phrase and file, not `[Errno 2] ...`."""
    if isinstance(exc, OSError) and exc.strerror:
        where = exc.filename if exc.filename is not None else ""
        return f"{where}: {exc.strerror.lower()}" if where else exc.strerror.lower()
    return " ".join(str(exc).split())


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    arguments = sys.argv[1:] if argv is None else list(argv)
    command = arguments[0] if arguments and arguments[0] in _COMMANDS else None
    args = build_parser(only=command).parse_args(arguments)
    from .claims.errors import ClaimsError, EvidenceSecurityError  # noqa: PLC0415 - after --help and --version
    from .source.git import GitError  # noqa: PLC0415

    try:
        return int(args.run(args))
    except BrokenPipeError:  # `wikiwarden claim list | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (UsageError, GitError, ClaimsError, EvidenceSecurityError, LookupError, OSError, ValueError) as exc:
        print(f"wikiwarden: error: {_in_words(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


def run() -> NoReturn:
    """The `wikiwarden` command: `main`, its output flushed, then the process ends at once. What the command built
    (a check's wiki and report: millions of objects at 100k claims) goes with the process instead of being freed
    object by object first (a tenth of a second at 100k claims). Everything a command must finish (files written,
    git and child processes ended, the event loop closed) it finishes within `main`; what it would free on the way
    there (a check's wiki when its use case returns, its report when the command does) it leaves to the end too
    (`bot.lifetime`)."""
    one_shot()
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left before the last of the output: as `main` says it
        code = 141
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    if "logging" in sys.modules:  # what the interpreter's exit would have done for a handler that buffers
        sys.modules["logging"].shutdown()
    os._exit(code)


if __name__ == "__main__":
    run()
