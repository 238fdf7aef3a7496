"""No silence longer than ``server.keepalive_s`` on a route that waits on a model.

Reverse proxies and load balancers cut a connection that stays silent for
their read or idle timeout (nginx's ``proxy_read_timeout``, an AWS ALB's
idle timeout: 60 s by default), and a council run, or one slow member,
takes longer than that. Streams already send SSE ``: keep-alive`` comments;
this module is what every other waiting answer uses:

* :func:`patiently` (and the :func:`patient` handler wrapper) answers a
  request whose whole JSON body takes long: within ``keepalive_s`` it is
  answered as it would have been, status and headers and all; past it the
  response starts (200, ``application/json``) and a JSON-legal whitespace
  byte follows every ``keepalive_s`` until the body is ready.
* :func:`keep_waiting` waits for one awaitable and calls back every
  ``keepalive_s`` meanwhile: how a stream sends its keep-alive comments
  while it waits for a member's next token.
* :class:`EarlyStart` is the ticker under :class:`Patience`: it starts a
  response after ``keepalive_s`` and beats until stopped, while the
  handler awaits in its own task (a council stream waiting for a run slot
  uses it with SSE comments).
* :func:`announce` lets a handler name, as soon as it knows them, the
  headers an early-started response can still carry (the run id, the cache
  verdict); headers known only at the end go into the body's ``council``
  object instead (see :class:`Patience`).

The app installs one :class:`Patience` (``PATIENCE_KEY``) with the error
mapping of its middleware, so an error after the response started has the
body the same error would have had before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from aiohttp import web

from council.logs import get_logger
from council.server.schema import ApiError

T = TypeVar("T")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
#: The app's error mapping: the response its error middleware answers ``error`` with (re-raising what it does not).
ErrorAnswer = Callable[[web.Request, Exception], web.StreamResponse]

#: What an early-started JSON answer sends while it waits: a newline, whitespace before the body's first byte.
WHITESPACE = b"\n"
#: Sent on an early-started answer, whatever its body: a proxy must pass its bytes on as they come.
STARTED_HEADERS = {"Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-cache",
                   "X-Accel-Buffering": "no"}
_EARLY_HEADERS: web.RequestKey[dict[str, str]] = web.RequestKey("council_early_headers", dict)
_log = get_logger("server.patience")


def announce(request: web.Request, headers: dict[str, str]) -> None:
    """Headers of ``request``'s answer known now: an answer that starts early sends them (the rest go in its body)."""
    request.setdefault(_EARLY_HEADERS, {}).update(headers)


async def keep_waiting(awaitable: Awaitable[T], every_s: float, tick: Callable[[], Awaitable[None]]) -> T:
    """``await awaitable``, calling ``await tick()`` each time ``every_s`` passes first.

    The awaitable runs as a task of its own; its result or exception is
    this call's. When this call is cancelled, or ``tick`` raises (a client
    gone), the task is cancelled and waited for before the error goes on.
    """
    task = asyncio.ensure_future(awaitable)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=every_s)
            if done:
                return task.result()
            await tick()
    finally:
        if not task.done():
            task.cancel()
            await asyncio.wait({task})
        if not task.cancelled():
            task.exception()  # retrieved: an error left behind by a failed tick is not "never retrieved"


class EarlyStart:
    """Starts a response after ``every_s`` and sends ``beat`` every ``every_s`` until :meth:`stop`.

    ``make`` builds the response when the first beat is due (so it can take
    the headers known by then). The ticker runs beside the handler, which
    goes on awaiting its own work in its own task; :meth:`stop` never cuts
    a write in half.
    """

    def __init__(self, request: web.Request, every_s: float, make: Callable[[], web.StreamResponse],
                 beat: bytes) -> None:
        self.request = request
        self.every_s = every_s
        self.make = make
        self.beat = beat
        self.response: web.StreamResponse | None = None
        self.lock = asyncio.Lock()
        self.stopping = False
        self.ticker = asyncio.ensure_future(self._tick())

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            async with self.lock:
                if self.stopping:
                    return
                if self.response is None:
                    response = self.make()
                    self.response = response
                    await response.prepare(self.request)
                await self.response.write(self.beat)

    async def stop(self) -> web.StreamResponse | None:
        """Stop the ticker (never mid-write); the response it started, or None when none was."""
        self.stopping = True
        async with self.lock:
            self.ticker.cancel()
        await asyncio.wait({self.ticker})
        if not self.ticker.cancelled() and self.ticker.exception() is not None:
            # The client left (a write failed); the final write will fail the same way and say so.
            _log.debug("keepalive_failed", path=self.request.path, error=str(self.ticker.exception()))
        return self.response


