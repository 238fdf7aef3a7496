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


def _calls(result: CouncilResult, safety_member: str | None) -> Iterator[tuple[CostStage, str, Usage]]:
    # A reused call (an evaluation re-run's kept reply) was not made: it costs nothing.
    for answer in result.answers:
        if not answer.reused:
            yield "answers", answer.member, answer.usage
    for answer in result.answers:
        if safety_member is not None and answer.safety is not None and answer.safety.usage is not None:
            yield "safety", safety_member, answer.safety.usage
    for review in result.reviews:
        if not review.reused:
            yield "reviews", review.reviewer, review.usage


def run_cost(result: CouncilResult, prices: Mapping[str, Price | None], safety_member: str | None,
             chairman: str | None = None) -> RunCost:
    """The cost of every call ``result`` records, with the sums per stage and member."""
    made = list(_calls(result, safety_member))
    final = result.final_answer
    if final is not None and final.source == "chairman" and not final.reused:
        made.append(("chairman", final.by, final.usage))
    elif final is not None and final.fallback and chairman is not None:
        # The chairman failed and the top answer stands; what its call used is on the final answer's record.
        made.append(("chairman", chairman, final.usage))
    # A call that produced no usage (refused by the budget, failed before the upstream counted anything)
    # is left out: listing it at $0, or as unknown, would only blur the figures.
    calls = [call_cost(stage, member, usage, prices.get(member)) for stage, member, usage in made
             if usage.total_tokens or usage.cost_usd is not None]
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
    # A run whose calls were all reused (kept replies) is known to have cost nothing.
    reused = (any(a.reused for a in result.answers) or any(r.reused for r in result.reviews)
              or (final is not None and final.reused))
    total = sum(known) if known else 0.0 if reused and not unpriced else None
    return RunCost(total_usd=total, partial=bool(unpriced), by_stage=by_stage, by_member=by_member,
                   unpriced=unpriced, calls=calls)


def cost_summary(result: CouncilResult) -> dict[str, Any] | None:
    """The run's cost in brief, for API answers (the stored run has every call): total, partial, per stage, member."""
    cost = result.cost
    if cost is None:
        return None
    return {"total_usd": cost.total_usd, "partial": cost.partial, "by_stage": cost.by_stage,
            "by_member": cost.by_member, "unpriced": cost.unpriced}
