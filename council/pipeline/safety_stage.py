"""The safety gate: between Stage 1 and review, failing answers are set aside visibly.

Every answer goes through the pattern checks of :mod:`council.safety.gate`. When
``safety.llm_member`` is set, answers that pass the patterns are also shown
to that member acting as a classifier. A failing answer is marked
``blocked`` with its category and evidence; it is never reviewed or ranked.
A classifier that fails to answer does not block anything: its failure is
noted on the verdict instead.
"""

from __future__ import annotations

import json
import re
import time

from council.errors import ProviderError
from council.pipeline.budget import RunBudget, complete
from council.pipeline.context import RunContext, elapsed_ms, gather_until
from council.pipeline.progress import RunSoFar
from council.pipeline.review_stage import mark_oversized
from council.providers import Provider
from council.result import AnswerRecord, SafetyGateSummary
from council.review.sandbox import fence, new_nonce, render_prompt
from council.safety.gate import SafetyFinding, SafetyVerdict, check_answer
from council.types import ChatMessage

SAFETY_PROMPT = "safety_system.md"
_JSON_OBJECT = re.compile(r"\{[^{}]*\}")


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


async def _classify(classifier: Provider, answer: str, verdict: SafetyVerdict,
                    budget: RunBudget | None = None) -> SafetyVerdict:
    messages = classifier_messages(answer)
    note = None
    try:
        completion = await complete(budget, classifier, messages, None, f"the safety check by {classifier.member.name}")
        llm_verdict = parse_classifier_reply(completion.content, classifier.member.name)
        if llm_verdict is not None:
            return llm_verdict.model_copy(update={"notes": [*verdict.notes, *llm_verdict.notes],
                                                  "usage": completion.usage})
        note = f"LLM check by {classifier.member.name} gave no usable verdict"
        return verdict.model_copy(update={"notes": [*verdict.notes, note], "usage": completion.usage})
    except ProviderError as error:
        note = f"LLM check by {classifier.member.name} failed: {error.reason}"
    return verdict.model_copy(update={"notes": [*verdict.notes, note]})


async def apply_safety_gate(ctx: RunContext, answers: list[AnswerRecord]) -> list[AnswerRecord]:
    """Check every answer; blocked ones keep their text but leave review and ranking."""
    if not ctx.config.safety.enabled:
        return answers
    started = time.perf_counter()
    checked: dict[str, SafetyVerdict] = {}
    for answer in answers:
        if answer.status == "ok" and answer.content is not None:
            checked[answer.member] = check_answer(answer.content)
    classifier_name = ctx.config.safety.llm_member
    if classifier_name is not None and classifier_name in ctx.providers:
        classifier = ctx.providers[classifier_name]
        by_member = {a.member: a for a in answers}
        jobs = {
            member: _classify(classifier, by_member[member].content or "", verdict, ctx.budget)
            for member, verdict in checked.items()
            if verdict.passed
        }
        remaining_s = max(ctx.config.stages.stage_deadline_s - elapsed_ms(started) / 1000, 0.1)
        gathered = await gather_until(jobs, remaining_s, lambda _n, _v: None)
        checked.update(gathered.finished)
        for member in gathered.timed_out:
            checked[member] = checked[member].model_copy(
                update={"notes": [*checked[member].notes, "LLM check missed the stage deadline"]}
            )
    gated = []
    for answer in answers:
        verdict = checked.get(answer.member)
        if verdict is None:
            gated.append(answer)
            continue
        status = answer.status if verdict.passed else "blocked"
        gated.append(answer.model_copy(update={"safety": verdict, "status": status}))
        ctx.emit("safety", member=answer.member, passed=verdict.passed,
                 findings=[f.model_dump() for f in verdict.findings], notes=list(verdict.notes))
    return gated


async def safety_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """The safety gate in the run; the answers that pass and are too long for reviewers record their length."""
    gated = await apply_safety_gate(ctx, list(so_far.answers))
    summary = SafetyGateSummary.of(gated) if ctx.config.safety.enabled else None
    return so_far.then(answers=tuple(mark_oversized(gated, ctx.config.review.max_answer_chars)), safety_gate=summary)
