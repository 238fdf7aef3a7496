"""The Gemini ``generateContent`` / ``streamGenerateContent`` wire format.

The key travels in ``x-goog-api-key`` (never in the URL, where logs and
proxies would keep it). Streams are requested as SSE with ``alt=sse``.

Generation params go in ``generationConfig``: the penalties as
``presencePenalty`` / ``frequencyPenalty``; a ``json_object`` response format
as ``responseMimeType: application/json``, a ``json_schema`` one adds its
schema as ``responseJsonSchema`` (the field that takes standard JSON Schema;
the older ``responseSchema`` takes an OpenAPI subset that rejects the
``additionalProperties: false`` OpenAI's strict schemas carry; its ``name``
is only a label and ``strict`` is how Gemini always treats a schema, and its
``description`` joins the schema's own). ``user`` and
``reasoning_effort`` are refused: the API has no end-user id, and its
thinking settings differ between model generations (budgets, levels).

A ``member/NAME`` request that uses tools is translated to and from
Gemini's function calling by :mod:`council.providers.gemini_tools`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

from council.errors import ProtocolError, UpstreamServerError
from council.providers.anthropic import split_system
from council.providers.base import CORE_PARAMS, Reply
from council.providers.gemini_tools import Signatures, gemini_contents, gemini_tool_fields, stream_pieces, tool_reply
from council.providers.http import HttpProvider, StreamDecoder
from council.providers.images import inline_image
from council.providers.relay_reply import Piece, ToolReply
from council.providers.tool_request import ToolRequest
from council.transport.http import Endpoint, HttpRequest, SSEEvent, SSEStream
from council.types import ChatMessage, GenerationParams, Usage


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    return Usage(
        prompt_tokens=int(raw.get("promptTokenCount") or 0),
        completion_tokens=int(raw.get("candidatesTokenCount") or 0) + int(raw.get("thoughtsTokenCount") or 0),
        cached_prompt_tokens=int(raw.get("cachedContentTokenCount") or 0),
    )


def _candidate_text(data: dict[str, Any], endpoint: Endpoint) -> tuple[str, str | None]:
    """The answer text (thought parts left out) and finish reason of the first candidate."""
    if "error" in data and "candidates" not in data:
        error = data["error"]
        message = error.get("message", str(error)) if isinstance(error, dict) else str(error)
        raise endpoint.error(UpstreamServerError, f"error in response body: {message}")
    candidates = data.get("candidates")
    if candidates is None:
        feedback = data.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            # A blocked prompt is a real answer from the API: no text, filtered.
            return "", "content_filter"
        if data.get("usageMetadata") and "modelVersion" in data:
            return "", None  # Streams may end with a usage-only chunk.
        raise endpoint.error(ProtocolError, "response is missing candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return "", None
    candidate = candidates[0]
    parts = (candidate.get("content") or {}).get("parts") or []
    text = "".join(
        p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    )
    return text, candidate.get("finishReason")


def _response_format(response_format: dict[str, Any] | None) -> dict[str, Any]:
    """The ``generationConfig`` fields for an OpenAI ``response_format`` (text is the default: none)."""
    if response_format is None or response_format["type"] == "text":
        return {}
    fields: dict[str, Any] = {"responseMimeType": "application/json"}
    if response_format["type"] == "json_schema":
        spec = response_format["json_schema"]
        schema = dict(spec["schema"])
        if spec.get("description") and "description" not in schema:
            schema["description"] = spec["description"]  # Gemini has no separate slot for the format's description
        fields["responseJsonSchema"] = schema
    return fields


def _parts(turn: dict[str, Any]) -> list[dict[str, Any]]:
    """A turn's parts: its images inline (``inline_data``), then its text (left out of a turn of images only)."""
    parts: list[dict[str, Any]] = []
    for image in turn["images"]:
        mime_type, data = inline_image(image)
        parts.append({"inline_data": {"mime_type": mime_type, "data": data}})
    if turn["content"] or not parts:
        parts.append({"text": turn["content"]})
    return parts


