"""Relaying a request to one member as it came: how tool calling reaches ``member/NAME``.

Council's own model of a chat turn is text; tool definitions, tool
messages and tool calls are the client's and the member's business. A
``member/NAME`` request that uses tools is therefore handed to the
council's :class:`~council.pipeline.Member` as the client wrote it: an
OpenAI-format member gets it untouched (its model swapped in), any other
gets it translated into its own wire format and answers in OpenAI's (the
translation is the providers' business, not the server's), through the one
transport with its size caps and the member's retry policy. The answer is
relayed back, plain or streamed, with the model named as the client asked
for it, and made to fit OpenAI's schema where compatible servers are loose
about it (:func:`relayed_completion`, :func:`relayed_chunk`). What a
member's wire format cannot carry (custom tools, say) is refused with a 400
that names it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from aiohttp import web

from council.errors import ProviderError
from council.pipeline import Member, upstream_words
from council.server.patience import keep_waiting
from council.server.schema import ApiError, ChatCompletionRequest
from council.server.wire import DONE_EVENT, end_cut_stream, error_event, finish_fields, sse_event
from council.types import Usage

TOOL_FIELDS = ("tools", "tool_choice", "parallel_tool_calls")
T = TypeVar("T")


def uses_tools(body: ChatCompletionRequest) -> bool:
    """Whether a request defines tools, forces a tool call, or carries a tool exchange (tool messages, calls)."""
    return (bool(body.tools) or body.forced_tool_param() is not None
            or any(m.role == "tool" or m.tool_calls for m in body.messages))


def relayable(member: Member, body: ChatCompletionRequest, raw: dict[str, Any]) -> Member:
    """The member, if it can take the request; a 400 naming the part its wire format cannot carry otherwise."""
    refusal = member.relay_refusal(raw)
    if refusal is not None:
        param, why = refusal
        name = body.model.removeprefix("member/")
        raise ApiError(400, f"{param}: member {name!r} speaks the {member.wire_format} API: {why}", param=param,
                       code="tools_not_supported")
    return member


def _relayed_choice(choice: Any, member: Member, whole: bool) -> Any:
    """A choice with OpenAI's finish reason (the member's own kept) and, in a whole answer, the fields it must have."""
    if not isinstance(choice, dict):
        return choice
    choice = dict(choice)
    reason = choice.get("finish_reason")
    if isinstance(reason, str) or whole:
        upstream = reason if isinstance(reason, str) else None
        choice.update(finish_fields(member.openai_finish_reason(upstream), upstream))
    if whole:
        choice.setdefault("logprobs", None)
        message = choice.get("message")
        if isinstance(message, dict):
            choice["message"] = {"role": "assistant", "content": None, "refusal": None, **message}
    return choice


def _relayed(data: dict[str, Any], model: str, member: Member, whole: bool) -> dict[str, Any]:
    body = {key: value for key, value in data.items() if not (key == "system_fingerprint" and value is None)}
    if whole or "model" in body:
        body["model"] = model
    if isinstance(body.get("choices"), list):
        body["choices"] = [_relayed_choice(choice, member, whole) for choice in body["choices"]]
    return body


def relayed_completion(data: dict[str, Any], model: str, member: Member) -> dict[str, Any]:
    """A member's whole answer as OpenAI's schema has it: ``model`` as the client named it, each choice
    with ``logprobs``, ``message.refusal`` and an OpenAI ``finish_reason``, no null ``system_fingerprint``."""
    return _relayed(data, model, member, whole=True)


def relayed_chunk(chunk: dict[str, Any], model: str, member: Member) -> dict[str, Any]:
    """One streamed chunk of a member's answer, made to fit OpenAI's schema as :func:`relayed_completion`."""
    return _relayed(chunk, model, member, whole=False)


async def relay(request: web.Request, member: Member, body: ChatCompletionRequest,
                raw: dict[str, Any], count: Callable[[Usage | None], dict[str, str]],
                keepalive_s: float | None = None) -> web.StreamResponse:
    """Send ``raw`` on to the member and relay its answer, plain or streamed.

    ``count`` is handed the usage the member reported (None when it
    reported none) once the answer is in, and returns headers for a plain
    answer (its cost). Raises
    :class:`ProviderError` when the member fails before anything was sent
    back; a failure mid-stream ends the stream with an error event. With
    ``keepalive_s`` a stream starts when the member has not answered by
    then, and a ``: keep-alive`` comment goes out whenever it is silent
    that long (a whole answer waits in :mod:`council.server.patience`).
    """
    if not body.stream:
        data, reported = await member.relay(raw, body.params())
        headers = count(reported)
        return web.json_response(relayed_completion(data, body.model, member), headers=headers)
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                           "X-Accel-Buffering": "no"})

    async def keepalive() -> None:
        if not response.prepared:
            await response.prepare(request)
        await response.write(b": keep-alive\n\n")

    async def waited(awaitable: Awaitable[T]) -> T:
        return await (keep_waiting(awaitable, keepalive_s, keepalive) if keepalive_s else awaitable)

    try:
        stream = await waited(member.open_relay_stream(raw, body.params()))
    except ProviderError as error:
        if not response.prepared:
            raise  # within keepalive_s: the member's failure keeps its status
        await response.write(error_event(str(error), "upstream_error", error.reason))
        await response.write(DONE_EVENT)
        await response.write_eof()
        return response
    except asyncio.CancelledError:
        if not response.prepared:
            raise
        await end_cut_stream(response)
        return response
    if not response.prepared:
        await response.prepare(request)
    usage: Usage | None = None
    whole = False  # [DONE] or a finish reason came: a stream closed before either was cut off
    try:
        while (event := await waited(stream.next_event())) is not None:
            if event.data.strip() == "[DONE]":
                whole = True
                break
            chunk = json.loads(event.data)
            if not isinstance(chunk, dict):
                raise ValueError("a chunk that is not a JSON object")
            if "error" in chunk and "choices" not in chunk:
                await response.write(_upstream_error_event(chunk["error"]))
                whole = True  # the member said what went wrong; nothing more to add
                break
            if isinstance(chunk.get("usage"), dict):
                usage = member.usage_of(chunk["usage"])
            whole = whole or _finished(chunk)
            await response.write(sse_event(relayed_chunk(chunk, body.model, member)))
        if not whole:
            raise member.protocol_error("the stream ended before the answer was complete")
    except asyncio.CancelledError:
        await end_cut_stream(response)  # shutting down past the grace period: say why, [DONE], end the body
        return response
    except (ProviderError, ValueError) as error:
        if isinstance(error, ProviderError):
            await response.write(error_event(str(error), "upstream_error", error.reason))
        else:
            await response.write(error_event("the member sent a chunk that is not a JSON object", "upstream_error",
                                             "protocol"))
    finally:
        await stream.aclose()
        count(usage)
    await response.write(DONE_EVENT)
    await response.write_eof()
    return response


def _finished(chunk: dict[str, Any]) -> bool:
    """Whether a chunk ends the answer (a choice with a finish reason)."""
    choices = chunk.get("choices")
    return isinstance(choices, list) and any(isinstance(c, dict) and c.get("finish_reason") for c in choices)


def _upstream_error_event(error: Any) -> bytes:
    """The member's own mid-stream error, in the one error shape (its message and, if a string, its code)."""
    message = error.get("message") if isinstance(error, dict) else error
    code = error.get("code") if isinstance(error, dict) else None
    # Its first line only, and nothing that looks like a secret: an upstream's words are not echoed whole.
    return error_event(f"the member reported an error: {upstream_words(message, 200)}"
                       if isinstance(message, str) else "the member reported an error", "upstream_error",
                       upstream_words(code[:100]) if isinstance(code, str) else None)
