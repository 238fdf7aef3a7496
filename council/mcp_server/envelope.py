"""The JSON-RPC envelope: what the MCP server answers outside any request, and messages the SDK would misread.

A refusal at the HTTP level (too many connections, a body too late or too
large) answers no particular request: it is a JSON-RPC error with
``id: null``, as the MCP SDK words its own HTTP-level refusals, so a client
can show its message.

The SDK reads a request whose ``id`` is not a string or a whole number
(an object, a list, ``true``, ``1.5``) as a notification, since a
notification is a request without an id and extra fields are ignored: it is
never answered, and the client waits forever. Over stdio it also drops a
line that is not JSON, or not an object, or that holds an unpaired
surrogate (``"\\ud800"`` alone: its JSON reader refuses what is not
Unicode), without a word. Each of those is
answered here, before the SDK reads it, with the error the JSON-RPC
specification gives (``-32700`` parse error, ``-32600`` invalid request),
naming what is wrong, with the request's id when it sent a usable one and
``id: null`` otherwise.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp_types import INVALID_REQUEST, PARSE_ERROR

_SHOWN = 40  # characters of a rejected id quoted back
_SURROGATE = re.compile("[\ud800-\udfff]")


def rpc_error(code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error response that answers no particular request (``id: null``)."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}


def envelope_error(raw: str | bytes) -> dict[str, Any] | None:
    """The error response for a message the SDK would misread or drop; None for one it reads as sent."""
    if (depth := nesting_depth(raw)) > MAX_DEPTH:
        # The SDK's parser and models recurse: deeper than this, they crash instead of answering.
        return rpc_error(PARSE_ERROR, f"the message is nested {depth} levels deep; at most {MAX_DEPTH} are read")
    try:
        message = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return rpc_error(PARSE_ERROR, "the message is not valid JSON")
    if isinstance(message, list):
        return rpc_error(INVALID_REQUEST, "a batch (a JSON array) is not supported: send one message at a time")
    if not isinstance(message, dict):
        return rpc_error(INVALID_REQUEST, "the message must be a JSON-RPC object, got " + _shown(message))
    if "method" in message and "id" in message and not _usable_id(message["id"]):
        return rpc_error(INVALID_REQUEST, "id: must be a string or a whole number, got " + _shown(message["id"]))
    # The parser joins a surrogate pair into one character: a code point left in the surrogate range was alone.
    if _SURROGATE.search(json.dumps(message, ensure_ascii=False)):
        answer = rpc_error(INVALID_REQUEST, "the message holds an unpaired surrogate (an escape such as \\ud800 "
                                            "without its pair): text must be valid Unicode")
        if _usable_id(message.get("id")):
            answer["id"] = message["id"]
        return answer
    return None


#: How deeply a message's JSON may nest (MCP messages need a handful of levels; tool arguments a few more).
MAX_DEPTH = 64


def nesting_depth(raw: str | bytes) -> int:
    """How deeply the arrays and objects in a JSON text nest, read without parsing (strings skipped)."""
    data = raw.encode() if isinstance(raw, str) else raw
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


def _usable_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."
