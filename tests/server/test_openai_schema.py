"""Every response shape of ``council serve`` against OpenAI's published schemas, as typed clients read them.

Strict clients (Rust's async-openai, the Vercel AI SDK, generated clients)
deserialize into OpenAI's types: an unknown ``finish_reason`` or a missing
required field fails the whole response. The checks here read the raw wire
(plain bodies and every SSE event) and validate each against
``tests/data/openai/openai-chat-schemas.json``; members speak all three wire
formats on the fake upstream, each stop reason scripted as its API sends it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import aiohttp
import openai
import pytest

from council.config import CouncilConfig
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.server.conftest import quality_judge, serve
from tests.server.openai_schemas import RESPONSES_SCHEMAS, SCHEMAS, SHARED_SCHEMAS, assert_valid, problems

WIRES = {"alpha": "openai", "beta": "anthropic", "gamma": "gemini"}
PRESETS = {"quick": {"description": "one judge, no chairman", "chairman": "none", "review": "judge", "judge": "beta"}}
QUESTION = [{"role": "user", "content": "Why is the sky blue?"}]
RESPONSE, CHUNK, ERROR = "CreateChatCompletionResponse", "CreateChatCompletionStreamResponse", "ErrorResponse"


@pytest.fixture
async def wire_server(fake_llm: FakeLLMServer):
    """A council whose members speak OpenAI (alpha), Anthropic (beta) and Gemini (gamma); presets too."""
    for quality, name in zip((9, 7, 5), WIRES, strict=True):
        fake_llm.script(f"model-{name}", Step(reply=council_member(f"{name} thinks 42. quality={quality}",
                                                                   quality_judge)))
    config = CouncilConfig.model_validate({
        "members": [{"name": name, "provider": wire, "model": f"model-{name}", "base_url": fake_llm.base_url(wire)}
                    for name, wire in WIRES.items()],
        "chairman": "alpha",
        "retry": {"max_attempts": 1},
        "stages": {"stage_deadline_s": 5, "member_timeout_s": 5},
        "councils": PRESETS,
    })
    runner, running = await serve(fake_llm, config, Store(":memory:"), None)
    yield running
    await runner.cleanup()
    running.store.close()


async def post(server: Any, body: dict[str, Any]) -> tuple[int, Any]:
    """POST a chat completion; the JSON body, or the list of SSE ``data`` payloads for a stream."""
    async with aiohttp.ClientSession() as http, http.post(server.base_url + "/chat/completions", json=body) as reply:
        if not reply.headers.get("Content-Type", "").startswith("text/event-stream"):
            return reply.status, await reply.json()
        text = await reply.text()
    return reply.status, [line.removeprefix("data: ") for event in text.split("\n\n") for line in event.splitlines()
                          if line.startswith("data: ")]


def chunks_of(events: list[str]) -> list[dict[str, Any]]:
    """The JSON events of a stream, after checking it ends with ``[DONE]`` and nothing follows it."""
    assert events and events[-1] == "[DONE]", f"the stream does not end with [DONE]: {events[-3:]}"
    assert events.count("[DONE]") == 1
    return [json.loads(event) for event in events[:-1]]


def assert_valid_stream(events: list[str]) -> list[dict[str, Any]]:
    """Every chunk a valid ``chat.completion.chunk`` and the stream ended by ``[DONE]``; the chunks."""
    chunks = chunks_of(events)
    for chunk in chunks:
        assert_valid(chunk, CHUNK)
    return chunks


def finish_choice(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    [choice] = [c["choices"][0] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"] is not None]
    return choice


# -- the helper itself ----------------------------------------------------------------------------------


def test_the_copied_schemas_are_the_shared_fixture():
    if not SHARED_SCHEMAS.exists():
        pytest.skip(f"the shared fixtures are not beside this checkout ({SHARED_SCHEMAS} is absent)")
    assert SCHEMAS.read_bytes() == SHARED_SCHEMAS.read_bytes()


@pytest.mark.parametrize(("instance", "root", "where"), [
    ({"id": "x", "object": "chat.completion", "created": 1, "model": "m",
      "choices": [{"index": 0, "finish_reason": "end_turn", "logprobs": None,
                   "message": {"role": "assistant", "content": "hi", "refusal": None}}]}, RESPONSE, "finish_reason"),
    ({"id": "x", "object": "chat.completion", "created": 1, "model": "m", "system_fingerprint": None,
      "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                   "message": {"role": "assistant", "content": "hi", "refusal": None}}]},
     RESPONSE, "system_fingerprint"),
    ({"id": "x", "object": "chat.completion", "created": 1, "model": "m",
      "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hi"}}]},
     RESPONSE, "refusal"),
    ({"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
      "choices": [{"index": 0, "delta": {}, "finish_reason": "STOP"}]}, CHUNK, "finish_reason"),
    ({"error": {"message": "boom", "type": "upstream_error"}}, ERROR, "param"),
])
def test_the_schemas_refuse_what_strict_clients_refuse(instance, root, where):
    assert any(where in problem for problem in problems(instance, root)), problems(instance, root)


def test_nullable_fields_take_null():
    chunk = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m", "usage": None,
             "choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": None, "logprobs": None}]}
    assert_valid(chunk, CHUNK)


# -- the Responses API schemas (tests/data/openai/openai-responses-schemas.json) -------------------------

MINIMAL_RESPONSE = {
    "id": "resp_1", "object": "response", "created_at": 1741476542, "status": "completed", "model": "council",
    "error": None, "incomplete_details": None, "instructions": None, "metadata": {}, "parallel_tool_calls": True,
    "temperature": None, "top_p": None, "tool_choice": "auto", "tools": [],
    "output": [{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": "42", "annotations": [], "logprobs": []}]}],
    "usage": {"input_tokens": 5, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
              "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 6},
}
TEXT_DELTA = {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0,
              "delta": "4", "sequence_number": 3, "logprobs": []}


def test_the_responses_schemas_are_whole():
    loaded = json.loads(RESPONSES_SCHEMAS.read_text(encoding="utf-8"))
    named = loaded["components"]["schemas"]
    assert {"Response", "ResponseStreamEvent", "ResponseItemList"} <= set(loaded["roots"]) <= set(named)
    text = json.dumps(loaded["components"])
    refs = {ref.removeprefix("#/components/schemas/") for ref in re.findall(r'"\$ref": "([^"]*)"', text)}
    assert refs <= set(named), f"unresolved: {sorted(refs - set(named))}"


def test_a_minimal_response_is_valid():
    assert_valid(MINIMAL_RESPONSE, "Response", schemas="responses")


@pytest.mark.parametrize(("change", "where"), [
    ({"created_at": "yesterday"}, "created_at"),
    ({"status": "done"}, "status"),
    ({"object": "chat.completion"}, "object"),
])
def test_a_response_with_a_wrong_field_is_refused(change, where):
    found = problems({**MINIMAL_RESPONSE, **change}, "Response", schemas="responses")
    assert any(problem.startswith(f"{where}:") for problem in found), found


def test_an_output_text_delta_is_a_valid_stream_event():
    assert_valid(TEXT_DELTA, "ResponseStreamEvent", schemas="responses")
    assert problems({**TEXT_DELTA, "delta": 4}, "ResponseStreamEvent", schemas="responses")
    assert problems({**TEXT_DELTA, "type": "response.output_text.delta_x"}, "ResponseStreamEvent", schemas="responses")


def test_the_chat_schemas_stay_the_default():
    with pytest.raises(KeyError, match=r"openai-chat-schemas\.json"):
        problems(MINIMAL_RESPONSE, "Response")


# -- the council and its presets ---------------------------------------------------------------------


@pytest.mark.parametrize("model", ["council", "council/quick"])
async def test_a_council_answer_is_a_valid_completion(wire_server, model):
    status, body = await post(wire_server, {"model": model, "messages": QUESTION})
    assert status == 200, body
    assert_valid(body, RESPONSE)
    assert "system_fingerprint" not in body
    assert body["choices"][0]["message"]["refusal"] is None and body["choices"][0]["logprobs"] is None


@pytest.mark.parametrize("model", ["council", "council/quick"])
@pytest.mark.parametrize("include_usage", [False, True])
async def test_a_council_stream_is_valid_chunks_ending_with_done(wire_server, model, include_usage):
    body = {"model": model, "messages": QUESTION, "stream": True}
    if include_usage:
        body["stream_options"] = {"include_usage": True}
    status, events = await post(wire_server, body)
    assert status == 200
    chunks = assert_valid_stream(events)
    assert finish_choice(chunks)["finish_reason"] == "stop"
    assert (chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0) is include_usage


async def test_a_council_that_fails_mid_stream_sends_an_error_event_then_done(wire_server):
    for name in WIRES:
        wire_server.fake.script(f"model-{name}", Step(status=500))
    status, events = await post(wire_server, {"model": "council", "messages": QUESTION, "stream": True})
    assert status == 200
    chunks = chunks_of(events)
    assert "error" in chunks[-1] and chunks[-1]["error"]["code"] == "council_failed"
    assert_valid(chunks[-1], ERROR)
    for chunk in chunks[:-1]:
        assert_valid(chunk, CHUNK)


# -- member pass-through: every wire format's stop reasons -------------------------------------------


def upstream_body(wire: str, text: str, reason: str) -> bytes:
    """A whole answer as the wire format's API sends it, stopped for ``reason``."""
    if wire == "openai":
        payload: dict[str, Any] = {
            "id": "chatcmpl-up", "object": "chat.completion", "created": 1, "model": "model-alpha",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": reason}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}}
    elif wire == "anthropic":
        payload = {"id": "msg_up", "type": "message", "role": "assistant", "model": "model-beta",
                   "content": [{"type": "text", "text": text}], "stop_reason": reason,
                   "usage": {"input_tokens": 5, "output_tokens": 3}}
    else:
        payload = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": reason}],
                   "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 3}, "modelVersion": "model-gamma"}
    return json.dumps(payload).encode()


def upstream_stream(wire: str, text: str, reason: str) -> bytes:
    """A streamed answer as the wire format's API sends it, stopped for ``reason``."""
    words = text.split(" ")
    if wire == "openai":
        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            return "data: " + json.dumps({"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1,
                                          "model": "model-alpha",
                                          "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"
        return "".join([chunk({"role": "assistant", "content": ""}), *(chunk({"content": w + " "}) for w in words),
                        chunk({}, reason), "data: [DONE]\n\n"]).encode()
    if wire == "anthropic":
        def event(name: str, payload: dict[str, Any]) -> str:
            return f"event: {name}\ndata: {json.dumps({'type': name, **payload})}\n\n"
        return "".join([
            event("message_start", {"message": {"id": "msg_up", "type": "message", "role": "assistant",
                                                "model": "model-beta", "content": [],
                                                "usage": {"input_tokens": 5, "output_tokens": 1}}}),
            event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
            *(event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": w + " "}})
              for w in words),
            event("content_block_stop", {"index": 0}),
            event("message_delta", {"delta": {"stop_reason": reason}, "usage": {"output_tokens": 3}}),
            event("message_stop", {}),
        ]).encode()

    def candidate(part: str, finish: str | None) -> str:
        payload: dict[str, Any] = {"candidates": [{"content": {"role": "model", "parts": [{"text": part}]}}],
                                   "modelVersion": "model-gamma"}
        if finish:
            payload["candidates"][0]["finishReason"] = finish
            payload["usageMetadata"] = {"promptTokenCount": 5, "candidatesTokenCount": 3}
        return f"data: {json.dumps(payload)}\r\n\r\n"
    return "".join([*(candidate(w + " ", None) for w in words[:-1]), candidate(words[-1], reason)]).encode()


# (member, the member's own stop reason, what OpenAI's enum calls it)
STOP_REASONS = [
    ("alpha", "stop", "stop"), ("alpha", "length", "length"), ("alpha", "content_filter", "content_filter"),
    ("alpha", "eos", "stop"),  # an OpenAI-compatible server's own word
    ("beta", "end_turn", "stop"), ("beta", "stop_sequence", "stop"), ("beta", "max_tokens", "length"),
    ("beta", "refusal", "content_filter"), ("beta", "tool_use", "tool_calls"),
    ("beta", "model_context_window_exceeded", "length"), ("beta", "pause_turn", "stop"),
    ("gamma", "STOP", "stop"), ("gamma", "MAX_TOKENS", "length"), ("gamma", "SAFETY", "content_filter"),
    ("gamma", "RECITATION", "content_filter"), ("gamma", "PROHIBITED_CONTENT", "content_filter"),
    ("gamma", "BLOCKLIST", "content_filter"), ("gamma", "SPII", "content_filter"), ("gamma", "OTHER", "stop"),
]


@pytest.mark.parametrize(("member", "upstream", "expected"), STOP_REASONS)
async def test_a_member_answer_says_why_it_stopped_in_openai_words(wire_server, member, upstream, expected):
    wire_server.fake.script(f"model-{member}", Step(body=upstream_body(WIRES[member], "The sky scatters", upstream)))
    status, body = await post(wire_server, {"model": f"member/{member}", "messages": QUESTION})
    assert status == 200, body
    assert_valid(body, RESPONSE)
    [choice] = body["choices"]
    assert (choice["finish_reason"], choice["council"]["finish_reason"]) == (expected, upstream)
    assert choice["message"] == {"role": "assistant", "content": "The sky scatters", "refusal": None}
    assert choice["logprobs"] is None and "system_fingerprint" not in body


@pytest.mark.parametrize(("member", "upstream", "expected"), STOP_REASONS)
async def test_a_member_stream_says_why_it_stopped_in_openai_words(wire_server, member, upstream, expected):
    wire_server.fake.script(f"model-{member}", Step(body=upstream_stream(WIRES[member], "The sky scatters", upstream),
                                                    content_type="text/event-stream"))
    status, events = await post(wire_server, {"model": f"member/{member}", "messages": QUESTION, "stream": True,
                                              "stream_options": {"include_usage": True}})
    assert status == 200
    chunks = assert_valid_stream(events)
    choice = finish_choice(chunks)
    assert (choice["finish_reason"], choice["council"]["finish_reason"]) == (expected, upstream)
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text.strip() == "The sky scatters"


@pytest.mark.parametrize("member", list(WIRES))
async def test_the_openai_sdk_reads_a_cut_off_member_answer_as_length(wire_server, member):
    cut = {"openai": "length", "anthropic": "max_tokens", "gemini": "MAX_TOKENS"}[WIRES[member]]
    wire_server.fake.script(f"model-{member}", Step(body=upstream_body(WIRES[member], "The sky", cut)))
    async with openai.AsyncOpenAI(base_url=wire_server.base_url, api_key="unused", max_retries=0) as sdk:
        completion = await sdk.chat.completions.create(model=f"member/{member}", messages=QUESTION)
    assert completion.choices[0].finish_reason == "length"
    assert completion.choices[0].model_extra["council"] == {"finish_reason": cut}


@pytest.mark.parametrize("member", list(WIRES))
async def test_a_member_answer_on_the_fake_defaults_is_valid(wire_server, member):
    wire_server.fake.script(f"model-{member}", Step(reply="plain words"))
    status, body = await post(wire_server, {"model": f"member/{member}", "messages": QUESTION})
    assert status == 200
    assert_valid(body, RESPONSE)
    status, events = await post(wire_server, {"model": f"member/{member}", "messages": QUESTION, "stream": True})
    assert status == 200
    assert finish_choice(assert_valid_stream(events))["finish_reason"] == "stop"


@pytest.mark.parametrize("member", list(WIRES))
async def test_a_member_that_breaks_mid_stream_sends_an_error_event_then_done(wire_server, member):
    wire_server.fake.script(f"model-{member}", Step(reply="one two three four five six", truncate_stream=True))
    status, events = await post(wire_server, {"model": f"member/{member}", "messages": QUESTION, "stream": True})
    assert status == 200
    chunks = chunks_of(events)
    assert_valid(chunks[-1], ERROR)
    for chunk in chunks[:-1]:
        assert_valid(chunk, CHUNK)
    async with openai.AsyncOpenAI(base_url=wire_server.base_url, api_key="unused", max_retries=0) as sdk:
        stream = await sdk.chat.completions.create(model=f"member/{member}", messages=QUESTION, stream=True)
        with pytest.raises(openai.APIError, match="stream ended before the answer was complete"):
            async for _ in stream:
                pass


# -- tool calls relayed through member/NAME --------------------------------------------------------------

WEATHER_TOOL = {"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}
TOOL_CALL = {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Oslo\"}"}}


def relayed_tool_call() -> bytes:
    """A tool call as OpenAI-compatible servers often send it: no refusal or logprobs, a null fingerprint."""
    return json.dumps({"id": "chatcmpl-up", "object": "chat.completion", "created": 1, "model": "model-alpha",
                       "system_fingerprint": None,
                       "choices": [{"index": 0, "finish_reason": "tool_calls",
                                    "message": {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}}],
                       "usage": {"prompt_tokens": 20, "completion_tokens": 8, "total_tokens": 28}}).encode()


def relayed_tool_stream(reason: str = "tool_calls", done: bool = True) -> bytes:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return "data: " + json.dumps({"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1,
                                      "model": "model-alpha", "system_fingerprint": None,
                                      "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"
    first = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "weather", "arguments": ""}}
    events = [chunk({"role": "assistant", "content": None, "tool_calls": [first]}),
              chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\": \"Oslo\"}"}}]})]
    if done:
        events += [chunk({}, reason), "data: [DONE]\n\n"]
    else:
        events.append("data: {not json\n\n")
    return "".join(events).encode()


