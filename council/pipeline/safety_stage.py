"""The safety gate: between Stage 1 and review, failing answers are set aside visibly.

Every answer goes through the pattern checks of :mod:`council.safety.gate`.
Answers that pass the patterns then get a second check, when one is
configured (``safety.moderation``): a moderation API
(:mod:`council.safety.moderation`: OpenAI's endpoint, or Llama Guard on an
OpenAI-compatible server) or a member acting as a classifier
(``moderation.member``, also spelt ``safety.llm_member``). The checks run
concurrently within the stage deadline, and each is recorded on its answer
(``moderation``: verdict, categories, latency, usage, cost).

A failing answer is marked ``blocked`` with its category and evidence; it is
never reviewed or ranked. A second check that fails (timeout, 5xx, a reply it
cannot read, the budget) blocks nothing: the pattern verdict stands, a note on
the verdict says why, and for a moderation API the run is marked degraded.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Mapping

from council.config import CouncilConfig
from council.errors import ProviderError
from council.events import SafetyEvent
from council.pipeline.budget import RunBudget, complete, prompt_tokens_bound
from council.pipeline.context import RunContext, elapsed_ms, gather_until
from council.pipeline.cost import priced, usd_of
from council.pipeline.payloads import safety_event_data
from council.pipeline.progress import RunSoFar
from council.pipeline.review_stage import mark_oversized
from council.providers import Provider
from council.result import AnswerRecord, SafetyGateSummary
from council.review.sandbox import fence, new_nonce, render_prompt
from council.safety.gate import SafetyFinding, SafetyVerdict, check_answer
from council.safety.manipulation import find_manipulation
from council.safety.moderation import ModerationCheck, Moderator, check_record, judged
from council.types import ChatMessage, Usage

SAFETY_PROMPT = "safety_system.md"
_JSON_OBJECT = re.compile(r"\{[^{}]*\}")
Checked = tuple[SafetyVerdict, ModerationCheck]


def parse_classifier_reply(text: str, member: str) -> SafetyVerdict | None:
    """The classifier's verdict, or None when its reply is unusable."""
    for match in reversed(_JSON_OBJECT.findall(text)):
        try:
            data = json.loads(match)
        except ValueError:
            continue
        if not isinstance(data, dict) or not isinstance(data.get("safe"), bool):
            continue
        if data["safe"]:
            return SafetyVerdict(passed=True, checker=f"patterns+llm:{member}")
        category = data.get("category") if isinstance(data.get("category"), str) else "unspecified"
        evidence = str(data.get("evidence") or "")[:120]
        finding = SafetyFinding(category=category, rule=f"llm.{member}", evidence=evidence)
        return SafetyVerdict(passed=False, findings=[finding], checker=f"patterns+llm:{member}")
    return None


def classifier_messages(answer: str) -> list[ChatMessage]:
    """The LLM safety classifier's prompt: its instructions, and the answer fenced with a fresh nonce."""
    nonce = new_nonce([answer])
    return [
        ChatMessage(role="system", content=render_prompt(SAFETY_PROMPT, {"nonce": nonce})),
        ChatMessage(role="user", content=fence("answer", "", answer, nonce)),
    ]


def _noted(verdict: SafetyVerdict, note: str, usage: Usage | None = None) -> SafetyVerdict:
    update: dict[str, object] = {"notes": [*verdict.notes, note]}
    if usage is not None:
        update["usage"] = usage
    return verdict.model_copy(update=update)


