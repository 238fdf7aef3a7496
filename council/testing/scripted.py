"""Scripted council members for the fake LLM server: they answer, review and chair.

A reply function built here reads what each request asks for. A review
prompt gets a ballot scored by ``judge`` (a function of the answer text), a
chairman prompt gets a synthesis, anything else gets the member's answer.
Tests and benchmarks use them to run whole councils over real HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from council.review_prompt import ReviewTask, read_review_task
from council.testing.fake_llm import RecordedRequest
from council.types import ChatMessage

Judge = Callable[[str], int]
CHAIRMAN_PREFIX = "Chairman's synthesis: "


def request_messages(request: RecordedRequest) -> list[ChatMessage]:
    """The request's conversation as council messages."""
    roles = {"system", "user", "assistant"}
    return [ChatMessage(role=m["role"] if m["role"] in roles else "user", content=m["content"])
            for m in request.messages]


def honest_ballot(task: ReviewTask, judge: Judge, notes: str = "") -> str:
    """A well-formed verdict giving every dimension of each answer ``judge(text)``."""
    scores = {c.label: max(1, min(10, judge(c.text))) for c in task.candidates}
    ranking = sorted(scores, key=lambda label: (-scores[label], label))
    evaluations = {label: {**{d: score for d in task.dimension_ids}, "overall": score, "notes": notes}
                   for label, score in scores.items()}
    verdict = json.dumps({"ranking": ranking, "evaluations": evaluations})
    return f"My assessment follows.\n<verdict nonce=\"{task.nonce}\">{verdict}</verdict>"


def is_chairman_prompt(messages: list[ChatMessage]) -> bool:
    """True for the Stage 3 chairman prompt."""
    return bool(messages) and messages[0].role == "system" and messages[0].content.startswith(
        "You are the chairman of a council")


def council_member(
    answer: str | Callable[[RecordedRequest], str],
    judge: Judge | None = None,
    *,
    review: Callable[[ReviewTask, RecordedRequest], str] | None = None,
) -> Callable[[RecordedRequest], str]:
    """A reply function for ``Step(reply=...)`` that plays a full council member."""

    def reply(request: RecordedRequest) -> str:
        messages = request_messages(request)
        task = read_review_task(messages)
        if task is not None:
            if review is not None:
                return review(task, request)
            return honest_ballot(task, judge or (lambda text: min(10, 1 + len(text) // 10)))
        if is_chairman_prompt(messages):
            return CHAIRMAN_PREFIX + request.model
        return answer(request) if callable(answer) else answer

    return reply
