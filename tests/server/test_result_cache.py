"""The result cache through the server, driven by the real openai SDK: hit and miss headers, bypass, streams."""

from __future__ import annotations

import openai

from council.config import CouncilConfig
from council.storage.store import Store
from tests.server.conftest import API_KEY, script, serve, server_config

QUESTION = [{"role": "user", "content": "What is six times seven?"}]


def cached(fake, **server: object) -> CouncilConfig:
    return CouncilConfig.model_validate({**server_config(fake, **server).model_dump(), "cache": {"ttl_s": 600}})


async def test_a_repeated_question_is_a_hit_and_says_so(fake_llm):
    script(fake_llm)
    runner, running = await serve(fake_llm, cached(fake_llm), Store(":memory:"), API_KEY)
    try:
        async with openai.AsyncOpenAI(base_url=running.base_url, api_key=API_KEY, max_retries=0) as sdk:
            first = await sdk.chat.completions.with_raw_response.create(model="council", messages=QUESTION)
            calls = len(fake_llm.requests)
            second = await sdk.chat.completions.with_raw_response.create(model="council", messages=QUESTION)
            assert len(fake_llm.requests) == calls, "the hit made no upstream call"
            fresh = await sdk.chat.completions.with_raw_response.create(
                model="council", messages=QUESTION, extra_headers={"Cache-Control": "no-cache"})
            in_body = await sdk.chat.completions.with_raw_response.create(
                model="council", messages=QUESTION, extra_body={"council_cache": False})
            stream = await sdk.chat.completions.with_raw_response.create(model="council", messages=QUESTION,
                                                                         stream=True)
            chunks = [chunk async for chunk in stream.parse()]
        stored = running.store.get(second.headers["x-council-run-id"])
    finally:
        await runner.cleanup()
        running.store.close()
    assert (first.headers["x-council-cache"], second.headers["x-council-cache"]) == ("miss", "hit")
    assert second.parse().choices[0].message.content == first.parse().choices[0].message.content
    assert stored is not None and stored.cached_from == first.headers["x-council-run-id"]
    assert "x-council-cache" not in fresh.headers and "x-council-cache" not in in_body.headers, "bypassed: no cache"
    assert len(fake_llm.requests) > calls, "the bypassing requests ran the council"
    assert stream.headers["x-council-cache"] == "hit"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == first.parse().choices[0].message.content, "a cached stream still streams the answer"
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) >= 1


async def test_council_cache_must_be_a_boolean(fake_llm):
    script(fake_llm)
    runner, running = await serve(fake_llm, cached(fake_llm), Store(":memory:"), API_KEY)
    try:
        async with openai.AsyncOpenAI(base_url=running.base_url, api_key=API_KEY, max_retries=0) as sdk:
            try:
                await sdk.chat.completions.create(model="council", messages=QUESTION,
                                                  extra_body={"council_cache": "no"})
            except openai.BadRequestError as error:
                assert "council_cache" in str(error)
            else:
                raise AssertionError("a string council_cache was accepted")
    finally:
        await runner.cleanup()
        running.store.close()


OTHER_KEY = "test-council-key-456"


def scoped(fake, scope: str) -> CouncilConfig:
    return CouncilConfig.model_validate({**server_config(fake).model_dump(), "cache": {"ttl_s": 600, "scope": scope}})


async def _cache_headers(running, asks) -> list[str | None]:
    """``x-council-cache`` of each (key, extra_body) ask, one after the other."""
    seen: list[str | None] = []
    for key, extra in asks:
        async with openai.AsyncOpenAI(base_url=running.base_url, api_key=key, max_retries=0) as sdk:
            reply = await sdk.chat.completions.with_raw_response.create(model="council", messages=QUESTION,
                                                                        extra_body=extra)
            seen.append(reply.headers.get("x-council-cache"))
    return seen


async def test_with_scope_key_a_cached_run_answers_only_its_own_key(fake_llm):
    script(fake_llm)
    runner, running = await serve(fake_llm, scoped(fake_llm, "key"), Store(":memory:"), f"{API_KEY},{OTHER_KEY}")
    try:
        seen = await _cache_headers(running, [(API_KEY, {}), (OTHER_KEY, {}), (API_KEY, {}), (OTHER_KEY, {})])
        # The Responses API asks through the same route: scoped the same way.
        async with openai.AsyncOpenAI(base_url=running.base_url, api_key=API_KEY, max_retries=0) as sdk:
            response = await sdk.responses.with_raw_response.create(model="council", input="What is six times seven?")
    finally:
        await runner.cleanup()
        running.store.close()
    assert seen == ["miss", "miss", "hit", "hit"], "each key has its own cached run"
    assert response.headers["x-council-cache"] == "hit"


async def test_the_shared_scope_answers_every_key_and_the_end_user_fields_split_it(fake_llm):
    script(fake_llm)
    runner, running = await serve(fake_llm, scoped(fake_llm, "shared"), Store(":memory:"), f"{API_KEY},{OTHER_KEY}")
    try:
        seen = await _cache_headers(running, [
            (API_KEY, {}), (OTHER_KEY, {}),
            (API_KEY, {"safety_identifier": "end-user-1"}), (OTHER_KEY, {"safety_identifier": "end-user-2"}),
            (OTHER_KEY, {"safety_identifier": "end-user-1"}), (API_KEY, {"user": "end-user-1"}),
        ])
    finally:
        await runner.cleanup()
        running.store.close()
    assert seen == ["miss", "hit", "miss", "miss", "hit", "miss"]
