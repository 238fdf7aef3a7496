"""Request validation never fails with anything but a 4xx ApiError, whatever the body."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from council.providers import PROVIDERS
from council.server.conversation import to_messages
from council.server.param_checks import council_request_problems, member_request_problems
from council.server.schema import (
    ApiError,
    decode_body,
    parse_request,
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["system", "developer", "user", "assistant", "tool", "function", "bot", 3]),
     "content": st.none() | st.text(max_size=30) | st.lists(
         st.fixed_dictionaries({"type": st.sampled_from(["text", "image_url", 1]), "text": st.text(max_size=10)}),
         max_size=3) | JSON},
    optional={"name": st.text(max_size=5), "tool_calls": JSON},
)
BODY = st.fixed_dictionaries(
    {"model": st.sampled_from(["council", "member/alpha"]) | JSON, "messages": st.lists(MESSAGE, max_size=4) | JSON},
    optional={"stream": JSON, "temperature": JSON, "max_tokens": JSON, "n": JSON, "stop": JSON,
              "tool_choice": JSON, "stream_options": JSON, "top_p": JSON, "seed": JSON,
              "max_completion_tokens": JSON, "presence_penalty": JSON, "user": JSON, "metadata": JSON,
              "reasoning_effort": st.sampled_from(["low", "high", "max"]) | JSON,
              "response_format": st.sampled_from([{"type": "text"}, {"type": "json_object"}, {"type": "json_schema"},
                                                  {"type": "json_schema", "json_schema": {"name": "a", "schema": {}}}])
              | JSON,
              "logprobs": JSON, "top_logprobs": JSON, "logit_bias": JSON, "modalities": JSON, "function_call": JSON},
)


def validate(raw: bytes) -> None:
    try:
        request = parse_request(decode_body(raw))
        # Whatever parse_request accepts turns into GenerationParams without a ValidationError.
        params = request.params()
        if request.model == "council":
            council_request_problems(request)
        else:
            wire = PROVIDERS["anthropic"]
            unsupported = [name for name in params.set_fields() if name not in wire.supported_params]
            member_request_problems(request, unsupported, "anthropic")
        messages = to_messages(request)
    except ApiError as error:
        assert 400 <= error.status < 500
        assert error.body()["error"]["message"]
        return
    assert messages[-1].role == "user"


@settings(max_examples=300, deadline=None)
@given(BODY)
def test_structured_bodies(body):
    validate(json.dumps(body).encode())


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_any_json(value):
    validate(json.dumps(value).encode())


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes(raw):
    validate(raw)
