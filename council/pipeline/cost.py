"""What a run cost: each upstream call priced, then summed per stage, per member and in all.

A call's cost is the upstream's own figure when it reported one (OpenRouter
does, in ``usage.cost``), else its tokens times the member's configured
price. A member without a price has calls of unknown cost: they are listed
as ``None``, never counted as 0, and the run's total says it is partial.
No table of model prices ships with Council: prices are the operator's to
state, in the config, where they can be checked against the provider's bill.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from council.config import Price
from council.result import CallCost, CostStage, CouncilResult, RunCost
from council.types import Usage

PER_MILLION = 1_000_000


def usd_of(usage: Usage, price: Price | None) -> float | None:
    """What a call cost: the upstream's reported figure, else its tokens times ``price``, else unknown (None)."""
    if usage.cost_usd is not None:
        return usage.cost_usd
    return priced(usage, price) if price is not None else None


def call_cost(stage: CostStage, member: str, usage: Usage, price: Price | None) -> CallCost:
    """One call's cost record: its figure (:func:`usd_of`) and where the figure came from."""
    usd = usd_of(usage, price)
    source = None if usd is None else "reported" if usage.cost_usd is not None else "computed"
    return CallCost(stage=stage, member=member, prompt_tokens=usage.prompt_tokens,
                    completion_tokens=usage.completion_tokens, usd=usd, source=source, estimated=usage.estimated)


def priced(usage: Usage, price: Price) -> float:
    """Tokens times price: cached prompt tokens at the cached price (the input price when none is set)."""
    cached = min(usage.cached_prompt_tokens, usage.prompt_tokens)
    cached_price = price.input_per_mtok if price.cached_input_per_mtok is None else price.cached_input_per_mtok
    return ((usage.prompt_tokens - cached) * price.input_per_mtok + cached * cached_price
            + usage.completion_tokens * price.output_per_mtok) / PER_MILLION


def _calls(result: CouncilResult, safety_member: str | None) -> Iterator[tuple[CostStage, str, Usage, bool]]:
    """Every call the run records: its stage, member, usage, and whether it was reused (a kept reply)."""
    for answer in result.answers:
        yield "answers", answer.member, answer.usage, answer.reused
    for answer in result.answers:
        if safety_member is not None and answer.safety is not None and answer.safety.usage is not None:
            yield "safety", safety_member, answer.safety.usage, False
    for review in result.reviews:
        yield "reviews", review.reviewer, review.usage, review.reused
    yield from result.second_round_calls(safety_member)


def run_cost(result: CouncilResult, prices: Mapping[str, Price | None], safety_member: str | None,
             chairman: str | None = None) -> RunCost:
    """The cost of every call ``result`` records, with the sums per stage and member."""
    made = list(_calls(result, safety_member))
    final = result.final_answer
    if final is not None and final.source == "chairman":
        made.append(("chairman", final.by, final.usage, final.reused))
    elif final is not None and final.fallback and chairman is not None:
        # The chairman failed and the top answer stands; what its call used is on the final answer's record.
        made.append(("chairman", chairman, final.usage, False))
    # A call that produced no usage (refused by the budget, failed before the upstream counted anything)
    # is left out: listing it at $0, or as unknown, would only blur the figures.
    priced_calls = [(call_cost(stage, member, usage, prices.get(member)), reused) for stage, member, usage, reused
                    in made if usage.total_tokens or usage.cost_usd is not None]
    calls = [call for call, reused in priced_calls if not reused]
    by_stage: dict[str, float] = {}
    by_member: dict[str, float] = {}
    unpriced: list[str] = []
    for call in calls:
        if call.usd is None:
            if call.member not in unpriced:
                unpriced.append(call.member)
            continue
        by_stage[call.stage] = by_stage.get(call.stage, 0.0) + call.usd
        by_member[call.member] = by_member.get(call.member, 0.0) + call.usd
    known = [call.usd for call in calls if call.usd is not None]
    # A reused call (an evaluation re-run's kept reply) was not made again: it is counted apart, at what it
    # cost when it was made. A run whose calls were all reused is known to have spent nothing.
    reused = [call for call, was_reused in priced_calls if was_reused]
    unpriced += [c.member for c in reused if c.usd is None and c.member not in unpriced]
    total = sum(known) if known else 0.0 if reused and not unpriced else None
    return RunCost(total_usd=total, partial=bool(unpriced), by_stage=by_stage, by_member=by_member,
                   unpriced=unpriced, calls=calls, reused_usd=sum(c.usd for c in reused if c.usd is not None))


def cost_summary(result: CouncilResult) -> dict[str, Any] | None:
    """The run's cost in brief, for API answers (the stored run has every call): total, partial, per stage, member."""
    cost = result.cost
    if cost is None:
        return None
    return {"total_usd": cost.total_usd, "partial": cost.partial, "by_stage": cost.by_stage,
            "by_member": cost.by_member, "unpriced": cost.unpriced}
