"""Code run in a child process under a deadline: a hang fails the test (the child is killed), a slow machine does
not (the deadline is many times what the work takes). Timings are never asserted, only that the work ends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def finishes(code: str, seconds: float = 30.0, argv: tuple[str, ...] = ()) -> str:
    """What `code` (Python, run with `argv`) prints, once it ended within `seconds`; the test fails otherwise."""
    command = [sys.executable, "-c", code, *argv] if code else [sys.executable, *argv]
    try:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=seconds, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"did not finish within {seconds:g} s (killed)")
    if done.returncode not in (0, 1, 2) or (code and done.returncode != 0):
        pytest.fail(f"exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return done.stdout if code else f"{done.returncode}\n{done.stdout}\n{done.stderr}"
