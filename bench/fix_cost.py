"""What the fix costs in model tokens as the wiki grows and the code change stays the same: per stale claim and
per run, for wikis of 10 to 10,000 claims, against the fake OpenAI over loopback.

    python bench/fix_cost.py                       # 10, 100, 1,000 and 10,000 claims
    python bench/fix_cost.py --sizes 10,100000     # other sizes (multiples of 10 claims)
    python bench/fix_cost.py --keep                # keep the generated repositories and print where they are

Each size is a git repository of N/10 source files and a wiki of N/10 pages of 10 grounded claims (one page per
file); its last commit is the same change at every size: the bodies of the 5 functions five claims of page 0
cite are rewritten (their statements stay true), and a cited function moves to the end of its file (3 claims
re-anchored without a model). The fake model reads lines once on the first page of a run, then confirms every
claim it is asked about, as a sensible model would.

Target: tokens per stale claim, and per run, flat in the wiki's size (the fix's cost follows the change, never
the wiki). Nothing is asserted: the figures are printed.
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

from fakeopenai import FakeOpenAI, Reply, ToolCall, serve_on_loopback  # noqa: E402

from bot.agent.factory import AgentFactory  # noqa: E402
from bot.claims.options import SweepOptions  # noqa: E402
from bot.claims.sidecar import Claim, EvidenceRecord, Sidecar, page_version, render_sidecar  # noqa: E402
from bot.claims.text import FileText  # noqa: E402
from bot.claims.versions import lines_version  # noqa: E402
from bot.fix.engine import Action  # noqa: E402
from bot.settings import ModelSettings  # noqa: E402
from bot.source.git import GitRepository  # noqa: E402
from bot.usecases.fix import fix_working_tree  # noqa: E402

CLAIMS_PER_PAGE = 10
FUNCTIONS = 12  # per source file; claims cite the first CLAIMS_PER_PAGE
HEADER = 2  # lines before the first function
REWRITTEN = range(5)  # functions of src/m0.py whose bodies the change rewrites
MOVED = 7  # the function of src/m0.py the change moves to the end of the file
MODEL = "test-model"
WIKI = "openwiki"


# -- the repository --------------------------------------------------------------------------------------------
def function(module: int, k: int, rewritten: bool = False) -> list[str]:
    if rewritten:  # the same behaviour, other words: every statement about it stays true
        return [f"def f{module}_{k}(value):", f"    product = value * {k + 2}", f"    return product + {module}", ""]
    return [f"def f{module}_{k}(value):", f"    total = value * {k + 2}", f"    return total + {module}", ""]


def source(module: int, changed: bool = False) -> bytes:
    blocks = [function(module, k, changed and k in REWRITTEN) for k in range(FUNCTIONS)]
    if changed:
        blocks.append(blocks.pop(MOVED))
    lines = [f'"""Module {module}."""', "", *(line for block in blocks for line in block)]
    return ("\n".join(lines) + "\n").encode()


def page(module: int) -> bytes:
    prose = "\n".join(f"`f{module}_{k}` multiplies its argument by {k + 2}, then adds {module}." for k in range(10))
    return f"---\ntype: Concept\n---\n\n# Module m{module}\n\n{prose}\n".encode()


def build(claims: int) -> dict[str, bytes]:
    """The base commit: claims/10 source files, and one page of 10 claims about each (versions from the code)."""
    files: dict[str, bytes] = {}
    for module in range(claims // CLAIMS_PER_PAGE):
        path = f"src/pkg{module // 100}/m{module}.py"
        files[path] = source(module)
        text = FileText(files[path])
        page_bytes = page(module)
        page_path = f"area{module // 100}/m{module}"
        files[f"{WIKI}/{page_path}.md"] = page_bytes
        page_claims = []
        for k in range(CLAIMS_PER_PAGE):
            start = HEADER + 4 * k  # 0-based; the three lines of the function
            resource = f"repo://{path}#L{start + 1}-L{start + 3}"
            evidence = (EvidenceRecord(resource, lines_version(text, start, start + 3)),)
            statement = f"`f{module}_{k}` multiplies its argument by {k + 2}, then adds {module}."
            page_claims.append(Claim(f"claim_{module * CLAIMS_PER_PAGE + k:032x}", statement, evidence))
        sidecar = Sidecar(page_version(page_bytes), tuple(page_claims))
        files[f"{WIKI}/.claims/{page_path}.json"] = render_sidecar(sidecar)
    return files


GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True)


def repository(claims: int, root: Path) -> None:
    """Two commits: the grounded wiki, then the change (identical at every size)."""
    for path, content in build(claims).items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "wiki")
    (root / "src/pkg0/m0.py").write_bytes(source(0, changed=True))
    git(root, "commit", "-q", "-a", "-m", "the change")


# -- the fake model --------------------------------------------------------------------------------------------
_CLAIM = re.compile(r"^claim (claim_[0-9a-f]{32}):$", re.MULTILINE)
_EVIDENCE = re.compile(r"^- evidence repo://([^#\s]+)#L(\d+)-L(\d+)", re.MULTILINE)


class Model:
    """Answers like a sensible model: one read_lines on the run's first page, then confirms every claim asked."""

    def __init__(self) -> None:
        self.read_once = False
        self.pages: set[str] = set()

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        self.pages.add(prompt.split("\n", 1)[0])
        if not self.read_once and not any(m["role"] == "tool" for m in messages):
            self.read_once = True
            path, start, end = _EVIDENCE.search(prompt).groups()  # type: ignore[union-attr]
            return Reply(tool_calls=[ToolCall("read_lines", {"path": path, "start": int(start), "end": int(end) + 4})])
        decisions = [
            {
                "id": claim_id,
                "action": "confirm",
                "statement": None,
                "evidence": None,
                "reason": "Only a local variable was renamed; the function computes the same value.",
            }
            for claim_id in _CLAIM.findall(prompt)
        ]
        return Reply.json({"claims": decisions, "edits": []})


