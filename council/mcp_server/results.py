"""What the MCP tools hand back: a council's result cut down to what a calling model can act on.

Plain dicts of JSON values, built from :class:`~council.result.CouncilResult`
and :class:`~council.rubrics.RubricVerdict`; the whole result stays one
``get_run`` away. What the safety gate blocked is masked in every one of
them (:func:`council.result.masked`). Also the map from a run's events to
progress notifications. Knows nothing of the MCP protocol itself.
"""

from __future__ import annotations

import json
from typing import Any

from council.events import StageEvent
from council.pipeline import RunSummary, cost_summary
from council.result import CouncilResult, masked
from council.rubrics import RubricVerdict

# A run's progress in steps a client can draw as a bar: answers in, reviews in, ranking, final answer. A second
# round (review.rounds: 2) is known only after the first ranking, so its steps sit between the ranking and the
# final answer: progress still only grows, and a run of one round reports exactly as before.
PROGRESS_STEPS = 4
_PROGRESS_AT = {
    "review": (1, "answers are in; peers are reviewing"),
    "ranking": (3, "reviews are in; ranked"),
    "deliberation": (3.25, "second round: the first ranking was unsure; members revising"),
    "second_ranking": (3.75, "revised answers reviewed again; second ranking"),
    "final": (4, "final answer written"),
}


def progress_of(event: StageEvent) -> tuple[float, str] | None:
    """(step, message) for an event worth a progress notification; None for the others.

    The first review to start means every answer is in; the second step
    (reviews in) is reported with the ranking, which follows them at once.
    A second round adds two steps: its start (members revising) and its
    ranking.
    """
    if event.kind == "stage_started" and event.data.get("stage") == "review":
        return _PROGRESS_AT["review"]
    if event.kind == "stage_started" and event.data.get("stage") == "deliberation":
        step, message = _PROGRESS_AT["deliberation"]
        why = str(event.data.get("reason") or "").removeprefix("two rounds: ")
        return step, f"second round: {why}; members revising" if why else message
    if event.kind == "ranking" and event.data.get("round", 1) > 1:
        return _PROGRESS_AT["second_ranking"]
    if event.kind in ("ranking", "final"):
        return _PROGRESS_AT[event.kind]
    return None


def cache_notice(result: CouncilResult) -> dict[str, Any]:
    """What a tool's answer says when the result cache gave it: the run it came from, and that no call was made."""
    if result.cached_from is None:
        return {}
    return {"cached_from": result.cached_from,
            "notice": f"answered from the result cache (run {result.cached_from}): the same question, asked the "
                      "same way, within cache.ttl_s; no upstream calls were made"}


def ask_summary(result: CouncilResult) -> dict[str, Any]:
    """``ask_council``'s answer: the final answer, the ranking, agreement, what degraded, and the run id."""
    final = result.final_answer
    summary: dict[str, Any] = {
        "run_id": result.run_id,
        "status": result.status,
        "preset": result.preset,
        "final_answer": final.content if final else None,
        "final_answer_by": final.by if final else None,
        "ranking": [
            {"member": entry.member, "rank": entry.rank, "score": entry.score, "raw_mean": entry.raw_mean,
             "rank_probabilities": entry.rank_probabilities,
             "verdict": None if entry.verdict is None else
             {"passed": entry.verdict.passed, "score": entry.verdict.score}}
            for entry in result.ranking
        ],
        "agreement": result.agreement.model_dump(mode="json"),
        "ranking_confidence": result.ranking_confidence,
        "tied_for_first": list(result.tied_for_first),
        "degraded": result.degraded,
        "degraded_reasons": list(result.degraded_reasons),
        "simulated": result.simulated,
        "cost": cost_summary(result),
        **cache_notice(result),
    }
    if result.output_schema is not None:
        # A structured run's answer as the JSON value itself, beside its text.
        summary["output"] = json.loads(final.content) if final is not None and final.content.strip() \
            and not final.blocked else None
    if result.deliberation is not None:
        summary["deliberation"] = result.deliberation.brief()
    return summary


def comparison(result: CouncilResult) -> dict[str, Any]:
    """``compare_answers``' answer: every member's answer beside its rank and per-criterion scores."""
    result = masked(result)
    ranked = {entry.member: entry for entry in result.ranking}
    answers = []
    for answer in result.answers:
        entry = ranked.get(answer.member)
        answers.append({
            "member": answer.member,
            "model": answer.model,
            "status": answer.status,
            "answer": answer.content,
            "error": answer.error.message if answer.error else None,
            "rank": entry.rank if entry else None,
            "score": entry.score if entry else None,
            "criteria": dict(entry.dimensions) if entry else {},
        })
    return {"run_id": result.run_id, "status": result.status, "answers": answers,
            "degraded_reasons": list(result.degraded_reasons), "cost": cost_summary(result), **cache_notice(result)}


def run_record(result: CouncilResult) -> str:
    """A stored run in full, as ``get_run`` and ``run://ID`` give it: JSON, with blocked text masked."""
    return masked(result).model_dump_json()


def verdict_summary(verdict: RubricVerdict) -> dict[str, Any]:
    """``evaluate_answer``'s answer: pass or fail, the score, each criterion, and the feedback text."""
    return {
        "rubric": f"{verdict.rubric_id}@{verdict.rubric_version}",
        "passed": verdict.passed,
        "score": verdict.score,
        "threshold": verdict.threshold,
        "criteria": [{"id": c.id, "score": c.score, "level": c.level, "passed": c.passed} for c in verdict.criteria],
        "failed_required": list(verdict.failed_required),
        "feedback": verdict.feedback,
        "summary": verdict.summary,
    }


def run_line(run: RunSummary) -> dict[str, Any]:
    """One stored run, as ``list_runs`` shows it."""
    return {"run_id": run.run_id, "created_at": run.created_at, "status": run.status, "question": run.question,
            "top_member": run.top_member, "degraded": run.degraded, "simulated": run.simulated}
