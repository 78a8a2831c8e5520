"""Candidate evidence for a page, found without a model: which definitions and files a page's references, values
and prose point at, in which order (best first), and how many (a limit keeps the best)."""

from __future__ import annotations

from bot.ground.candidates import MAX_CANDIDATES, Candidate, candidates
from bot.ground.references import references
from bot.ground.symbols import SymbolIndex

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
WORKER_PY = """from .queue import TaskQueue


class WorkerPool:
    def drain(self):
        return []


def run_forever(pool):
    while True:
        pool.drain()
"""
CODE = {"src/taskq/queue.py": QUEUE_PY, "src/taskq/worker.py": WORKER_PY}
PATHS = frozenset({*CODE, "docs/my notes.md", "openwiki/queue.md", "README.md"})
PAGE = "openwiki/queue.md"


def index_of(files: dict[str, str]) -> SymbolIndex:
    return SymbolIndex.of_files({path: text.encode() for path, text in files.items()})


INDEX = index_of(CODE)


def of(text: str, paths: frozenset[str] = PATHS, index: SymbolIndex = INDEX, limit: int = MAX_CANDIDATES) -> list[str]:
    found = candidates(references(PAGE, text, paths, index), text, paths, index, limit)
    return [f"{c.resource}  {c.why}" for c in found]


def test_nothing_named_nothing_proposed() -> None:
    assert of("# Queue\n\nA queue of tasks, nothing more.\n") == []
    assert of("") == []


def test_definitions_a_span_names_then_files_then_names_in_the_prose() -> None:
    text = (
        "# Queue\n\n"
        "A `TaskQueue` lives in [queue.py](../src/taskq/queue.py); a WorkerPool drains it.\n"
        "Call `TaskQueue.drain()`. Tasks wait `retry_later`.\n"
    )
    assert of(text) == [
        "repo://src/taskq/queue.py#L6-L14  `TaskQueue` names class TaskQueue",
        "repo://src/taskq/queue.py#L12-L14  `TaskQueue.drain()` names method TaskQueue.drain",
        "repo://src/taskq/queue.py#L17-L18  `retry_later` names function retry_later",
        "repo://src/taskq/queue.py  `../src/taskq/queue.py` names the file",
        "repo://src/taskq/worker.py#L4-L6  the prose word WorkerPool names class WorkerPool",
    ]


def test_each_candidate_once() -> None:
    text = "`TaskQueue` and `TaskQueue` again, `src/taskq/queue.py` and [it](../src/taskq/queue.py), TaskQueue.\n"
    assert of(text) == [
        "repo://src/taskq/queue.py#L6-L14  `TaskQueue` names class TaskQueue",
        "repo://src/taskq/queue.py  `src/taskq/queue.py` names the file",
    ]


def test_a_name_with_several_definitions_gives_them_in_file_order() -> None:
    assert of("`drain()` empties it.\n") == [
        "repo://src/taskq/queue.py#L12-L14  `drain()` names method TaskQueue.drain",
        "repo://src/taskq/worker.py#L5-L6  `drain()` names method WorkerPool.drain",
    ]


def test_prose_names_are_shaped_like_code() -> None:
    text = "The TaskQueue holds at most MAX_ITEMS; run_forever loops; queue.retry_later waits. Drain it, push it.\n"
    assert of(text) == [
        "repo://src/taskq/queue.py#L6-L14  the prose word TaskQueue names class TaskQueue",
        "repo://src/taskq/queue.py#L3-L3  the prose word MAX_ITEMS names constant MAX_ITEMS",
        "repo://src/taskq/worker.py#L9-L11  the prose word run_forever names function run_forever",
        "repo://src/taskq/queue.py#L17-L18  the prose word queue.retry_later names function retry_later",
    ]  # `Drain`, `push`, `it`: words first, never taken for names in prose


def test_folders_and_missing_paths_are_no_candidates() -> None:
    assert of("See `src/taskq/` and `src/taskq/gone.py`.\n") == []


def test_a_file_candidate_is_a_canonical_resource() -> None:
    assert of("See [the notes](../docs/my%20notes.md).\n") == [
        "repo://docs/my%20notes.md  `../docs/my%20notes.md` names the file"
    ]


def test_the_limit_keeps_the_best() -> None:
    text = "`TaskQueue`, `drain()`, `src/taskq/worker.py`, and WorkerPool.\n"
    everything = of(text)
    assert len(everything) == 5
    assert of(text, limit=2) == everything[:2]
    assert of(text, limit=0) == []
    many = {f"src/m{i:02}.py": f"def handler_{i:02}():\n    pass\n" for i in range(40)}
    text = " ".join(f"`handler_{i:02}`" for i in range(40))
    found = of(text, frozenset(many), index_of(many))
    assert len(found) == MAX_CANDIDATES == 30
    assert found[0].startswith("repo://src/m00.py#L1-L2") and found[-1].startswith("repo://src/m29.py#L1-L2")


def test_candidate_fields() -> None:
    [found] = candidates(references(PAGE, "`MAX_ITEMS`\n", PATHS, INDEX), "`MAX_ITEMS`\n", PATHS, INDEX)
    assert found == Candidate("repo://src/taskq/queue.py#L3-L3", "`MAX_ITEMS` names constant MAX_ITEMS")
