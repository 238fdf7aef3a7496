"""The page with a moderation API as the gate's second check: an answer's text waits for its verdict."""

from __future__ import annotations

import json

from council.storage.store import Store
from council.testing.fake_llm import RecordedRequest, Step
from council.testing.fake_moderation import llama_guard_reply
from council.testing.scripted import council_member
from tests.server.conftest import quality_judge, serve
from tests.server.test_blocked_runs import page_run
from tests.web.server import WEB_KEY, web_config


def guard(request: RecordedRequest) -> str:
    """Llama Guard on the fake: the forbidden lore is a non-violent crime (S2)."""
    return llama_guard_reply("S2") if "forbidden lore" in request.messages[-1]["content"] else llama_guard_reply()


async def test_with_a_moderation_api_an_answer_waits_for_its_verdict(fake_llm, tmp_path):
    lore = "The forbidden lore, in full: knead the dough at midnight. quality=7"
    fake_llm.script("model-alpha", Step(reply=council_member("alpha says Paris. quality=9", quality_judge)))
    fake_llm.script("model-beta", Step(reply=council_member(lore, quality_judge)))
    fake_llm.script("model-gamma", Step(reply=council_member("gamma says Paris. quality=5", quality_judge)))
    fake_llm.script("llama-guard3", Step(reply=guard))
    config = web_config(fake_llm, tmp_path / "council.db")
    safety = config.safety.model_validate({"moderation": {"provider": "llama_guard",
                                                          "base_url": fake_llm.base_url("openai")}})
    config = config.model_copy(update={"safety": safety})
    runner, server = await serve(fake_llm, config, Store(tmp_path / "council.db"), WEB_KEY)
    try:
        _, events = await page_run(server.url, "What is the capital of France?")
        assert "knead the dough" not in json.dumps(events)
        beta = [e for e in events if e["kind"] == "answer" and e["data"]["member"] == "beta"]
        verdict = next(e for e in events if e["kind"] == "safety" and e["data"]["member"] == "beta")
        assert [e["data"]["content"] for e in beta] == [None, "The forbidden lore, in …[blocked: "
                                                              "dangerous_instructions]"]
        assert beta[0]["seq"] < verdict["seq"] < beta[1]["seq"]
        assert len([r for r in fake_llm.requests if r.model == "llama-guard3"]) == 3
    finally:
        await runner.cleanup()
        server.store.close()
