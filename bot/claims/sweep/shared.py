"""A full sweep's files shared among processes: a large full sweep's records are independent file by file, so other
processes (the `Parallel` the sweep is handed starts them) answer slices of the files while this one answers the first.
Only their answers travel, in the verdict cache's compact form; a slice whose process failed is answered here."""

from __future__ import annotations

from functools import partial

from ..parallel import Parallel, Worker, slices
from ..results import EvidenceResult
from ..text import FileText
from ..verdict_cache import PageBuilder, recall_page
from .evaluator import Evaluator, Filed

RECORDS_PER_PROCESS = 5_000  # another process pays off from about this many records to evaluate


class SharedEvaluation:
    """`evaluator`'s work shared through `parallel`."""

    def __init__(self, evaluator: Evaluator, parallel: Parallel) -> None:
        self.evaluator = evaluator
        self.parallel = parallel

    def evaluate(
        self, paths: list[str], by_path: dict[str, list[Filed]], results: list[EvidenceResult | None], parts: int
    ) -> None:
        """Evaluate the files at `paths` in `parts` processes: the other processes answer every slice but the first,
        which this process answers meanwhile. A full sweep's records are independent file by file, and a child
        inherits the loaded wiki, so only its answers travel, in the verdict cache's compact form."""
        chosen = slices([len(by_path[path]) for path in paths], parts)
        own = paths[chosen[0].start : chosen[0].stop]
        children: list[tuple[list[str], Worker]] = []
        try:
            for part in chosen[1:]:
                theirs = paths[part.start : part.stop]
                child = self.parallel.start(partial(self._answer, theirs, by_path, results))
                if child is None:  # no more processes to be had: this one evaluates the slice
                    own += theirs
                else:
                    children.append((theirs, child))
            for path in own:
                self.evaluator.evaluate_file(path, by_path[path], results)
            for theirs, child in children:
                self._take(theirs, by_path, results, child.answer())
        finally:
            for _, child in children:
                child.discard()

    def _answer(self, paths: list[str], by_path: dict[str, list[Filed]], results: list[EvidenceResult | None]) -> bytes:
        """In another process (forked: it has the loaded wiki): the results of the records citing `paths`, in
        their order, as the verdict cache writes a page (a record answered from no readable file is left out: the
        parent answers it)."""
        import pickle  # noqa: PLC0415 - only a shared sweep needs it: not at every check's start-up

        texts = self.evaluator.reader.texts[id(self.evaluator.head)]
        answers = PageBuilder()
        for path in paths:
            filed = by_path[path]
            self.evaluator.evaluate_file(path, filed, results)
            file = (path, "") if type(texts.get(path)) is FileText else None
            answers.add_all([file] * len(filed), [results[index] for index, _ in filed])
        return pickle.dumps(answers.build(), protocol=pickle.HIGHEST_PROTOCOL)

    def _take(
        self,
        paths: list[str],
        by_path: dict[str, list[Filed]],
        results: list[EvidenceResult | None],
        answer: bytes | None,
    ) -> None:
        """Put a child's answers for the records citing `paths` in `results`; a file any of whose records it did
        not answer (or a child that failed) is evaluated here."""
        filed = [record for path in paths for _, record in by_path[path]]
        answered: list[EvidenceResult | None] = [None] * len(filed)
        if answer is not None:
            import pickle  # noqa: PLC0415

            page = pickle.loads(answer)  # noqa: S301 - written by this process's own fork, never read from outside
            answered = recall_page(page, [True] * len(page.files), filed)
        position = 0
        for path in paths:
            mine = by_path[path]
            got = answered[position : position + len(mine)]
            position += len(mine)
            if None in got:
                self.evaluator.evaluate_file(path, mine, results)
                continue
            for (index, _), result in zip(mine, got, strict=True):
                results[index] = result
            self.evaluator.read_elsewhere.add(path)
