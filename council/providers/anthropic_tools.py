"""OpenAI tool calling in the Anthropic Messages API's terms, and Claude's tool use back in OpenAI's.

A relayed request (:class:`~council.providers.tool_request.ToolRequest`)
becomes Messages API fields: function tools as ``tools`` (``name``,
``description``, ``input_schema``), the tool choice as ``tool_choice``
(``auto``, ``any``, ``tool`` with its ``name``, ``none``;
``parallel_tool_calls: false`` as ``disable_parallel_tool_use``),
assistant calls as ``tool_use`` blocks and tool results as
``tool_result`` blocks in a user turn. The answer's ``tool_use`` blocks
come back as OpenAI ``tool_calls`` (Claude's ``toolu_`` ids kept), whole
(:func:`tool_reply`) or streamed from ``content_block_start`` and
``input_json_delta`` events (:func:`stream_pieces`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from council.providers.base import Reply
from council.providers.http import StreamDecoder, field
from council.providers.images import inline_image
from council.providers.relay_reply import CallArguments, CallStart, End, Piece, TextPiece, ToolReply
from council.providers.tool_request import FunctionTool, ToolCall, ToolRequest, Turn
from council.transport.http import Endpoint, SSEStream

Finish = Callable[[str | None], str]


def _blocks(turn: Turn) -> list[dict[str, Any]]:
    if turn.role == "tool":
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": turn.call_id}
        if turn.text:
            result["content"] = turn.text
        return [result]
    blocks: list[dict[str, Any]] = []
    for image in turn.images:
        media_type, data = inline_image(image)
        blocks.append({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}})
    if turn.text:  # Anthropic refuses an empty text block
        blocks.append({"type": "text", "text": turn.text})
    blocks += [{"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments_object()}
               for call in turn.calls]
    return blocks


def anthropic_messages(request: ToolRequest) -> tuple[str | None, list[dict[str, Any]]]:
    """The system text, and the turns as Messages API messages (same-role neighbours joined, as the API wants)."""
    system = "\n\n".join(t.text for t in request.turns if t.role == "system" and t.text) or None
    messages: list[dict[str, Any]] = []
    for turn in request.turns:
        if turn.role == "system":
            continue
        role = "assistant" if turn.role == "assistant" else "user"
        blocks = _blocks(turn)
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"] += blocks
        else:
            messages.append({"role": role, "content": blocks})
    for message in messages:
        # Tool results come first in a user turn; an empty turn is an empty string (no empty text block).
        message["content"].sort(key=lambda block: block["type"] != "tool_result")
        if not message["content"]:
            message["content"] = ""
    return system, messages


def _declared(request: ToolRequest) -> tuple[FunctionTool, ...]:
    """The tools, or (a conversation with calls but no tools) the called functions, which the API wants declared."""
    if request.tools:
        return request.tools
    names = dict.fromkeys(call.name for turn in request.turns for call in turn.calls)
    return tuple(FunctionTool(name) for name in names)


def anthropic_tool_fields(request: ToolRequest) -> dict[str, Any]:
    """The ``tools`` and ``tool_choice`` fields for ``request`` (none when it neither offers nor used tools)."""
    tools = _declared(request)
    if not tools:
        return {}
    choice: dict[str, Any]
    if request.choice.mode == "none" or not request.tools:
        choice = {"type": "none"}
    elif request.choice.name is not None:
        choice = {"type": "tool", "name": request.choice.name}
    else:
        choice = {"type": "any" if request.choice.forced else "auto"}
    if request.parallel is False and choice["type"] != "none":
        choice["disable_parallel_tool_use"] = True
    declared = []
    for tool in tools:
        entry: dict[str, Any] = {"name": tool.name}
        if tool.description:
            entry["description"] = tool.description
        entry["input_schema"] = tool.schema
        declared.append(entry)
    return {"tools": declared, "tool_choice": choice}


def tool_reply(data: dict[str, Any], reply: Reply, endpoint: Endpoint, finish: Finish) -> ToolReply:
    """A whole Messages API answer (``reply``: its text, usage and model, as parsed) as a :class:`ToolReply`,
    its ``tool_use`` blocks as calls."""
    blocks = field(data, "content", endpoint=endpoint, kind=list)
    calls = tuple(ToolCall(str(b.get("id") or ""), str(b.get("name") or ""), json.dumps(b.get("input") or {}))
                  for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use")
    reason = finish(reply.finish_reason)
    return ToolReply(reply.content, calls, "tool_calls" if calls and reason == "stop" else reason, reply.usage,
                     reply.model_version)


async def stream_pieces(sse: SSEStream, decoder: StreamDecoder, finish: Finish) -> AsyncIterator[Piece]:
    """A streamed answer's text and calls, as they arrive, then its end (nothing more if the stream is cut off).

    ``decoder`` (the provider's own) reads the text, usage, model, stop reason and mid-stream errors.
    """
    calls: dict[Any, int] = {}  # content block index -> call index
    argued: set[int] = set()  # calls whose arguments have begun
    while (event := await sse.next_event()) is not None:
        text = decoder.feed(event)  # text, usage, model, stop reason, a mid-stream error
        if text:
            yield TextPiece(text)
        payload = decoder.json_object(event)
        kind = payload.get("type") or event.event
        block = payload.get("content_block")
        delta = payload.get("delta")
        if kind == "content_block_start" and isinstance(block, dict) and block.get("type") == "tool_use":
            index = calls[payload.get("index")] = len(calls)
            yield CallStart(index, str(block.get("id") or ""), str(block.get("name") or ""))
            if block.get("input"):
                argued.add(index)
                yield CallArguments(index, json.dumps(block["input"]))
        elif kind == "content_block_delta" and isinstance(delta, dict) and delta.get("type") == "input_json_delta":
            index = calls.get(payload.get("index"), -1)
            if index >= 0 and isinstance(delta.get("partial_json"), str) and delta["partial_json"]:
                argued.add(index)
                yield CallArguments(index, delta["partial_json"])
        elif kind == "content_block_stop" and payload.get("index") in calls:
            index = calls[payload["index"]]
            if index not in argued:  # a call without arguments: OpenAI's clients read "{}"
                argued.add(index)
                yield CallArguments(index, "{}")
        if decoder.ended:
            reason = finish(decoder.finish_reason)
            yield End("tool_calls" if calls and reason == "stop" else reason,
                      decoder.usage if decoder.usage.total_tokens else None, decoder.model_version)
            return
