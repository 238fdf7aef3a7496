"""HTTP for every provider: one pooled session, SSE reading, size caps, and the one retry policy.

Knows endpoints and requests, never wire formats (that is
:mod:`council.providers`) and never councils. A provider talks to an
:class:`~council.transport.base.HttpTransport`: the aiohttp
:class:`~council.transport.http.Transport`, or the in-process
:class:`~council.transport.handler.HandlerTransport` a test hands a function.

Internal: its modules and names may change in any release; the public API is :mod:`council`
(which offers the handler transport's names).
"""

from council.transport.base import Endpoint, HttpRequest, HttpTransport, SSEEvent, SSEStream, parse_retry_after
from council.transport.handler import HandlerTransport, UpstreamRequest, UpstreamResponse
from council.transport.http import Transport
from council.transport.retry import backoff_delay, call_with_retry

__all__ = ["Endpoint", "HandlerTransport", "HttpRequest", "HttpTransport", "SSEEvent", "SSEStream", "Transport",
           "UpstreamRequest", "UpstreamResponse", "backoff_delay", "call_with_retry", "parse_retry_after"]
