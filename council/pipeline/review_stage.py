"""Stage 2: each member reviews the others' surviving answers under anonymous labels.

Every reviewer sees the candidates in its own shuffled order (seeded from the
run seed and its name, so a run can be replayed), sandboxed with a fresh
nonce. A bad ballot is data, not an exception: the reviewer is asked once
more, naming the problem, and if the second ballot is bad too, the review is
recorded as failed with the parser's reason. With ``review.both_orders``
each reviewer is asked twice at once, the second time in an order where every
answer moves, and its record is the mean (:mod:`.both_orders`).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import random
import time
from collections.abc import Awaitable, Sequence

from council.errors import ProviderError
from council.events import ReviewEvent, StageStartedEvent
from council.pipeline.both_orders import merged, second_order
from council.pipeline.budget import RunBudget, complete
from council.pipeline.call_reuse import reusable_call
from council.pipeline.context import RunContext, elapsed_ms, gather_until, ordered
from council.pipeline.payloads import review_event_data
from council.pipeline.progress import RunSoFar
from council.pipeline.rank_stage import read_history_ahead
from council.pipeline.stragglers import LateCall, missing_calls
from council.pipeline.verdicts import automatic_review
from council.providers import Provider
from council.result import AnswerRecord, DimensionScoresRecord, Failure, ReviewRecord
from council.review.ballot import BallotParse, parse_ballot
from council.review.flags import ReviewFlags
from council.review.prompt import (
    Candidate,
    labels_for,
    render_retry_message,
    render_review_prompt,
    shown_to_reviewers,
)
from council.review.sandbox import new_nonce
from council.rubrics.model import CriterionValue, Rubric, holistic_unit
from council.types import ChatMessage, Usage


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:16]


def with_fixed_scores(
    record: ReviewRecord, rubric: Rubric, fixed: dict[str, dict[str, CriterionValue]]
) -> ReviewRecord:
    """Add the automatic (deterministic, schema) criteria to a ballot and recompute every overall score.

    An answer the ballot scored holistically keeps its holistic score for the criteria the reviewer left out.
    """
    scores = {}
    for member, entry in record.scores.items():
        values = {**entry.scores, **fixed.get(member, {})}
        normalized = {c.id: rubric.normalize(c, values[c.id]) for c in rubric.criteria if c.id in values}
        holistic = entry.reported_overall if member in record.holistic else None
        overall = (rubric.overall(values) if holistic is None else
                   round(rubric.unit_score(normalized, holistic=holistic_unit(holistic)), 4))
        scores[member] = entry.model_copy(update={"scores": values, "overall": overall,
                                                  "normalized": {k: round(v, 4) for k, v in normalized.items()}})
    return record.model_copy(update={"scores": scores})


def presentation_order(seed: int, reviewer: str, candidates: list[str]) -> list[str]:
    """The order in which ``reviewer`` sees ``candidates``: shuffled, independent per reviewer."""
    order = sorted(candidates)
    random.Random(f"{seed}/{reviewer}").shuffle(order)
    return order


def reviewers_and_candidates(
    answers: list[AnswerRecord], include_self: bool, judges: list[str] | None = None
) -> dict[str, list[str]]:
    """Who reviews whom: members that answered review the surviving answers (their own only if allowed).

    With ``judges`` (a preset's judge, and the second judge when the judge
    answers too), each judge scores every surviving answer but its own,
    whatever ``include_self`` says: a judge's answer is scored by someone
    else or by nobody, never ranked by its own score alone.
    """
    surviving = [a.member for a in answers if a.status == "ok"]
    if judges is not None:
        shown_to = {judge: [m for m in surviving if m != judge] for judge in judges}
        return {judge: shown for judge, shown in shown_to.items() if shown}
    plan: dict[str, list[str]] = {}
    for answer in answers:
        if answer.status == "failed":
            continue  # A member that could not answer is unlikely to review in time.
        shown = [m for m in surviving if include_self or m != answer.member]
        if shown:
            plan[answer.member] = shown
    return plan


async def review_one(
    provider: Provider,
    question: Sequence[ChatMessage],
    order: list[str],
    texts: dict[str, str],
    rubric: Rubric,
    retry_on_failure: bool,
    budget: RunBudget | None = None,
    ctx: RunContext | None = None,
    round_no: int = 1,
    ask_flags: bool = False,
    order_no: int = 1,
) -> ReviewRecord:
    """One reviewer's ballot on the answers in ``order`` (kept replies stand in when ``ctx`` reuses calls).

    ``order_no`` 2 is the second order of ``review.both_orders``: its kept reply is keyed apart from the first's.
    """
    started = time.perf_counter()
    labels = labels_for(len(order))
    label_to_member = dict(zip(labels, order, strict=True))
    candidate_texts = [texts[m] for m in order]
    nonce = new_nonce([*candidate_texts, *(m.content for m in question)])
    messages = render_review_prompt(
        question, [Candidate(label=label, text=texts[m]) for label, m in label_to_member.items()], rubric, nonce,
        ask_flags=ask_flags)
    record = ReviewRecord(reviewer=provider.member.name, order=order, labels=label_to_member)
    usage = Usage()
    attempts = 0
    parsed: BallotParse | None = None
    reuse, every_reused = ctx.call_reuse if ctx else None, True
    # What decides the ballot besides the prompt (its nonce masked): the rubric, the texts as shown, the seed.
    facts = {"rubric": [rubric.id, rubric.version, rubric.content_hash()], "shown": [_hash(t) for t in candidate_texts],
             "seed": ctx.seed if ctx else None, **({"round": round_no} if round_no > 1 else {}),
             **({"order": order_no} if order_no > 1 else {})}
    while True:
        attempts += 1
        try:
            completion, reused = await reusable_call(
                reuse, "review", provider, messages, None,
                functools.partial(complete, budget, provider, messages, None, f"the review by {provider.member.name}"),
                nonce=nonce, facts={**facts, "attempt": attempts}, kept=ctx.kept if ctx else None)
            every_reused = every_reused and reused
        except ProviderError as error:
            failure = Failure.from_error(error)
            return record.model_copy(update={"status": "failed", "error": failure, "attempts": attempts,
                                             "latency_ms": elapsed_ms(started), "usage": usage})
        usage = usage + completion.usage
        parsed = parse_ballot(completion.content, labels, rubric, nonce, candidate_texts)
        if parsed.ok or attempts >= 2 or not retry_on_failure:
            break
        messages = [*messages, ChatMessage(role="assistant", content=completion.content),
                    ChatMessage(role="user", content=render_retry_message(parsed.error or "invalid ballot", nonce))]
    common = {"attempts": attempts, "latency_ms": elapsed_ms(started), "usage": usage, "model": provider.member.model,
              "prompt_hash": _hash("\n".join(f"{m.role}: {m.content}" for m in messages)),
              "response_hash": _hash(completion.content), "reused": reuse is not None and every_reused}
    if not parsed.ok:
        failure = Failure(reason="parse", message=parsed.error or "invalid ballot", attempts=attempts)
        return record.model_copy(update={"status": "failed", "error": failure, **common})
    scores = {
        label_to_member[label]: DimensionScoresRecord(
            scores=dict(evaluation.scores), overall=evaluation.overall, notes=evaluation.notes,
            reported_overall=parsed.reported_overall.get(label),
            normalized={cid: round(value, 4) for cid, value in evaluation.normalized.items()},
            **flag_fields(evaluation.flags),
        )
        for label, evaluation in parsed.evaluations.items()
    }
    ranking = [label_to_member[label] for label in parsed.ranking]
    holistic = {label_to_member[label]: list(evaluation.missing)
                for label, evaluation in parsed.evaluations.items() if evaluation.holistic is not None}
    return record.model_copy(update={"scores": scores, "ranking": ranking, "holistic": holistic, **common})


def asks_flags(ctx: RunContext) -> bool:
    """Whether this run's reviewers flag harmful and reviewer-aimed answers in their ballots."""
    return ctx.config.safety.enabled and ctx.config.safety.council_review