TOOL_REQUEST = {"model": "member/alpha", "messages": QUESTION, "tools": [WEATHER_TOOL]}


async def test_a_relayed_tool_call_is_a_valid_completion(wire_server):
    wire_server.fake.script("model-alpha", Step(body=relayed_tool_call()))
    status, body = await post(wire_server, TOOL_REQUEST)
    assert status == 200, body
    assert_valid(body, RESPONSE)
    [choice] = body["choices"]
    assert choice["message"]["tool_calls"] == [TOOL_CALL] and choice["message"]["refusal"] is None
    assert choice["logprobs"] is None and choice["finish_reason"] == "tool_calls"
    assert "system_fingerprint" not in body and body["model"] == "member/alpha"


@pytest.mark.parametrize(("upstream", "expected"), [("tool_calls", "tool_calls"), ("tool_use", "tool_calls"),
                                                    ("eos", "stop")])
async def test_a_relayed_tool_stream_is_valid_chunks_ending_with_done(wire_server, upstream, expected):
    wire_server.fake.script("model-alpha", Step(body=relayed_tool_stream(upstream), content_type="text/event-stream"))
    status, events = await post(wire_server, {**TOOL_REQUEST, "stream": True})
    assert status == 200
    chunks = assert_valid_stream(events)
    assert all("system_fingerprint" not in chunk for chunk in chunks)
    choice = finish_choice(chunks)
    assert (choice["finish_reason"], choice["council"]["finish_reason"]) == (expected, upstream)


