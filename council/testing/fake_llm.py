"""A fake LLM server speaking the OpenAI (moderations too), Anthropic and Gemini APIs over real HTTP.

Tests and benchmarks start it on 127.0.0.1 and point members at it. Each model is scripted with
:class:`Step` s (the last repeats): latency, a fixed or computed reply, a status with headers such as
``Retry-After``, a malformed body, a truncated or broken stream, a hang. Every request is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

from council.testing.fake_moderation import serve_moderation
from council.testing.fake_steps import Api, FakeCall, RandomFaults, RecordedRequest, Replier, Step
from council.testing.fake_tool_calls import (
    anthropic_blocks,
    anthropic_call_events,
    calls_words,
    gemini_parts,
    openai_call_deltas,
    openai_calls,
)

__all__ = ["Api", "FakeCall", "FakeLLMServer", "RandomFaults", "RecordedRequest", "Replier", "Step", "default_reply"]

def _text(content: Any) -> str:
    """A message's text: the content string, or its text parts joined (images and other parts left out)."""
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else str(content)


def default_reply(request: RecordedRequest) -> str:
    """The reply of an unscripted model: names itself and echoes the question."""
    return f"{request.model} answers: {request.last_user_text}"


def _words(text: str) -> list[str]:
    pieces = text.split(" ")
    return [p if i == 0 else " " + p for i, p in enumerate(pieces)]


