"""The evaluation tables: runs and samples round-trip, share the council's database, and fail clearly."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from council.evals.evaluator import Evaluation
from council.evals.metrics import SampleMetrics
from council.evals.records import EvalStorageError, EvalStore, SampleRecord
from council.storage.store import Store
from tests.evals.conftest import manifest_for


def sample(run_id: str, sample_id: str, repeat: int = 0, score: float = 0.5) -> SampleRecord:
    return SampleRecord(run_id=run_id, repeat=repeat, sample_id=sample_id, subject="council", question="q",
                        status="ok", candidate_answer="an answer", evaluator="judge",
                        metrics=SampleMetrics(answered=True, accuracy_score=1, faithfulness_score=2),
                        evaluation=Evaluation(accuracy_score=1, faithfulness_score=2, rationale="ok", attempts=1,
                                              replies=['{"accuracy_score": 1}']),
                        passed=True, sample_score=score, created_at=datetime.now(UTC))


def test_runs_and_samples_round_trip_beside_the_council_tables(tmp_path, db_location):
    path = db_location
    council_store = Store(path)  # the council's own tables, in the same file
    store = EvalStore(path)
    try:
        manifest = manifest_for(tmp_path, "run-1")
        store.start_run(manifest)
        assert store.get_run("run-1").status == "running" and store.get_run("run-1").summary is None
        store.save_sample(sample("run-1", "a"))
        store.save_sample(sample("run-1", "b"))
        store.save_sample(sample("run-1", "a", score=0.9))  # a sample written again replaces the old row
        store.save_sample(sample("run-1", "a", repeat=1))
        assert store.done_keys("run-1") == {(0, "a", "council"), (0, "b", "council"), (1, "a", "council")}
        records = store.samples("run-1")
        assert [(r.repeat, r.sample_id) for r in records] == [(0, "b"), (0, "a"), (1, "a")]
        assert records[1].sample_score == 0.9 and records[1].evaluation.replies == ['{"accuracy_score": 1}']
        store.update_run("run-1", status="interrupted")
        assert store.get_run("run-1").manifest == manifest
        assert store.recent_runs() == [("run-1", manifest.timestamp_utc.isoformat(), "interrupted")]
        assert store.get_run("other") is None and store.samples("other") == []
        assert council_store.list_runs() == []
    finally:
        store.close()
        council_store.close()


def test_an_unreadable_row_is_a_storage_error(tmp_path, db_location):
    store = EvalStore(db_location)
    try:
        store.start_run(manifest_for(tmp_path, "run-1"))
        store.save_sample(sample("run-1", "a"))
        store.db.execute("UPDATE eval_samples SET record_json = '{}'")
        with pytest.raises(EvalStorageError, match="a sample of evaluation run run-1 is unreadable"):
            store.samples("run-1")
        with pytest.raises(EvalStorageError, match="failed in"):
            store.start_run(manifest_for(tmp_path, "run-1"))  # the same id twice
    finally:
        store.close()


def test_an_unopenable_database_is_a_storage_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(EvalStorageError, match="cannot open the evaluation tables"):
        EvalStore(blocker / "e.db")


def test_a_record_stored_before_other_failures_keeps_its_failed_rubric_verdict():
    verdict = {"rubric_id": "r", "rubric_version": "1.0.0", "passed": False, "score": 0.4, "threshold": 0.7,
               "criteria": []}
    record = SampleRecord.model_validate({
        "run_id": "x", "repeat": 0, "sample_id": "s", "subject": "council", "question": "q", "status": "ok",
        "evaluator": "e", "metrics": {"answered": True, "accuracy_score": 2, "faithfulness_score": 2},
        "evaluation": {}, "passed": False, "failed_conditions": ["rubric r: failed at 40% (pass at 70%)"],
        "sample_score": 1.0, "created_at": "2026-01-01T00:00:00Z", "rubric_verdicts": [verdict]})
    assert record.metrics.other_failures == ["rubric r: failed at 40% (pass at 70%)"]
