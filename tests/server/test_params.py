"""Request parameters are honoured or refused with a 400 naming them; none is silently dropped.

The first half calls the schema functions directly; the second half goes over
real HTTP to the server, its members on the fake LLM server.
"""

from __future__ import annotations

import json

import aiohttp
import pytest

from council.config import CouncilConfig
from council.providers import PROVIDERS
from council.server.param_checks import council_request_problems, member_request_problems
from council.server.schema import (
    MAX_TOKENS_LIMIT,
    ApiError,
    parse_request,
)
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from council.types import GenerationParams
from tests.server.conftest import API_KEY, quality_judge, serve

MESSAGES = [{"role": "user", "content": "What is six times seven?"}]
SCHEMA_FORMAT = {"type": "json_schema", "json_schema": {
    "name": "answer", "strict": True,
    "schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"],
               "additionalProperties": False}}}

# Refused on both models unless left at their default, with the parameter the 400 names.
REFUSED_EVERYWHERE = [
    ({"logprobs": True}, "logprobs"),
    ({"top_logprobs": 3}, "top_logprobs"),
    ({"logprobs": True, "top_logprobs": 3}, "logprobs"),
    ({"logit_bias": {"50256": -100}}, "logit_bias"),
    ({"audio": {"voice": "alloy", "format": "wav"}}, "audio"),
    ({"modalities": ["text", "audio"]}, "modalities"),
    ({"prediction": {"type": "content", "content": "x"}}, "prediction"),
    ({"web_search_options": {}}, "web_search_options"),
    ({"verbosity": "low"}, "verbosity"),
    ({"n": 2}, "n"),
]
# Legacy function calling: a member refuses it; the council answers in text and ignores the definitions
# (a forced function_call is refused by its handler: tests/server/test_chat_apps.py).
LEGACY_FUNCTIONS = [
    ({"functions": [{"name": "f", "parameters": {"type": "object"}}]}, "functions"),
    ({"function_call": {"name": "f"}}, "function_call"),
]
# Defaults of the refused parameters, and metadata that asks nothing of the answer: accepted.
HARMLESS = {
    "logprobs": False, "top_logprobs": 0, "logit_bias": {}, "modalities": ["text"], "functions": [],
    "function_call": "none", "n": 1,
    "metadata": {"app": "tests"}, "store": False, "service_tier": "auto", "parallel_tool_calls": True,
    "prompt_cache_key": "k", "prompt_cache_retention": "24h", "safety_identifier": "hash-1",
    "stream_options": {"include_usage": True}, "tools": [], "tool_choice": "auto",
}
# Wrong types and out-of-range values: 400s from parse_request, naming the parameter.
MALFORMED = [
    ({"max_tokens": 10**30}, "max_tokens"),
    ({"max_completion_tokens": MAX_TOKENS_LIMIT + 1}, "max_completion_tokens"),
    ({"logprobs": "yes"}, "logprobs"),
    ({"top_logprobs": 21}, "top_logprobs"),
    ({"logit_bias": {"1": 101}}, "logit_bias.1"),
    ({"logit_bias": ["1"]}, "logit_bias"),
    ({"metadata": {"a": 1}}, "metadata.a"),
    ({"store": "no"}, "store"),
    ({"service_tier": 1}, "service_tier"),
    ({"parallel_tool_calls": "yes"}, "parallel_tool_calls"),
    ({"modalities": "text"}, "modalities"),
    ({"function_call": "always"}, "function_call"),
    ({"reasoning_effort": "max"}, "reasoning_effort"),
    ({"reasoning_effort": 1}, "reasoning_effort"),
    ({"presence_penalty": 3}, "presence_penalty"),
    ({"frequency_penalty": "0.5"}, "frequency_penalty"),
    ({"user": 7}, "user"),
    ({"user": "u" * 257}, "user"),
    ({"seed": 2**64}, "seed"),
    ({"response_format": "json"}, "response_format"),
    ({"response_format": {"type": "xml"}}, "response_format"),
    ({"response_format": {"type": "json_schema", "json_schema": {"name": "a"}}}, "response_format"),
    ({"response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": 5}}}},
     "response_format"),
    ({"verbosity": "loud"}, "verbosity"),
    ({"safety_identifier": ["x"]}, "safety_identifier"),
]


