"""Llama Guard's wire format: a chat completion over the conversation, ``safe`` or ``unsafe`` + codes back.

Llama Guard 3 (and 4, which keeps the format) is served by any
OpenAI-compatible server (Ollama's ``/v1``, vLLM, llama.cpp): Council posts
``{base_url}/chat/completions`` with the user's question and the answer as
the assistant turn, so the model judges the answer in its context (response
classification). The model's own chat template carries its instructions and
taxonomy, so no system prompt is sent. Its reply is ``safe``, or
``unsafe`` with the violated hazard codes on the next line (``S1,S10``);
anything else is a protocol error (the pattern verdict then stands).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import SecretStr

from council.errors import ProtocolError
from council.safety.moderation.outcome import Judgement
from council.transport.http import Endpoint, HttpRequest
from council.types import Usage

_CODE = re.compile(r"^S\d{1,2}$", re.IGNORECASE)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def read_verdict(text: str) -> tuple[bool, list[str]] | None:
    """``(flagged, codes)`` from a Llama Guard reply, or None when it is neither ``safe`` nor ``unsafe``."""
    words = text.strip().split(None, 1)
    if not words:
        return None
    head = words[0].strip().lower().rstrip(".:,")
    if head == "safe":
        return False, []
    if head != "unsafe":
        return None
    rest = words[1] if len(words) > 1 else ""
    codes = [code.strip().upper() for code in re.split(r"[,\s]+", rest) if code.strip()]
    if any(not _CODE.match(code) for code in codes):
        return None
    return True, list(dict.fromkeys(codes))


class LlamaGuardChat:
    """Builds Llama Guard chat requests and reads their replies."""

    name = "llama_guard"
    #: The reply is a word and a few codes; the cap keeps a model that rambles cheap (and its cost bounded).
    max_output_tokens = 24

    def __init__(self, base_url: str | None, model: str, api_key: SecretStr | None, endpoint: Endpoint) -> None:
        if base_url is None:
            raise ValueError("llama_guard needs a base_url")
        self.url = f"{base_url.rstrip('/')}/chat/completions"
        self.model = model
        self.api_key = api_key
        self.endpoint = endpoint

    def build_request(self, question: str, answer: str) -> HttpRequest:
        """The chat request classifying ``answer`` as the reply to ``question``."""
        messages = [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
        body = {"model": self.model, "messages": messages, "temperature": 0, "max_tokens": self.max_output_tokens}
        headers = {"Accept": "application/json"}
        if self.api_key is not None:
            headers["Authorization"] = f"Bearer {self.api_key.get_secret_value()}"
        return HttpRequest(url=self.url, json=body, headers=headers)

    def parse(self, data: dict[str, Any], question: str, answer: str) -> Judgement:
        """The judgement in a chat completion; a ProtocolError when the reply is not Llama Guard's."""
        choices = data.get("choices")
        message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(
            choices[0], dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise self.endpoint.error(ProtocolError, "response has no choices[0].message.content text")
        verdict = read_verdict(content)
        if verdict is None:
            shown = " ".join(content.split())[:60]
            raise self.endpoint.error(ProtocolError, f"the reply is not 'safe' or 'unsafe' + hazard codes: {shown!r}")
        raw = data.get("usage")
        raw = raw if isinstance(raw, dict) else {}
        usage = Usage(prompt_tokens=_count(raw.get("prompt_tokens")),
                      completion_tokens=_count(raw.get("completion_tokens")))
        model = data.get("model") if isinstance(data.get("model"), str) else None
        return Judgement(flagged=verdict[0], labels=verdict[1], usage=usage, model_version=model)


__all__ = ["LlamaGuardChat", "read_verdict"]
