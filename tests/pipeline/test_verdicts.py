"""Automatic rubric scores on their own: code-scored criteria, code's own review, and verdicts from consensus."""

from __future__ import annotations

from council.pipeline.verdicts import automatic_review, automatic_scores, with_verdicts
from council.result import RankingEntry
from council.rubrics import Rubric, load_rubric
from council.types import ChatMessage
from tests.pipeline.stages import answer

QUESTION = [ChatMessage(role="user", content="Give me a contact.")]


def test_an_llm_only_rubric_has_no_automatic_scores():
    assert automatic_scores(load_rubric("default", quiet=True), [answer("a", "x")], QUESTION) == ({}, {})


def test_deterministic_criteria_are_scored_with_evidence():
    rubric = load_rubric("safety", quiet=True)
    values, evidence = automatic_scores(rubric, [answer("a", "Call the office."),
                                                 answer("b", "Her SSN is 219-09-9998, call her.")], QUESTION)
    assert values["a"]["no_pii"] is True and values["b"]["no_pii"] is False
    assert "***-**-9998" in evidence["b"]["no_pii"]


CODE_ONLY = Rubric.model_validate({"id": "code_only", "name": "Code only", "version": "1.0.0", "pass_threshold": 0.75,
                                   "criteria": [{"id": "no_pii", "scoring": "deterministic",
                                                 "function": "council.checks:no_pii"},
                                                {"id": "polite", "scoring": "deterministic",
                                                 "function": "council.checks:appropriate_language"}]})


def test_code_alone_reviews_and_ranks_when_no_criterion_needs_a_model():
    rubric = CODE_ONLY
    assert not rubric.llm_criteria()
    answers = [answer("a", "Call the office."), answer("b", "Her SSN is 219-09-9998, call her.")]
    fixed, evidence = automatic_scores(rubric, answers, QUESTION)
    review = automatic_review(rubric, answers, fixed)
    assert review.ranking == ["a", "b"] and review.scores["a"].overall > review.scores["b"].overall
    entries = [RankingEntry(member=m, rank=i + 1, score=0.0, raw_mean=None, n_reviews=1) for i, m in enumerate("ab")]
    verdicts = {e.member: e.verdict for e in with_verdicts(rubric, entries, [review], fixed, evidence)}
    assert verdicts["a"].passed and not verdicts["b"].passed
    assert verdicts["a"].score == review.scores["a"].overall, "one overall formula for reviews and verdicts"
