"""Stage 1: every member answers concurrently, within the stage deadline; then the quorum is checked."""

from __future__ import annotations

import json
import time
from typing import Any

from council.errors import ProviderError
from council.events import AnswerEvent, StageStartedEvent
from council.logs import get_logger
from council.pipeline.budget import RunBudget, complete, complete_tools
from council.pipeline.call_reuse import reusable_call
from council.pipeline.context import RunContext, elapsed_ms, gather_until, ordered
from council.pipeline.payloads import answer_event_data
from council.pipeline.progress import RunSoFar
from council.pipeline.stragglers import LateCall, late_members, missing_calls
from council.pipeline.structured import (
    OutputSpec,
    StructuredReply,
    as_text,
    ask_structured,
    structured_request,
    supports_output,
)
from council.pipeline.tool_answer import ask_tools, openai_turns, tool_body, without_images
from council.providers import Provider
from council.result import AnswerRecord, Failure
from council.types import ChatMessage, Completion, GenerationParams

_log = get_logger("stage.answer")


async def _answer(provider: Provider, question: list[ChatMessage], params: GenerationParams | None,
                  budget: RunBudget | None = None, ctx: RunContext | None = None) -> AnswerRecord:
    """One member's answer (a kept one when ``ctx`` reuses calls); a failure becomes a record, never an exception."""
    started = time.perf_counter()
    base: dict[str, Any] = {"member": provider.member.name, "model": provider.member.model,
                            "provider": provider.name, "simulated": provider.simulated}
    if ctx is not None and ctx.plan.output is not None:
        return await _structured_answer(provider, question, params, ctx, ctx.plan.output, base, started)
    try:
        completion, base["reused"] = await reusable_call(
            ctx.call_reuse if ctx else None, "answer", provider, question, params,
            lambda: complete(budget, provider, question, params, f"{provider.member.name}'s answer"),
            kept=ctx.kept if ctx else None)
    except Exception as error:
        return failed_answer(base, error, started)
    return answer_record(base, completion)


def failed_answer(base: dict[str, Any], error: Exception, started: float) -> AnswerRecord:
    """The record of a call that raised: a provider's error as it is typed, anything else as a member's bug."""
    if isinstance(error, ProviderError):
        return AnswerRecord(**base, status="failed", error=Failure.from_error(error), latency_ms=elapsed_ms(started))
    _log.error("answer_crashed", member=base["member"], error=error)
    failure = Failure(reason="upstream_error", message=f"internal error: {type(error).__name__}: {error}")
    return AnswerRecord(**base, status="failed", error=failure, latency_ms=elapsed_ms(started))


def answer_record(base: dict[str, Any], completion: Completion) -> AnswerRecord:
    """A member's answer from its completion (an empty one is a failure)."""
    if not completion.content.strip():
        failure = Failure(reason="protocol", message=f"empty answer (finish_reason {completion.finish_reason})")
        return AnswerRecord(**base, status="failed", error=failure, latency_ms=completion.latency_ms,
                            usage=completion.usage)
    return AnswerRecord(
        **base, content=completion.content, latency_ms=completion.latency_ms, usage=completion.usage,
        model_version=completion.model_version, attempts=completion.attempts,
    )


async def _structured_answer(provider: Provider, question: list[ChatMessage], params: GenerationParams | None,
                             ctx: RunContext, spec: OutputSpec, base: dict[str, Any], started: float) -> AnswerRecord:
    """A member's JSON answer, validated, with one retry; one that never validates fails as ``invalid_output``.

    Structured calls are never answered from kept replies: a retry depends
    on what the first reply got wrong.
    """
    what = f"{provider.member.name}'s answer"
    try:
        if spec.calls:
            reply = await _tool_call(provider, question, params, ctx, spec, what)
        else:
            messages, asked = structured_request(spec, question, params, supports_output(provider))

            async def call(conversation: list[ChatMessage]) -> Completion:
                return await complete(ctx.budget, provider, conversation, asked, what)

            reply = await ask_structured(spec, messages, call)
    except Exception as error:
        return failed_answer(base, error, started)
    completion = reply.completion
    if reply.error is not None:
        # Kept with its text: the record, the page and `council show` say what was wrong with it.
        failure = Failure(reason="refused", message="the member refused to answer", attempts=reply.attempts) \
            if completion.refused else \
            Failure(reason="invalid_output", message=f"the answer {reply.error}", attempts=reply.attempts)
        return AnswerRecord(**base, status="failed", error=failure, content=completion.content,
                            latency_ms=elapsed_ms(started), usage=completion.usage, attempts=reply.attempts)
    valid = completion.model_copy(update={"content": as_text(reply.value), "latency_ms": elapsed_ms(started)})
    return answer_record(base, valid).model_copy(update={"attempts": reply.attempts})


async def _tool_call(provider: Provider, question: list[ChatMessage], params: GenerationParams | None,
                     ctx: RunContext, spec: OutputSpec, what: str) -> StructuredReply:
    """A member's decision asked in its wire format's own tool calling (:mod:`.tool_answer`)."""
    raw = ctx.plan.tool_messages
    turns = openai_turns(question) if raw is None else list(raw) if sees_images(ctx, provider) else without_images(raw)

    async def call(conversation: list[dict[str, Any]]) -> Completion:
        # The budget bounds the prompt by the text turns (calls and results written out), the retry's two too.
        prompt = [*question, *(ChatMessage(role="user", content=json.dumps(turn, ensure_ascii=False))
                               for turn in conversation[len(turns):])]
        return await complete_tools(ctx.budget, provider, tool_body(spec, conversation), prompt, params, what)

    return await ask_tools(spec, turns, call)


