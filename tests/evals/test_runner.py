"""Whole evaluation runs against the fake upstream: council mode, judge mode, timeouts, interruption and resume."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path

from council import Council
from council.cli.app import main
from council.config import load_config
from council.evals.dataset import load_dataset
from council.evals.manifest import build_manifest, new_run_id
from council.evals.metrics import Thresholds
from council.evals.records import EvalStore
from council.evals.runner import EvalRunner
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.evals.conftest import PROVIDERS, QUESTIONS, fake_council_file, knows, script_members
from tests.waiting import wait_until


def prepare(config_path: Path, dataset_path: Path, *, members: list[str] | None = None, evaluator: str = "alpha",
            judge: str | None = None, repeat: int = 1, concurrency: int = 4, timeout: float = 300.0):
    config = load_config(config_path, {})
    council = Council(config, environ={})
    dataset = load_dataset(dataset_path)
    manifest = build_manifest(
        run_id=new_run_id(), mode="judge" if judge else "council", config=config, config_path=str(config_path),
        dataset=dataset, members=members or list(PROVIDERS), evaluator=judge or evaluator, judge=judge,
        rubric=council.rubric, repeat=repeat, concurrency=concurrency, sample_timeout_s=timeout,
        thresholds=Thresholds())
    store = EvalStore(config.storage.path)
    store.start_run(manifest)
    return council, store, dataset, manifest


def evaluator_requests(fake: FakeLLMServer, model: str) -> list:
    return [r for r in fake.requests_for(model) if "Evaluation protocol: council-eval/1." in str(r.messages)]


async def test_council_mode_scores_the_final_answer_with_the_councils_cost(fake_llm, tmp_path, dataset_file):
    script_members(fake_llm)
    council, store, dataset, manifest = prepare(fake_council_file(tmp_path, fake_llm), dataset_file, repeat=2)
    seen = []
    try:
        async with council:
            summary = await EvalRunner(council, store, dataset, manifest, on_record=seen.append).run()
            records = store.samples(manifest.run_id)
            stored_results = {r.council_run_id: council.store.get(r.council_run_id) for r in records}
    finally:
        store.close()
    assert len(seen) == len(records) == 8 and {(r.repeat, r.sample_id) for r in records} == \
        {(n, key) for n in (0, 1) for key in QUESTIONS}
    council_summary = summary.subjects["council"]
    assert summary.gate_passed and council_summary.gate.passed
    assert council_summary.metrics.accuracy_mean == 2 and council_summary.metrics.pass_rate == 1
    assert council_summary.repeats.n_repeats == 2 and council_summary.repeats.aggregate_score_std is not None
    for record in records:
        result = stored_results[record.council_run_id]
        assert result is not None and result.status == "complete"
        # The spent tokens are the whole council run's: every answer, review and the final answer; the spec's
        # tokens are the answer returned (no chairman here: the top-ranked member's answer).
        assert (record.metrics.spent_input_tokens, record.metrics.spent_output_tokens) == \
            (result.usage.prompt_tokens, result.usage.completion_tokens)
        top = next(a for a in result.answers if a.member == result.final_answer.by)
        assert (record.metrics.input_tokens, record.metrics.output_tokens) == \
            (top.usage.prompt_tokens, top.usage.completion_tokens)
        assert record.metrics.total_tokens < record.metrics.spent_total_tokens
        assert record.candidate_answer == result.final_answer.content and record.answered_by == "alpha"
        assert record.metrics.latency_e2e_ms >= result.timings.total_ms * 0.9
        assert record.metrics.latency_model_ms is not None and record.evaluation.attempts == 1
        assert record.model_versions == {m: f"model-{m}" for m in PROVIDERS}
    # The evaluator (the first member, there is no chairman) saw each final answer once.
    assert len(evaluator_requests(fake_llm, "model-alpha")) == 8
    answer = fake_llm.requests_for("model-alpha")[0]
    assert (answer.body["temperature"], answer.body["top_p"], answer.body["max_tokens"], answer.body["seed"]) == \
        (0.0, 1.0, 1024, 42)
    assert [e.member for e in summary.leaderboard.entries] and summary.leaderboard.kind == "council_ranking"
    assert summary.evaluator_tokens_total == sum(r.evaluation.usage.total_tokens for r in records) > 0
    reopened = EvalStore(tmp_path / "council.db")
    try:
        stored = reopened.get_run(manifest.run_id)
    finally:
        reopened.close()
    assert stored.status == "complete" and stored.summary == summary
    assert [m.versions for m in stored.manifest.models] == [[f"model-{m}"] for m in PROVIDERS]
    assert stored.manifest.evaluator.versions == ["model-alpha"]
    # Two repeats are fewer than the spec's three: said once, and nothing else is wrong.
    assert [w.split(":")[0] for w in stored.manifest.warnings] == ["--repeat 2"]


async def test_judge_mode_scores_every_member_and_gates_each(fake_llm, tmp_path, dataset_file):
    script_members(fake_llm, gamma=Step(reply=council_member(knows("gamma", right=False))))
    council, store, dataset, manifest = prepare(fake_council_file(tmp_path, fake_llm), dataset_file, judge="beta")
    try:
        async with council:
            summary = await EvalRunner(council, store, dataset, manifest).run()
            records = store.samples(manifest.run_id)
    finally:
        store.close()
    assert len(records) == 12 and {r.subject for r in records} == set(PROVIDERS)
    assert all(r.evaluator == "beta" and r.council_run_id is None for r in records)
    gamma = summary.subjects["gamma"]
    assert gamma.metrics.accuracy_mean == 1 and gamma.metrics.pass_rate == 1
    # 0.45 * 1/2 + 0.30 + 0.15 + 0.10 = 0.775 < 0.80: gamma fails the gate, and so the run does.
    assert gamma.metrics.aggregate_score == 0.775 and not gamma.gate.passed
    assert summary.subjects["alpha"].gate.passed and summary.subjects["beta"].gate.passed
    assert not summary.gate_passed
    assert [e.member for e in summary.leaderboard.entries] == ["alpha", "beta", "gamma"]
    assert len(evaluator_requests(fake_llm, "model-beta")) == 12
    for record in records:  # one call per answer, measured as such
        assert record.metrics.latency_model_ms is not None
        assert record.metrics.input_tokens == len(QUESTIONS[record.sample_id][0].split())
    assert any("the judge beta also answers" in w for w in summary.warnings)


async def test_a_sample_past_its_timeout_is_recorded_and_never_evaluated(fake_llm, tmp_path, dataset_file):
    script_members(fake_llm, alpha=Step(hang=True))
    council, store, dataset, manifest = prepare(fake_council_file(tmp_path, fake_llm), dataset_file, judge="beta",
                                                members=["alpha", "gamma"], timeout=0.3)
    try:
        async with council:
            summary = await EvalRunner(council, store, dataset, manifest).run()
            records = store.samples(manifest.run_id)
    finally:
        store.close()
    hung = [r for r in records if r.subject == "alpha"]
    assert len(hung) == 4 and all(r.status == "timed_out" and r.metrics.timed_out for r in hung)
    assert all(r.metrics.latency_e2e_ms >= 290 for r in hung)  # held for its timeout (never cut short)
    assert all(r.evaluation.evaluator_error == "no_answer" and not r.passed for r in hung)
    assert summary.subjects["alpha"].metrics.n_timed_out == 4 and summary.subjects["alpha"].metrics.pass_rate == 0
    assert len(evaluator_requests(fake_llm, "model-beta")) == 4  # gamma's answers only


async def test_an_interrupted_run_resumes_without_redoing_finished_samples(fake_llm, tmp_path, dataset_file, capsys):
    answer = council_member(knows("alpha"))
    script_members(fake_llm)
    fake_llm.script("model-alpha", Step(reply=answer), Step(reply=answer), Step(hang=True))  # the third one hangs
    config_path = fake_council_file(tmp_path, fake_llm)
    council, store, dataset, manifest = prepare(config_path, dataset_file, judge="beta", members=["alpha"],
                                                concurrency=1)
    try:
        async with council:
            task = asyncio.ensure_future(EvalRunner(council, store, dataset, manifest).run())
            await wait_until(lambda: len(store.done_keys(manifest.run_id)) == 2, what="two samples to be done")
            await wait_until(lambda: len(fake_llm.requests_for("model-alpha")) == 3,
                             what="the third sample to be asked upstream (where it hangs)")
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        assert store.get_run(manifest.run_id).status == "interrupted"
        assert [r.sample_id for r in store.samples(manifest.run_id)] == ["q1", "q2"]
    finally:
        store.close()
    before = len(fake_llm.requests_for("model-alpha"))
    assert before == 3
    fake_llm.script("model-alpha", Step(reply=answer))
    env = {"PATH": os.environ.get("PATH", "")}
    argv = ["eval", "--resume", manifest.run_id, "--config", str(config_path), "--json", "--no-report"]
    code = await asyncio.to_thread(main, argv, env)
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    resumed = fake_llm.requests_for("model-alpha")[before:]
    assert [r.last_user_text for r in resumed] == [QUESTIONS["q3"][0], QUESTIONS["q4"][0]]
    assert len(evaluator_requests(fake_llm, "model-beta")) == 4  # two before, two after: nothing scored twice
    assert out["summary"]["subjects"]["alpha"]["metrics"]["n_samples"] == 4
    store = EvalStore(tmp_path / "council.db")
    try:
        assert sorted(r.sample_id for r in store.samples(manifest.run_id)) == ["q1", "q2", "q3", "q4"]
        assert store.get_run(manifest.run_id).status == "complete"
    finally:
        store.close()
