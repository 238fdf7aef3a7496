"""The OpenAI chat-completions wire format.

Serves OpenAI itself and every server that copies its API: OpenRouter,
Together, Groq, vLLM, Ollama's ``/v1``, llama.cpp's server and LM Studio.
Requests carry only the fields that are set, because some of those servers
reject extras (an empty ``tools`` list, a null ``seed``). Every generation
param is sent under its own OpenAI name (``max_tokens`` becomes
``max_completion_tokens`` at api.openai.com).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from council.errors import UpstreamServerError, error_for_status
from council.providers.base import CORE_PARAMS, RelayEvents, Reply
from council.providers.http import HttpProvider, StreamDecoder, field
from council.providers.tool_request import UntranslatableError
from council.transport.http import Endpoint, HttpRequest, SSEEvent
from council.transport.retry import call_with_retry
from council.types import ChatMessage, GenerationParams, Usage


def read_usage(raw: Any) -> Usage:
    """An OpenAI-format ``usage`` object as a :class:`Usage` (OpenRouter's ``cost`` included); empty if absent."""
    if not isinstance(raw, dict):
        return Usage()
    details = raw.get("prompt_tokens_details")
    cost = raw.get("cost")  # OpenRouter reports each call's cost in USD
    return Usage(
        prompt_tokens=int(raw.get("prompt_tokens") or 0),
        completion_tokens=int(raw.get("completion_tokens") or 0),
        cached_prompt_tokens=int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0,
        cost_usd=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) and cost >= 0 else None,
    )


def _raise_embedded_error(data: dict[str, Any], endpoint: Endpoint) -> None:
    """Some gateways (OpenRouter among them) report failures as a 200 with an ``error`` object."""
    error = data.get("error")
    if error is None or "choices" in data:
        return
    message = error.get("message", str(error)) if isinstance(error, dict) else str(error)
    code = error.get("code") if isinstance(error, dict) else None
    status = code if isinstance(code, int) and 400 <= code < 600 else None
    cls = error_for_status(status) if status else UpstreamServerError
    raise endpoint.error(cls, f"error in response body: {message}", status=status)


def _openai_message(message: ChatMessage) -> dict[str, Any]:
    if not message.images:
        return {"role": message.role, "content": message.content}
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
    parts += [{"type": "image_url", "image_url": {"url": image.url}} for image in message.images]
    return {"role": message.role, "content": parts}


