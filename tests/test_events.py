"""One description of each stage event, shared by the CLI and the server's progress text."""

from __future__ import annotations

import pytest

from council.events import StageEvent, describe


def event(kind: str, **data: object) -> StageEvent:
    return StageEvent(kind=kind, run_id="r", data=data)  # type: ignore[arg-type]


@pytest.mark.parametrize(("given", "line"), [
    (event("stage_started", stage="review"), "Members are reviewing each other's answers…"),
    (event("answer", member="a", status="ok", latency_ms=1234.0, error=None, content="x"), "- a answered (1.2 s)"),
    (event("answer", member="a", status="failed", latency_ms=5.0, error={"reason": "timeout"}, content=None),
     "- a did not answer (timeout)"),
    (event("safety", member="b", passed=False, findings=[{"category": "weapon_making", "rule": "r", "evidence": "e"}],
           notes=[]), "- b's answer was set aside by the safety gate (weapon_making)"),
    (event("review", reviewer="c", status="ok", error=None, scores={}, order=["a", "b"]), "- c reviewed 2 answers"),
    (event("review", reviewer="c", status="failed", error={"reason": "parse"}, scores={}, order=[]),
     "- c's review failed (parse)"),
    (event("ranking", ranking=[{"member": "a", "rank": 1, "score": 0.5}, {"member": "b", "rank": 2, "score": -0.5}],
           agreement={}, bias_flags=[]), "Ranking: 1. a (+0.50), 2. b (-0.50)"),
])
def test_each_event_has_one_line(given, line):
    assert describe(given) == line


@pytest.mark.parametrize("given", [
    event("safety", member="b", passed=True, findings=[], notes=[]),
    event("final_delta", text="x", by="a"),
    event("ranking", ranking=[], agreement={}, bias_flags=[]),
    event("run_finished", status="complete", degraded=False, error=None),
])
def test_quiet_events_have_none(given):
    assert describe(given) is None