class FakeLLMServer:
    """The fake upstream. ``async with FakeLLMServer() as fake:`` starts and stops it."""

    def __init__(self, record: bool = True) -> None:
        self.record = record
        self.requests: list[RecordedRequest] = []
        self._scripts: dict[str, list[Step]] = {}
        self._closing = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0
        #: Latency of unscripted requests: seconds, or a function drawing them per request (a latency model).
        self.default_latency_s: float | Callable[[], float] = 0.0
        self.default_reply: str | Replier | None = None
        self.random_faults: RandomFaults | None = None
        self._fault_draw = random.Random()
        self.faults_served: dict[int, int] = {}
        self.images: dict[str, tuple[str, bytes]] = {}
        self.images_served: list[str] = []  # names of the images fetched, in order
        self.in_flight = 0  # requests being answered now
        self.most_in_flight = 0  # the most at once so far: how many calls a client had open together

    # -- scripting ---------------------------------------------------------
    def script(self, model: str, *steps: Step) -> None:
        """Queue ``steps`` for ``model``; after the last, the last one repeats."""
        self._scripts[model] = list(steps)

    @property
    def connections_seen(self) -> int:
        """How many TCP connections the recorded requests came over (keep-alive reuses one for many)."""
        return len({r.peer for r in self.requests})

    def requests_for(self, model: str) -> list[RecordedRequest]:
        """The requests received for ``model``, oldest first."""
        return [r for r in self.requests if r.model == model]

    def _next_step(self, model: str) -> Step:
        steps = self._scripts.get(model)
        if not steps:
            return self._random_fault() or Step(latency_s=self._default_latency(), reply=self.default_reply)
        return steps.pop(0) if len(steps) > 1 else steps[0]

    def _default_latency(self) -> float:
        latency = self.default_latency_s
        return latency() if callable(latency) else latency

    def inject_random_faults(self, faults: RandomFaults) -> None:
        """From now on, answer unscripted requests with a random fault at these rates."""
        self.random_faults = faults
        self._fault_draw = random.Random(faults.seed)

    async def _image(self, request: web.Request) -> web.Response:
        """Serve an image registered with :meth:`serve_image` (how members fetch a linked image in tests)."""
        found = self.images.get(request.match_info["name"])
        if found is None:
            raise web.HTTPNotFound(text="no such image")
        content_type, body = found
        self.images_served.append(request.match_info["name"])
        return web.Response(body=body, headers={"Content-Type": content_type})

    def serve_image(self, name: str, body: bytes, content_type: str = "image/png") -> str:
        """Serve ``body`` at a URL on this fake (returned), as a web server holding a user's image would."""
        self.images[name] = (content_type, body)
        return f"{self.url}/_fake/image/{name}"

    async def _faults(self, request: web.Request) -> web.Response:  # a load test's other process reads it
        return web.json_response({str(status): count for status, count in sorted(self.faults_served.items())})

    def _random_fault(self) -> Step | None:
        faults = self.random_faults
        if faults is None:
            return None
        draw = self._fault_draw.random()
        if draw < faults.server_error_rate:
            status, headers = 500, {}
        elif draw < faults.server_error_rate + faults.rate_limit_rate:
            status, headers = 429, {"Retry-After": str(faults.retry_after_s)}
        else:
            return None
        self.faults_served[status] = self.faults_served.get(status, 0) + 1
        return Step(status=status, headers=headers, latency_s=self._default_latency(),
                    error_message=f"random fault {status}")

    # -- lifecycle ---------------------------------------------------------
    @property
    def url(self) -> str:
        """Root URL; :meth:`base_url` gives each wire format's ``base_url``."""
        return f"http://127.0.0.1:{self.port}"

    def base_url(self, provider: str) -> str:
        """The ``base_url`` a member of ``provider`` (openai, anthropic, gemini) uses to reach this fake."""
        return self.url + {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}[provider]

    def app(self) -> web.Application:
        """The aiohttp application (routes for all three APIs, and OpenAI's moderations)."""
        app = web.Application(client_max_size=64 * 1024 * 1024, middlewares=[self._count_in_flight])
        app.router.add_post("/v1/chat/completions", self._openai)
        app.router.add_post("/v1/moderations", functools.partial(serve_moderation, self))
        app.router.add_post("/v1/messages", self._anthropic)
        app.router.add_post("/v1beta/models/{target}", self._gemini)
        app.router.add_get("/_fake/faults", self._faults)
        app.router.add_get("/_fake/image/{name}", self._image)
        return app

    @web.middleware
    async def _count_in_flight(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return await handler(request)
        finally:
            self.in_flight -= 1

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> FakeLLMServer:
        """Listen on ``host:port`` (0 picks a free port)."""
        self._runner = web.AppRunner(self.app(), access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        """Release hanging handlers and stop listening."""
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeLLMServer:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # -- shared handling ---------------------------------------------------
    async def _record(self, request: web.Request, api: Api, model: str, body: dict[str, Any], stream: bool,
                      messages: list[dict[str, str]]) -> RecordedRequest:
        recorded = RecordedRequest(
            api=api, path=request.path_qs, model=model, headers=dict(request.headers), body=body,
            stream=stream, received_at=time.monotonic(), messages=messages,
            peer=request.transport.get_extra_info("peername") if request.transport is not None else None,
        )
        if self.record:
            self.requests.append(recorded)
        return recorded

    async def _prelude(self, step: Step) -> web.Response | None:
        """Latency, hang, error status or raw body: a response to send now, or None to go on."""
        if step.hang:
            await self._closing.wait()
            return web.Response(status=503, text="shutting down")
        if step.release is not None:
            waiters = [asyncio.ensure_future(step.release.wait()), asyncio.ensure_future(self._closing.wait())]
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()
            if not step.release.is_set():
                return web.Response(status=503, text="shutting down")
        if step.latency_s:
            with contextlib.suppress(TimeoutError):  # the latency passed without a shutdown
                await asyncio.wait_for(self._closing.wait(), timeout=step.latency_s)
        if step.body is not None:
            return web.Response(
                status=step.status, body=step.body, content_type=step.content_type, headers=step.headers
            )
        if step.status >= 400:
            payload = {"error": {"message": step.error_message, "type": "scripted_error", "code": step.status}}
            return web.json_response(payload, status=step.status, headers=step.headers)
        return None

    def _reply_text(self, step: Step, recorded: RecordedRequest) -> str:
        if step.reply is None and step.tool_calls:
            return ""  # a reply that only calls functions
        return step.reply(recorded) if callable(step.reply) else (
            step.reply if step.reply is not None else default_reply(recorded))

    async def _sse(
        self, request: web.Request, step: Step, events: list[bytes], terminal: list[bytes]
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        faulty = step.truncate_stream or step.abort_stream or step.stream_error is not None
        cut = max(1, len(events) // 2) if faulty else len(events)
        for event in events[:cut]:
            await response.write(event)
            if step.chunk_delay_s:
                await asyncio.sleep(step.chunk_delay_s)
        if step.abort_stream and request.transport is not None:
            request.transport.abort()
            return response
        if step.stream_error is not None:
            await response.write(step.stream_error.encode())
        if faulty:
            return response
        for event in terminal:
            await response.write(event)
        return response

    @staticmethod
    async def _json(request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except ValueError:
            raise web.HTTPBadRequest(text="invalid JSON") from None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(text="expected a JSON object")
        return body

    # -- OpenAI ------------------------------------------------------------
    async def _openai(self, request: web.Request) -> web.StreamResponse:
        body = await self._json(request)
        model = str(body.get("model", ""))
        messages = [{"role": m.get("role", ""), "content": _text(m.get("content"))} for m in body.get("messages", [])]
        recorded = await self._record(request, "openai", model, body, bool(body.get("stream")), messages)
        step = self._next_step(model)
        early = await self._prelude(step)
        if early is not None:
            return early
        text = self._reply_text(step, recorded)
        calls = step.tool_calls
        usage = {
            "prompt_tokens": sum(len(m["content"].split()) for m in messages),
            "completion_tokens": len(text.split()) + calls_words(calls),
        }
        usage.update(step.usage or {})
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        base = {"id": "chatcmpl-fake", "created": int(time.time()), "model": model}
        finish = "tool_calls" if calls else "stop"
        if not recorded.stream:
            message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": text} if step.refuse else \
                {"role": "assistant", "content": text or (None if calls else "")}
            if calls:
                message["tool_calls"] = openai_calls(calls)
            return web.json_response({
                **base, "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            })

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
            payload = {**base, "object": "chat.completion.chunk",
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
            return f"data: {json.dumps(payload)}\n\n".encode()

        said = "refusal" if step.refuse else "content"
        events = [chunk({"role": "assistant", "content": ""})]
        events += [chunk({said: w}) for w in _words(text) if w or not calls]
        events += [chunk(delta) for delta in openai_call_deltas(calls)]
        terminal = [chunk({}, finish)]
        if (body.get("stream_options") or {}).get("include_usage") and not step.omit_usage:
            usage_chunk = {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}
            terminal.append(f"data: {json.dumps(usage_chunk)}\n\n".encode())
        terminal.append(b"data: [DONE]\n\n")
        return await self._sse(request, step, events, terminal)

    # -- Anthropic ---------------------------------------------------------
    async def _anthropic(self, request: web.Request) -> web.StreamResponse:
        body = await self._json(request)
        model = str(body.get("model", ""))
        messages = []
        if body.get("system"):
            messages.append({"role": "system", "content": str(body["system"])})
        messages += [
            {"role": m.get("role", ""), "content": _text(m.get("content"))} for m in body.get("messages", [])
        ]
        recorded = await self._record(request, "anthropic", model, body, bool(body.get("stream")), messages)
        step = self._next_step(model)
        early = await self._prelude(step)
        if early is not None:
            return early
        text = self._reply_text(step, recorded)
        calls = step.tool_calls
        usage = {"input_tokens": sum(len(m["content"].split()) for m in messages),
                 "output_tokens": len(text.split()) + calls_words(calls)}
        stop = "tool_use" if calls else "refusal" if step.refuse else "end_turn"
        if not recorded.stream:
            texts = [{"type": "text", "text": text}] if text or not calls else []
            return web.json_response({
                "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
                "content": texts + anthropic_blocks(calls), "stop_reason": stop, "usage": usage,
            })

        def event(name: str, payload: dict[str, Any]) -> bytes:
            return f"event: {name}\ndata: {json.dumps({'type': name, **payload})}\n\n".encode()

        start = {"message": {"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": [],
                             "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1}}}
        events = [event("message_start", start)]
        if text or not calls:
            events += [event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
                       event("ping", {})]
            events += [event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": w}})
                       for w in _words(text)]
        terminal = [
            event("message_delta",
                  {"delta": {"stop_reason": stop}, "usage": {"output_tokens": usage["output_tokens"]}}),
            event("message_stop", {}),
        ]
        if calls:
            # Text (if any) ends before the calls start: a block each, its input as input_json_delta pieces.
            events += [event("content_block_stop", {"index": 0})] if text else []
            events += anthropic_call_events(calls, 1 if text else 0, event)
        else:
            terminal.insert(0, event("content_block_stop", {"index": 0}))
        return await self._sse(request, step, events, terminal)

    # -- Gemini ------------------------------------------------------------
    async def _gemini(self, request: web.Request) -> web.StreamResponse:
        model, _, action = request.match_info["target"].partition(":")
        if action not in ("generateContent", "streamGenerateContent"):
            raise web.HTTPNotFound(text=f"unknown action {action!r}")
        body = await self._json(request)
        messages = []
        system = body.get("systemInstruction")
        if system:
            messages.append({"role": "system", "content": "".join(p.get("text", "") for p in system.get("parts", []))})
        for content in body.get("contents", []):
            role = "assistant" if content.get("role") == "model" else "user"
            messages.append({"role": role, "content": "".join(p.get("text", "") for p in content.get("parts", []))})
        stream = action == "streamGenerateContent"
        recorded = await self._record(request, "gemini", model, body, stream, messages)
        step = self._next_step(model)
        early = await self._prelude(step)
        if early is not None:
            return early
        text = self._reply_text(step, recorded)
        calls = step.tool_calls
        usage = {"promptTokenCount": sum(len(m["content"].split()) for m in messages),
                 "candidatesTokenCount": len(text.split()) + calls_words(calls)}
        usage["totalTokenCount"] = usage["promptTokenCount"] + usage["candidatesTokenCount"]

        def response(parts_text: str | None, finish: str | None, with_usage: bool,
                     called: tuple[FakeCall, ...] = ()) -> dict[str, Any]:
            parts = ([{"text": parts_text}] if parts_text is not None else []) + gemini_parts(called)
            candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
            if finish:
                candidate["finishReason"] = finish
            payload: dict[str, Any] = {"candidates": [candidate], "modelVersion": model}
            if with_usage:
                payload["usageMetadata"] = usage
            return payload

        if not stream:
            return web.json_response(response(text if text or not calls else None, "STOP", True, calls))
        if calls:
            events = [f"data: {json.dumps(response(w, None, False))}\r\n\r\n".encode() for w in _words(text) if w]
            terminal = [f"data: {json.dumps(response(None, 'STOP', True, calls))}\r\n\r\n".encode()]
            return await self._sse(request, step, events, terminal)
        words = _words(text)
        events = [f"data: {json.dumps(response(w, None, False))}\r\n\r\n".encode() for w in words[:-1]]
        terminal = [f"data: {json.dumps(response(words[-1], 'STOP', True))}\r\n\r\n".encode()]
        return await self._sse(request, step, events, terminal)
