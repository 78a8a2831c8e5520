"""What operators see: JSON log lines with the work's context and no secret in them, whatever path a secret takes
into a log call; Prometheus metrics from the web process."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import partial
from typing import Any

import pytest
from apptools import deliver, grounded, push_payload, queue_of, start_app
from fakegithub import FakeGitHub
from processes import metric

from bot.logs import REDACTED, Batched, Scrubbed, configure_logging, info_later, work_context
from bot.settings import load_settings

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA PRIVATE KEY-----"
SECRET = "whsec-0123456789abcdef"


@pytest.fixture
def logs() -> Iterator[Callable[[], list[dict]]]:
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    stream = io.StringIO()
    configure_logging("json", "INFO", [SECRET, PEM, "short"], stream=stream)

    def lines() -> list[dict]:
        text = stream.getvalue()
        stream.seek(0)
        stream.truncate()
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    yield lines
    root.handlers[:], root.level = saved


def test_log_lines_are_json_with_the_works_context(logs) -> None:
    log = logging.getLogger("bot.test")
    with work_context(delivery="d-1", repo="acme/widgets"), work_context(job_kind="check"):
        log.info("job started", extra={"try": 2})
    log.warning("outside")
    inside, outside = logs()
    assert inside["message"] == "job started" and inside["level"] == "INFO" and inside["logger"] == "bot.test"
    assert (inside["delivery"], inside["repo"], inside["job_kind"], inside["try"]) == (
        "d-1",
        "acme/widgets",
        "check",
        2,
    )
    assert inside["time"].endswith(("Z", "+00:00"))
    assert "delivery" not in outside


def test_a_line_orjson_refuses_is_written_by_the_standard_encoder_and_none_is_lost(logs) -> None:
    """Lines are encoded by orjson; a lone surrogate (a file name git gave that is not UTF-8) or an integer beyond
    64 bits goes through the standard library's encoder instead, still one JSON object, still scrubbed."""
    log = logging.getLogger("bot.test")
    log.info("read src/caf\udce9.py", extra={"size": 2**70})
    log.info("café ☕ %s", SECRET, extra={"path": "src/é.py"})
    refused, plain = logs()
    assert (refused["message"], refused["size"]) == ("read src/caf\udce9.py", 2**70)
    assert plain["message"] == f"café ☕ {REDACTED}" and plain["path"] == "src/é.py"


@pytest.mark.parametrize(
    "token",
    [
        "ghs_" + "A1b2C3d4E5f6G7h8I9j0",
        "ghu_" + "z" * 24,
        "github_pat_" + "Ab_" * 8,
        "sk-" + "x" * 16,
        "Bearer " + "y" * 20,
        "TOKEN\t" + "a.b-c_" * 4,
        "eyJ" + "h" * 10 + "." + "p" * 10 + "." + "s" * 10,
        PEM,
    ],
)
def test_every_token_shape_is_redacted_though_it_is_no_configured_secret(token: str) -> None:
    scrubbed = Scrubbed(logging.Formatter("%(message)s"), secrets=())
    assert scrubbed.scrub(f"before {token} after") == f"before {REDACTED} after"


def test_a_line_without_any_token_shape_is_left_as_it_is() -> None:
    line = '{"message": "delivery accepted", "repo": "acme/widgets", "note": "Token-ish words: tok, gh, sk, eyj"}'
    assert Scrubbed(logging.Formatter("%(message)s"), secrets=()).scrub(line) == line


