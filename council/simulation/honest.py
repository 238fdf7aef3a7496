"""Council's roles played straight, for members whose answers are scripted: ballots, decisions, verdicts.

A test scripts what its members answer; the rest of a run (reviews, a
second look, the safety check, the chairman) should just work. This module
writes those replies in the forms Council's parsers read: a ballot that
scores each answer by a judge function (:func:`honest_ballot`), a revision
decision (:func:`revision_reply`), an evaluator's verdict
(:func:`strict_verdict`), and :func:`plays_every_role`, a whole reply
function built around a scripted answer. The scripted members of the fake
upstream (:mod:`council.testing.scripted`) and
:meth:`FunctionMember.answering <council.simulation.function_member.FunctionMember.answering>`
both use it.

Knows the prompts' tasks (:mod:`council.review`) and the reply forms;
never providers, runs or HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from council.review.chairman import ChairmanTask
from council.review.evaluation import EvaluationTask
from council.review.flags import ADDRESSES_KEY, HARMFUL_KEY, NO_FLAGS, ReviewFlags
from council.review.prompt import ReviewTask
from council.review.revision import RevisionTask
from council.simulation.calls import CallInfo, FunctionReply, ReplyFunction, last_user_text, read_call
from council.simulation.chat_tasks import write_side_task
from council.simulation.personas import score_as_hint, write_synthesis
from council.types import ChatMessage

Judge = Callable[[str], float]
"""Scores an answer's text from 1 (worst) to 10 (best); what is outside is clamped."""

SAFE_VERDICT = json.dumps({"safe": True, "category": None, "evidence": ""})
"""The safety classifier's reply that passes an answer."""


def by_length(text: str) -> int:
    """The default judge: a longer answer scores higher, one point each ten characters, from 1 to 10."""
    return min(10, 1 + len(text) // 10)


Flagger = Callable[[str], ReviewFlags]
"""What a reviewer flags in an answer's text (:mod:`council.review.flags`), when its prompt asks."""


def honest_ballot(task: ReviewTask, judge: Judge, notes: str = "", flag: Flagger | None = None) -> str:
    """A well-formed verdict giving every criterion of each answer ``judge(text)``, on the criterion's own scale.

    A 1-10 criterion gets the score itself; a yes/no one (``true/false``)
    yes from 6; a levelled one the level at that height of its list. When
    the prompt asks for the flags (``safety.council_review``), each entry
    has them: ``flag(text)``'s, or nothing flagged.
    """
    scores = {c.label: max(1, min(10, round(judge(c.text)))) for c in task.candidates}
    texts = {c.label: c.text for c in task.candidates}
    ranking = sorted(scores, key=lambda label: (-scores[label], label))
    evaluations = {label: {**{d: score_as_hint(task.hints.get(d, "1-10"), score) for d in task.dimension_ids},
                           "overall": score, "notes": notes,
                           **(flag_keys(flag(texts[label]) if flag else NO_FLAGS) if task.asks_flags else {})}
                   for label, score in scores.items()}
    verdict = json.dumps({"ranking": ranking, "evaluations": evaluations})
    return f"My assessment follows.\n<verdict nonce=\"{task.nonce}\">{verdict}</verdict>"


def flag_keys(flags: ReviewFlags) -> dict[str, object]:
    """A ballot entry's two flag keys, as a reviewer writes them."""
    return {HARMFUL_KEY: flags.harmful or "no", ADDRESSES_KEY: flags.addresses_reviewers}


def revision_reply(task: RevisionTask, revised: str | None = None, reason: str = "") -> str:
    """A second-round decision in the form the revision parser reads: ``revised`` text, or keep (None)."""
    decision = {"decision": "keep" if revised is None else "revise",
                "reason": reason or ("I stand by my answer." if revised is None else "The critiques were right.")}
    block = f'<revision nonce="{task.nonce}">{json.dumps(decision)}</revision>'
    return block if revised is None else f"{block}\n\n{revised}"


def strict_verdict(accuracy: int, faithfulness: int, rationale: str = "Scripted verdict.") -> str:
    """An evaluator reply in the strict JSON the evaluation parser accepts."""
    return json.dumps({"accuracy_score": accuracy, "faithfulness_score": faithfulness, "rationale": rationale})


def reference_verdict(task: EvaluationTask) -> str:
    """An evaluator's verdict: full marks when the candidate contains the reference answer, else 1 and 2."""
    reference = (task.reference_answer or "").strip().rstrip(".").lower()
    found = not reference or reference in task.candidate_answer.lower()
    return strict_verdict(2 if found else 1, 2, "The reference answer is there." if found else "Partly right.")


def plays_every_role(answer: str | ReplyFunction, judge: Judge | None = None,
                     flag: Flagger | None = None) -> ReplyFunction:
    """A reply function that answers with ``answer`` and plays every other role straight.

    ``answer`` is the text, or a reply function (called for ``answer``
    calls only, the user's question, with their messages). Reviews score
    each answer by ``judge`` (default :func:`by_length`); a second look
    keeps its answer; the safety check passes every answer; the chairman
    gives the top-ranked answer; an evaluator gives full marks when the
    reference answer is in the candidate; a chat app's side task gets the
    JSON it asks for.
    """
    scores = judge or by_length

    def reply(messages: list[ChatMessage], info: CallInfo) -> str | FunctionReply | Awaitable[str | FunctionReply]:
        call = read_call(messages)
        task = call.task
        if isinstance(task, ReviewTask):
            return honest_ballot(task, scores, flag=flag)
        if isinstance(task, RevisionTask):
            return revision_reply(task)
        if isinstance(task, EvaluationTask):
            return reference_verdict(task)
        if isinstance(task, ChairmanTask):
            return write_synthesis(task)
        if call.stage == "safety":
            return SAFE_VERDICT
        if call.stage == "feedback":
            return "The answer was scored against the rubric; the lowest-scored criteria are where it can improve."
        if call.side_task is not None:
            return write_side_task(call.side_task, last_user_text(messages))
        return answer(messages, info) if callable(answer) else answer

    return reply


__all__ = ["SAFE_VERDICT", "Flagger", "Judge", "by_length", "flag_keys", "honest_ballot", "plays_every_role",
           "reference_verdict", "revision_reply", "strict_verdict"]
