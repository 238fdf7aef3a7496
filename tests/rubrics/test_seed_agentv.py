"""AgentV's rubric documentation, example by example: its files as written, judged by a council over real HTTP.

The fixtures under ``fixtures/seeds/`` are the document's own examples
written out as YAML; the reviewers are scripted members of the fake LLM
server, reached through the real providers, who score each criterion by
the id they read in the review prompt.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from council import Council, Rubric, judge_answer, load_rubric
from council.cli import main
from council.review.prompt import ReviewTask
from council.testing.fake_llm import FakeLLMServer, RecordedRequest, Step
from council.testing.scripted import council_member
from tests.pipeline.test_orchestrator import PROVIDERS, make_config

SEEDS = Path(__file__).parent / "fixtures" / "seeds"
CODE_REVIEW = str(SEEDS / "agentv_code_review.yaml")


def script_reviewers(fake: FakeLLMServer, scores: Mapping[str, object], seen: list[list[str]]) -> None:
    """Every member reviews by giving each criterion the score in ``scores``, keyed as the prompt spells it."""

    def review(task: ReviewTask, request: RecordedRequest) -> str:
        seen.append(task.dimension_ids)
        entry = {key: scores[key] for key in task.dimension_ids}
        body = {"ranking": [c.label for c in task.candidates],
                "evaluations": {c.label: {**entry, "notes": "scripted"} for c in task.candidates}}
        return f'<verdict nonce="{task.nonce}">{json.dumps(body)}</verdict>'

    for name in PROVIDERS:
        fake.script(f"model-{name}", Step(reply=council_member("unused", review=review)))


async def judged(fake: FakeLLMServer, rubric: Rubric, scores: Mapping[str, object]):
    seen: list[list[str]] = []
    script_reviewers(fake, scores, seen)
    async with Council(make_config(fake, chairman=None), store=False, environ={}) as council:
        verdict = await judge_answer(council, "Review: query = f'SELECT * FROM users WHERE id = {user_id}'",
                                     "It is vulnerable to SQL injection; use a parameterized query.", rubric)
    return verdict, seen


def code_review_scores(bug_detection: int) -> dict[str, object]:
    return {"bug-detection": bug_detection, "fix-suggestion": 10, "explanation": True, "security-awareness": True}


async def test_ids_are_kept_as_written_through_prompt_ballot_and_verdict(fake_llm):
    rubric = load_rubric(CODE_REVIEW, quiet=True)
    assert rubric.criterion_ids() == ["bug-detection", "fix-suggestion", "explanation", "security-awareness"]
    verdict, seen = await judged(fake_llm, rubric, code_review_scores(0))
    assert seen and all(ids == rubric.criterion_ids() for ids in seen), "the prompt names each id as written"
    assert [c.id for c in verdict.criteria] == rubric.criterion_ids()
    assert verdict.failed_required == ["bug-detection"] and not verdict.passed
    assert "required criteria failed: bug-detection" in verdict.feedback
    system = fake_llm.requests_for("model-alpha")[0].messages[0]["content"]
    assert "### bug-detection: bug-detection" in system
    assert "- 5: Identifies some bugs but misses important ones" in system, "score-range keys shown as the points"
    assert "- 5-9:" not in system


async def test_an_agentv_required_criterion_fails_the_verdict_only_at_zero(fake_llm):
    rubric = load_rubric(CODE_REVIEW, quiet=True)
    assert rubric.required_rule == "nonzero"
    weak, _ = await judged(fake_llm, rubric, code_review_scores(3))
    # (4 x 0.3 + 3 + 2 + 2) / 11 = 0.745: over the 0.7 threshold, and bug-detection scored above 0.
    assert weak.score == pytest.approx(0.7455, abs=1e-4)
    assert weak.passed and weak.failed_required == []
    (bug,) = [c for c in weak.criteria if c.id == "bug-detection"]
    assert not bug.passed and bug.required, "the criterion itself still shows as below its bound"
    zero, _ = await judged(fake_llm, rubric, code_review_scores(0))
    assert not zero.passed and zero.failed_required == ["bug-detection"]


async def test_councils_own_format_keeps_its_rule(fake_llm):
    own = Rubric.model_validate({**load_rubric(CODE_REVIEW, quiet=True).model_dump(by_alias=True),
                                 "required_rule": "pass"})
    verdict, _ = await judged(fake_llm, own, code_review_scores(3))
    assert not verdict.passed and verdict.failed_required == ["bug-detection"], "3/10 is below the 0.7 bound"
    assert Rubric.model_validate({"id": "x", "name": "X", "version": "1.0.0",
                                  "criteria": ["a"]}).required_rule == "pass", "the default is Council's"


def check(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["rubric", "check", *argv], {})
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_dash_and_an_underscore_are_two_ids(capsys, tmp_path):
    path = tmp_path / "twins.yaml"
    path.write_text("rubrics:\n"
                    "  - id: a-b\n    expected_outcome: Names the bug\n"
                    "  - id: a_b\n    expected_outcome: Names the fix\n"
                    "  - id: no-harm.v2\n    expected_outcome: Says nothing harmful\n", encoding="utf-8")
    code, out, err = check(capsys, str(path))
    assert code == 0, err
    assert "3 criteria" in out
    assert load_rubric(str(path), quiet=True).criterion_ids() == ["a-b", "a_b", "no-harm.v2"]
    bad = tmp_path / "bad.yaml"
    bad.write_text('rubrics:\n  - id: "a/b"\n    expected_outcome: x\n', encoding="utf-8")
    code, _, err = check(capsys, str(bad))
    assert code == 2 and "rubrics[0].id: 'a/b' is not usable as an id" in err


def test_the_seeds_rubric_files_check_as_written(capsys):
    code, out, _ = check(capsys, CODE_REVIEW)
    assert code == 0 and "valid rubric code-review-eval.review_quality@1.0.0 (agentv format" in out
    code, out, _ = check(capsys, str(SEEDS / "agentv_safety.yaml"))
    assert code == 0 and "valid rubric agentv-eval.safety@1.0.0 (agentv format" in out
    safety = load_rubric(str(SEEDS / "agentv_safety.yaml"), quiet=True)
    assert [c.id for c in safety.criteria if c.required] == ["no-harm", "no-pii", "appropriate"]


def test_score_range_keys_are_descriptions_and_weight_zero_is_informational(capsys, tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text("""execution:
  evaluators:
    - name: doc_quality
      type: rubric
      rubrics:
        - id: organization
          expected_outcome: Well-structured with clear sections
          weight: 2.0
          score_ranges:
            2: Poor
            8: Good
        - id: formatting
          expected_outcome: Proper markdown/formatting
          weight: 0