def test_no_secret_reaches_a_log_line_by_any_path(logs) -> None:
    log = logging.getLogger("bot.test")
    token = "ghs_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    log.info("the secret is %s", SECRET)  # an argument
    log.info(f"token {token} and key {'sk-proj-' + 'x' * 40}")
    log.info("configured", extra={"settings": {"webhook_secret": SECRET, "auth": f"Bearer {'y' * 30}"}})  # extras
    try:
        raise RuntimeError(f"cannot parse {PEM}")
    except RuntimeError:
        log.exception("failed")  # a traceback
    log.info("a key line by itself: %s", PEM.splitlines()[1])
    text = json.dumps(logs())
    for leaked in (SECRET, token, "sk-proj-", "y" * 30, *PEM.splitlines()):
        assert leaked not in text, leaked
    assert text.count(REDACTED) >= 6
    logging.getLogger("bot.test").info("a short word")
    assert logs()[0]["message"] == "a short word"  # under 8 characters is never a secret: it would eat words


def test_settings_name_every_secret_they_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings(
        app_id=1, private_key=PEM, webhook_secret=SECRET, openai_api_key="sk-test-key-123456",
        redis_url="redis://:hunter2hunter2@redis:6379/0",
    )  # fmt: skip
    assert set(settings.secret_values()) == {SECRET, PEM, "sk-test-key-123456", "hunter2hunter2"}
    assert "hunter2" not in repr(settings) and SECRET not in repr(settings)


async def test_the_web_process_counts_deliveries_by_event_and_outcome(aiohttp_client, fake_github: FakeGitHub) -> None:
    fake_github.add_installation(77, "acme")
    repo = fake_github.create_repo("acme", "widgets", 77)
    base = repo.commit(grounded({"a.py": "A = 1\n"}, {"a.md": [("a is one", ["repo://a.py#L1"])]}), message="x")
    app = await start_app(aiohttp_client, fake_github)
    before = metric(
        await (await app.get("/metrics")).text(), "wikiwarden_deliveries_total", event="push", outcome="accepted"
    )
    head = repo.commit({"a.py": "A = 2\n"}, message="y")
    await deliver(app, "push", push_payload(repo, before=base, after=head), secret=fake_github.webhook_secret)
    await deliver(app, "push", push_payload(repo, before=base, after=head), secret="wrong-secret-0123456789")
    await queue_of(app).wait_idle()
    response = await app.get("/metrics")
    assert response.status == 200 and response.headers["Content-Type"].startswith("text/plain")
    text = await response.text()
    assert metric(text, "wikiwarden_deliveries_total", event="push", outcome="accepted") == before + 1
    assert metric(text, "wikiwarden_deliveries_total", event="unverified", outcome="bad_signature") >= 1
    assert metric(text, "wikiwarden_jobs_total", kind="check", outcome="completed") >= 1
    assert metric(text, "wikiwarden_job_duration_seconds_count", kind="check") >= 1
    assert metric(text, "wikiwarden_github_rate_limit_remaining") > 0


async def test_a_job_not_retried_is_one_json_line_naming_repository_installation_and_cause(logs) -> None:
    from bot.jobs import Attempt, Job, PermanentFailure, RetryPolicy
    from bot.jobs.memory import InProcessQueue
    from bot.jobs.requests import CheckRequest, RepoRef

    async def uninstalled(job: Job, attempt: Attempt) -> None:
        raise PermanentFailure("installation 77 no longer exists: the App was uninstalled")

    queue = InProcessQueue(uninstalled, workers=1, retry=RetryPolicy(3, 0.001))
    await queue.start()
    repo = RepoRef(installation_id=77, full_name="acme/widgets", id=5)
    await queue.submit(Job("5:branch:main", "d-9", CheckRequest(repo=repo, head_sha="a" * 40)))
    await queue.wait_idle(10)
    await queue.close()
    [line] = [line for line in logs() if line["level"] != "INFO"]
    assert line["level"] == "WARNING" and "exc_info" not in line
    assert line["message"] == (
        "check job for acme/widgets (installation 77) not retried: installation 77 no longer exists: the App was "
        "uninstalled"
    )
    assert (line["repo"], line["installation"], line["delivery"], line["job_kind"]) == (
        "acme/widgets",
        77,
        "d-9",
        "check",
    )


