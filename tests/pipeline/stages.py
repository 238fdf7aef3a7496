"""Building a run context for one stage: simulated members answering through plain reply functions, no HTTP."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from council.config import CouncilConfig, RetryPolicy
from council.events import StageEvent
from council.pipeline.context import RunContext
from council.pipeline.plan import RunPlan
from council.providers.simulated import ReplyWriter, SimulatedBehaviour, SimulatedProvider
from council.result import AnswerRecord, CouncilResult, Reproducibility
from council.review.prompt import read_review_task
from council.rubrics import load_rubric
from council.testing.scripted import honest_ballot
from council.types import ChatMessage

QUESTION = [ChatMessage(role="user", content="What is six times seven?")]


def quality(text: str) -> int:
    match = re.search(r"quality=(\d+)", text)
    return int(match.group(1)) if match else 1


def member(answer: str) -> ReplyWriter:
    """A member that answers ``answer`` and reviews honestly by the ``quality=N`` in each answer."""
    def reply(messages: list[ChatMessage]) -> str:
        task = read_review_task(messages)
        return honest_ballot(task, quality) if task is not None else answer
    return reply


def context(
    replies: dict[str, ReplyWriter | SimulatedBehaviour],
    *,
    chairman: str | None = None,
    rubric: str = "default",
    rounds: int = 1,
    **sections: object,
) -> tuple[RunContext, list[StageEvent]]:
    """A run context over simulated members with these reply functions, and the list its events go to."""
    raw: dict[str, object] = {
        "members": [{"name": name, "provider": "simulated", "model": f"sim-{name}"} for name in replies],
        "chairman": chairman, "stages": {"stage_deadline_s": 5, "member_timeout_s": 5}, **sections}
    config = CouncilConfig.model_validate(raw)
    behaviours = {name: reply if isinstance(reply, SimulatedBehaviour) else SimulatedBehaviour(reply)
                  for name, reply in replies.items()}
    providers = {m.name: SimulatedProvider(m, behaviour=behaviours[m.name], retry=RetryPolicy(), deadline_s=5)
                 for m in config.members}
    chosen = load_rubric(rubric, quiet=True)
    result = CouncilResult(run_id="run-1", created_at=datetime.now(UTC), question=QUESTION, reproducibility=(
        Reproducibility(config_hash="c", prompt_hashes={}, rubric_id=chosen.id, rubric_version=chosen.version,
                        rubric_hash="h", shuffle_seed=7, aggregation_method="calibrated", package_version="test")))
    events: list[StageEvent] = []
    plan = RunPlan(messages=tuple(QUESTION), members=tuple(replies), chairman=chairman, rubric=chosen, rounds=rounds)
    return RunContext(plan, config, providers, result, events.append, 7), events


def answer(name: str, text: str, status: str = "ok") -> AnswerRecord:
    """A finished answer record, as Stage 1 leaves it."""
    return AnswerRecord(member=name, model=f"sim-{name}", provider="simulated", content=text, status=status,
                        simulated=True)
