"""Logging for the App's processes: one JSON object per line (or plain text), carrying the delivery, the
repository and the job of the work in progress, with every secret scrubbed from the final line.

The scrubbing happens on the formatted output, so nothing escapes it: messages, arguments, extra fields and
tracebacks alike. It knows the configured secrets by value and GitHub's and OpenAI's token shapes by pattern.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import logging.handlers
import re
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, NamedTuple, TextIO

import orjson
from pythonjsonlogger.core import LogData
from pythonjsonlogger.json import JsonFormatter
from pythonjsonlogger.orjson import OrjsonFormatter

WORK: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("wikiwarden_work", default=None)
REDACTED = "[redacted]"
TOKEN_SHAPES = re.compile(
    r"(gh[opsur]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"
    r"|(?i:bearer|token)\s+[A-Za-z0-9._-]{20,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})"
)


@contextmanager
def work_context(**fields: Any) -> Iterator[None]:
    """Every log line inside carries these fields (delivery, repo, job_id, job_kind, ...)."""
    token = WORK.set({**(WORK.get() or {}), **{k: v for k, v in fields.items() if v is not None}})
    try:
        yield
    finally:
        WORK.reset(token)


class _JsonLines(OrjsonFormatter):
    """python-json-logger's fields encoded by orjson (the standard library's encoder was a third of a delivery's
    log line); what orjson refuses, a lone surrogate (a file name that is not UTF-8) or an integer
    beyond 64 bits, by the standard library's encoder, as before: no line is lost."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._fallback = JsonFormatter(*args, **kwargs)
        if (
            self.defaults
            or self.static_fields
            or self.rename_fields_keep_missing
            or not isinstance(self.timestamp, str)
        ):
            raise ValueError("_JsonLines writes its fields for its own settings only")
        self._timestamp_key: str = self.timestamp

    def add_fields(self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]) -> None:
        """python-json-logger's fields, in its order, for this formatter's settings (no defaults, no static
        fields, no renamed field kept when missing): its general loop over the record's attributes was half of a
        delivery's log line."""
        rename = self.rename_fields
        for field in self._required_fields:
            log_data[rename.get(field, field)] = record.__dict__.get(field)
        for key, value in message_dict.items():
            log_data[rename.get(key, key)] = value
        skip = self._skip_fields
        for key, value in record.__dict__.items():
            if key not in skip and key[:1] != "_":
                log_data[rename.get(key, key)] = value
        log_data[rename.get(self._timestamp_key, self._timestamp_key)] = datetime.fromtimestamp(record.created, tz=UTC)

    def jsonify_log_record(self, log_data: LogData) -> str:
        try:
            return super().jsonify_log_record(log_data)
        except orjson.JSONEncodeError:
            return self._fallback.jsonify_log_record(log_data)


