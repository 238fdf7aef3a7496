"""``council serve``: the OpenAI-compatible API, the web page's API, and the HTTP hardening around them.

Handlers parse and refuse bad requests (:mod:`.schema`), admit runs through
one queue (:mod:`.admission`), and turn :class:`~council.Council` results and
events into OpenAI responses and SSE (:mod:`.wire`). The server never looks
inside a stage: it calls ``Council.ask`` like any caller.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.server.app import check_binding, create_app, run_server
from council.server.listen import client_key, connection_share, is_loopback_peer

__all__ = ["check_binding", "client_key", "connection_share", "create_app", "is_loopback_peer", "run_server"]