def question_for(ctx: RunContext, provider: Provider) -> list[ChatMessage]:
    """The conversation as this member gets it: without images when its config says ``vision: false``."""
    if sees_images(ctx, provider):
        return list(ctx.plan.messages)
    return [m.text_only() for m in ctx.plan.messages]


def sees_images(ctx: RunContext, provider: Provider) -> bool:
    """False when the question has images this member is not sent (its config says ``vision: false``)."""
    return provider.member.vision or not any(m.images for m in ctx.plan.messages)


async def answers_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """Stage 1 in the run: every member's answer, and who answered without the images or not at all."""
    ctx.emit(StageStartedEvent(ctx.run_id, {"stage": "answers"}))
    answers, late = await gather_answers(ctx)
    text_only = [f"{name} has vision: false and answered from the text alone (the images were not sent to it)"
                 for name in ctx.plan.members if not sees_images(ctx, ctx.providers[name])]
    return so_far.then(answers=tuple(answers), late=tuple(late),
                       degraded=(*text_only, member_failures(answers), late_members(answers)))


async def quorum_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """Stop the run when too few members answered; else say how few answers are left to review, if few are."""
    if problem := quorum_problem(list(so_far.answers), len(ctx.plan.members), ctx.config.stages.quorum):
        return so_far.then(stop=problem)
    if ctx.plan.output is not None and (problem := no_valid_output(list(so_far.answers))):
        return so_far.then(stop=problem)
    return so_far.then(degraded=(survivor_problem(so_far.surviving),))


async def collect_answers(ctx: RunContext) -> list[AnswerRecord]:
    """Ask every member at once; stop at the first of all-answered or the stage deadline (late calls cancelled)."""
    records, late = await gather_answers(ctx)
    for call in late:
        call.call.cancel()
    return records


async def gather_answers(ctx: RunContext) -> tuple[list[AnswerRecord], list[LateCall]]:
    """Every member's answer record, and the calls the straggler policy stopped waiting for (still running)."""
    started = time.perf_counter()
    jobs = {
        name: _answer(ctx.providers[name], question_for(ctx, ctx.providers[name]), ctx.params_for(ctx.providers[name]),
                      ctx.budget, ctx)
        for name in ctx.plan.members
    }

    def report(name: str, record: AnswerRecord) -> None:
        if ctx.listening:
            ctx.emit(AnswerEvent(ctx.run_id, answer_event_data(record)))

    cut = ctx.straggler_cut(len(jobs))
    gathered = await gather_until(jobs, ctx.config.stages.stage_deadline_s, report, cut,
                                  succeeded=lambda record: record.status == "ok")
    records = list(gathered.finished.values())
    missing = missing_calls("answer", gathered.timed_out, list(gathered.late), ctx.config.stages.stage_deadline_s,
                            cut, gathered.cut_after_s)
    for name, failure in missing:
        provider = ctx.providers[name]
        record = AnswerRecord(member=name, model=provider.member.model, provider=provider.name, status="failed",
                              error=failure, latency_ms=elapsed_ms(started), simulated=provider.simulated)
        report(name, record)
        records.append(record)
    late = [LateCall("answer", name, call) for name, call in gathered.late.items()]
    return ordered(records, ctx.plan.members, key=lambda r: r.member), late


def member_failures(answers: list[AnswerRecord]) -> str | None:
    """The members that gave no answer, with why, as a reason the run is degraded; None when all answered."""
    failed = [f"{a.member} ({a.error.reason})" for a in answers
              if a.status == "failed" and a.error and a.error.reason != "late"]
    return f"members failed: {', '.join(failed)}" if failed else None


def quorum_problem(answers: list[AnswerRecord], members: int, quorum: int) -> str | None:
    """Why the run cannot go on (too few members answered), or None.

    Blocked answers, and structured ones that did not validate or were refused, count toward the quorum:
    the quorum is about members being reachable.
    """
    answered = sum(a.status != "failed" or (a.error is not None and a.error.reason in _REACHED) for a in answers)
    needed = min(quorum, members)
    if answered < needed:
        return f"quorum not met: {answered} of {members} members answered, {needed} needed"
    return None


#: Failures of a member that answered: it was reached, and what it said was not a usable answer.
_REACHED = frozenset({"invalid_output", "refused"})


def no_valid_output(answers: list[AnswerRecord]) -> str | None:
    """Why a structured run has no candidate at all (every answer failed to validate or refused), or None."""
    if any(a.status != "failed" for a in answers):
        return None
    why = "; ".join(f"{a.member}: {a.error.message}" for a in answers if a.error is not None)
    return f"no member produced a valid answer for the schema ({why})"


def survivor_problem(surviving: list[AnswerRecord]) -> str | None:
    """Why too few answers passed the safety gate for a full review, or None when three or more did."""
    if not surviving:
        return "every answer was blocked by the safety gate"
    if len(surviving) == 1:
        return f"only one answer survived ({surviving[0].member}): no review"
    if len(surviving) == 2:
        return "only two answers survived: each was reviewed by the other, scores not normalized"
    return None
