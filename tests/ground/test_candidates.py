"""Candidate evidence for a page, found without a model: which definitions and files a page's references, values
and prose point at, in which order (best first), and how many (a limit keeps the best). The repository is read
through the real symbol index; every expected line below was checked against the sources here."""

from __future__ import annotations

import pytest

from bot.ground.candidates import MAX_CANDIDATES, SPECIFIC, Candidate, candidates, is_test
from bot.ground.references import references
from bot.ground.symbols import SymbolIndex

GIT_REPO_TS = """// The git-repo connector.
export const definition = {
  id: "git-repo",
  backend: "local-git",
};

export async function ingest(): Promise<void> {
  await createRepoManifest();
}

async function createRepoManifest(): Promise<string> {
  return "manifest";
}
"""
CRASH_GUARD_TS = """/** Installs the guard before any run starts. */
export function installCrashGuard(): void {
  process.on("unhandledRejection", handleFatal);
}

function handleFatal(error: unknown): void {
  console.error(error);
}
"""
PROMPT_TS = """export function createSystemPrompt(mode: string): string {
  return formatLanguageInstructions(mode) + formatGitHistoryHint(mode);
}

// Tells the agent which language to write in.
function formatLanguageInstructions(language: string): string {
  return `Write in ${language}.`;
}

function formatGitHistoryHint(mode: string): string {
  return mode === "code" ? "Use git history." : "";
}

function createDiagramInstructions(): string {
  return "Draw mermaid diagrams.";
}
"""
PROMPT_TEST_TS = """import { createSystemPrompt } from "../../src/agent/prompt";

export function formatLanguageInstructions(): string {
  return createSystemPrompt("code");
}
"""
QUEUE_PY = '''"""A small task queue."""

MAX_ITEMS = 100


class TaskQueue:
    """First in, first out."""

    def push(self, task):
        self.tasks.append(task)

    def drain(self):
        done, self.tasks = self.tasks, []
        return done


def retry_later(task, delay_seconds=30):
    return (task, delay_seconds)
'''
WORKER_PY = """class WorkerPool:
    def drain(self):
        return []


def run_forever(pool):
    while True:
        pool.drain()
"""


def source(name: str, connector: str) -> str:
    return f'export const definition = {{\n  id: "{connector}",\n  backend: "direct-api",\n}};\n\nexport async function ingest(): Promise<void> {{}}\n'


CODE = {
    "src/connectors/sources/git-repo.ts": GIT_REPO_TS,
    "src/connectors/sources/slack.ts": source("slack", "slack"),
    "src/connectors/sources/gmail.ts": source("gmail", "google"),
    "src/connectors/sources/x.ts": source("x", "x"),
    "src/connectors/sources/hackernews.ts": source("hackernews", "hackernews"),
    "src/agent/crash-guard.ts": CRASH_GUARD_TS,
    "src/agent/prompt.ts": PROMPT_TS,
    "test/agent/prompt.test.ts": PROMPT_TEST_TS,
    "src/cli/app/app.tsx": "export function App() {\n  return null;\n}\n",
    "src/cli/index.ts": 'import { register } from "./commands";\n\nregister("sync-now");\n',
    "src/agent/index.ts": "export {};\n",
    "src/auth/index.ts": "export {};\n",
    "src/setup/index.ts": "export {};\n",
    "evals/ledger/run.ts": "export async function runBenchmark(): Promise<void> {}\n",
    "src/taskq/queue.py": QUEUE_PY,
    "src/taskq/worker.py": WORKER_PY,
}
PATHS = frozenset({*CODE, "evals/ledger/README.md", "examples/openwiki-update.yml", "docs/my notes.md"})
PAGE = "openwiki/page.md"


def index_of(files: dict[str, str]) -> SymbolIndex:
    return SymbolIndex.of_files({path: text.encode() for path, text in files.items()})


INDEX = index_of(CODE)


def of(text: str, paths: frozenset[str] = PATHS, index: SymbolIndex = INDEX, limit: int = MAX_CANDIDATES) -> list[str]:
    found = candidates(references(PAGE, text, paths, index), text, paths, index, limit)
    return [f"{c.resource}  {c.why}" for c in found]


def test_nothing_named_nothing_proposed() -> None:
    assert of("# Notes\n\nA few words about nothing in particular.\n") == []
    assert of("") == []


