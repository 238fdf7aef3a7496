"""The council as a Model Context Protocol server (``council mcp``), on the official ``mcp`` SDK.

:mod:`.app` builds the tools and resources around an open
:class:`~council.Council`, and :mod:`.prompts` the prompts; :mod:`.results`
cuts results down to what a calling model needs; :mod:`.failures` words
what went wrong for the caller and logs it in one line; :mod:`.serve` runs
it over stdio (:mod:`.stdio`) or streamable HTTP (:mod:`.http_limits` holds
clients to ``council serve``'s limits); :mod:`.envelope` answers messages
the SDK would misread.
Knows the council's public API (and `council serve`'s binding rule), nothing of its stages or storage.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.mcp_server.app import build_server
from council.mcp_server.serve import serve_http, serve_stdio

__all__ = ["build_server", "serve_http", "serve_stdio"]
