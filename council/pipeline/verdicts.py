"""Rubric criteria scored by code (deterministic, schema) and the per-answer verdicts of a run.

Automatic criteria are scored once per answer and added to every
reviewer's ballot, so the aggregation sees complete rubric scores. A rubric
with no LLM criteria needs no reviewers at all: its one "automatic" review
ranks the answers. Each ranked answer gets a verdict against the rubric from
the reviewers' consensus (the mean of their normalized criterion scores);
a criterion no reviewer scored takes the mean holistic score of the ballots
that scored the answer holistically, when there are any.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from council.pipeline.context import RunContext
from council.pipeline.progress import AutomaticScores, RunSoFar
from council.result import AnswerRecord, DimensionScoresRecord, RankingEntry, ReviewRecord
from council.rubrics.model import LLM_SCORED, CriterionValue, Rubric, holistic_unit
from council.rubrics.score import JudgeRecord, build_verdict, score_fixed
from council.safety.gate import SafetyVerdict
from council.types import ChatMessage

AUTOMATIC_REVIEWER = "(automatic)"


def automatic_scores(
    rubric: Rubric, answers: list[AnswerRecord], question: Sequence[ChatMessage]
) -> tuple[dict[str, dict[str, CriterionValue]], dict[str, dict[str, str]]]:
    """Each answer's automatic criterion values, and their evidence."""
    if all(c.scoring in LLM_SCORED for c in rubric.criteria):
        return {}, {}
    last_user = next((m.content for m in reversed(question) if m.role == "user"), "")
    values: dict[str, dict[str, CriterionValue]] = {}
    evidence: dict[str, dict[str, str]] = {}
    for answer in answers:
        scored = score_fixed(rubric, answer.content or "", last_user)
        values[answer.member] = {cid: value for cid, (value, _) in scored.items()}
        evidence[answer.member] = {cid: text for cid, (_, text) in scored.items()}
    return values, evidence


def automatic_review(
    rubric: Rubric, answers: list[AnswerRecord], fixed: dict[str, dict[str, CriterionValue]]
) -> ReviewRecord:
    """The single review of a rubric that code scores entirely."""
    scores = {}
    for answer in answers:
        values = fixed.get(answer.member, {})
        normalized = {c.id: rubric.normalize(c, values[c.id]) for c in rubric.criteria if c.id in values}
        scores[answer.member] = DimensionScoresRecord(scores=dict(values), overall=rubric.overall(values),
                                                      normalized=normalized)
    members = [a.member for a in answers]
    return ReviewRecord(reviewer=AUTOMATIC_REVIEWER, order=members, scores=scores,
                        ranking=sorted(members, key=lambda m: -scores[m].overall))


def _judge_record(review: ReviewRecord) -> JudgeRecord | None:
    if review.reviewer == AUTOMATIC_REVIEWER:
        return None  # code scored it: no model judged
    return JudgeRecord(model=review.model, prompt_hash=review.prompt_hash, response_hash=review.response_hash,
                       usage=review.usage)


def with_verdicts(
    rubric: Rubric, ranking: list[RankingEntry], reviews: list[ReviewRecord],
    fixed: dict[str, dict[str, CriterionValue]], evidence: dict[str, dict[str, str]],
    safety: Mapping[str, SafetyVerdict | None] | None = None,
) -> list[RankingEntry]:
    """Every ranking entry with its verdict against the rubric, from the reviewers' consensus.

    ``safety`` holds each answer's safety-gate verdict: one the gate failed
    is capped at the rubric's ``safety_cap`` and cannot pass. (In a run the
    gate's failures never reach the ranking; a judged answer may.)
    """
    # A reviewer's record is the same in every verdict it took part in: made once per review, not per answer.
    ok_reviews = [(review, _judge_record(review)) for review in reviews if review.status == "ok"]
    llm_ids = set(rubric.dimension_ids())
    entries = []
    for entry in ranking:
        sums: dict[str, list[float]] = {}
        judges: list[JudgeRecord] = []
        judged_by: dict[str, list[int]] = {}
        for review, judge in ok_reviews:
            scored = review.scores.get(entry.member)
            if scored is None:
                continue
            if judge is not None:
                judges.append(judge)
            for cid, value in scored.normalized.items():
                sums.setdefault(cid, []).append(value)
                if judge is not None and cid in llm_ids:
                    judged_by.setdefault(cid, []).append(len(judges) - 1)
        consensus = {cid: sum(v) / len(v) for cid, v in sums.items() if v}
        # Holistic ballots' scores stand in for the criteria no reviewer scored (ADR-016's fallback).
        holistic = [holistic_unit(scored.reported_overall) for review, _ in ok_reviews
                    if entry.member in review.holistic
                    and (scored := review.scores.get(entry.member)) is not None and scored.reported_overall is not None]
        for cid, fixed_value in fixed.get(entry.member, {}).items():
            consensus[cid] = rubric.normalize(rubric.criterion(cid), fixed_value)
        verdict = build_verdict(rubric, consensus, values=fixed.get(entry.member), evidence=evidence.get(entry.member),
                                judges=judges, judged_by=judged_by, safety=(safety or {}).get(entry.member),
                                holistic=sum(holistic) / len(holistic) if holistic else None)
        entries.append(entry.model_copy(update={"verdict": verdict}))
    return entries


async def rubric_scores_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """The automatic criteria of every surviving answer, scored by code before the reviewers score the rest."""
    values, evidence = automatic_scores(ctx.plan.rubric, so_far.surviving, ctx.plan.messages)
    return so_far.then(automatic=AutomaticScores(values, evidence))
