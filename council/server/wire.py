"""OpenAI response shapes: completion bodies, stream chunks, and stage progress text."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from council.types import Usage


def usage_body(usage: Usage) -> dict[str, int]:
    """``usage`` as OpenAI writes it."""
    return {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
            "total_tokens": usage.total_tokens}


def completion_body(completion_id: str, created: int, model: str, content: str, finish_reason: str,
                    usage: Usage, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A whole ``chat.completion`` object."""
    body: dict[str, Any] = {
        "id": completion_id, "object": "chat.completion", "created": created, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": finish_reason, "logprobs": None}],
        "usage": usage_body(usage), "system_fingerprint": None,
    }
    if extra:
        body.update(extra)
    return body


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
        await self.response.write(b"data: " + json.dumps(payload, ensure_ascii=False).encode() + b"\n\n")

    def _chunk(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        chunk: dict[str, Any] = {"id": self.completion_id, "object": "chat.completion.chunk", "created": self.created,
                                 "model": self.model, "choices": choices}
        if self.include_usage:
            chunk["usage"] = None
        return chunk

    async def delta(self, delta: dict[str, Any], finish_reason: str | None = None) -> None:
        """One chunk carrying ``delta``."""
        await self._send(self._chunk([{"index": 0, "delta": delta, "finish_reason": finish_reason}]))

    async def usage(self, usage: Usage) -> None:
        """The final usage chunk (``choices: []``), only when the client asked for it."""
        if self.include_usage:
            await self._send({**self._chunk([]), "usage": usage_body(usage)})

    async def error(self, message: str, type: str = "server_error", code: str | None = None) -> None:
        """An error after the stream started: the SDK raises on a top-level ``error``."""
        await self._send({"error": {"message": message, "type": type, "param": None, "code": code}})

    async def keepalive(self) -> None:
        """A comment line that keeps proxies from closing an idle stream."""
        await self.response.write(b": keep-alive\n\n")

    async def done(self) -> None:
        """The ``[DONE]`` sentinel."""
        await self.response.write(b"data: [DONE]\n\n")
