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

Each payload comes from the function the live stage sent it with
(:mod:`council.pipeline.payloads`), so a replay says what the run said.
Knows nothing of sinks, SSE or storage.
"""

from __future__ import annotations

from council.events import (
    AnswerEvent,
    DeliberationEvent,
    FinalDeltaEvent,
    FinalEvent,
    RankingEvent,
    ReviewEvent,
    RevisionEvent,
    SafetyEvent,
    StageEvent,
    StageStartedEvent,
)
from council.pipeline.council_reading import CHECKER as COUNCIL_CHECKER
from council.pipeline.payloads import (
    answer_event_data,
    final_event_data,
    ranking_event_data,
    review_event_data,
    safety_event_data,
)
from council.pipeline.revisions import revision_event
from council.result import AnswerRecord, CouncilResult, DeliberationRecord, FinalAnswer, FirstRound, RankingEntry
from council.safety.gate import SafetyVerdict

#: How many characters of a chairman's answer go out in one replayed delta.
REPLAY_CHUNK_CHARS = 400


def stage_events(result: CouncilResult, *, labels: bool = False, deltas: bool = False) -> list[StageEvent]:
    """Every stage event from the answers to the final answer, as the run sent them.

    ``labels``: review events carry the anonymous labels their reviewer saw
    (the page shows who was who). ``deltas``: a chairman's answer goes out
    in ``final_delta`` pieces before ``final``, as a stream expects. The
    run's own start and finish are the caller's.
    """
    run_id, rounds = result.run_id, result.deliberation
    first = rounds.first_round if rounds is not None and rounds.rounds == 2 else None
    events: list[StageEvent] = [StageStartedEvent(run_id, {"stage": "answers"})]
    answers = first.answers if first is not None else result.answers
    events += [AnswerEvent(run_id, answer_event_data(a)) for a in answers]
    # An answer the council's reading blocked passed the gate before review, as the live run said then.
    events += [SafetyEvent(run_id, safety_event_data(a.member, _before_review(a.safety, result)))
               for a in answers if a.safety is not None]
    reviews = first.reviews if first is not None else result.reviews
    if reviews:
        events.append(StageStartedEvent(run_id, {"stage": "review"}))
    events += [ReviewEvent(run_id, review_event_data(r, labels=labels)) for r in reviews]
    events += _read_by_council(run_id, answers)
    events += _ranking(run_id, first if first is not None else result,
                       result.ranking if first is None else first.ranking)
    if rounds is not None and first is not None:
        events += _second_round(result, rounds, labels)
    if rounds is not None:
        events.append(DeliberationEvent(run_id, rounds.event_data()))
    if result.final_answer is not None:
        events += _final(run_id, result.final_answer, deltas)
    return events


def _before_review(verdict: SafetyVerdict, result: CouncilResult) -> SafetyVerdict:
    """The gate's verdict as it stood before review: a pass, for an answer the council's reading blocked."""
    if verdict.checker != COUNCIL_CHECKER:
        return verdict
    checker = result.safety_gate.checker if result.safety_gate is not None else "patterns"
    return SafetyVerdict(passed=True, notes=list(verdict.notes), checker=checker)


def _read_by_council(run_id: str, answers: list[AnswerRecord], skip: frozenset[str] = frozenset()) -> list[StageEvent]:
    """The council's reading, after the reviews: a verdict for each answer it blocked (but those in ``skip``)."""
    return [SafetyEvent(run_id, safety_event_data(a.member, a.safety)) for a in answers
            if a.safety is not None and a.safety.checker == COUNCIL_CHECKER and a.member not in skip]


def _ranking(run_id: str, figures: CouncilResult | FirstRound, ranking: list[RankingEntry],
             round_no: int = 1) -> list[StageEvent]:
    if not ranking:
        return []
    return [RankingEvent(run_id, ranking_event_data(ranking, figures.agreement, figures.bias_flags,
                                                    figures.ranking_confidence, figures.tied_for_first, round_no))]


def _second_round(result: CouncilResult, rounds: DeliberationRecord, labels: bool) -> list[StageEvent]:
    """The second round's start, revisions, safety re-checks, reviews and ranking."""
    run_id = result.run_id
    events: list[StageEvent] = [StageStartedEvent(run_id, {"stage": "deliberation", "reason": rounds.reason})]
    events += [RevisionEvent(run_id, revision_event(r)) for r in rounds.revisions]
    # Only the revised texts were checked again: a passed one's verdict is on its answer, a blocked one's on
    # its revision (its first answer stands).
    by_member = {r.member: r for r in rounds.revisions}
    for answer in result.answers:
        revision = by_member.get(answer.member)
        verdict = None if revision is None else (
            answer.safety if revision.decision == "revised" else revision.safety if revision.decision == "blocked"
            else None)
        if verdict is not None:
            events.append(SafetyEvent(run_id, safety_event_data(answer.member, _before_review(verdict, result))))
    events += [ReviewEvent(run_id, review_event_data(r, 2, labels=labels)) for r in result.reviews]
    first = rounds.first_round
    blocked_before = frozenset(a.member for a in first.answers if a.status == "blocked") if first else frozenset()
    events += _read_by_council(run_id, result.answers, blocked_before)
    events += _ranking(run_id, result, result.ranking, round_no=2)
    return events


def _final(run_id: str, final: FinalAnswer, deltas: bool) -> list[StageEvent]:
    events: list[StageEvent] = [StageStartedEvent(run_id, {"stage": "final", "writer": "chairman"
                                                           if final.source == "chairman" else "top_answer"})]
    if deltas and final.source == "chairman":
        text = final.content
        events += [FinalDeltaEvent(run_id, {"text": text[start:start + REPLAY_CHUNK_CHARS], "by": final.by})
                   for start in range(0, len(text), REPLAY_CHUNK_CHARS)]
    events.append(FinalEvent(run_id, final_event_data(final)))
    return events
