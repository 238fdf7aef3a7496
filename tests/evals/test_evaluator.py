"""Reading the evaluator's verdict strictly, and the parse -> retry -> null path over real HTTP."""

from __future__ import annotations

import json

import pytest

from council.evals.dataset import parse_line
from council.evals.evaluator import PARSE_ERROR, evaluate, evaluate_sample, parse_verdict
from council.review.evaluation import read_evaluation_task, render_evaluation_prompt
from council.testing.fake_llm import Step
from council.types import ChatMessage, GenerationParams

GOOD = '{"accuracy_score": 2, "faithfulness_score": 1, "rationale": "Right answer, one unsupported aside."}'
PARAMS = GenerationParams(temperature=0.0, top_p=1.0, max_tokens=1024, seed=42)


def test_a_strict_reply_is_read():
    verdict, problem = parse_verdict(f"  \n{GOOD}\n ")
    assert problem is None and verdict is not None
    assert (verdict.accuracy_score, verdict.faithfulness_score) == (2, 1)
    assert verdict.rationale == "Right answer, one unsupported aside."
    eighty = " ".join(["word"] * 80)
    assert parse_verdict(json.dumps({"accuracy_score": 0, "faithfulness_score": 0, "rationale": eighty}))[0]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("", "not a bare JSON object"),
        ("Here you go: " + GOOD, "not a bare JSON object"),
        ("```json\n" + GOOD + "\n```", "not a bare JSON object"),
        (GOOD + " // done", "not a bare JSON object"),
        ('{"accuracy_score": 2, "faithfulness_score": 1, "rationale": "x",}', "not valid JSON"),
        ('{"accuracy_score": NaN, "faithfulness_score": 1, "rationale": "x"}', "NaN is not valid JSON"),
        ('{"accuracy_score": 2, "accuracy_score": 1, "faithfulness_score": 1, "rationale": "x"}', "appears twice"),
        ('{"accuracy_score": 2, "rationale": "x"}', "missing keys: faithfulness_score"),
        (
            '{"accuracy_score": 2, "faithfulness_score": 1, "rationale": "x", "confidence": 0.9}',
            "unexpected keys: confidence",
        ),
        (
            '{"accuracy_score": 3, "faithfulness_score": 1, "rationale": "x"}',
            "accuracy_score must be the integer 0, 1 or 2, got 3",
        ),
        ('{"accuracy_score": 2.0, "faithfulness_score": 1, "rationale": "x"}', "got 2.0"),
        ('{"accuracy_score": "2", "faithfulness_score": 1, "rationale": "x"}', 'got "2"'),
        ('{"accuracy_score": 2, "faithfulness_score": true, "rationale": "x"}', "faithfulness_score must be"),
        ('{"accuracy_score": 2, "faithfulness_score": -1, "rationale": "x"}', "faithfulness_score must be"),
        ('{"accuracy_score": 2, "faithfulness_score": 1, "rationale": "  "}', "rationale must be a non-empty string"),
        ('{"accuracy_score": 2, "faithfulness_score": 1, "rationale": null}', "rationale must be a non-empty string"),
        (
            json.dumps({"accuracy_score": 2, "faithfulness_score": 1, "rationale": " ".join(["w"] * 81)}),
            "rationale has 81 words, at most 80",
        ),
        ('{"a":' * 100000 + "1" + "}" * 100000, "nested too deeply to read"),
        ("{}", "missing keys: accuracy_score, faithfulness_score, rationale"),
        ('[{"accuracy_score": 2}]', "not a bare JSON object"),
    ],
)
def test_an_unusable_reply_says_why(reply, problem):
    verdict, found = parse_verdict(reply)
    assert verdict is None and found is not None and problem in found


SAMPLE = parse_line(json.dumps({"id": "s", "task": "What is the capital of France?", "reference_answer": "Paris",
                                "context": "France's capital is Paris."}), 1)


async def test_garbage_twice_gives_null_scores_and_a_parse_error(fake_llm, make_provider):
    fake_llm.script("judge", Step(reply="The answer looks fine to me."), Step(reply='{"accuracy_score": 2}'))
    evaluation = await evaluate_sample(make_provider("openai", "judge"), SAMPLE, "Paris.", PARAMS)
    assert evaluation.accuracy_score is None and evaluation.faithfulness_score is None
    assert evaluation.rationale is None and evaluation.evaluator_error == PARSE_ERROR
    assert evaluation.attempts == 2 and evaluation.replies == ["The answer looks fine to me.", '{"accuracy_score": 2}']
    assert "not a bare JSON object" in evaluation.problems[0] and "missing keys" in evaluation.problems[1]
    first, second = fake_llm.requests_for("judge")
    assert first.body == second.body  # identical inputs: same messages, same parameters, no note about the error
    assert (first.body["temperature"], first.body["top_p"], first.body["max_tokens"], first.body["seed"]) == \
        (0.0, 1.0, 1024, 42)
    task = read_evaluation_task([ChatMessage(**m) for m in first.messages])
    assert (
        task is not None and task.candidate_answer == "Paris." and task.provided_context == "France's capital is Paris."
    )
    assert evaluation.usage.total_tokens > 0


async def test_garbage_then_valid_is_used_after_one_retry(fake_llm, make_provider):
    fake_llm.script("judge", Step(reply="```json\n" + GOOD + "\n```"), Step(reply=GOOD))
    evaluation = await evaluate_sample(make_provider("anthropic", "judge"), SAMPLE, "Paris.", PARAMS)
    assert (evaluation.accuracy_score, evaluation.faithfulness_score) == (2, 1)
    assert evaluation.evaluator_error is None and evaluation.attempts == 2
    first, second = fake_llm.requests_for("judge")
    assert first.body == second.body


async def test_a_good_first_reply_is_not_retried(fake_llm, make_provider):
    fake_llm.script("judge", Step(reply=GOOD))
    evaluation = await evaluate(make_provider("gemini", "judge"), render_evaluation_prompt("q", "a"), PARAMS)
    assert evaluation.attempts == 1 and evaluation.accuracy_score == 2
    assert evaluation.model_version == "judge" and len(fake_llm.requests_for("judge")) == 1


async def test_a_failed_call_is_its_reason_and_not_a_parse_retry(fake_llm, make_provider):
    fake_llm.script("judge", Step(status=401))
    evaluation = await evaluate(make_provider("openai", "judge"), render_evaluation_prompt("q", "a"), PARAMS)
    assert evaluation.evaluator_error == "auth" and evaluation.attempts == 0
    assert evaluation.accuracy_score is None and "auth" in evaluation.problems[0]
    assert len(fake_llm.requests_for("judge")) == 1
