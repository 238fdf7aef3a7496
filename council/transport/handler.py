"""A transport that hands every request to a Python function: upstream APIs played in-process, for tests.

In the spirit of httpx's ``MockTransport``: :class:`HandlerTransport` calls
the handler it is given (sync or async) with an :class:`UpstreamRequest`
and reads back an :class:`UpstreamResponse` (or a dict, a JSON answer
with status 200), through the same status mapping, JSON reading, SSE
parsing and size caps as the aiohttp transport (:mod:`council.transport.base`).
So a member configured for OpenAI, Anthropic or Gemini runs its real wire
format against a function, with no socket.

It knows no wire format and no council: what the handler answers is the
test's business.
"""

from __future__ import annotations

import inspect
import json as jsonlib
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from council.config import TransportConfig
from council.errors import (
    BadUpstreamRequestError,
    ProtocolError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
)
from council.transport.base import (
    ERROR_BODY_LIMIT,
    Endpoint,
    HttpRequest,
    SSEStream,
    json_object,
    redirect_error,
    status_error,
)

SSEItem = Mapping[str, Any] | str | tuple[str, Mapping[str, Any] | str]
"""One event for :meth:`UpstreamResponse.sse`: JSON data, raw data, or ``(event name, data)``."""


@dataclass(frozen=True)
class UpstreamRequest:
    """What a provider sent: the method, the URL, the headers and the JSON body (None for a GET).

    The body is what would go over the wire (it has been through JSON), and
    the headers carry the member's real API key header, if it has a key.
    """

    method: str
    url: str
    headers: Mapping[str, str]
    json: Any

    @property
    def path(self) -> str:
        """The URL's path, for routing (``/v1/chat/completions``)."""
        return urlsplit(self.url).path


@dataclass(frozen=True)
class UpstreamResponse:
    """What the handler answers: a status and headers, and a JSON value, a raw body, or SSE lines.

    Give at most one of ``json``, ``body`` and ``lines``. ``lines`` (sync or
    async iterable, each line without its newline) is streamed as it is
    iterated; an exception raised while iterating breaks the stream off
    (:meth:`sse` writes the lines for you).
    """

    status: int = 200
    json: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes | str | None = None
    lines: Iterable[str] | AsyncIterable[str] | None = None

    def __post_init__(self) -> None:
        given = [name for name in ("json", "body", "lines") if getattr(self, name) is not None]
        if len(given) > 1:
            raise ValueError(f"an UpstreamResponse has one body: give json, body or lines, not {' and '.join(given)}")

    @classmethod
    def sse(cls, events: Iterable[SSEItem], *, status: int = 200,
            headers: Mapping[str, str] | None = None) -> UpstreamResponse:
        """A server-sent event stream: a dict is sent as JSON data, a string as it is (``"[DONE]"``)."""
        lines: list[str] = []
        for item in events:
            name, data = item if isinstance(item, tuple) else ("", item)
            if name:
                lines.append(f"event: {name}")
            lines += [f"data: {data if isinstance(data, str) else jsonlib.dumps(data)}", ""]
        return cls(status=status, headers=headers or {}, lines=lines)

    def header_map(self) -> dict[str, str]:
        """The headers, names lower-cased (as the status mapping looks them up), with a content type."""
        found = {name.lower(): value for name, value in self.headers.items()}
        kind = "text/event-stream" if self.lines is not None else "application/json" if self.json is not None \
            else "text/plain"
        found.setdefault("content-type", kind)
        return found


Answer = UpstreamResponse | Mapping[str, Any]
Handler = Callable[[UpstreamRequest], Answer | Awaitable[Answer]]
"""Answers one request, sync or async: an :class:`UpstreamResponse`, or a dict for a 200 JSON answer."""


class _Body:
    """A response's body as an SSE stream reads it; a handler's stream that raises has broken off."""

    def __init__(self, response: UpstreamResponse, endpoint: Endpoint) -> None:
        self._endpoint = endpoint
        self._lines: AsyncIterator[str] | None = None
        self._whole: bytes | None = None
        if response.lines is not None:
            self._lines = _aiter(response.lines)
        elif response.json is not None:
            self._whole = jsonlib.dumps(response.json).encode()
        else:
            self._whole = response.body.encode() if isinstance(response.body, str) else (response.body or b"")

    async def read(self) -> bytes:
        if self._lines is None:
            whole, self._whole = self._whole or b"", b""
            return whole
        try:
            line = await anext(self._lines)
        except StopAsyncIteration:
            return b""
        except ProviderError:
            raise
        except TimeoutError:
            raise self._endpoint.error(ProviderTimeoutError, "the stream went silent") from None
        except Exception as exc:
            raise self._endpoint.error(ProtocolError, f"the stream broke off: {type(exc).__name__}: {exc}") from exc
        return (line if line.endswith("\n") else line + "\n").encode()

    async def head(self, limit: int) -> bytes:
        """The body, read until its end or until more than ``limit`` bytes have come (then cut there)."""
        chunks, size = [], 0
        while size <= limit and (chunk := await self.read()):
            size += len(chunk)
            chunks.append(chunk)
        return b"".join(chunks)[: limit + 1]

    async def read_all(self, limit: int) -> bytes:
        """The whole body, or a ProtocolError when it is more than ``limit`` bytes."""
        body = await self.head(limit)
        if len(body) > limit:
            raise self._endpoint.error(ProtocolError, f"response exceeds the {limit}-byte cap")
        return body

    async def release(self, *, finished: bool) -> None:
        closing = getattr(self._lines, "aclose", None)
        if not finished and closing is not None:
            await closing()


