"""Which code runs each kind of job: the one table `web.py` and `worker.py` build the App's runtime with."""

from __future__ import annotations

from collections.abc import Mapping

from .checking import run_check
from .fixing import run_fix_job
from .grounding import run_ground_job
from .runtime import Runner

RUNNERS: Mapping[str, Runner] = {"check": run_check, "fix": run_fix_job, "ground": run_ground_job}