def request(model: str = "council", **fields: object):
    return parse_request({"model": model, "messages": MESSAGES, **fields})


def refusal(check, *args) -> ApiError:
    with pytest.raises(ApiError) as caught:
        check(*args)
    assert caught.value.status == 400
    return caught.value


# -- parse_request -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("fields", "param"), MALFORMED, ids=[p + "-" + json.dumps(f)[:30] for f, p in MALFORMED])
def test_wrong_types_and_ranges_name_the_parameter(fields, param):
    error = refusal(lambda: request(**fields))
    assert error.param == param
    assert error.message.startswith(f"{param}: ")
    assert "Value error" not in error.message


def test_params_carry_every_honoured_field():
    body = request("member/alpha", temperature=0.5, top_p=0.9, max_tokens=10, max_completion_tokens=20, seed=1,
                   stop="END", presence_penalty=0.1, frequency_penalty=-0.1, user="u-1", reasoning_effort="high",
                   response_format=SCHEMA_FORMAT)
    assert body.params() == GenerationParams(
        temperature=0.5, top_p=0.9, max_tokens=20, seed=1, stop=("END",), presence_penalty=0.1,
        frequency_penalty=-0.1, user="u-1", reasoning_effort="high", response_format=SCHEMA_FORMAT)


def test_text_response_format_is_the_default_and_left_unset():
    assert request(response_format={"type": "text"}).params().response_format is None


# -- council_request_problems ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("fields", "param"), REFUSED_EVERYWHERE, ids=[p for _, p in REFUSED_EVERYWHERE])
def test_council_refuses_what_it_cannot_honour(fields, param):
    def check() -> None:
        council_request_problems(request(**fields))

    error = refusal(check)
    assert error.param == param and error.message.startswith(f"{param}: ")


@pytest.mark.parametrize(("fields", "param"), LEGACY_FUNCTIONS, ids=[p for _, p in LEGACY_FUNCTIONS])
def test_council_leaves_legacy_functions_to_its_handler(fields, param):
    body = request(**fields)
    council_request_problems(body)
    assert body.forced_tool_param() == ("function_call" if param == "function_call" else None)


def test_council_accepts_harmless_metadata_and_defaults():
    council_request_problems(request(**HARMLESS, response_format={"type": "text"}))


def test_council_accepts_what_it_forwards_to_members():
    body = request(temperature=0.2, top_p=0.5, max_completion_tokens=100, seed=3, stop=["x"], presence_penalty=1,
                   frequency_penalty=1, user="someone", reasoning_effort="low")
    council_request_problems(body)
    assert body.params().set_fields() == ["temperature", "top_p", "max_tokens", "seed", "stop", "presence_penalty",
                                          "frequency_penalty", "user", "reasoning_effort"]


# -- member_request_problems -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("fields", "param"), [f for f in REFUSED_EVERYWHERE + LEGACY_FUNCTIONS if f[1] != "n"],
                         ids=[p for _, p in REFUSED_EVERYWHERE + LEGACY_FUNCTIONS if p != "n"])
def test_pass_through_refuses_what_a_relayed_answer_cannot_carry(fields, param):
    error = refusal(member_request_problems, request("member/alpha", **fields), [], "openai")
    assert error.param == param


def test_pass_through_accepts_harmless_metadata():
    member_request_problems(request("member/alpha", **HARMLESS), [], "openai")


def unsupported_for(wire_format: str, body) -> list[str]:
    """What a member of ``wire_format`` would report for this request, without building one."""
    cls = PROVIDERS[wire_format]
    return [name for name in body.params().set_fields() if name not in cls.supported_params]


@pytest.mark.parametrize(("wire_format", "fields", "param"), [
    ("anthropic", {"presence_penalty": 0.5}, "presence_penalty"),
    ("anthropic", {"frequency_penalty": 0.5}, "frequency_penalty"),
    ("anthropic", {"reasoning_effort": "low"}, "reasoning_effort"),
    ("anthropic", {"response_format": {"type": "json_object"}}, "response_format"),
    ("anthropic", {"seed": 7}, "seed"),
    ("gemini", {"user": "u"}, "user"),
    ("gemini", {"reasoning_effort": "high"}, "reasoning_effort"),
])
def test_pass_through_names_the_parameter_and_the_wire_format(wire_format, fields, param):
    body = request("member/claude", **fields)
    error = refusal(member_request_problems, body, unsupported_for(wire_format, body), wire_format)
    assert error.param == param
    assert error.message.startswith(f"{param}: member 'claude' speaks the {wire_format} API, which has no {param}")