async def _classify(classifier: Provider, answer: str, verdict: SafetyVerdict,
                    budget: RunBudget | None = None) -> Checked:
    name, started = classifier.member.name, time.perf_counter()
    base = {"checker": f"llm:{name}", "model": classifier.member.model}
    try:
        completion = await complete(budget, classifier, classifier_messages(answer), None,
                                    f"the safety check by {name}")
    except ProviderError as error:
        return (_noted(verdict, f"LLM check by {name} failed: {error.reason}"),
                ModerationCheck(**base, status="failed", latency_ms=elapsed_ms(started), attempts=error.attempts,
                                error=f"{error.reason}: {error}"))
    usd = usd_of(completion.usage, classifier.member.price)
    timing = {"latency_ms": completion.latency_ms, "attempts": completion.attempts, "usage": completion.usage,
              "usd": usd}
    llm_verdict = parse_classifier_reply(completion.content, name)
    if llm_verdict is None:
        return (_noted(verdict, f"LLM check by {name} gave no usable verdict", completion.usage),
                ModerationCheck(**base, status="failed", error="protocol: no usable verdict", **timing))
    categories = sorted({f.category for f in llm_verdict.findings})
    return (llm_verdict.model_copy(update={"notes": [*verdict.notes, *llm_verdict.notes], "usage": completion.usage}),
            ModerationCheck(**base, status="ok", flagged=not llm_verdict.passed, categories=categories, **timing))


async def _moderate(moderator: Moderator, question: str, answer: str, verdict: SafetyVerdict,
                    budget: RunBudget | None) -> Checked:
    price, started = moderator.config.price, time.perf_counter()
    bound, usd, reserved = 0.0, None, False
    try:
        if budget is not None and price is not None:
            messages = [ChatMessage(role="user", content=question), ChatMessage(role="assistant", content=answer)]
            most = Usage(prompt_tokens=prompt_tokens_bound(messages), completion_tokens=moderator.max_output_tokens)
            bound = priced(most, price)
            budget.reserve(bound, f"the moderation check ({moderator.checker})", moderator.model)
            reserved = True
        judgement, latency_ms, attempts = await moderator.judge(question, answer)
        usd = usd_of(judgement.usage, price)
    except ProviderError as error:
        note = f"moderation check ({moderator.checker}) failed: {error.reason}; the pattern verdict stands"
        return _noted(verdict, note), ModerationCheck(
            checker=moderator.checker, model=moderator.model, status="failed", latency_ms=elapsed_ms(started),
            attempts=error.attempts, error=f"{error.reason}: {error}")
    finally:
        if reserved and budget is not None:
            budget.release(bound, usd)
    record = check_record(moderator.provider, moderator.model, judgement, latency_ms, attempts, usd)
    return judged(verdict, moderator.provider, judgement), record


def _question_text(ctx: RunContext) -> str:
    return next((m.content for m in reversed(ctx.plan.messages) if m.role == "user"), "")


def _second_checks(config: CouncilConfig, providers: Mapping[str, Provider], moderator: Moderator | None,
                   question: str, answers: dict[str, str], checked: dict[str, SafetyVerdict],
                   budget: RunBudget | None) -> tuple[str | None, dict[str, Awaitable[Checked]]]:
    """Who checks after the patterns, and one check per answer that passed them."""
    passed = {member: verdict for member, verdict in checked.items() if verdict.passed}
    if config.safety.moderation_provider is not None and moderator is not None:
        return moderator.checker, {member: _moderate(moderator, question, answers[member], verdict, budget)
                                   for member, verdict in passed.items()}
    name = config.safety.llm_member
    if name is not None and name in providers:
        classifier = providers[name]
        return f"llm:{name}", {member: _classify(classifier, answers[member], verdict, budget)
                               for member, verdict in passed.items()}
    return None, {}


