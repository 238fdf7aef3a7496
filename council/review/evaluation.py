"""The evaluator prompt: a template of ``prompts/`` filled in, and read back by simulated members.

Two templates (:data:`TEMPLATES`):

- ``council`` (the default), ``prompts/evaluator.md``: Council's own. The
  candidate answer is untrusted text and so, for a judge, are the task, the
  reference and the context: each goes into a block whose markers carry a
  random nonce, exactly as the review prompt fences answers (see
  :mod:`council.review.prompt`), and a sample's rubric notes have a slot.
- ``spec``, ``prompts/evaluator_spec.md``: the evaluation spec's exact
  template, reproduced word for word for runs that must score as other tools
  following the spec do. Its inputs are pasted in plain, unfenced (the spec
  says so), and it has no slot for rubric notes.

A template is used word for word: :func:`render_evaluation_prompt` only
substitutes its placeholders, in one pass (so a ``{nonce}`` or ``{{task}}``
written inside an answer stays literal), and every run records the hash of
the template it used (:func:`council.assets.prompt_hash`). The whole prompt
is one user message, so a retry can resend exactly the same messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from council.assets import load_prompt
from council.review.sandbox import fence, new_nonce, render_prompt
from council.types import ChatMessage

TEMPLATE = "evaluator.md"
SPEC_TEMPLATE = "evaluator_spec.md"
#: Evaluator templates by the name ``council eval --evaluator-template`` takes.
TEMPLATES = {"council": TEMPLATE, "spec": SPEC_TEMPLATE}
_SPEC_SLOTS = re.compile(r"\{\{(task|reference_answer|provided_context|candidate_answer)\}\}")
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
    template: str = "council",
) -> list[ChatMessage]:
    """The evaluator's messages for one candidate answer, in the template named ``template`` (:data:`TEMPLATES`).

    ``nonce`` is drawn fresh (absent from every input) unless given; a caller
    that retries must resend the returned messages, not render them again.
    The ``spec`` template has no rubric input: ``rubric`` is not sent with it.
    """
    if template == "spec":
        plain = {"task": task_text(task), "reference_answer": reference_answer,
                 "provided_context": provided_context, "candidate_answer": candidate_answer}
        texts = {name: NOT_GIVEN if value is None or not value.strip() else value for name, value in plain.items()}
        content = _SPEC_SLOTS.sub(lambda slot: texts[slot.group(1)], load_prompt(SPEC_TEMPLATE))
        return [ChatMessage(role="user", content=content)]
    if template not in TEMPLATES:
        raise ValueError(f"unknown evaluator template {template!r}; templates: {', '.join(TEMPLATES)}")
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
            return _read_spec_task(content)
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


def _read_spec_task(content: str) -> EvaluationTask | None:
    """What a prompt in the spec's template asks, or None. Its inputs are not fenced: each runs to the next
    input's label, so an input that writes such a label itself is read short (simulation only needs the gist)."""
    template = load_prompt(SPEC_TEMPLATE)
    head, _, rest = template.partition("{{task}}")
    tail = rest.rpartition("{{candidate_answer}}")[2]
    if not content.startswith(head) or not content.endswith(tail):
        return None
    body = content[len(head):len(content) - len(tail)]
    task, found, body = body.partition("\n- reference_answer: ")
    reference, found2, body = body.partition("\n- provided_context: ")
    context, found3, candidate = body.partition("\n- candidate_answer: ")
    if not (found and found2 and found3):
        return None

    def given(text: str) -> str | None:
        return None if text == NOT_GIVEN else text

    return EvaluationTask(nonce="", task=task, reference_answer=given(reference), provided_context=given(context),
                          rubric=None, candidate_answer=candidate)
