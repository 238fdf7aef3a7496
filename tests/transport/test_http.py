"""Responses that break the API's promise become ProtocolError, never a crash."""

from __future__ import annotations

import json
from typing import get_args

import pytest

from council.errors import ProtocolError, ProviderError, UpstreamServerError
from council.result import FailureReason
from council.testing.fake_llm import Step
from council.transport.http import Transport
from council.types import ChatMessage

QUESTION = [ChatMessage(role="user", content="Name a prime number.")]
PROVIDERS = ["openai", "anthropic", "gemini"]
HTML = b"<!DOCTYPE html><html><body><h1>Welcome to nginx</h1></body></html>"


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("step", "message"),
    [
        (Step(body=HTML, content_type="text/html"), "HTML page"),
        (Step(body=b'{"choices": [', content_type="application/json"), "expected a JSON body"),
        (Step(body=b"[1, 2, 3]"), "expected a JSON object"),
        (Step(body=b'{"id": "x"}'), "missing"),
        (Step(body=b"x" * 300_000, content_type="text/plain"), "exceeds"),
    ],
    ids=["html", "invalid-json", "json-array", "missing-fields", "oversized"],
)
async def test_malformed_bodies_are_protocol_errors(fake_llm, make_provider, provider, step, message):
    fake_llm.script("m", step)
    with pytest.raises(ProtocolError) as caught:
        await make_provider(provider, "m").complete(QUESTION)
    assert message in str(caught.value)
    assert caught.value.reason == "protocol"
    assert caught.value.provider == provider
    assert len(fake_llm.requests_for("m")) == 1, "protocol errors are not retried"


async def test_wrong_field_type_is_a_protocol_error(fake_llm, make_provider):
    body = {"choices": [{"message": {"role": "assistant", "content": 42}}]}
    fake_llm.script("m", Step(body=json.dumps(body).encode()))
    with pytest.raises(ProtocolError, match="content"):
        await make_provider("openai", "m").complete(QUESTION)


async def test_oversized_chunked_body_is_refused(fake_llm, make_provider, transport: Transport):
    def huge(_request) -> str:
        # 300 words of 1,000 characters: over the 256 KiB cap as one body and as a stream alike. (200,000 two-byte
        # words made the fake build and write 200,000 events: seconds of CPU, past the 5 s deadline on a busy machine.)
        return " ".join(["y" * 999] * 300)

    fake_llm.script("m", Step(reply=huge))
    with pytest.raises(ProtocolError, match="cap"):
        await make_provider("openai", "m").complete(QUESTION)
    with pytest.raises(ProtocolError, match="cap"):
        await make_provider("openai", "m").stream(QUESTION).collect()


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_truncated_stream_is_a_protocol_error(fake_llm, make_provider, provider):
    fake_llm.script("m", Step(reply="one two three four five six seven eight", truncate_stream=True))
    stream = make_provider(provider, "m").stream(QUESTION)
    with pytest.raises(ProtocolError, match="ended before the answer was complete"):
        await stream.collect()
    assert stream.completion is None


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_stream_cut_mid_body_is_a_protocol_error(fake_llm, make_provider, provider):
    fake_llm.script("m", Step(reply="one two three four five six seven eight", abort_stream=True))
    with pytest.raises(ProtocolError):
        await make_provider(provider, "m").stream(QUESTION).collect()


async def test_invalid_json_in_a_stream_chunk(fake_llm, make_provider):
    fake_llm.script("m", Step(reply="a b c d", stream_error="data: {not json\n\n"))
    with pytest.raises(ProtocolError, match="invalid JSON"):
        await make_provider("openai", "m").stream(QUESTION).collect()


async def test_error_event_mid_stream_is_typed_and_not_retried(fake_llm, make_provider):
    error = 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    fake_llm.script("m", Step(reply="a b c d", stream_error=error), Step())
    with pytest.raises(UpstreamServerError, match="overloaded_error"):
        await make_provider("anthropic", "m").stream(QUESTION).collect()
    assert len(fake_llm.requests_for("m")) == 1


async def test_error_object_inside_a_200(fake_llm, make_provider):
    body = {"error": {"message": "Provider returned error", "code": 502}}
    fake_llm.script("m", Step(body=json.dumps(body).encode()), Step(reply="fine"))
    completion = await make_provider("openai", "m").complete(QUESTION)
    assert completion.content == "fine"
    assert completion.attempts == 2


async def test_html_error_page_is_summarised(fake_llm, make_provider):
    fake_llm.script("m", Step(status=502, body=HTML, content_type="text/html"))
    with pytest.raises(UpstreamServerError) as caught:
        await make_provider("openai", "m").complete(QUESTION)
    assert "HTML page" in str(caught.value)
    assert "<html" not in str(caught.value)


async def test_one_session_is_shared_by_every_provider(fake_llm, make_provider, transport: Transport):
    for provider in PROVIDERS:
        await make_provider(provider, f"model-{provider}").complete(QUESTION)
    session = transport.session()
    assert session is transport.session()
    assert all(isinstance(p, str) for p in PROVIDERS)


async def test_keepalive_comments_are_skipped(fake_llm, make_provider):
    # OpenRouter sends ": OPENROUTER PROCESSING" comments while it waits.
    body = (
        b": OPENROUTER PROCESSING\n\n"
        b'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n'
        b": keep-alive\n\n"
        b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
        b"data: [DONE]\n\n"
    )
    fake_llm.script("m", Step(body=body, content_type="text/event-stream"))
    completion = await make_provider("openai", "m").stream(QUESTION).collect()
    assert (completion.content, completion.finish_reason) == ("hi", "stop")


def test_every_provider_error_has_a_reason():
    # Each reason is one a result's Failure record can carry.
    reasons = set(get_args(FailureReason))
    for cls in ProviderError.__subclasses__():
        assert cls.reason in reasons, cls
