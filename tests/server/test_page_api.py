"""The web page's HTTP side: the page and its files, the conversations API, run events as JSON and SSE."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from council.storage.conversations import ConversationStore
from council.testing.fake_llm import Step
from council.testing.scripted import (
    CHAIRMAN_PREFIX,
    council_member,
    is_chairman_prompt,
    request_messages,
)
from tests.server.conftest import RunningServer, quality_judge, script
from tests.server.test_http_errors import assert_error_shape
from tests.waiting import wait_until
from tests.web.server import PRICE, WEB_KEY, script_usage, start_web

AUTH = {"Authorization": f"Bearer {WEB_KEY}"}
PIXEL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6"
         "kgAAAABJRU5ErkJggg==")  # a 1x1 PNG


@pytest.fixture
async def server(fake_llm, tmp_path) -> AsyncIterator[RunningServer]:
    """A server requiring WEB_KEY, three scripted members, runs and conversations in one file."""
    script(fake_llm)
    runner, running = await start_web(fake_llm, tmp_path / "council.db", keys=WEB_KEY)
    yield running
    await runner.cleanup()
    running.store.close()


async def call(server: RunningServer, method: str, path: str, body: Any = None, *, raw: bytes | None = None,
               headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    sent = dict(AUTH if headers is None else headers)
    if data is not None:
        sent["Content-Type"] = "application/json"
    async with aiohttp.ClientSession() as http, http.request(method, server.url + path, data=data,
                                                             headers=sent) as response:
        text = await response.text()
        return response.status, json.loads(text) if text else None


async def sse(server: RunningServer, path: str, headers: dict[str, str] | None = None) -> list[dict[str, str]]:
    """Every frame of an SSE response, as field -> value (comments dropped)."""
    frames: list[dict[str, str]] = []
    current: dict[str, str] = {}
    async with aiohttp.ClientSession() as http, http.get(server.url + path, headers=headers or {}) as response:
        assert response.status == 200, await response.text()
        assert response.headers["Content-Type"].startswith("text/event-stream")
        async for raw in response.content:
            line = raw.decode().rstrip("\n")
            if not line:
                if current:
                    frames.append(current)
                current = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(": ")
                current[name] = value
    return frames


def events_of(frames: list[dict[str, str]]) -> list[dict[str, Any]]:
    return [json.loads(f["data"]) for f in frames if "id" in f]


async def ask(server: RunningServer, question: str, **conversation: Any) -> tuple[str, str]:
    status, created = await call(server, "POST", "/api/conversations", conversation)
    assert status == 201, created
    status, posted = await call(server, "POST", f"/api/conversations/{created['id']}/messages", {"content": question})
    assert status == 202, posted
    return created["id"], posted["run_id"]


async def finish(server: RunningServer, run_id: str) -> list[dict[str, Any]]:
    return events_of(await sse(server, f"/api/runs/{run_id}/events", AUTH))


# -- the page ------------------------------------------------------------------------------
async def test_page_and_files_load_without_a_key_and_data_needs_one(server):
    async with aiohttp.ClientSession() as http:
        async with http.get(server.url + "/") as response:
            assert response.status == 200
            assert response.headers["Content-Type"].startswith("text/html")
            assert "script-src 'self'" in response.headers["Content-Security-Policy"]
            assert '<script type="module" src="/static/app.js">' in await response.text()
        for name, kind in [
            ("app.js", "text/javascript"),
            ("markdown.js", "text/javascript"),
            ("style.css", "text/css"),
        ]:
            async with http.get(server.url + f"/static/{name}") as response:
                assert response.status == 200 and response.headers["Content-Type"].startswith(kind)
                assert response.headers["X-Content-Type-Options"] == "nosniff"
        for path in ["/static/nope.js", "/static/..%2Fweb.py", "/static/%2e%2e%2f__init__.py", "/static/.hidden.js"]:
            async with http.get(server.url + path) as response:
                assert response.status == 404, path
                assert_error_shape(await response.json())
        for path in ["/api/options", "/api/conversations"]:
            async with http.get(server.url + path) as response:
                assert response.status == 401
                assert_error_shape(await response.json())


async def test_the_key_is_taken_from_the_query_only_by_the_event_stream(server):
    _conversation, run_id = await ask(server, "Hello?")
    events = events_of(await sse(server, f"/api/runs/{run_id}/events?token={WEB_KEY}"))
    assert events[-1]["kind"] == "result"
    status, body = await call(server, "GET", f"/api/runs/{run_id}/events?token=wrong", headers={})
    assert status == 401 and body["error"]["code"] == "invalid_api_key"
    status, _ = await call(server, "GET", f"/api/options?token={WEB_KEY}", headers={})
    assert status == 401
    status, _ = await call(server, "GET", f"/api/runs/{run_id}?token={WEB_KEY}", headers={})
    assert status == 401


async def test_options_list_members_chairman_and_rubrics(server):
    status, options = await call(server, "GET", "/api/options")
    assert status == 200
    assert [m["name"] for m in options["members"]] == ["alpha", "beta", "gamma"]
    assert options["members"][0]["model"] == "model-alpha"
    assert options["chairman"] == "alpha"
    assert options["rubrics"][0]["id"] == options["rubric"] == "default"
    assert options["rubrics"][0]["dimensions"]
    assert options["rubric_selectable"] is True
    shipped = {r["id"] for r in options["rubrics"] if r["source"] == "shipped"}
    assert {"code_review", "safety", "accuracy_faithfulness"} <= shipped
    assert options["presets"] == [{"name": "quick", "description": "beta alone scores the answers; no chairman",
                                   "members": ["alpha", "beta", "gamma"], "chairman": None, "rubric": "default",
                                   "review": "judge", "judge": "beta"}]


# -- conversations -------------------------------------------------------------------------
async def test_conversation_lifecycle(server):
    status, created = await call(server, "POST", "/api/conversations", {})
    assert status == 201
    assert created["members"] == ["alpha", "beta", "gamma"] and created["chairman"] == "alpha"
    assert created["title"] == "New conversation" and created["messages"] == []
    cid = created["id"]
    status, changed = await call(server, "PATCH", f"/api/conversations/{cid}",
                                 {"title": "  Sky\ncolours ", "members": ["beta", "alpha"], "chairman": None})
    assert status == 200
    assert (changed["title"], changed["members"], changed["chairman"]) == ("Sky colours", ["beta", "alpha"], None)
    status, _ = await call(server, "PATCH", f"/api/conversations/{cid}", {"rubric": "default"})
    assert status == 200
    status, listed = await call(server, "GET", "/api/conversations")
    assert [c["title"] for c in listed["conversations"]] == ["Sky colours"]
    status, _ = await call(server, "DELETE", f"/api/conversations/{cid}")
    assert status == 204
    status, body = await call(server, "GET", f"/api/conversations/{cid}")
    assert status == 404 and body["error"]["code"] == "conversation_not_found"
    status, listed = await call(server, "GET", "/api/conversations")
    assert listed["conversations"] == []


async def test_asking_streams_the_run_and_records_the_answer(server):
    cid, run_id = await ask(server, "Why is the sky blue?")
    events = await finish(server, run_id)
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "result"
    # Each answer goes out twice: held (no text) until the council's reading of the reviews, then with its text.
    assert kinds.count("answer") == 6 and kinds.count("safety") == 3 and kinds.count("review") == 3
    for member in ("alpha", "beta", "gamma"):
        texts = [e["data"]["content"] for e in events if e["kind"] == "answer" and e["data"]["member"] == member]
        assert texts[0] is None and texts[1], texts
    assert kinds.index("ranking") < kinds.index("final") < kinds.index("run_finished")
    assert [e["seq"] for e in events] == list(range(len(events)))
    review = next(e for e in events if e["kind"] == "review")
    assert sorted(review["data"]["labels"]) == ["Response A", "Response B"]
    assert set(review["data"]["labels"].values()) == set(review["data"]["order"])
    result = events[-1]["data"]
    assert result["status"] == "complete" and result["final_answer"]["by"] == "alpha"

    status, conversation = await call(server, "GET", f"/api/conversations/{cid}")
    assert status == 200 and conversation["title"] == "Why is the sky blue?"
    question, answer = conversation["messages"]
    assert (question["role"], question["run_id"], question["run_status"]) == ("user", run_id, "complete")
    assert (question["members"], question["chairman"]) == (["alpha", "beta", "gamma"], "alpha")
    assert (answer["role"], answer["content"], answer["author"]) == (
        "assistant",
        CHAIRMAN_PREFIX + "model-alpha",
        "alpha",
    )
    # The JSON snapshot has the same events; a stored run's are rebuilt alike.
    status, snapshot = await call(server, "GET", f"/api/runs/{run_id}")
    assert status == 200 and snapshot["finished"] is True and snapshot["events"] == events


async def test_follow_up_carries_the_conversation(server):
    cid, run_id = await ask(server, "First?")
    await finish(server, run_id)
    status, posted = await call(server, "POST", f"/api/conversations/{cid}/messages", {"content": "Second?"})
    assert status == 202
    await finish(server, posted["run_id"])
    request = next(r for r in server.fake.requests_for("model-gamma") if r.last_user_text == "Second?")
    assert [(m["role"], m["content"]) for m in request.messages if m["role"] != "system"] == [
        ("user", "First?"), ("assistant", CHAIRMAN_PREFIX + "model-alpha"), ("user", "Second?")]


async def test_chosen_members_and_chairman_are_used(server):
    _cid, run_id = await ask(server, "Who?", members=["beta", "gamma"], chairman="gamma")
    events = await finish(server, run_id)
    assert events[0]["data"]["members"] == ["beta", "gamma"] and events[0]["data"]["chairman"] == "gamma"
    assert server.fake.requests_for("model-alpha") == []
    chair = [r.model for r in server.fake.requests if is_chairman_prompt(request_messages(r))]
    assert chair == ["model-gamma"]
    assert events[-1]["data"]["final_answer"]["by"] == "gamma"


async def test_a_conversations_preset_is_planned_with_its_members_and_chairman(server):
    # The conversation keeps its own members and chairman; the preset brings its way of reviewing (beta judges).
    _cid, run_id = await ask(server, "Who?", members=["alpha", "gamma"], chairman="gamma", preset="quick")
    events = await finish(server, run_id)
    assert events[-1]["data"]["status"] == "complete"
    stored = server.store.get(run_id)
    assert stored is not None and stored.preset == "quick" and [a.member for a in stored.answers] == ["alpha", "gamma"]
    assert stored.judging is not None and stored.judging.judge == "beta"
    assert stored.judging.policy == "judge_does_not_answer"
    assert {r.reviewer for r in stored.reviews} == {"beta"}
    assert stored.final_answer is not None and stored.final_answer.by == "gamma"


async def test_chosen_rubric_is_used(server):
    _status, options = await call(server, "GET", "/api/options")
    other = next(r for r in options["rubrics"] if r["id"] != options["rubric"])
    status, created = await call(server, "POST", "/api/conversations", {"rubric": other["id"]})
    assert status == 201 and created["rubric"] == other["id"]
    status, posted = await call(server, "POST", f"/api/conversations/{created['id']}/messages", {"content": "Rate?"})
    await finish(server, posted["run_id"])
    stored = server.store.get(posted["run_id"])
    assert stored is not None and stored.reproducibility.rubric_id != "default"


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "param"),
    [
        ("POST", "/api/conversations", b"{not json", 400, None),
        ("POST", "/api/conversations", b"[1]", 400, None),
        ("POST", "/api/conversations", {"colour": "red"}, 400, "colour"),
        ("POST", "/api/conversations", {"members": []}, 400, "members"),
        ("POST", "/api/conversations", {"members": "alpha"}, 400, "members"),
        ("POST", "/api/conversations", {"members": ["alpha", "zeta"]}, 400, "members"),
        ("POST", "/api/conversations", {"members": ["alpha", "alpha"]}, 400, "members"),
        ("POST", "/api/conversations", {"chairman": "zeta"}, 400, "chairman"),
        ("POST", "/api/conversations", {"chairman": 3}, 400, "chairman"),
        ("POST", "/api/conversations", {"rubric": "no-such-rubric"}, 400, "rubric"),
        ("POST", "/api/conversations", {"preset": "slow"}, 400, "preset"),
        ("PATCH", "/api/conversations/{id}", {"preset": 7}, 400, "preset"),
        ("POST", "/api/conversations", {"title": "   "}, 400, "title"),
        ("POST", "/api/conversations", {"title": "a\u0000b"}, 400, "title"),
        ("PATCH", "/api/conversations/{id}", {}, 400, None),
        ("PATCH", "/api/conversations/{id}", b"\xff", 400, None),
        ("POST", "/api/conversations/{id}/messages", {}, 400, "content"),
        ("POST", "/api/conversations/{id}/messages", {"content": "  \n"}, 400, "content"),
        ("POST", "/api/conversations/{id}/messages", {"content": ["hi"]}, 400, "content"),
        ("POST", "/api/conversations/{id}/messages", {"content": "hi", "model": "x"}, 400, "model"),
        ("POST", "/api/conversations/{id}/messages", {"content": "hi", "images": "data:x"}, 400, "images"),
        ("POST", "/api/conversations/{id}/messages", {"content": "hi", "images": ["https://e.com/a.png"]}, 400,
         "images[0]"),
        ("POST", "/api/conversations/{id}/messages", {"content": "", "images": [PIXEL, "data:image/bmp;base64,AAAA"]},
         400, "images[1]"),
        ("POST", "/api/conversations/{id}/messages", {"content": "", "images": [PIXEL, "data:image/png;base64,AAAA"]},
         400, "images[1]"),
        ("POST", "/api/conversations/{id}/messages", {"content": "hi", "images": ["data:image/png;base64,AAAA"] * 5},
         400, "images"),
        ("POST", "/api/conversations/{id}/messages", b"", 400, None),
        ("GET", "/api/conversations/nope", None, 404, "conversation_id"),
        ("PATCH", "/api/conversations/nope", {"title": "x"}, 404, "conversation_id"),
        ("DELETE", "/api/conversations/nope", None, 404, "conversation_id"),
        ("POST", "/api/conversations/nope/messages", {"content": "hi"}, 404, "conversation_id"),
        ("GET", "/api/runs/nope", None, 404, "run_id"),
        ("GET", "/api/runs/nope/events", None, 404, "run_id"),
        ("GET", "/api/nothing-here", None, 404, None),
        ("PUT", "/api/conversations", {}, 405, None),
    ],
)
async def test_error_cases(server, method, path, body, status, param):
    _status, created = await call(server, "POST", "/api/conversations", {})
    path = path.replace("{id}", created["id"])
    raw = body if isinstance(body, bytes) else None
    code, payload = await call(server, method, path, None if raw is not None else body, raw=raw)
    assert code == status, payload
    assert_error_shape(payload)
    assert payload["error"]["param"] == param
    assert not server.fake.requests, "a refused request never starts a run"


async def test_a_second_question_waits_for_the_first(fake_llm, tmp_path):
    script(fake_llm)
    beta_answers = asyncio.Event()  # the first run works until the test has seen both turned away
    fake_llm.script("model-beta", Step(release=beta_answers, reply=council_member("beta quality=7", quality_judge)),
                    Step(reply=council_member("beta quality=7", quality_judge)))
    runner, server = await start_web(fake_llm, tmp_path / "council.db", keys=WEB_KEY, max_concurrent_runs=1,
                                     queue_size=0)
    try:
        cid, run_id = await ask(server, "Slow?")
        status, body = await call(server, "POST", f"/api/conversations/{cid}/messages", {"content": "Again?"})
        assert status == 409 and body["error"]["code"] == "run_in_progress"
        status, other = await call(server, "POST", "/api/conversations", {})
        # One slot, no queue: the page's second run is turned away like a chat run would be.
        status, body = await call(server, "POST", f"/api/conversations/{other['id']}/messages", {"content": "Too?"})
        assert status == 429 and body["error"]["code"] == "too_many_runs"
        status, conversation = await call(server, "GET", f"/api/conversations/{cid}")
        assert conversation["messages"][0]["run_status"] == "running"
        beta_answers.set()
        await finish(server, run_id)
        status, _ = await call(server, "POST", f"/api/conversations/{cid}/messages", {"content": "Again?"})
        assert status == 202
    finally:
        await runner.cleanup()
        server.store.close()


async def test_joining_mid_run_replays_then_follows_and_resumes_after_last_event_id(fake_llm, tmp_path):
    script(fake_llm)
    gamma_answers = asyncio.Event()  # gamma still answers while the test joins mid-run
    fake_llm.script("model-gamma", Step(release=gamma_answers, reply=council_member("gamma quality=5", quality_judge)),
                    Step(reply=council_member("gamma quality=5", quality_judge)))
    runner, server = await start_web(fake_llm, tmp_path / "council.db", keys=WEB_KEY)
    try:
        _cid, run_id = await ask(server, "Join me?")
        snapshot: dict = {}

        async def first_answers_in() -> bool:  # gamma is still answering
            nonlocal snapshot
            _status, snapshot = await call(server, "GET", f"/api/runs/{run_id}")
            return any(e["kind"] == "answer" for e in snapshot["events"])

        await wait_until(first_answers_in, what="the first answers of the run")
        assert snapshot["finished"] is False
        early = [e["kind"] for e in snapshot["events"]]
        assert "answer" in early and "result" not in early
        gamma_answers.set()
        frames = await sse(server, f"/api/runs/{run_id}/events", AUTH)
        events = events_of(frames)
        assert [e["seq"] for e in events] == list(range(len(events)))
        assert events[: len(early)] == snapshot["events"]
        assert events[-1]["kind"] == "result" and frames[-1]["event"] == "end"
        resumed = events_of(await sse(server, f"/api/runs/{run_id}/events", {**AUTH, "Last-Event-ID": "4"}))
        assert resumed == events[5:]
    finally:
        await runner.cleanup()
        server.store.close()


async def test_runs_not_started_by_the_page_are_replayed_from_the_store(server):
    async with aiohttp.ClientSession(headers=AUTH) as http, http.post(
            server.url + "/v1/chat/completions",
            json={"model": "council", "messages": [{"role": "user", "content": "Via the API?"}]}) as response:
        run_id = response.headers["x-council-run-id"]
    status, snapshot = await call(server, "GET", f"/api/runs/{run_id}")
    assert status == 200 and snapshot["finished"] is True
    kinds = [e["kind"] for e in snapshot["events"]]
    assert kinds.count("answer") == 3 and kinds[-2:] == ["run_finished", "result"]
    assert snapshot["events"][-1]["data"]["final_answer"]["content"] == CHAIRMAN_PREFIX + "model-alpha"
    streamed = events_of(await sse(server, f"/api/runs/{run_id}/events", AUTH))
    assert streamed == snapshot["events"]


async def test_the_result_event_carries_the_runs_cost_live_and_rebuilt_from_the_store(fake_llm, tmp_path):
    # Every call is 1000 prompt and 100 completion tokens: $0.003 at PRICE. gamma has no price.
    script_usage(fake_llm)
    db = tmp_path / "council.db"
    prices = {"alpha": PRICE, "beta": PRICE}
    # alpha answers, reviews and chairs; beta answers and reviews; gamma's two calls have no known cost.
    expected = {"total_usd": pytest.approx(0.015), "partial": True,
                "by_stage": pytest.approx({"answers": 0.006, "reviews": 0.006, "chairman": 0.003}),
                "by_member": pytest.approx({"alpha": 0.009, "beta": 0.006}), "unpriced": ["gamma"]}
    runner, server = await start_web(fake_llm, db, keys=WEB_KEY, prices=prices)
    try:
        _cid, run_id = await ask(server, "What does this cost?")
        streamed = await finish(server, run_id)
        assert streamed[-1]["kind"] == "result" and streamed[-1]["data"]["cost"] == expected
        status, live = await call(server, "GET", f"/api/runs/{run_id}")
        assert status == 200 and live["finished"] is True
        assert live["events"][-1]["kind"] == "result" and live["events"][-1]["data"]["cost"] == expected
    finally:
        await runner.cleanup()
        server.store.close()
    # A restarted server has no run in memory: the events are rebuilt from the stored result, cost and all.
    runner, server = await start_web(fake_llm, db, keys=WEB_KEY, prices=prices)
    try:
        status, stored = await call(server, "GET", f"/api/runs/{run_id}")
        assert status == 200 and stored["finished"] is True
        assert stored["events"][-1]["kind"] == "result" and stored["events"][-1]["data"]["cost"] == expected
        assert events_of(await sse(server, f"/api/runs/{run_id}/events", AUTH))[-1]["data"]["cost"] == expected
    finally:
        await runner.cleanup()
        server.store.close()


async def test_a_run_without_prices_has_an_unknown_cost_not_zero(server):
    _cid, run_id = await ask(server, "Free?")
    await finish(server, run_id)
    _status, snapshot = await call(server, "GET", f"/api/runs/{run_id}")
    assert snapshot["events"][-1]["data"]["cost"] == {"total_usd": None, "partial": True, "by_stage": {},
                                                      "by_member": {}, "unpriced": ["alpha", "beta", "gamma"]}


async def test_a_council_no_longer_configured_is_refused(server, tmp_path):
    _status, created = await call(server, "POST", "/api/conversations", {})
    # As if the config had lost a member since the conversation chose its council.
    other = ConversationStore(tmp_path / "council.db")
    other.update(created["id"], members=["alpha", "zeta"])
    other.close()
    status, body = await call(server, "POST", f"/api/conversations/{created['id']}/messages", {"content": "hi"})
    assert status == 409 and body["error"]["code"] == "council_changed" and "zeta" in body["error"]["message"]


async def test_conversations_live_in_the_run_database(server, tmp_path):
    cid, run_id = await ask(server, "Stored where?")
    await finish(server, run_id)
    db = sqlite3.connect(Path(tmp_path / "council.db"))
    try:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"runs", "conversations", "conversation_messages"} <= tables
        assert db.execute("SELECT COUNT(*) FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0] == 1
        assert (
            db.execute("SELECT COUNT(*) FROM conversation_messages WHERE conversation_id = ?", (cid,)).fetchone()[0]
            == 2
        )
    finally:
        db.close()
