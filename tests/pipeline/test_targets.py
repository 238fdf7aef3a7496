"""Structured targets (JSON objects) evaluated against a rubric, dataknobs-style; llm_decode over real HTTP."""

from __future__ import annotations

from pathlib import Path

from council.pipeline.targets import ERROR_LEVEL, UNABLE_LEVEL, evaluate_target
from council.rubrics import Rubric, load_rubric, register_check
from council.testing.fake_llm import Step

QUIZ = Path(__file__).parents[1] / "rubrics" / "fixtures" / "dataknobs_quiz.yaml"
LEVELS = [{"id": "weak", "label": "Weak", "description": "Tests recall only", "score": 0.0},
          {"id": "sound", "label": "Sound", "description": "Tests understanding", "score": 0.8},
          {"id": "excellent", "label": "Excellent", "description": "Tests understanding and transfer", "score": 1.0}]


def decode_rubric(template: str) -> Rubric:
    return Rubric.model_validate({"id": "pedagogy", "name": "Pedagogy", "version": "1.0.0", "target_type": "quiz",
                                  "pass_threshold": 0.7, "criteria": [
                                      {"id": "depth", "name": "Depth", "description": "What the questions test",
                                       "levels": LEVELS, "scoring": "llm_decode", "decode_prompt": template}]})


TEMPLATE = "Rate these questions:\n{% for q in questions %}- {{ q }}\n{% endfor %}"
TARGET = {"questions": ["Why do leaves change colour?", "What would happen without chlorophyll?"]}


async def test_the_quiz_passes_with_five_questions_and_fails_with_three():
    rubric = load_rubric(str(QUIZ), quiet=True)
    passing = await evaluate_target(rubric, {"questions": [f"Q{i}" for i in range(5)]}, target_id="quiz-1")
    assert passing.passed and passing.weighted_score == 1.0 and passing.target_type == "content"
    assert [(r.criterion_id, r.level_id, r.scoring_method_used) for r in passing.criterion_results] == [
        ("question_count", "pass", "deterministic"), ("well_formed", "valid", "schema")]
    failing = await evaluate_target(rubric, {"questions": ["Q1", "Q2", "Q3"]}, target_id="quiz-2")
    assert not failing.passed and failing.weighted_score == 0.4
    assert failing.id.startswith("eval_") and failing.rubric_version == "1.0.0" and failing.target_id == "quiz-2"
    assert failing.feedback_summary.splitlines()[:4] == [
        "Evaluation FAILED for rubric 'Quiz Quality'.", "Overall score: 40%",
        "- Question Count: fail (score: 0.00)", "- Well Formed: valid (score: 1.00)"]
    assert "Suggestions for improvement:\n- Question Count: aim for 'Pass' — Five questions or more" in \
        failing.feedback_summary


async def test_schema_failure_is_the_lowest_level_with_the_errors_as_evidence():
    rubric = load_rubric(str(QUIZ), quiet=True)
    evaluation = await evaluate_target(rubric, {"questions": [1, 2, 3, 4, 5]})
    schema = evaluation.criterion_results[1]
    assert schema.level_id == "invalid" and schema.score == 0.0
    assert any("is not of type 'string'" in e for e in schema.evidence)


@register_check("tests.targets:explodes")
def explodes(target: dict) -> str:
    raise KeyError("no such field")


@register_check("tests.targets:has_title")
def has_title(target: dict) -> tuple[str, str]:
    return ("pass", f"title {target['title']!r}") if target.get("title") else ("fail", "no title")


@register_check("tests.targets:made_up_level")
def made_up_level(target: dict) -> str:
    return "stellar"


async def test_a_failing_function_gives_the_error_level_with_the_reason():
    levels = [{"id": "fail", "label": "Fail", "score": 0}, {"id": "pass", "label": "Pass", "score": 1}]
    rubric = Rubric.model_validate({"id": "r", "name": "R", "version": "1.0.0", "criteria": [
        {"id": "boom", "levels": levels, "scoring": "deterministic", "function": "tests.targets:explodes"},
        {"id": "odd", "levels": levels, "scoring": "deterministic", "function": "tests.targets:made_up_level"},
        {"id": "imported", "levels": levels, "scoring": "deterministic",
         "function": "tests.rubrics.quiz:count_questions"},
        {"id": "registered", "levels": levels, "scoring": "deterministic", "function": "tests.targets:has_title"}]})
    evaluation = await evaluate_target(rubric, {"questions": [], "title": "Cells"})
    results = {r.criterion_id: r for r in evaluation.criterion_results}
    assert results["registered"].level_id == "pass" and results["registered"].evidence == ["title 'Cells'"]
    assert results["boom"].level_id == ERROR_LEVEL and "KeyError" in results["boom"].notes
    assert results["odd"].level_id == ERROR_LEVEL and "'stellar', not a level id" in results["odd"].notes
    assert results["imported"].level_id == "fail", "resolved by dynamic import"


