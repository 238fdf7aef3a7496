"""The HTTP layer every provider shares: one pooled aiohttp session per process.

This module sends requests, caps response sizes, reads SSE streams and turns
every low-level failure into a typed :class:`~council.errors.ProviderError`.
It does not retry (that is :mod:`council.transport.retry`) and knows no wire format
(that is :mod:`council.providers`). What it shares with the in-process
:mod:`council.transport.handler` (SSE reading, status mapping) is in
:mod:`council.transport.base`; the names providers have always imported
from here (``Endpoint``, ``HttpRequest``, ``SSEEvent``, ...) still import.
"""

from __future__ import annotations

import asyncio
import ssl
from typing import Any

import aiohttp

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
    HttpTransport,
    SSEEvent,
    SSEStream,
    json_object,
    parse_retry_after,
    redirect_error,
    status_error,
)

#: The connection limits of a transport made without a council to size it (aiohttp's own default total).
UNSIZED_CALLS_AT_ONCE = 100


class Transport:
    """One pooled HTTP client for all providers of a process: the :class:`HttpTransport` of real runs.

    Create it once, share it, and close it with :meth:`aclose` (or ``async with``).
    The session itself is made lazily on first use, inside the running loop.
    """

    def __init__(self, config: TransportConfig | None = None) -> None:
        self.config = config or TransportConfig()
        self._session: aiohttp.ClientSession | None = None
        self._closed = False
        self._ssl = ssl.create_default_context()

    async def __aenter__(self) -> Transport:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def session(self) -> aiohttp.ClientSession:
        """The shared session, created on first use.

        A closed transport stays closed: calls still running when it closed
        (their retries included) fail with a typed error instead of quietly
        opening a new session that nobody would close. A new transport is the
        way to start again (:class:`~council.pipeline.orchestrator.Council` does that).
        """
        if self._closed:
            raise RuntimeError("Session is closed")
        if self._session is None:
            # A council sizes its pool for its runs (CouncilConfig.transport_for); a transport made on its own,
            # with no runs to size it for, takes aiohttp's own default for the limits left unset.
            total, per_host = self.config.connection_limits(UNSIZED_CALLS_AT_ONCE)
            connector = aiohttp.TCPConnector(
                limit=total,
                limit_per_host=per_host,
                ssl=self._ssl,
                ttl_dns_cache=300,
            )
            timeout = aiohttp.ClientTimeout(
                total=None,
                sock_connect=self.config.connect_timeout_s,
                sock_read=self.config.read_idle_timeout_s,
            )
            self._session = aiohttp.ClientSession(connector=connector, timeout=timeout, raise_for_status=False)
        return self._session

    async def aclose(self) -> None:
        """Close the session and its pooled connections, for good."""
        self._closed = True
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` was called."""
        return self._closed

    async def post_json(self, request: HttpRequest, endpoint: Endpoint) -> dict[str, Any]:
        """POST JSON and return the decoded JSON object of a 2xx answer."""
        async with self._send(request, endpoint) as response:
            await self._raise_for_status(response, endpoint)
            body = await self._read_capped(response, endpoint)
        return json_object(body, response.headers.get("content-type", ""), endpoint)

    async def open_stream(self, request: HttpRequest, endpoint: Endpoint) -> SSEStream:
        """POST and return the open SSE stream of a 2xx answer. Close it when done."""
        context = self._send(request, endpoint)
        response = await context.__aenter__()
        try:
            await self._raise_for_status(response, endpoint)
        except BaseException:
            await context.__aexit__(None, None, None)
            raise
        return SSEStream(_ResponseBody(response, endpoint), endpoint, self.config.max_response_bytes)

    async def get_bytes(self, url: str, endpoint: Endpoint, max_bytes: int) -> tuple[str, bytes]:
        """GET ``url`` (an image a user linked): its content type and body, at most ``max_bytes``."""
        if self._closed:
            raise endpoint.error(ProviderConnectionError, "the HTTP session was closed while this call was running",
                                 retryable=False)
        try:
            # Redirects are not followed: one could lead past the address check to a private host.
            async with self.session().get(url, allow_redirects=False) as response:
                if 300 <= response.status < 400:
                    raise endpoint.error(BadUpstreamRequestError,
                                         f"the image at {url} redirects (HTTP {response.status}); "
                                         "redirects are not followed: link the image itself")
                await self._raise_for_status(response, endpoint)
                if response.content_length is not None and response.content_length > max_bytes:
                    raise endpoint.error(BadUpstreamRequestError, f"the image at {url} is {response.content_length} "
                                                             f"bytes, more than {max_bytes}")
                body = await response.content.read(max_bytes + 1)
                if len(body) > max_bytes:
                    raise endpoint.error(BadUpstreamRequestError, f"the image at {url} is more than {max_bytes} bytes")
                return response.headers.get("content-type", "").split(";")[0].strip(), body
        except aiohttp.InvalidURL:
            raise endpoint.error(BadUpstreamRequestError, f"invalid image URL {url!r}") from None
        except TimeoutError:
            raise endpoint.error(ProviderTimeoutError, f"no answer from {url} before the socket timeout") from None
        except (aiohttp.ClientError, OSError) as exc:
            raise endpoint.error(ProviderConnectionError, f"fetching {url} failed: {type(exc).__name__}: {exc}",
                                 retryable=False) from None

    def _send(self, request: HttpRequest, endpoint: Endpoint) -> _Send:
        if self._closed:
            # Not retried: the session will not come back for this call.
            raise endpoint.error(ProviderConnectionError, "the HTTP session was closed while this call was running",
                                 retryable=False)
        return _Send(self.session(), request, endpoint)

    async def _raise_for_status(self, response: aiohttp.ClientResponse, endpoint: Endpoint) -> None:
        if response.status < 300:
            return
        if response.status < 400:
            raise redirect_error(response.status, response.headers, str(response.url), endpoint)
        try:
            body = await response.content.read(ERROR_BODY_LIMIT)
        except (TimeoutError, aiohttp.ClientError):
            body = b""
        raise status_error(response.status, response.headers, body, endpoint)

    async def _read_capped(self, response: aiohttp.ClientResponse, endpoint: Endpoint) -> bytes:
        limit = self.config.max_response_bytes
        if response.content_length is not None and response.content_length > limit:
            raise endpoint.error(
                ProtocolError, f"response of {response.content_length} bytes exceeds the {limit}-byte cap"
            )
        chunks: list[bytes] = []
        size = 0
        try:
            async for chunk in response.content.iter_chunked(64 * 1024):
                size += len(chunk)
                if size > limit:
                    raise endpoint.error(ProtocolError, f"response exceeds the {limit}-byte cap")
                chunks.append(chunk)
        except aiohttp.ClientPayloadError as exc:
            raise endpoint.error(ProtocolError, f"the response body broke off: {exc}") from None
        except TimeoutError:
            raise endpoint.error(ProviderTimeoutError, "the upstream went silent mid-response") from None
        return b"".join(chunks)


def stray_cancellation(endpoint: Endpoint) -> ProviderError | None:
    """A typed error for a cancellation that did not come from the caller, or None when it did.

    aiohttp cancels calls waiting for a pooled connection when its connector
    closes; such a ``CancelledError`` reaches a caller that never cancelled
    anything. The task's ``cancelling()`` count tells the two apart: it is
    raised only by ``Task.cancel()``, which is what a real cancellation uses.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        return None
    return endpoint.error(ProviderConnectionError, "the call was cancelled from below (its HTTP connection pool "
                                                   "closed), not by its caller", retryable=False)


class _Send:
    """``async with`` around one request that maps aiohttp failures to typed errors."""

    def __init__(self, session: aiohttp.ClientSession, request: HttpRequest, endpoint: Endpoint) -> None:
        self._session = session
        self._request = request
        self._endpoint = endpoint
        self._response: aiohttp.ClientResponse | None = None

    async def __aenter__(self) -> aiohttp.ClientResponse:
        endpoint = self._endpoint
        try:
            self._response = await self._session.post(
                self._request.url, json=self._request.json, headers=dict(self._request.headers), allow_redirects=False
            )
        except aiohttp.InvalidURL:
            raise endpoint.error(BadUpstreamRequestError, f"invalid URL {self._request.url!r}") from None
        except RuntimeError as exc:
            if not self._session.closed:
                raise
            raise endpoint.error(ProviderConnectionError, "the HTTP session was closed before this call",
                                 retryable=False) from exc
        except TimeoutError:
            raise endpoint.error(ProviderTimeoutError, "no response before the socket timeout") from None
        except aiohttp.ClientResponseError as exc:
            raise endpoint.error(ProtocolError, f"malformed HTTP response: {exc.message}") from None
        except (aiohttp.ClientError, OSError) as exc:
            raise endpoint.error(ProviderConnectionError, f"connection failed: {type(exc).__name__}: {exc}") from None
        return self._response

    async def __aexit__(self, *exc_info: object) -> None:
        if self._response is not None:
            self._response.release()


class _ResponseBody:
    """An aiohttp response's body as an SSE stream reads it, its failures typed."""

    def __init__(self, response: aiohttp.ClientResponse, endpoint: Endpoint) -> None:
        self._response = response
        self._endpoint = endpoint

    async def read(self) -> bytes:
        try:
            return await self._response.content.readany()
        except aiohttp.ClientPayloadError as exc:
            raise self._endpoint.error(ProtocolError, f"the stream broke off: {exc}") from None
        except TimeoutError:
            raise self._endpoint.error(ProviderTimeoutError, "the stream went silent") from None
        except (aiohttp.ClientError, OSError) as exc:
            raise self._endpoint.error(ProtocolError, f"the stream broke off: {type(exc).__name__}") from None

    async def release(self, *, finished: bool) -> None:
        # A connection left mid-stream still has bytes coming: it cannot go back to the pool.
        if finished:
            self._response.release()
        else:
            self._response.close()


__all__ = ["UNSIZED_CALLS_AT_ONCE", "Endpoint", "HttpRequest", "HttpTransport", "SSEEvent", "SSEStream", "Transport",
           "parse_retry_after", "stray_cancellation"]
