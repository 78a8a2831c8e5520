"""A job's work in a child process, so that a deadline can stop it: the web process (or a worker) only waits for it.

Work driven by a repository's content (reading its pages, matching its globs, sweeping its claims) may hold the
interpreter for as long as that content makes it: a thread cannot be stopped, and a coroutine is stopped only when
it reaches an `await`. A child process can always be: cancelling the wait (the queue's job timeout does) kills it
with SIGKILL, at once, whatever it is doing, and the parent's event loop never stopped answering meanwhile.

Children come from a fork server (`multiprocessing`'s "forkserver" context): a fresh single-threaded interpreter,
started once, that has imported the job code (`prepare`) and forks a child for each job. Forking the web process
itself would copy its event loop, its threads' locks and its open connections into the child; forking the
server copies only the imports. A child reaches its parent's long-lived state (a daily token ledger, the answers
paid for, the job queue) through `Channel`: it calls a named service's async method, the parent runs it and
answers (`Remote` makes such a service look like the object itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import inspect
import itertools
import logging
import multiprocessing
import multiprocessing.forkserver
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from typing import Any

from . import JobAbandoned, PermanentFailure

log = logging.getLogger(__name__)

Entry = Callable[..., Awaitable[None]]  # async def entry(channel, *args): the job, in the child
_context: ForkServerContext | None = None
_preload: set[str] = {__name__}  # the machinery itself, whoever calls it
_started = False  # the fork server has been asked for (its imports are settled)
_PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends


class JobFailed(Exception):
    """A job's work failed in its child: the exception's type and words, as the child said them (the trace was
    logged there)."""


class ChildDied(JobAbandoned):
    """A job's child ended without saying how its work went (killed from outside, out of memory, a crash)."""


def prepare(preload: list[str]) -> None:
    """Add to what the fork server imports before forking any child (the job code, so a child starts with it
    loaded). Takes effect when the server starts, at `warm` or the first job; later calls change nothing."""
    global _context  # noqa: PLW0603 - the process's one fork server
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
    if not _started:
        _preload.update(preload)
        _context.set_forkserver_preload(sorted(_preload))


def _fork_server() -> ForkServerContext:
    global _started  # noqa: PLW0603
    if _context is None:
        prepare([])
    assert _context is not None
    _started = True
    return _context


async def run_in_child(entry: Entry, args: tuple[Any, ...], services: Mapping[str, object]) -> None:
    """Run `await entry(channel, *args)` in a child process and wait for it, serving its calls to `services` (name →
    object whose async methods the child may call). Raises PermanentFailure or JobFailed as the work did, ChildDied
    when the child ended without a word; cancelled, kills the child at once."""
    context = _fork_server()
    ours, theirs = context.Pipe(duplex=True)
    child = context.Process(target=_child_main, args=(entry, args, theirs), name="wikiwarden-job", daemon=True)
    try:
        child.start()  # a message to the fork server and its answer (`warm` started the server beforehand)
    finally:
        theirs.close()  # the child holds its end now: its death is our end's EOF
    try:
        while True:
            message = await _receive(ours)
            if message is None:
                await _reaped(child)
                raise ChildDied(f"its process ended without an answer (exit status {_exit_status(child)})")
            if message[0] == "call":
                await _serve(ours, services, *message[1:])
            elif message[0] == "done":
                return
            elif message[0] == "permanent":
                raise PermanentFailure(message[1])
            else:
                raise JobFailed(message[1])
    finally:
        if child.exitcode is None:
            child.kill()  # a deadline passed, or the queue is stopping: the work ends now, wherever it was
        try:
            await _reaped(child)
        except asyncio.CancelledError:  # cancelled again while reaping: the child has its SIGKILL, wait here
            child.join()
            raise
        finally:
            ours.close()
            child.close()


async def warm() -> None:
    """Start the fork server now and wait until it forks (off the event loop: it is a new interpreter importing the
    job code, most of a second), so that no job's start waits for it while the event loop waits too."""
    await asyncio.to_thread(_first_child)


def _first_child() -> None:
    child = _fork_server().Process(target=_nothing, name="wikiwarden-warm-up", daemon=True)
    child.start()
    child.join()
    child.close()


def _nothing() -> None:
    """What the warm-up child does."""


async def _readable(fd: int) -> None:
    loop = asyncio.get_running_loop()
    readable: asyncio.Future[None] = loop.create_future()

    def ready() -> None:
        if not readable.done():
            readable.set_result(None)

    loop.add_reader(fd, ready)
    try:
        await readable
    finally:
        loop.remove_reader(fd)


