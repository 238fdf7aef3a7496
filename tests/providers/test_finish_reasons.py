"""Each wire format's stop reasons in OpenAI's words, the member's own word kept on the completion."""

from __future__ import annotations

import json

import pytest

from council.providers import Provider
from council.providers.anthropic import AnthropicProvider
from council.providers.base import OPENAI_FINISH_REASONS
from council.providers.gemini import GeminiProvider
from council.providers.openai import OpenAIProvider
from council.providers.simulated import SimulatedProvider
from council.testing.fake_llm import Step

PROVIDERS: list[type[Provider]] = [OpenAIProvider, AnthropicProvider, GeminiProvider, SimulatedProvider]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_translation_is_one_of_openais_reasons(provider):
    assert set(provider.finish_reasons.values()) <= OPENAI_FINISH_REASONS
    for reason in (*provider.finish_reasons, *OPENAI_FINISH_REASONS, None, "A_REASON_FROM_NEXT_YEAR"):
        assert provider.openai_finish_reason(reason) in OPENAI_FINISH_REASONS


@pytest.mark.parametrize(("provider", "reason", "expected"), [
    (AnthropicProvider, "max_tokens", "length"), (AnthropicProvider, "refusal", "content_filter"),
    (AnthropicProvider, "tool_use", "tool_calls"), (AnthropicProvider, "end_turn", "stop"),
    (GeminiProvider, "MAX_TOKENS", "length"), (GeminiProvider, "SAFETY", "content_filter"),
    (GeminiProvider, "OTHER", "stop"), (GeminiProvider, "content_filter", "content_filter"),
    (OpenAIProvider, "length", "length"), (OpenAIProvider, "function_call", "function_call"),
    (OpenAIProvider, "eos", "stop"), (OpenAIProvider, None, "stop"),
])
def test_a_reason_in_openais_words(provider, reason, expected):
    assert provider.openai_finish_reason(reason) == expected


async def test_the_completion_keeps_the_members_own_reason(make_provider, fake_llm):
    """Stored runs and the server's ``council.finish_reason`` read it there; only the wire gets OpenAI's word."""
    body = {"id": "msg_up", "type": "message", "role": "assistant", "model": "claude",
            "content": [{"type": "text", "text": "cut"}], "stop_reason": "max_tokens",
            "usage": {"input_tokens": 3, "output_tokens": 1}}
    fake_llm.script("claude", Step(body=json.dumps(body).encode()))
    provider = make_provider("anthropic", "claude")
    completion = await provider.complete([])
    assert completion.finish_reason == "max_tokens"
    assert provider.openai_finish_reason(completion.finish_reason) == "length"
