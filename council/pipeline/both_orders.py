"""Review in both orders (``review.both_orders``): the second order, and one record from a reviewer's two ballots.

A reviewer may favour a slot (the first answer shown, say) rather than an
answer. Scoring the answers a second time in an order where every answer
moves, and averaging the two ballots, cancels a steady position bias.
Whether the reviewer's top pick held between the two orders is its
*position consistency*, by the rule ``council rank`` applies to a judge's
games (:func:`council.ranking.ballot_sheets.top_pick_held`: answers tied
at the top count as one pick). When one of the two calls fails, the other
ballot stands alone and the consistency is unknown.
"""

from __future__ import annotations

from council.ranking.ballot_sheets import top_pick, top_pick_held
from council.result import DimensionScoresRecord, OrderBallot, ReviewRecord
from council.rubrics.model import CriterionValue


def second_order(order: list[str]) -> list[str]:
    """The order reversed; with an odd count the middle answer swaps with the next, so that every answer moves."""
    moved = order[::-1]
    if len(moved) >= 3 and len(moved) % 2 == 1:
        middle = len(moved) // 2
        moved[middle], moved[middle + 1] = moved[middle + 1], moved[middle]
    return moved


def ballot_of(record: ReviewRecord) -> OrderBallot:
    """What one order's review record says, kept beside the mean."""
    overall = {member: entry.overall for member, entry in record.scores.items()}
    return OrderBallot(order=record.order, labels=record.labels, status=record.status, error=record.error,
                       ranking=record.ranking, overall=overall, top=sorted(top_pick(overall)) if overall else [],
                       attempts=record.attempts, prompt_hash=record.prompt_hash, response_hash=record.response_hash)


def _mean_value(first: CriterionValue, second: CriterionValue | None) -> CriterionValue:
    """Two ballots' values of one criterion: the mean of two numbers; a level or a check they disagree on keeps
    the first's (the criterion's ``normalized`` score is the mean either way)."""
    numbers = (int, float)
    if (isinstance(first, numbers) and isinstance(second, numbers)
            and not isinstance(first, bool) and not isinstance(second, bool)):
        mean = (first + second) / 2
        return int(mean) if mean == int(mean) else round(mean, 2)
    return first


def _mean_entry(first: DimensionScoresRecord, second: DimensionScoresRecord | None) -> DimensionScoresRecord:
    if second is None:
        return first
    normalized = {**second.normalized, **{
        cid: round((value + second.normalized[cid]) / 2, 4) if cid in second.normalized else value
        for cid, value in first.normalized.items()}}
    reported = [v for v in (first.reported_overall, second.reported_overall) if v is not None]
    return first.model_copy(update={
        "scores": {**second.scores, **{cid: _mean_value(value, second.scores.get(cid))
                                        for cid, value in first.scores.items()}},
        "overall": round((first.overall + second.overall) / 2, 4),
        "normalized": normalized,
        "reported_overall": round(sum(reported) / len(reported), 2) if reported else None,
        "notes": first.notes if first.notes == second.notes else f"{first.notes} | {second.notes}".strip(" |"),
        "harmful": first.harmful or second.harmful,
        "addresses_reviewers": first.addresses_reviewers or second.addresses_reviewers,
    })


def merged(first: ReviewRecord, second: ReviewRecord) -> ReviewRecord:
    """One reviewer's record from its ballots in the two orders: their mean, each ballot, and whether its top
    pick held; when a call failed, the other ballot alone (consistency unknown); when both did, the first's failure."""
    spent = {"order_ballots": [ballot_of(first), ballot_of(second)], "usage": first.usage + second.usage,
             "attempts": first.attempts + second.attempts, "latency_ms": max(first.latency_ms, second.latency_ms),
             "reused": first.reused and second.reused}
    if first.status != "ok" or second.status != "ok":
        stands = second if second.status == "ok" else first
        # Both failed: a failed review, with nothing to say about its consistency.
        return stands.model_copy(update={**spent, "position_consistency": "unknown" if stands.status == "ok" else None})
    scores = {member: _mean_entry(entry, second.scores.get(member)) for member, entry in first.scores.items()}
    place = {member: n for n, member in enumerate(first.ranking)}
    ranking = sorted(scores, key=lambda member: (-scores[member].overall, place.get(member, len(place))))
    held = top_pick_held([{m: e.overall for m, e in first.scores.items()},
                          {m: e.overall for m, e in second.scores.items()}])
    return first.model_copy(update={
        **spent, "scores": scores, "ranking": ranking, "holistic": {**second.holistic, **first.holistic},
        "position_consistency": "held" if held else "changed"})
