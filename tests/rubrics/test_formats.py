"""AgentV eval files and dataknobs rubrics, read as written and scored by Council's one engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.cli import main
from council.config_errors import read_yaml
from council.errors import ConfigError
from council.rubrics import Rubric, load_rubric
from council.rubrics.formats import detect_format, rubrics_in, semver
from council.rubrics.load import parse_rubric, parse_rubrics
from council.rubrics.score import build_verdict, score_fixed

FIXTURES = Path(__file__).parent / "fixtures"
DK_LEVEL = {"id": "x", "label": "X", "description": "d", "score": 0}


def rubrics(name: str) -> dict[str, Rubric]:
    path = FIXTURES / name
    return {rubric.id: rubric for _where, rubric, _warnings in parse_rubrics(read_yaml(path), str(path))}


def test_formats_are_recognized():
    assert detect_format(read_yaml(FIXTURES / "agentv_review.yaml")) == "agentv"
    assert detect_format(read_yaml(FIXTURES / "agentv_strings.yaml")) == "agentv"
    assert detect_format(read_yaml(FIXTURES / "dataknobs_quiz.yaml")) == "dataknobs"
    assert detect_format({"id": "x", "criteria": ["a"]}) == "council"
    assert (semver("1.0"), semver("2"), semver("v3.1.4"), semver(None)) == ("1.0.0", "2.0.0", "3.1.4", "1.0.0")


def test_an_agentv_eval_file_gives_its_file_level_and_combined_rubrics():
    found = rubrics("agentv_review.yaml")
    assert set(found) == {"api-review-eval.review_quality", "api-review-eval.friendly-reply"}
    shared = found["api-review-eval.review_quality"]
    assert shared.version == "1.0.0" and shared.metadata["agentv_version"] == "1.0"
    assert [(c.id, c.name, c.weight, c.required) for c in shared.criteria] == [
        ("finds-the-flaw", "finds-the-flaw", 4.0, True), ("proposes-a-fix", "proposes-a-fix", 3.0, False),
        ("explains", "explains", 2.0, False)]
    assert (shared.scale.min, shared.scale.max) == (0, 10), "AgentV score ranges run 0 to 10"
    combined = found["api-review-eval.friendly-reply"]
    assert [c.id for c in combined.criteria] == ["finds-the-flaw", "proposes-a-fix", "explains",
                                                 "greets_the_user_by_return", "keeps_it_under_two_sentences"]


def test_the_simplest_agentv_form_is_a_checklist():
    (rubric,) = rubrics("agentv_strings.yaml").values()
    assert [c.kind for c in rubric.criteria] == ["checklist"] * 3
    assert rubric.criteria[1].expected_outcome == "Gives the unit"


def test_the_documented_weighted_example_comes_out_as_written():
    rubric = Rubric.model_validate({"id": "ex", "name": "Example", "version": "1.0.0", "criteria": [
        {"id": "accuracy", "expected_outcome": "a", "weight": 3.0},
        {"id": "clarity", "expected_outcome": "b", "weight": 1.0},
        {"id": "completeness", "expected_outcome": "c", "weight": 2.0}]})
    score = rubric.unit_score({"accuracy": 0.9, "clarity": 0.8, "completeness": 0.7})
    assert round(score, 3) == 0.817


def test_score_ranges_interpolate_and_a_failed_required_criterion_fails_a_high_score():
    rubric = rubrics("agentv_review.yaml")["api-review-eval.review_quality"]
    flaw, fix = rubric.criteria[0], rubric.criteria[1]
    assert [rubric.normalize(flaw, v) for v in (0, 5, 7, 10)] == [0.0, 0.5, 0.7, 1.0]
    normalized = {"finds-the-flaw": 0.0, "proposes-a-fix": 1.0, "explains": 1.0}
    verdict = build_verdict(rubric, normalized)
    assert verdict.score >= 0.5 and not verdict.passed, "the required criterion failed"
    assert verdict.failed_required == ["finds-the-flaw"]
    assert rubric.normalize(fix, 3) == pytest.approx(0.3)


def test_a_dataknobs_quiz_passes_with_five_questions_and_fails_with_three():
    rubric = load_rubric(str(FIXTURES / "dataknobs_quiz.yaml"), quiet=True)
    assert rubric.target_type == "content" and rubric.metadata == {"owner": "tests", "format": "dataknobs"}
    assert rubric.criteria[0].levels[1].indicators == ["At least five entries under questions"]
    assert not any(c.required for c in rubric.criteria), "dataknobs' required means 'evaluated', not a veto"

    def verdict(questions: list[str]):
        target = json.dumps({"questions": questions})
        fixed = score_fixed(rubric, target, "")
        normalized = {cid: rubric.normalize(rubric.criterion(cid), value) for cid, (value, _e) in fixed.items()}
        return build_verdict(rubric, normalized, values={k: v for k, (v, _e) in fixed.items()}), fixed

    passing, fixed = verdict([f"Q{i}" for i in range(5)])
    assert passing.passed and passing.score == 1.0 and fixed["question_count"][0] == "pass"
    failing, fixed = verdict(["Q1", "Q2", "Q3"])
    assert not failing.passed and round(failing.score, 2) == 0.4 and fixed["question_count"][0] == "fail"
    broken, fixed = verdict([1, 2])  # type: ignore[list-item]
    assert not broken.passed
    assert fixed["well_formed"][0] == "invalid" and "is not of type 'string'" in fixed["well_formed"][1]


@pytest.mark.parametrize(("raw", "message"), [
    ({"rubrics": [{"id": "a"}]}, "rubrics[0].expected_outcome: required"),
    ({"rubrics": [{"id": "a", "expected_outcome": "x", "points": 3}]}, "rubrics[0].points: not an AgentV rubric"),
    ({"execution": {"evaluators": [{"name": "q", "type": "rubric", "rubrics": "all of it"}]}},
     "execution.evaluators[0].rubrics: must be a list"),
    ({"id": "r", "name": "R", "description": "d", "version": "1.0.0", "target_type": "content",
      "pass_threshold": 0.5, "criteria": [
        {"id": "c", "name": "C", "description": "d", "weight": 1, "levels": [DK_LEVEL],
         "scoring_method": {"type": "llm_decode"}}]},
     "criteria[0] (c).scoring_method.decode_prompt: required for llm_decode"),
    ({"id": "r", "name": "R", "description": "d", "version": "1.0.0", "target_type": "content",
      "pass_threshold": 0.5, "criteria": [
        {"id": "c", "name": "C", "description": "d", "weight": 1, "levels": [DK_LEVEL],
         "scoring_method": {"type": "llm_decode", "decode_prompt": "{% for q in questions %}"}}]},
     "criteria[0] (c).decode_prompt: not a valid Jinja2 template"),
    ({"id": "r", "name": "R", "description": "d", "version": "1.0.0", "target_type": "content",
      "pass_threshold": 0.5, "criteria": [
        {"id": "c", "name": "C", "description": "d", "weight": 1, "levels": [DK_LEVEL],
         "scoring_method": {"type": "deterministic"}}]},
     "criteria[0] (c).scoring_method.function_ref: required"),
])
def test_problems_are_named_in_the_formats_own_vocabulary(raw, message):
    with pytest.raises(ConfigError) as caught:
        parse_rubrics(raw, "their.yaml")
    assert "their.yaml" in str(caught.value) and message in str(caught.value)


def test_one_rubric_is_asked_for_but_the_file_holds_several():
    with pytest.raises(ConfigError, match="holds 2 rubrics"):
        parse_rubric(read_yaml(FIXTURES / "agentv_review.yaml"), "agentv_review.yaml")
    assert len(rubrics_in(read_yaml(FIXTURES / "agentv_review.yaml"), "x")) == 2


def test_rubric_check_accepts_both_formats(capsys):
    for name, expected in (("agentv_review.yaml", 2), ("agentv_strings.yaml", 1), ("dataknobs_quiz.yaml", 1)):
        assert main(["rubric", "check", str(FIXTURES / name)], {}) == 0
        out = capsys.readouterr().out
        assert out.count("valid rubric") == expected, out
        assert ("agentv format" in out) == name.startswith("agentv")


def levelled(*scores: float) -> list[dict[str, object]]:
    return [{"id": f"l{i}", "label": f"L{i}", "description": f"level {i}", "score": s} for i, s in enumerate(scores)]


def test_the_meta_rubric_reports_each_check_with_its_level():
    from council.rubrics.meta import meta_checks

    quiz = load_rubric(str(FIXTURES / "dataknobs_quiz.yaml"), quiet=True)
    assert [(c.name, c.level) for c in meta_checks(quiz)] == [
        ("coverage", "pass"), ("independence", "pass"), ("weight_distribution", "pass"),
        ("threshold_reasonableness", "pass"), ("level_ordering", "pass")]
    lopsided = quiz.model_copy(update={"criteria": [quiz.criteria[0].model_copy(update={"weight": 0.9}),
                                                    quiz.criteria[1]]})
    assert {c.name: c.level for c in meta_checks(lopsided)}["weight_distribution"] == "fail"
    twins = Rubric.model_validate({"id": "t", "name": "T", "version": "1.0.0", "pass_threshold": 0.5, "criteria": [
        {"id": "a", "expected_outcome": "Cites a source"}, {"id": "b", "expected_outcome": "Cites a source"}]})
    assert {c.name: c.level for c in meta_checks(twins)}["independence"] == "partial"
    strict = twins.model_copy(update={"pass_threshold": 1.0, "criteria": [twins.criteria[0]]})
    lax = twins.model_copy(update={"pass_threshold": 0.0, "criteria": [twins.criteria[0]]})
    assert {c.name: c.level for c in meta_checks(lax)}["threshold_reasonableness"] == "too_low"
    assert {c.name: c.level for c in meta_checks(strict)}["threshold_reasonableness"] == "pass"
    unreachable = twins.model_copy(update={"pass_threshold": 0.9, "criteria": [Rubric.model_validate(
        {"id": "u", "name": "U", "version": "1.0.0", "criteria": [{"id": "c", "levels": levelled(0, 0.5)}]}
    ).criteria[0]]})
    assert {c.name: c.level for c in meta_checks(unreachable)}["threshold_reasonableness"] == "too_high"
    backwards = unreachable.model_copy(update={"pass_threshold": 0.5, "criteria": [Rubric.model_validate(
        {"id": "u", "name": "U", "version": "1.0.0", "criteria": [{"id": "c", "levels": levelled(1, 0)}]}
    ).criteria[0]]})
    assert {c.name: c.level for c in meta_checks(backwards)}["level_ordering"] == "fail"
    assert {c.name: c.level for c in meta_checks(twins.model_copy(update={"criteria": []}))}["coverage"] == "fail"


def test_a_dataknobs_rubric_in_json_is_read_too(tmp_path, capsys):
    quiz = read_yaml(FIXTURES / "dataknobs_quiz.yaml")
    path = tmp_path / "quiz.json"
    path.write_text(json.dumps(quiz), encoding="utf-8")
    assert main(["rubric", "check", str(path)], {}) == 0
    assert "valid rubric quiz_quality@1.0.0 (dataknobs format)" in capsys.readouterr().out
    assert load_rubric(str(path), quiet=True).criteria[1].scoring == "schema"