def test_definitions_a_span_names_with_what_documents_them() -> None:
    assert of("`installCrashGuard()` and `TaskQueue.drain`.\n") == [
        "repo://src/agent/crash-guard.ts#L1-L4  `installCrashGuard()` names function installCrashGuard",  # its JSDoc
        "repo://src/taskq/queue.py#L12-L14  `TaskQueue.drain` names method TaskQueue.drain",
        "repo://src/taskq/queue.py#L6-L14  the page says task queue: TaskQueue",  # in a file named, spelled out
        # then what else the files they stand in define (here no name's words are the page's: in file order)
        "repo://src/agent/crash-guard.ts#L6-L8  function handleFatal of a file it names",
        "repo://src/taskq/queue.py#L3-L3  constant MAX_ITEMS of a file it names",
        "repo://src/taskq/queue.py#L17-L18  function retry_later of a file it names",
    ]


def test_each_candidate_once_at_its_best() -> None:
    text = "`TaskQueue` and `TaskQueue` again, `src/taskq/queue.py` and [it](../src/taskq/queue.py), TaskQueue.\n"
    assert of(text)[:2] == [
        "repo://src/taskq/queue.py#L6-L14  `TaskQueue` names class TaskQueue",
        "repo://src/taskq/queue.py  `src/taskq/queue.py` names the file",
    ]
    assert len(of(text)) == len(set(of(text)))


def test_a_value_in_backticks_leads_to_the_code_that_writes_it() -> None:
    assert of("The connector runs on `local-git`; `sync-now` is registered at start.\n")[:2] == [
        "repo://src/connectors/sources/git-repo.ts#L1-L5  `local-git` is a value in constant definition",
        "repo://src/cli/index.ts#L3-L3  `sync-now` is written here",  # a value outside any definition: its line
    ]
    assert of("Every source but one is `direct-api`.\n") == []  # a value written in more places than a few
    assert of("`unhandledRejection` is caught.\n")[0] == (
        "repo://src/agent/crash-guard.ts#L1-L4  `unhandledRejection` is a value in function installCrashGuard"
    )


def test_a_file_named_by_its_path_its_name_or_the_end_of_its_path() -> None:
    text = (
        "See `examples/openwiki-update.yml`, `openwiki-update.yml`, `app/app.tsx`, `run.ts`, `git-repo`, `index.ts`.\n"
    )
    assert [c for c in of(text) if "names the file" in c] == [
        "repo://examples/openwiki-update.yml  `examples/openwiki-update.yml` names the file",
        "repo://src/cli/app/app.tsx  `app/app.tsx` names the file",
        "repo://evals/ledger/run.ts  `run.ts` names the file",
        "repo://src/connectors/sources/git-repo.ts  `git-repo` names the file",  # a code file by its name alone
    ]  # `index.ts` is the name of more files than a few: none of them
    text = "`prompt.test.ts`, `ledger/run`, `/run.ts`, `crash-guard` and `queue.py`.\n"
    assert [c for c in of(text) if "names the file" in c] == [
        "repo://src/agent/crash-guard.ts  `crash-guard` names the file",  # a test names none; nor a name and a folder
        "repo://src/taskq/queue.py  `queue.py` names the file",
    ]


def test_the_readme_of_a_folder_the_page_names() -> None:
    assert (
        of("The benchmark lives in `evals/ledger/`.\n")[0]
        == "repo://evals/ledger/README.md  `evals/ledger/` names its folder"
    )
    assert of("The code lives in `src/taskq/`.\n") == []  # no README there


def test_a_file_the_page_names_in_words() -> None:
    found = of("# Notes\n\nThe crash guard catches what escapes.\n")
    assert found == [
        "repo://src/agent/crash-guard.ts  the page writes the file's name in words",
        "repo://src/agent/crash-guard.ts#L1-L4  the page says crash guard: installCrashGuard",
        "repo://src/agent/crash-guard.ts#L6-L8  function handleFatal of a file it names",
    ]
    assert (
        of("# Prompt\n\nHow it is built.\n")[0]
        == "repo://src/agent/prompt.ts  the page writes the file's name in words"
    )
    assert of("A prompt, in a sentence, is only a word.\n") == []  # a one-word name counts in a heading only


