"""What every transport shares: who is called, what is sent, what a transport offers, and how answers are read.

:class:`HttpTransport` is what a provider needs from a transport: a JSON
POST, an SSE stream, an image fetched. Two classes keep that promise: the
aiohttp :class:`~council.transport.http.Transport` and the in-process
:class:`~council.transport.handler.HandlerTransport` a test hands a
function. What they must agree on lives here so that they cannot drift: the
reading of SSE events (:class:`SSEStream`, over whatever delivers the body's
bytes), an error status as a typed error (:func:`status_error`) and a JSON
body as an object (:func:`json_object`).

It knows no sockets (that is :mod:`council.transport.http`), no wire format
and no retry.
"""

from __future__ import annotations

import email.utils
import json
import math
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from council.config import TransportConfig
from council.errors import ProtocolError, ProviderError, error_for_status
from council.logs import redact
from council.transport.upstream_text import redirect_message, scrub_secrets, summarise_body

ERROR_BODY_LIMIT = 64 * 1024
"""The most of an error answer's body that is read, for its message."""


@dataclass(frozen=True)
class Endpoint:
    """Who is being called, so every error can say so."""

    provider: str
    model: str
    member: str | None = None

    def error(self, cls: type[ProviderError], message: str, **kwargs: Any) -> ProviderError:
        """Build a typed error about this endpoint, with secrets (known, and what looks like one) scrubbed."""
        return cls(scrub_secrets(redact(message)), provider=self.provider, model=self.model, member=self.member,
                   **kwargs)


@dataclass(frozen=True)
class HttpRequest:
    """A JSON POST to an upstream API."""

    url: str
    json: Mapping[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SSEEvent:
    """One server-sent event: its ``event`` name (may be empty) and its ``data``."""

    event: str
    data: str


class BodySource(Protocol):
    """The bytes of one response body, as they arrive."""

    async def read(self) -> bytes:
        """The next bytes; ``b""`` at the end. A body that breaks off raises a typed ProviderError."""

    async def release(self, *, finished: bool) -> None:
        """Let go of the body: read to its end (``finished``), or abandoned mid-way."""


class SSEStream:
    """Reads server-sent events from an open response, with a size cap.

    ``next_event`` returns None at a clean end of stream. A connection that
    breaks off or goes silent raises a typed error (its :class:`BodySource`
    sees to that), never a bare aiohttp one.
    """

    def __init__(self, body: BodySource, endpoint: Endpoint, max_bytes: int) -> None:
        self._body = body
        self._endpoint = endpoint
        self._max_bytes = max_bytes
        self._received = 0
        self._lines: deque[bytes] = deque()
        self._partial = b""
        self._eof = False

    async def next_event(self) -> SSEEvent | None:
        """The next complete event, skipping comments and keep-alives."""
        event, data_lines = "", list[str]()
        while True:
            line = await self._next_line()
            if line is None:
                # An event with no blank line after it at end of stream still counts.
                return SSEEvent(event, "\n".join(data_lines)) if data_lines else None
            if not line:
                if data_lines:
                    return SSEEvent(event, "\n".join(data_lines))
                event = ""
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data_lines.append(value)
            elif name == "event":
                event = value

    async def _next_line(self) -> str | None:
        while not self._lines:
            if self._eof:
                if self._partial:
                    line, self._partial = self._partial, b""
                    return line.decode("utf-8", errors="replace").rstrip("\r")
                return None
            chunk = await self._read_chunk()
            if not chunk:
                self._eof = True
                continue
            parts = (self._partial + chunk).split(b"\n")
            self._partial = parts.pop()
            self._lines.extend(parts)
        return self._lines.popleft().decode("utf-8", errors="replace").rstrip("\r")

    async def _read_chunk(self) -> bytes:
        chunk = await self._body.read()
        self._received += len(chunk)
        if self._received > self._max_bytes:
            raise self._endpoint.error(ProtocolError, f"stream exceeds the {self._max_bytes}-byte cap")
        return chunk

    async def aclose(self) -> None:
        """Release the connection; one left mid-stream is closed, not pooled."""
        await self._body.release(finished=self._eof)


class HttpTransport(Protocol):
    """What providers (and the moderation client) need from a transport; see the module's docstring.

    A transport turns every failure into a typed
    :class:`~council.errors.ProviderError`; it does not retry.
    """

    config: TransportConfig

    async def post_json(self, request: HttpRequest, endpoint: Endpoint) -> dict[str, Any]:
        """POST JSON and return the decoded JSON object of a 2xx answer."""

    async def open_stream(self, request: HttpRequest, endpoint: Endpoint) -> SSEStream:
        """POST and return the open SSE stream of a 2xx answer. Close it when done."""

    async def get_bytes(self, url: str, endpoint: Endpoint, max_bytes: int) -> tuple[str, bytes]:
        """GET ``url`` (an image a user linked): its content type and body, at most ``max_bytes``."""


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or HTTP date).

    Returns None for a missing, negative, infinite or unreadable value.
    """
    raw_ms = headers.get("retry-after-ms")
    if raw_ms is not None:
        try:
            value = float(raw_ms) / 1000.0
            if math.isfinite(value) and value >= 0:
                return value
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when is None:
            return None
        value = when.timestamp() - time.time()
        return max(value, 0.0)
    return value if math.isfinite(value) and value >= 0 else None


def redirect_error(status: int, headers: Mapping[str, str], url: str, endpoint: Endpoint) -> ProviderError:
    """A 3xx answer to a call: never followed, since it could lead to an internal address."""
    return endpoint.error(ProtocolError, redirect_message(headers.get("location"), url), status=status)


def status_error(status: int, headers: Mapping[str, str], body: bytes, endpoint: Endpoint) -> ProviderError:
    """An error status (4xx, 5xx) as its typed error, with a summary of ``body`` and any ``Retry-After``.

    ``headers`` must look names up case-insensitively (aiohttp's do; a
    handler's are lower-cased).
    """
    message = summarise_body(body, headers.get("content-type", ""), cap=ERROR_BODY_LIMIT)
    return endpoint.error(error_for_status(status), message, status=status, retry_after_s=parse_retry_after(headers))


def json_object(body: bytes, content_type: str, endpoint: Endpoint) -> dict[str, Any]:
    """A 2xx body as the JSON object an API promises, or a ProtocolError saying what came instead."""
    try:
        data = json.loads(body)
    except ValueError:
        raise endpoint.error(ProtocolError, f"expected a JSON body, got {summarise_body(body, content_type)}") from None
    if not isinstance(data, dict):
        raise endpoint.error(ProtocolError, f"expected a JSON object, got a JSON {type(data).__name__}")
    return data
