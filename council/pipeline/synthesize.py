"""Stage 3: the final answer.

With a chairman, it writes the answer from the ranked, sandboxed answers and
its tokens are streamed to listeners as they arrive. If the chairman fails,
or its answer does not pass the safety gate, the top-ranked answer is used
and the result says so. Without a chairman, the top-ranked answer is final.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import Any

from council.assets import prompt_hash
from council.errors import ProviderError
from council.events import FinalDeltaEvent, FinalEvent, StageStartedEvent
from council.logs import get_logger
from council.pipeline.budget import complete
from council.pipeline.budget import stream as budgeted_stream
from council.pipeline.context import RunContext, elapsed_ms
from council.pipeline.payloads import final_event_data
from council.pipeline.progress import Ranked, RunSoFar
from council.pipeline.structured import (
    OutputSpec,
    as_text,
    ask_structured,
    structured_request,
    supports_output,
    with_note,
)
from council.providers import Provider
from council.result import AnswerRecord, FinalAnswer, RankingEntry
from council.review.chairman import render_chairman_prompt
from council.review.prompt import shown_to_reviewers
from council.review.sandbox import new_nonce
from council.safety.gate import check_answer
from council.types import ChatMessage, Completion, Usage

_log = get_logger("stage.final")


def top_answer(ranking: list[RankingEntry], answers: list[AnswerRecord]) -> AnswerRecord | None:
    """The best-ranked surviving answer (or the only one, when nothing was ranked)."""
    surviving = {a.member: a for a in answers if a.status == "ok"}
    for entry in ranking:
        if entry.member in surviving:
            return surviving[entry.member]
    return next(iter(surviving.values()), None)


def withheld_notice(blocked: list[AnswerRecord]) -> str:
    """The one line a reader sees when the safety gate set every answer aside.

    Chat apps show an empty reply as nothing at all.
    """
    categories = sorted({f.category for a in blocked if a.safety is not None for f in a.safety.findings})
    why = f" ({', '.join(categories)})" if categories else ""
    return (f"The council withheld its answer: all {len(blocked)} member answers were set aside by the safety "
            f"gate{why}.")


def chairman_facts(ranked: list[tuple[RankingEntry, str]], tied: Sequence[str], flagged: list[str]) -> dict[str, Any]:
    """What decides the chairman's reply besides the conversation: the answers in ranked order, ties and flags.

    The scores' exact values are left out of a kept call's key: they move a
    little with the reviewers' calibration history, which every run adds
    to, while the order they put the answers in is what the chairman is given to work from.
    """
    return {"ranked": [hashlib.sha256(text.encode()).hexdigest() for _entry, text in ranked], "tied": list(tied),
            "flagged": flagged, "prompts": [prompt_hash(name) for name in ("chairman_system.md", "chairman_user.md")]}


async def _chairman_answer(ctx: RunContext, chairman: Provider, messages: list[ChatMessage],
                           nonce: str, facts: dict[str, Any]) -> tuple[str, Usage, bool]:
    """The chairman's text and usage, streamed to listeners, and whether it was a kept reply (call reuse)."""
    what = f"the chairman {chairman.member.name}'s synthesis"
    params, reuse = ctx.params_for(chairman), ctx.call_reuse
    key = reuse.key("chairman", chairman, ctx.plan.messages, params, None, facts) if reuse is not None else ""
    if reuse is not None and (kept := await reuse.lookup(key, "chairman", chairman, nonce)) is not None:
        ctx.emit(FinalDeltaEvent(ctx.run_id, {"text": kept.content, "by": chairman.member.name}))
        return kept.content, kept.usage, True
    async with budgeted_stream(ctx.budget, chairman, messages, params, what) as stream:
        async for delta in stream:
            ctx.emit(FinalDeltaEvent(ctx.run_id, {"text": delta, "by": chairman.member.name}))
    assert stream.completion is not None
    if reuse is not None and stream.completion.content.strip():
        ctx.kept(reuse.keep(key, "chairman", stream.completion, nonce))
    return stream.completion.content, stream.completion.usage, False


async def _chairman_object(ctx: RunContext, chairman: Provider, messages: list[ChatMessage],
                           spec: OutputSpec) -> tuple[str, Usage, str | None]:
    """The chairman's merged object as text, its usage, and why it is not usable (None when it validated).

    Not streamed: a client is sent only an object that validates.
    """
    asked_messages, params = structured_request(
        spec, with_note(messages, MERGE_NOTE), ctx.params_for(chairman),
        supports_output(chairman))
    what = f"the chairman {chairman.member.name}'s object"

    async def call(conversation: list[ChatMessage]) -> Completion:
        return await complete(ctx.budget, chairman, conversation, params, what)

    reply = await ask_structured(spec, asked_messages, call)
    usage = reply.completion.usage
    if reply.error is not None:
        return "", usage, f"chairman {chairman.member.name}'s object {reply.error}"
    return as_text(reply.value), usage, None


