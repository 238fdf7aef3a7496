"""Each stage event's payload, built from the record it reports: one function per kind.

The stage that makes a record sends its event with these (:mod:`.answer`,
:mod:`.safety_stage`, :mod:`.review_stage`, :mod:`.rank_stage`,
:mod:`.synthesize`, the orchestrator's end), and :mod:`.replay` rebuilds a
finished run's events from its stored records with the same ones, so a
replay says what the run said. A second round's payloads are built beside
their records, on the same rule: :func:`council.pipeline.revisions.revision_event`
and :meth:`council.result.DeliberationRecord.event_data`.

A record nested in a payload is written out field by field, in its dump's
order, because a typed payload cannot take an untyped ``model_dump()``;
tests/test_events.py holds each to its model, so a field added to the model
and not here fails there.
"""

from __future__ import annotations

from collections.abc import Sequence

from council.events import (
    AnswerData,
    FailureData,
    FinalData,
    RankingData,
    RankingEntryData,
    ReviewData,
    RunFinishedData,
    SafetyData,
)
from council.result import (
    AgreementRecord,
    AnswerRecord,
    BiasFlagRecord,
    CouncilResult,
    Failure,
    FinalAnswer,
    RankingEntry,
    ReviewRecord,
)
from council.safety.gate import SafetyVerdict


def failure_data(failure: Failure | None) -> FailureData | None:
    """A failure record as a payload carries it."""
    if failure is None:
        return None
    return {"reason": failure.reason, "message": failure.message, "status": failure.status,
            "attempts": failure.attempts}


def answer_event_data(record: AnswerRecord) -> AnswerData:
    """The ``answer`` event of a member's answer record."""
    return {"member": record.member, "status": record.status, "latency_ms": round(record.latency_ms, 1),
            "error": failure_data(record.error), "content": record.content}


def safety_event_data(member: str, verdict: SafetyVerdict) -> SafetyData:
    """The ``safety`` event of the gate's verdict on ``member``'s answer (or its revised text)."""
    return {"member": member, "passed": verdict.passed,
            "findings": [{"category": f.category, "rule": f.rule, "evidence": f.evidence} for f in verdict.findings],
            "notes": list(verdict.notes), "checker": verdict.checker}


def review_event_data(record: ReviewRecord, round_no: int = 1, *, labels: bool = False) -> ReviewData:
    """The ``review`` event of a reviewer's ballot; ``labels``: with the labels it saw (the page's replay)."""
    data: ReviewData = {"reviewer": record.reviewer, "status": record.status, "error": failure_data(record.error),
                        "scores": {m: s.model_dump(mode="json") for m, s in record.scores.items()},
                        "order": list(record.order)}
    if record.holistic:
        data["holistic"] = {member: list(missing) for member, missing in record.holistic.items()}
    if labels:
        data["labels"] = dict(record.labels)
    if record.position_consistency is not None:
        data["position_consistency"] = record.position_consistency
    if round_no > 1:
        data["round"] = round_no
    return data


def ranking_entry_data(entry: RankingEntry) -> RankingEntryData:
    """One ranking entry as the ``ranking`` event carries it."""
    return {"member": entry.member, "rank": entry.rank, "score": entry.score, "raw_mean": entry.raw_mean,
            "n_reviews": entry.n_reviews, "dimensions": dict(entry.dimensions),
            "verdict": entry.verdict.model_dump(mode="json") if entry.verdict is not None else None,
            "rank_probabilities": list(entry.rank_probabilities)}


def ranking_event_data(ranking: Sequence[RankingEntry], agreement: AgreementRecord,
                       bias_flags: Sequence[BiasFlagRecord], confidence: float | None,
                       tied_for_first: Sequence[str], round_no: int = 1) -> RankingData:
    """The ``ranking`` event of a round's ranking and its figures (a live ``Ranked`` or a stored round)."""
    data: RankingData = {"ranking": [ranking_entry_data(e) for e in ranking],
                         "agreement": agreement.model_dump(mode="json"),
                         "bias_flags": [b.model_dump(mode="json") for b in bias_flags],
                         "ranking_confidence": confidence, "tied_for_first": list(tied_for_first)}
    if round_no > 1:
        data["round"] = round_no
    return data


def final_event_data(final: FinalAnswer) -> FinalData:
    """The ``final`` event of the council's answer."""
    data: FinalData = {"content": final.content, "by": final.by, "source": final.source, "fallback": final.fallback,
                       "fallback_reason": final.fallback_reason, "blocked": final.blocked,
                       "latency_ms": final.latency_ms, "usage": final.usage.model_dump(mode="json")}
    # ``reused`` leads the dump (its base class comes first) and is left out when false.
    return {"reused": True, **data} if final.reused else data


def run_finished_data(result: CouncilResult) -> RunFinishedData:
    """The ``run_finished`` event of a run that has ended."""
    return {"status": result.status, "degraded": result.degraded, "error": result.error}