class OpenAIProvider(HttpProvider):
    """Chat completions at any OpenAI-compatible base URL."""

    name = "openai"
    default_base_url = "https://api.openai.com/v1"
    supported_params = CORE_PARAMS | {"presence_penalty", "frequency_penalty", "user", "reasoning_effort",
                                      "response_format", "safety_identifier"}
    # Compatible servers mostly keep to OpenAI's enum; these are the other words some of them (or the
    # gateways in front of other APIs) pass on.
    finish_reasons = MappingProxyType({
        "end_turn": "stop", "stop_sequence": "stop", "eos": "stop", "eos_token": "stop",
        "max_tokens": "length", "tool_use": "tool_calls",
    })

    def build_request(self, messages: list[ChatMessage], params: GenerationParams, *, stream: bool) -> HttpRequest:
        self.check_params(params)
        body: dict[str, Any] = {
            "model": self.member.model,
            "messages": [_openai_message(m) for m in messages],
        }
        if params.temperature is not None:
            body["temperature"] = params.temperature
        if params.top_p is not None:
            body["top_p"] = params.top_p
        if params.max_tokens is not None:
            # OpenAI's newer models refuse max_tokens; compatible servers mostly know only max_tokens.
            key = "max_completion_tokens" if "api.openai.com" in self.base_url else "max_tokens"
            body[key] = params.max_tokens
        if params.seed is not None:
            body["seed"] = params.seed
        if params.stop:
            body["stop"] = list(params.stop)
        for name in ("presence_penalty", "frequency_penalty", "user", "safety_identifier", "reasoning_effort",
                     "response_format"):
            value = getattr(params, name)
            if value is not None:
                body[name] = value
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        headers = {"Accept": "text/event-stream" if stream else "application/json"}
        if self.api_key is not None:
            headers["Authorization"] = f"Bearer {self.api_key.get_secret_value()}"
        return HttpRequest(url=f"{self.base_url}/chat/completions", json=body, headers=headers)

    def relay_request(self, body: dict[str, Any], *, stream: bool) -> HttpRequest:
        """A client's own chat-completions body, sent on to this member as it came (its model swapped in).

        For requests Council does not model itself, tools above all: the
        tool definitions, tool messages and tool calls pass through
        untouched, in the format client and member both speak.
        """
        forwarded = {**body, "model": self.member.model}
        if stream:
            forwarded["stream"] = True
            forwarded["stream_options"] = {**(body.get("stream_options") or {}), "include_usage": True}
        headers = {"Accept": "text/event-stream" if stream else "application/json"}
        if self.api_key is not None:
            headers["Authorization"] = f"Bearer {self.api_key.get_secret_value()}"
        return HttpRequest(url=f"{self.base_url}/chat/completions", json=forwarded, headers=headers)

    def relay_body(self, body: dict[str, Any], params: GenerationParams | None) -> dict[str, Any]:
        """``body`` with the member's params over ``params`` written in as :meth:`build_request` writes them."""
        written = self.build_request([], self.member.params.merged(params), stream=False).json
        settings = {key: value for key, value in written.items() if key not in ("model", "messages")}
        return {**settings, **body}

    def relay_refusal(self, body: dict[str, Any]) -> UntranslatableError | None:
        """None: the body goes on as it came, in the format client and member both speak."""
        return None

    async def relay(self, body: dict[str, Any], params: GenerationParams | None = None
                    ) -> tuple[dict[str, Any], Usage | None]:
        """Send ``body`` on as it came (``params`` are in it) and return the member's answer as it wrote it."""
        transport = self.transport
        upstream = self.relay_request(body, stream=False)
        data, _attempts = await call_with_retry(lambda: transport.post_json(upstream, self.endpoint),
                                                policy=self.retry, deadline_s=self.deadline_s, endpoint=self.endpoint)
        reported = data.get("usage")
        return data, read_usage(reported) if isinstance(reported, dict) else None

    async def open_relay(self, body: dict[str, Any], params: GenerationParams | None = None) -> RelayEvents:
        """Send ``body`` on as a stream: the member's own chunks, as it wrote them."""
        return await self.transport.open_stream(self.relay_request(body, stream=True), self.endpoint)

    def parse_response(self, data: dict[str, Any]) -> Reply:
        _raise_embedded_error(data, self.endpoint)
        choices = field(data, "choices", endpoint=self.endpoint, kind=list)
        message = field(choices, 0, "message", endpoint=self.endpoint, kind=dict)
        content = message.get("content")
        refused = content is None and isinstance(message.get("refusal"), str)
        if refused:
            # A refusal arrives in its own field with null content.
            content = message["refusal"]
        if not isinstance(content, str):
            content = field(message, "content", endpoint=self.endpoint, kind=str)
        finish = choices[0].get("finish_reason") if isinstance(choices[0], dict) else None
        return Reply(content, finish, read_usage(data.get("usage")), data.get("model"), refused)

    def stream_decoder(self) -> StreamDecoder:
        return OpenAIStreamDecoder(self.endpoint)


class OpenAIStreamDecoder(StreamDecoder):
    """Reads ``data: {chunk}`` events up to ``data: [DONE]``."""

    def feed(self, event: SSEEvent) -> str | None:
        if event.data.strip() == "[DONE]":
            self.ended = True
            if self.finish_reason is not None:
                self.complete = True
            return None
        chunk = self.json_object(event)
        _raise_embedded_error(chunk, self.endpoint)
        if chunk.get("model"):
            self.model_version = chunk["model"]
        if chunk.get("usage"):
            self.usage = read_usage(chunk["usage"])
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices:
            return None
        choice = choices[0]
        if not isinstance(choice, dict):
            raise self.fail("stream choice is not a JSON object")
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]
            self.complete = True
        delta = choice.get("delta") or {}
        text = delta.get("content") if isinstance(delta, dict) else None
        if isinstance(delta, dict) and isinstance(delta.get("refusal"), str) and delta["refusal"]:
            self.refused = True
            text = delta["refusal"]
        if isinstance(text, str) and text:
            self.parts.append(text)
            return text
        return None
