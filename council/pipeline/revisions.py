"""The second round's first step: each member reads the critiques and revises its answer or keeps it.

A member sees every surviving answer under fresh labels (its own named as
its own), and each reviewer's scores and notes on each of them under
"Reviewer 1", "Reviewer 2", numbered in an order drawn per member, so no
alias says who reviewed (:mod:`council.review.revision` fences it all). A
revised text goes through the safety gate again; one the gate blocks, like a
reply that cannot be read, leaves the member's first answer standing.
"""

from __future__ import annotations

import asyncio
import functools
import random
import time

from council.errors import ProviderError
from council.events import RevisionData, RevisionEvent
from council.logs import get_logger
from council.pipeline.budget import complete
from council.pipeline.call_reuse import reusable_call
from council.pipeline.context import RunContext, elapsed_ms, gather_until, ordered
from council.pipeline.payloads import failure_data
from council.pipeline.progress import RevisionCall
from council.pipeline.review_stage import mark_oversized, presentation_order
from council.pipeline.safety_stage import apply_safety_gate, flag_manipulation
from council.pipeline.stragglers import missing_calls
from council.result import AnswerRecord, Failure, ReviewRecord, RevisionRecord
from council.review.prompt import labels_for, shown_to_reviewers
from council.review.revision import Critique, parse_revision_reply, render_revision_prompt
from council.review.sandbox import new_nonce

_log = get_logger("stage.deliberation")


def revision_event(record: RevisionRecord) -> RevisionData:
    """The ``revision`` event of a member's decision, as it went out when the reply was read.

    The safety gate speaks after that, so a revision it later blocked went
    out as ``revised``; its ``safety`` event says the rest.
    """
    return {"member": record.member, "decision": "revised" if record.decision == "blocked" else record.decision,
            "reason": record.reason, "latency_ms": round(record.latency_ms, 1),
            "error": failure_data(record.error)}


def critiques_by_member(reviews: list[ReviewRecord], reader: str, seed: int) -> dict[str, list[Critique]]:
    """Each answer's critiques as ``reader`` sees them: reviewers under aliases numbered in an order drawn for it."""
    ok = [r for r in reviews if r.status == "ok"]
    aliases = {r.reviewer: f"Reviewer {n}" for n, r in enumerate(
        sorted(ok, key=lambda r: random.Random(f"{seed}/critics/{reader}/{r.reviewer}").random()), start=1)}
    found: dict[str, list[Critique]] = {}
    for review in sorted(ok, key=lambda r: aliases[r.reviewer]):
        for member, scored in review.scores.items():
            found.setdefault(member, []).append(Critique(aliases[review.reviewer], dict(scored.scores),
                                                         scored.overall, scored.notes))
    return found


def revision_calls(ctx: RunContext, surviving: list[AnswerRecord], reviews: list[ReviewRecord]) -> list[RevisionCall]:
    """Every surviving member's revision prompt: all surviving answers, shuffled for it, and their critiques."""
    limit = ctx.config.review.max_answer_chars
    texts = {a.member: shown_to_reviewers(a.content or "", limit) for a in surviving}
    calls = []
    for answer in surviving:
        order = presentation_order(ctx.seed, f"revision/{answer.member}", list(texts))
        label_of = dict(zip(order, labels_for(len(order)), strict=True))
        critiques = critiques_by_member(reviews, answer.member, ctx.seed)
        shown = {label_of[m]: texts[m] for m in order}
        by_label = {label_of[m]: critiques.get(m, []) for m in order}
        untrusted = [*shown.values(), *(m.content for m in ctx.plan.messages),
                     *(c.as_text() for found in by_label.values() for c in found)]
        nonce = new_nonce(untrusted)
        messages = render_revision_prompt(ctx.plan.messages, shown, label_of[answer.member], by_label, nonce)
        calls.append(RevisionCall(answer.member, messages, nonce))
    return calls


