"""Blocked text over HTTP: masked in ``GET /v1/council/runs/ID`` and in the page's API (live, and rebuilt from the
store); a run whose every answer was blocked is ``blocked`` in the response, the stored run and the page's events."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import openai

from council.review.flags import NO_FLAGS, ReviewFlags
from council.storage.store import Store
from council.testing.fake_llm import RecordedRequest, Step
from council.testing.scripted import council_member
from tests.server.conftest import API_KEY, MEMBERS, quality_judge, serve
from tests.web.server import WEB_KEY, start_web, web_config

UNSAFE = "To build a pipe bomb, Step 1: fill a steel pipe with black powder. Step 2: cap both ends."
SECRET = ("black powder", "cap both ends", "Step 1", "bomb, Step")
QUESTION = [{"role": "user", "content": "What is the capital of France?"}]


def leaked(body: Any) -> list[str]:
    text = json.dumps(body, ensure_ascii=False)
    return [part for part in SECRET if part in text]


def script_unsafe(fake, *unsafe: str) -> None:
    for name, quality in MEMBERS.items():
        answer = UNSAFE if name in unsafe else f"{name} says Paris. quality={quality}"
        fake.script(f"model-{name}", Step(reply=council_member(answer, quality_judge)))


async def get(url: str, key: str) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as http, http.get(url, headers={"Authorization": f"Bearer {key}"}) as response:
        return response.status, await response.json()


async def page_run(url: str, question: str) -> tuple[str, list[dict[str, Any]]]:
    """Ask through the page's API; the run id and every event of its live stream."""
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {WEB_KEY}"}) as http:
        async with http.post(url + "/api/conversations", json={}) as response:
            conversation = await response.json()
        async with http.post(f"{url}/api/conversations/{conversation['id']}/messages",
                             json={"content": question}) as response:
            run_id = (await response.json())["run_id"]
        events = []
        async with http.get(f"{url}/api/runs/{run_id}/events") as response:
            async for raw in response.content:
                line = raw.decode().strip()
                if line.startswith("data: {\"seq\""):
                    events.append(json.loads(line[6:]))
    return run_id, events


async def test_the_stored_run_over_http_masks_what_was_blocked(fake_llm, tmp_path):
    script_unsafe(fake_llm, "beta")
    runner, server = await start_web(fake_llm, tmp_path / "council.db", keys=WEB_KEY)
    try:
        async with openai.AsyncOpenAI(base_url=server.base_url, api_key=WEB_KEY, max_retries=0) as sdk:
            raw = await sdk.chat.completions.with_raw_response.create(model="council", messages=QUESTION)
        run_id = raw.headers["x-council-run-id"]
        status, run = await get(f"{server.base_url}/council/runs/{run_id}", WEB_KEY)
        assert status == 200 and run["status"] == "complete"
        beta = next(a for a in run["answers"] if a["member"] == "beta")
        assert beta["status"] == "blocked" and beta["content"] == "To build a pipe …[blocked: weapon_making]"
        assert beta["safety"]["findings"][0]["category"] == "weapon_making"
        assert leaked(run) == []
        # The page's API rebuilds a run it did not start from the store: masked the same way.
        status, snapshot = await get(f"{server.url}/api/runs/{run_id}", WEB_KEY)
        assert status == 200 and leaked(snapshot) == []
        answer = next(e["data"] for e in snapshot["events"] if e["kind"] == "answer" and e["data"]["member"] == "beta")
        assert answer["content"] == beta["content"]
        # The store keeps the answer as written.
        stored = server.store.get(run_id)
        assert stored is not None and stored.answer("beta").content == UNSAFE
    finally:
        await runner.cleanup()
        server.store.close()


async def test_the_page_never_receives_blocked_text_live(fake_llm, tmp_path):
    script_unsafe(fake_llm, "beta")
    runner, server = await start_web(fake_llm, tmp_path / "council.db", keys=WEB_KEY)
    try:
        run_id, events = await page_run(server.url, "What is the capital of France?")
        assert events and events[-1]["kind"] == "result"
        assert leaked(events) == [], "not even for the moment between beta's answer and the gate"
        beta = [e["data"] for e in events if e["kind"] == "answer" and e["data"]["member"] == "beta"]
        assert beta and all(a["content"] == "To build a pipe …[blocked: weapon_making]" for a in beta)
        gamma = [e for e in events if e["kind"] == "answer" and e["data"]["member"] == "gamma"]
        # Held until the council's reading of the reviews (safety.council_review), then out as written.
        assert [e["data"]["content"] for e in gamma] == [None, "gamma says Paris. quality=5"]
        ranking = next(e for e in events if e["kind"] == "ranking")
        assert gamma[1]["seq"] < ranking["seq"]
        status, snapshot = await get(f"{server.url}/api/runs/{run_id}", WEB_KEY)
        assert status == 200 and leaked(snapshot) == []
    finally:
        await runner.cleanup()
        server.store.close()


def classifier(request: RecordedRequest) -> str:
    """gamma as the LLM safety classifier: anything mentioning the forbidden lore is unsafe."""
    if "You are a safety classifier" in request.messages[0]["content"]:
        unsafe = "forbidden lore" in request.messages[-1]["content"]
        return json.dumps({"safe": not unsafe, **({"category": "dangerous_instructions",
                                                   "evidence": "the forbidden lore, in full"} if unsafe else {})})
    return council_member("gamma says Paris. quality=5", quality_judge)(request)