#: What a chairman of a structured run is asked besides its usual prompt.
MERGE_NOTE = ("The answers above are JSON values for the same schema. Reply with one JSON value for that schema "
              "and nothing else: the best-ranked answer, corrected or completed from the others where they are "
              "better.")


async def final_answer(ctx: RunContext, ranking: list[RankingEntry], answers: list[AnswerRecord], *,
                       confidence: float | None = None, tied_for_first: Sequence[str] = ()) -> FinalAnswer:
    """The council's answer, with the reason whenever it is not the chairman's.

    ``confidence`` (how sure the ranking is of its top answer) and
    ``tied_for_first`` are told to the chairman.
    """
    started = time.perf_counter()
    best = top_answer(ranking, answers)
    if best is None:
        blocked = [a for a in answers if a.status == "blocked"]
        return FinalAnswer(content=withheld_notice(blocked) if blocked else "", by="", source="none",
                           blocked=bool(blocked), fallback=True,
                           fallback_reason="no answer passed the safety gate" if blocked else "no answers")
    if ctx.plan.chairman is None:
        return FinalAnswer(content=best.content or "", by=best.member)
    chairman = ctx.providers[ctx.plan.chairman]
    limit = ctx.config.review.max_answer_chars
    texts = {a.member: shown_to_reviewers(a.content or "", limit) for a in answers if a.status == "ok"}
    ranked = [(entry, texts[entry.member]) for entry in ranking if entry.member in texts]
    if not ranked:
        ranked = [(RankingEntry(member=best.member, rank=1, score=0.0, raw_mean=None, n_reviews=0), texts[best.member])]
    nonce = new_nonce([*texts.values(), *(m.content for m in ctx.plan.messages)])
    flagged = [a.member for a in answers if a.flags]
    messages = render_chairman_prompt(ctx.plan.messages, ranked, nonce, confidence, list(tied_for_first),
                                      flagged=flagged)
    reason: str | None = None
    usage, reused = Usage(), False
    try:
        if ctx.plan.output is not None:
            content, usage, reason = await _chairman_object(ctx, chairman, messages, ctx.plan.output)
        else:
            content, usage, reused = await _chairman_answer(ctx, chairman, messages, nonce,
                                                            chairman_facts(ranked, tied_for_first, flagged))
    except ProviderError as error:
        reason = f"chairman {ctx.plan.chairman} failed ({error.reason}): {error}"
    except Exception as error:
        _log.error("chairman_crashed", member=ctx.plan.chairman, error=error, exc_info=True)
        reason = f"chairman {ctx.plan.chairman} failed (internal error: {type(error).__name__}: {error})"
    else:
        verdict = (check_answer(content, allow_example_ssns=ctx.config.safety.pii_allow_example_ssns)
                   if ctx.config.safety.enabled else None)
        if reason is not None:
            pass  # the chairman's object did not validate: the top-ranked valid candidate stands
        elif not content.strip():
            reason = f"chairman {ctx.plan.chairman} returned an empty answer"
        elif verdict is not None and not verdict.passed:
            category = verdict.findings[0].category
            reason = f"chairman {ctx.plan.chairman}'s answer was blocked by the safety gate ({category})"
        else:
            if ctx.plan.output is not None:
                # Whole, once it validated: a client is never sent part of an object that may fail.
                ctx.emit(FinalDeltaEvent(ctx.run_id, {"text": content, "by": ctx.plan.chairman}))
            return FinalAnswer(
                content=content, by=ctx.plan.chairman, source="chairman", latency_ms=elapsed_ms(started), usage=usage,
                reused=reused)
    return FinalAnswer(content=best.content or "", by=best.member, fallback=True, fallback_reason=reason,
                       latency_ms=elapsed_ms(started), usage=usage)


async def final_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """Stage 4 in the run: the final answer, and why it is not the chairman's when a chairman was asked."""
    ranked = so_far.ranked or Ranked([])
    if so_far.surviving:
        ctx.emit(StageStartedEvent(ctx.run_id, {"stage": "final", "writer": "chairman" if ctx.plan.chairman is not None
                                                else "top_answer"}))
    final = await final_answer(ctx, ranked.ranking, list(so_far.answers), confidence=ranked.confidence,
                               tied_for_first=ranked.tied_for_first)
    if ctx.listening:
        ctx.emit(FinalEvent(ctx.run_id, final_event_data(final)))
    fell_back = final.fallback and final.source != "none" and ctx.plan.chairman is not None
    return so_far.then(final=final, degraded=(f"chairman fallback: {final.fallback_reason}" if fell_back else None,))