def flag_fields(flags: ReviewFlags) -> dict[str, object]:
    """A ballot entry's flags as :class:`DimensionScoresRecord` fields (none when nothing is flagged)."""
    return {"harmful": flags.harmful, "addresses_reviewers": flags.addresses_reviewers} if flags.any else {}


def mark_oversized(answers: list[AnswerRecord], max_chars: int | None) -> list[AnswerRecord]:
    """The answers, each longer than ``max_chars`` recording its length: reviewers will see it cut."""
    if max_chars is None:
        return answers
    return [a.model_copy(update={"review_truncated_from": len(a.content)})
            if a.status == "ok" and a.content is not None and len(a.content) > max_chars else a
            for a in answers]


async def reviewed(ctx: RunContext, reviewer: str, order: list[str], texts: dict[str, str], round_no: int,
                   fixed: dict[str, dict[str, CriterionValue]]) -> ReviewRecord:
    """One reviewer's record, the automatic criteria added; with ``review.both_orders`` (and two or more answers
    to compare), the mean of its ballots in ``order`` and in the second order, asked at once."""
    def ask(shown: list[str], order_no: int) -> Awaitable[ReviewRecord]:
        return review_one(ctx.providers[reviewer], ctx.plan.messages, shown, texts, ctx.plan.rubric,
                          ctx.config.review.retry_on_parse_failure, ctx.budget, ctx, round_no, asks_flags(ctx),
                          order_no)

    def scored(record: ReviewRecord) -> ReviewRecord:
        return with_fixed_scores(record, ctx.plan.rubric, fixed) if record.status == "ok" and fixed else record

    if not ctx.config.review.both_orders or len(order) < 2:
        return scored(await ask(order, 1))
    first, second = await asyncio.gather(ask(order, 1), ask(second_order(order), 2))
    return merged(scored(first), scored(second))


