"""What a Wikiwarden process reports to Prometheus (`GET /metrics` of the web process and of every worker).

Labels stay few and bounded, and none comes from an unauthenticated request: event names from a fixed set (the
events handled, `ping`, `other`, and `unverified` before the signature is checked), job kinds and outcomes, HTTP
methods, routes with ids blurred.
"""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

DELIVERIES = Counter(
    "wikiwarden_deliveries_total",
    "Webhook deliveries received, by event and what became of them",
    # accepted, duplicate, ignored, bad_signature, bad_request, too_large, unavailable, busy (503: the bodies being
    # read fill their memory), timeout (408: a body too slow)
    ["event", "outcome"],
)
JOBS = Counter(
    "wikiwarden_jobs_total",
    "Job tries, by kind and outcome",
    ["kind", "outcome"],  # completed, retried, failed, superseded, permanent (a failure never retried)
)
JOB_SECONDS = Histogram(
    "wikiwarden_job_duration_seconds",
    "Time one try of a job took",
    ["kind"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600),
)
JOBS_RUNNING = Gauge("wikiwarden_jobs_running", "Jobs running in this process", ["kind"])
GITHUB_REQUESTS = Counter(
    "wikiwarden_github_requests_total",
    "Requests sent to GitHub, by method, route (ids blurred) and status class",
    ["method", "route", "status"],
)
GITHUB_RATE_LIMIT_REMAINING = Gauge(
    "wikiwarden_github_rate_limit_remaining", "The rate limit GitHub said was left, on its latest answer"
)
MODEL_TOKENS = Counter("wikiwarden_model_tokens_total", "Model tokens spent by the fix", ["kind"])  # prompt, completion
MODEL_CALLS = Counter("wikiwarden_model_calls_total", "Model requests, by outcome", ["outcome"])  # answered, failed


# What a job's work counts, in the job's own process (`bot.jobhost`): handed to the parent when the job ends, so the
# parent's `/metrics` says it.
_COUNTED_IN_JOBS = {counter._name: counter for counter in (GITHUB_REQUESTS, MODEL_TOKENS, MODEL_CALLS)}
Counted = list[tuple[str, dict[str, str], float]]


def counted_here() -> Counted:
    """What this process's job counters hold: (counter, labels, value) for each series counted."""
    values: Counted = []
    for name, counter in _COUNTED_IN_JOBS.items():
        for metric in counter.collect():
            for sample in metric.samples:
                if sample.name == f"{name}_total" and sample.value:
                    values.append((name, dict(sample.labels), sample.value))
    return values


def add_counted(values: Counted) -> None:
    """Add what a job's process counted (`counted_here`) to this process's counters; a counter or label this version
    does not know is left out."""
    for name, labels, value in values:
        counter = _COUNTED_IN_JOBS.get(name)
        if counter is None or value <= 0:
            continue
        try:
            counter.labels(**labels).inc(value)
        except ValueError:  # labels of another shape
            continue


def exposition() -> tuple[bytes, str]:
    """The metrics in Prometheus's text format, and its content type."""
    return generate_latest(), CONTENT_TYPE_LATEST
