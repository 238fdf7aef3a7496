"""Relaying a request to one OpenAI-format member as it came: how tool calling reaches ``member/NAME``.

Council's own model of a chat turn is text; tool definitions, tool
messages and tool calls are the client's and the member's business. A
``member/NAME`` request that uses tools is therefore sent on untouched
(the member's model swapped in, through the one transport with its size
caps and the member's retry policy) and its answer relayed back, plain or
streamed, with the model named as the client asked for it. Members on
other wire formats would need their tool formats translated: such a
request is refused with a 400 that says so.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from council.errors import ProviderError
from council.providers import Provider
from council.providers.openai import OpenAIProvider
from council.server.schema import ApiError, ChatCompletionRequest
from council.transport.retry import call_with_retry

TOOL_FIELDS = ("tools", "tool_choice", "parallel_tool_calls")


def uses_tools(body: ChatCompletionRequest) -> bool:
    """Whether a request defines tools or carries a tool exchange (tool messages, assistant tool calls)."""
    return bool(body.tools) or any(m.role == "tool" or m.tool_calls for m in body.messages)


def relayable(provider: Provider, body: ChatCompletionRequest) -> OpenAIProvider:
    """The member's provider, if it can take the request as it is; a 400 naming the problem otherwise."""
    if not isinstance(provider, OpenAIProvider):
        member = body.model.removeprefix("member/")
        raise ApiError(400, f"tools: member {member!r} speaks the {provider.name} API; tool calling passes through "
                            "to OpenAI-format members only", param="tools", code="tools_not_supported")
    return provider


async def relay(request: web.Request, provider: OpenAIProvider, body: ChatCompletionRequest,
                raw: dict[str, Any]) -> web.StreamResponse:
    """Send ``raw`` on to the member and relay its answer, plain or streamed.

    Raises :class:`ProviderError` when the member fails before anything
    was sent back; a failure mid-stream ends the stream with an error event.
    """
    transport = provider.transport
    if not body.stream:
        upstream = provider.relay_request(raw, stream=False)
        data, _attempts = await call_with_retry(lambda: transport.post_json(upstream, provider.endpoint),
                                                policy=provider.retry, deadline_s=provider.deadline_s,
                                                endpoint=provider.endpoint)
        return web.json_response({**data, "model": body.model})
    stream = await transport.open_stream(provider.relay_request(raw, stream=True), provider.endpoint)
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    try:
        while (event := await stream.next_event()) is not None:
            if event.data.strip() == "[DONE]":
                break
            chunk = json.loads(event.data)
            if isinstance(chunk, dict) and "model" in chunk:
                chunk["model"] = body.model
            await response.write(b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n")
    except (ProviderError, ValueError) as error:
        message = str(error) if isinstance(error, ProviderError) else "the member sent a chunk that is not JSON"
        await response.write(b"data: " + json.dumps({"error": {"message": message, "type": "upstream_error"}}
                                                    ).encode() + b"\n\n")
    finally:
        await stream.aclose()
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response
