"""``--score-candidates``: every member's answer scored against the reference, recorded, and in the evaluator's cost.

The priced council of tests/evals/conftest.py: alpha (the evaluator) costs
$0.003 a call; gamma answers wrong. Each sample's final answer and its three
member answers are scored: four evaluator calls, $0.012 a sample.
"""

from __future__ import annotations

import pytest

from council import Council
from council.config import load_config
from council.evals.dataset import load_dataset
from council.evals.manifest import build_manifest, new_run_id
from council.evals.metrics import Thresholds
from council.evals.records import EvalStore
from council.evals.runner import EvalRunner
from tests.evals.conftest import PRICES, QUESTIONS, USAGE, priced_council_file, script_priced, write_dataset


async def run(tmp_path, fake, rows=None, *, score_candidates: bool = True):
    config_path = priced_council_file(tmp_path, fake, PRICES)
    config = load_config(config_path, {})
    dataset = load_dataset(write_dataset(tmp_path / "questions.jsonl", rows))
    council = Council(config, environ={})
    manifest = build_manifest(
        run_id=new_run_id(), mode="council", config=config, config_path=str(config_path), dataset=dataset,
        members=list(PRICES), evaluator="alpha", judge=None, rubric=council.rubric, repeat=1, concurrency=1,
        sample_timeout_s=60, thresholds=Thresholds(max_total_tokens=100_000, max_latency_e2e_ms=60_000),
        score_candidates=score_candidates)
    store = EvalStore(config.storage.path)
    try:
        store.start_run(manifest)
        async with council:
            summary = await EvalRunner(council, store, dataset, manifest).run()
        return summary, store.samples(manifest.run_id), store.get_run(manifest.run_id)
    finally:
        store.close()


async def test_every_member_answer_is_scored_and_costed(fake_llm, tmp_path):
    script_priced(fake_llm, wrong=("gamma",))
    summary, records, stored = await run(tmp_path, fake_llm)
    assert stored.manifest.score_candidates is True and len(records) == len(QUESTIONS)
    for record in records:
        marks = {member: e.accuracy_score for member, e in record.candidate_evaluations.items()}
        # The evaluator gives every answer to q4 accuracy 1 (conftest's partly_right).
        expected = dict.fromkeys(PRICES, 1) if record.sample_id == "q4" else {"alpha": 2, "beta": 2, "gamma": 1}
        assert marks == expected
        assert all(e.cost_usd == pytest.approx(0.003) for e in record.candidate_evaluations.values())
    assert summary.cost.evaluator_usd == pytest.approx(4 * 4 * 0.003)
    per_call = USAGE["prompt_tokens"] + USAGE["completion_tokens"]
    assert summary.evaluator_tokens_total == 4 * 4 * per_call


async def test_nothing_extra_without_the_flag_or_a_reference(fake_llm, tmp_path):
    script_priced(fake_llm)
    summary, records, _ = await run(tmp_path, fake_llm, score_candidates=False)
    assert all(not r.candidate_evaluations for r in records) and summary.cost.evaluator_usd == pytest.approx(0.012)
    open_rows = [{"id": "o1", "task": QUESTIONS["q1"][0]}]
    (tmp_path / "open").mkdir()
    _, records, _ = await run(tmp_path / "open", fake_llm, open_rows)
    assert [r.candidate_evaluations for r in records] == [{}]


async def test_a_rerun_reuses_the_member_verdicts_and_says_so(fake_llm, tmp_path):
    script_priced(fake_llm)
    await run(tmp_path, fake_llm)
    asked = len(fake_llm.requests)
    _, records, stored = await run(tmp_path, fake_llm)
    assert len(fake_llm.requests) == asked  # every call, the four verdicts a sample included, came from kept replies
    for record in records:
        assert record.reused_calls["evaluation"] == 4  # the final answer's verdict and the three members'
        assert record.reused_usd == pytest.approx(0.012 + 4 * 0.003)  # the council's calls and the four verdicts
    assert stored.manifest.reused_calls["evaluation"] == 4 * len(QUESTIONS)
