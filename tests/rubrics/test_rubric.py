"""Rubrics as data: forms of criteria, scoring, verdicts, feedback and the meta-rubric."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from council.errors import ConfigError
from council.rubrics.bands import bands
from council.rubrics.functions import register_check
from council.rubrics.load import check_rubric, load_rubric
from council.rubrics.model import Gates, Level, Rubric, Scale, slug
from council.rubrics.score import build_verdict, level_of, score_deterministic, score_fixed, score_schema

SHIPPED = ["default", "accuracy_faithfulness", "code_review", "document_quality", "safety"]


def rubric(**fields) -> Rubric:
    base = {"id": "t", "name": "Test", "version": "1.0.0", "criteria": ["Gives the answer"]}
    return Rubric.model_validate({**base, **fields})


def write(tmp_path: Path, data: dict, name: str = "r.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def load_error(tmp_path: Path, data: dict) -> str:
    path = write(tmp_path, {"id": "t", "name": "Test", "version": "1.0.0", **data})
    with pytest.raises(ConfigError) as caught:
        load_rubric(str(path))
    assert str(path) in str(caught.value)
    return str(caught.value)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_rubrics_pass_the_meta_rubric(name):
    loaded = load_rubric(name, quiet=True)
    assert check_rubric(loaded) == ([], [])
    assert loaded.id == name


def test_default_rubric_matches_the_documented_weights_and_ceilings():
    default = load_rubric("default")
    assert {c.id: c.weight for c in default.criteria} == {
        "accuracy": 0.35, "relevance": 0.10, "completeness": 0.20, "conciseness": 0.15, "clarity": 0.20}
    perfect = {c.id: 10 for c in default.criteria}
    assert default.overall(perfect) == 1.0
    assert default.overall({**perfect, "accuracy": 4}) == round((4 - 1) / 9, 4)  # capped at 4.0 on 1-10
    assert default.overall({**perfect, "accuracy": 6}) == round((7 - 1) / 9, 4)  # capped at 7.0
    assert default.overall({**perfect, "accuracy": 7}) == round(0.35 * 6 / 9 + 0.65, 4)


def test_simple_strings_become_checklist_items():
    r = rubric(criteria=["Contains the correct answer", "Explains the reasoning"])
    assert [(c.id, c.kind, c.weight) for c in r.criteria] == [
        ("contains_the_correct_answer", "checklist", 1.0), ("explains_the_reasoning", "checklist", 1.0)]
    assert r.overall({"contains_the_correct_answer": True, "explains_the_reasoning": False}) == 0.5
    assert slug("3 things!") == "c_3_things"


@pytest.mark.parametrize(("scale", "score", "expected"), [((0, 10), 7, 0.7), ((1, 10), 4, 1 / 3), ((0, 2), 1, 0.5),
                                                          ((1, 5), 5, 1.0), ((1, 5), 1, 0.0)])
def test_score_ranges_map_linearly_onto_0_1(scale, score, expected):
    low, high = scale
    r = rubric(scale={"min": low, "max": high},
               criteria=[{"id": "q", "score_ranges": {str(low): "bad", f"{low + 1}-{high}": "good"}}])
    assert r.normalize(r.criteria[0], score) == pytest.approx(expected)


def test_weighted_score_over_levels_scores_and_checklists():
    r = rubric(scale={"min": 0, "max": 10}, pass_threshold=0.6, criteria=[
        {"id": "found", "weight": 2, "levels": [
            {"id": "no", "label": "No", "score": 0, "description": "missed"},
            {"id": "partly", "label": "Partly", "score": 0.5, "description": "half"},
            {"id": "yes", "label": "Yes", "score": 1, "description": "found"}]},
        {"id": "clarity", "weight": 1, "score_ranges": {"0-4": "unclear", "5-7": "fair", "8-10": "clear"}},
        "Cites a source",
    ])
    # (2*0.5 + 1*0.8 + 1*1) / 4 = 0.7
    assert r.overall({"found": "partly", "clarity": 8, "cites_a_source": True}) == 0.7
    verdict = build_verdict(r, {"found": 0.5, "clarity": 0.8, "cites_a_source": 1.0})
    assert verdict.passed and verdict.score == 0.7
    assert [c.level for c in verdict.criteria] == ["Partly", "8.0/10", "satisfied"]


def test_a_failed_required_criterion_fails_the_verdict_whatever_the_score():
    r = rubric(pass_threshold=0.5, criteria=[{"id": "safe", "required": True, "expected_outcome": "Is safe"},
                                             {"id": "helpful", "weight": 9, "expected_outcome": "Helps"}])
    verdict = build_verdict(r, {"safe": 0.0, "helpful": 1.0})
    assert verdict.score == 0.9 and not verdict.passed
    assert verdict.failed_required == ["safe"]
    assert verdict.feedback.startswith("FAILED, overall 90% (required criteria failed: safe)")


def test_an_omitted_criterion_counts_as_failed_not_dropped():
    r = rubric(criteria=["Gives the answer", "Shows the work"])
    verdict = build_verdict(r, {"gives_the_answer": 1.0})
    assert verdict.score == 0.5, "the omitted criterion pulls the score down instead of vanishing"
    omitted = verdict.criteria[1]
    assert omitted.score is None and not omitted.passed and "counts as failed" in omitted.notes
    assert r.overall({"gives_the_answer": True}) == 0.5


def test_min_score_on_the_criterions_own_terms():
    r = rubric(scale={"min": 1, "max": 5}, pass_threshold=0.5, criteria=[
        {"id": "q", "required": True, "min_score": 4, "score_ranges": {"1-2": "poor", "3": "ok", "4-5": "good"}}])
    assert not build_verdict(r, {"q": r.to_unit(3)}).passed
    assert build_verdict(r, {"q": r.to_unit(4)}).passed


def test_gates_ceiling_and_safety_cap():
    r = rubric(scale={"min": 0, "max": 10}, pass_threshold=0.5,
               gates={"ceilings": [{"criterion": "acc", "below": 5, "cap": 3}], "safety_cap": 0.1},
               criteria=[{"id": "acc", "score_ranges": {"0-4": "wrong", "5-10": "right"}},
                         {"id": "style", "weight": 3, "score_ranges": {"0-4": "bad", "5-10": "good"}}])
    assert r.overall({"acc": 4, "style": 10}) == 0.3
    assert r.overall({"acc": 5, "style": 10}) == 0.875
    assert r.overall({"acc": 10, "style": 10}, safety_failed=True) == 0.1
    verdict = build_verdict(r, {"acc": 0.4, "style": 1.0})
    assert verdict.gates_applied == ["ceiling"] and not verdict.passed


def test_feedback_names_levels_scores_and_next_steps():
    r = load_rubric("code_review")
    verdict = build_verdict(r, {"bug_detection": 0.5, "fix_suggestion": 1.0, "explanation": 0.75,
                                "mentions_any_security_consequence_of_the_defect": 0.0})
    lines = verdict.feedback.splitlines()
    assert lines[0] == f"{'PASSED' if verdict.passed else 'FAILED'}, overall {verdict.score * 100:.0f}%"
    assert "- Bug detection: Partial (50%, pass)" in lines
    assert "- Fix suggestion: Concrete (100%, pass)" in lines
    assert "- Bug detection: aim for Found: Names the defect, its location and the inputs that trigger it." in lines
    assert any(line.startswith("- Explanation: aim for 5:") for line in lines)


@register_check("tests.rubric:length_level")
def length_level(answer: str, *, question: str = "") -> str:
    return "long" if len(answer.split()) >= 5 else "short"


def broken_check(answer: str, *, question: str = "") -> str:
    raise RuntimeError("database unavailable")


def test_deterministic_functions_registered_or_imported():
    levels = [{"id": "short", "label": "Short", "score": 0.0}, {"id": "long", "label": "Long", "score": 1.0}]
    r = rubric(criteria=[
        {"id": "length", "scoring": "deterministic", "function": "tests.rubric:length_level", "levels": levels},
        {"id": "json", "scoring": "deterministic", "function": "council.checks:is_json"},
        {"id": "flaky", "scoring": "deterministic", "function": "tests.rubrics.test_rubric:broken_check"},
    ])
    assert check_rubric(r)[0] == []
    fixed = score_fixed(r, "one two three four five", "q")
    assert fixed["length"] == ("long", "")
    assert fixed["json"][0] is False and "not JSON" in fixed["json"][1]
    assert fixed["flaky"][0] is False and "RuntimeError: database unavailable" in fixed["flaky"][1]
    assert score_deterministic(r.criteria[0], r, "too short", "q") == ("short", "")


def test_json_schema_pass_gives_the_top_level_and_fail_the_bottom_with_errors():
    schema = {"type": "object", "required": ["name", "age"],
              "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}}}
    levels = [{"id": "invalid", "label": "Invalid", "score": 0.0}, {"id": "valid", "label": "Valid", "score": 1.0}]
    r = rubric(criteria=[{"id": "shape", "scoring": "schema", "schema": schema, "levels": levels}])
    criterion = r.criteria[0]
    assert score_schema(criterion, r, '```json\n{"name": "Ada", "age": 36}\n```') == (
        "valid",
        "valid against the schema",
    )
    value, evidence = score_schema(criterion, r, '{"name": 7, "age": -1}')
    assert value == "invalid"
    assert "2 schema error(s)" in evidence and "age: -1 is less than the minimum of 0" in evidence
    assert score_schema(criterion, r, "not json at all")[0] == "invalid"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"criteria": []}, "criteria: a rubric needs at least one criterion"),
        ({"criteria": [{"id": "a", "expected_outcome": "x"}, {"id": "a", "expected_outcome": "y"}]},
         "criteria[1] (a).id: 'a' is already used by criteria[0]"),
        ({"criteria": [{"id": "a", "name": "Same", "expected_outcome": "x"},
                       {"id": "b", "name": "same", "expected_outcome": "y"}]},
         "criteria[1] (b).name: 'same' is already used by criteria[0]"),
        ({"criteria": [{"id": "a", "weight": -1, "expected_outcome": "x"}, {"id": "b", "expected_outcome": "y"}]},
         "criteria[0] (a).weight: must be 0 (informational) or more, got -1"),
        ({"criteria": [{"id": "a", "weight": 0, "expected_outcome": "x"}]},
         "criteria: no criterion has a positive weight"),
        ({"criteria": [{"id": "Bug Detection", "expected_outcome": "x"},
                       {"id": "bug  detection", "expected_outcome": "y"}]},
         "criteria[1] (bug  detection).id: 'bug  detection' differs from 'Bug Detection' (criteria[0]) only in case"),
        ({"criteria": [{"id": "Overall", "expected_outcome": "x"}]}, "criteria[0] (Overall).id: 'Overall' is reserved"),
        ({"weight_mode": "fractions", "criteria": [{"id": "a", "weight": 0.5, "expected_outcome": "x"},
                                                   {"id": "b", "weight": 0.3, "expected_outcome": "y"}]},
         "weights sum to 0.800, not 1 ± 0.01"),
        ({"pass_threshold": 0.9, "criteria": [{"id": "a", "levels": [
            {"id": "lo", "label": "Lo", "score": 0.0, "description": "d"},
            {"id": "hi", "label": "Hi", "score": 0.6, "description": "d"}]}]},
         "pass_threshold: 0.9 cannot be reached; the best possible score is 0.600"),
        ({"pass_threshold": 0.0}, "pass_threshold: 0.0 is trivially low"),
        ({"criteria": [{"id": "a", "levels": [{"id": "hi", "label": "Hi", "score": 1.0, "description": "d"},
                                              {"id": "lo", "label": "Lo", "score": 0.0, "description": "d"}]}]},
         "criteria[0] (a).levels: levels must be ordered by score"),
        ({"criteria": [{"id": "a", "score_ranges": {"1-3": "x", "5-10": "y"}}]},
         "criteria[0] (a).score_ranges: scores 4-4 are not covered by any band"),
        ({"criteria": [{"id": "a", "score_ranges": {"1-5": "x", "4-10": "y"}}]},
         "criteria[0] (a).score_ranges: band 4-10 overlaps the band before it"),
        ({"criteria": [{"id": "a", "score_ranges": {"1-3": "x", "4-9": "y"}}]},
         "criteria[0] (a).score_ranges: scores 10-10 are not covered by any band"),
        ({"criteria": [{"id": "a", "score_ranges": {"1-3": "", "4-10": "y"}}]},
         "criteria[0] (a).score_ranges: band 1-3 has no description (reviewers need anchors)"),
        ({"criteria": [{"id": "a"}]}, "criteria[0] (a): an LLM checklist item needs expected_outcome or description"),
        ({"criteria": [{"id": "a", "scoring": "deterministic", "function": "nowhere.module:f"}]},
         "criteria[0] (a).function: cannot import 'nowhere.module'"),
        ({"criteria": [{"id": "a", "scoring": "schema", "schema": {"type": "nonsense"}}]},
         "criteria[0] (a).schema: not a valid JSON Schema"),
        ({"gates": {"ceilings": [{"criterion": "ghost", "below": 1, "cap": 2}]}},
         "gates.ceilings[0].criterion: no criterion 'ghost'"),
        ({"criteria": [{"id": "a", "min_score": 2.0, "expected_outcome": "x"}]},
         "criteria[0] (a).min_score: 2.0 can never be reached"),
        ({"criteria": [{"id": "overall", "expected_outcome": "x"}]}, "criteria[0] (overall).id: 'overall' is reserved"),
        ({"criteria": ["Gives the answer"], "colour": "blue"}, "colour: unknown key"),
    ],
)
def test_meta_rubric_errors_name_the_file_and_criterion(tmp_path, data, expected):
    data = {"criteria": ["Gives the answer"], **data}
    assert expected in load_error(tmp_path, data)


def test_meta_rubric_warnings_are_printed_but_the_rubric_loads(tmp_path, capsys):
    path = write(tmp_path, {"id": "w", "name": "W", "version": "1.0.0", "pass_threshold": 0.4,
                            "criteria": [{"id": "a", "score_ranges": {"1-5": "low", "6-10": "high"}}]})
    loaded = load_rubric(str(path))
    err = capsys.readouterr().err
    assert loaded.id == "w"
    assert f"rubric warning in {path}: criteria[0] (a).score_ranges: only 2 band(s)" in err
    assert "pass_threshold: 0.4 passes answers that miss half of the rubric" in err


def test_unknown_shipped_name_lists_the_shipped_ones():
    with pytest.raises(ConfigError, match="shipped rubrics: accuracy_faithfulness, code_review, default"):
        load_rubric("nonexistent")


def test_content_hash_changes_with_content():
    assert rubric().content_hash() == rubric().content_hash()
    assert rubric().content_hash() != rubric(pass_threshold=0.8).content_hash()


def test_a_copy_never_keeps_derived_values_of_the_original():
    original = rubric()
    digest = original.content_hash()
    changed = original.model_copy(update={"pass_threshold": 0.9})
    assert changed.content_hash() != digest
    assert original.content_hash() == digest


def test_a_copy_with_changed_fields_derives_its_own_cached_facts():
    r = rubric(scale={"min": 0, "max": 10}, gates={"ceilings": [{"criterion": "acc", "below": 5, "cap": 3}]},
               criteria=[{"id": "acc", "score_ranges": {"0-4": "wrong", "5-10": "right"}}, "Cites a source"])
    acc = r.criteria[0]
    # Warm every cache first: kind, title, bands, the lookups and the gate bounds.
    assert (acc.kind, acc.title, bands(acc, 0, 10)[0]) == ("scored", "Acc", (0, 4, "wrong"))
    assert r.dimension_ids() == ["acc", "cites_a_source"] and r.criterion("acc") is acc
    assert r.overall({"acc": 4, "cites_a_source": True}) == 0.3

    rescaled = r.model_copy(update={"scale": Scale(min=0, max=20)})
    assert rescaled.overall({"acc": 4, "cites_a_source": True}) == 0.15, "bound 5/20 and cap 3/20, not /10"
    assert level_of(acc, rescaled, 0.5) == ("10.0/20", 1)
    fewer = r.model_copy(update={"criteria": [r.criteria[1]], "gates": Gates()})
    assert fewer.dimension_ids() == ["cites_a_source"] and fewer.llm_criteria() == [r.criteria[1]]
    with pytest.raises(KeyError):
        fewer.criterion("acc")
    levelled = acc.model_copy(update={"name": "Accuracy", "score_ranges": None, "levels": [
        Level(id="right", label="Right", score=1), Level(id="wrong", label="Wrong", score=0)]})
    assert (levelled.kind, levelled.title) == ("levels", "Accuracy")
    assert r.normalize(levelled, "right") == 1.0 and levelled.levels_by_score[0].id == "wrong"
    assert (acc.kind, acc.title, r.criterion("acc") is acc) == ("scored", "Acc", True), "the original is unchanged"
