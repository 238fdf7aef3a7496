"""RunRequest: the run options declared once, built by every face, checked by Council.plan alone."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from council import Council, CouncilConfig, InvalidRequestError, RunRequest
from council.pipeline.request import OPTION_NAMES

NAMES = ("atlas", "boreal", "cirrus")
SIMULATED = {"members": [{"name": n, "provider": "simulated", "model": f"sim-{n}"} for n in NAMES],
             "chairman": "atlas",
             "councils": {"quick": {"chairman": "none"},
                          "duo": {"members": ["boreal", "cirrus"], "chairman": "cirrus"}}}


def council() -> Council:
    return Council(CouncilConfig.model_validate(SIMULATED), store=False, environ={})


def test_the_options_are_declared_once_on_the_request():
    # Council.plan and Council.ask take the request's fields as keywords: no second list of names to drift.
    assert {f.name for f in dataclasses.fields(RunRequest)} - {"messages"} == OPTION_NAMES
    assert {"members", "chairman", "rubric", "preset", "rounds", "params", "max_usd", "cache"} <= OPTION_NAMES
    request = RunRequest(messages="Why?")
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.members = ["atlas"]  # type: ignore[misc]


@pytest.mark.parametrize(("chairman", "preset", "expected"), [
    ("default", None, "atlas"),       # the config's
    ("default", "quick", None),       # the preset's: none
    ("default", "duo", "cirrus"),
    ("none", None, None),
    ("NONE", "duo", None),
    (None, None, None),               # the Python API's long-standing spelling of "no chairman"
    ("boreal", "duo", "boreal"),      # given here, it wins over the preset's
])
def test_the_chairman_is_an_explicit_value(chairman, preset, expected):
    plan = council().plan(RunRequest(messages="Why?", chairman=chairman, preset=preset))
    assert plan.chairman == expected


def test_keywords_and_a_request_plan_alike():
    planner = council()
    by_keywords = planner.plan("Why?", members=["boreal", "cirrus"], chairman="none", rounds=2)
    by_request = planner.plan(RunRequest(messages="Why?", members=["boreal", "cirrus"], chairman="none", rounds=2))
    assert by_keywords == by_request and by_keywords.rounds == 2 and by_keywords.members == ("boreal", "cirrus")


def test_a_misspelt_option_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="unknown run option 'chairmen'"):
        council().plan("Why?", chairmen="atlas")


def test_options_beside_a_request_are_refused_naming_them():
    with pytest.raises(InvalidRequestError, match="give none beside it: members") as refused:
        council().plan(RunRequest(messages="Why?"), members=["atlas"])
    assert refused.value.option == "members"


@pytest.mark.parametrize(("request_", "option"), [
    (RunRequest(messages="Why?", members=["atlas", "atlas"]), "members"),
    (RunRequest(messages="Why?", members="atlas"), "members"),
    (RunRequest(messages="Why?", rounds=0), "rounds"),
    (RunRequest(messages="Why?", max_usd=-1), "max_usd"),
    (RunRequest(messages="Why?", preset="nope"), "preset"),
    (RunRequest(messages="Why?", chairman="zephyr"), "chairman"),
    (RunRequest(messages=[{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]), "messages"),
    (RunRequest(messages=[{"role": "robot", "content": "a"}]), "messages"),
])
def test_each_bad_option_is_named(request_, option):
    with pytest.raises(InvalidRequestError) as refused:
        council().plan(request_)
    assert refused.value.option == option


def test_a_named_rubric_is_never_read_as_a_path(tmp_path: Path):
    rubric = tmp_path / "mine.yaml"
    rubric.write_text((Path(__file__).parents[2] / "config" / "rubrics" / "default.yaml").read_text())
    planner = council()
    assert planner.plan(RunRequest(messages="Why?", rubric=str(rubric))).rubric.id  # a local caller may give a path
    with pytest.raises(InvalidRequestError) as refused:
        planner.plan(RunRequest(messages="Why?", rubric=str(rubric), rubric_source="named"))
    assert refused.value.option == "rubric" and refused.value.code == "rubric_not_found"
    assert planner.plan(RunRequest(messages="Why?", rubric="default", rubric_source="named")).rubric.id


def test_an_image_whose_bytes_lie_is_named_by_its_message_and_place():
    png_header_but_text = "data:image/png;base64,aGVsbG8gd29ybGQ="
    request = RunRequest(messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
                                   {"role": "user", "content": "and this?", "images": [{"url": png_header_but_text}]}])
    with pytest.raises(InvalidRequestError) as refused:
        council().plan(request)
    error = refused.value
    assert (error.option, error.message_index, error.image_index, error.code) == ("messages", 2, 0, "invalid_image")
    assert str(error).startswith("invalid question: messages[2].images[0]: ")


async def test_ask_runs_a_request_as_planned():
    async with council() as running:
        result = await running.ask(RunRequest(messages="What is six times seven?", members=["boreal", "cirrus"],
                                              chairman="none"))
    assert result.status == "complete" and [a.member for a in result.answers] == ["boreal", "cirrus"]
    assert result.final_answer is not None and result.final_answer.source != "chairman"
