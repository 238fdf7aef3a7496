"""The built-in simulated council: members that play every role offline, so Council runs with no key.

:mod:`.personas` writes answers, reviews, evaluator verdicts and chairman
syntheses from a member's persona, and :mod:`.chat_tasks` the JSON a chat
app's side tasks ask for; :func:`behaviour_for` recognizes which
role a conversation asks for (by reading the council's own prompts back) and
hands the result to :class:`~council.providers.simulated.SimulatedProvider`,
which knows none of this. Knows no HTTP, no storage and no run.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from __future__ import annotations

from council.config import MemberConfig
from council.providers.simulated import SimulatedBehaviour
from council.review.chairman import read_chairman_task
from council.review.evaluation import read_evaluation_task
from council.review.prompt import read_review_task
from council.review.revision import read_revision_task
from council.side_tasks import side_task_kind
from council.simulation.chat_tasks import write_side_task
from council.simulation.personas import (
    Persona,
    judge_quality,
    persona_for,
    write_answer,
    write_evaluation,
    write_review,
    write_revision,
    write_synthesis,
)
from council.types import ChatMessage


def behaviour_for(member: MemberConfig) -> SimulatedBehaviour:
    """How the simulated ``member`` replies: in its persona, in whatever role the conversation asks of it."""
    persona = persona_for(member)

    def reply(messages: list[ChatMessage]) -> str:
        if (review := read_review_task(messages)) is not None:
            return write_review(persona, review, member.name)
        if (revision := read_revision_task(messages)) is not None:
            return write_revision(persona, revision, member.name)
        if (evaluation := read_evaluation_task(messages)) is not None:
            return write_evaluation(persona, evaluation, member.name)
        if (synthesis := read_chairman_task(messages)) is not None:
            return write_synthesis(synthesis)
        last = next((m.content for m in reversed(messages) if m.role == "user"), "")
        if (kind := side_task_kind(last)) is not None:
            return write_side_task(kind, last)
        return write_answer(persona, messages, member.name)

    return SimulatedBehaviour(reply, persona.latency_ms)


__all__ = ["Persona", "behaviour_for", "judge_quality", "persona_for"]
