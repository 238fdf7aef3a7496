"""A ``member/NAME`` stream cut upstream ends with an error event and ``data: [DONE]``, plain or relayed.

The fake upstream sends half its events, then either resets the connection
(``abort``) or closes it cleanly without its terminator (``truncate``): in
neither case is the answer whole, and the client must be told so.
"""

from __future__ import annotations

import json

import aiohttp
import openai
import pytest

from council.testing.fake_llm import Step
from tests.server.conftest import API_KEY, RunningServer

AUTH = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
WEATHER_TOOL = {"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}
REPLY = "one two three four five six seven eight nine ten"


async def stream_events(server: RunningServer, body: dict) -> tuple[int, list[str]]:
    """The status and every ``data:`` payload of a streamed completion, in order."""
    async with aiohttp.ClientSession() as http, http.post(server.base_url + "/chat/completions", headers=AUTH,
                                                          data=json.dumps({**body, "stream": True})) as response:
        raw = (await response.read()).decode()
    return response.status, [line.removeprefix("data: ") for line in raw.split("\n") if line.startswith("data: ")]


def cut(kind: str) -> Step:
    return Step(reply=REPLY, chunk_delay_s=0.01, abort_stream=kind == "abort", truncate_stream=kind == "truncate")


@pytest.mark.parametrize("kind", ["abort", "truncate"])
@pytest.mark.parametrize("relayed", [False, True], ids=["plain", "relayed-tools"])
async def test_a_cut_member_stream_ends_with_an_error_event_then_done(server, kind, relayed):
    server.fake.script("model-alpha", cut(kind))
    request = {"model": "member/alpha", "messages": [{"role": "user", "content": "count"}]}
    if relayed:
        request["tools"] = [WEATHER_TOOL]
    status, events = await stream_events(server, request)
    assert status == 200
    assert events[-1] == "[DONE]" and events.count("[DONE]") == 1
    error = json.loads(events[-2])
    assert set(error) == {"error"} and error["error"]["code"] == "protocol"
    assert error["error"]["type"] == "upstream_error" if relayed else error["error"]["type"] == "server_error"
    chunks = [json.loads(e) for e in events[:-2]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c.get("choices"))
    assert text and REPLY.startswith(text) and text != REPLY, "some of the answer came before the cut"
    assert all(c["choices"][0].get("finish_reason") is None for c in chunks if c.get("choices")), \
        "a cut answer is not presented as finished"


@pytest.mark.parametrize("relayed", [False, True], ids=["plain", "relayed-tools"])
async def test_the_openai_sdk_raises_on_a_cut_member_stream(server, relayed):
    server.fake.script("model-alpha", cut("abort"))
    extra = {"tools": [WEATHER_TOOL]} if relayed else {}
    async with openai.AsyncOpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0) as client:
        stream = await client.chat.completions.create(model="member/alpha", stream=True,
                                                      messages=[{"role": "user", "content": "count"}], **extra)
        received = []
        with pytest.raises(openai.APIError, match="broke off"):
            async for chunk in stream:
                received.append(chunk)
    assert received, "the stream had started before it was cut"
