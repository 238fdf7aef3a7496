"""GenerationParams: the fields added for pass-through, their validation, and a dump shape that did not change."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from council.config import MemberConfig
from council.providers import PROVIDERS
from council.types import GenerationParams

SCHEMA_FORMAT = {"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "object"}}}


def test_dump_of_old_style_params_is_unchanged():
    """Unset new fields stay out of dumps: config hashes and eval manifests of existing setups do not move."""
    params = GenerationParams(temperature=0.0, top_p=1.0, max_tokens=1024, seed=42)
    assert params.model_dump(mode="json") == {"temperature": 0.0, "top_p": 1.0, "max_tokens": 1024, "seed": 42,
                                              "stop": None}
    assert params.model_dump_json() == '{"temperature":0.0,"top_p":1.0,"max_tokens":1024,"seed":42,"stop":null}'


def test_set_new_fields_are_dumped_and_read_back():
    params = GenerationParams(presence_penalty=0.5, frequency_penalty=1, user="u", reasoning_effort="minimal",
                              response_format=SCHEMA_FORMAT)
    again = GenerationParams.model_validate_json(params.model_dump_json())
    assert again == params
    assert params.set_fields() == ["presence_penalty", "frequency_penalty", "user", "reasoning_effort",
                                   "response_format"]


@pytest.mark.parametrize(("value", "fragment"), [
    ({"type": "xml"}, "type must be one of text, json_object, json_schema"),
    ({}, "type must be one of"),
    ({"type": "text", "json_schema": {}}, "unknown key 'json_schema' for type text"),
    ({"type": "json_schema"}, "json_schema must be an object"),
    ({"type": "json_schema", "json_schema": {"schema": {}}}, "json_schema.name is required"),
    ({"type": "json_schema", "json_schema": {"name": "a b", "schema": {}}}, "json_schema.name is required"),
    ({"type": "json_schema", "json_schema": {"name": "a"}}, "json_schema.schema is required"),
    ({"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "nope"}}},
     "json_schema.schema is not a valid JSON Schema at type"),
    ({"type": "json_schema", "json_schema": {"name": "a", "schema": {}, "strict": "yes"}}, "strict must be true"),
    ({"type": "json_schema", "json_schema": {"name": "a", "schema": {}, "extra": 1}}, "unknown key 'extra'"),
])
def test_response_format_shape_is_checked(value, fragment):
    with pytest.raises(ValidationError) as caught:
        GenerationParams(response_format=value)
    (error,) = caught.value.errors()
    assert error["loc"] == ("response_format",) and fragment in error["msg"]


@pytest.mark.parametrize("field", ["presence_penalty", "frequency_penalty"])
@pytest.mark.parametrize("value", [-2.5, 3])
def test_penalty_range(field, value):
    with pytest.raises(ValidationError):
        GenerationParams(**{field: value})


def test_reasoning_effort_values():
    for value in ("none", "minimal", "low", "medium", "high", "xhigh"):
        assert GenerationParams(reasoning_effort=value).reasoning_effort == value
    with pytest.raises(ValidationError):
        GenerationParams(reasoning_effort="max")


def test_without_unsets_fields_and_refuses_unknown_names():
    params = GenerationParams(temperature=0.3, user="u", presence_penalty=0.1)
    assert params.without(["user", "presence_penalty"]) == GenerationParams(temperature=0.3)
    assert params.without([]) is params
    with pytest.raises(ValueError, match="not a generation param: colour"):
        params.without(["colour"])


def test_frozen_and_strict():
    params = GenerationParams(user="u")
    with pytest.raises(ValidationError):
        params.user = "v"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        GenerationParams(top_k=5)  # type: ignore[call-arg]


def test_members_may_configure_the_new_fields():
    member = MemberConfig.model_validate({
        "name": "o", "provider": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1",
        "params": {"presence_penalty": 0.2, "user": "council", "reasoning_effort": "low",
                   "response_format": {"type": "json_object"}},
    })
    assert member.params.reasoning_effort == "low" and member.params.response_format == {"type": "json_object"}


def test_every_wire_format_declares_only_real_fields():
    fields = set(GenerationParams.model_fields)
    for cls in PROVIDERS.values():
        assert cls.supported_params <= fields, cls.name
        assert cls.best_effort_params <= fields - cls.supported_params, cls.name
