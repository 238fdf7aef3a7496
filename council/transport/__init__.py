"""HTTP for every provider: one pooled session, SSE reading, size caps, and the one retry policy.

Knows endpoints and requests, never wire formats (that is
:mod:`council.providers`) and never councils.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.transport.http import Endpoint, HttpRequest, SSEEvent, SSEStream, Transport, parse_retry_after
from council.transport.retry import backoff_delay, call_with_retry

__all__ = ["Endpoint", "HttpRequest", "SSEEvent", "SSEStream", "Transport", "backoff_delay", "call_with_retry",
           "parse_retry_after"]