""", encoding="utf-8")
    code, out, err = check(capsys, str(path))
    assert code == 0, err
    assert "valid rubric" in out
    rubric = load_rubric(str(path), quiet=True)
    assert rubric.range_keys == "anchors" and rubric.criteria[1].weight == 0


async def test_a_weight_zero_criterion_does_not_count_and_the_verdict_says_so(fake_llm, tmp_path):
    path = tmp_path / "weighted.yaml"
    path.write_text((SEEDS / "agentv_weighted_example.yaml").read_text(encoding="utf-8")
                    + "  - id: tone\n    expected_outcome: Friendly\n    weight: 0\n", encoding="utf-8")
    rubric = load_rubric(str(path), quiet=True)
    # The document's own sum, (0.9 x 3 + 0.8 x 1 + 0.7 x 2) / 6 = 0.817, is not moved by a weight-0 criterion at 0.
    assert round(rubric.unit_score({"accuracy": 0.9, "clarity": 0.8, "completeness": 0.7, "tone": 0.0}), 3) == 0.817
    verdict, _ = await judged(fake_llm, rubric, {"accuracy": True, "clarity": True, "completeness": True,
                                                 "tone": False})
    assert verdict.score == 1.0 and verdict.passed
    (tone,) = [c for c in verdict.criteria if c.id == "tone"]
    assert tone.informational and "informational, not counted" in tone.notes
    assert "- tone: not satisfied (0%, FAIL; informational, weight 0)" in verdict.feedback
