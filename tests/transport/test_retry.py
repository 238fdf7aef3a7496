"""The retry and timeout rules, observed over real HTTP against the fake upstream."""

from __future__ import annotations

import email.utils
import time

import pytest

from council.config import RetryPolicy
from council.errors import (
    AuthFailedError,
    BadUpstreamRequestError,
    ProtocolError,
    ProviderConnectionError,
    ProviderTimeoutError,
    RateLimitedError,
    UpstreamServerError,
)
from council.testing.fake_llm import Step
from council.transport.http import Transport, parse_retry_after
from council.types import ChatMessage
from tests.conftest import FAST_RETRY

QUESTION = [ChatMessage(role="user", content="What is the boiling point of water at sea level?")]
PROVIDERS = ["openai", "anthropic", "gemini"]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_429_with_retry_after_is_honoured_then_succeeds(fake_llm, make_provider, provider):
    fake_llm.script("m", Step(status=429, headers={"Retry-After": "1"}), Step(reply="100 degrees Celsius"))
    completion = await make_provider(provider, "m").complete(QUESTION)
    requests = fake_llm.requests_for("m")
    assert completion.content == "100 degrees Celsius"
    assert completion.attempts == 2
    assert len(requests) == 2
    # Honoured: the second attempt waited at least the second asked for (a lower bound cannot flake on a busy
    # machine; how much longer it took is not the test's business).
    assert requests[1].received_at - requests[0].received_at >= 1.0


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_401_is_never_retried(fake_llm, make_provider, provider):
    fake_llm.script("m", Step(status=401, error_message="invalid key"))
    with pytest.raises(AuthFailedError) as caught:
        await make_provider(provider, "m").complete(QUESTION)
    assert len(fake_llm.requests_for("m")) == 1
    error = caught.value
    assert (error.status, error.provider, error.model, error.attempts) == (401, provider, "m", 1)
    assert error.reason == "auth"
    assert "invalid key" in str(error)


@pytest.mark.parametrize("attempts", [1, 2, 3, 5])
async def test_503_is_retried_up_to_the_configured_attempts(fake_llm, make_provider, attempts):
    fake_llm.script("m", Step(status=503))
    policy = FAST_RETRY.model_copy(update={"max_attempts": attempts})
    with pytest.raises(UpstreamServerError) as caught:
        await make_provider("openai", "m", retry=policy).complete(QUESTION)
    assert len(fake_llm.requests_for("m")) == attempts
    assert caught.value.attempts == attempts
    assert caught.value.status == 503


async def test_503_three_times_then_success_within_budget(fake_llm, make_provider):
    fake_llm.script("m", Step(status=503), Step(status=503), Step(reply="ok"))
    policy = FAST_RETRY.model_copy(update={"max_attempts": 3})
    completion = await make_provider("openai", "m", retry=policy).complete(QUESTION)
    assert (completion.content, completion.attempts) == ("ok", 3)


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 504, 529])
async def test_transient_statuses_are_retried(fake_llm, make_provider, status):
    fake_llm.script("m", Step(status=status), Step(reply="recovered"))
    completion = await make_provider("anthropic", "m").complete(QUESTION)
    assert completion.content == "recovered"
    assert len(fake_llm.requests_for("m")) == 2


@pytest.mark.parametrize(
    ("status", "error_type"),
    [(400, BadUpstreamRequestError), (403, AuthFailedError), (404, BadUpstreamRequestError),
     (413, BadUpstreamRequestError), (422, BadUpstreamRequestError)],
)
async def test_other_4xx_are_not_retried(fake_llm, make_provider, status, error_type):
    fake_llm.script("m", Step(status=status))
    with pytest.raises(error_type):
        await make_provider("gemini", "m").complete(QUESTION)
    assert len(fake_llm.requests_for("m")) == 1


async def test_retry_after_ms_takes_precedence(fake_llm, make_provider):
    fake_llm.script("m", Step(status=429, headers={"retry-after-ms": "300", "Retry-After": "5"}), Step())
    # With a 1 s cap on waits, the call succeeds only if the 300 ms were heeded (5 s is over the cap: it fails now).
    policy = FAST_RETRY.model_copy(update={"max_retry_after_s": 1})
    completion = await make_provider("openai", "m", retry=policy).complete(QUESTION)
    first, second = fake_llm.requests_for("m")
    assert completion.attempts == 2 and second.received_at - first.received_at >= 0.3


async def test_retry_after_above_cap_fails_now(fake_llm, make_provider):
    fake_llm.script("m", Step(status=429, headers={"Retry-After": "120"}), Step())
    policy = FAST_RETRY.model_copy(update={"max_retry_after_s": 10})
    with pytest.raises(RateLimitedError) as caught:
        await make_provider("openai", "m", retry=policy).complete(QUESTION)
    assert caught.value.retry_after_s == 120 and caught.value.attempts == 1
    assert len(fake_llm.requests_for("m")) == 1