# -- one size --------------------------------------------------------------------------------------------------
@dataclass
class Row:
    claims: int
    stale: int
    reanchored: int
    flagged: int
    pages: int
    calls: int
    prompt: int
    completion: int
    fake_prompt: int
    fake_completion: int
    seconds: float
    violations: list[str]

    @property
    def per_stale(self) -> tuple[float, float]:
        return self.prompt / max(self.stale, 1), self.completion / max(self.stale, 1)


async def measure(claims: int, root: Path) -> Row:
    fake = FakeOpenAI(models=(MODEL,))
    model = Model()
    fake.responder = model
    runner = await serve_on_loopback(fake)
    try:
        settings = ModelSettings(
            openai_base_url=fake.base_url, openai_api_key=fake.api_key, model=MODEL, model_max_retries=0
        )
        with GitRepository(root) as repo:
            factory = AgentFactory(settings)
            started = time.perf_counter()
            result, _ = await fix_working_tree(
                repo,
                base="HEAD~1",
                options=SweepOptions(wiki_dir=WIKI),
                decider=factory.agent("bench/fix-cost"),
                dry_run=True,
            )
            await factory.close()
            seconds = time.perf_counter() - started
    finally:
        await runner.cleanup()
    decided = (Action.CONFIRMED, Action.UPDATED, Action.RETRACTED, Action.FLAGGED)
    return Row(
        claims=claims,
        stale=sum(1 for o in result.outcomes if o.action in decided),
        reanchored=sum(1 for o in result.outcomes if o.action is Action.REANCHORED),
        flagged=len(result.flagged),
        pages=len(model.pages),
        calls=result.usage.calls,
        prompt=result.usage.prompt_tokens,
        completion=result.usage.completion_tokens,
        fake_prompt=fake.usage["prompt_tokens"],
        fake_completion=fake.usage["completion_tokens"],
        seconds=seconds,
        violations=list(fake.violations),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10,100,1000,10000", help="claims in the wiki (multiples of 10)")
    parser.add_argument("--keep", action="store_true", help="keep the generated repositories")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if any(n < CLAIMS_PER_PAGE or n % CLAIMS_PER_PAGE for n in sizes):
        parser.error(f"--sizes: every size must be a positive multiple of {CLAIMS_PER_PAGE}")

    with tempfile.TemporaryDirectory(prefix="fixcost-warmup-") as folder:  # imports, first connection: untimed
        repository(CLAIMS_PER_PAGE, Path(folder))
        asyncio.run(measure(CLAIMS_PER_PAGE, Path(folder)))

    print(
        f"{'claims':>7} {'stale':>6} {'re-anch.':>8} {'pages':>6} {'calls':>6} {'prompt tok':>11} {'compl. tok':>11}"
        f" {'prompt/stale':>13} {'compl./stale':>13} {'build':>8} {'fix':>8}"
    )
    rows: list[Row] = []
    for claims in sizes:
        folder = Path(tempfile.mkdtemp(prefix=f"fixcost-{claims}-"))
        try:
            started = time.perf_counter()
            repository(claims, folder)
            build_s = time.perf_counter() - started
            row = asyncio.run(measure(claims, folder))
        finally:
            if not args.keep:
                shutil.rmtree(folder, ignore_errors=True)
        rows.append(row)
        per_prompt, per_completion = row.per_stale
        print(
            f"{row.claims:>7,} {row.stale:>6} {row.reanchored:>8} {row.pages:>6} {row.calls:>6} {row.prompt:>11,}"
            f" {row.completion:>11,} {per_prompt:>13,.1f} {per_completion:>13,.1f} {build_s:>6.2f} s"
            f" {row.seconds:>6.2f} s" + (f"   (kept: {folder})" if args.keep else "")
        )
        if row.flagged:
            print(f"{'':>7} {row.flagged} claims still flagged: the fake model's answers were refused")
        for violation in row.violations:
            print(f"{'':>7} fake OpenAI violation: {violation}")

    fake_total = (sum(r.fake_prompt for r in rows), sum(r.fake_completion for r in rows))
    fix_total = (sum(r.prompt for r in rows), sum(r.completion for r in rows))
    agree = "agree" if fake_total == fix_total else "DISAGREE"
    print(
        f"\ntokens over all sizes: fake OpenAI counted prompt {fake_total[0]:,}, completion {fake_total[1]:,};"
        f" FixResult.usage says prompt {fix_total[0]:,}, completion {fix_total[1]:,} ({agree})"
    )
    if any(r.stale == 0 for r in rows):
        print("no stale claim at some size: tokens per stale claim are undefined")
        return
    ratios = []
    for label, values in (
        ("prompt/stale claim", [r.per_stale[0] for r in rows]),
        ("completion/stale claim", [r.per_stale[1] for r in rows]),
        ("tokens per run", [r.prompt + r.completion for r in rows]),
    ):
        ratio = max(values) / min(values) if min(values) else float("inf")
        ratios.append(ratio)
        print(f"{label:>22}: max/min over {len(rows)} sizes = {ratio:.3f}")
    flat = all(r <= 1.05 for r in ratios)
    print(
        f"tokens per stale claim {'stayed flat' if flat else 'did NOT stay flat'} (within 5%) from "
        f"{rows[0].claims:,} to {rows[-1].claims:,} claims"
    )


if __name__ == "__main__":
    main()
