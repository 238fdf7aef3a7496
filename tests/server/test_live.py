"""Live run events: waiting for more, bounded memory, and the same events rebuilt from a stored result."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

from council import Council
from council.events import StageEvent
from council.result import (
    AnswerRecord,
    CouncilResult,
    DimensionScoresRecord,
    Failure,
    FinalAnswer,
    RankingEntry,
    Reproducibility,
    ReviewRecord,
)
from council.server.live import LiveRun, LiveRuns, replay_events, with_labels
from council.storage.store import Store
from council.types import ChatMessage
from tests.pipeline.test_deliberation_replay import deliberating


async def test_a_waiting_subscriber_wakes_on_each_event_and_on_finish():
    run = LiveRun("r", "c")
    assert await run.wait(0, timeout=0.01) is False
    waiter = asyncio.ensure_future(run.wait(0, timeout=5))
    await asyncio.sleep(0)
    run.add("answer", {"member": "a"})
    assert await waiter is True
    assert run.events == [{"seq": 0, "kind": "answer", "data": {"member": "a"}}]
    assert await run.wait(1, timeout=0.01) is False
    waiter = asyncio.ensure_future(run.wait(1, timeout=5))
    await asyncio.sleep(0)
    run.finish()
    assert await waiter is True
    assert await run.wait(1, timeout=5) is True  # finished: never waits again


def test_registry_keeps_every_unfinished_run_and_the_last_finished():
    runs = LiveRuns(keep=2)
    started = [runs.start(f"r{i}", "c" if i == 0 else f"c{i}") for i in range(4)]
    assert runs.active == 4 and runs.running_in("c") is started[0]
    for run in started[1:]:
        runs.finish(run)
    assert [r for r in ("r0", "r1", "r2", "r3") if runs.get(r)] == ["r0", "r2", "r3"]
    runs.finish(started[0])
    assert runs.get("r2") is None and runs.running_in("c") is None and runs.active == 0


def test_review_events_get_the_labels_their_reviewer_saw():
    data = with_labels("review", {"reviewer": "a", "order": ["c", "b"]})
    assert data["labels"] == {"Response A": "c", "Response B": "b"}
    assert with_labels("answer", {"member": "a"}) == {"member": "a"}


def _result() -> CouncilResult:
    scores = DimensionScoresRecord(scores={"accuracy": 8}, overall=0.8)
    return CouncilResult(
        run_id="run", created_at=datetime.now(UTC), status="complete", question=[ChatMessage(role="user", content="q")],
        answers=[AnswerRecord(member="a", model="m", provider="openai", content="A", latency_ms=12.34),
                 AnswerRecord(member="b", model="m", provider="openai", status="failed", latency_ms=5.0,
                              error=Failure(reason="timeout", message="too slow"))],
        reviews=[ReviewRecord(reviewer="a", order=["a"], labels={"Response A": "a"}, ranking=["a"],
                              scores={"a": scores})],
        ranking=[RankingEntry(member="a", rank=1, score=0.0, raw_mean=0.8, n_reviews=1)],
        final_answer=FinalAnswer(content="A", by="a", fallback=True, fallback_reason="chairman c failed"),
        degraded=True, degraded_reasons=["members failed: b (timeout)"],
        reproducibility=Reproducibility(config_hash="x", prompt_hashes={}, rubric_id="default", rubric_version="1.0.0",
                                        rubric_hash="y", shuffle_seed=1, aggregation_method="calibrated",
                                        package_version="0"),
    )


def test_replay_rebuilds_the_live_sequence_from_a_stored_result():
    events = replay_events(_result(), chairman="c")
    assert [e["kind"] for e in events] == ["run_started", "stage_started", "answer", "answer", "stage_started",
                                           "review", "ranking", "stage_started", "final", "run_finished", "result"]
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert events[0]["data"] == {"members": ["a", "b"], "chairman": "c", "simulated": False}
    failed = events[3]["data"]
    assert (failed["status"], failed["error"]["reason"], failed["latency_ms"]) == ("failed", "timeout", 5.0)
    assert events[5]["data"]["labels"] == {"Response A": "a"} and events[5]["data"]["scores"]["a"]["overall"] == 0.8
    assert events[8]["data"]["fallback_reason"] == "chairman c failed"
    assert events[-1]["data"]["degraded_reasons"] == ["members failed: b (timeout)"]


def test_an_interrupted_run_replays_without_an_end():
    result = _result().model_copy(update={"status": "running", "final_answer": None})
    kinds = [e["kind"] for e in replay_events(result)]
    assert "run_finished" not in kinds and "final" not in kinds
    assert kinds[-1] == "result" and replay_events(result)[-1]["data"]["status"] == "running"


async def test_a_stored_run_with_a_second_round_replays_both_rounds_as_they_ran(tmp_path):
    live: list[StageEvent] = []
    store = Store(tmp_path / "runs.db")
    try:
        async with Council(deliberating(str(tmp_path / "runs.db")), store=store) as council:
            ran = await council.ask("How does the heart pump blood?", preset="deliberate", on_event=live.append)
        stored = store.get(ran.run_id)
    finally:
        store.close()
    assert stored is not None and stored.deliberation is not None and stored.deliberation.rounds == 2
    events = replay_events(stored, chairman="atlas")
    place = [(e["kind"], e["data"].get("stage") or e["data"].get("round")) for e in events]
    ran_live = [(e.kind, e.data.get("stage") or e.data.get("round")) for e in live if e.kind != "final_delta"]
    assert place == [*ran_live, ("result", None)], "the page's run view has the run's events in the run's order"
    reviews = [e["data"] for e in events if e["kind"] == "review"]
    assert all(r["labels"] and sorted(r["labels"].values()) == sorted(r["order"]) for r in reviews)
    first_round_answers = {e["data"]["member"]: e["data"]["content"] for e in events if e["kind"] == "answer"}
    assert first_round_answers == {a.member: a.content for a in stored.deliberation.first_round.answers}
    revisions = {e["data"]["member"]: e["data"]["decision"] for e in events if e["kind"] == "revision"}
    assert revisions == {r.member: r.decision for r in stored.deliberation.revisions}


async def test_the_page_s_view_of_a_stored_run_says_what_its_live_view_said_field_by_field(tmp_path):
    live = LiveRun("r", "c")
    store = Store(tmp_path / "runs.db")
    try:
        async with Council(deliberating(str(tmp_path / "runs.db")), store=store) as council:
            # What the page's run does with each event (council.server.page_api).
            ran = await council.ask("How does the heart pump blood?", preset="deliberate",
                                    on_event=lambda event: live.add(event.kind, dict(event.data)))
        stored = store.get(ran.run_id)
    finally:
        store.close()
    assert stored is not None and stored.deliberation is not None and stored.deliberation.rounds == 2
    replayed = replay_events(stored, chairman="atlas")

    def by_kind(events: list[dict], kind: str) -> list[str]:
        # Members finish in their own order live; the replay keeps the records' order.
        return sorted(json.dumps(e["data"], sort_keys=True) for e in events if e["kind"] == kind)

    for kind in ("run_started", "stage_started", "answer", "safety", "review", "ranking", "revision", "deliberation",
                 "final", "run_finished"):
        assert by_kind(replayed, kind) == by_kind(live.events, kind), kind