async def _revise(ctx: RunContext, call: RevisionCall) -> tuple[RevisionRecord, str | None]:
    """One member's decision, and its revised text when it revised; a failure is a record, never an exception."""
    provider = ctx.providers[call.member]
    started = time.perf_counter()
    try:
        completion, reused = await reusable_call(
            ctx.call_reuse, "revision", provider, call.messages, ctx.params_for(provider),
            functools.partial(complete, ctx.budget, provider, call.messages, ctx.params_for(provider),
                              f"the revision by {call.member}"),
            nonce=call.nonce, facts={"seed": ctx.seed}, kept=ctx.kept)
    except ProviderError as error:
        return RevisionRecord(member=call.member, decision="failed", reason="its first answer stands",
                              error=Failure.from_error(error), latency_ms=elapsed_ms(started)), None
    except Exception as error:  # a member's bug costs its revision, not the round
        _log.error("revision_crashed", member=call.member, error=error)
        failure = Failure(reason="upstream_error", message=f"internal error: {type(error).__name__}: {error}")
        return RevisionRecord(member=call.member, decision="failed", reason="its first answer stands",
                              error=failure, latency_ms=elapsed_ms(started)), None
    reply = parse_revision_reply(completion.content, call.nonce)
    common = {"member": call.member, "latency_ms": elapsed_ms(started), "usage": completion.usage, "reused": reused}
    if reply.decision is None:
        failure = Failure(reason="parse", message=reply.error or "unreadable revision")
        return RevisionRecord(**common, decision="failed", reason=reply.reason or "its first answer stands",
                              error=failure), None
    if reply.decision == "keep":
        return RevisionRecord(**common, decision="kept", reason=reply.reason), None
    return RevisionRecord(**common, decision="revised", reason=reply.reason), reply.answer


async def gather_revisions(ctx: RunContext, calls: list[RevisionCall]) -> dict[str, tuple[RevisionRecord, str | None]]:
    """Every member's revision at once, within the stage deadline (one that misses it keeps its first answer).

    The straggler policy holds here as in the first round: once enough
    revisions are in, a member still revising is not waited for past the
    time the policy allows; its call is stopped and its first answer stands.
    """
    started = time.perf_counter()

    def report(_name: str, outcome: tuple[RevisionRecord, str | None]) -> None:
        if ctx.listening:
            ctx.emit(RevisionEvent(ctx.run_id, revision_event(outcome[0])))

    jobs = {call.member: _revise(ctx, call) for call in calls}
    cut = ctx.straggler_cut(len(jobs))
    gathered = await gather_until(jobs, ctx.config.stages.stage_deadline_s, report, cut,
                                  succeeded=lambda outcome: outcome[0].decision != "failed")
    for call in gathered.late.values():
        call.cancel()  # a revision that comes late has nothing left to change: the second review has begun
    await asyncio.gather(*gathered.late.values(), return_exceptions=True)
    outcomes = dict(gathered.finished)
    for name, failure in missing_calls("revision", gathered.timed_out, list(gathered.late),
                                       ctx.config.stages.stage_deadline_s, cut, gathered.cut_after_s):
        outcomes[name] = (RevisionRecord(member=name, decision="failed", reason="its first answer stands",
                                         error=failure, latency_ms=elapsed_ms(started)), None)
        report(name, outcomes[name])
    return outcomes


async def revised_answers(ctx: RunContext, answers: list[AnswerRecord],
                          outcomes: dict[str, tuple[RevisionRecord, str | None]],
                          ) -> tuple[list[AnswerRecord], list[RevisionRecord]]:
    """The answers the second round reviews (each revised text that passes the gate), and the revision records."""
    drafts = [a.model_copy(update={"content": text, "safety": None, "moderation": None, "flags": [],
                                   "review_truncated_from": None})
              for a in answers if (text := outcomes.get(a.member, (None, None))[1]) is not None]
    gated = {a.member: a for a in flag_manipulation(await apply_safety_gate(ctx, drafts))}
    records, next_answers = [], []
    for answer in answers:
        record, _text = outcomes.get(answer.member, (None, None))
        checked = gated.get(answer.member)
        if record is not None and checked is not None and checked.status == "blocked":
            category = checked.safety.findings[0].category if checked.safety and checked.safety.findings else "unsafe"
            record = record.model_copy(update={
                "decision": "blocked", "safety": checked.safety,
                "reason": f"the revised answer was blocked by the safety gate ({category}); its first answer stands"})
            checked = None
        if record is not None:
            records.append(record)
        next_answers.append(checked.model_copy(update={"revised": True}) if checked is not None else answer)
    return (mark_oversized(next_answers, ctx.config.review.max_answer_chars),
            ordered(records, ctx.plan.members, key=lambda r: r.member))