def test_a_line_holds_the_fields_python_json_logger_writes_in_its_order() -> None:
    """The formatter writes its fields itself (`add_fields`): the same fields, values and order as the library's
    general code, for records with extra fields, a dict message, a private attribute and an exception."""
    from pythonjsonlogger.json import JsonFormatter

    from bot.logs import _JsonLines

    settings = {"rename_fields": {"levelname": "level", "name": "logger"}, "timestamp": "time"}
    ours = _JsonLines("%(levelname)s %(name)s %(message)s", **settings)
    library = JsonFormatter("%(levelname)s %(name)s %(message)s", **settings)
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        failure = sys.exc_info()
    records = [
        logging.LogRecord("bot.a", logging.INFO, "f.py", 1, "delivery %s accepted", ("d-1",), None),
        logging.LogRecord("bot.b", logging.ERROR, "f.py", 2, {"event": "push", "jobs": 2}, (), failure),
    ]
    records[0].__dict__.update({"event": "push", "jobs": 1, "_private": "never", "name_like": {"a": [1]}})
    for record in records:
        record.created = 1_700_000_000.123456
        assert list(json.loads(ours.format(record)).items()) == list(json.loads(library.format(record)).items())


def test_the_formatter_refuses_settings_it_does_not_write() -> None:
    from bot.logs import _JsonLines

    with pytest.raises(ValueError, match="its own settings"):
        _JsonLines("%(message)s", static_fields={"service": "wikiwarden"}, timestamp="time")


@pytest.fixture
def batched_logs() -> Iterator[tuple[logging.Handler, io.StringIO]]:
    """The root logger as `wikiwarden serve` sets it up: informational lines held up to 0.2 s."""
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    stream = io.StringIO()
    handler = configure_logging("json", "INFO", [SECRET], stream=stream, batch_seconds=0.2)
    yield handler, stream
    root.handlers[:], root.level = saved


def _messages(stream: io.StringIO) -> list[str]:
    return [json.loads(line)["message"] for line in stream.getvalue().splitlines()]


async def test_the_web_process_writes_its_informational_lines_together_within_the_batch_time(batched_logs) -> None:
    """Held, then written together and in order once the batch time has passed; each line keeps its work's
    fields, its message as it read when logged (a later change of an argument is not seen) and its time."""
    _, stream = batched_logs
    log = logging.getLogger("bot.test")
    jobs = ["check"]
    with work_context(delivery="d-1", repo="acme/widgets"):
        log.info("delivery accepted: %s; secret %s", jobs, SECRET)
    jobs.append("fix")
    logged_at = time.time()
    log.info("second")
    assert stream.getvalue() == ""  # held
    await asyncio.sleep(0.4)
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["message"] == f"delivery accepted: ['check']; secret {REDACTED}"
    assert (first["delivery"], first["repo"]) == ("d-1", "acme/widgets") and "delivery" not in second
    assert second["message"] == "second"
    written = datetime.fromisoformat(second["time"]).timestamp()
    assert abs(written - logged_at) < 0.1  # the time it was logged, not written
    log.info("third")  # a new batch after the first was written
    await asyncio.sleep(0.4)
    assert _messages(stream)[2:] == ["third"]


async def test_a_warning_is_written_at_once_after_the_lines_held_before_it(batched_logs) -> None:
    _, stream = batched_logs
    log = logging.getLogger("bot.test")
    log.info("first")
    log.warning("then a warning")
    assert _messages(stream) == ["first", "then a warning"]
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        log.exception("failed")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert lines[-1]["message"] == "failed" and "RuntimeError: boom" in lines[-1]["exc_info"]


