"""Samples with an output_schema: schema validity is scored and gated, for the council and for each member."""

from __future__ import annotations

import json

import pytest

from council.evals.dataset import DatasetError, load_dataset
from council.evals.runner import EvalRunner
from council.testing.fake_llm import RecordedRequest, Step
from council.testing.scripted import council_member
from tests.evals.conftest import PROVIDERS, QUESTIONS, fake_council_file, write_dataset
from tests.evals.test_runner import prepare

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
          "additionalProperties": False}


def reference(request: RecordedRequest) -> str:
    # Whole conversation: a retry's last turn quotes the validation error, the question is earlier.
    return next(ref for question, ref in QUESTIONS.values() if question in str(request.messages))


def in_json(request: RecordedRequest) -> str:
    return json.dumps({"answer": reference(request)})


def in_prose(request: RecordedRequest) -> str:
    return "The answer, in prose: " + reference(request)


@pytest.fixture
def structured_dataset(tmp_path):
    return write_dataset(tmp_path / "structured.jsonl", [
        {"id": key, "task": question, "reference_answer": ref, "output_schema": SCHEMA}
        for key, (question, ref) in QUESTIONS.items()])


def script(fake_llm):
    fake_llm.script("model-alpha", Step(reply=council_member(in_json)))
    fake_llm.script("model-beta", Step(reply=council_member(in_prose)))  # never valid, even when asked again
    fake_llm.script("model-gamma", Step(reply=council_member(in_json)))


async def test_the_council_is_valid_where_a_member_is_not_and_each_member_is_reported(fake_llm, tmp_path,
                                                                                         structured_dataset):
    script(fake_llm)
    council, store, dataset, manifest = prepare(fake_council_file(tmp_path, fake_llm), structured_dataset)
    try:
        async with council:
            summary = await EvalRunner(council, store, dataset, manifest).run()
            records = store.samples(manifest.run_id)
    finally:
        store.close()
    metrics = summary.subjects["council"].metrics
    assert metrics.schema_valid_rate == 1.0 and all(r.metrics.schema_valid for r in records)
    assert summary.member_schema_valid_rate == {"alpha": 1.0, "beta": 0.0, "gamma": 1.0}
    gate = {c.metric: c for c in summary.subjects["council"].gate.checks}
    assert gate["schema_valid_rate"].passed and gate["schema_valid_rate"].value == 1.0
    asked = fake_llm.requests_for("model-gamma")[0].body
    assert asked["generationConfig"]["responseJsonSchema"] == SCHEMA, "gemini is asked natively"


async def test_judge_mode_fails_the_member_whose_answers_never_validate(fake_llm, tmp_path, structured_dataset):
    script(fake_llm)
    council, store, dataset, manifest = prepare(fake_council_file(tmp_path, fake_llm), structured_dataset,
                                                judge="alpha")
    try:
        async with council:
            summary = await EvalRunner(council, store, dataset, manifest).run()
            records = store.samples(manifest.run_id)
    finally:
        store.close()
    assert summary.subjects["alpha"].metrics.schema_valid_rate == 1.0
    beta = summary.subjects["beta"]
    assert beta.metrics.schema_valid_rate == 0.0 and not beta.gate.passed
    assert beta.failed_because["schema:"] == len(QUESTIONS)
    failing = next(r for r in records if r.subject == "beta")
    assert "schema: the answer is not a JSON value valid for the sample's output_schema" in failing.failed_conditions
    # Asked again once with the error, as a council member is: two answer calls per sample.
    answers = [r for r in fake_llm.requests_for("model-beta") if "Evaluation protocol" not in str(r.messages)]
    assert len(answers) == 2 * len(QUESTIONS) and set(PROVIDERS) == set(summary.subjects)


async def test_prose_datasets_leave_the_schema_condition_out_of_the_gate(fake_llm, tmp_path, dataset_file):
    script(fake_llm)
    council, store, dataset, manifest = prepare(fake_council_file(tmp_path, fake_llm), dataset_file)
    try:
        async with council:
            summary = await EvalRunner(council, store, dataset, manifest).run()
    finally:
        store.close()
    assert summary.subjects["council"].metrics.schema_valid_rate is None
    assert "schema_valid_rate" not in {c.metric for c in summary.subjects["council"].gate.checks}


@pytest.mark.parametrize(("schema", "message"), [
    ([1], "field 'output_schema': must be a JSON Schema object, got list"),
    ({"type": 5}, "field 'output_schema': not a valid JSON Schema"),
])
def test_a_bad_output_schema_names_the_line_and_field(tmp_path, schema, message):
    path = write_dataset(tmp_path / "bad.jsonl", [{"id": "a", "task": "Q?", "output_schema": schema}])
    with pytest.raises(DatasetError, match="line 1: " + message.replace("(", r"\(")):
        load_dataset(path)
