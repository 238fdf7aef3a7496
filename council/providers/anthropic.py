"""The Anthropic Messages wire format.

System prompts go in the top-level ``system`` field, the key in ``x-api-key``,
and ``max_tokens`` is required by the API, so a default is always sent.
``base_url`` may be given with or without the ``/v1`` suffix.

Of the generation params, ``user`` travels as ``metadata.user_id``;
``presence_penalty``, ``frequency_penalty``, ``reasoning_effort`` and a JSON
``response_format`` have no Messages API counterpart and are refused (see
``Provider.unsupported_params``); ``seed`` has none either and, being a
best-effort hint, is left out.

A ``member/NAME`` request that uses tools is translated to and from the
Messages API's tool use by :mod:`council.providers.anthropic_tools`
(:meth:`AnthropicProvider.tool_request`, ``tool_reply``, ``tool_stream``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import MappingProxyType
from typing import Any

from council.errors import UpstreamServerError
from council.providers.anthropic_tools import anthropic_messages, anthropic_tool_fields, stream_pieces, tool_reply
from council.providers.base import CORE_PARAMS, Reply
from council.providers.http import HttpProvider, StreamDecoder, field
from council.providers.images import inline_image
from council.providers.relay_reply import Piece, ToolReply
from council.providers.tool_request import ToolRequest
from council.transport.http import HttpRequest, SSEEvent, SSEStream
from council.types import ChatMessage, GenerationParams, Usage

ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096


def split_system(messages: list[ChatMessage]) -> tuple[str | None, list[dict[str, Any]]]:
    """The joined system text, and the other turns with same-role neighbours merged.

    Both Anthropic and Gemini want the system prompt apart from the turns and
    strictly alternating roles, so consecutive turns of one role are joined
    (their images too). Each turn is ``{"role", "content", "images"}``.
    """
    system = "\n\n".join(m.content for m in messages if m.role == "system") or None
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        if turns and turns[-1]["role"] == message.role:
            turns[-1]["content"] += "\n\n" + message.content
            turns[-1]["images"] += list(message.images)
        else:
            turns.append({"role": message.role, "content": message.content, "images": list(message.images)})
    return system, turns


def _anthropic_turn(turn: dict[str, Any]) -> dict[str, Any]:
    if not turn["images"]:
        return {"role": turn["role"], "content": turn["content"]}
    blocks: list[dict[str, Any]] = []
    for image in turn["images"]:
        media_type, data = inline_image(image)
        blocks.append({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}})
    # Anthropic refuses an empty text block: a turn that is only images has none.
    text = [{"type": "text", "text": turn["content"]}] if turn["content"] else []
    return {"role": turn["role"], "content": [*blocks, *text]}


def anthropic_usage(raw: Any, previous: Usage | None = None) -> Usage:
    """A Messages API ``usage`` object as a :class:`Usage` (over ``previous``, a stream's counts so far)."""
    previous = previous or Usage()
    if not isinstance(raw, dict):
        return previous
    # input_tokens leaves out what was read from the cache; prompt_tokens counts every prompt token.
    cached = int(raw.get("cache_read_input_tokens") or 0) if "input_tokens" in raw else previous.cached_prompt_tokens
    return Usage(
        prompt_tokens=int(raw.get("input_tokens") or 0) + cached if "input_tokens" in raw else previous.prompt_tokens,
        completion_tokens=int(raw.get("output_tokens") or previous.completion_tokens),
        cached_prompt_tokens=cached,
    )


class AnthropicProvider(HttpProvider):
    """Claude models through the Messages API."""

    inlines_images = True

    name = "anthropic"
    default_base_url = "https://api.anthropic.com"
    supported_params = (CORE_PARAMS - {"seed"}) | {"user", "safety_identifier"}
    best_effort_params = frozenset({"seed"})
    # pause_turn: a server tool paused a long turn; what came is a whole answer as far as a chat client can tell.
    finish_reasons = MappingProxyType({
        "end_turn": "stop", "stop_sequence": "stop", "pause_turn": "stop",
        "max_tokens": "length", "model_context_window_exceeded": "length",
        "tool_use": "tool_calls", "refusal": "content_filter",
    })

    def build_request(self, messages: list[ChatMessage], params: GenerationParams, *, stream: bool) -> HttpRequest:
        system, turns = split_system(messages)
        return self._request(system, [_anthropic_turn(turn) for turn in turns], params, stream=stream)

    def tool_request(self, request: ToolRequest, params: GenerationParams, *, stream: bool) -> HttpRequest:
        system, messages = anthropic_messages(request)
        return self._request(system, messages, params, stream=stream, tools=anthropic_tool_fields(request))

    def tool_reply(self, data: dict[str, Any]) -> ToolReply:
        return tool_reply(data, self.parse_response(data), self.endpoint, self.openai_finish_reason)

    def tool_stream(self, sse: SSEStream) -> AsyncIterator[Piece]:
        return stream_pieces(sse, self.stream_decoder(), self.openai_finish_reason)

    def _request(self, system: str | None, messages: list[dict[str, Any]], params: GenerationParams, *,
                 stream: bool, tools: dict[str, Any] | None = None) -> HttpRequest:
        self.check_params(params)
        body: dict[str, Any] = {
            "model": self.member.model,
            "max_tokens": params.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": messages,
        }
        if system:
            body["system"] = system
        body.update(tools or {})
        if params.temperature is not None:
            body["temperature"] = min(params.temperature, 1.0)  # Anthropic's range is 0..1.
        if params.top_p is not None:
            body["top_p"] = params.top_p
        if params.stop:
            body["stop_sequences"] = list(params.stop)
        # Anthropic has one end-user id; OpenAI's newer safety_identifier names the same person.
        if (end_user := params.user or params.safety_identifier) is not None:
            body["metadata"] = {"user_id": end_user}
        if stream:
            body["stream"] = True
        headers = {"anthropic-version": ANTHROPIC_VERSION, "Accept": "application/json"}
        if self.api_key is not None:
            headers["x-api-key"] = self.api_key.get_secret_value()
        path = "/messages" if self.base_url.endswith("/v1") else "/v1/messages"
        return HttpRequest(url=self.base_url + path, json=body, headers=headers)

    def parse_response(self, data: dict[str, Any]) -> Reply:
        blocks = field(data, "content", endpoint=self.endpoint, kind=list)
        text = "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
        return Reply(text, data.get("stop_reason"), anthropic_usage(data.get("usage")), data.get("model"))

    def stream_decoder(self) -> StreamDecoder:
        return AnthropicStreamDecoder(self.endpoint)


class AnthropicStreamDecoder(StreamDecoder):
    """Reads ``message_start`` … ``content_block_delta`` … ``message_stop``."""

    def feed(self, event: SSEEvent) -> str | None:
        payload = self.json_object(event)
        kind = payload.get("type") or event.event
        if kind == "message_start":
            message = payload.get("message") or {}
            self.model_version = message.get("model")
            self.usage = anthropic_usage(message.get("usage"), self.usage)
        elif kind == "content_block_delta":
            delta = payload.get("delta") or {}
            if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                self.parts.append(delta["text"])
                return delta["text"] or None
        elif kind == "message_delta":
            delta = payload.get("delta") or {}
            self.finish_reason = delta.get("stop_reason") or self.finish_reason
            self.usage = anthropic_usage(payload.get("usage"), self.usage)
        elif kind == "message_stop":
            self.complete = True
            self.ended = True
        elif kind == "error":
            error = payload.get("error") or {}
            # Mid-stream errors (usually overloaded_error) cannot be retried: text may already be used.
            raise self.endpoint.error(
                UpstreamServerError, f"stream error {error.get('type', '')}: {error.get('message', '')}".strip()
            )
        return None
