"""What evaluation runs cost: per sample, per member, per correct answer, the evaluator apart, old records.

Every call the fake upstream answers reports 1,000 prompt and 100 completion
tokens, so each member's cost a call follows from its price by hand:

- alpha, 2 / 10 USD per million:  1000 * 2   + 100 * 10 = 3000 -> $0.003
- beta,  1 / 10 USD per million:  1000 * 1   + 100 * 10 = 2000 -> $0.002
- gamma, 0.5 / 5 USD per million: 1000 * 0.5 + 100 * 5  = 1000 -> $0.001

A council sample (no chairman: the top answer is final) makes 3 answers and
3 reviews: 2 * (0.003 + 0.002 + 0.001) = $0.012; its evaluation (alpha, one
call) $0.003.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council import Council
from council.config import load_config
from council.evals.dataset import load_dataset
from council.evals.evaluator import Evaluation
from council.evals.manifest import build_manifest, new_run_id
from council.evals.metrics import SampleMetrics, Thresholds, aggregate_metrics
from council.evals.records import EvalStore, EvalSummary, SampleRecord
from council.evals.report import render_html, render_markdown, render_summary
from council.evals.runner import EvalRunner
from council.evals.spending import unpriced_members
from council.testing.fake_llm import FakeLLMServer
from tests.evals.conftest import PRICES, priced_council_file, script_priced

# Loose enough that the fixed token counts (6 calls x 1,100 tokens a council sample) do not fail samples.
LOOSE = Thresholds(max_total_tokens=100_000, max_latency_e2e_ms=60_000)


async def run_eval(tmp_path: Path, fake: FakeLLMServer, dataset_file: Path,
                   prices: dict[str, dict[str, float] | None], *, judge: str | None = None,
                   max_usd: float | None = None) -> tuple[EvalSummary, list[SampleRecord], object, object]:
    config_path = priced_council_file(tmp_path, fake, prices)
    config = load_config(config_path, {})
    council = Council(config, environ={})
    dataset = load_dataset(dataset_file)
    manifest = build_manifest(
        run_id=new_run_id(), mode="judge" if judge else "council", config=config, config_path=str(config_path),
        dataset=dataset, members=list(PRICES), evaluator=judge or "alpha", judge=judge, rubric=council.rubric,
        repeat=1, concurrency=1, sample_timeout_s=60, thresholds=LOOSE)
    store = EvalStore(config.storage.path)
    try:
        store.start_run(manifest)
        async with council:
            runner = EvalRunner(council, store, dataset, manifest, max_usd=max_usd)
            summary = await runner.run()
        records = store.samples(manifest.run_id)
        stored = store.get_run(manifest.run_id)
    finally:
        store.close()
    return summary, records, runner, stored


async def test_council_mode_cost_per_sample_per_correct_answer_and_the_evaluator_apart(fake_llm, tmp_path,
                                                                                     dataset_file):
    script_priced(fake_llm)
    summary, records, _, stored = await run_eval(tmp_path, fake_llm, dataset_file, PRICES)
    assert len(records) == 4
    for record in records:
        assert record.metrics.cost_usd == pytest.approx(0.012) and record.metrics.cost_partial is False
        assert record.evaluation.cost_usd == pytest.approx(0.003) and record.unpriced == []
    metrics = summary.subjects["council"].metrics
    assert metrics.cost_usd_total == pytest.approx(0.048)  # 4 samples x $0.012
    assert metrics.cost_per_sample_usd == pytest.approx(0.012)
    # q4 got accuracy 1: three correct answers carry the whole cost, $0.048 / 3.
    assert metrics.accuracy_full_credit_rate == pytest.approx(0.75)
    assert metrics.cost_per_correct_answer_usd == pytest.approx(0.016) and metrics.cost_partial is False
    cost = summary.cost
    assert cost is not None and cost.total_usd == pytest.approx(0.048) and cost.per_sample_usd == pytest.approx(0.012)
    assert cost.evaluator_usd == pytest.approx(0.012) and (cost.partial, cost.evaluator_partial) == (False, False)
    assert summary.budget is None and stored.status == "complete"
    assert stored.summary.cost == cost  # stored with the run

    text = render_summary(summary, stored.manifest)
    assert "cost: $0.0480 for 4 samples ($0.0120 a sample, $0.0160 a correct answer)" in text
    assert "evaluator alpha (not counted above): $0.0120" in text
    assert any(line.split() == ["cost_per_correct_answer_usd", "$0.0160"] for line in text.splitlines())
    html = render_html(summary, stored.manifest, records)
    assert "cost: $0.0480 for 4 samples" in html and "<th>cost</th>" in html and "<td>$0.0120</td>" in html
    markdown, _ = render_markdown(summary, stored.manifest, records, "r")
    assert "| cost_usd_total | $0.0480 |" in markdown and "evaluator alpha (not counted above): $0.0120" in markdown


async def test_judge_mode_costs_each_member_on_its_own(fake_llm, tmp_path, dataset_file):
    script_priced(fake_llm, wrong=("gamma",))
    summary, records, _, stored = await run_eval(tmp_path, fake_llm, dataset_file, PRICES, judge="alpha")
    per_call = {"alpha": 0.003, "beta": 0.002, "gamma": 0.001}
    assert len(records) == 12
    for record in records:
        assert record.metrics.cost_usd == pytest.approx(per_call[record.subject])
        assert record.evaluation.cost_usd == pytest.approx(0.003)  # the judge, alpha, one call a score
    for member, usd in per_call.items():
        metrics = summary.subjects[member].metrics
        assert metrics.cost_usd_total == pytest.approx(4 * usd) and metrics.cost_per_sample_usd == pytest.approx(usd)
    # q4 scores accuracy 1 (partly_right): alpha's $0.012 over its 3 correct answers, beta's $0.008 over 3.
    assert summary.subjects["alpha"].metrics.cost_per_correct_answer_usd == pytest.approx(0.004)
    assert summary.subjects["beta"].metrics.cost_per_correct_answer_usd == pytest.approx(0.008 / 3)
    # gamma's answers are wrong (accuracy 1): they still pass, but none is correct, so the whole $0.004 is over
    # max(0, 1), as the spec divides tokens_per_correct_answer.
    gamma = summary.subjects["gamma"].metrics
    assert gamma.pass_rate == 1 and gamma.cost_per_correct_answer_usd == pytest.approx(0.004)
    assert summary.cost.total_usd == pytest.approx(0.024) and summary.cost.per_sample_usd == pytest.approx(0.002)
    assert summary.cost.evaluator_usd == pytest.approx(0.036)  # 12 scores x $0.003
    text = render_summary(summary, stored.manifest)
    # Below a cent, six decimals (as `council ask` prints cost).
    assert "cost: $0.0240 for 12 samples ($0.002000 a sample); by member: alpha $0.0120, beta $0.008000, " \
           "gamma $0.004000" in text
    row = next(line for line in text.splitlines() if line.startswith("cost_per_correct_answer_usd"))
    assert row.split()[1:] == ["$0.004000", "$0.002667", "$0.004000"]


async def test_an_unpriced_member_makes_the_totals_partial(fake_llm, tmp_path, dataset_file):
    script_priced(fake_llm)
    prices = {**PRICES, "gamma": None}
    summary, records, _, stored = await run_eval(tmp_path, fake_llm, dataset_file, prices, judge="alpha")
    assert summary.subjects["gamma"].metrics.cost_usd_total is None  # unknown, not $0
    assert all(r.metrics.cost_usd is None and r.unpriced == ["gamma"] for r in records if r.subject == "gamma")
    cost = summary.cost
    assert cost.total_usd == pytest.approx(0.020) and cost.partial is True and cost.unpriced == ["gamma"]
    assert summary.subjects["alpha"].metrics.cost_partial is False
    text = render_summary(summary, stored.manifest)
    assert "by member: alpha $0.0120, beta $0.008000, gamma unknown; partial: no price for gamma" in text

    # In council mode every sample calls gamma: each sample's cost is partial, $0.010 known of it.
    script_priced(fake_llm)
    summary, records, _, _ = await run_eval(tmp_path, fake_llm, dataset_file, prices)
    assert all(r.metrics.cost_usd == pytest.approx(0.010) and r.metrics.cost_partial for r in records)
    metrics = summary.subjects["council"].metrics
    assert metrics.cost_usd_total == pytest.approx(0.040) and metrics.cost_partial is True
    assert summary.cost.unpriced == ["gamma"]


async def test_nothing_priced_is_unknown_never_zero(fake_llm, tmp_path, dataset_file):
    script_priced(fake_llm)
    summary, records, _, stored = await run_eval(tmp_path, fake_llm, dataset_file, dict.fromkeys(PRICES))
    assert all(r.metrics.cost_usd is None and r.evaluation.cost_usd is None for r in records)
    metrics = summary.subjects["council"].metrics
    assert (metrics.cost_usd_total, metrics.cost_per_sample_usd, metrics.cost_per_correct_answer_usd) == \
        (None, None, None)
    assert summary.cost.total_usd is None and summary.cost.evaluator_usd is None and summary.cost.partial is True
    text = render_summary(summary, stored.manifest)
    assert "cost: unknown (no price for alpha, beta, gamma; set members[].price in the config)" in text
    assert "evaluator alpha (not counted above): unknown (no price for alpha)" in text
    assert any(line.split() == ["cost_usd_total", "unknown"] for line in text.splitlines())


async def test_a_budget_stops_starting_samples_once_spent(fake_llm, tmp_path, dataset_file):
    script_priced(fake_llm)
    # A sample spends $0.012 + $0.003 evaluation = $0.015: after 3 samples $0.045 >= $0.04, so q4 never starts.
    summary, records, runner, stored = await run_eval(tmp_path, fake_llm, dataset_file, PRICES, max_usd=0.04)
    assert [r.sample_id for r in records] == ["q1", "q2", "q3"]
    assert runner.spent_usd == pytest.approx(0.045) and runner.stopped is True
    assert stored.status == "stopped" and summary.subjects["council"].metrics.n_samples == 3
    budget = summary.budget
    assert (budget.max_usd, budget.stopped, budget.done, budget.total) == (0.04, True, 3, 4)
    assert budget.reason == "budget $0.04 reached after 3 of 4 samples ($0.0450 spent)"
    assert not [r for r in fake_llm.requests_for("model-alpha") if "double 21" in r.last_user_text]
    html = render_html(summary, stored.manifest, records)
    assert '<p class="warn">stopped: budget $0.04 reached after 3 of 4 samples ($0.0450 spent)' in html
    markdown, _ = render_markdown(summary, stored.manifest, records, "r")
    assert "**stopped: budget $0.04 reached after 3 of 4 samples" in markdown


def test_cost_aggregates_by_hand():
    def sample(cost: float | None, accuracy: int = 2, partial: bool = False) -> SampleMetrics:
        return SampleMetrics(answered=True, accuracy_score=accuracy, faithfulness_score=2, cost_usd=cost,
                             cost_partial=partial)

    # 0.01 + 0.03 = 0.04 over 2 samples; 1 correct (accuracy 2).
    metrics = aggregate_metrics([sample(0.01), sample(0.03, accuracy=1)], Thresholds())
    assert (metrics.cost_usd_total, metrics.cost_per_sample_usd, metrics.cost_per_correct_answer_usd) == \
        pytest.approx((0.04, 0.02, 0.04))
    assert metrics.cost_partial is False
    # An unknown cost counts nowhere, and says the total is partial: 0.04 / 3 samples, / 2 correct.
    metrics = aggregate_metrics([sample(0.01), sample(0.03, accuracy=1), sample(None)], Thresholds())
    assert metrics.cost_usd_total == pytest.approx(0.04) and metrics.cost_partial is True
    assert metrics.cost_per_sample_usd == pytest.approx(0.04 / 3)
    assert metrics.cost_per_correct_answer_usd == pytest.approx(0.02)
    assert aggregate_metrics([sample(0.02, partial=True)], Thresholds()).cost_partial is True
    none = aggregate_metrics([sample(None), sample(None)], Thresholds())
    assert (none.cost_usd_total, none.cost_per_sample_usd, none.cost_partial) == (None, None, True)


def test_records_and_summaries_stored_before_cost_still_load(tmp_path):
    from tests.evals.conftest import manifest_for

    record = SampleRecord(run_id="old", repeat=0, sample_id="a", subject="council", question="q", status="ok",
                          candidate_answer="x", evaluator="judge",
                          metrics=SampleMetrics(answered=True, accuracy_score=2, faithfulness_score=2),
                          evaluation=Evaluation(accuracy_score=2, faithfulness_score=2, rationale="ok"), passed=True,
                          sample_score=0.9, created_at="2026-01-01T00:00:00Z")
    data = json.loads(record.model_dump_json())
    for key in ("cost_usd", "cost_partial"):
        del data["metrics"][key]
    del data["evaluation"]["cost_usd"]
    del data["unpriced"]
    store = EvalStore(tmp_path / "old.db")
    try:
        manifest = manifest_for(tmp_path, "old")
        store.start_run(manifest)
        store.db.execute("INSERT INTO eval_samples VALUES (?, ?, ?, ?, ?, ?, ?)",
                         ("old", 0, "a", "council", "2026-01-01T00:00:00+00:00", None, json.dumps(data)))
        summary = {"run_id": "old", "mode": "council", "gate_passed": True, "subjects": {}}
        store.db.execute("UPDATE eval_runs SET summary_json = ?, status = 'complete' WHERE run_id = 'old'",
                         (json.dumps(summary),))
        loaded = store.samples("old")
        stored = store.get_run("old")
    finally:
        store.close()
    assert "cost_usd" not in json.dumps(data)
    assert loaded[0].metrics.cost_usd is None and loaded[0].evaluation.cost_usd is None and loaded[0].unpriced == []
    assert stored.summary.cost is None and stored.summary.budget is None
    text = render_summary(stored.summary, stored.manifest)
    assert "cost: not recorded" in text


def test_the_members_a_budget_needs_priced(tmp_path):
    fake_url = "http://127.0.0.1:9/v1"
    path = tmp_path / "c.yaml"
    path.write_text(
        "members:\n"
        + "".join(f"  - {{name: {m}, provider: openai, model: model-{m}, base_url: '{fake_url}'"
                  + (", price: {input_per_mtok: 1, output_per_mtok: 1}" if m != "gamma" else "") + "}\n"
                  for m in PRICES)
        + "chairman: gamma\n"
        + f"storage: {{path: '{tmp_path / 'council.db'}'}}\n", encoding="utf-8")  # never the user's database
    config = load_config(path, {})
    # No store: the default one is the user's own database (~/.local/share/council), not the test's business.
    council = Council(config, store=False, environ={})
    dataset = load_dataset(tmp_path.joinpath("d.jsonl").write_text('{"id": "a", "task": "q"}\n') and
                           tmp_path / "d.jsonl")

    def manifest(mode: str, members: list[str], evaluator: str):
        return build_manifest(run_id="r", mode=mode, config=config, config_path=str(path), dataset=dataset,
                              members=members, evaluator=evaluator, judge=evaluator if mode == "judge" else None,
                              rubric=council.rubric, repeat=1, concurrency=1, sample_timeout_s=5,
                              thresholds=Thresholds())

    # Council mode calls the chairman (gamma) even when it is not among --members.
    assert unpriced_members(council, manifest("council", ["alpha", "beta"], "alpha"), rubrics=False) == ["gamma"]
    # Judge mode calls only the members judged and the judge.
    assert unpriced_members(council, manifest("judge", ["alpha", "beta"], "beta"), rubrics=False) == []
    assert unpriced_members(council, manifest("judge", ["alpha"], "gamma"), rubrics=False) == ["gamma"]
    # Rubric verdicts (AgentV files) ask every member.
    assert unpriced_members(council, manifest("judge", ["alpha"], "beta"), rubrics=True) == ["gamma"]
