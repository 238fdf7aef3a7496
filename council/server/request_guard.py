"""What keeps other web pages out of a server on this machine: JSON bodies only, known Host names only.

A page on any site the user visits can make the browser POST to
``http://127.0.0.1:8000`` with a ``text/plain``, form or multipart body
without asking first (no CORS preflight for those): if the server read such
a body as JSON, that page could start council runs on the user's credit
(CSRF). So every POST, PUT and PATCH must say ``Content-Type:
application/json`` (a ``charset`` parameter, if any, must be UTF-8), which
a browser sends cross-origin only after a preflight that
:class:`~council.server.guards.Cors` refuses. Anything else is a 415.

A page can also rebind its own name to 127.0.0.1 (DNS rebinding) and then
read the API as same-origin; the ``Host`` header still carries its name.
On a loopback bind only loopback names (``localhost``, ``127.0.0.1``,
``[::1]``, any port) and ``server.allowed_hosts`` are served; anything else
is a 421. A server bound beyond loopback is reached under many names and
needs API keys, so its Host is checked only when ``allowed_hosts`` is set.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.typedefs import Middleware

from council.config import ServerConfig
from council.server.schema import ApiError

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_UTF8 = ("utf-8", "utf8")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a bind address or a Host name) only reaches this machine."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def split_host(value: str) -> tuple[str, str | None]:
    """A Host header's name (lowercase, no trailing dot, IPv6 in brackets) and its port, if any."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value.partition("]")
        name += "]"
        port = rest.removeprefix(":") if rest.startswith(":") else None
    else:
        name, colon, port_text = value.rpartition(":")
        if not colon:
            name, port_text = value, ""
        port = port_text if colon else None
    return name.rstrip("."), port


def json_content_type_problem(content_type: str | None) -> str | None:
    """Why a body with this ``Content-Type`` is refused, or None when it is JSON (with at most a UTF-8 charset)."""
    if content_type is None or not content_type.strip():
        return "the request has no Content-Type"
    media, *params = (part.strip() for part in content_type.split(";"))
    if media.lower() != "application/json":
        return f"the request's Content-Type is {content_type[:100]!r}"
    for param in params:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip().strip('"').lower() not in _UTF8:
            return f"the request's Content-Type is {content_type[:100]!r}, and bodies are read as UTF-8"
    return None


class HostCheck:
    """Which ``Host`` values a server bound to ``bind_host`` answers (see the module docstring)."""

    def __init__(self, config: ServerConfig, bind_host: str) -> None:
        self.loopback_bind = is_loopback(bind_host)
        self.allowed = [split_host(entry) for entry in config.allowed_hosts]
        self.checked = self.loopback_bind or bool(self.allowed)

    def allows(self, host: str | None) -> bool:
        """Whether a request with this Host header is served (a request without one cannot come from a browser)."""
        if not self.checked or host is None:
            return True
        name, port = split_host(host)
        if self.loopback_bind and is_loopback(name):
            return True
        return any(name == allowed and (allowed_port is None or port == allowed_port)
                   for allowed, allowed_port in self.allowed)


def request_guard(config: ServerConfig, bind_host: str) -> Middleware:
    """The middleware: 421 for a Host this server does not answer to, 415 for a body that is not JSON."""
    hosts = HostCheck(config, bind_host)

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        host = request.headers.get("Host")
        if not hosts.allows(host):
            raise ApiError(421, f"this server does not answer to the host {(host or '')[:100]!r}; a reverse proxy's "
                                "name must be listed in server.allowed_hosts", code="misdirected_request")
        # An unknown route or method is answered as such (404, 405), whatever its body.
        if request.method in _BODY_METHODS and request.match_info.http_exception is None:
            problem = json_content_type_problem(request.headers.get("Content-Type"))
            if problem is not None:
                raise ApiError(415, f"{problem}; send the body as JSON with Content-Type: application/json",
                               code="unsupported_media_type")
        return await handler(request)

    return middleware