def test_pass_through_message_for_the_first_of_several():
    body = request(
        "member/claude", presence_penalty=0.5, frequency_penalty=0.1, response_format={"type": "json_object"}
    )
    error = refusal(member_request_problems, body, ["presence_penalty", "frequency_penalty", "response_format"],
                    "anthropic")
    assert error.message == "presence_penalty: member 'claude' speaks the anthropic API, which has no presence_penalty"
    error = refusal(member_request_problems, request("member/claude", response_format={"type": "json_object"}),
                    ["response_format"], "anthropic")
    assert error.message.endswith("which has no response_format of type json_object")


def test_pass_through_names_max_completion_tokens_when_that_was_sent():
    error = refusal(member_request_problems, request("member/x", max_completion_tokens=5), ["max_tokens"], "other")
    assert error.param == "max_completion_tokens"


# -- over HTTP ---------------------------------------------------------------------------------------------------
# The end-to-end checks of the server's wiring: chat.py calls council_request_problems /
# member_request_problems and sends each council member only what its wire format honours.

async def post(server, body: dict) -> tuple[int, dict]:
    headers = {"Authorization": f"Bearer {API_KEY}"}
    async with aiohttp.ClientSession() as http, http.post(server.url + "/v1/chat/completions", json=body,
                                                          headers=headers) as response:
        return response.status, await response.json(content_type=None)


async def test_pass_through_forwards_the_new_params(server):
    code, payload = await post(server, {
        "model": "member/alpha", "messages": MESSAGES, "response_format": SCHEMA_FORMAT, "presence_penalty": 0.5,
        "frequency_penalty": -0.5, "user": "user-9", "reasoning_effort": "low", "max_completion_tokens": 64,
    })
    assert code == 200, payload
    body = server.fake.requests_for("model-alpha")[-1].body
    assert {k: body.get(k) for k in ("response_format", "presence_penalty", "frequency_penalty", "user",
                                     "reasoning_effort", "max_tokens")} == {
        "response_format": SCHEMA_FORMAT, "presence_penalty": 0.5, "frequency_penalty": -0.5, "user": "user-9",
        "reasoning_effort": "low", "max_tokens": 64,
    }


async def test_pass_through_accepts_metadata_and_sends_none_of_it(server):
    code, payload = await post(server, {"model": "member/alpha", "messages": MESSAGES, **HARMLESS})
    assert code == 200, payload
    body = server.fake.requests_for("model-alpha")[-1].body
    assert not {"metadata", "store", "service_tier", "prompt_cache_key", "logprobs"} & set(body)
    # The end user's id is for the upstream's abuse tracking, as user is: an OpenAI-format member gets it.
    assert body["safety_identifier"] == "hash-1"


@pytest.mark.parametrize(("model", "fields", "param"), [
    ("member/alpha", {"logprobs": True}, "logprobs"),
    ("member/alpha", {"top_logprobs": 2}, "top_logprobs"),
    ("member/alpha", {"logit_bias": {"1": 5}}, "logit_bias"),
    ("council", {"response_format": {"type": "json_schema"}}, "response_format"),
    ("council", {"logprobs": True}, "logprobs"),
    ("council", {"modalities": ["text", "audio"]}, "modalities"),
    ("council", {"max_tokens": 10**30}, "max_tokens"),
    ("council", {"reasoning_effort": "turbo"}, "reasoning_effort"),
])
async def test_refusals_over_http(server, model, fields, param):
    code, payload = await post(server, {"model": model, "messages": MESSAGES, **fields})
    assert code == 400, payload
    assert payload["error"]["param"] == param and payload["error"]["message"].startswith(f"{param}: ")
    assert not server.fake.requests, "a refused request never reaches a member"


async def test_council_accepts_harmless_metadata(server):
    code, payload = await post(server, {"model": "council", "messages": MESSAGES, **HARMLESS,
                                        "response_format": {"type": "text"}})
    assert code == 200, payload