async def test_a_held_line_whose_arguments_do_not_fit_is_reported_as_an_unbatched_one_would_be(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stream = io.StringIO()
    writer = logging.StreamHandler(stream)
    writer.setFormatter(logging.Formatter("%(message)s"))
    handler = Batched(writer, 60)
    record = partial(logging.LogRecord, "bot.test", lineno=1, pathname="f.py", exc_info=None)
    handler.handle(record(level=logging.INFO, msg="two %s %s", args=("one",)))  # the caller goes on
    handler.handle(record(level=logging.WARNING, msg="next", args=()))
    assert stream.getvalue() == "next\n"
    assert "not enough arguments for format string" in capsys.readouterr().err  # logging's own report


async def test_another_thread_writes_its_line_at_once_after_those_the_loop_holds(batched_logs) -> None:
    """A thread without an event loop (an executor's) writes its line at once, after the lines the loop held; the
    loop's timer, left to fire (another thread may not cancel it), writes nothing twice."""
    _, stream = batched_logs
    log = logging.getLogger("bot.test")

    def from_a_thread(message: str) -> None:
        thread = threading.Thread(target=log.info, args=(message,))
        thread.start()
        thread.join(5)
        assert not thread.is_alive()  # the handler's lock was free

    log.info("held by the loop")
    from_a_thread("from a thread")
    assert _messages(stream) == ["held by the loop", "from a thread"]
    log.info("held again")
    await asyncio.sleep(0.4)
    assert _messages(stream) == ["held by the loop", "from a thread", "held again"]
    from_a_thread("from a thread, after a batch the loop wrote")
    assert _messages(stream)[-1] == "from a thread, after a batch the loop wrote"


def test_held_lines_are_written_when_the_process_stops_or_logging_is_set_up_again(batched_logs) -> None:
    handler, stream = batched_logs
    log = logging.getLogger("bot.test")

    async def log_and_stop() -> None:
        log.info("held when the loop stopped")

    asyncio.run(log_and_stop())
    assert stream.getvalue() == ""  # the loop that would have written it is gone
    log.info("no loop runs here: written at once, after what was held")
    assert _messages(stream) == [
        "held when the loop stopped",
        "no loop runs here: written at once, after what was held",
    ]

    asyncio.run(log_and_stop())
    handler.close()  # as logging.shutdown does at exit
    assert _messages(stream)[-1] == "held when the loop stopped"

    configure_logging("json", "INFO", [SECRET], stream=stream, batch_seconds=0.2)

    async def held_then_reconfigured() -> None:
        log.info("held when logging was set up again")
        configure_logging("json", "INFO", [SECRET], stream=stream)

    asyncio.run(held_then_reconfigured())
    assert _messages(stream)[-1] == "held when logging was set up again"


def test_a_line_held_in_a_loop_that_stopped_is_written_by_the_next_loop() -> None:
    stream = io.StringIO()
    writer = logging.StreamHandler(stream)
    writer.setFormatter(logging.Formatter("%(message)s"))
    handler = Batched(writer, 0.05)
    record = partial(logging.LogRecord, "bot.test", logging.INFO, "f.py", 1, args=(), exc_info=None)

    async def hold(message: str, wait: float) -> None:
        handler.handle(record(msg=message))
        await asyncio.sleep(wait)

    asyncio.run(hold("in a loop that stopped", 0))
    asyncio.run(hold("in the next loop", 0.2))
    assert stream.getvalue().splitlines() == ["in a loop that stopped", "in the next loop"]


async def test_a_full_batch_is_written_at_once() -> None:
    stream = io.StringIO()
    writer = logging.StreamHandler(stream)
    writer.setFormatter(logging.Formatter("%(message)s"))
    handler = Batched(writer, 60, capacity=2)
    for n in range(3):
        handler.handle(logging.LogRecord("bot.test", logging.INFO, "f.py", 1, f"n{n}", (), None))
    assert stream.getvalue().splitlines() == ["n0", "n1"]  # the third waits for the next batch
    handler.close()
    assert stream.getvalue().splitlines() == ["n0", "n1", "n2"]


@contextlib.contextmanager
def alone(handler: logging.Handler, *others: logging.Handler) -> Iterator[None]:
    """The root logger's handlers as `wikiwarden serve` has them: `handler` (and `others`), not pytest's own,
    which it adds around each test."""
    root = logging.getLogger()
    saved = list(root.handlers)
    root.handlers[:] = [handler, *others]
    try:
        yield
    finally:
        root.handlers[:] = saved


@pytest.fixture
def records_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The messages of the log records made from now on."""
    made: list[str] = []
    factory = logging.getLogRecordFactory()

    def counting(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        made.append(record.msg)
        return record

    monkeypatch.setattr(logging, "_logRecordFactory", counting)
    return made


async def test_a_line_logged_later_is_made_when_its_batch_is_written_and_reads_as_its_info_line(
    batched_logs, records_made: list[str]
) -> None:
    """Held without a record (what a line cost its caller); written in its place among the other lines, with the
    time it was logged and its work's fields as they were then, the line is the one `log.info` writes."""
    handler, stream = batched_logs
    log = logging.getLogger("bot.test")
    log.info("before")
    with alone(handler), work_context(delivery="from the context", job_kind="check"):
        logged_at = time.time()
        info_later(log, "delivery accepted", delivery="d-2", repo="acme/widgets", jobs=1)
    log.info("after")
    assert records_made == ["before", "after"] and stream.getvalue() == ""  # held, its record not made
    await asyncio.sleep(0.4)
    assert records_made == ["before", "after", "delivery accepted"]
    before, later, after = (json.loads(line) for line in stream.getvalue().splitlines())
    assert (before["message"], after["message"]) == ("before", "after")
    assert abs(datetime.fromisoformat(later["time"]).timestamp() - logged_at) < 0.1  # when logged, not written
    with work_context(delivery="from the context", job_kind="check"):
        log.info("delivery accepted", extra={"delivery": "d-2", "repo": "acme/widgets", "jobs": 1})
    assert records_made[-1] == "delivery accepted"  # an ordinary line: its record made at once
    await asyncio.sleep(0.4)
    same = json.loads(stream.getvalue().splitlines()[-1])
    assert later | {"time": "-"} == same | {"time": "-"}
    assert (later["delivery"], later["job_kind"]) == ("d-2", "check")  # a field given wins over the context's


async def test_a_line_logged_later_makes_the_record_log_info_would_have_made_then(batched_logs) -> None:
    handler, _ = batched_logs
    made: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            made.append(record)

    handler.target = Keep()  # type: ignore[attr-defined]
    log = logging.getLogger("bot.test")
    with alone(handler), work_context(delivery="d-4"):
        held_at = time.time()
        info_later(log, "a line", jobs=1)
        await asyncio.sleep(0.05)
        log.info("a line", extra={"jobs": 1})
    handler.flush()
    later, ordinary = made
    assert held_at <= later.created < ordinary.created - 0.04
    assert later.msecs == int((later.created - int(later.created)) * 1000)
    assert later.relativeCreated == pytest.approx(ordinary.relativeCreated - (ordinary.created - later.created) * 1000)
    when = {"created", "msecs", "relativeCreated"}
    assert {k: v for k, v in vars(later).items() if k not in when} == {
        k: v for k, v in vars(ordinary).items() if k not in when
    }


def test_a_held_lines_record_says_the_millisecond_it_was_held() -> None:
    from bot.logs import _Line

    record = _Line("bot.test", "a line", {}, 1_700_000_000.9995).record()
    assert (record.created, record.msecs) == (1_700_000_000.9995, 999.0)


async def test_a_line_logged_later_is_written_before_a_warning_when_the_process_stops_and_in_full_batches(
    batched_logs,
) -> None:
    handler, stream = batched_logs
    log = logging.getLogger("bot.test")
    with alone(handler):
        info_later(log, "first")
    log.warning("a warning")
    assert _messages(stream) == ["first", "a warning"]
    handler.capacity = 3
    with alone(handler):
        for n in range(4):
            info_later(log, f"n{n}")
    assert _messages(stream)[2:] == ["n0", "n1", "n2"]  # a full batch, written at once
    handler.close()  # as logging.shutdown does at exit
    assert _messages(stream)[2:] == ["n0", "n1", "n2", "n3"]


async def test_a_line_logged_later_is_an_ordinary_line_where_it_would_go_further_than_the_batch(
    batched_logs, records_made: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    """Another handler on its way (pytest's own here), a filter of its logger, no batch at all, or no event loop
    to write it later: `log.info` at once, so every handler sees it and every filter has its say."""
    handler, stream = batched_logs
    log = logging.getLogger("bot.test")
    with alone(handler):
        info_later(log, "held")
    assert records_made == []
    with alone(handler, caplog.handler):
        info_later(log, "seen by pytest too")
    assert records_made == ["seen by pytest too"] and caplog.messages == ["seen by pytest too"]
    log.addFilter(lambda record: record.msg != "filtered out")
    try:
        with alone(handler):
            info_later(log, "filtered out")
    finally:
        log.filters.clear()
    assert records_made == ["seen by pytest too", "filtered out"]
    logging.getLogger("bot.quiet").setLevel(logging.WARNING)
    try:
        with alone(handler):
            info_later(logging.getLogger("bot.quiet"), "below the level")
    finally:
        logging.getLogger("bot.quiet").setLevel(logging.NOTSET)
    with alone(handler), pytest.raises(KeyError, match="overwrite 'name'"):  # refused as logging does
        info_later(log, "clashes", name="x")
    alone_logger = logging.getLogger("bot.own")
    alone_logger.propagate = False  # no handler on its way: logging's last resort, which writes warnings only
    try:
        with alone(handler):
            info_later(alone_logger, "nobody's line")
    finally:
        alone_logger.propagate = True
    assert records_made[-1] == "nobody's line"
    handler.setLevel(logging.WARNING)  # the batch's own level: a line below it is not written at all
    try:
        with alone(handler):
            info_later(log, "below the batch's level")
    finally:
        handler.setLevel(logging.INFO)  # at the line's level: held
    assert records_made[-1] == "below the batch's level"
    with alone(handler):
        info_later(log, "held at the batch's level")
    assert records_made[-1] == "below the batch's level"
    assert stream.getvalue() == ""
    with alone(handler):
        await asyncio.to_thread(info_later, log, "from a thread without a loop")
    assert _messages(stream) == [
        "held",
        "seen by pytest too",
        "held at the batch's level",
        "from a thread without a loop",
    ]
    # the held lines' records made as their batch was written
    assert records_made[-3:] == ["from a thread without a loop", "held", "held at the batch's level"]


def test_a_line_logged_later_where_nothing_batches_is_written_at_once(logs, records_made: list[str]) -> None:
    info_later(logging.getLogger("bot.test"), "at once", delivery="d-3")
    assert records_made == ["at once"]
    [line] = logs()
    assert (line["message"], line["delivery"]) == ("at once", "d-3")


def test_the_web_process_holds_its_lines_and_the_worker_writes_them_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from aiohttp import web

    from bot import cli
    from bot.cli import app

    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    for name, value in {"APP_ID": "1", "PRIVATE_KEY": PEM, "WEBHOOK_SECRET": SECRET}.items():
        monkeypatch.setenv(f"WIKIWARDEN_{name}", value)
    served: list[logging.Handler] = []
    monkeypatch.setattr(web, "run_app", lambda *args, **kwargs: served.extend(root.handlers))
    try:
        assert cli.main(["serve"]) == 0
        [handler] = served
        assert isinstance(handler, Batched) and handler.seconds == app.LOG_BATCH_SECONDS > 0
        app.app_settings()  # as `wikiwarden worker` sets logging up
        [handler] = root.handlers
        assert not isinstance(handler, Batched)
    finally:
        root.handlers[:], root.level = saved
