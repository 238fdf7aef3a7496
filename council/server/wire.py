"""OpenAI response shapes: completion bodies, stream chunks and error events, as OpenAI's schema has them.

Typed clients deserialize into the types of OpenAI's published OpenAPI
description (``tests/data/openai/``): every choice of a whole completion
carries ``message.refusal`` and ``logprobs`` (null here), ``finish_reason``
is one of OpenAI's values, and a field Council has no value for is left out
rather than sent as a null the schema does not allow (``system_fingerprint``).
A member's own stop reason, when it had another word for it, rides along as
``choices[i].council.finish_reason``.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from aiohttp import web

from council.types import Usage


def usage_body(usage: Usage) -> dict[str, int]:
    """``usage`` as OpenAI writes it."""
    return {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
            "total_tokens": usage.total_tokens}


def finish_fields(finish_reason: str | None, upstream: str | None = None) -> dict[str, Any]:
    """A choice's ``finish_reason`` (one of OpenAI's), and the member's own word for it under ``council``."""
    fields: dict[str, Any] = {"finish_reason": finish_reason}
    if upstream is not None:
        fields["council"] = {"finish_reason": upstream}
    return fields


def completion_body(completion_id: str, created: int, model: str, content: str | None, finish_reason: str,
                    usage: Usage, extra: dict[str, Any] | None = None,
                    upstream_finish_reason: str | None = None,
                    tool_calls: list[dict[str, Any]] | None = None, refusal: str | None = None) -> dict[str, Any]:
    """A whole ``chat.completion`` object (``upstream_finish_reason``: the member's own, kept beside OpenAI's)."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body: dict[str, Any] = {
        "id": completion_id, "object": "chat.completion", "created": created, "model": model,
        "choices": [{"index": 0, "message": message,
                     "logprobs": None, **finish_fields(finish_reason, upstream_finish_reason)}],
        "usage": usage_body(usage),
    }
    if extra:
        body.update(extra)
    return body


def sse_event(payload: dict[str, Any]) -> bytes:
    """One ``data:`` event."""
    return b"data: " + json.dumps(payload, ensure_ascii=False).encode() + b"\n\n"


DONE_EVENT = b"data: [DONE]\n\n"


def error_event(message: str, type: str = "server_error", code: str | None = None) -> bytes:
    """An error after a stream started: ``data: {"error": {...}}``, OpenAI's ``ErrorResponse``.

    No ``event:`` line: OpenAI sends it so, the openai SDKs raise on a
    top-level ``error`` in any data event, and a browser ``EventSource``
    would not hand a named event to its message listener.
    """
    return sse_event({"error": {"message": message, "type": type, "param": None, "code": code}})


class ChunkWriter:
    """Writes one streamed completion: every chunk with the same id and created time."""

    def __init__(self, response: web.StreamResponse, completion_id: str, created: int, model: str,
                 include_usage: bool) -> None:
        self.response = response
        self.completion_id = completion_id
        self.created = created
        self.model = model
        self.include_usage = include_usage

    async def _send(self, payload: dict[str, Any]) -> None:
        await self.response.write(sse_event(payload))

    def _chunk(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        chunk: dict[str, Any] = {"id": self.completion_id, "object": "chat.completion.chunk", "created": self.created,
                                 "model": self.model, "choices": choices}
        if self.include_usage:
            chunk["usage"] = None
        return chunk

    async def delta(self, delta: dict[str, Any], finish_reason: str | None = None,
                    upstream_finish_reason: str | None = None) -> None:
        """One chunk carrying ``delta`` (the last one a ``finish_reason``, and maybe the member's own)."""
        await self._send(self._chunk([{"index": 0, "delta": delta,
                                       **finish_fields(finish_reason, upstream_finish_reason)}]))

    async def usage(self, usage: Usage) -> None:
        """The final usage chunk (``choices: []``), only when the client asked for it."""
        if self.include_usage:
            await self._send({**self._chunk([]), "usage": usage_body(usage)})

    async def error(self, message: str, type: str = "server_error", code: str | None = None) -> None:
        """An error after the stream started (:func:`error_event`); :meth:`done` follows it."""
        await self.response.write(error_event(message, type, code))

    async def keepalive(self) -> None:
        """A comment line that keeps proxies from closing an idle stream."""
        await self.response.write(b": keep-alive\n\n")

    async def done(self) -> None:
        """The ``[DONE]`` sentinel."""
        await self.response.write(DONE_EVENT)


async def end_cut_stream(response: web.StreamResponse) -> None:
    """End a stream whose handler was cancelled (the server shutting down) with an error event and [DONE].

    Called from the handler's ``except CancelledError``, which then returns
    the response rather than re-raise: a handler cancelled out of aiohttp
    leaves the chunked body unterminated, and clients then drop the whole
    stream, the error event with it. When the client has gone already there
    is nobody to tell, and nothing is.
    """
    with contextlib.suppress(Exception):
        await response.write(error_event("the server is shutting down and stopped this answer before it finished",
                                         "server_error", "shutting_down"))
        await response.write(DONE_EVENT)
        await response.write_eof()