async def test_retry_after_longer_than_the_remaining_deadline_fails_now(fake_llm, make_provider):
    fake_llm.script("m", Step(status=429, headers={"Retry-After": "3"}), Step())
    with pytest.raises(RateLimitedError) as caught:
        await make_provider("openai", "m", deadline_s=1.0).complete(QUESTION)
    # The 429 itself, at once: not a timeout after sleeping into the deadline.
    assert (caught.value.retry_after_s, caught.value.attempts) == (3, 1)
    assert len(fake_llm.requests_for("m")) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_hang_ends_within_the_deadline(fake_llm, make_provider, provider):
    fake_llm.script("m", Step(hang=True))  # the fake never answers: only the deadline ends the call
    with pytest.raises(ProviderTimeoutError) as caught:
        await make_provider(provider, "m", deadline_s=1.0).complete(QUESTION)
    assert caught.value.reason == "timeout"
    assert "no answer within the call deadline of 1s" in str(caught.value)


async def test_attempt_timeout_retries_a_hung_attempt(fake_llm, make_provider):
    fake_llm.script("m", Step(hang=True), Step(reply="second try"))
    policy = FAST_RETRY.model_copy(update={"attempt_timeout_s": 0.3})
    # The first attempt hangs for good: without the attempt timeout it would eat the whole 3 s call deadline.
    completion = await make_provider("openai", "m", retry=policy, deadline_s=3).complete(QUESTION)
    assert completion.content == "second try"
    assert completion.attempts == 2


async def test_connection_refused_is_retried_then_typed(transport):
    from council.config import MemberConfig
    from council.providers import build_provider

    member = MemberConfig(name="gone", provider="openai", model="m", base_url="http://127.0.0.1:9/v1")
    provider = build_provider(member, transport=transport, retry=FAST_RETRY, deadline_s=3, api_key=None)
    with pytest.raises(ProviderConnectionError) as caught:
        await provider.complete(QUESTION)
    assert caught.value.attempts == FAST_RETRY.max_attempts
    assert caught.value.member == "gone"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_stream_open_is_retried_but_a_started_stream_is_not(fake_llm, make_provider, provider):
    fake_llm.script("m", Step(status=503), Step(reply="one two three four five six", truncate_stream=True), Step())
    stream = make_provider(provider, "m").stream(QUESTION)
    received = []
    with pytest.raises(ProtocolError):
        async for delta in stream:
            received.append(delta)
    assert received, "the stream should have delivered text before breaking off"
    assert len(fake_llm.requests_for("m")) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_stream_succeeds_after_a_retried_open(fake_llm, make_provider, provider):
    fake_llm.script("m", Step(status=529), Step(reply="alpha beta gamma"))
    async with make_provider(provider, "m").stream(QUESTION) as stream:
        text = "".join([delta async for delta in stream])
    assert text == "alpha beta gamma"
    assert stream.completion is not None and stream.completion.attempts == 2


async def test_stream_deadline_covers_a_slow_stream(fake_llm, make_provider):
    fake_llm.script("m", Step(reply=" ".join(["word"] * 40), chunk_delay_s=0.1))  # a 4 s stream, on purpose
    with pytest.raises(ProviderTimeoutError) as caught:
        await make_provider("openai", "m", deadline_s=0.8).stream(QUESTION).collect()
    assert "stream not finished within the call deadline of 0.8s" in str(caught.value)


async def test_no_connection_is_left_open_after_retries(fake_llm, make_provider, transport: Transport):
    fake_llm.script("m", Step(status=503))
    with pytest.raises(UpstreamServerError):
        await make_provider("openai", "m").complete(QUESTION)
    connector = transport.session().connector
    assert connector is not None
    assert sum(len(v) for v in connector._acquired_per_host.values()) == 0  # type: ignore[attr-defined]


def _http_date(offset_s: float) -> str:
    return email.utils.formatdate(time.time() + offset_s, usegmt=True)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after": "0"}, 0.0),
        ({"retry-after": "-5"}, None),
        ({"retry-after": "inf"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "soon"}, None),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "garbage", "retry-after": "3"}, 3.0),
        ({"retry-after": _http_date(-60)}, 0.0),
    ],
)
def test_parse_retry_after(headers, expected):
    assert parse_retry_after(headers) == expected


def test_parse_retry_after_http_date_in_the_future():
    value = parse_retry_after({"retry-after": _http_date(30)})
    assert value is not None and 28 <= value <= 31


def test_backoff_grows_and_is_capped():
    from council.transport.retry import backoff_delay

    policy = RetryPolicy(initial_backoff_s=0.5, max_backoff_s=4, jitter_s=0)
    assert [backoff_delay(policy, n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 4.0, 4.0]
    jittery = RetryPolicy(initial_backoff_s=0.5, max_backoff_s=4, jitter_s=0.25)
    samples = {backoff_delay(jittery, 1) for _ in range(50)}
    assert all(0.5 <= s <= 0.75 for s in samples) and len(samples) > 1
