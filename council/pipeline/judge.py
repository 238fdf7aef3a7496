"""Judging one given answer against a rubric with the council's reviewers.

The same rubric serves a council run and an evaluation: here every member
reviews the one answer (sandboxed as in Stage 2, under the label "Response
A"), automatic criteria are scored by code, and the consensus of the
reviewers becomes a :class:`~council.rubrics.score.RubricVerdict` with
deterministic feedback. With a chairman, the chairman also writes a 3–5
sentence summary; if it fails, the deterministic feedback stands alone.
:func:`judge_target` does the same for a structured target (a JSON object),
with the council's judge decoding each criterion's level.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from council.errors import ProviderError
from council.pipeline.orchestrator import Council
from council.pipeline.review_stage import review_one, with_fixed_scores
from council.pipeline.targets import evaluate_target, target_text
from council.pipeline.verdicts import automatic_review, automatic_scores, with_verdicts
from council.result import AnswerRecord, RankingEntry, ReviewRecord
from council.review.sandbox import fence, neutralize, new_nonce, render_prompt
from council.rubrics.model import Rubric
from council.rubrics.score import RubricVerdict
from council.rubrics.target_evaluation import TargetEvaluation
from council.types import ChatMessage, as_messages

CANDIDATE = "answer"


def feedback_messages(rubric_results: str, answer: str) -> list[ChatMessage]:
    """The chairman's feedback prompt: the rubric results (Council's own text) and the answer, fenced."""
    nonce = new_nonce([answer, rubric_results])
    user = f"Rubric results:\n{neutralize(rubric_results)}\n\nThe answer:\n{fence('answer', '', answer, nonce)}"
    return [ChatMessage(role="system", content=render_prompt("feedback_system.md", {"nonce": nonce})),
            ChatMessage(role="user", content=user)]


async def chairman_summary(council: Council, verdict: RubricVerdict, answer: str) -> tuple[str | None, str | None]:
    """The chairman's short feedback, or (None, None) when there is no chairman or it fails."""
    chairman = council.config.chairman
    if chairman is None:
        return None, None
    try:
        completion = await council.provider(chairman).complete(feedback_messages(verdict.feedback, answer))
    except ProviderError:
        return None, None
    text = completion.content.strip()
    return (text, chairman) if text else (None, None)


async def judge_answer(council: Council, question: str | list[ChatMessage], answer: str,
                          rubric: Rubric | str | None = None) -> RubricVerdict:
    """The council's verdict on ``answer`` to ``question`` against ``rubric`` (default: the configured one)."""
    chosen = council.rubric if rubric is None else await asyncio.to_thread(council.resolve_rubric, rubric)
    messages = as_messages(question if isinstance(question, str) else list(question))
    # The run's own safety gate: an answer it fails is capped at the rubric's safety_cap and cannot pass.
    safety = await council.check_safety(next((m.content for m in reversed(messages) if m.role == "user"), ""), answer)
    record = AnswerRecord(member=CANDIDATE, model="given", provider="given", content=answer)
    fixed, evidence = automatic_scores(chosen, [record], messages)
    reviews: list[ReviewRecord]
    if chosen.llm_criteria():
        jobs = [review_one(council.provider(m), messages, [CANDIDATE], {CANDIDATE: answer}, chosen,
                           council.config.review.retry_on_parse_failure) for m in council.member_names]
        done = await asyncio.wait_for(asyncio.gather(*jobs), timeout=council.config.stages.stage_deadline_s)
        reviews = [with_fixed_scores(r, chosen, fixed) if r.status == "ok" and fixed else r for r in done]
    else:
        reviews = [automatic_review(chosen, [record], fixed)]
    ok = [r for r in reviews if r.status == "ok"]
    entry = RankingEntry(member=CANDIDATE, rank=1, score=0.0, raw_mean=None, n_reviews=len(ok))
    verdict = with_verdicts(chosen, [entry], reviews, fixed, evidence, {CANDIDATE: safety})[0].verdict
    assert verdict is not None
    if not ok:
        verdict = verdict.model_copy(update={"feedback": verdict.feedback + "\n(no reviewer could score the answer)"})
    summary, by = await chairman_summary(council, verdict, answer)
    return verdict.model_copy(update={"summary": summary, "summary_by": by})


async def judge_target(council: Council, rubric: Rubric, target: Mapping[str, Any], *,
                       target_id: str = "") -> TargetEvaluation:
    """The council's evaluation of a structured ``target`` against ``rubric``.

    The chairman (else the first member) decodes each criterion's level,
    and the chairman, when there is one, rewrites the feedback. The run's
    safety gate checks the target first (its strings and numbers, as
    :func:`~council.pipeline.targets.target_text` reads them).
    """
    chairman = council.config.chairman
    judge = chairman or council.member_names[0]
    safety = await council.check_safety("", target_text(target))
    return await evaluate_target(rubric, target, target_id=target_id, decoder=council.provider(judge),
                                 summarizer=council.provider(chairman) if chairman else None,
                                 evaluated_by=f"council:{judge}", safety="off" if safety is None else safety)
