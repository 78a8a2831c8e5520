"""What sealing the sweep's memory costs (issue 42): each file of `.git/wikiwarden/` is written with a seal over its
name and bytes (a plain SHA-256 digest, or an HMAC-SHA256 under WIKIWARDEN_CACHE_KEY) and verified before it is
used. On the synthetic repositories of bench/sweep.py, one `wikiwarden check` leaves the memory; each file is then
sealed and verified here, in this process, plain and keyed, beside what reading it costs anyway (orjson.loads).
Figures are the best of --repeat runs, in milliseconds.

    python bench/memory_seal.py                      # 10k claims / 1k files and 100k claims / 10k files
    python bench/memory_seal.py --sizes 10000 --repeat 20

bench/cli_e2e.py times whole checks, where this cost is inside the noise of a shared machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson

from bench.machine import speed_line
from bench.sweep import build, git_repository
from bot.source.memory import INDEX_FILE, READINGS_FILE, VERDICTS_FILE, seal, unseal

ROOT = Path(__file__).resolve().parents[1]
KEY = b"0123456789abcdef" * 4


def _best(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def _memory(claims: int, root: Path) -> Path:
    """A repository of `claims` claims, checked once with the cache on: its `.git/wikiwarden/`."""
    git_repository(build(claims, claims // 10), root)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("WIKIWARDEN_CACHE_KEY", None)
    done = subprocess.run(
        [sys.executable, "-m", "bot", "check", "--format", "json"], cwd=root, env=env, capture_output=True, check=False
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"check failed ({done.returncode}):\n{done.stderr.decode()}")
    return root / ".git" / "wikiwarden"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    print(speed_line("before"))
    for claims in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            folder = _memory(claims, Path(tmp))
            print(f"{claims} claims on {claims // 10} files: the memory one check leaves (best of {args.repeat})")
            print(f"  {'file':<24}{'MB':>7}{'parse':>10}{'seal':>10}{'verify':>10}{'seal+key':>10}{'verify+key':>12}")
            totals = [0.0] * 5
            for name in (INDEX_FILE, VERDICTS_FILE, READINGS_FILE):
                data = (folder / name).read_bytes()
                assert unseal(name, data, None) is None, f"{name} does not verify"
                document = orjson.dumps({k: v for k, v in orjson.loads(data).items() if k != "seal"})
                keyed = seal(name, document, KEY)
                figures = [
                    _best(args.repeat, lambda d=data: orjson.loads(d)),
                    _best(args.repeat, lambda n=name, d=document: seal(n, d, None)),
                    _best(args.repeat, lambda n=name, d=data: unseal(n, d, None)),
                    _best(args.repeat, lambda n=name, d=document: seal(n, d, KEY)),
                    _best(args.repeat, lambda n=name, d=keyed: unseal(n, d, KEY)),
                ]
                totals = [t + f for t, f in zip(totals, figures, strict=True)]
                print(
                    f"  {name:<24}{len(data) / 1e6:>7.1f}"
                    + "".join(f"{f:>8.1f}ms" for f in figures[:4])
                    + f"{figures[4]:>10.1f}ms"
                )
            print(f"  {'all three':<31}" + "".join(f"{f:>8.1f}ms" for f in totals[:4]) + f"{totals[4]:>10.1f}ms")
    print(speed_line("after"))


if __name__ == "__main__":
    main()
