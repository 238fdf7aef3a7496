"""What a call to a member is for, read from the conversation it was sent: answer, review, chairman, ...

A provider is asked for a completion and is never told why: the stage is
in the prompt. Council's own prompts say what they are (a review prompt
names its protocol, the chairman's opens with its template's first line),
and :func:`read_call` reads that back, with the task the prompt sets (the
candidates of a review, the answers a chairman merges), for members that
play a role offline: the simulated personas and the members a user's
function writes (:mod:`council.simulation.function_member`).

It also holds the names those functions see: :class:`CallInfo`, the
:data:`CallStage` values and :class:`FunctionReply`. Knows prompts, never
providers' transports, runs or storage.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from council.assets import load_prompt
from council.review.chairman import ChairmanTask, read_chairman_task
from council.review.evaluation import EvaluationTask, read_evaluation_task
from council.review.prompt import ReviewTask, read_review_task
from council.review.revision import RevisionTask, read_revision_task
from council.side_tasks import SideTaskKind, side_task_kind
from council.types import ChatMessage, Usage

CallStage = Literal["answer", "safety", "review", "revision", "chairman", "feedback", "evaluation", "side_task"]
"""What a call asks of a member.

``answer``: the user's question (also a chat client's call to one member).
``safety``: the LLM safety classifier's check of one answer (``safety.llm_member``).
``review``: a ballot on the others' anonymized answers (a judge's too, and the retry after a bad ballot).
``revision``: a second round's look at its own answer (``review.rounds: 2``).
``chairman``: the final answer from the ranked ones.
``feedback``: the chairman's feedback on an answer :func:`~council.judge_answer` scored.
``evaluation``: an evaluator's verdict (``council eval``, :func:`~council.evaluate_target`).
``side_task``: a chat app's side task (a title, tags, follow-ups), sent to the server's task model.
"""

# The templates are named where the pipeline renders them (council.pipeline, a layer above this one).
_OPENINGS: tuple[tuple[CallStage, str], ...] = (("safety", "safety_system.md"), ("feedback", "feedback_system.md"))

Task = ReviewTask | RevisionTask | EvaluationTask | ChairmanTask | None


@dataclass(frozen=True)
class CallInfo:
    """What a reply function is told about the call besides the messages: who is asked, and for what."""

    member: str
    stage: CallStage


@dataclass(frozen=True)
class FunctionReply:
    """A reply with more than its text: the usage and finish reason a model would report.

    A reply function may return one instead of a string; what it leaves
    unset is filled as for a string (a token a word, ``stop``).
    """

    text: str
    usage: Usage | None = None
    finish_reason: str | None = None


ReplyFunction = Callable[[list[ChatMessage], CallInfo], str | FunctionReply | Awaitable[str | FunctionReply]]
"""A member's replies: given the messages it was sent and the :class:`CallInfo`, its reply text; sync or async."""


@dataclass(frozen=True)
class ReadCall:
    """A call as read from its messages: its stage and, for Council's own prompts, the task they set."""

    stage: CallStage
    task: Task = None
    side_task: SideTaskKind | None = None


def _opens_with(messages: list[ChatMessage], template: str) -> bool:
    opening = load_prompt(template).splitlines()[0]
    return bool(messages) and messages[0].role == "system" and messages[0].content.startswith(opening)


def read_call(messages: list[ChatMessage]) -> ReadCall:
    """The stage ``messages`` are for, read from Council's prompts; anything else is an ``answer``.

    The order matters only for a conversation that quotes another prompt:
    the protocol-carrying ones (review, revision) are read first.
    """
    if (review := read_review_task(messages)) is not None:
        return ReadCall("review", review)
    if (revision := read_revision_task(messages)) is not None:
        return ReadCall("revision", revision)
    if (evaluation := read_evaluation_task(messages)) is not None:
        return ReadCall("evaluation", evaluation)
    if (synthesis := read_chairman_task(messages)) is not None:
        return ReadCall("chairman", synthesis)
    for stage, template in _OPENINGS:
        if _opens_with(messages, template):
            return ReadCall(stage)
    if (kind := side_task_kind(last_user_text(messages))) is not None:
        return ReadCall("side_task", side_task=kind)
    return ReadCall("answer")


def last_user_text(messages: list[ChatMessage]) -> str:
    """The text of the last user message ('' when there is none): the question, for an answer."""
    return next((m.content for m in reversed(messages) if m.role == "user"), "")


__all__ = ["CallInfo", "CallStage", "FunctionReply", "ReadCall", "ReplyFunction", "last_user_text", "read_call"]