async def test_a_relayed_stream_that_breaks_sends_an_error_event_then_done(wire_server):
    wire_server.fake.script("model-alpha", Step(body=relayed_tool_stream(done=False),
                                                content_type="text/event-stream"))
    status, events = await post(wire_server, {**TOOL_REQUEST, "stream": True})
    assert status == 200
    chunks = chunks_of(events)
    assert_valid(chunks[-1], ERROR)
    for chunk in chunks[:-1]:
        assert_valid(chunk, CHUNK)


# -- the rest of the API ----------------------------------------------------------------------------------


async def test_the_model_list_is_valid(wire_server):
    async with aiohttp.ClientSession() as http, http.get(wire_server.base_url + "/models") as reply:
        body = await reply.json()
    assert_valid(body, "ListModelsResponse")
    assert {"council", "council/quick", "member/beta"} <= {model["id"] for model in body["data"]}


@pytest.mark.parametrize(("body", "status"), [
    ({"model": "member/nobody", "messages": QUESTION}, 404),
    ({"model": "council", "messages": []}, 400),
    ({"model": "council", "messages": QUESTION, "n": 2}, 400),
])
async def test_errors_are_valid_error_responses(wire_server, body, status):
    got, payload = await post(wire_server, body)
    assert got == status
    assert_valid(payload, ERROR)
