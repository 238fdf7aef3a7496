"""A translated member's answer in OpenAI's chat-completions format: whole, or as a stream of chunks.

The counterpart of :mod:`.tool_request`: an Anthropic, Gemini or
simulated member's answer to a relayed request (text, function calls,
finish reason, usage) becomes what an OpenAI-format member would have
sent, so the server relays every member alike. A whole answer is a
:class:`ToolReply` made into a ``chat.completion`` (:meth:`ToolReply.completion`);
a streamed one is a run of :class:`Piece` s (text, a call's start, a
call's argument text, the end) that :class:`RelayStream` serves as
``chat.completion.chunk`` SSE events, ``[DONE]`` last, read as an
OpenAI member's stream is: ``next_event()`` and ``aclose()``.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from council.providers.tool_request import ToolCall
from council.transport.http import SSEEvent
from council.types import Usage


def new_call_id() -> str:
    """An id for a call whose wire format gave it none (Gemini's, a simulated member's)."""
    return f"call_{uuid.uuid4().hex[:24]}"


def openai_usage(usage: Usage) -> dict[str, Any]:
    """``usage`` as OpenAI reports it (cached prompt tokens under ``prompt_tokens_details``)."""
    fields: dict[str, Any] = {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                              "total_tokens": usage.prompt_tokens + usage.completion_tokens}
    if usage.cached_prompt_tokens:
        fields["prompt_tokens_details"] = {"cached_tokens": usage.cached_prompt_tokens}
    return fields


def call_entry(call: ToolCall) -> dict[str, Any]:
    """A call as an entry of a message's ``tool_calls``."""
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


@dataclass(frozen=True)
class ToolReply:
    """A member's whole answer to a relayed request: text, calls, OpenAI's finish reason, usage."""

    content: str
    calls: tuple[ToolCall, ...]
    finish_reason: str
    usage: Usage
    model: str | None = None

    def completion(self) -> dict[str, Any]:
        """The answer as a ``chat.completion`` object (``model`` is the member's; the server names it as asked)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content or (None if self.calls else ""),
                                   "refusal": None}
        if self.calls:
            message["tool_calls"] = [call_entry(call) for call in self.calls]
        return {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion", "created": int(time.time()),
                "model": self.model or "", "choices": [{"index": 0, "message": message, "logprobs": None,
                                                        "finish_reason": self.finish_reason}],
                "usage": openai_usage(self.usage)}


@dataclass(frozen=True)
class TextPiece:
    """More of the answer's text."""

    text: str


@dataclass(frozen=True)
class CallStart:
    """A call begins: its index among the answer's calls, id and function name (arguments follow)."""

    index: int
    id: str
    name: str


@dataclass(frozen=True)
class CallArguments:
    """More of call ``index``'s arguments (JSON text)."""

    index: int
    text: str


@dataclass(frozen=True)
class End:
    """The answer is whole: OpenAI's finish reason, and the usage the member reported (None: none)."""

    finish_reason: str
    usage: Usage | None
    model: str | None = None


Piece = TextPiece | CallStart | CallArguments | End


def _delta(piece: TextPiece | CallStart | CallArguments) -> dict[str, Any]:
    if isinstance(piece, TextPiece):
        return {"content": piece.text}
    if isinstance(piece, CallStart):
        return {"tool_calls": [{"index": piece.index, "id": piece.id, "type": "function",
                                "function": {"name": piece.name, "arguments": ""}}]}
    return {"tool_calls": [{"index": piece.index, "function": {"arguments": piece.text}}]}


class RelayStream:
    """OpenAI ``chat.completion.chunk`` events made from a translated answer's pieces, ``[DONE]`` last.

    The first chunk says the role; the end is a chunk with the finish
    reason, then one with the usage (as an OpenAI member relayed with
    ``include_usage`` sends), then ``[DONE]``. Pieces that stop before an
    :class:`End` end the events without ``[DONE]``: a cut-off answer, as the
    relay sees one from any member.
    """

    def __init__(self, pieces: AsyncIterator[Piece], model: str,
                 close: Callable[[], Awaitable[None]] | None = None) -> None:
        self._pieces = pieces
        self._model = model
        self._close = close
        self._id = f"chatcmpl-{uuid.uuid4().hex}"
        self._created = int(time.time())
        self._queued: list[str] = []
        self._started = False
        self._finished = False
        self._closed = False

    def _chunk(self, delta: dict[str, Any] | None, finish: str | None = None,
               usage: Usage | None = None) -> str:
        chunk: dict[str, Any] = {"id": self._id, "object": "chat.completion.chunk", "created": self._created,
                                 "model": self._model, "choices": []}
        if delta is not None:
            chunk["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        if usage is not None:
            chunk["usage"] = openai_usage(usage)
        return json.dumps(chunk, ensure_ascii=False)

    def _queue(self, piece: Piece) -> None:
        if not self._started:
            self._started = True
            opening = _delta(piece) if not isinstance(piece, End) else {"content": ""}
            self._queued.append(self._chunk({"role": "assistant", **opening}))
            if not isinstance(piece, End):
                return
        if isinstance(piece, End):
            self._model = piece.model or self._model
            self._queued.append(self._chunk({}, piece.finish_reason))
            if piece.usage is not None:
                self._queued.append(self._chunk(None, usage=piece.usage))
            self._queued.append("[DONE]")
            self._finished = True
        else:
            self._queued.append(self._chunk(_delta(piece)))

    async def next_event(self) -> SSEEvent | None:
        """The next chunk as an SSE event (its data the chunk's JSON, or ``[DONE]``); None at the end."""
        while not self._queued and not self._finished:
            piece = await anext(self._pieces, None)
            if piece is None:
                return None
            self._queue(piece)
        return SSEEvent("", self._queued.pop(0)) if self._queued else None

    async def aclose(self) -> None:
        """Release the member's stream (idempotent)."""
        if self._closed:
            return
        self._closed = True
        aclose = getattr(self._pieces, "aclose", None)
        if aclose is not None:
            await aclose()
        if self._close is not None:
            await self._close()
