"""Simulated members: offline, deterministic, persona-driven and labelled."""

from __future__ import annotations

import json
import time

import pytest
from jsonschema import Draft202012Validator

from council.config import MemberConfig, RetryPolicy, SimulatedPersona
from council.providers.simulated import SimulatedBehaviour, SimulatedProvider
from council.simulation import behaviour_for
from council.simulation.personas import SOUND_POINTS, persona_for, topic_of
from council.types import ChatMessage, GenerationParams


def simulated(name: str = "sim", model: str = "sim-1", **persona: object) -> SimulatedProvider:
    member = MemberConfig(
        name=name, provider="simulated", model=model, persona=SimulatedPersona(**persona) if persona else None
    )
    return SimulatedProvider(member, behaviour=behaviour_for(member), retry=RetryPolicy(), deadline_s=5)


def ask(text: str) -> list[ChatMessage]:
    return [ChatMessage(role="user", content=text)]


def sound_points(answer: str) -> int:
    """How many sound-point templates the answer uses (each ends with a fixed phrase)."""
    return sum(1 for template in SOUND_POINTS if template.split("{topic}")[-1].strip(" .") in answer)


async def test_answers_are_deterministic_and_labelled():
    first = await simulated().complete(ask("Why is the sky blue?"))
    again = await simulated().complete(ask("Why is the sky blue?"))
    assert first.content == again.content
    assert first.simulated is True and first.provider == "simulated"
    assert first.model_version == "simulated/sim-1"
    assert "the sky blue" in first.content
    assert first.usage.completion_tokens == len(first.content.split())


async def test_members_differ():
    one = await simulated("one").complete(ask("Why is the sky blue?"))
    two = await simulated("two").complete(ask("Why is the sky blue?"))
    assert one.content != two.content


def test_persona_comes_from_the_name_and_config_overrides_it():
    base = persona_for(MemberConfig(name="a", provider="simulated", model="m"))
    assert base == persona_for(MemberConfig(name="a", provider="simulated", model="m"))
    assert 0.35 <= base.quality <= 0.95 and base.verbosity in ("terse", "balanced", "verbose")
    tuned = persona_for(MemberConfig(name="a", provider="simulated", model="m",
                                     persona=SimulatedPersona(quality=0.99, leniency=-2.0)))
    assert tuned.quality == 0.99 and tuned.leniency == -2.0
    assert tuned.style == base.style


async def test_quality_shows_in_the_text():
    questions = [f"Question number {i} about physics?" for i in range(30)]
    good = simulated("g", quality=0.95, verbosity="verbose")
    poor = simulated("p", quality=0.2, verbosity="verbose")
    good_sound = poor_sound = 0
    for question in questions:
        good_sound += sound_points((await good.complete(ask(question))).content)
        poor_sound += sound_points((await poor.complete(ask(question))).content)
    assert good_sound > 2 * poor_sound


async def test_stream_matches_complete():
    provider = simulated(style="bulleted")
    whole = await provider.complete(ask("List three fruits."))
    stream = provider.stream(ask("List three fruits."))
    deltas = [d async for d in stream]
    assert len(deltas) > 1
    assert "".join(deltas) == whole.content
    assert stream.completion is not None and stream.completion.content == whole.content


async def test_latency_is_simulated():
    started = time.perf_counter()
    await simulated(latency_ms=200).complete(ask("Slow?"))
    assert time.perf_counter() - started >= 0.2


async def test_max_tokens_truncates_with_length_finish():
    completion = await simulated(verbosity="verbose").complete(ask("Explain gravity."), GenerationParams(max_tokens=5))
    assert len(completion.content.split(" ")) == 5 and completion.finish_reason == "length"


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("Why is the sky blue?", "the sky blue"),
        ("Please explain TCP slow start", "tcp slow start"),
        ("?!", "the question"),
    ],
)
def test_topic(text, topic):
    assert topic_of(ask(text)) == topic


async def test_stop_ends_the_answer_before_the_stop_sequence():
    full = await simulated(verbosity="verbose").complete(ask("Explain gravity."))
    cut = full.content.index(" ", 20)
    stop = full.content[cut:cut + 6]
    completion = await simulated(verbosity="verbose").complete(
        ask("Explain gravity."), GenerationParams(stop=(stop, "never-there")))
    assert completion.content == full.content[:full.content.index(stop)] and completion.finish_reason == "stop"
    assert 0 < len(completion.content) <= cut and stop not in completion.content


async def test_sampling_settings_are_accepted_and_json_output_is_a_valid_instance():
    provider = simulated()
    sampling = GenerationParams(temperature=1.5, top_p=0.5, seed=3, presence_penalty=1, frequency_penalty=1,
                                user="u", reasoning_effort="high", response_format={"type": "text"})
    assert provider.unsupported_params(sampling) == []
    plain = await provider.complete(ask("Why is the sky blue?"))
    assert (await provider.complete(ask("Why is the sky blue?"), sampling)).content == plain.content
    json_mode = GenerationParams(response_format={"type": "json_object"})
    assert provider.unsupported_params(json_mode) == []
    assert isinstance(json.loads((await provider.complete(ask("Why?"), json_mode)).content), dict)
    properties = {"n": {"type": "integer", "minimum": 3, "maximum": 5}, "kind": {"enum": ["a", "b"]},
                  "when": {"type": "string", "format": "date"},
                  "items": {"type": "array", "minItems": 2, "items": {"type": "number"}}}
    schema = {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}
    strict = GenerationParams(response_format={"type": "json_schema",
                                               "json_schema": {"name": "t", "schema": schema, "strict": True}})
    streamed = await provider.stream(ask("Why?"), strict).collect()
    Draft202012Validator(schema).validate(json.loads(streamed.content))


async def test_a_reply_function_without_a_structured_writer_answers_in_prose():
    member = MemberConfig(name="echo", provider="simulated", model="echo-1")
    provider = SimulatedProvider(member, behaviour=SimulatedBehaviour(lambda _m: "just prose"), retry=RetryPolicy(),
                                 deadline_s=5)
    asked = GenerationParams(response_format={"type": "json_object"})
    assert (await provider.complete(ask("Why?"), asked)).content == "just prose"


async def test_any_reply_function_can_be_handed_in():
    member = MemberConfig(name="echo", provider="simulated", model="echo-1")
    seen: list[list[ChatMessage]] = []

    def echo(messages: list[ChatMessage]) -> str:
        seen.append(messages)
        return "you said: " + messages[-1].content

    provider = SimulatedProvider(member, behaviour=SimulatedBehaviour(echo), retry=RetryPolicy(), deadline_s=5)
    completion = await provider.complete(ask("hello there"), GenerationParams(max_tokens=3))
    assert completion.content == "you said: hello" and completion.finish_reason == "length"
    async with provider.stream(ask("stream me")) as stream:
        text = "".join([delta async for delta in stream])
    assert text == "you said: stream me" == stream.completion.content
    assert len(seen) == 2 and completion.simulated
