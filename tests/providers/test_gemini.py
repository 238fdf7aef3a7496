"""The Gemini generateContent client: request shape and parsing, plain and streamed."""

from __future__ import annotations

import json

from council.testing.fake_llm import Step
from council.types import ChatMessage, GenerationParams, Usage

CONVERSATION = [
    ChatMessage(role="system", content="Be precise."),
    ChatMessage(role="user", content="Capital of Australia?"),
    ChatMessage(role="assistant", content="Canberra."),
    ChatMessage(role="user", content="Population?"),
]


async def test_request_shape_and_key_header(fake_llm, make_provider):
    completion = await make_provider("gemini", "gemini-x", api_key="goog-key-123456").complete(CONVERSATION)
    (request,) = fake_llm.requests
    assert request.path == "/v1beta/models/gemini-x:generateContent"
    assert request.headers["x-goog-api-key"] == "goog-key-123456"
    assert "key=" not in request.path, "the key must never travel in the URL"
    assert request.body == {
        "contents": [
            {"role": "user", "parts": [{"text": "Capital of Australia?"}]},
            {"role": "model", "parts": [{"text": "Canberra."}]},
            {"role": "user", "parts": [{"text": "Population?"}]},
        ],
        "systemInstruction": {"parts": [{"text": "Be precise."}]},
    }
    assert completion.content == "gemini-x answers: Population?"
    assert completion.finish_reason == "STOP"
    assert completion.usage == Usage(prompt_tokens=7, completion_tokens=3)
    assert completion.model_version == "gemini-x"


async def test_generation_config(fake_llm, make_provider):
    params = GenerationParams(temperature=0.2, top_p=0.8, max_tokens=50, seed=3, stop=("###",))
    await make_provider("gemini", "g").complete(CONVERSATION, params)
    assert fake_llm.requests[0].body["generationConfig"] == {
        "temperature": 0.2, "topP": 0.8, "maxOutputTokens": 50, "seed": 3, "stopSequences": ["###"],
    }


async def test_streamed_answer_with_usage(fake_llm, make_provider):
    fake_llm.script("g", Step(reply="About 460 thousand people."))
    stream = make_provider("gemini", "g").stream(CONVERSATION)
    deltas = [d async for d in stream]
    assert fake_llm.requests[0].path == "/v1beta/models/g:streamGenerateContent?alt=sse"
    assert "".join(deltas) == "About 460 thousand people."
    assert stream.completion is not None
    assert stream.completion.usage == Usage(prompt_tokens=7, completion_tokens=4)
    assert stream.completion.finish_reason == "STOP"


async def test_thought_parts_are_left_out(fake_llm, make_provider):
    body = {"candidates": [{"content": {"parts": [{"text": "thinking...", "thought": True}, {"text": "Answer."}]},
                            "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1, "thoughtsTokenCount": 2}}
    fake_llm.script("g", Step(body=json.dumps(body).encode()))
    completion = await make_provider("gemini", "g").complete(CONVERSATION)
    assert completion.content == "Answer."
    assert completion.usage == Usage(prompt_tokens=5, completion_tokens=3)


async def test_blocked_prompt_is_a_filtered_empty_answer(fake_llm, make_provider):
    body = {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 4}}
    fake_llm.script("g", Step(body=json.dumps(body).encode()))
    completion = await make_provider("gemini", "g").complete(CONVERSATION)
    assert (completion.content, completion.finish_reason) == ("", "content_filter")


async def test_penalties_map_to_generation_config(fake_llm, make_provider):
    params = GenerationParams(presence_penalty=0.4, frequency_penalty=-0.6)
    await make_provider("gemini", "g").complete(CONVERSATION, params)
    assert fake_llm.requests[0].body["generationConfig"] == {"presencePenalty": 0.4, "frequencyPenalty": -0.6}


async def test_json_object_asks_for_json(fake_llm, make_provider):
    await make_provider("gemini", "g").complete(CONVERSATION, GenerationParams(response_format={"type": "json_object"}))
    assert fake_llm.requests[0].body["generationConfig"] == {"responseMimeType": "application/json"}


async def test_json_schema_travels_as_response_json_schema(fake_llm, make_provider):
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "people": {"type": ["integer", "null"]}},
              "required": ["city", "people"], "additionalProperties": False}
    response_format = {"type": "json_schema", "json_schema": {"name": "population", "strict": True, "schema": schema,
                                                              "description": "A city and its population."}}
    params = GenerationParams(response_format=response_format)
    async with make_provider("gemini", "g").stream(CONVERSATION, params) as stream:
        async for _ in stream:
            pass
    generation = fake_llm.requests[0].body["generationConfig"]
    assert generation == {"responseMimeType": "application/json",
                          "responseJsonSchema": {**schema, "description": "A city and its population."}}
    assert "description" not in schema, "the caller's schema is not modified"


async def test_text_format_needs_nothing(fake_llm, make_provider):
    await make_provider("gemini", "g").complete(CONVERSATION, GenerationParams(response_format={"type": "text"}))
    assert "generationConfig" not in fake_llm.requests[0].body


async def test_user_and_reasoning_effort_are_unsupported(fake_llm, make_provider):
    import pytest

    from council.providers.base import UnsupportedParamsError

    provider = make_provider("gemini", "g")
    params = GenerationParams(user="u", reasoning_effort="low", presence_penalty=0.1, seed=1,
                              response_format={"type": "json_object"})
    assert provider.unsupported_params(params) == ["user", "reasoning_effort"]
    with pytest.raises(UnsupportedParamsError) as caught:
        await provider.complete(CONVERSATION, params)
    assert caught.value.names == ["user", "reasoning_effort"]
    assert not fake_llm.requests
