"""The Anthropic Messages client: request shape and parsing, plain and streamed."""

from __future__ import annotations

import pytest

from council.providers.anthropic import DEFAULT_MAX_TOKENS
from council.testing.fake_llm import Step
from council.types import ChatMessage, GenerationParams, Usage

CONVERSATION = [
    ChatMessage(role="system", content="You are terse."),
    ChatMessage(role="system", content="Use metric units."),
    ChatMessage(role="user", content="How tall is Everest?"),
    ChatMessage(role="user", content="Roughly."),
]


async def test_system_goes_in_its_own_field_with_the_right_headers(fake_llm, make_provider):
    completion = await make_provider("anthropic", "claude-x", api_key="ant-key-123456").complete(CONVERSATION)
    (request,) = fake_llm.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "ant-key-123456"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "Authorization" not in request.headers
    assert request.body == {
        "model": "claude-x",
        "max_tokens": DEFAULT_MAX_TOKENS,
        "system": "You are terse.\n\nUse metric units.",
        "messages": [{"role": "user", "content": "How tall is Everest?\n\nRoughly."}],
    }
    assert completion.content == "claude-x answers: How tall is Everest?\n\nRoughly."
    assert completion.finish_reason == "end_turn"
    assert completion.usage == Usage(prompt_tokens=11, completion_tokens=7)


async def test_params_map_to_anthropic_names(fake_llm, make_provider):
    params = GenerationParams(temperature=1.5, top_p=0.5, max_tokens=99, stop=("END",), seed=7)
    await make_provider("anthropic", "c").complete(CONVERSATION, params)
    body = fake_llm.requests[0].body
    assert body["temperature"] == 1.0, "Anthropic accepts 0..1 only"
    assert (body["top_p"], body["max_tokens"], body["stop_sequences"]) == (0.5, 99, ["END"])
    assert "seed" not in body and "stop" not in body


async def test_streamed_answer_with_usage(fake_llm, make_provider):
    fake_llm.script("c", Step(reply="About 8849 metres."))
    stream = make_provider("anthropic", "c").stream(CONVERSATION)
    deltas = [d async for d in stream]
    assert fake_llm.requests[0].body["stream"] is True
    assert deltas == ["About", " 8849", " metres."]
    assert stream.completion is not None
    assert stream.completion.usage == Usage(prompt_tokens=stream.completion.usage.prompt_tokens, completion_tokens=3)
    assert stream.completion.usage.prompt_tokens > 0
    assert stream.completion.finish_reason == "end_turn"
    assert stream.completion.model_version == "c"


@pytest.mark.parametrize("base_suffix", ["", "/v1", "/v1/"])
async def test_base_url_with_or_without_v1(fake_llm, transport, base_suffix):
    from council.config import MemberConfig
    from council.providers import build_provider
    from tests.conftest import FAST_RETRY

    member = MemberConfig(name="a", provider="anthropic", model="c", base_url=fake_llm.url + base_suffix)
    provider = build_provider(member, transport=transport, retry=FAST_RETRY, deadline_s=2, api_key=None)
    await provider.complete(CONVERSATION)
    assert fake_llm.requests[-1].path == "/v1/messages"


async def test_user_travels_as_metadata_user_id(fake_llm, make_provider):
    provider = make_provider("anthropic", "c")
    params = GenerationParams(user="user-42", temperature=0.2)
    assert provider.unsupported_params(params) == []
    await provider.complete(CONVERSATION, params)
    body = fake_llm.requests[0].body
    assert body["metadata"] == {"user_id": "user-42"}
    assert "user" not in body


async def test_unsupported_params_are_listed_in_field_order(make_provider):
    provider = make_provider("anthropic", "c")
    params = GenerationParams(seed=1, presence_penalty=0.1, frequency_penalty=0.1, user="u", reasoning_effort="high",
                              response_format={"type": "json_object"})
    assert provider.unsupported_params(params) == [
        "seed", "presence_penalty", "frequency_penalty", "reasoning_effort", "response_format"]
    assert provider.unsupported_params(GenerationParams(response_format={"type": "text"})) == [], \
        "text output is what every wire format gives"


@pytest.mark.parametrize("params", [
    GenerationParams(presence_penalty=0.5), GenerationParams(frequency_penalty=0.5),
    GenerationParams(reasoning_effort="medium"), GenerationParams(response_format={"type": "json_object"}),
], ids=["presence_penalty", "frequency_penalty", "reasoning_effort", "response_format"])
async def test_an_unsupported_param_is_never_dropped_silently(fake_llm, make_provider, params):
    from council.providers.base import UnsupportedParamsError

    provider = make_provider("anthropic", "c")
    with pytest.raises(UnsupportedParamsError) as caught:
        await provider.complete(CONVERSATION, params)
    assert caught.value.names == params.set_fields()
    with pytest.raises(UnsupportedParamsError):
        async with provider.stream(CONVERSATION, params) as stream:
            async for _ in stream:
                pass
    assert not fake_llm.requests, "nothing is sent"


async def test_seed_is_best_effort_and_left_out(fake_llm, make_provider):
    await make_provider("anthropic", "c").complete(CONVERSATION, GenerationParams(seed=42))
    assert "seed" not in fake_llm.requests[0].body


def test_a_member_configured_with_an_unsupported_param_is_a_config_error():
    from council.config import MemberConfig, RetryPolicy
    from council.errors import ConfigError
    from council.providers.anthropic import AnthropicProvider

    member = MemberConfig(name="claude", provider="anthropic", model="c", base_url="http://127.0.0.1:9",
                          params=GenerationParams(presence_penalty=0.3, seed=1))
    with pytest.raises(ConfigError) as caught:
        AnthropicProvider(member, transport=None, retry=RetryPolicy(), deadline_s=1)
    assert caught.value.problems == [
        "params.presence_penalty: the anthropic API has no presence_penalty; remove it from this member's params"]
