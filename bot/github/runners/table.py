"""Which code runs each kind of job: the one table `web.py` and `worker.py` build the App's runtime with (apart
from the runners' package, so that importing one runner does not load the others)."""

from __future__ import annotations

from collections.abc import Mapping

from ..runtime import Runner
from .check import run_check
from .fix import run_fix_job
from .ground import run_ground_job

RUNNERS: Mapping[str, Runner] = {"check": run_check, "fix": run_fix_job, "ground": run_ground_job}