class _WorkFields(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in (WORK.get() or {}).items():
            if not hasattr(record, key):
                setattr(record, key, value)
        return True


class Scrubbed(logging.Formatter):
    """Wraps a formatter; replaces secrets in whatever it produced."""

    def __init__(self, inner: logging.Formatter, secrets: Iterable[str]) -> None:
        super().__init__()
        self.inner = inner
        # Each secret, and each long line of one (a PEM key logged line by line), worked out once. Longest first,
        # so a secret containing another is replaced whole; short strings are never secrets (they would eat words).
        needles = {s for s in secrets if s and len(s) >= 8}
        needles |= {line for s in needles for line in s.splitlines() if len(line) >= 16}
        self.needles = sorted(needles, key=len, reverse=True)

    def scrub(self, text: str) -> str:
        for needle in self.needles:
            if needle in text:
                text = text.replace(needle, REDACTED)
        return TOKEN_SHAPES.sub(REDACTED, text) if _may_hold_token(text) else text

    def format(self, record: logging.LogRecord) -> str:
        return self.scrub(self.inner.format(record))


def _may_hold_token(text: str) -> bool:
    """Whether `text` holds what one of `TOKEN_SHAPES` begins with: most lines hold none, and these substring tests
    cost a tenth of the shapes' regular expression (which was a third of a delivery's log line)."""
    if "gh" in text or "github_pat_" in text or "sk-" in text or "eyJ" in text or "-----BEGIN" in text:
        return True
    lowered = text.lower()
    return "bearer" in lowered or "token" in lowered


class Batched(logging.handlers.MemoryHandler):
    """Holds a process's lines for at most `seconds` and writes them together, in order; a warning or an error at
    once, with the lines held before it. For the web process, whose one line a delivery was a quarter of what a
    delivery cost it in a burst: formatted and written one by one among 200 deliveries in flight, each line cost
    about twice what it costs in a run of lines. Held lines are written when the process stops (the handler is
    flushed and closed at exit, and at `capacity` lines); a process killed outright loses at most `seconds` of its
    informational lines.

    Each record's message is made final when it is held (its arguments may change before it is written), and its
    work's fields are added then (the filters of this handler run in the caller's context). With no event loop
    running in the calling thread nothing would write it later, so it is written at once. A hot path's line is held
    without its record (`info_later`), which is made when the batch is written."""

    def __init__(self, target: logging.Handler, seconds: float, capacity: int = 1000) -> None:
        super().__init__(capacity, flushLevel=logging.WARNING, target=target, flushOnClose=True)
        self.seconds = seconds
        self._timer: asyncio.TimerHandle | None = None
        self._timer_loop: asyncio.AbstractEventLoop | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if record.args:
            # Arguments that do not fit the message are left to the writer's formatting to report, as unbatched.
            with contextlib.suppress(Exception):
                record.msg, record.args = record.getMessage(), None
        self._hold(record)

    def hold(self, logger: logging.Logger, message: str, fields: dict[str, Any]) -> bool:
        """Hold an informational line of `logger` without making its record: made when the batch is written, with
        the time it was held and its work's fields as they were then, it reads as `logger.info(message,
        extra=fields)` would. For the lines of a hot path, whose record was most of what a line cost its caller.
        False, with nothing held, where the line would go further than this handler (a filter of its logger,
        another handler on its way, a field the record has), or where no event loop runs to write it later: the
        caller logs it as usual."""
        if not logger.isEnabledFor(logging.INFO) or not self._sole_handler_of(logger):
            return False
        work = WORK.get()
        fields = {**work, **fields} if work else fields
        loop = _running_loop()
        if loop is None or not _RECORDS.isdisjoint(fields):
            return False
        line = _Line(logger.name, message, fields, time.time())
        with self.lock:  # type: ignore[union-attr]  # created by Handler.__init__
            self._hold(line, loop)
        return True

    def _hold(self, entry: logging.LogRecord | _Line, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.buffer.append(entry)  # type: ignore[arg-type]  # a _Line is made a record when the batch is written
        if (isinstance(entry, logging.LogRecord) and self.shouldFlush(entry)) or len(self.buffer) >= self.capacity:
            self.flush()
            return
        loop = loop or _running_loop()
        if loop is None:
            self.flush()
            return
        if self._timer_loop is not loop:  # none due (flushed), or due in a loop that has stopped
            self._timer, self._timer_loop = loop.call_later(self.seconds, self.flush), loop

    def _sole_handler_of(self, logger: logging.Logger) -> bool:
        """Whether this handler alone writes the lines of `logger`, which has no filter of its own."""
        if logger.filters or self.level > logging.INFO:
            return False
        found = False
        at: logging.Logger | None = logger
        while at is not None:
            for handler in at.handlers:
                if handler is not self:
                    return False
                found = True
            at = at.parent if at.propagate else None
        return found

    def flush(self) -> None:
        self.acquire()
        try:
            if self._timer is not None:
                if _running_loop() is self._timer_loop:  # a loop's handles are not for other threads to cancel
                    self._timer.cancel()
                self._timer = self._timer_loop = None
            self.buffer = [entry.record() if isinstance(entry, _Line) else entry for entry in self.buffer]
            super().flush()
        finally:
            self.release()


_RECORDS = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}  # what `extra` may not name


class _Line(NamedTuple):
    """An informational line held by `Batched.hold`, its record not made yet."""

    logger: str
    message: str
    fields: dict[str, Any]
    created: float

    def record(self) -> logging.LogRecord:
        """The record `logging.info` would have made then (where no call site is looked up, `_srcfile` None)."""
        record = logging.getLogger(self.logger).makeRecord(
            self.logger, logging.INFO, "(unknown file)", 0, self.message, (), None, "(unknown function)", self.fields
        )
        late = record.created - self.created
        record.created = self.created
        record.msecs = int((self.created - int(self.created)) * 1000) + 0.0
        record.relativeCreated -= late * 1000
        return record


def info_later(logger: logging.Logger, message: str, **fields: Any) -> None:
    """`logger.info(message, extra=fields)`, except that where the process batches its lines (`Batched`, in
    `wikiwarden serve`) the record is made when the batch is written, not by the caller. For a hot path's lines:
    the record and the work context around it were a large part of a delivery's cost at the web process's door."""
    for handler in logging.root.handlers:
        if isinstance(handler, Batched) and handler.hold(logger, message, fields):
            return
    logger.info(message, extra=fields)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class _MalformedHTTP(logging.Filter):
    """aiohttp logs a traceback at ERROR for every request that is not valid HTTP (a NUL byte in a header, a
    broken request line). Anyone can send those, so each becomes one WARNING line without the traceback: a flood
    of them cannot bury real errors. The 400 aiohttp answers is unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and type(exc).__module__ == "aiohttp.http_exceptions":
            record.msg = f"malformed HTTP request refused: {type(exc).__name__}"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def configure_logging(
    fmt: str = "json",
    level: str = "INFO",
    secrets: Iterable[str] = (),
    stream: TextIO | None = None,
    batch_seconds: float = 0,
) -> logging.Handler:
    """Send the root logger's records to `stream` (stderr), formatted and scrubbed, each at once or, with
    `batch_seconds`, informational lines together within that time (`Batched`); returns the root's handler."""
    if fmt == "json":
        inner: logging.Formatter = _JsonLines(
            "%(levelname)s %(name)s %(message)s",
            rename_fields={"levelname": "level", "name": "logger"},
            timestamp="time",  # ISO 8601 in UTC, to the microsecond
        )
    else:
        inner = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    writer = logging.StreamHandler(stream or sys.stderr)
    writer.setFormatter(Scrubbed(inner, secrets))
    handler: logging.Handler = Batched(writer, batch_seconds) if batch_seconds > 0 else writer
    handler.addFilter(_WorkFields())
    # No line shows the thread or the process, and each costs a lookup on every record; nor where the call was
    # made from, which walks the stack on every record (the costliest of the three): the logging HOWTO's
    # "Optimization" says to set `_srcfile` to None for that.
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    logging._srcfile = None
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        if isinstance(old, Batched):  # what it holds is written, not dropped
            old.close()
    root.addHandler(handler)
    root.setLevel(level)
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)  # one line per webhook is noise at scale
    server = logging.getLogger("aiohttp.server")
    if not any(isinstance(f, _MalformedHTTP) for f in server.filters):
        server.addFilter(_MalformedHTTP())
    return handler
