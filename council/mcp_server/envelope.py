"""The JSON-RPC envelope of what the MCP server answers outside any request.

A refusal at the HTTP level (too many connections, a body too late or too
large) answers no particular request: it is a JSON-RPC error with
``id: null``, as the MCP SDK words its own HTTP-level refusals, so a client
can show its message.
"""

from __future__ import annotations

from typing import Any


def rpc_error(code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error response that answers no particular request (``id: null``)."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
