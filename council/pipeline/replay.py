"""A finished run's stage events, rebuilt from its result, in the order the live run sent them.

Two callers replay a run they did not watch: a result-cache hit
(:func:`council.pipeline.result_cache.replay`, so a stream served from the
cache still shows its stages) and the web page's run view of a stored run
(:func:`council.server.live.replay_events`). Both read the stages from
here, so a run with a second round (``review.rounds: 2``) replays as it
ran: the first round's answers, reviews and ranking (kept in
``result.deliberation.first_round``), then the second round's start, each
member's revision, the safety re-check of the revised texts, the reviews
and ranking of round 2, and the round's summary, before the final answer.

Data is JSON-ready (``model_dump(mode="json")``), as the pipeline's own
events are once serialised. Knows nothing of sinks, SSE or storage.
"""

from __future__ import annotations

from typing import Any

from council.pipeline.revisions import revision_event
from council.result import (
    AnswerRecord,
    CouncilResult,
    DeliberationRecord,
    FinalAnswer,
    FirstRound,
    RankingEntry,
    ReviewRecord,
)
from council.safety.gate import SafetyVerdict

#: How many characters of a chairman's answer go out in one replayed delta.
REPLAY_CHUNK_CHARS = 400

Replayed = list[tuple[str, dict[str, Any]]]


def stage_events(result: CouncilResult, *, labels: bool = False, deltas: bool = False) -> Replayed:
    """(kind, data) of every stage event from the answers to the final answer, as the run sent them.

    ``labels``: review events carry the anonymous labels their reviewer saw
    (the page shows who was who). ``deltas``: a chairman's answer goes out
    in ``final_delta`` pieces before ``final``, as a stream expects. The
    run's own start and finish are the caller's.
    """
    rounds = result.deliberation
    first = rounds.first_round if rounds is not None and rounds.rounds == 2 else None
    events: Replayed = [("stage_started", {"stage": "answers"})]
    answers = first.answers if first is not None else result.answers
    events += [("answer", _answer(a)) for a in answers]
    events += [("safety", _safety(a.member, a.safety)) for a in answers if a.safety is not None]
    reviews = first.reviews if first is not None else result.reviews
    if reviews:
        events.append(("stage_started", {"stage": "review"}))
    events += [("review", _review(r, labels)) for r in reviews]
    events += _ranking(first if first is not None else result, result.ranking if first is None else first.ranking)
    if rounds is not None and first is not None:
        events += _second_round(result, rounds, labels)
    if rounds is not None:
        events.append(("deliberation", rounds.event_data()))
    if result.final_answer is not None:
        events += _final(result.final_answer, deltas)
    return events


def _answer(answer: AnswerRecord) -> dict[str, Any]:
    return {"member": answer.member, "status": answer.status, "latency_ms": round(answer.latency_ms, 1),
            "content": answer.content, "error": answer.error.model_dump(mode="json") if answer.error else None}


def _safety(member: str, verdict: SafetyVerdict) -> dict[str, Any]:
    dumped = verdict.model_dump(mode="json")
    return {"member": member, "passed": dumped["passed"], "findings": dumped["findings"], "notes": dumped["notes"]}


def _review(review: ReviewRecord, labels: bool, round_no: int = 1) -> dict[str, Any]:
    data: dict[str, Any] = {
        "reviewer": review.reviewer, "status": review.status,
        "error": review.error.model_dump(mode="json") if review.error else None,
        "scores": {m: s.model_dump(mode="json") for m, s in review.scores.items()}, "order": list(review.order)}
    if labels:
        data["labels"] = dict(review.labels)
    if round_no > 1:
        data["round"] = round_no
    return data


def _ranking(figures: CouncilResult | FirstRound, ranking: list[RankingEntry], round_no: int = 1) -> Replayed:
    if not ranking:
        return []
    data: dict[str, Any] = {
        "ranking": [e.model_dump(mode="json") for e in ranking],
        "agreement": figures.agreement.model_dump(mode="json"),
        "bias_flags": [b.model_dump(mode="json") for b in figures.bias_flags],
        "ranking_confidence": figures.ranking_confidence, "tied_for_first": list(figures.tied_for_first)}
    if round_no > 1:
        data["round"] = round_no
    return [("ranking", data)]


def _second_round(result: CouncilResult, rounds: DeliberationRecord, labels: bool) -> Replayed:
    """The second round's start, revisions, safety re-checks, reviews and ranking."""
    events: Replayed = [("stage_started", {"stage": "deliberation", "reason": rounds.reason})]
    events += [("revision", revision_event(r)) for r in rounds.revisions]
    # Only the revised texts were checked again: a passed one's verdict is on its answer, a blocked one's on
    # its revision (its first answer stands).
    by_member = {r.member: r for r in rounds.revisions}
    for answer in result.answers:
        revision = by_member.get(answer.member)
        verdict = None if revision is None else (
            answer.safety if revision.decision == "revised" else revision.safety if revision.decision == "blocked"
            else None)
        if verdict is not None:
            events.append(("safety", _safety(answer.member, verdict)))
    events += [("review", _review(r, labels, round_no=2)) for r in result.reviews]
    events += _ranking(result, result.ranking, round_no=2)
    return events


def _final(final: FinalAnswer, deltas: bool) -> Replayed:
    events: Replayed = [("stage_started", {"stage": "final"})]
    if deltas and final.source == "chairman":
        text = final.content
        events += [("final_delta", {"text": text[start:start + REPLAY_CHUNK_CHARS], "by": final.by})
                   for start in range(0, len(text), REPLAY_CHUNK_CHARS)]
    events.append(("final", final.model_dump(mode="json")))
    return events
