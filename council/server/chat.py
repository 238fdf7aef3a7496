"""``POST /v1/chat/completions``: the full council, or one member passed through.

The council model runs the pipeline and answers with the final answer; its
stream shows stage progress as ``reasoning_content`` (or ``<think>`` text),
then the final answer, with keep-alive comments while it waits. A member
model (``member/NAME``) proxies the request to that member, streamed when
asked, for the cheap side tasks chat apps send (titles, tags).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import Any

from aiohttp import web

from council.errors import ProviderError, ProviderTimeoutError, RateLimitedError
from council.events import StageEvent
from council.logs import get_logger
from council.pipeline import CallKind, Council, RunPlan, RunRequest
from council.result import CouncilResult
from council.server.admission import Admission, AdmissionClosedError, AdmissionRefusedError
from council.server.conversation import to_conversation, to_messages
from council.server.guards import (
    CACHE_HEADER,
    ORIGINS_KEY,
    RUN_ID_KEY,
    TOOLS_IGNORED_HEADER,
    TOOLS_IGNORED_KEY,
    caller_of,
)
from council.server.metrics import ServerMetrics
from council.server.param_checks import council_request_problems, member_request_problems
from council.server.patience import EarlyStart, announce, keep_waiting
from council.server.relay import relay, relayable, uses_tools
from council.server.run_replies import (
    NO_RETRY,
    CouncilStream,
    answered,
    council_summary,
    decided_call,
    failure_error,
    finish_reason,
)
from council.server.schema import (
    ApiError,
    ChatCompletionRequest,
)
from council.server.spend import DailySpend, call_cost_headers, cost_headers
from council.server.wire import ChunkWriter, completion_body, end_cut_stream

COUNCIL_MODEL = "council"
PRESET_PREFIX = "council/"  # council/NAME runs the preset NAME
MEMBER_PREFIX = "member/"
_log = get_logger("server.chat")


class ChatHandler:
    """Serves chat completions for one council."""

    def __init__(self, council: Council, app: web.Application) -> None:
        self.council = council
        self.app = app
        self.config = council.config.server
        self.background: set[asyncio.Task[Any]] = set()
        self.passthrough: set[asyncio.Task[Any]] = set()  # handlers relaying one member's answer
        self.closing = False  # set at shutdown: no new runs
        self.admission = Admission(self.config.max_concurrent_runs, self.config.queue_size,
                                   self.config.queue_timeout_s)
        self.metrics = ServerMetrics(self.admission, lambda: council.runs)
        self.spend = DailySpend(council.config, lambda: council.runs)

    # -- the council model ---------------------------------------------------
    async def admit(self) -> None:
        """Wait for a run slot (shared with the web page's runs).

        429 with Retry-After when none comes; 503 ``shutting_down`` once
        SIGTERM came, also for a request that was waiting in the queue.
        """
        if self.closing:
            raise shutting_down_error()
        await self.spend.check()
        try:
            await self.admission.acquire()
        except AdmissionClosedError:
            raise shutting_down_error() from None  # queued when SIGTERM came: told now, not left to be cut
        except AdmissionRefusedError as refused:
            raise ApiError(429, str(refused), type="rate_limit_error", code="too_many_runs",
                           headers={"Retry-After": str(refused.retry_after_s)}) from None

    @property
    def active_runs(self) -> int:
        """Runs holding a slot now, chat and page alike."""
        return self.admission.running

    def start_admitted(self, coroutine: Any) -> asyncio.Task[Any]:
        """Run ``coroutine`` in the slot :meth:`admit` took; the slot is given back when it ends."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coroutine)
        self.background.add(task)
        started = time.perf_counter()
        self.metrics.run_started()

        def done(finished: asyncio.Task[Any]) -> None:
            self.background.discard(finished)
            self.admission.release(time.perf_counter() - started)
            if finished.cancelled():
                self.metrics.runs_finished.labels("interrupted").inc()
            elif finished.exception() is None:
                result = finished.result()  # an orphaned failure is retrieved above, never "never retrieved"
                if isinstance(result, CouncilResult):
                    self.metrics.run_finished(result)
                    self.spend.add_soon(result)

        task.add_done_callback(done)
        return task

    async def _await_run(self, task: asyncio.Task[CouncilResult]) -> CouncilResult:
        try:
            if self.config.on_disconnect == "finish":
                return await asyncio.shield(task)  # a cancelled handler leaves the run to finish and be stored
            return await task
        except asyncio.CancelledError:
            if task.cancelled() and not _cancelling():
                # The run was stopped, not this handler: the server is shutting down past its grace period.
                raise interrupted_error(task) from None
            if self.config.on_disconnect == "cancel":
                task.cancel()
            raise

    def decides_tools(self, preset: str | None) -> bool:
        """Whether the council (or preset ``council/NAME``) may answer tools with a call of its own choice."""
        chosen = self.council.config.councils[preset].tools if preset in self.council.config.councils else None
        return (chosen or self.config.council_tools) == "decide"

    def cache_scope(self, request: web.Request) -> str | None:
        """The result cache's scope for this caller: its key's hash with ``cache.scope: key``, else shared."""
        return caller_of(request) if self.council.config.cache.scope == "key" else None

    async def council_completion(self, request: web.Request, body: ChatCompletionRequest,
                                 preset: str | None = None) -> web.StreamResponse:
        """Run the council (or one of its presets: model ``council/NAME``) for one request."""
        council_request_problems(body)
        if body.forced_tool_param() == "function_call":
            raise ApiError(400, "function_call: legacy function calling cannot be forced on the council; use tools "
                                "and tool_choice", param="function_call", code="tool_choice_not_supported")
        extra_headers: dict[str, str] = {}
        forced = body.forced_tool_param() is not None
        # Tools go to the run when a call is forced, or when the council may decide one (its setting).
        decides = forced or (body.tool_choice != "none" and self.decides_tools(preset))
        if body.tool_definitions and not decides:
            # Chat apps attach their tools to every question; the council answers in text, and says so.
            request[TOOLS_IGNORED_KEY] = body.tool_definitions
            extra_headers[TOOLS_IGNORED_HEADER] = str(body.tool_definitions)
        messages, origins = to_conversation(body)
        request[ORIGINS_KEY] = origins  # a refused message is named as the client sent it
        # The result cache answers unless the client asks for a fresh run, either way chat clients say it.
        fresh = body.council_cache is False or "no-cache" in request.headers.get("Cache-Control", "").lower()
        # A rubric by name only: over HTTP the reference must not reach the file system.
        run_request = RunRequest(messages=messages, rubric=body.council_rubric, rubric_source="named",
                                 params=body.params(), preset=preset, max_usd=body.council_max_usd, cache=not fresh,
                                 tools=body.tools if decides else None,
                                 tool_choice=body.tool_choice if decides else None,
                                 # Members deciding a call get the tool turns natively; other stages read text.
                                 tool_messages=[m.model_dump(exclude_unset=True) for m in body.messages]
                                 if decides and body.tool_definitions else None,
                                 cache_scope=self.cache_scope(request))
        # A registered rubric is read from the database: not on the event loop.
        plan = (await asyncio.to_thread(self.council.plan, run_request) if body.council_rubric
                else self.council.plan(run_request))
        looked_up = time.monotonic()
        hit = await self.council.lookup_cache(plan) if plan.use_cache else None
        lookup_s = time.monotonic() - looked_up  # counted in the run's storage wait: an outage costs one wait
        if plan.use_cache:
            extra_headers[CACHE_HEADER] = "hit" if hit is not None else "miss"
        run_id = uuid.uuid4().hex
        completion_id = f"chatcmpl-{run_id}"
        created = int(time.time())
        if body.stream:
            response = web.StreamResponse(headers={
                "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no",
                "x-council-run-id": run_id, **extra_headers,
            })
            if not await self._admit_streaming(request, response, completion_id, created, body):
                return response  # refused after the stream started: said as its error event
        else:
            await self.admit()
        request[RUN_ID_KEY] = run_id  # for the access log, also when the client leaves before the headers go out
        announce(request, {"x-council-run-id": run_id, **extra_headers})  # an answer started early sends these
        if body.stream:
            return await self._council_stream(request, body, plan, run_id, response, created, hit, lookup_s)
        task = self.start_admitted(self.council.ask(plan, run_id=run_id, cache_hit=hit, cache_checked=True,
                                                    storage_waited_s=lookup_s))
        result = await self._await_run(task)
        if (refusal := result.refusal) is not None:
            # As OpenAI answers a refused structured output: the refusal in its own field, no content.
            return web.json_response(
                completion_body(completion_id, created, body.model, None, "stop", result.usage,
                                {"council": council_summary(result)}, refusal=refusal),
                headers={"x-council-run-id": run_id, **cost_headers(result), **extra_headers})
        if not answered(result) or result.final_answer is None:
            raise failure_error(result)
        content, call = decided_call(plan, result)
        payload = completion_body(completion_id, created, body.model, content,
                                  "tool_calls" if call else finish_reason(result), result.usage,
                                  {"council": council_summary(result)}, tool_calls=call)
        return web.json_response(payload, headers={"x-council-run-id": run_id, **cost_headers(result),
                                                   **extra_headers})

    async def _admit_streaming(self, request: web.Request, response: web.StreamResponse, completion_id: str,
                               created: int, body: ChatCompletionRequest) -> bool:
        """:meth:`admit`, starting ``response`` with keep-alive comments when the wait outlasts keepalive_s.

        False when the wait was refused after the stream started: the
        refusal went out as the stream's error event and ``[DONE]``.
        """
        early = EarlyStart(request, self.config.keepalive_s, lambda: response, b": keep-alive\n\n")
        try:
            await self.admit()
        except ApiError as error:
            if await early.stop() is None:
                raise  # within keepalive_s: its own status (429 with Retry-After, 503)
            writer = stream_writer(request, response, completion_id, created, body.model, body.include_usage)
            await writer.error(error.message, error.type, error.code)
            await writer.done()
            await response.write_eof()
            return False
        except BaseException:
            await early.stop()
            raise
        await early.stop()
        return True

    async def _council_stream(self, request: web.Request, body: ChatCompletionRequest, plan: RunPlan, run_id: str,
                              response: web.StreamResponse, created: int, hit: CouncilResult | None,
                              lookup_s: float) -> web.StreamResponse:
        completion_id = f"chatcmpl-{run_id}"
        queue: asyncio.Queue[StageEvent] = asyncio.Queue()
        task = self.start_admitted(self.council.ask(plan, run_id=run_id, on_event=queue.put_nowait, cache_hit=hit,
                                                    cache_checked=True, storage_waited_s=lookup_s))
        try:
            if not response.prepared:  # it may have started while the request waited for a run slot
                await response.prepare(request)
            writer = stream_writer(request, response, completion_id, created, body.model, body.include_usage)
            # A structured answer's content is its JSON alone: progress never goes into it as <think> text.
            # Nor into a Responses API stream's text: there progress is a reasoning item.
            progress = "reasoning_content" if (plan.output is not None or STREAM_WRITER_KEY in request) \
                and self.config.progress == "think" else self.config.progress
            await CouncilStream(writer, task, queue, progress, self.config.keepalive_s,
                                calls=(lambda result: decided_call(plan, result))
                                if plan.output is not None and plan.output.calls else None).play()
            await response.write_eof()
        except (ConnectionResetError, asyncio.CancelledError):
            if self.config.on_disconnect == "cancel":
                task.cancel()
            raise
        return response

    # -- pass-through members ---------------------------------------------------
    async def member_completion(
        self, request: web.Request, body: ChatCompletionRequest, member: str, headers: dict[str, str] | None = None,
        raw: dict[str, Any] | None = None, kind: CallKind = "pass-through",
    ) -> web.StreamResponse:
        """Proxy the request to one member (``headers`` are added to the response).

        A request using tools is relayed as it came (``raw``, the decoded
        body), translated for a member on another wire format: see
        :mod:`council.server.relay`.
        Every call is counted (``kind``: a pass-through, or a side task the
        server routed) toward the day's spend and ``council runs --since``;
        a plain answer carries ``x-council-cost-usd`` when the member is priced.
        """
        task = asyncio.current_task()
        if task is not None:
            self.passthrough.add(task)  # the shutdown drain gives these the same grace period as runs
        try:
            return await self._member_completion(request, body, member, headers, raw, kind)
        finally:
            if task is not None:
                self.passthrough.discard(task)

    async def _member_completion(self, request: web.Request, body: ChatCompletionRequest, member: str,
                                 headers: dict[str, str] | None, raw: dict[str, Any] | None,
                                 kind: CallKind) -> web.StreamResponse:
        try:
            called = self.council.member(member)
        except KeyError:
            raise ApiError(404, f"The model '{body.model}' does not exist", param="model",
                           code="model_not_found") from None
        params = body.params()
        member_request_problems(body, called.unsupported_params(params), called.wire_format)
        await self.spend.check()
        if uses_tools(body) and raw is not None:
            try:
                return await relay(request, relayable(called, body, raw), body, raw,
                                   lambda usage: call_cost_headers(self.spend.record_call_soon(member, kind, usage)),
                                   self.config.keepalive_s)
            except ProviderError as error:
                raise upstream_error(error) from None
        announce(request, headers or {})
        messages = to_messages(body)
        completion_id = f"chatcmpl-{uuid.uuid4().hex}"
        created = int(time.time())
        if not body.stream:
            try:
                completion = await called.complete(messages, params)
            except ProviderError as error:
                raise upstream_error(error) from None
            usd = self.spend.record_call_soon(member, kind, completion.usage)
            return web.json_response(completion_body(completion_id, created, body.model, completion.content,
                                                     called.openai_finish_reason(completion.finish_reason),
                                                     completion.usage,
                                                     upstream_finish_reason=completion.finish_reason),
                                     headers={**(headers or {}), **call_cost_headers(usd)})
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                               "X-Accel-Buffering": "no", **(headers or {})})
        stream = called.stream(messages, params)
        deltas = aiter(stream)
        started = False
        writer: Any = None

        async def start() -> None:
            nonlocal started, writer
            await response.prepare(request)
            writer = stream_writer(request, response, completion_id, created, body.model, body.include_usage)
            await writer.delta({"role": "assistant", "content": ""})
            started = True

        async def keepalive() -> None:
            # No first token within keepalive_s: the answer starts (an error later is an error event), then
            # a comment every keepalive_s of silence keeps proxies from cutting it.
            if not started:
                await start()
            await writer.keepalive()

        try:
            while True:
                try:
                    delta = await keep_waiting(anext(deltas), self.config.keepalive_s, keepalive)
                except StopAsyncIteration:
                    break
                if not started:
                    await start()
                await writer.delta({"content": delta})
        except ProviderError as error:
            if not started:
                raise upstream_error(error) from None  # failed within keepalive_s: its own status
            await writer.error(str(error), code=error.reason)
            await writer.done()
            await response.write_eof()
            return response
        except asyncio.CancelledError:
            if not started:
                raise
            # The server shutting down past its grace period (or the client gone): say why, then [DONE].
            await end_cut_stream(response)
            return response
        finally:
            await stream.aclose()
        if not started:
            await start()
        streamed = stream.completion
        if streamed is not None:
            self.spend.record_call_soon(member, kind, streamed.usage)
        upstream_reason = streamed.finish_reason if streamed else None
        await writer.delta({}, called.openai_finish_reason(upstream_reason), upstream_reason)
        if streamed is not None:
            await writer.usage(streamed.usage)
        await writer.done()
        await response.write_eof()
        return response