async def check_texts(config: CouncilConfig, texts: dict[str, str], *, question: str,
                      providers: Mapping[str, Provider], moderator: Moderator | None = None,
                      budget: RunBudget | None = None) -> tuple[dict[str, SafetyVerdict], dict[str, ModerationCheck]]:
    """The safety gate's verdict on each text (by its key), and each second check's record.

    The patterns, then the configured second check on what they passed,
    within the stage deadline; whether the gate is on at all is the
    caller's to ask (``safety.enabled``). A council run and a rubric scoring
    an answer outside one (:meth:`Council.check_safety`) use this same gate.
    """
    started = time.perf_counter()
    allow = config.safety.pii_allow_example_ssns
    checked = {key: check_answer(text, allow_example_ssns=allow) for key, text in texts.items()}
    records: dict[str, ModerationCheck] = {}
    checker, jobs = _second_checks(config, providers, moderator, question, texts, checked, budget)
    if jobs:
        remaining_s = max(config.stages.stage_deadline_s - elapsed_ms(started) / 1000, 0.1)
        gathered = await gather_until(jobs, remaining_s, lambda _n, _v: None)
        for member, (verdict, record) in gathered.finished.items():
            checked[member], records[member] = verdict, record
        what = "LLM check" if checker is not None and checker.startswith("llm:") else f"moderation check ({checker})"
        for member in gathered.timed_out:
            checked[member] = _noted(checked[member], f"{what} missed the stage deadline")
            records[member] = ModerationCheck(checker=checker or "", model="", status="failed",
                                              latency_ms=elapsed_ms(started), error="deadline: missed the stage "
                                                                                     "deadline")
    return checked, records


async def apply_safety_gate(ctx: RunContext, answers: list[AnswerRecord]) -> list[AnswerRecord]:
    """Check every answer; blocked ones keep their text but leave review and ranking."""
    if not ctx.config.safety.enabled:
        return answers
    texts = {a.member: a.content for a in answers if a.status == "ok" and a.content is not None}
    checked, records = await check_texts(ctx.config, texts, question=_question_text(ctx), providers=ctx.providers,
                                         moderator=ctx.moderator, budget=ctx.budget)
    gated = []
    for answer in answers:
        final = checked.get(answer.member)
        if final is None:
            gated.append(answer)
            continue
        status = answer.status if final.passed else "blocked"
        gated.append(answer.model_copy(update={"safety": final, "status": status,
                                               "moderation": records.get(answer.member)}))
        if ctx.listening:
            ctx.emit(SafetyEvent(ctx.run_id, safety_event_data(answer.member, final)))
    return gated


def moderation_problems(ctx: RunContext, gated: list[AnswerRecord]) -> str | None:
    """Why the run is degraded by its moderation API: the answers it could not check, or None."""
    provider = ctx.config.safety.moderation_provider
    if not ctx.config.safety.enabled or provider is None:
        return None
    if ctx.moderator is None:
        return "safety.moderation is configured but the run has no moderation client: only the patterns checked"
    failed = [a for a in gated if a.moderation is not None and a.moderation.status == "failed"]
    if not failed:
        return None
    reasons = sorted({(a.moderation.error or "failed").split(":")[0] for a in failed if a.moderation is not None})
    return (f"moderation check (moderation:{provider.provider}) failed for {', '.join(a.member for a in failed)} "
            f"({', '.join(reasons)}): the pattern verdict stands for them")


async def safety_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """The safety gate in the run; the answers that pass and are too long for reviewers record their length."""
    gated = await apply_safety_gate(ctx, list(so_far.answers))
    summary = SafetyGateSummary.of(gated) if ctx.config.safety.enabled else None
    if ctx.config.safety.enabled:
        gated = flag_manipulation(gated)
    return so_far.then(answers=tuple(mark_oversized(gated, ctx.config.review.max_answer_chars)), safety_gate=summary,
                       degraded=tuple(reason for reason in (moderation_problems(ctx, gated),
                                                            manipulation_problem(gated)) if reason))


def flag_manipulation(answers: list[AnswerRecord]) -> list[AnswerRecord]:
    """The answers, each that talks to its judges flagged (not blocked: the fencing holds, and it is reviewed)."""
    flagged = []
    for answer in answers:
        found = find_manipulation(answer.content) if answer.status == "ok" and answer.content else []
        flagged.append(answer.model_copy(update={"flags": found}) if found else answer)
    return flagged


def manipulation_problem(answers: list[AnswerRecord]) -> str | None:
    """Which answers addressed the reviewers, as a reason the run is degraded; None when none did."""
    named = [f"{a.member} ({a.flags[0].evidence!r})" for a in answers if a.flags]
    if not named:
        return None
    return (f"answers addressed to the reviewers (evaluator_manipulation): {', '.join(named)}; they were reviewed, "
            "and the chairman was told")
