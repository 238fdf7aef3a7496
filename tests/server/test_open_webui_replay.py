"""Open WebUI 0.12.4's own requests, replayed byte for byte against `council serve` on its defaults.

The fixtures in ``tests/data/open_webui/`` were captured from Open WebUI
driven in a browser (see that folder's README): a question with its 36
builtin tools attached, images, a second turn, and the side tasks (title,
tags, follow-ups) it sends around each question. The server runs the
shipped simulated council with no settings changed; every chat request
must be answered as a browser user expects, and one question with its
side tasks must cost one council run.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from council.config import load_config, simulated_config_path
from council.server.app import create_app
from council.server.listen import start_site
from council.storage.store import Store
from tests.server.openai_schemas import assert_valid

FIXTURES = Path(__file__).parents[1] / "data" / "open_webui"
CHAT_FIXTURES = sorted(p.name for p in FIXTURES.glob("chat-*.json"))
TASK_FIXTURES = sorted(p.name for p in FIXTURES.glob("task-*.json"))
# The headers Open WebUI sent, less those that belonged to the captured connection.
_DROPPED = {"host", "content-length"}


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


@pytest.fixture
async def default_server(tmp_path: Path) -> AsyncIterator[tuple[str, Store]]:
    """`council serve` as shipped: the simulated council, no keys, its database in a temporary folder."""
    config = load_config(simulated_config_path(), {})
    config = config.model_copy(update={"storage": config.storage.model_copy(update={"path": tmp_path / "c.db"})})
    app = create_app(config, environ={})
    runner, site = await start_site(app, config.server, "127.0.0.1", 0)
    store = Store(tmp_path / "c.db")
    try:
        yield f"http://127.0.0.1:{site.port}", store
    finally:
        await runner.cleanup()
        store.close()


async def replay(base: str, name: str) -> tuple[aiohttp.ClientResponse, bytes]:
    """Send a captured request as Open WebUI sent it; the response and its whole body."""
    captured = fixture(name)
    headers = {k: v for k, v in captured["headers"].items() if k.lower() not in _DROPPED}
    body = json.dumps(captured["body"], separators=(",", ":")).encode()  # Open WebUI sends compact JSON
    async with aiohttp.ClientSession() as http, \
            http.request(captured["method"], base + captured["path"], data=body, headers=headers) as response:
        return response, await response.read()


def stream_events(raw: bytes) -> list[str]:
    """The ``data:`` payloads of an SSE body, in order."""
    return [line.removeprefix("data: ") for line in raw.decode().splitlines() if line.startswith("data: ")]


def streamed_text(events: list[str]) -> str:
    text = ""
    for event in events[:-1]:
        chunk = json.loads(event)
        assert "error" not in chunk, f"the stream carried an error: {chunk}"
        for choice in chunk["choices"]:
            text += choice["delta"].get("content") or ""
    return text


def test_every_fixture_is_replayed():
    every = {p.name for p in FIXTURES.glob("*.json")}
    assert every == {"models-list.json", *CHAT_FIXTURES, *TASK_FIXTURES}, "a captured request no test replays"
    assert len(CHAT_FIXTURES) == 8 and len(TASK_FIXTURES) == 4


async def test_the_model_list_offers_the_council(default_server):
    base, _store = default_server
    response, raw = await replay(base, "models-list.json")
    ids = [m["id"] for m in json.loads(raw)["data"]]
    assert response.status == 200 and ids[0] == "council" and "council/quick" in ids


@pytest.mark.parametrize("name", CHAT_FIXTURES)
async def test_every_chat_request_is_answered(default_server, name):
    base, store = default_server
    response, raw = await replay(base, name)
    assert response.status == 200, raw[:300]
    events = stream_events(raw)
    assert events[-1] == "[DONE]"
    assert len(streamed_text(events).strip()) > 40, "the user sees an answer"
    tools = len(fixture(name)["body"].get("tools") or [])
    assert response.headers.get("x-council-tools-ignored") == (str(tools) if tools else None)
    [run] = store.list_runs()
    assert run.status == "complete" and run.run_id == response.headers["x-council-run-id"]


@pytest.mark.parametrize(("name", "key"), [("task-title.json", "title"), ("task-tags.json", "tags"),
                                           ("task-follow-ups.json", "follow_ups"),
                                           ("task-follow-ups-second-turn.json", "follow_ups")])
async def test_side_tasks_go_to_one_member_and_get_the_json_asked_for(default_server, name, key):
    base, store = default_server
    response, raw = await replay(base, name)
    assert response.status == 200, raw[:300]
    assert response.headers["x-council-task-model"] == "member/atlas", "the chairman answers side tasks"
    answer = json.loads(json.loads(raw)["choices"][0]["message"]["content"])
    assert answer[key], f"Open WebUI reads {key!r} from the answer"
    assert store.list_runs() == [], "no council run for a side task"


async def test_one_question_with_its_side_tasks_is_one_council_run(default_server):
    base, store = default_server
    # The order Open WebUI sends them in: the title alongside the question, then follow-ups, then tags.
    for name in ("task-title.json", "chat-default-with-builtin-tools.json", "task-follow-ups.json", "task-tags.json"):
        response, raw = await replay(base, name)
        assert response.status == 200, (name, raw[:300])
    runs = store.list_runs()
    assert len(runs) == 1 and runs[0].question.startswith("Why is the sky blue?")


async def test_follow_ups_after_a_second_turn_are_about_the_second_question(default_server):
    base, _store = default_server
    _response, raw = await replay(base, "task-follow-ups-second-turn.json")
    follow_ups = json.loads(json.loads(raw)["choices"][0]["message"]["content"])["follow_ups"]
    assert all("ten-year-old" in line or "paragraph" in line for line in follow_ups), follow_ups


@pytest.mark.parametrize("name", ["chat-default-with-builtin-tools.json", "chat-image-with-builtin-tools.json",
                                  "chat-second-turn-with-builtin-tools.json"])
async def test_open_webuis_requests_to_the_deliberate_preset_are_answered_with_the_round_on_record(
        default_server, name):
    base, store = default_server
    captured = fixture(name)
    assert captured["body"]["model"] == "council", "as captured; a user picks council/deliberate in the menu"
    captured["body"]["model"] = "council/deliberate"
    headers = {k: v for k, v in captured["headers"].items() if k.lower() not in _DROPPED}
    async with aiohttp.ClientSession() as http, http.request(
            captured["method"], base + captured["path"], data=json.dumps(captured["body"]).encode(),
            headers=headers) as response:
        raw = await response.read()
    assert response.status == 200, raw[:300]
    events = stream_events(raw)
    assert events[-1] == "[DONE]" and len(streamed_text(events).strip()) > 40
    assert b"Deliberation: " in raw, "the stream's progress says how many rounds ran and why"
    stored = store.get(response.headers["x-council-run-id"])
    assert stored is not None and stored.status == "complete" and stored.preset == "deliberate"
    assert stored.deliberation is not None and stored.deliberation.reason.startswith(("one round: ", "two rounds: "))


@pytest.mark.parametrize("member", ["atlas", "delta"])
@pytest.mark.parametrize("name", CHAT_FIXTURES + TASK_FIXTURES)
async def test_every_request_to_one_simulated_member_is_answered(default_server, name, member):
    base, store = default_server
    captured = fixture(name)
    captured["body"]["model"] = f"member/{member}"  # a user picks one member in the menu
    headers = {k: v for k, v in captured["headers"].items() if k.lower() not in _DROPPED}
    async with aiohttp.ClientSession() as http, http.request(
            captured["method"], base + captured["path"], data=json.dumps(captured["body"]).encode(),
            headers=headers) as response:
        raw = await response.read()
    assert response.status == 200, raw[:300]
    if not captured["body"].get("stream"):
        answer = json.loads(raw)
        assert_valid(answer, "CreateChatCompletionResponse")
        assert answer["choices"][0]["message"]["content"] and answer["model"] == f"member/{member}"
    else:
        events = stream_events(raw)
        assert events[-1] == "[DONE]"
        for event in events[:-1]:
            assert_valid(json.loads(event), "CreateChatCompletionStreamResponse")
        assert len(streamed_text(events).strip()) > 40, "the user sees an answer"
    assert store.list_runs() == [], "one member answers: no council run"