async def _reaped(child: multiprocessing.process.BaseProcess) -> None:
    """Wait on the event loop until `child` has ended, then let it go."""
    while child.exitcode is None:
        await _readable(child.sentinel)
    child.join()


def _exit_status(child: multiprocessing.process.BaseProcess) -> str:
    code = child.exitcode
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            return signal.Signals(-code).name
    return str(code)


async def _receive(connection: Connection) -> Any:
    """The next message on `connection`, waited for on the event loop; None once the other end has closed."""
    while not connection.poll():
        await _readable(connection.fileno())
    try:
        return connection.recv()
    except (EOFError, OSError):
        return None


async def _serve(connection: Connection, services: Mapping[str, object], number: int | None, name: str, method: str,
                 args: tuple[Any, ...]) -> None:  # fmt: skip
    """Answer one call of the child's: the service's method's value, or the error it raised, in words (a call
    numbered None is a notice: nothing is answered)."""
    try:
        service = services[name]
        if method.startswith("_"):
            raise AttributeError(method)
        value = getattr(service, method)(*args)
        if inspect.isawaitable(value):
            value = await value
    except Exception as exc:
        if number is None:
            log.warning("a job's notice to %s.%s failed: %s", name, method, type(exc).__name__)
        else:
            permanent = isinstance(exc, PermanentFailure)  # the child's job fails for good, as it would have here
            connection.send(("answer", number, False, (permanent, str(exc) if permanent else _words(exc))))
    else:
        if number is not None:
            connection.send(("answer", number, True, value))


class Channel:
    """The child's end: calls to its parent's services, answered in turn on the same pipe."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._numbers = itertools.count()
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._reading = False

    def notify(self, service: str, method: str, *args: Any) -> None:
        """`services[service].method(*args)` run by the parent, not waited for (no answer comes)."""
        self._connection.send(("call", None, service, method, args))

    async def call(self, service: str, method: str, *args: Any) -> Any:
        """`await services[service].method(*args)` run by the parent; raises JobFailed with its error's words."""
        loop = asyncio.get_running_loop()
        if not self._reading:
            loop.add_reader(self._connection.fileno(), self._read)
            self._reading = True
        number = next(self._numbers)
        answer = self._waiting[number] = loop.create_future()
        self._connection.send(("call", number, service, method, args))
        return await answer

    def _read(self) -> None:
        while self._connection.poll():
            try:
                _, number, ok, value = self._connection.recv()
            except (EOFError, OSError):  # the parent is gone: nothing will answer
                for pending in self._waiting.values():
                    if not pending.done():
                        pending.set_exception(JobFailed("the parent process went away"))
                self._waiting.clear()
                asyncio.get_running_loop().remove_reader(self._connection.fileno())
                return
            waiting: asyncio.Future[Any] | None = self._waiting.pop(number, None)
            if waiting is None or waiting.done():
                continue
            if ok:
                waiting.set_result(value)
            else:
                permanent, words = value
                waiting.set_exception(PermanentFailure(words) if permanent else JobFailed(words))

    def close(self) -> None:
        if self._reading:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self._connection.fileno())
            self._reading = False


class Remote:
    """A parent's service as the child sees it: each async method a call through the channel; the methods named in
    `notices` are plain ones whose answer is not waited for; `attributes` are plain values read when the job
    started."""

    def __init__(self, channel: Channel, service: str, notices: tuple[str, ...] = (), **attributes: Any) -> None:
        self._channel, self._service, self._attributes = channel, service, attributes
        self._notices = notices

    def __getattr__(self, name: str) -> Any:
        if name in self._attributes:
            return self._attributes[name]
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._notices:
            return lambda *args: self._channel.notify(self._service, name, *args)

        async def method(*args: Any) -> Any:
            return await self._channel.call(self._service, name, *args)

        return method


def _words(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if not isinstance(exc, JobFailed) else str(exc)


def _die_with_parent() -> None:
    """Ask Linux to kill this child when the fork server ends (and it ends with the process that started it): a job
    never outlives the process that owns it. Elsewhere the parent's kill on its way out has to do."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _child_main(entry: Entry, args: tuple[Any, ...], connection: Connection) -> None:
    """The child: run the job, then say how it went, in one message."""
    _die_with_parent()
    channel = Channel(connection)

    async def run() -> None:
        try:
            await entry(channel, *args)
        finally:
            channel.close()

    try:
        asyncio.run(run())
    except PermanentFailure as failure:
        connection.send(("permanent", str(failure)))
    except BaseException as exc:
        log.exception("the job failed in its process")
        connection.send(("failed", _words(exc)))
    else:
        connection.send(("done",))
    finally:
        connection.close()
