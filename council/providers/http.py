"""Providers that reach their model over HTTP: a wire format plugged into the shared transport and retry.

A subclass only translates: messages and params into an
:class:`~council.transport.http.HttpRequest`, a JSON body into a
:class:`~council.providers.base.Reply`, and SSE events into text deltas
(:class:`StreamDecoder`). Sending, timing out, capping and retrying happen
in :mod:`council.transport.http` and :mod:`council.transport.retry`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from typing import Any, ClassVar

from pydantic import SecretStr

from council.config import MemberConfig, RetryPolicy
from council.errors import ProtocolError, ProviderTimeoutError
from council.providers.base import Provider, RelayEvents, Reply
from council.providers.images import with_inline_images
from council.providers.relay_reply import Piece, RelayStream, ToolReply
from council.providers.tool_request import ToolRequest, read_tool_request, with_fetched_images
from council.transport.http import Endpoint, HttpRequest, HttpTransport, SSEEvent, SSEStream, stray_cancellation
from council.transport.retry import call_with_retry
from council.types import ChatMessage, Completion, GenerationParams, Usage

CHARS_PER_TOKEN = 4  # a rough average for English text; only used when an upstream reports no usage


def estimated_usage(messages: list[ChatMessage], answer: str) -> Usage:
    """Token counts guessed from text length, marked ``estimated`` (a stream whose upstream sent no usage)."""
    prompt_chars = sum(len(message.content) for message in messages)
    return Usage(prompt_tokens=-(-prompt_chars // CHARS_PER_TOKEN),
                 completion_tokens=-(-len(answer) // CHARS_PER_TOKEN), estimated=True)


class StreamDecoder(ABC):
    """Turns one provider's SSE events into text deltas and a final reply."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.parts: list[str] = []
        self.finish_reason: str | None = None
        self.usage = Usage()
        self.model_version: str | None = None
        self.refused = False
        # complete: the answer is whole (a finish reason or end event was seen).
        # ended: the stream's own terminator arrived, so nothing more is read.
        self.complete = False
        self.ended = False

    @abstractmethod
    def feed(self, event: SSEEvent) -> str | None:
        """Digest one event; return new answer text, if it carried any."""

    def finish(self) -> Reply:
        """The reply once the stream has ended; a truncated stream is a ProtocolError."""
        if not self.complete:
            raise self.endpoint.error(ProtocolError, "the stream ended before the answer was complete")
        return Reply("".join(self.parts), self.finish_reason, self.usage, self.model_version, self.refused)

    def json_object(self, event: SSEEvent) -> dict[str, Any]:
        """The event's data as a JSON object; a ProtocolError naming the event when it is not one."""
        try:
            payload = json.loads(event.data)
        except ValueError:
            raise self.fail(f"invalid JSON in {event.event or 'stream'} event: {event.data[:120]!r}") from None
        if not isinstance(payload, dict):
            raise self.fail(f"{event.event or 'stream'} event is not a JSON object")
        return payload

    def fail(self, message: str) -> ProtocolError:
        """A ProtocolError about this stream."""
        return self.endpoint.error(ProtocolError, message)  # type: ignore[return-value]


def field(data: Any, *path: str | int, endpoint: Endpoint, kind: type | tuple[type, ...] = object) -> Any:
    """``data[path...]``, or a ProtocolError naming the missing or mistyped field."""
    current = data
    walked = ""
    for key in path:
        walked += f"[{key}]" if isinstance(key, int) else (f".{key}" if walked else str(key))
        try:
            current = current[key]
        except (KeyError, IndexError, TypeError):
            raise endpoint.error(ProtocolError, f"response is missing {walked}") from None
    if not isinstance(current, kind):
        raise endpoint.error(ProtocolError, f"response field {walked} has the wrong type ({type(current).__name__})")
    return current


