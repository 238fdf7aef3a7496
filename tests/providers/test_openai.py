"""The OpenAI chat-completions client: request shape and parsing, plain and streamed."""

from __future__ import annotations

import json

from council.testing.fake_llm import Step
from council.types import ChatMessage, GenerationParams, Usage

CONVERSATION = [
    ChatMessage(role="system", content="Answer briefly."),
    ChatMessage(role="user", content="What is 2+2?"),
    ChatMessage(role="assistant", content="4"),
    ChatMessage(role="user", content="And times 3?"),
]


async def test_plain_request_carries_only_the_needed_fields(fake_llm, make_provider):
    provider = make_provider("openai", "gpt-test", api_key="sk-test-123456")
    completion = await provider.complete(CONVERSATION)
    (request,) = fake_llm.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == "Bearer sk-test-123456"
    assert request.body == {
        "model": "gpt-test",
        "messages": [{"role": m.role, "content": m.content} for m in CONVERSATION],
    }
    assert completion.content == "gpt-test answers: And times 3?"
    assert completion.finish_reason == "stop"
    assert completion.usage == Usage(prompt_tokens=9, completion_tokens=5)
    assert completion.model_version == "gpt-test"
    assert (completion.provider, completion.model, completion.simulated) == ("openai", "gpt-test", False)
    assert completion.latency_ms > 0


async def test_no_authorization_header_without_a_key(fake_llm, make_provider):
    await make_provider("openai", "local").complete(CONVERSATION)
    assert "Authorization" not in fake_llm.requests[0].headers


async def test_generation_params_are_mapped(fake_llm, make_provider):
    params = GenerationParams(temperature=0.0, top_p=0.9, max_tokens=64, seed=42, stop=("\n\n",))
    await make_provider("openai", "m").complete(CONVERSATION, params)
    body = fake_llm.requests[0].body
    assert {k: body[k] for k in ("temperature", "top_p", "max_tokens", "seed", "stop")} == {
        "temperature": 0.0, "top_p": 0.9, "max_tokens": 64, "seed": 42, "stop": ["\n\n"],
    }
    assert "tools" not in body and "stream" not in body


async def test_member_params_are_defaults_and_call_params_win(fake_llm, make_provider):
    provider = make_provider("openai", "m", params=GenerationParams(temperature=0.7, max_tokens=100))
    await provider.complete(CONVERSATION, GenerationParams(temperature=0.1))
    body = fake_llm.requests[0].body
    assert (body["temperature"], body["max_tokens"]) == (0.1, 100)


async def test_streamed_answer_with_usage(fake_llm, make_provider):
    fake_llm.script("m", Step(reply="Twelve, since four times three is twelve."))
    provider = make_provider("openai", "m")
    async with provider.stream(CONVERSATION) as stream:
        deltas = [delta async for delta in stream]
    body = fake_llm.requests[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert len(deltas) == 7
    assert "".join(deltas) == "Twelve, since four times three is twelve."
    completion = stream.completion
    assert completion is not None
    assert completion.content == "".join(deltas)
    assert completion.usage == Usage(prompt_tokens=9, completion_tokens=7)
    assert completion.finish_reason == "stop"


async def test_refusal_field_is_used_when_content_is_null(fake_llm, make_provider):
    body = {"choices": [{"message": {"role": "assistant", "content": None, "refusal": "I can't help with that."},
                         "finish_reason": "stop"}]}
    fake_llm.script("m", Step(body=json.dumps(body).encode()))
    completion = await make_provider("openai", "m").complete(CONVERSATION)
    assert completion.content == "I can't help with that."
    assert completion.usage == Usage()


async def test_official_endpoint_uses_max_completion_tokens():
    from council.config import MemberConfig, RetryPolicy
    from council.providers.openai import OpenAIProvider

    member = MemberConfig(name="o", provider="openai", model="gpt-5", api_key_env="OPENAI_API_KEY")
    provider = OpenAIProvider(member, transport=None, retry=RetryPolicy(), deadline_s=1)
    request = provider.build_request(CONVERSATION, GenerationParams(max_tokens=10), stream=False)
    assert request.url == "https://api.openai.com/v1/chat/completions"
    assert request.json["max_completion_tokens"] == 10 and "max_tokens" not in request.json


STRICT_SCHEMA = {"type": "json_schema", "json_schema": {
    "name": "answer", "strict": True,
    "schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"],
               "additionalProperties": False}}}


async def test_every_generation_param_is_forwarded_under_its_own_name(fake_llm, make_provider):
    params = GenerationParams(presence_penalty=0.5, frequency_penalty=-0.25, user="user-7", reasoning_effort="low",
                              response_format=STRICT_SCHEMA)
    provider = make_provider("openai", "m")
    assert provider.unsupported_params(params) == []
    await provider.complete(CONVERSATION, params)
    body = fake_llm.requests[0].body
    assert {k: body[k] for k in ("presence_penalty", "frequency_penalty", "user", "reasoning_effort",
                                 "response_format")} == {
        "presence_penalty": 0.5, "frequency_penalty": -0.25, "user": "user-7", "reasoning_effort": "low",
        "response_format": STRICT_SCHEMA,
    }


async def test_json_object_format_and_penalties_in_a_stream(fake_llm, make_provider):
    fake_llm.script("m", Step(reply='{"n": 12}'))
    params = GenerationParams(response_format={"type": "json_object"}, presence_penalty=0)
    async with make_provider("openai", "m").stream(CONVERSATION, params) as stream:
        text = "".join([delta async for delta in stream])
    body = fake_llm.requests[0].body
    assert body["stream"] is True
    assert body["response_format"] == {"type": "json_object"} and body["presence_penalty"] == 0
    assert text == '{"n": 12}'


async def test_unset_new_params_stay_out_of_the_request(fake_llm, make_provider):
    await make_provider("openai", "m").complete(CONVERSATION, GenerationParams(temperature=0.5))
    body = fake_llm.requests[0].body
    assert not {"presence_penalty", "frequency_penalty", "user", "reasoning_effort", "response_format"} & set(body)


async def test_a_stream_without_usage_is_estimated_from_text_length(fake_llm, make_provider):
    fake_llm.script("m", Step(reply="x" * 41, omit_usage=True))
    messages = [ChatMessage(role="user", content="y" * 100)]
    async with make_provider("openai", "m").stream(messages) as stream:
        text = "".join([delta async for delta in stream])
    assert text == "x" * 41
    assert stream.completion is not None
    # 4 characters a token, rounded up: 100 -> 25, 41 -> 11.
    assert stream.completion.usage == Usage(prompt_tokens=25, completion_tokens=11, estimated=True)


async def test_a_stream_with_usage_is_not_estimated(fake_llm, make_provider):
    fake_llm.script("m", Step(reply="four words right here"))
    async with make_provider("openai", "m").stream([ChatMessage(role="user", content="hi")]) as stream:
        _ = [delta async for delta in stream]
    assert stream.completion is not None and stream.completion.usage.estimated is False
    assert stream.completion.usage.completion_tokens == 4
