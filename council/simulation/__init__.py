"""The built-in simulated council: members that play every role offline, so Council runs with no key.

:mod:`.personas` writes answers, reviews, evaluator verdicts and chairman
syntheses from a member's persona, :mod:`.chat_tasks` the JSON a chat
app's side tasks ask for, and :mod:`.instances` the JSON values a
structured run asks for; :func:`behaviour_for` recognizes which
role a conversation asks for (by reading the council's own prompts back) and
hands the result to :class:`~council.providers.simulated.SimulatedProvider`,
which knows none of this. Knows no HTTP, no storage and no run.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from __future__ import annotations

import json
from typing import Any

from council.config import MemberConfig
from council.providers.simulated import SimulatedBehaviour
from council.review.chairman import read_chairman_task
from council.review.evaluation import read_evaluation_task
from council.review.prompt import read_review_task
from council.review.revision import read_revision_task
from council.side_tasks import side_task_kind
from council.simulation.chat_tasks import write_side_task
from council.simulation.instances import instance_of, prompted_schema, valid_for
from council.simulation.personas import (
    Persona,
    judge_quality,
    persona_for,
    topic_of,
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
        if (schema := prompted_schema([m.content for m in messages if m.role in ("system", "user")])) is not None:
            # Asked in the prompt for JSON of a schema: write an instance, as a model that read it would.
            return json.dumps(instance_of(schema, f"{member.name}/{topic_of(messages)}"), ensure_ascii=False)
        return write_answer(persona, messages, member.name)

    def structured(messages: list[ChatMessage], response_format: dict[str, Any]) -> str:
        schema = (response_format.get("json_schema") or {}).get("schema") \
            if response_format.get("type") == "json_schema" \
            else prompted_schema([m.content for m in messages if m.role in ("system", "user")])
        if (synthesis := read_chairman_task(messages)) is not None:
            # The chairman keeps the best-ranked candidate that still validates.
            return next((text for text in synthesis.answers if valid_for(schema, text)),
                        json.dumps(instance_of(schema, f"{member.name}/chairman")))
        return json.dumps(instance_of(schema, f"{member.name}/{topic_of(messages)}"), ensure_ascii=False)

    return SimulatedBehaviour(reply, persona.latency_ms, structured)


__all__ = ["Persona", "behaviour_for", "judge_quality", "persona_for"]