async def collect_reviews(
    ctx: RunContext, answers: list[AnswerRecord], fixed: dict[str, dict[str, CriterionValue]] | None = None
) -> list[ReviewRecord]:
    """Every reviewer at once, within the stage deadline; ``fixed`` holds each answer's automatic criteria."""
    records, late = await gather_reviews(ctx, answers, fixed)
    for call in late:
        call.call.cancel()
    return records


async def gather_reviews(
    ctx: RunContext, answers: list[AnswerRecord], fixed: dict[str, dict[str, CriterionValue]] | None = None,
    round_no: int = 1,
) -> tuple[list[ReviewRecord], list[LateCall]]:
    """Every reviewer's record, and the reviews the straggler policy stopped waiting for (still running).

    A second round (``round_no`` 2) shows the answers in a new order, and its events say which round.
    """
    started = time.perf_counter()
    plan = reviewers_and_candidates(answers, ctx.config.review.include_self, ctx.plan.judges)
    limit = ctx.config.review.max_answer_chars
    texts = {a.member: shown_to_reviewers(a.content or "", limit) for a in answers if a.status == "ok"}
    seed = ctx.seed + round_no - 1
    orders = {reviewer: presentation_order(seed, reviewer, shown) for reviewer, shown in plan.items()}
    jobs = {reviewer: reviewed(ctx, reviewer, order, texts, round_no, fixed or {})
            for reviewer, order in orders.items()}

    def report(name: str, record: ReviewRecord) -> None:
        if ctx.listening:
            ctx.emit(ReviewEvent(ctx.run_id, review_event_data(record, round_no)))

    cut = ctx.straggler_cut(len(jobs))
    gathered = await gather_until(jobs, ctx.config.stages.stage_deadline_s, report, cut,
                                  succeeded=lambda record: record.status == "ok")
    records = list(gathered.finished.values())
    missing = missing_calls("review", gathered.timed_out, list(gathered.late), ctx.config.stages.stage_deadline_s,
                            cut, gathered.cut_after_s)
    for name, failure in missing:
        record = ReviewRecord(reviewer=name, status="failed", error=failure, order=orders[name],
                              latency_ms=elapsed_ms(started))
        report(name, record)
        records.append(record)
    late = [LateCall("review", name, call) for name, call in gathered.late.items()]
    return ordered(records, [*ctx.plan.members, *(ctx.plan.judges or [])], key=lambda r: r.reviewer), late


async def review_answers(ctx: RunContext, answers: list[AnswerRecord],
                         fixed: dict[str, dict[str, CriterionValue]]) -> list[ReviewRecord]:
    """Stage 3: peer review of the surviving answers, or code's review when the rubric has no LLM criteria.

    With fewer than two surviving answers there is nothing to compare: no review.
    """
    records, late = await round_reviews(ctx, answers, fixed)
    for call in late:
        call.call.cancel()
    return records


async def round_reviews(ctx: RunContext, answers: list[AnswerRecord], fixed: dict[str, dict[str, CriterionValue]],
                        round_no: int = 1) -> tuple[list[ReviewRecord], list[LateCall]]:
    """One round's reviews, and those cut as late: the reviewers', or code's when no criterion needs a model.

    With fewer than two surviving answers there is nothing to compare: no
    review. Only the first round announces the review stage; a second is
    announced as the deliberation stage.
    """
    surviving = [a for a in answers if a.status == "ok"]
    if len(surviving) < 2:
        return [], []
    if not ctx.plan.rubric.llm_criteria():
        return [automatic_review(ctx.plan.rubric, surviving, fixed)], []
    if round_no == 1:
        ctx.emit(StageStartedEvent(ctx.run_id, {"stage": "review"}))
    return await gather_reviews(ctx, answers, fixed, round_no)


async def review_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """Stage 3 in the run: the reviews; the reviewers' history is read from the store while they are out."""
    history = read_history_ahead(ctx, ctx.store) if len(so_far.surviving) > 1 else None
    reviews, late = await round_reviews(ctx, list(so_far.answers), so_far.automatic.values)
    return so_far.then(history=history, reviews=tuple(reviews), late=tuple(late))