class Patience:
    """Answers that may take longer than ``keepalive_s``, without a silence longer than that.

    Contract of :meth:`answer` (``work``: an awaitable producing a whole,
    unprepared response, a JSON body, ``web.json_response(...)``; or raising
    any error the app's error middleware answers):

    * Done within ``keepalive_s``: its response, or its error, is the
      answer, exactly as without this helper: its status (a 4xx stays a
      4xx) and every header.
    * Not done by then: the answer starts, status 200,
      ``Content-Type: application/json``, with the headers
      :func:`announce`\\ d so far, and a newline goes out every
      ``keepalive_s`` (JSON parsers skip whitespace before a value). When
      ``work`` ends, its body follows, whatever its status was (a 201 or
      202 becomes 200). Its ``x-council-*`` headers that did not go out
      with the start are put in the body's top-level ``council`` object
      as ``council.headers`` (the object is made when the body had none).
    * An error after the start: the body is the error object the status
      would have carried, ``{"error": {...}}``, under the 200 (no
      ``council.headers``). The openai SDK does not raise on it: it
      returns an object whose fields are None and whose ``error`` extra
      field holds the error (see docs/server.md).
    * Cancelled after the start (the server shutting down past its grace
      period): a ``shutting_down`` error body ends the answer, as
      :func:`~council.server.wire.end_cut_stream` ends a stream; the client
      may be gone, and then nothing is said.

    ``work`` runs in the calling task: cancellation, ``asyncio.current_task``
    and context variables are the handler's own. Not for streamed answers
    (they prepare their own response): they send keep-alive comments
    with :func:`keep_waiting`.
    """

    def __init__(self, keepalive_s: float, answer_error: ErrorAnswer) -> None:
        self.keepalive_s = keepalive_s
        self.answer_error = answer_error

    async def answer(self, request: web.Request, work: Awaitable[web.StreamResponse]) -> web.StreamResponse:
        """The answer ``work`` makes, started early when it takes longer than ``keepalive_s`` (see the class)."""
        early = EarlyStart(request, self.keepalive_s, lambda: web.StreamResponse(
            status=200, headers={**request.get(_EARLY_HEADERS, {}), **STARTED_HEADERS}), WHITESPACE)
        try:
            answered = await work
        except asyncio.CancelledError:
            started = await early.stop()
            if started is None:
                raise
            with contextlib.suppress(Exception):
                await _finish(started, ApiError(503, "the server is shutting down and stopped this answer before "
                                                "it finished", type="server_error", code="shutting_down").body())
            return started
        except Exception as error:
            started = await early.stop()
            if started is None:
                raise
            failed = self.answer_error(request, error)  # re-raises what the middleware would have re-raised
            body = failed.body if isinstance(failed, web.Response) else None
            if isinstance(body, bytes) and body:
                await _finish(started, json.loads(body))
            else:
                await started.write_eof()  # nothing to say (a client gone): the write fails or ends the answer
            return started
        started = await early.stop()
        if started is None:
            return answered
        await _finish(started, _late_body(answered, started))
        return started


def _late_body(answered: web.StreamResponse, started: web.StreamResponse) -> Any:
    """The body of ``answered``, with its x-council-* headers the started response lacks in ``council.headers``."""
    if not isinstance(answered, web.Response) or not isinstance(answered.body, bytes):
        _log.error("late_answer_unreadable", kind=type(answered).__name__)
        return ApiError(500, "internal error: the answer could not be sent", type="server_error",
                        code="internal_error").body()
    body = json.loads(answered.body)
    late = {name.lower(): value for name, value in answered.headers.items()
            if name.lower().startswith("x-council-") and name not in started.headers}
    if late and isinstance(body, dict) and "error" not in body:
        council = body.get("council")
        body["council"] = {**(council if isinstance(council, dict) else {}), "headers": late}
    return body


async def _finish(started: web.StreamResponse, body: Any) -> None:
    await started.write(json.dumps(body, ensure_ascii=False).encode())
    await started.write_eof()


PATIENCE_KEY = web.AppKey("council_patience", Patience)


async def patiently(request: web.Request, work: Awaitable[web.StreamResponse]) -> web.StreamResponse:
    """:meth:`Patience.answer` with the app's :class:`Patience` (installed by ``create_app``)."""
    return await request.app[PATIENCE_KEY].answer(request, work)


def patient(handler: Handler) -> Handler:
    """A route handler answered :func:`patiently` (its attributes, such as ``council_public``, kept)."""

    @functools.wraps(handler)
    async def wrapped(request: web.Request) -> web.StreamResponse:
        return await patiently(request, handler(request))

    return wrapped