def test_in_a_file_the_page_names_the_definitions_it_spells_out() -> None:
    text = "`src/agent/prompt.ts` adds the language instructions and a git history hint.\n"
    assert of(text) == [
        "repo://src/agent/prompt.ts  `src/agent/prompt.ts` names the file",
        # the most fully spelled first: three of four words, then two of three (`format` is not said)
        "repo://src/agent/prompt.ts#L10-L12  the page says git history hint: formatGitHistoryHint",
        "repo://src/agent/prompt.ts#L5-L8  the page says language instruction: formatLanguageInstructions",
        # the rest of the file, the names whose words the page uses most first (`prompt`, then `instructions`)
        "repo://src/agent/prompt.ts#L1-L3  function createSystemPrompt of a file it names",
        "repo://src/agent/prompt.ts#L14-L16  function createDiagramInstructions of a file it names",
    ]


def test_names_in_the_prose() -> None:
    text = "The TaskQueue holds at most MAX_ITEMS; run_forever loops; queue.retry_later waits. Drain it, push it.\n"
    assert of(text)[:4] == [
        "repo://src/taskq/queue.py#L6-L14  the prose word TaskQueue names class TaskQueue",
        "repo://src/taskq/queue.py#L3-L3  the prose word MAX_ITEMS names constant MAX_ITEMS",
        "repo://src/taskq/worker.py#L6-L8  the prose word run_forever names function run_forever",
        "repo://src/taskq/queue.py#L17-L18  the prose word queue.retry_later names function retry_later",
    ]  # `Drain`, `push`, `it`: words first, never taken for names in prose


def test_code_before_tests_and_precise_names_before_vague_ones() -> None:
    found = of("`formatLanguageInstructions()` is tested; `ingest()` runs each source; on `push`.\n")
    assert found[0] == (
        "repo://src/agent/prompt.ts#L5-L8  `formatLanguageInstructions()` names function formatLanguageInstructions"
    )
    whys = [line.split("  ", 1)[1] for line in found]
    vague = [n for n, why in enumerate(whys) if why == "`ingest()` names function ingest"]  # five sources define it
    plain = whys.index("`push` names method TaskQueue.push")  # a plain word: a command or a word as much as a name
    in_files = [n for n, why in enumerate(whys) if "of a file it names" in why]
    assert len(vague) == 5 and in_files
    assert max(in_files) < min(vague) and max(in_files) < plain
    assert found[-1] == (
        "repo://test/agent/prompt.test.ts#L3-L5  `formatLanguageInstructions()` names function formatLanguageInstructions"
    )


def test_a_file_candidate_is_a_canonical_resource() -> None:
    assert of("See [the notes](../docs/my%20notes.md).\n") == [
        "repo://docs/my%20notes.md  `../docs/my%20notes.md` names the file"
    ]


def test_the_limit_keeps_the_best() -> None:
    text = "`installCrashGuard`, `src/agent/prompt.ts`, the language instructions, `run.ts`, `push`.\n"
    everything = of(text)
    assert len(everything) > 5
    assert of(text, limit=3) == everything[:3]
    assert of(text, limit=0) == []
    many = {f"src/m{i:02}.py": f"def handler_{i:02}():\n    pass\n" for i in range(40)}
    text = " ".join(f"`handler_{i:02}`" for i in range(40))
    found = of(text, frozenset(many), index_of(many))
    assert len(found) == MAX_CANDIDATES == 30
    assert found[0].startswith("repo://src/m00.py#L1-L2") and found[-1].startswith("repo://src/m29.py#L1-L2")


def test_only_the_paths_given_are_proposed() -> None:
    """The use case passes the files evidence may cite: a page of the wiki named by its file name is none."""
    citable = frozenset(p for p in PATHS if p != "examples/openwiki-update.yml")
    assert of("`openwiki-update.yml`\n", citable) == []


def test_candidate_fields() -> None:
    [found, *_] = candidates(references(PAGE, "`MAX_ITEMS`\n", PATHS, INDEX), "`MAX_ITEMS`\n", PATHS, INDEX)
    assert found == Candidate("repo://src/taskq/queue.py#L3-L3", "`MAX_ITEMS` names constant MAX_ITEMS")
    assert SPECIFIC == 3


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("tests/test_queue.py", True),
        ("test/agent/prompt.test.ts", True),
        ("src/__tests__/queue.ts", True),
        ("pkg/queue_test.go", True),
        ("src/queue.spec.tsx", True),
        ("src/test/java/com/x/QueueTest.java", True),
        ("test_queue.py", True),
        ("src/taskq/queue.py", False),
        ("src/testing.py", False),
        ("src/contest/entry.ts", False),
        ("src/latest.ts", False),
    ],
)
def test_is_test(path: str, test: bool) -> None:
    assert is_test(path) is test
