"""OpenAI tool calling in the Gemini API's terms, and Gemini's function calls back in OpenAI's.

A relayed request (:class:`~council.providers.tool_request.ToolRequest`)
becomes ``generateContent`` fields: function tools as ``tools:
[{functionDeclarations}]`` (each tool's JSON Schema as
``parametersJsonSchema``), the tool choice as
``toolConfig.functionCallingConfig`` (mode ``AUTO``, ``ANY`` or ``NONE``;
a named function as ``allowedFunctionNames``), assistant calls as
``functionCall`` parts of a model turn and tool results as
``functionResponse`` parts (the function's name, and the result as a JSON
object: ``{"content": text}`` when it is not one) of a user turn. The
answer's ``functionCall`` parts come back as OpenAI ``tool_calls``, with
ids made up (``call_...``) since Gemini gives none, and
``finish_reason: "tool_calls"`` (Gemini says ``STOP``), whole
(:func:`tool_reply`) or streamed (:func:`stream_pieces`).

Gemini 3 models sign their calls (``thoughtSignature``) and want the
signature back with the call in the next turn. An OpenAI client keeps no
such thing, so the provider remembers each call's signature by the id it
made up (:class:`Signatures`); a call it has no signature for (another
replica's, or one from before a restart) is sent with the placeholder
Google documents for calls made elsewhere.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import Any

from council.providers.base import Reply
from council.providers.http import StreamDecoder
from council.providers.images import inline_image
from council.providers.relay_reply import CallArguments, CallStart, End, Piece, TextPiece, ToolReply, new_call_id
from council.providers.tool_request import FunctionTool, ToolCall, ToolRequest, Turn
from council.transport.http import SSEStream

Finish = Callable[[str | None], str]
#: What Google documents to send for a call whose signature is unknown (one not made by this model, this session).
UNSIGNED = "skip_thought_signature_validator"


class Signatures:
    """The Gemini 3 thought signatures of the calls this provider handed out, by call id (the most recent kept)."""

    def __init__(self, limit: int = 4096) -> None:
        self._limit = limit
        self._kept: OrderedDict[str, str] = OrderedDict()

    def keep(self, call_id: str, signature: Any) -> None:
        if isinstance(signature, str) and signature:
            self._kept[call_id] = signature
            while len(self._kept) > self._limit:
                self._kept.popitem(last=False)

    def of(self, call_id: str) -> str | None:
        return self._kept.get(call_id)


def _result(text: str) -> dict[str, Any]:
    """A tool result as the JSON object ``functionResponse.response`` must be."""
    try:
        value = json.loads(text)
    except ValueError:
        return {"content": text}
    return value if isinstance(value, dict) else {"content": value}


def _parts(turn: Turn, signatures: Signatures) -> list[dict[str, Any]]:
    if turn.role == "tool":
        return [{"functionResponse": {"name": turn.name, "response": _result(turn.text)}}]
    parts: list[dict[str, Any]] = []
    for image in turn.images:
        mime_type, data = inline_image(image)
        parts.append({"inline_data": {"mime_type": mime_type, "data": data}})
    if turn.text:
        parts.append({"text": turn.text})
    for index, call in enumerate(turn.calls):
        part: dict[str, Any] = {"functionCall": {"name": call.name, "args": call.arguments_object()}}
        signature = signatures.of(call.id) or (UNSIGNED if index == 0 else None)
        if signature is not None:
            part["thoughtSignature"] = signature
        parts.append(part)
    return parts


def gemini_contents(request: ToolRequest, signatures: Signatures) -> tuple[str | None, list[dict[str, Any]]]:
    """The system text, and the turns as ``contents`` (same-role neighbours joined; tool results in user turns)."""
    system = "\n\n".join(t.text for t in request.turns if t.role == "system" and t.text) or None
    contents: list[dict[str, Any]] = []
    for turn in request.turns:
        if turn.role == "system":
            continue
        role = "model" if turn.role == "assistant" else "user"
        parts = _parts(turn, signatures)
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"] += parts
        else:
            contents.append({"role": role, "parts": parts})
    for content in contents:
        content["parts"] = content["parts"] or [{"text": ""}]
    return system, contents


def gemini_tool_fields(request: ToolRequest) -> dict[str, Any]:
    """The ``tools`` and ``toolConfig`` fields for ``request`` (none when it neither offers nor used tools)."""
    tools = request.tools or tuple(FunctionTool(name) for name in dict.fromkeys(
        call.name for turn in request.turns for call in turn.calls))
    if not tools:
        return {}
    declarations = []
    for tool in tools:
        declaration: dict[str, Any] = {"name": tool.name, "description": tool.description or ""}
        if tool.parameters:
            declaration["parametersJsonSchema"] = dict(tool.parameters)
        declarations.append(declaration)
    config: dict[str, Any]
    if request.choice.mode == "none" or not request.tools:
        config = {"mode": "NONE"}
    elif request.choice.forced:
        config = {"mode": "ANY"}
        if request.choice.name is not None:
            config["allowedFunctionNames"] = [request.choice.name]
    else:
        config = {"mode": "AUTO"}
    return {"tools": [{"functionDeclarations": declarations}], "toolConfig": {"functionCallingConfig": config}}


def _calls(data: dict[str, Any], signatures: Signatures) -> list[ToolCall]:
    """The first candidate's ``functionCall`` parts as calls, each with an id (its signature kept under it)."""
    candidates = data.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return []
    content = candidates[0].get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    calls = []
    for part in parts if isinstance(parts, list) else ():
        call = part.get("functionCall") if isinstance(part, dict) else None
        if isinstance(call, dict):
            call_id = str(call.get("id") or new_call_id())
            signatures.keep(call_id, part.get("thoughtSignature"))
            calls.append(ToolCall(call_id, str(call.get("name") or ""), json.dumps(call.get("args") or {})))
    return calls


def tool_reply(data: dict[str, Any], reply: Reply, signatures: Signatures, finish: Finish) -> ToolReply:
    """A whole answer (``reply``: its text, usage and model, as parsed) as a :class:`ToolReply` with its calls."""
    calls = tuple(_calls(data, signatures))
    reason = finish(reply.finish_reason)
    return ToolReply(reply.content, calls, "tool_calls" if calls and reason == "stop" else reason, reply.usage,
                     reply.model_version)


async def stream_pieces(sse: SSEStream, decoder: StreamDecoder, signatures: Signatures,
                        finish: Finish) -> AsyncIterator[Piece]:
    """A streamed answer's text and calls as they arrive (each call whole, as Gemini sends it), then its end.

    The end comes when the stream does, if a finish reason was seen (a
    usage-only chunk may follow the last one); nothing more if it was cut off.
    """
    called = 0
    while (event := await sse.next_event()) is not None:
        text = decoder.feed(event)  # text, usage, model, finish reason, an error in the body
        if text:
            yield TextPiece(text)
        for call in _calls(decoder.json_object(event), signatures):
            yield CallStart(called, call.id, call.name)
            yield CallArguments(called, call.arguments)
            called += 1
    if decoder.complete:
        reason = finish(decoder.finish_reason)
        yield End("tool_calls" if called and reason == "stop" else reason,
                  decoder.usage if decoder.usage.total_tokens else None, decoder.model_version)
