"""Presets on the server: each is a model (council/NAME) in /v1/models, and runs its way (upstream calls counted)."""

from __future__ import annotations

import openai
import pytest

from council.config import CouncilConfig
from council.storage.store import Store
from council.testing.scripted import is_chairman_prompt, read_review_task, request_messages
from tests.server.conftest import MEMBERS, script, serve, server_config
from tests.server.test_structured import simulated  # noqa: F401  (the fixture: `council serve` on defaults)

PRESETS = {
    "quick": {"description": "one judge, no chairman", "chairman": "none", "review": "judge", "judge": "beta"},
    "pair": {"description": "alpha and gamma only", "members": ["alpha", "gamma"]},
}


@pytest.fixture
async def preset_server(fake_llm):
    script(fake_llm)
    base = server_config(fake_llm).model_dump(mode="json", exclude_none=True)
    config = CouncilConfig.model_validate({**base, "councils": PRESETS})
    runner, running = await serve(fake_llm, config, Store(":memory:"), None)
    yield running
    await runner.cleanup()
    running.store.close()


def calls(fake) -> dict[str, int]:
    """Upstream requests by kind: answers, reviews and chairman prompts."""
    kinds = {"answer": 0, "review": 0, "chairman": 0}
    for request in fake.requests:
        messages = request_messages(request)
        kind = "review" if read_review_task(messages) else "chairman" if is_chairman_prompt(messages) else "answer"
        kinds[kind] += 1
    return kinds


async def test_presets_are_models_with_descriptions(preset_server):
    async with openai.AsyncOpenAI(base_url=preset_server.base_url, api_key="unused", max_retries=0) as sdk:
        models = {model.id: model for model in (await sdk.models.list()).data}
    assert {"council", "council/quick", "council/pair"} <= set(models)
    assert models["council/quick"].model_extra["description"] == "one judge, no chairman"
    assert {f"member/{name}" for name in MEMBERS} <= set(models)


@pytest.mark.parametrize(("model", "expected"), [
    ("council", {"answer": 3, "review": 3, "chairman": 1}),
    ("council/quick", {"answer": 3, "review": 2, "chairman": 0}),  # the judge, and the second judge
    ("council/pair", {"answer": 2, "review": 2, "chairman": 1}),
])
async def test_each_preset_makes_the_upstream_calls_it_implies(preset_server, model, expected):
    async with openai.AsyncOpenAI(base_url=preset_server.base_url, api_key="unused", max_retries=0) as sdk:
        completion = await sdk.chat.completions.create(model=model, messages=[{"role": "user", "content": "Why?"}])
    assert completion.model == model and completion.choices[0].message.content
    assert calls(preset_server.fake) == expected
    council = completion.model_extra["council"]
    assert council["preset"] == (None if model == "council" else model.removeprefix("council/"))
    stored = preset_server.store.get(council["run_id"])
    assert stored.preset == council["preset"]
    judging = council["judging"]
    assert (judging and judging["policy"]) == ("second_judge" if model == "council/quick" else None)


async def test_a_streamed_preset_run_names_its_model(preset_server):
    async with openai.AsyncOpenAI(base_url=preset_server.base_url, api_key="unused", max_retries=0) as sdk:
        stream = await sdk.chat.completions.create(model="council/quick", stream=True,
                                                   messages=[{"role": "user", "content": "Why?"}])
        chunks = [chunk async for chunk in stream]
    assert {chunk.model for chunk in chunks} == {"council/quick"}
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert calls(preset_server.fake)["review"] == 2


async def test_an_unknown_preset_is_a_404_naming_the_model(preset_server):
    async with openai.AsyncOpenAI(base_url=preset_server.base_url, api_key="unused", max_retries=0) as sdk:
        with pytest.raises(openai.NotFoundError) as caught:
            await sdk.chat.completions.create(model="council/slow", messages=[{"role": "user", "content": "Why?"}])
    assert "council/slow" in str(caught.value) and caught.value.code == "model_not_found"


async def test_council_quick_progress_says_the_top_answer_stands(simulated):  # noqa: F811
    async with openai.AsyncOpenAI(base_url=simulated.base_url, api_key="unused", max_retries=0) as sdk:
        stream = await sdk.chat.completions.create(model="council/quick", stream=True,
                                                   messages=[{"role": "user", "content": "Why is the sky blue?"}])
        progress = "".join([getattr(c.choices[0].delta, "reasoning_content", None) or ""
                            async for c in stream if c.choices])
    assert "No chairman: the top-ranked answer stands." in progress
    assert "Writing the final answer" not in progress
