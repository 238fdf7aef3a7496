"""The moderation client over real HTTP against the fake upstream, for OpenAI's endpoint and Llama Guard."""

from __future__ import annotations

import io

import pytest

from council.errors import ProtocolError, ProviderError, ProviderTimeoutError, UpstreamServerError
from council.logs import configure_logging
from council.safety.moderation import council_category
from council.testing.fake_llm import Step
from tests.safety.moderation.helpers import MODELS, SECRET, benign_reply, harmful_reply, make_moderator

PROVIDERS = ["openai", "llama_guard"]
QUESTION = "How do I cope with a hard week?"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_harmful_answer_is_flagged_with_the_providers_labels(fake_llm, transport, provider):
    fake_llm.script(MODELS[provider], Step(reply=harmful_reply(provider)))
    moderator = make_moderator(fake_llm, transport, provider)
    judgement, latency_ms, attempts = await moderator.judge(QUESTION, "Here are ways to hurt yourself: ...")
    assert judgement.flagged
    expected = ["self-harm/instructions", "hate"] if provider == "openai" else ["S11", "S10"]
    assert sorted(judgement.labels) == sorted(expected)
    assert {council_category(provider, label) for label in judgement.labels} == {"self_harm", "hate_harassment"}
    assert latency_ms > 0 and attempts == 1


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_benign_answer_passes(fake_llm, transport, provider):
    fake_llm.script(MODELS[provider], Step(reply=benign_reply(provider)))
    judgement, _, _ = await make_moderator(fake_llm, transport, provider).judge(QUESTION, "Take a walk, sleep well.")
    assert not judgement.flagged and judgement.labels == []


async def test_openai_gets_the_answer_and_the_model_in_its_published_request_shape(fake_llm, transport):
    fake_llm.script("omni-moderation-latest", Step(reply="illicit"))
    judgement, _, _ = await make_moderator(fake_llm, transport, "openai", key=True).judge(QUESTION, "the answer")
    sent = fake_llm.requests[-1]
    assert sent.path == "/v1/moderations" and sent.body == {"model": "omni-moderation-latest", "input": "the answer"}
    assert sent.headers["Authorization"] == f"Bearer {SECRET}"
    assert judgement.scores["illicit"] > 0.9 and judgement.model_version == "omni-moderation-latest"
    assert judgement.usage.estimated and judgement.usage.prompt_tokens == 3, "no usage is reported: estimated"


async def test_llama_guard_sees_the_conversation_and_reports_its_tokens(fake_llm, transport):
    fake_llm.script("guard-8b", Step(reply="unsafe\nS9"))
    moderator = make_moderator(fake_llm, transport, "llama_guard", model="guard-8b")
    judgement, _, _ = await moderator.judge(QUESTION, "the answer")
    sent = fake_llm.requests[-1]
    assert sent.path == "/v1/chat/completions"
    assert sent.messages == [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": "the answer"}]
    assert sent.body["temperature"] == 0 and sent.body["max_tokens"] == moderator.max_output_tokens
    assert judgement.labels == ["S9"] and council_category("llama_guard", "S9") == "weapon_making"
    assert judgement.usage.completion_tokens == 2 and not judgement.usage.estimated


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_server_error_is_retried_then_raised(fake_llm, transport, provider):
    fake_llm.script(MODELS[provider], Step(status=500))
    with pytest.raises(UpstreamServerError) as caught:
        await make_moderator(fake_llm, transport, provider).judge(QUESTION, "x")
    assert caught.value.attempts == 2 and len(fake_llm.requests) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_hanging_upstream_times_out_within_the_checks_deadline(fake_llm, transport, provider):
    fake_llm.script(MODELS[provider], Step(hang=True))
    with pytest.raises(ProviderTimeoutError):
        await make_moderator(fake_llm, transport, provider, timeout_s=0.3).judge(QUESTION, "x")


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("body", [b"not json at all", b'{"results": "nope"}', b'{"choices": []}',
                                  b'{"results": [{"flagged": "yes", "categories": {}}]}'])
async def test_an_unreadable_answer_is_a_protocol_error(fake_llm, transport, provider, body):
    fake_llm.script(MODELS[provider], Step(body=body))
    with pytest.raises(ProtocolError):
        await make_moderator(fake_llm, transport, provider).judge(QUESTION, "x")


async def test_a_llama_guard_reply_in_another_shape_is_a_protocol_error(fake_llm, transport):
    fake_llm.script("llama-guard3", Step(reply="I think this answer is fine."))
    with pytest.raises(ProtocolError, match="not 'safe' or 'unsafe'"):
        await make_moderator(fake_llm, transport, "llama_guard").judge(QUESTION, "x")


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_the_key_never_appears_in_an_error_even_when_the_upstream_echoes_it(fake_llm, transport, provider):
    fake_llm.script(MODELS[provider], Step(status=401, error_message=f"Incorrect API key provided: {SECRET}"))
    with pytest.raises(ProviderError) as caught:
        await make_moderator(fake_llm, transport, provider, key=True).judge(QUESTION, "x")
    assert caught.value.reason == "auth"
    assert SECRET not in str(caught.value) and SECRET not in repr(caught.value.args)
    assert fake_llm.requests[-1].headers["Authorization"] == f"Bearer {SECRET}", "the key was sent, only hidden"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_retry_logs_never_carry_the_key(fake_llm, transport, provider):
    stream = io.StringIO()
    configure_logging("debug", "json", stream)
    try:
        fake_llm.script(MODELS[provider], Step(status=503, error_message=f"upstream saw {SECRET}"),
                        Step(reply=benign_reply(provider)))
        judgement, _, attempts = await make_moderator(fake_llm, transport, provider, key=True).judge(QUESTION, "x")
    finally:
        configure_logging("warning", "console")
    assert attempts == 2 and not judgement.flagged
    assert "retrying" in stream.getvalue() and SECRET not in stream.getvalue()
