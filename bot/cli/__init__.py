"""The `wikiwarden` command: check a local repository's wiki, keep claims by hand, see a demo.

This module parses the command line and hands it to the command's module (`check`, `claim`, `fix`, `ground`, `okf`,
`init`, `app` for serve, worker and manifest); each calls its use case and has the answer rendered. `build_parser`
is the whole command line, for the docs' reference too.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

from .. import __version__
from ..claims.options import DEFAULT_MAX_FILE_BYTES
from ..claims.pages import DEFAULT_WIKI_DIR
from ..lifetime import one_shot
from .common import EXIT_USAGE, UsageError

# Everything else is imported by the command that runs: `wikiwarden check` in a pre-commit hook, or `--version`,
# pays for neither the model's client, the web server, the queue, nor the other commands.
if TYPE_CHECKING:
    from typing import TypeAlias

    _Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]  # what add_subparsers gives

__all__ = ["UsageError", "build_parser", "main", "run"]


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
        choices=("text", "markdown", "json", "github", "sarif"),  # bot.report.check.FORMATS, without importing it
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
        "next check reads only what changed (default: on). Its files are sealed, and one that does not verify is not "
        "used; with WIKIWARDEN_CACHE_KEY set they are signed with that secret, and only files signed with it are used",
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


def _add_claim(commands: _Commands) -> None:
    claim = commands.add_parser("claim", help="keep claims by hand: add, confirm, retract, show, list")
    claim_commands = claim.add_subparsers(dest="claim_command", required=True, metavar="ACTION")
    add = claim_commands.add_parser("add", help="ground a page: add a claim with its evidence")
    _common(add)
    add.add_argument("page", help="the page: openwiki/x.md, /openwiki/x.md or x.md")
    add.add_argument("statement", help="the factual statement the page makes")
    add.add_argument("resources", nargs="+", metavar="RESOURCE", help="evidence, e.g. repo://src/x.py#L10-L24")
    confirm = claim_commands.add_parser("confirm", help="re-baseline a claim's evidence to the code as it is now")
    _common(confirm)
    confirm.add_argument("id", help="the claim's id (claim_…), as check, claim list and the sidecar name it")
    confirm.add_argument(
        "--base", metavar="REV", help="follow the evidence through the change from this commit (renames, moves) first"
    )
    retract = claim_commands.add_parser("retract", help="remove a claim")
    _common(retract)
    retract.add_argument("id", help="the claim's id (claim_…), as check, claim list and the sidecar name it")
    show = claim_commands.add_parser(
        "show",
        help="a claim's evidence: the text it recorded beside the text there now, and the diff",
        description="For each evidence record: its verdict, the text its version was taken from (the working tree "
        "when it still stands, else the --base commit, else the newest of the file's last 200 commits holding it), "
        "and the text there now, side by side and as a diff, to decide between `claim confirm` and `claim retract`.",
    )
    _common(show)
    show.add_argument("id", help="the claim's id (claim_…), as check, claim list and the sidecar name it")
    show.add_argument("--base", metavar="REV", help="look for the recorded text in this commit, and follow the "
                      "evidence through the change from it (renames, moves)")  # fmt: skip
    show.add_argument("--format", choices=("text", "json"), default="text")
    listing = claim_commands.add_parser("list", help="list claims, of one page or of the whole wiki")
    _common(listing)
    listing.add_argument(
        "page", nargs="?", help="one page's claims (openwiki/x.md, /openwiki/x.md or x.md); default: every page's"
    )
    listing.add_argument("--format", choices=("text", "json"), default="text")


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


def _add_ground(commands: _Commands) -> None:
    ground = commands.add_parser(
        "ground",
        help="bring pages without claims under claims: a model proposes each page's claims with evidence, the "
        "checks decide what is written; without a model, list each page's references and candidate evidence",
        description="Grounds the named pages, else the next --max-pages pages of the wiki that have no claims (a "
        "later run continues with the rest). Every claim quotes the page and cites code; quotes, evidence and the "
        "names a statement quotes are checked, versions are computed here. Without a model (WIKIWARDEN_MODEL, "
        "--model; 'none' for none), only the code blocks copied from the source are bound: their sidecars and quotes "
        "files are written (each named; a page itself only in an OKF wiki, its `sources`), never for a blog post, a "
        "changelog or an include fragment; with "
        "--dry-run nothing is written and it says what would be. Exit 0 when every page was grounded, 1 when a page "
        "or statement needs a person (or, without a model, when pages are left to ground).",
    )
    _common(ground)
    ground.add_argument("pages", nargs="*", metavar="PAGE", help="pages to ground (default: pages without claims)")
    ground.add_argument("--model", help="the model to use (default: WIKIWARDEN_MODEL; 'none' for no model)")
    ground.add_argument("--max-pages", type=int, default=20, metavar="N", help="pages grounded in one run (default 20)")
    ground.add_argument("--dry-run", action="store_true", help="say what would be written, write nothing")
    ground.add_argument("--format", choices=("text", "json"), default="text")


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
    sync = okf_commands.add_parser(
        "sync",
        help="migrate pages, project `sources` from the claims, regenerate indexes (working tree)",
        description="Bring the OKF metadata and indexes of an OpenWiki wiki up to date. A folder is an OpenWiki wiki "
        "when it holds OpenWiki's .last-update.json or an index.md in the form OpenWiki (or an earlier sync) writes; "
        "any other folder, a person's docs site, is written only with --init. An index.md goes only into a folder "
        "with pages, in it or below; a title comes only from a real level-one heading, never from a code block; "
        "openwiki_generated is stamped only on pages OpenWiki wrote (the folder holds .last-update.json). On a MkDocs "
        "or Sphinx site, sync reads the site as its builder does: blog posts, include fragments and pages the site "
        "excludes are left as they are, and no new index.md is written unless --indexes asks (never in a blog's "
        "folder or one the site leaves out). Exit 0 when nothing is wrong, 1 when a page could not be handled, 2 on "
        "usage errors.",
    )
    _common(sync, repo_default=None)
    sync.add_argument(
        "path", nargs="?", metavar="PATH", help="the wiki folder, if named this way too (it must be --wiki-dir)"
    )
    sync.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    sync.add_argument(
        "--init",
        action="store_true",
        help="sync a folder that is not an OpenWiki wiki (a person's docs site): its pages get `type` and `title` "
        "(plain text), never `openwiki_generated`; the folder is an OKF wiki from then on",
    )
    sync.add_argument(
        "--indexes",
        action="store_true",
        help="on a docs site, also write a new index.md into each folder the site publishes that has none (the site "
        "then publishes them as pages)",
    )


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


def _add_serve(commands: _Commands) -> None:
    commands.add_parser(
        "serve", help="run the GitHub App: the webhook server with in-process workers (settings: WIKIWARDEN_*)"
    )


def _add_worker(commands: _Commands) -> None:
    commands.add_parser(
        "worker",
        help="run check, fix and grounding jobs from the Redis queue (WIKIWARDEN_QUEUE_BACKEND=redis); serve "
        "enqueues them",
        description="Runs the check, fix and grounding jobs that `wikiwarden serve` put on the Redis queue (grounding: "
        "the check run's Ground button, or a push to the default branch leaving pages without claims under "
        "`ground: auto`). Health and metrics: "
        "GET /healthz and /metrics on WIKIWARDEN_WORKER_PORT. SIGTERM stops it gracefully.",
    )


def _add_manifest(commands: _Commands) -> None:
    manifest = commands.add_parser(
        "manifest", help="print app.yml as the JSON GitHub's manifest flow takes, with your webhook URL"
    )
    manifest.add_argument("--webhook-url", required=True, metavar="URL", help="where GitHub sends webhooks")
    manifest.add_argument("--name", help="the App's name (default: app.yml's)")
    manifest.add_argument("--redirect-url", metavar="URL", help="where GitHub sends the code after registration")


def _add_demo(commands: _Commands) -> None:
    demo = commands.add_parser(
        "demo",
        help="build an example repository whose history moves, renames, reformats, changes and deletes "
        "evidence, then check it",
    )
    demo.add_argument("--dir", metavar="PATH", help="where to build it (default: a new temporary folder)")
    demo.add_argument("--format", choices=("text", "markdown", "json"), default="text")


def _add_action(commands: _Commands) -> None:
    commands.add_parser(
        "action",
        help="run as the GitHub Action's step (action.yml): check the workflow event's change, annotate it, "
        "write the job summary and outputs, and with fix: true propose the fix pull request",
        description="Reads the runner's environment: GITHUB_EVENT_NAME and GITHUB_EVENT_PATH (the change), "
        "GITHUB_STEP_SUMMARY and GITHUB_OUTPUT (where to report) and the action's inputs (INPUT_*). Exit 0 when "
        "nothing needs attention or the conclusion is neutral, 1 when something does, 2 when the step could not "
        "check or could not propose the fix.",
    )


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
    errors as in the whole parser): building every command's parser costs every run (each parser asks gettext
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


def _run(args: argparse.Namespace) -> int:
    """The command's module runs it: imported only now, so a command pays for no other's imports."""
    command = args.command
    if command == "check":
        from .check import run  # noqa: PLC0415
    elif command == "claim":
        from .claim import run  # noqa: PLC0415
    elif command == "fix":
        from .fix import run  # noqa: PLC0415
    elif command == "ground":
        from .ground import run  # noqa: PLC0415
    elif command == "okf":
        from .okf import run  # noqa: PLC0415
    elif command == "init":
        from .init import run  # noqa: PLC0415
    elif command == "demo":
        from ..demo import run_demo  # noqa: PLC0415

        return run_demo(args.dir, args.format)
    elif command == "action":
        from ..action import run_action  # noqa: PLC0415

        return run_action(os.environ)
    else:  # serve, worker, manifest
        from .app import run  # noqa: PLC0415
    return run(args)


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
    from ..claims.errors import ClaimsError, EvidenceSecurityError  # noqa: PLC0415 - after --help and --version
    from ..source.git import GitError  # noqa: PLC0415

    try:
        return int(_run(args))
    except BrokenPipeError:  # `wikiwarden claim list | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (UsageError, GitError, ClaimsError, EvidenceSecurityError, LookupError, OSError, ValueError) as exc:
        several = isinstance(exc, UsageError) and len(exc.args) > 1
        for line in [" ".join(str(problem).split()) for problem in exc.args] if several else [_in_words(exc)]:
            print(f"wikiwarden: error: {line}", file=sys.stderr)
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
