"""What grounding costs in model tokens per page as the wiki grows: wikis of 10 to 1,000 pages without claims,
one run of `--max-pages 10` each, against the fake OpenAI over loopback.

    python bench/ground_cost.py                    # 10, 100 and 1,000 pages
    python bench/ground_cost.py --sizes 10,3000    # other sizes (at least 10 pages)
    python bench/ground_cost.py --keep             # keep the generated repositories and print where they are

Each size is a git repository of one source file per page (12 functions each) and a wiki whose pages describe
their file's functions in prose with code spans, none grounded. A run grounds the first 10 pages, in OpenWiki's
page order, as `wikiwarden ground --max-pages 10` does. The fake model answers like a sensible one: a claim per
function the page names, quoting the page and citing the candidate the symbol index found for it.

Target: tokens per page flat in the wiki's size (a page's prompt holds the page and its candidates, never the
rest of the wiki or the repository). Nothing is asserted: the figures are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "fakes")]

from fakeopenai import FakeOpenAI, Reply, serve_on_loopback  # noqa: E402

from bot.agent.factory import AgentFactory  # noqa: E402
from bot.claims.options import SweepOptions  # noqa: E402
from bot.settings import ModelSettings  # noqa: E402
from bot.source.git import GitRepository  # noqa: E402
from bot.usecases.ground import ground_working_tree  # noqa: E402

FUNCTIONS = 12
NAMED = 8  # functions each page names
BATCH = 10
MODEL = "test-model"
WIKI = "openwiki"


def source(module: int) -> bytes:
    lines = [f'"""Module {module}."""', ""]
    for k in range(FUNCTIONS):
        lines += [f"def f{module}_{k}(value):", f"    total = value * {k + 2}", f"    return total + {module}", ""]
    return ("\n".join(lines) + "\n").encode()


def page(module: int) -> bytes:
    sentences = (f"`f{module}_{k}` multiplies its argument by {k + 2}, then adds {module}." for k in range(NAMED))
    prose = "\n\n".join(sentences)
    return f"---\ntype: Concept\n---\n\n# Module m{module}\n\n{prose}\n".encode()


GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def repository(pages: int, root: Path) -> None:
    for module in range(pages):
        for path, content in (
            (f"src/pkg{module // 100}/m{module}.py", source(module)),
            (f"{WIKI}/area{module // 100}/m{module}.md", page(module)),
        ):
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
    subprocess.run(["git", "init", "-q"], cwd=root, env=GIT_ENV, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, env=GIT_ENV, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "wiki"], cwd=root, env=GIT_ENV, check=True)


_CANDIDATE = re.compile(r"^(repo://\S+#L\d+-L\d+)  \(`(\w+)` names function", re.MULTILINE)


class Model:
    """A claim per function the page names: the sentence naming it, quoted, with the candidate's lines."""

    def __init__(self) -> None:
        self.pages = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        self.pages += 1
        claims = []
        for resource, name in _CANDIDATE.findall(prompt):
            sentence = re.search(rf"`{name}` multiplies its argument by \d+, then adds \d+\.", prompt)
            if sentence:
                claims.append({"statement": sentence.group(0), "quote": sentence.group(0), "evidence": [resource]})
        return Reply.json({"claims": claims, "edits": [], "unsupported": []})


@dataclass
class Row:
    pages: int
    grounded: int
    claims: int
    refused: int
    calls: int
    prompt: int
    completion: int
    seconds: float
    violations: list[str]

    @property
    def per_page(self) -> tuple[float, float]:
        return self.prompt / max(self.grounded, 1), self.completion / max(self.grounded, 1)


async def measure(pages: int, root: Path) -> Row:
    fake = FakeOpenAI(models=(MODEL,))
    fake.responder = Model()
    runner = await serve_on_loopback(fake)
    try:
        settings = ModelSettings(
            openai_base_url=fake.base_url, openai_api_key=fake.api_key, model=MODEL, model_max_retries=0
        )
        with GitRepository(root) as repo:
            factory = AgentFactory(settings)
            started = time.perf_counter()
            _, result, _ = await ground_working_tree(
                repo, options=SweepOptions(wiki_dir=WIKI), grounder=factory.agent("bench/ground-cost"),
                max_pages=BATCH, dry_run=True,
            )  # fmt: skip
            await factory.close()
            seconds = time.perf_counter() - started
    finally:
        await runner.cleanup()
    assert result is not None
    return Row(
        pages=pages,
        grounded=sum(1 for p in result.pages if p.added),
        claims=sum(len(p.added) for p in result.pages),
        refused=sum(len(p.refused) for p in result.pages),
        calls=result.usage.calls,
        prompt=result.usage.prompt_tokens,
        completion=result.usage.completion_tokens,
        seconds=seconds,
        violations=list(fake.violations),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10,100,1000", help="pages in the wiki (at least 10)")
    parser.add_argument("--keep", action="store_true", help="keep the generated repositories")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if any(n < BATCH for n in sizes):
        parser.error(f"--sizes: every size must be at least {BATCH} pages")

    with tempfile.TemporaryDirectory(prefix="groundcost-warmup-") as folder:  # imports, first connection: untimed
        repository(BATCH, Path(folder))
        asyncio.run(measure(BATCH, Path(folder)))

    print(
        f"{'pages':>6} {'grounded':>8} {'claims':>7} {'refused':>7} {'calls':>6} {'prompt tok':>11} {'compl. tok':>11}"
        f" {'prompt/page':>12} {'compl./page':>12} {'run':>8}"
    )
    rows: list[Row] = []
    for pages in sizes:
        folder = Path(tempfile.mkdtemp(prefix=f"groundcost-{pages}-"))
        try:
            repository(pages, folder)
            row = asyncio.run(measure(pages, folder))
        finally:
            if not args.keep:
                shutil.rmtree(folder, ignore_errors=True)
        rows.append(row)
        per_prompt, per_completion = row.per_page
        print(
            f"{row.pages:>6,} {row.grounded:>8} {row.claims:>7} {row.refused:>7} {row.calls:>6} {row.prompt:>11,}"
            f" {row.completion:>11,} {per_prompt:>12,.1f} {per_completion:>12,.1f} {row.seconds:>6.2f} s"
            + (f"   (kept: {folder})" if args.keep else "")
        )
        for violation in row.violations:
            print(f"{'':>6} fake OpenAI violation: {violation}")
    ratios = []
    for label, values in (
        ("prompt/page", [r.per_page[0] for r in rows]),
        ("completion/page", [r.per_page[1] for r in rows]),
    ):
        ratio = max(values) / min(values) if min(values) else float("inf")
        ratios.append(ratio)
        print(f"{label:>16}: max/min over {len(rows)} sizes = {ratio:.3f}")
    flat = all(r <= 1.05 for r in ratios)
    print(
        f"tokens per page {'stayed flat' if flat else 'did NOT stay flat'} (within 5%) from "
        f"{rows[0].pages:,} to {rows[-1].pages:,} pages"
    )


if __name__ == "__main__":
    main()
