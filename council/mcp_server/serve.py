"""Running the MCP server: over stdio (what Claude Desktop and coding agents launch) or streamable HTTP.

HTTP follows ``council serve``'s rules: a non-loopback address needs API
keys (``$COUNCIL_API_KEYS``), sent as ``Authorization: Bearer KEY``, and
clients are held to its deadlines and connection cap (:mod:`.http_limits`).
"""

from __future__ import annotations

import hmac
import json
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from council.config import CouncilConfig, server_api_keys
from council.mcp_server.app import build_server
from council.mcp_server.failures import route_library_logs
from council.mcp_server.http_limits import BodyLimits, guarded_protocol
from council.mcp_server.stdio import run_screened_stdio
from council.pipeline import Council
from council.server import check_binding

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
MCP_PATH = "/mcp"


async def serve_stdio(config: CouncilConfig, environ: Mapping[str, str] | None = None) -> None:
    """Serve MCP on stdin/stdout until the client closes them (logs go to stderr, one line each)."""
    route_library_logs(config.logging.level)
    async with Council(config, environ=environ) as council:
        await run_screened_stdio(build_server(council))


async def serve_http(config: CouncilConfig, host: str, port: int, *, insecure_no_auth: bool = False,
                     environ: Mapping[str, str] | None = None) -> None:
    """Serve MCP's streamable HTTP transport at ``http://HOST:PORT/mcp`` until interrupted."""
    import uvicorn

    check_binding(config, host, insecure_no_auth, environ)
    route_library_logs(config.logging.level)
    keys = [key.get_secret_value() for key in server_api_keys(config, environ)]
    async with Council(config, environ=environ) as council:
        limits = config.server
        app: Any = build_server(council).streamable_http_app(streamable_http_path=MCP_PATH, host=host,
                                                             max_request_body_size=limits.max_body_bytes)
        app = BodyLimits(app, limits)
        if keys:  # outside the body limits: a client without a key is told so before its body is read
            app = BearerKeys(app, keys)
        server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", log_config=None,
                                               http=guarded_protocol(limits)))
        print(f"council: MCP on http://{host}:{port}{MCP_PATH} ({len(council.member_names)} members"
              f"{', API keys required' if keys else ''})", file=sys.stderr, flush=True)
        await server.serve()


class BearerKeys:
    """ASGI middleware: HTTP requests need ``Authorization: Bearer KEY`` with one of the keys; 401 otherwise."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], keys: list[str]) -> None:
        self.app = app
        self._keys = [key.encode() for key in keys]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            body = json.dumps({"error": "missing or wrong API key: send Authorization: Bearer KEY"}).encode()
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        header = dict(scope.get("headers") or []).get(b"authorization", b"")
        scheme, _, token = header.partition(b" ")
        # Compared with every key, in constant time each: which key matched, or how much, is not timed.
        return scheme.lower() == b"bearer" and any([hmac.compare_digest(token, key) for key in self._keys])
