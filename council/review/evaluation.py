"""The evaluator prompt: ``prompts/evaluator.md`` filled in, and read back by simulated members.

The template is used word for word: :func:`render_evaluation_prompt` only
substitutes its placeholders, in one pass (so a ``{nonce}`` written inside an
answer stays literal), and every run records the template's hash
(:data:`TEMPLATE`, :func:`council.assets.prompt_hash`).

The candidate answer is untrusted text and so, for a judge, are the task,
the reference and the context: each goes into a block whose markers carry a
random nonce, exactly as the review prompt fences answers (see
:mod:`council.review.prompt`). The whole prompt is one user message, so a
retry can resend exactly the same messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from council.review.sandbox import fence, new_nonce, render_prompt
from council.types import ChatMessage

TEMPLATE = "evaluator.md"
PROTOCOL = "council-eval/1"
NOT_GIVEN = "(not given)"
INPUTS = ("task", "reference_answer", "provided_context", "rubric", "candidate_answer")


@dataclass(frozen=True)
class EvaluationTask:
    """What an evaluator prompt asks about, as read back by :func:`read_evaluation_task`.

    Texts come back neutralized (as the evaluator saw them); inputs that were
    not given are None.
    """

    nonce: str
    task: str
    reference_answer: str | None
    provided_context: str | None
    rubric: str | None
    candidate_answer: str


def task_text(task: str | list[ChatMessage]) -> str:
    """A task as the evaluator reads it: the question, or the conversation one turn per paragraph."""
    if isinstance(task, str):
        return task
    if len(task) == 1 and task[0].role == "user":
        return task[0].content
    return "\n\n".join(f"{m.role}: {m.content}" for m in task)


def render_evaluation_prompt(
    task: str | list[ChatMessage],
    candidate_answer: str,
    *,
    reference_answer: str | None = None,
    provided_context: str | None = None,
    rubric: str | None = None,
    nonce: str | None = None,
) -> list[ChatMessage]:
    """The evaluator's messages for one candidate answer.

    ``nonce`` is drawn fresh (absent from every input) unless given; a caller
    that retries must resend the returned messages, not render them again.
    """
    values = {
        "task": task_text(task),
        "reference_answer": reference_answer,
        "provided_context": provided_context,
        "rubric": rubric,
        "candidate_answer": candidate_answer,
    }
    texts = {name: NOT_GIVEN if value is None or not value.strip() else value for name, value in values.items()}
    nonce = nonce or new_nonce(texts.values())
    filled = {name: fence(name, "", text, nonce) for name, text in texts.items()}
    content = render_prompt(TEMPLATE, {**filled, "nonce": nonce})
    return [ChatMessage(role="user", content=content)]


def read_evaluation_task(messages: list[ChatMessage]) -> EvaluationTask | None:
    """Read back what a prompt from :func:`render_evaluation_prompt` asks; None for any other conversation.

    Simulated and scripted members use it to answer an evaluator prompt as a
    real model would. Never raises.
    """
    try:
        if not messages or messages[0].role != "user":
            return None
        content = messages[0].content
        if f"Evaluation protocol: {PROTOCOL}." not in content:
            return None
        # The first marker sits in the trusted instructions, before any input is quoted.
        marker = re.search(r"carry the marker ([0-9a-f]{8,64});", content)
        if marker is None:
            return None
        nonce = marker.group(1)
        found: dict[str, str | None] = {}
        for name in INPUTS:
            block = re.search(f'<<{name} nonce="{nonce}">>\\n(.*?)\\n<</{name} nonce="{nonce}">>', content, re.S)
            if block is None:
                return None
            found[name] = None if block.group(1) == NOT_GIVEN else block.group(1)
        if found["task"] is None or found["candidate_answer"] is None:
            return None
        return EvaluationTask(nonce=nonce, task=found["task"], reference_answer=found["reference_answer"],
                              provided_context=found["provided_context"], rubric=found["rubric"],
                              candidate_answer=found["candidate_answer"])
    except Exception:
        return None