class GeminiProvider(HttpProvider):
    """Gemini models through the Generative Language API."""

    inlines_images = True

    name = "gemini"
    default_base_url = "https://generativelanguage.googleapis.com/v1beta"
    # safety_identifier asks nothing of the answer and Gemini's API has no field for it: honoured by leaving it
    # out (a caller's end-user id must not make a pass-through request fail).
    supported_params = CORE_PARAMS | {"presence_penalty", "frequency_penalty", "response_format", "safety_identifier"}
    # Every reason that withholds text for what it says is a filter; the others (OTHER, LANGUAGE,
    # MALFORMED_FUNCTION_CALL, ...) are "stop": the answer ended and no OpenAI reason says more.
    finish_reasons = MappingProxyType({
        "STOP": "stop", "MAX_TOKENS": "length",
        **dict.fromkeys(("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
                         "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION"), "content_filter"),
    })

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.signatures = Signatures()

    def build_request(self, messages: list[ChatMessage], params: GenerationParams, *, stream: bool) -> HttpRequest:
        system, turns = split_system(messages)
        contents = [{"role": "model" if t["role"] == "assistant" else "user", "parts": _parts(t)} for t in turns]
        return self._request(system, contents, params, stream=stream)

    def tool_request(self, request: ToolRequest, params: GenerationParams, *, stream: bool) -> HttpRequest:
        system, contents = gemini_contents(request, self.signatures)
        return self._request(system, contents, params, stream=stream, tools=gemini_tool_fields(request))

    def tool_reply(self, data: dict[str, Any]) -> ToolReply:
        return tool_reply(data, self.parse_response(data), self.signatures, self.openai_finish_reason)

    def tool_stream(self, sse: SSEStream) -> AsyncIterator[Piece]:
        return stream_pieces(sse, self.stream_decoder(), self.signatures, self.openai_finish_reason)

    def _request(self, system: str | None, contents: list[dict[str, Any]], params: GenerationParams, *,
                 stream: bool, tools: dict[str, Any] | None = None) -> HttpRequest:
        self.check_params(params)
        body: dict[str, Any] = {"contents": contents, **(tools or {})}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        generation: dict[str, Any] = {}
        if params.temperature is not None:
            generation["temperature"] = params.temperature
        if params.top_p is not None:
            generation["topP"] = params.top_p
        if params.max_tokens is not None:
            generation["maxOutputTokens"] = params.max_tokens
        if params.seed is not None:
            generation["seed"] = params.seed
        if params.stop:
            generation["stopSequences"] = list(params.stop)
        if params.presence_penalty is not None:
            generation["presencePenalty"] = params.presence_penalty
        if params.frequency_penalty is not None:
            generation["frequencyPenalty"] = params.frequency_penalty
        generation.update(_response_format(params.response_format))
        if generation:
            body["generationConfig"] = generation
        model = quote(self.member.model.removeprefix("models/"), safe="-._")
        action = "streamGenerateContent?alt=sse" if stream else "generateContent"
        headers = {"Accept": "application/json"}
        if self.api_key is not None:
            headers["x-goog-api-key"] = self.api_key.get_secret_value()
        return HttpRequest(url=f"{self.base_url}/models/{model}:{action}", json=body, headers=headers)

    def parse_response(self, data: dict[str, Any]) -> Reply:
        text, finish = _candidate_text(data, self.endpoint)
        return Reply(text, finish, _usage(data.get("usageMetadata")), data.get("modelVersion"))

    def stream_decoder(self) -> StreamDecoder:
        return GeminiStreamDecoder(self.endpoint)


class GeminiStreamDecoder(StreamDecoder):
    """Reads a stream of ``GenerateContentResponse`` chunks; the last carries ``finishReason``."""

    def feed(self, event: SSEEvent) -> str | None:
        chunk = self.json_object(event)
        text, finish = _candidate_text(chunk, self.endpoint)
        if chunk.get("usageMetadata"):
            self.usage = _usage(chunk["usageMetadata"])
        if chunk.get("modelVersion"):
            self.model_version = chunk["modelVersion"]
        if finish:
            self.finish_reason = finish
            self.complete = True
        if text:
            self.parts.append(text)
            return text
        return None