# A council with one member of each wire format, to check what each is sent.
MIXED = {"oa": "openai", "claude": "anthropic", "gem": "gemini"}


def mixed_config(fake: FakeLLMServer) -> CouncilConfig:
    return CouncilConfig.model_validate({
        "members": [{"name": name, "provider": wire, "model": f"model-{name}", "base_url": fake.base_url(wire)}
                    for name, wire in MIXED.items()],
        "chairman": "oa",
        "retry": {"max_attempts": 2, "initial_backoff_s": 0.01, "jitter_s": 0},
        "stages": {"stage_deadline_s": 5, "member_timeout_s": 5},
    })


@pytest.fixture
async def mixed(fake_llm: FakeLLMServer):
    for quality, name in enumerate(MIXED, start=5):
        fake_llm.script(f"model-{name}", Step(reply=council_member(f"{name} thinks 42. quality={quality}",
                                                                   quality_judge)))
    runner, running = await serve(fake_llm, mixed_config(fake_llm), Store(":memory:"), API_KEY)
    yield running
    await runner.cleanup()
    running.store.close()


async def test_council_sends_each_member_what_its_wire_format_honours(mixed):
    code, payload = await post(mixed, {
        "model": "council", "messages": MESSAGES, "temperature": 0.4, "seed": 11, "presence_penalty": 0.5,
        "frequency_penalty": 0.25, "user": "user-3", "reasoning_effort": "low",
    })
    assert code == 200, payload
    openai_body = mixed.fake.requests_for("model-oa")[0].body
    assert {k: openai_body.get(k) for k in ("temperature", "seed", "presence_penalty", "frequency_penalty", "user",
                                            "reasoning_effort")} == {
        "temperature": 0.4, "seed": 11, "presence_penalty": 0.5, "frequency_penalty": 0.25, "user": "user-3",
        "reasoning_effort": "low"}
    claude_body = mixed.fake.requests_for("model-claude")[0].body
    assert claude_body["temperature"] == 0.4 and claude_body["metadata"] == {"user_id": "user-3"}
    assert not {"seed", "presence_penalty", "frequency_penalty", "reasoning_effort", "user"} & set(claude_body)
    generation = mixed.fake.requests_for("model-gem")[0].body["generationConfig"]
    assert generation == {"temperature": 0.4, "seed": 11, "presencePenalty": 0.5, "frequencyPenalty": 0.25}


@pytest.mark.parametrize(("member", "fields", "param", "wire_format"), [
    ("claude", {"presence_penalty": 0.5}, "presence_penalty", "anthropic"),
    ("claude", {"response_format": {"type": "json_object"}}, "response_format", "anthropic"),
    ("claude", {"seed": 3}, "seed", "anthropic"),
    ("gem", {"user": "u"}, "user", "gemini"),
    ("gem", {"reasoning_effort": "low"}, "reasoning_effort", "gemini"),
])
async def test_pass_through_refuses_what_the_members_wire_format_lacks(mixed, member, fields, param, wire_format):
    code, payload = await post(mixed, {"model": f"member/{member}", "messages": MESSAGES, **fields})
    assert code == 400, payload
    error = payload["error"]
    assert error["param"] == param
    assert error["message"].startswith(f"{param}: member '{member}' speaks the {wire_format} API")
    assert not mixed.fake.requests


async def test_pass_through_to_gemini_with_a_schema(mixed):
    code, payload = await post(mixed, {"model": "member/gem", "messages": MESSAGES, "response_format": SCHEMA_FORMAT,
                                       "presence_penalty": 0.1})
    assert code == 200, payload
    generation = mixed.fake.requests_for("model-gem")[-1].body["generationConfig"]
    assert generation == {"presencePenalty": 0.1, "responseMimeType": "application/json",
                          "responseJsonSchema": SCHEMA_FORMAT["json_schema"]["schema"]}


async def test_pass_through_to_anthropic_with_a_user(mixed):
    code, payload = await post(mixed, {"model": "member/claude", "messages": MESSAGES, "user": "user-5"})
    assert code == 200, payload
    assert mixed.fake.requests_for("model-claude")[-1].body["metadata"] == {"user_id": "user-5"}