class HttpProvider(Provider):
    """A member's model behind an HTTP API: requests built, sent with retries, answers parsed."""

    def __init__(
        self,
        member: MemberConfig,
        *,
        transport: HttpTransport,
        retry: RetryPolicy,
        deadline_s: float,
        api_key: SecretStr | None = None,
    ) -> None:
        super().__init__(member, retry=retry, deadline_s=deadline_s, api_key=api_key)
        self.transport = transport

    #: Whether this wire format wants image bytes inline (linked images are fetched first).
    inlines_images: ClassVar[bool] = False

    async def _with_images(self, messages: list[ChatMessage]) -> list[ChatMessage]:
        if not self.inlines_images:
            return messages
        return await with_inline_images(messages, self._transport(), self.endpoint,
                                        allow_private=self._transport().config.allow_private_image_urls)

    @abstractmethod
    def build_request(self, messages: list[ChatMessage], params: GenerationParams, *, stream: bool) -> HttpRequest:
        """The upstream request for these messages.

        Every set field of ``params`` lands in the request or, if this wire
        format cannot honour it, raises :class:`UnsupportedParamsError` (start
        with :meth:`check_params`); none is silently left out, except the
        :attr:`best_effort_params`.
        """

    @abstractmethod
    def parse_response(self, data: dict[str, Any]) -> Reply:
        """The reply inside a plain (non-streamed) JSON answer."""

    @abstractmethod
    def stream_decoder(self) -> StreamDecoder:
        """A fresh decoder for one streamed answer."""

    def _transport(self) -> HttpTransport:
        return self.transport

    # -- relaying a request that uses tools (see council.providers.tool_request) ------------------------
    def tool_request(self, request: ToolRequest, params: GenerationParams, *, stream: bool) -> HttpRequest:
        """The upstream request for a relayed request that uses tools, in this wire format's terms."""
        raise NotImplementedError(f"the {self.name} API has no tool translation")

    def tool_reply(self, data: dict[str, Any]) -> ToolReply:
        """A whole answer to a :meth:`tool_request`, its calls included."""
        raise NotImplementedError(f"the {self.name} API has no tool translation")

    def tool_stream(self, sse: SSEStream) -> AsyncIterator[Piece]:
        """A streamed answer to a :meth:`tool_request` as pieces (text, calls, the end)."""
        raise NotImplementedError(f"the {self.name} API has no tool translation")

    async def _tool_request(self, body: dict[str, Any], params: GenerationParams | None, *,
                            stream: bool) -> HttpRequest:
        request = await with_fetched_images(read_tool_request(body), self._with_images)
        return self.tool_request(request, self.member.params.merged(params), stream=stream)

    async def relay(self, body: dict[str, Any], params: GenerationParams | None = None
                    ) -> tuple[dict[str, Any], Usage | None]:
        upstream = await self._tool_request(body, params, stream=False)
        transport = self._transport()

        async def attempt() -> ToolReply:
            return self.tool_reply(await transport.post_json(upstream, self.endpoint))

        reply, _attempts = await call_with_retry(attempt, policy=self.retry, deadline_s=self.deadline_s,
                                                 endpoint=self.endpoint)
        return reply.completion(), reply.usage if reply.usage.total_tokens else None

    async def open_relay(self, body: dict[str, Any], params: GenerationParams | None = None) -> RelayEvents:
        upstream = await self._tool_request(body, params, stream=True)
        transport = self._transport()
        sse, _attempts = await call_with_retry(lambda: transport.open_stream(upstream, self.endpoint),
                                               policy=self.retry, deadline_s=self.deadline_s, endpoint=self.endpoint)
        return RelayStream(self.tool_stream(sse), self.member.model, close=sse.aclose)

    async def complete(self, messages: list[ChatMessage], params: GenerationParams | None = None) -> Completion:
        """Ask for a whole answer, retrying as the policy allows."""
        started = time.perf_counter()
        request = self.build_request(await self._with_images(messages), self.member.params.merged(params),
                                     stream=False)
        transport = self._transport()

        async def attempt() -> Reply:
            # Parsing happens inside the attempt: a gateway's error object in a 200 is as retryable as a 502.
            return self.parse_response(await transport.post_json(request, self.endpoint))

        try:
            reply, attempts = await call_with_retry(
                attempt, policy=self.retry, deadline_s=self.deadline_s, endpoint=self.endpoint
            )
        except asyncio.CancelledError:
            stray = stray_cancellation(self.endpoint)
            if stray is None:
                raise
            raise stray from None
        return self._completion(reply, started, attempts)

    def stream(self, messages: list[ChatMessage], params: GenerationParams | None = None) -> ChatStream:
        """Stream an answer: iterate for text deltas, then read ``.completion``."""
        return ChatStream(self, messages, self.member.params.merged(params))


class ChatStream:
    """An answer arriving as text deltas.

    Opening the stream is retried like any call; once the first event has been
    read it never is, since a caller may already have used the text. The call
    deadline covers the whole stream. Use ``async with`` (or read to the end)
    so the connection is released.
    """

    def __init__(self, provider: HttpProvider, messages: list[ChatMessage], params: GenerationParams) -> None:
        self._provider = provider
        self._messages = messages
        self._params = params
        self._sse: SSEStream | None = None
        self._decoder = provider.stream_decoder()
        self._started = time.perf_counter()
        self._deadline: float | None = None
        self._attempts = 0
        self._closed = False
        self.completion: Completion | None = None

    async def __aenter__(self) -> ChatStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._deltas()

    async def _open(self) -> SSEStream:
        provider = self._provider
        self._deadline = asyncio.get_running_loop().time() + provider.deadline_s
        request = provider.build_request(await provider._with_images(self._messages), self._params, stream=True)
        transport = provider._transport()
        sse, self._attempts = await call_with_retry(
            lambda: transport.open_stream(request, provider.endpoint),
            policy=provider.retry,
            deadline_s=provider.deadline_s,
            endpoint=provider.endpoint,
        )
        return sse

    async def _deltas(self) -> AsyncIterator[str]:
        try:
            self._sse = await self._open()
            while True:
                event = await self._next_event()
                if event is None:
                    break
                delta = self._decoder.feed(event)
                if delta:
                    yield delta
                if self._decoder.ended:
                    break
            reply = self._decoder.finish()
            if not reply.usage.total_tokens and reply.usage.cost_usd is None:
                reply = dataclasses.replace(reply, usage=estimated_usage(self._messages, reply.content))
            self.completion = self._provider._completion(reply, self._started, self._attempts)
        except asyncio.CancelledError:
            stray = stray_cancellation(self._provider.endpoint)
            if stray is None:
                raise
            raise stray from None
        finally:
            await self.aclose()

    async def _next_event(self) -> SSEEvent | None:
        assert self._sse is not None and self._deadline is not None
        try:
            async with asyncio.timeout_at(self._deadline):
                return await self._sse.next_event()
        except TimeoutError:
            raise self._provider.endpoint.error(
                ProviderTimeoutError, f"stream not finished within the call deadline of {self._provider.deadline_s:g}s"
            ) from None

    async def aclose(self) -> None:
        """Release the connection (idempotent)."""
        if not self._closed and self._sse is not None:
            self._closed = True
            await self._sse.aclose()

    async def collect(self) -> Completion:
        """Read the whole stream and return the finished completion."""
        async for _ in self:
            pass
        assert self.completion is not None
        return self.completion


__all__ = ["ChatStream", "HttpProvider", "StreamDecoder", "field"]
