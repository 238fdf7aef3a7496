"""Members that play a council's roles offline: the built-in simulated council, and members a function writes.

:mod:`.personas` writes answers, reviews, evaluator verdicts and chairman
syntheses from a member's persona, :mod:`.chat_tasks` the JSON a chat
app's side tasks ask for, and :mod:`.instances` the JSON values a
structured run asks for. :mod:`.calls` recognizes which role a
conversation asks for (by reading the council's own prompts back), and
:func:`behaviour_for` hands the reply to
:class:`~council.providers.simulated.SimulatedProvider`, which knows none of
this. :mod:`.function_member` is the member a user's function writes (a
test double), :mod:`.honest` the roles played straight around a scripted
answer. Knows no HTTP, no storage and no run.

Internal: its modules and names may change in any release; the public API is :mod:`council`
(which offers :class:`FunctionMember` and the names its functions see).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from council.config import MemberConfig
from council.providers.simulated import SimulatedBehaviour, ToolUse
from council.providers.tool_request import FunctionTool, ToolChoice
from council.review.chairman import ChairmanTask
from council.review.evaluation import EvaluationTask
from council.review.prompt import ReviewTask
from council.review.revision import RevisionTask
from council.simulation.calls import CallInfo, CallStage, FunctionReply, ReplyFunction, last_user_text, read_call
from council.simulation.chat_tasks import write_side_task
from council.simulation.function_member import FunctionMember
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
from council.simulation.tool_use import decide, use_tools
from council.types import ChatMessage


def behaviour_for(member: MemberConfig) -> SimulatedBehaviour:
    """How the simulated ``member`` replies: through its function, or in its persona, in the role asked of it."""
    if isinstance(member, FunctionMember):
        return member.behaviour()
    persona = persona_for(member)

    def reply(messages: list[ChatMessage]) -> str:
        call = read_call(messages)
        task = call.task
        if isinstance(task, ReviewTask):
            return write_review(persona, task, member.name)
        if isinstance(task, RevisionTask):
            return write_revision(persona, task, member.name)
        if isinstance(task, EvaluationTask):
            return write_evaluation(persona, task, member.name)
        if isinstance(task, ChairmanTask):
            return write_synthesis(task)
        if call.side_task is not None:
            return write_side_task(call.side_task, last_user_text(messages))
        if (schema := prompted_schema([m.content for m in messages if m.role in ("system", "user")])) is not None:
            # Asked in the prompt for JSON of a schema: write an instance, as a model that read it would.
            return json.dumps(instance_of(schema, f"{member.name}/{topic_of(messages)}"), ensure_ascii=False)
        # A persona writes an answer for anything else, the safety and feedback prompts included.
        return write_answer(persona, messages, member.name)

    def structured(messages: list[ChatMessage], response_format: dict[str, Any]) -> str:
        schema = (response_format.get("json_schema") or {}).get("schema") \
            if response_format.get("type") == "json_schema" \
            else prompted_schema([m.content for m in messages if m.role in ("system", "user")])
        if (decision := decide(schema, messages, f"{member.name}/{topic_of(messages)}",
                               lambda conversation: write_answer(persona, conversation, member.name))) is not None \
                and not isinstance(read_call(messages).task, ChairmanTask):
            return decision
        if isinstance(synthesis := read_call(messages).task, ChairmanTask):
            # The chairman keeps the best-ranked candidate that still validates.
            return next((text for text in synthesis.answers if valid_for(schema, text)),
                        json.dumps(instance_of(schema, f"{member.name}/chairman")))
        return json.dumps(instance_of(schema, f"{member.name}/{topic_of(messages)}"), ensure_ascii=False)

    def tools(messages: list[ChatMessage], offered: Sequence[FunctionTool], choice: ToolChoice) -> ToolUse:
        return use_tools(messages, offered, choice, f"{member.name}/{topic_of(messages)}",
                         lambda conversation: write_answer(persona, conversation, member.name))

    return SimulatedBehaviour(reply, persona.latency_ms, structured, tools)


__all__ = ["CallInfo", "CallStage", "FunctionMember", "FunctionReply", "Persona", "ReplyFunction", "behaviour_for",
           "judge_quality", "persona_for"]