#: A request answered in another API's words (the Responses API) sets the writer its streams are told with.
StreamWriterFactory = Callable[[web.StreamResponse], Any]
STREAM_WRITER_KEY: web.RequestKey[StreamWriterFactory] = web.RequestKey("council_stream_writer")


def stream_writer(request: web.Request, response: web.StreamResponse, completion_id: str, created: int, model: str,
                  include_usage: bool) -> Any:
    """The writer of a streamed answer: chat chunks, unless the request set another (``STREAM_WRITER_KEY``)."""
    make = request.get(STREAM_WRITER_KEY)
    return make(response) if make is not None else ChunkWriter(response, completion_id, created, model, include_usage)


def _cancelling() -> bool:
    """Whether the current task itself is being cancelled (by its client leaving, or by the server)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def shutting_down_error() -> ApiError:
    """A request that arrived, or waited in the queue, while the server shuts down: no run starts for it."""
    return ApiError(503, "the server is shutting down; send the request to another replica or retry",
                    type="server_error", code="shutting_down", headers={"Retry-After": "5"})


def interrupted_error(task: asyncio.Task[Any]) -> ApiError:
    """A run stopped by the server's shutdown, as the waiting client sees it."""
    return ApiError(503, "the server is shutting down and stopped this council run before it finished",
                    type="server_error", code="run_interrupted", headers={**NO_RETRY})


def upstream_error(error: ProviderError) -> ApiError:
    """A member's failure as the client sees it."""
    if isinstance(error, RateLimitedError):
        return ApiError(429, str(error), type="rate_limit_error", code=error.reason)
    if isinstance(error, ProviderTimeoutError):
        return ApiError(504, str(error), type="server_error", code=error.reason)
    return ApiError(502, str(error), type="server_error", code=error.reason)
