"""The fake upstream's moderation endpoint, read by the real ``openai`` SDK: its shape is OpenAI's."""

from __future__ import annotations

import openai
import pytest

from council.testing.fake_llm import Step
from council.testing.fake_moderation import OPENAI_MODERATION_CATEGORIES, llama_guard_reply


async def test_the_sdk_reads_a_scripted_moderation_result(fake_llm):
    fake_llm.script("omni-moderation-latest", Step(reply="self-harm/instructions,illicit/violent"))
    client = openai.AsyncOpenAI(base_url=fake_llm.base_url("openai"), api_key="test", max_retries=0)
    async with client:
        response = await client.moderations.create(model="omni-moderation-latest", input=["one text", "another"])
    assert response.model == "omni-moderation-latest" and len(response.results) == 2
    result = response.results[0]
    assert result.flagged and result.categories.self_harm_instructions and result.categories.illicit_violent
    assert not result.categories.harassment and result.category_scores.self_harm_instructions > 0.9
    assert result.category_applied_input_types.violence == ["text", "image"]
    assert [r.messages[0]["content"] for r in fake_llm.requests] == ["one text", "another"]


async def test_an_unscripted_model_flags_nothing_and_bad_input_is_a_400(fake_llm):
    client = openai.AsyncOpenAI(base_url=fake_llm.base_url("openai"), api_key="test", max_retries=0)
    async with client:
        response = await client.moderations.create(input="anything")
        assert not response.results[0].flagged
        assert set(response.results[0].categories.model_dump(by_alias=True)) >= set(OPENAI_MODERATION_CATEGORIES)
        with pytest.raises(openai.BadRequestError):
            await client.moderations.create(input=[])


def test_llama_guard_replies_are_written_as_the_model_writes_them():
    assert llama_guard_reply() == "safe"
    assert llama_guard_reply("S1", "S10") == "unsafe\nS1,S10"
