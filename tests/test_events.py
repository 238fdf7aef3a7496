"""One description of each stage event, shared by the CLI and the server's progress text; and the payloads'
types held to the records they are built from."""

from __future__ import annotations

import dataclasses
import json
import typing

import pytest

from council.events import (
    AnswerEvent,
    AnswerMoveData,
    DeliberationData,
    EventKind,
    FailureData,
    FinalData,
    FinalDeltaEvent,
    RankingEntryData,
    RankingEvent,
    ReviewEvent,
    RunFinishedEvent,
    SafetyEvent,
    SafetyFindingData,
    StageEvent,
    StageStartedEvent,
    describe,
)
from council.pipeline.payloads import answer_event_data, failure_data, final_event_data, ranking_entry_data
from council.result import (
    AnswerMove,
    AnswerRecord,
    DeliberationRecord,
    Failure,
    FinalAnswer,
    RankingEntry,
    RevisionRecord,
)
from council.rubrics.score import RubricVerdict
from council.safety.gate import SafetyFinding
from council.types import Usage


def failed(reason: str) -> FailureData:
    return {"reason": reason, "message": "m", "status": None, "attempts": 1}


def answer(member: str, status: str, latency_ms: float, error: FailureData | None,
           content: str | None) -> AnswerEvent:
    return AnswerEvent("r", {"member": member, "status": status, "latency_ms": latency_ms, "error": error,
                             "content": content})


def ranking(*entries: tuple[str, int, float]) -> RankingEvent:
    return RankingEvent("r", {"ranking": [ranking_entry_data(RankingEntry(member=m, rank=r, score=s, raw_mean=None,
                                                                          n_reviews=2)) for m, r, s in entries],
                              "agreement": {}, "bias_flags": [], "ranking_confidence": None, "tied_for_first": []})


@pytest.mark.parametrize(("given", "line"), [
    (StageStartedEvent("r", {"stage": "review"}), "Members are reviewing each other's answers…"),
    (answer("a", "ok", 1234.0, None, "x"), "- a answered (1.2 s)"),
    (answer("a", "failed", 5.0, failed("timeout"), None), "- a did not answer (timeout)"),
    (SafetyEvent("r", {"member": "b", "passed": False, "notes": [],
                       "findings": [{"category": "weapon_making", "rule": "r", "evidence": "e"}]}),
     "- b's answer was set aside by the safety gate (weapon_making)"),
    (ReviewEvent("r", {"reviewer": "c", "status": "ok", "error": None, "scores": {}, "order": ["a", "b"]}),
     "- c reviewed 2 answers"),
    (ReviewEvent("r", {"reviewer": "c", "status": "failed", "error": failed("parse"), "scores": {}, "order": []}),
     "- c's review failed (parse)"),
    (ranking(("a", 1, 0.5), ("b", 2, -0.5)), "Ranking: 1. a (+0.50), 2. b (-0.50)"),
])
def test_each_event_has_one_line(given, line):
    assert describe(given) == line


@pytest.mark.parametrize("given", [
    SafetyEvent("r", {"member": "b", "passed": True, "findings": [], "notes": []}),
    FinalDeltaEvent("r", {"text": "x", "by": "a"}),
    ranking(),
    RunFinishedEvent("r", {"status": "complete", "degraded": False, "error": None}),
])
def test_quiet_events_have_none(given):
    assert describe(given) is None


def test_each_kind_is_one_frozen_class_with_its_kind_fixed():
    classes = typing.get_args(StageEvent)
    assert sorted(c.kind for c in classes) == sorted(typing.get_args(EventKind))
    event = answer("a", "ok", 1.0, None, "x")
    assert event.kind == "answer" and "kind" not in {f.name for f in dataclasses.fields(event) if f.init}
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.run_id = "other"


def keys(typed: type) -> set[str]:
    return set(typed.__required_keys__ | typed.__optional_keys__)


@pytest.mark.parametrize(("typed", "model"), [
    (FailureData, Failure), (SafetyFindingData, SafetyFinding), (RankingEntryData, RankingEntry),
    (AnswerMoveData, AnswerMove), (FinalData, FinalAnswer),
])
def test_a_payload_that_mirrors_a_record_has_its_fields(typed, model):
    assert keys(typed) == set(model.model_fields)


def test_the_deliberation_payload_is_its_record_without_the_first_round_and_with_who_revised():
    assert keys(DeliberationData) == set(DeliberationRecord.model_fields) - {"first_round"} | {"revised"}


@pytest.mark.parametrize("final", [
    FinalAnswer(content="x", by="a"),
    FinalAnswer(content="x", by="a", source="chairman", reused=True, latency_ms=12.5,
                usage=Usage(prompt_tokens=3, completion_tokens=4, cost_usd=0.01, estimated=True)),
    FinalAnswer(content="", by="", source="none", blocked=True, fallback=True, fallback_reason="no answers"),
])
def test_the_final_payload_is_the_final_answer_as_dumped_key_for_key(final):
    assert json.dumps(final_event_data(final)) == json.dumps(final.model_dump(mode="json"))


def test_nested_records_are_written_as_their_dumps():
    failure = Failure(reason="timeout", message="slow", status=504, attempts=3)
    assert json.dumps(failure_data(failure)) == json.dumps(failure.model_dump(mode="json"))
    verdict = RubricVerdict(rubric_id="r", rubric_version="1", passed=True, score=0.8, threshold=0.5, criteria=[])
    entry = RankingEntry(member="a", rank=1, score=0.4, raw_mean=0.7, n_reviews=2, dimensions={"accuracy": 0.9},
                         verdict=verdict, rank_probabilities=[0.9, 0.1])
    assert json.dumps(ranking_entry_data(entry)) == json.dumps(entry.model_dump(mode="json"))
    record = DeliberationRecord(rounds=2, reason="unsure", threshold=0.5, confidence_before=0.4, confidence_after=0.8,
                                revisions=[RevisionRecord(member="a", decision="revised", reason="better")],
                                moves=[AnswerMove(member="a", revised=True, rank_before=2, rank_after=1,
                                                  score_before=0.1, score_after=0.3)], calls=4, tokens=100)
    dumped = {**record.model_dump(mode="json", exclude={"first_round"}), "revised": ["a"]}
    assert json.dumps(record.event_data()) == json.dumps(dumped)
    answered = AnswerRecord(member="a", model="m", provider="p", status="failed", error=failure, latency_ms=12.345)
    assert answer_event_data(answered)["error"] == failure.model_dump(mode="json")