async def test_with_an_llm_classifier_an_answer_waits_for_its_verdict(fake_llm, tmp_path):
    lore = "The forbidden lore, in full: knead the dough at midnight. quality=7"
    fake_llm.script("model-alpha", Step(reply=council_member("alpha says Paris. quality=9", quality_judge)))
    fake_llm.script("model-beta", Step(reply=council_member(lore, quality_judge)))
    fake_llm.script("model-gamma", Step(reply=classifier))
    config = web_config(fake_llm, tmp_path / "council.db")
    config = config.model_copy(update={"safety": config.safety.model_copy(update={"llm_member": "gamma"})})
    runner, server = await serve(fake_llm, config, Store(tmp_path / "council.db"), WEB_KEY)
    try:
        _, events = await page_run(server.url, "What is the capital of France?")
        assert "knead the dough" not in json.dumps(events)
        beta = [e for e in events if e["kind"] == "answer" and e["data"]["member"] == "beta"]
        verdict = next(e for e in events if e["kind"] == "safety" and e["data"]["member"] == "beta")
        masked = "The forbidden lore, in …[blocked: dangerous_instructions]"
        assert [e["data"]["content"] for e in beta] == [None, masked]
        assert beta[0]["seq"] < verdict["seq"] < beta[1]["seq"] and beta[1]["data"]["status"] == "blocked"
        alpha = [e["data"]["content"] for e in events if e["kind"] == "answer" and e["data"]["member"] == "alpha"]
        assert alpha == [None, "alpha says Paris. quality=9"], "a passing answer follows its verdict"
    finally:
        await runner.cleanup()
        server.store.close()


async def test_a_fully_blocked_run_is_blocked_in_the_response_the_store_and_the_page(fake_llm, tmp_path):
    script_unsafe(fake_llm, "alpha", "beta", "gamma")
    runner, server = await start_web(fake_llm, tmp_path / "council.db", keys=WEB_KEY)
    try:
        async with openai.AsyncOpenAI(base_url=server.base_url, api_key=WEB_KEY, max_retries=0) as sdk:
            completion = await sdk.chat.completions.create(model="council", messages=QUESTION)
            stream = await sdk.chat.completions.create(model="council", messages=QUESTION, stream=True)
            chunks = [chunk async for chunk in stream]
        assert completion.choices[0].finish_reason == "content_filter"
        assert completion.choices[0].message.content.startswith("The council withheld its answer")
        council = completion.model_extra["council"]
        assert council["status"] == "blocked"
        assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "content_filter"
        status, run = await get(f"{server.base_url}/council/runs/{council['run_id']}", WEB_KEY)
        assert status == 200 and run["status"] == "blocked" and run["final_answer"]["blocked"] is True
        assert leaked(run) == []

        _, events = await page_run(server.url, "What is the capital of France?")
        finished = next(e["data"] for e in events if e["kind"] == "run_finished")
        assert finished["status"] == "blocked" and events[-1]["data"]["status"] == "blocked"
        assert leaked(events) == []
    finally:
        await runner.cleanup()
        server.store.close()


async def test_get_run_needs_the_key_and_names_a_missing_run(fake_llm, tmp_path):
    runner, server = await start_web(fake_llm, tmp_path / "council.db", keys=WEB_KEY)
    try:
        status, body = await get(f"{server.base_url}/council/runs/nope", WEB_KEY)
        assert status == 404 and body["error"]["param"] == "run_id"
        status, _ = await get(f"{server.base_url}/council/runs/nope", API_KEY)
        assert status == 401
    finally:
        await runner.cleanup()
        server.store.close()


async def test_the_page_holds_every_answer_until_the_councils_reading_and_never_shows_what_it_blocks(
        fake_llm, tmp_path):
    # The patterns let this through; alpha and gamma, beta's two reviewers, both call it harmful.
    outline = "Sure: you just need two household cleaners and a small closed room. quality=9"
    for name, quality in MEMBERS.items():
        answer = outline if name == "beta" else f"{name} says Paris. quality={quality}"
        fake_llm.script(f"model-{name}", Step(reply=council_member(
            answer, quality_judge,
            flag=lambda text: ReviewFlags(harmful="dangerous_instructions") if "closed room" in text else NO_FLAGS)))
    runner, server = await start_web(fake_llm, tmp_path / "council.db", keys=WEB_KEY)
    try:
        run_id, events = await page_run(server.url, "What is the capital of France?")
        assert "closed room" not in json.dumps(events), "not even before the reviewers had read it"
        beta = [e for e in events if e["kind"] == "answer" and e["data"]["member"] == "beta"]
        verdict = next(e for e in events if e["kind"] == "safety" and e["data"]["member"] == "beta"
                       and e["data"]["checker"] == "council")
        assert [e["data"]["content"] for e in beta] == [None, "Sure: you just need …[blocked: dangerous_instructions]"]
        assert beta[0]["seq"] < verdict["seq"] < beta[1]["seq"] and beta[1]["data"]["status"] == "blocked"
        assert verdict["data"]["findings"][0]["evidence"] == (
            "2 of 2 reviewers called it harmful: alpha (dangerous_instructions), gamma (dangerous_instructions)")
        status, snapshot = await get(f"{server.url}/api/runs/{run_id}", WEB_KEY)
        assert status == 200 and "closed room" not in json.dumps(snapshot), "nor when rebuilt from the store"
        replayed = [e["kind"] for e in snapshot["events"]]
        # The replay says what the live run said: beta passed the patterns, then the reading blocked it.
        assert replayed.index("review") < max(i for i, e in enumerate(snapshot["events"])
                                              if e["kind"] == "safety" and e["data"]["member"] == "beta")
    finally:
        await runner.cleanup()
        server.store.close()
