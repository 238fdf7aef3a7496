"""The straggler policy: once a quorum is in, a stage waits for the rest only so long.

Model latencies are heavy-tailed: one member at its slow tail (a reasoning
model thinking for a minute) would hold every question. With
``stages.straggler_factor`` set, a stage that has its quorum of good results
waits at most that factor times the median time those results took, then
goes on. A member cut this way is recorded as ``late`` (not ``timeout``);
its call keeps running while the run does, and what it returns before the
run ends is stored on its record (checked by the safety patterns first) but
never ranked. At the run's end, calls still running are cancelled.

The rule is data (:class:`StragglerCut`); the waiting is
:func:`council.pipeline.context.gather_until`'s.
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass
from typing import Literal

from council.result import AnswerRecord, CouncilResult, Failure, ReviewRecord
from council.safety.gate import check_answer


@dataclass(frozen=True)
class StragglerCut:
    """When a stage stops waiting: ``factor`` times the median time of the good results, once ``quorum`` are in."""

    factor: float
    quorum: int

    def cut_after_s(self, arrived_s: list[float]) -> float | None:
        """Seconds after the stage's start at which it stops waiting (None: not yet: too few results in)."""
        if len(arrived_s) < max(self.quorum, 1):
            return None
        return self.factor * statistics.median(arrived_s)


@dataclass(frozen=True)
class LateCall:
    """A call cut by the policy and still running: the answer or review it may yet deliver."""

    kind: Literal["answer", "review"]
    name: str
    call: asyncio.Future[AnswerRecord] | asyncio.Future[ReviewRecord]


def late_failure(what: str, waited_s: float, cut: StragglerCut) -> Failure:
    """Why a member's answer or review was not waited for."""
    return Failure(reason="late", message=f"not waited for: the stage went on after {waited_s:.2f}s, "
                                          f"{cut.factor:g}x the median time of the {what} already in")


def missing_calls(what: str, timed_out: list[str], late: list[str], deadline_s: float, cut: StragglerCut | None,
                  cut_after_s: float | None) -> list[tuple[str, Failure]]:
    """Why each call that gave nothing in time gave nothing: the stage deadline, or the straggler policy.

    ``what`` is the call's kind, singular (``answer``, ``review``).
    """
    missing = [(name, Failure(reason="timeout", message=f"no {what} by the stage deadline of {deadline_s:g}s"))
               for name in timed_out]
    if cut is not None and cut_after_s is not None:
        missing += [(name, late_failure(f"{what}s", cut_after_s, cut)) for name in late]
    return missing


def late_members(answers: list[AnswerRecord]) -> str | None:
    """The members whose answers were cut as late, as a reason the run is degraded; None when none was."""
    late = [a.member for a in answers if a.error is not None and a.error.reason == "late"]
    return f"members not waited for (straggler policy): {', '.join(late)}" if late else None


def settle_late_calls(result: CouncilResult, late: list[LateCall]) -> set[str]:
    """At the run's end: keep what the late calls delivered (never ranked); cancel the rest.

    Returns the kinds of record that changed (``answer``, ``review``): those must be saved again.
    """
    changed: set[str] = set()
    for call in late:
        if not call.call.done():
            call.call.cancel()
            continue
        if call.call.cancelled() or call.call.exception() is not None:
            continue
        arrived = call.call.result()
        if call.kind == "answer" and isinstance(arrived, AnswerRecord):
            _keep_late_answer(result, arrived)
        elif isinstance(arrived, ReviewRecord):
            _keep_late_review(result, arrived)
        changed.add(call.kind)
    return changed


def _keep_late_answer(result: CouncilResult, arrived: AnswerRecord) -> None:
    for index, record in enumerate(result.answers):
        if record.member != arrived.member or record.error is None or record.error.reason != "late":
            continue
        content = arrived.content if arrived.status == "ok" else None
        note = "" if arrived.status == "ok" else f"; then it failed ({arrived.error.reason if arrived.error else '?'})"
        if content is not None and not check_answer(content).passed:
            content, note = None, "; it arrived, and the safety gate withheld it"
        elif content is not None:
            note = f"; it arrived after {arrived.latency_ms / 1000:.2f}s and is kept here, unranked"
        error = record.error.model_copy(update={"message": record.error.message + note})
        result.answers[index] = record.model_copy(update={
            "content": content, "usage": arrived.usage, "latency_ms": arrived.latency_ms, "error": error})


def _keep_late_review(result: CouncilResult, arrived: ReviewRecord) -> None:
    for index, record in enumerate(result.reviews):
        if record.reviewer != arrived.reviewer or record.error is None or record.error.reason != "late":
            continue
        if arrived.status != "ok":
            why = arrived.error.reason if arrived.error else "?"
            error = record.error.model_copy(update={"message": record.error.message + f"; then it failed ({why})"})
            result.reviews[index] = record.model_copy(update={"error": error})
            continue
        error = record.error.model_copy(update={
            "message": record.error.message + f"; it arrived after {arrived.latency_ms / 1000:.2f}s, unused"})
        result.reviews[index] = arrived.model_copy(update={"status": "failed", "error": error})
