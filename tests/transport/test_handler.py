"""HandlerTransport: real wire formats against a Python function, used as a user's tests use it (``from council``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from council import (
    AuthFailedError,
    BadUpstreamRequestError,
    ChatMessage,
    Council,
    CouncilConfig,
    GenerationParams,
    HandlerTransport,
    MemberConfig,
    ProtocolError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    RetryPolicy,
    UpstreamRequest,
    UpstreamResponse,
    UpstreamServerError,
    Usage,
)

QUESTION = [ChatMessage(role="user", content="Name a prime number.")]
GPT = MemberConfig(name="gpt", provider="openai", model="gpt-test", base_url="http://llm.test/v1",
                   api_key_env="TEST_OPENAI_KEY")
FAST = RetryPolicy(max_attempts=3, initial_backoff_s=0.01, max_backoff_s=0.02, jitter_s=0.0)


def chat_answer(text: str, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2}, **extra}


def council_on(handler: Any, member: MemberConfig = GPT) -> tuple[Council, HandlerTransport]:
    transport = HandlerTransport(handler)
    config = CouncilConfig(members=[member], retry=FAST, stages={"quorum": 1})
    return Council(config, transport=transport, store=False, environ={"TEST_OPENAI_KEY": "sk-test-abc123"}), transport


async def test_an_openai_member_is_answered_by_the_handler_with_the_request_as_sent():
    council, transport = council_on(lambda request: chat_answer(f"{request.json['model']}: 7"))
    completion = await council.provider("gpt").complete(QUESTION, GenerationParams(stop=("\n\n",), seed=7))
    assert (completion.content, completion.usage) == ("gpt-test: 7", Usage(prompt_tokens=5, completion_tokens=2))
    (request,) = transport.requests
    assert (request.method, request.url, request.path) == ("POST", "http://llm.test/v1/chat/completions",
                                                           "/v1/chat/completions")
    assert request.headers["Authorization"] == "Bearer sk-test-abc123"
    assert request.json["messages"] == [{"role": "user", "content": "Name a prime number."}]
    assert (request.json["stop"], request.json["seed"]) == (["\n\n"], 7)


async def test_the_handler_gets_its_own_copy_of_the_body_so_a_retry_sends_the_same_request():
    def mangling(request: UpstreamRequest) -> Any:
        if len(transport.requests) == 1:
            request.json.pop("messages")
            return UpstreamResponse(status=502, body="bad gateway")
        return chat_answer(f"{len(request.json['messages'])} message")

    council, transport = council_on(mangling)
    completion = await council.provider("gpt").complete(QUESTION)
    assert completion.content == "1 message"


async def test_a_streamed_answer_is_read_from_the_handlers_sse_lines():
    async def handler(request: UpstreamRequest) -> UpstreamResponse:
        assert request.json["stream"] is True
        await asyncio.sleep(0)
        chunks = [{"choices": [{"index": 0, "delta": {"content": word}}]} for word in ("Seven ", "is ", "prime.")]
        done = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        return UpstreamResponse.sse([*chunks, done, "[DONE]"])

    council, _ = council_on(handler)
    async with council.provider("gpt").stream(QUESTION) as stream:
        deltas = [delta async for delta in stream]
    assert deltas == ["Seven ", "is ", "prime."]
    assert stream.completion is not None and stream.completion.finish_reason == "stop"


async def test_lines_from_an_async_generator_are_streamed_and_one_that_breaks_off_is_a_protocol_error():
    async def lines() -> AsyncIterator[str]:
        yield 'data: {"choices": [{"index": 0, "delta": {"content": "Se"}}]}'
        yield ""
        raise ConnectionResetError("peer went away")

    council, _ = council_on(lambda request: UpstreamResponse(lines=lines()))
    with pytest.raises(ProtocolError, match="broke off: ConnectionResetError"):
        await council.provider("gpt").stream(QUESTION).collect()


@pytest.mark.parametrize(
    ("status", "error", "attempts"),
    [(401, AuthFailedError, 1), (400, BadUpstreamRequestError, 1), (429, RateLimitedError, 3),
     (503, UpstreamServerError, 3)],
)
async def test_an_error_status_is_its_typed_error_and_retried_as_the_policy_says(status, error, attempts):
    body = {"error": {"message": f"scripted failure {status}", "type": "test"}}
    council, transport = council_on(lambda request: UpstreamResponse(status=status, json=body,
                                                                     headers={"Retry-After": "0"}))
    with pytest.raises(error, match=f"scripted failure {status}") as caught:
        await council.provider("gpt").complete(QUESTION)
    assert caught.value.status == status
    assert len(transport.requests) == attempts


async def test_a_streamed_call_that_gets_an_error_status_fails_typed_too():
    council, _ = council_on(lambda request: UpstreamResponse(status=401, body="no key"))
    with pytest.raises(AuthFailedError):
        await council.provider("gpt").stream(QUESTION).collect()


async def test_a_retried_call_succeeds_once_the_handler_recovers():
    answers = iter([UpstreamResponse(status=500, body="oops"), chat_answer("7")])
    council, transport = council_on(lambda request: next(answers))
    completion = await council.provider("gpt").complete(QUESTION)
    assert (completion.content, completion.attempts, len(transport.requests)) == ("7", 2, 2)


async def test_what_a_handler_raises_is_a_typed_failure():
    def timing_out(request: UpstreamRequest) -> UpstreamResponse:
        raise TimeoutError

    def buggy(request: UpstreamRequest) -> UpstreamResponse:
        raise KeyError("model")

    council, transport = council_on(timing_out)
    with pytest.raises(ProviderTimeoutError):
        await council.provider("gpt").complete(QUESTION)
    assert len(transport.requests) == 3, "a timeout is retried"
    council, transport = council_on(buggy)
    with pytest.raises(ProviderError, match="handler raised KeyError") as caught:
        await council.provider("gpt").complete(QUESTION)
    assert caught.value.reason == "upstream_error" and len(transport.requests) == 1


async def test_a_body_that_breaks_the_apis_promise_is_a_protocol_error():
    council, _ = council_on(lambda request: UpstreamResponse(body="<html>nginx</html>",
                                                             headers={"Content-Type": "text/html"}))
    with pytest.raises(ProtocolError, match="HTML page"):
        await council.provider("gpt").complete(QUESTION)


async def test_a_council_run_on_the_handler_transport_answers_from_the_handler():
    council, transport = council_on(lambda request: chat_answer("Two is the only even prime."))
    result = await council.ask("Name a prime number.")
    assert result.status == "complete"
    assert result.final_answer is not None and result.final_answer.content == "Two is the only even prime."
    assert [a.provider for a in result.answers] == ["openai"] and not result.simulated
    assert transport.requests[0].json["messages"][-1]["content"] == "Name a prime number."


async def test_an_anthropic_member_streams_named_events():
    claude = MemberConfig(name="claude", provider="anthropic", model="claude-test", base_url="http://llm.test",
                          api_key_env="TEST_OPENAI_KEY")
    events = [("message_start", {"type": "message_start", "message": {"model": "claude-test", "usage": {}}}),
              ("content_block_delta", {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "7"}}),
              ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
              ("message_stop", {"type": "message_stop"})]
    council, transport = council_on(lambda request: UpstreamResponse.sse(events), claude)
    completion = await council.provider("claude").stream(QUESTION).collect()
    assert (completion.content, completion.finish_reason) == ("7", "end_turn")
    assert transport.requests[0].path == "/v1/messages"
    assert transport.requests[0].headers["x-api-key"] == "sk-test-abc123"


async def test_a_closed_transport_refuses_calls():
    council, transport = council_on(lambda request: chat_answer("7"))
    await transport.aclose()
    with pytest.raises(ProviderError, match="closed"):
        await council.provider("gpt").complete(QUESTION)
    assert transport.closed and transport.requests == []


def test_a_response_has_one_body():
    with pytest.raises(ValueError, match="json and lines"):
        UpstreamResponse(json={}, lines=["data: x"])
    lines = UpstreamResponse.sse([{"a": 1}, ("ping", "raw"), "[DONE]"]).lines
    assert list(lines or []) == ['data: {"a": 1}', "", "event: ping", "data: raw", "", "data: [DONE]", ""]
