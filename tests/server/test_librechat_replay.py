"""LibreChat's requests to a custom endpoint, replayed against `council serve` on its defaults.

The fixtures in ``tests/data/librechat/`` were reconstructed from
LibreChat's source (see that folder's README; none was captured from a
running LibreChat): the first message of a chat and a follow-up, streamed,
with custom instructions, changed parameters and an image; the title
request it sends once the first answer is in; and the model list it fetches
with ``models.fetch: true``. The server runs the shipped simulated council
with no settings changed. Each request is sent as LibreChat's openai SDK
sends it (its body as JSON, its headers), and read as LibreChat reads it.
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

FIXTURES = Path(__file__).parents[1] / "data" / "librechat"
CHAT_FIXTURES = sorted(p.name for p in FIXTURES.glob("chat-*.json"))
# Headers of the reconstructed connection, not of the request.
_DROPPED = {"host", "content-length"}
CHUNK, RESPONSE = "CreateChatCompletionStreamResponse", "CreateChatCompletionResponse"


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


async def replay(base: str, name: str, **body: Any) -> tuple[aiohttp.ClientResponse, bytes]:
    """Send a fixture's request as LibreChat sends it (``body`` overrides fields); the response and its body."""
    captured = fixture(name)
    headers = {k: v for k, v in captured["headers"].items() if k.lower() not in _DROPPED}
    headers["Authorization"] = "Bearer librechat-key"  # the apiKey from librechat.yaml; the server has no keys
    data = None if captured["body"] is None else json.dumps({**captured["body"], **body}).encode()
    async with aiohttp.ClientSession() as http, \
            http.request(captured["method"], base + captured["path"], data=data, headers=headers) as response:
        return response, await response.read()


def chunks(raw: bytes) -> list[dict[str, Any]]:
    """The JSON chunks of an SSE body, checking it ends with ``[DONE]`` as the openai SDK expects."""
    events = [line.removeprefix("data: ") for line in raw.decode().splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]", events[-3:]
    return [json.loads(event) for event in events[:-1]]


def read_as_librechat(parsed: list[dict[str, Any]]) -> tuple[str, str, dict[str, Any] | None]:
    """What LibreChat keeps of a stream: the answer, the thinking part, the usage.

    As @librechat/agents' ChatOpenAI._streamResponseChunks2 reads it: chunks
    without a choice are skipped (the usage chunk is kept for its usage),
    ``delta.content`` is the answer and ``delta.reasoning_content`` the
    collapsible thinking part.
    """
    answer, thinking, usage = "", "", None
    for chunk in parsed:
        assert "error" not in chunk, f"the stream carried an error: {chunk}"
        usage = chunk.get("usage") or usage
        if not chunk["choices"]:
            continue
        delta = chunk["choices"][0]["delta"]
        assert isinstance(delta.get("content") or "", str), "LibreChat skips non-string content"
        answer += delta.get("content") or ""
        thinking += delta.get("reasoning_content") or ""
    return answer, thinking, usage


def test_every_fixture_is_replayed():
    every = {p.name for p in FIXTURES.glob("*.json")}
    assert every == {"models-list.json", "task-title.json", *CHAT_FIXTURES}, "a fixture no test replays"
    assert len(CHAT_FIXTURES) == 5


async def test_the_model_list_is_one_librechat_reads(default_server):
    base, _store = default_server
    response, raw = await replay(base, "models-list.json")
    assert response.status == 200, raw[:300]
    listed = json.loads(raw)
    assert_valid(listed, "ListModelsResponse")
    # fetchModels keeps input.data.map(item => item.id).
    ids = [item["id"] for item in listed["data"]]
    assert ids[0] == "council" and "council/quick" in ids and all(isinstance(i, str) and i for i in ids)


@pytest.mark.parametrize("name", CHAT_FIXTURES)
async def test_every_chat_request_is_answered_as_a_stream_librechat_reads(default_server, name):
    base, store = default_server
    response, raw = await replay(base, name)
    assert response.status == 200, raw[:300]
    assert response.headers["Content-Type"].startswith("text/event-stream")
    parsed = chunks(raw)
    for chunk in parsed:
        assert_valid(chunk, CHUNK)
    answer, thinking, usage = read_as_librechat(parsed)
    assert len(answer.strip()) > 40, "the user sees an answer"
    assert thinking, "the council's progress shows as LibreChat's thinking part"
    assert usage is not None and usage["completion_tokens"] > 0, "stream_options.include_usage is honoured"
    assert response.headers.get("x-council-tools-ignored") is None
    [run] = store.list_runs()
    assert run.status == "complete" and run.run_id == response.headers["x-council-run-id"]


async def test_the_follow_up_is_about_the_second_question(default_server):
    base, store = default_server
    _response, raw = await replay(base, "chat-second-turn.json")
    [run] = store.list_runs()
    assert run.question.startswith("Explain it to a ten-year-old"), run.question
    assert read_as_librechat(chunks(raw))[0]


async def test_the_title_goes_to_one_member_and_comes_back_as_a_short_title(default_server):
    base, store = default_server
    response, raw = await replay(base, "task-title.json")
    assert response.status == 200, raw[:300]
    assert response.headers["x-council-task-model"] == "member/atlas", "the chairman answers side tasks"
    completion = json.loads(raw)
    assert_valid(completion, RESPONSE)
    # The completion title method keeps the reply's whole text, trimmed, as the title.
    title = completion["choices"][0]["message"]["content"].strip()
    assert 0 < len(title.split()) <= 5 and "\n" not in title and not title.startswith("{"), title
    assert "sky" in title.lower(), "the title is about the question"
    assert store.list_runs() == [], "no council run for the title"


async def test_one_chat_with_its_title_is_one_council_run(default_server):
    base, store = default_server
    # In LibreChat's order: the models fetch when the endpoint loads, the question, then the title once it is in.
    for name in ("models-list.json", "chat-first-turn.json", "task-title.json"):
        response, raw = await replay(base, name)
        assert response.status == 200, (name, raw[:300])
    runs = store.list_runs()
    assert len(runs) == 1 and runs[0].question == "Why is the sky blue?"


async def test_a_title_when_streaming_is_on_is_a_side_task_too(default_server):
    # A titleModel whose parameters stream is not the default, but the server should not care how it is read.
    base, store = default_server
    response, raw = await replay(base, "task-title.json", stream=True)
    assert response.status == 200 and response.headers["x-council-task-model"] == "member/atlas"
    answer, _thinking, _usage = read_as_librechat(chunks(raw))
    assert answer.strip() and store.list_runs() == []