async def _aiter(lines: Iterable[str] | AsyncIterable[str]) -> AsyncIterator[str]:
    if isinstance(lines, AsyncIterable):
        async for line in lines:
            yield line
    else:
        for line in lines:
            yield line


class HandlerTransport:
    """A transport whose upstream is ``handler``: every request is handed to it, and its answer read back.

    Like a real upstream's failures, a handler that raises ``TimeoutError``
    is a timeout, one that raises ``OSError`` (``ConnectionResetError``) a
    connection failure (both retried by the retry policy), and any other
    exception a failed call that is not retried; a ProviderError it raises
    goes through as it is. Every request is kept in :attr:`requests`.
    """

    def __init__(self, handler: Handler, config: TransportConfig | None = None) -> None:
        self.handler = handler
        self.config = config or TransportConfig()
        self.requests: list[UpstreamRequest] = []
        self._closed = False

    async def __aenter__(self) -> HandlerTransport:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Refuse every later call, as a closed aiohttp transport does."""
        self._closed = True

    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` was called."""
        return self._closed

    async def post_json(self, request: HttpRequest, endpoint: Endpoint) -> dict[str, Any]:
        """Hand the POST to the handler; the decoded JSON object of a 2xx answer."""
        response = await self._exchange("POST", request.url, request.headers, request.json, endpoint)
        await self._raise_for_status(response, request.url, endpoint)
        body = await _Body(response, endpoint).read_all(self.config.max_response_bytes)
        return json_object(body, response.header_map()["content-type"], endpoint)

    async def open_stream(self, request: HttpRequest, endpoint: Endpoint) -> SSEStream:
        """Hand the POST to the handler; the SSE stream of a 2xx answer."""
        response = await self._exchange("POST", request.url, request.headers, request.json, endpoint)
        await self._raise_for_status(response, request.url, endpoint)
        return SSEStream(_Body(response, endpoint), endpoint, self.config.max_response_bytes)

    async def get_bytes(self, url: str, endpoint: Endpoint, max_bytes: int) -> tuple[str, bytes]:
        """Hand the GET (an image a user linked) to the handler; its content type and body."""
        response = await self._exchange("GET", url, {}, None, endpoint)
        if 300 <= response.status < 400:
            raise endpoint.error(BadUpstreamRequestError, f"the image at {url} redirects (HTTP {response.status}); "
                                                          "redirects are not followed: link the image itself")
        await self._raise_for_status(response, url, endpoint)
        body = await _Body(response, endpoint).head(max_bytes)
        if len(body) > max_bytes:
            raise endpoint.error(BadUpstreamRequestError, f"the image at {url} is more than {max_bytes} bytes")
        return response.header_map()["content-type"].split(";")[0].strip(), body

    async def _exchange(self, method: str, url: str, headers: Mapping[str, str], body: Mapping[str, Any] | None,
                        endpoint: Endpoint) -> UpstreamResponse:
        if self._closed:
            raise endpoint.error(ProviderConnectionError, "the transport was closed while this call was running",
                                 retryable=False)
        # Through JSON, as aiohttp would send it: the handler sees lists where the request held tuples.
        sent = UpstreamRequest(method, url, dict(headers), None if body is None else jsonlib.loads(jsonlib.dumps(body)))
        self.requests.append(sent)
        try:
            answer = self.handler(sent)
            if inspect.isawaitable(answer):
                answer = await answer
        except ProviderError:
            raise
        except TimeoutError:
            raise endpoint.error(ProviderTimeoutError, "no response before the handler's timeout") from None
        except OSError as exc:
            raise endpoint.error(ProviderConnectionError, f"connection failed: {type(exc).__name__}: {exc}") from exc
        except Exception as exc:
            raise endpoint.error(ProviderError, f"the transport's handler raised {type(exc).__name__}: {exc}") from exc
        if isinstance(answer, UpstreamResponse):
            return answer
        if isinstance(answer, Mapping):
            return UpstreamResponse(json=dict(answer))
        raise endpoint.error(ProviderError, f"the transport's handler returned a {type(answer).__name__}, not an "
                                            "UpstreamResponse or a dict")

    @staticmethod
    async def _raise_for_status(response: UpstreamResponse, url: str, endpoint: Endpoint) -> None:
        if response.status < 300:
            return
        headers = response.header_map()
        if response.status < 400:
            raise redirect_error(response.status, headers, url, endpoint)
        body = await _Body(response, endpoint).head(ERROR_BODY_LIMIT)
        raise status_error(response.status, headers, body[:ERROR_BODY_LIMIT], endpoint)


__all__ = ["Handler", "HandlerTransport", "SSEItem", "UpstreamRequest", "UpstreamResponse"]