async def test_llm_decode_reads_json_then_text_and_records_the_call(fake_llm, make_provider):
    decoder = make_provider("openai", "model-decoder")
    fake_llm.script("model-decoder", Step(reply='{"level_id": "sound"}'), Step(reply="I would call this excellent."),
                    Step(reply="Hard to say."))
    rubric = load_rubric(str(QUIZ.with_name("dataknobs_pedagogy.yaml")), quiet=True)
    assert rubric.criteria[0].scoring == "llm_decode" and rubric.criteria[0].decode_output_schema is not None
    by_json = (await evaluate_target(rubric, TARGET, decoder=decoder)).criterion_results[0]
    assert (by_json.level_id, by_json.score, by_json.notes) == (
        "sound", 0.8, "read from the reply's json, valid against decode_output_schema")
    assert by_json.llm_invocation is not None and by_json.llm_invocation.model
    assert len(by_json.llm_invocation.prompt_hash) == 16 and by_json.llm_invocation.usage.total_tokens > 0
    prompt = fake_llm.requests_for("model-decoder")[0].messages
    assert '"sound" (Sound)' in prompt[0]["content"] and '{"level_id"' in prompt[0]["content"]
    assert prompt[1]["content"] == ("Rate these questions:\n- Why do leaves change colour?\n"
                                    "- What would happen without chlorophyll?\n")
    # A reply read from its text only when the criterion declares no decode_output_schema.
    free = rubric.model_copy(update={"criteria": [rubric.criteria[0].model_copy(
        update={"decode_output_schema": None})]})
    by_text = (await evaluate_target(free, TARGET, decoder=decoder)).criterion_results[0]
    assert by_text.level_id == "excellent" and by_text.notes == "read from the reply's text"
    unreadable = await evaluate_target(rubric, TARGET, decoder=decoder)
    result = unreadable.criterion_results[0]
    assert result.level_id == UNABLE_LEVEL and result.score == 0.0
    assert result.notes.startswith("the reply was refused: ")
    assert "does not match decode_output_schema: the reply holds no JSON object" in result.notes
    assert result.llm_invocation is not None and not unreadable.passed


async def test_a_template_that_reaches_for_internals_is_refused(fake_llm, make_provider):
    decoder = make_provider("openai", "model-decoder")
    for template in ("{{ questions.__class__.__mro__ }}", "{{ questions.append('x') }}", "{{ missing_field }}"):
        result = (await evaluate_target(decode_rubric(template), TARGET, decoder=decoder)).criterion_results[0]
        assert result.level_id == ERROR_LEVEL and "the decode prompt was refused" in result.notes, template
    assert TARGET["questions"] == ["Why do leaves change colour?", "What would happen without chlorophyll?"]
    assert not fake_llm.requests_for("model-decoder"), "a refused template never reaches the model"


async def test_a_summarizing_model_rewrites_the_feedback_and_a_failing_one_leaves_it(fake_llm, make_provider):
    rubric = load_rubric(str(QUIZ), quiet=True)
    summarizer = make_provider("openai", "model-summary")
    fake_llm.script("model-summary", Step(reply="Add two more questions. The format is right."), Step(status=400))
    rewritten = await evaluate_target(rubric, {"questions": ["a", "b", "c"]}, summarizer=summarizer)
    assert rewritten.feedback_summary == "Add two more questions. The format is right."
    kept = await evaluate_target(rubric, {"questions": ["a", "b", "c"]}, summarizer=summarizer)
    assert kept.feedback_summary.startswith("Evaluation FAILED for rubric 'Quiz Quality'.")


async def test_a_target_the_safety_gate_fails_is_capped_and_cannot_pass():
    rubric = load_rubric(str(QUIZ), quiet=True)
    leak = {"questions": [f"Q{i}" for i in range(4)], "answer_key": {"contact": {"ssn": "123-45-6789"}}}
    leak["questions"].append("What is the patient's number?")
    capped = await evaluate_target(rubric, leak, target_id="quiz-leak")
    assert not capped.passed and capped.weighted_score == 0.0, "five questions would pass at 100%"
    assert capped.capped_by_safety is not None and capped.capped_by_safety.category == "pii_exposure"
    assert capped.feedback_summary.splitlines()[2] == ("Blocked by the safety gate: pii_exposure (rule pii.us_ssn); "
                                                       "the score is capped at 0%.")
    unchecked = await evaluate_target(rubric, leak, target_id="quiz-leak", safety="off")
    assert unchecked.passed and unchecked.capped_by_safety is None


def test_the_gate_reads_a_target_as_its_labelled_values_a_paragraph_each():
    from council.pipeline.targets import target_text

    text = target_text({"steps": "1. One.\n2. Two.", "meta": {"ids": [7, True, None], "ssn": "078-05-1120"}})
    assert text == "steps: 1. One.\n2. Two.\n\nmeta.ids[0]: 7\n\nmeta.ssn: 078-05-1120"
    deep: dict[str, object] = {"leaf": "x"}
    for _ in range(5000):
        deep = {"d": deep}
    assert target_text(deep).endswith(".leaf: x"), "deep nesting is walked without recursion"
