"""``council eval --max-usd``: a run stops on its budget, resumes with a new one; ``eval compare`` shows cost.

Members on the fake upstream report 1,000 prompt and 100 completion tokens a
call, so (tests/evals/conftest.py) alpha costs $0.003 a call, beta $0.002 and
gamma $0.001. A council-mode sample (no chairman) is 3 answers and 3 reviews,
$0.012, and its evaluation by alpha $0.003: $0.015 against the budget.
"""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from council.cli.app import main
from council.cli.eval_command import EXIT_BUDGET_STOPPED
from council.evals.records import EvalStore
from tests.evals.conftest import PRICES, QUESTIONS, priced_council_file, script_priced, write_dataset

# The fixed token counts (6,600 a council sample) and a loaded test machine must not fail the gate.
LOOSE = ["--max-sample-tokens", "100000", "--max-sample-latency-ms", "60000", "--max-latency-p95-ms", "60000"]


@pytest.fixture
def env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "")}


@pytest.fixture
def dataset_file(tmp_path):
    return write_dataset(tmp_path / "questions.jsonl")


async def run(capsys, env: dict[str, str], *argv: str) -> tuple[int, str, str]:
    code = await asyncio.to_thread(main, ["eval", *argv], env)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def answers_to(fake, question: str) -> int:
    """How many times alpha was asked the question itself (not to review or score an answer to it)."""
    return sum(1 for r in fake.requests_for("model-alpha") if r.last_user_text == question)


async def test_max_usd_stops_the_run_and_resume_with_a_new_budget_finishes_it(fake_llm, tmp_path, dataset_file, capsys,
                                                                              env):
    script_priced(fake_llm)
    config = str(priced_council_file(tmp_path, fake_llm, PRICES))
    # $0.015 a sample: 0.015 and 0.030 are under $0.04, so samples 2 and 3 start; after 3, $0.045 reaches it.
    code, out, err = await run(capsys, env, str(dataset_file), "--config", config, "--concurrency", "1",
                               "--max-usd", "0.04", "--no-report", *LOOSE)
    assert code == EXIT_BUDGET_STOPPED == 3, err
    run_id = out.split()[1].rstrip(":")
    assert out.splitlines()[1] == (f"stopped: budget $0.04 reached after 3 of 4 samples ($0.0450 spent); this summary "
                                   f"covers the samples run. Continue with: council eval --resume {run_id} "
                                   f"[--max-usd Y]")
    assert f"council: evaluation {run_id} stopped: budget $0.04 reached after 3 of 4 samples" in err
    assert "cost: $0.0360 for 3 samples ($0.0120 a sample, $0.0120 a correct answer)" in out
    assert answers_to(fake_llm, QUESTIONS["q4"][0]) == 0
    store = EvalStore(tmp_path / "council.db")
    try:
        stored = store.get_run(run_id)
        assert stored.status == "stopped" and stored.summary.budget.stopped
        assert [r.sample_id for r in store.samples(run_id)] == ["q1", "q2", "q3"]
    finally:
        store.close()

    # A new budget of $0.02: the $0.045 already spent does not count against it, so q4 runs (and only q4).
    code, out, err = await run(capsys, env, "--resume", run_id, "--config", config, "--max-usd", "0.02", "--json",
                               "--no-report")
    assert code == 0, err
    summary = json.loads(out)["summary"]
    assert summary["budget"] == {"max_usd": 0.02, "spent_usd": pytest.approx(0.015), "stopped": False, "done": 4,
                                 "total": 4, "reason": None}
    metrics = summary["subjects"]["council"]["metrics"]
    assert metrics["n_samples"] == 4 and metrics["cost_usd_total"] == pytest.approx(0.048)
    # q4 scores accuracy 1 (tests/evals/conftest.py partly_right): $0.048 over 3 correct answers.
    assert metrics["cost_per_correct_answer_usd"] == pytest.approx(0.016)
    assert summary["cost"]["total_usd"] == pytest.approx(0.048) and summary["cost"]["evaluator_usd"] == \
        pytest.approx(0.012)
    assert [answers_to(fake_llm, QUESTIONS[key][0]) for key in QUESTIONS] == [1, 1, 1, 1]
    store = EvalStore(tmp_path / "council.db")
    try:
        assert store.get_run(run_id).status == "complete" and len(store.samples(run_id)) == 4
    finally:
        store.close()


async def test_max_usd_with_an_unpriced_member_is_a_usage_error(fake_llm, tmp_path, dataset_file, capsys, env):
    script_priced(fake_llm)
    config = str(priced_council_file(tmp_path, fake_llm, {**PRICES, "gamma": None}))
    code, out, err = await run(capsys, env, str(dataset_file), "--config", config, "--max-usd", "1", "--no-report")
    assert (code, out) == (2, "")
    assert "council: --max-usd: a budget needs a price on every member the run calls; no price: gamma" in err
    assert fake_llm.requests == []
    store = EvalStore(tmp_path / "council.db")
    try:
        assert store.recent_runs() == []  # refused before the run was stored
    finally:
        store.close()
    # Judge mode without gamma calls only priced members: the budget is accepted and holds.
    code, out, err = await run(capsys, env, str(dataset_file), "--config", config, "--judge", "beta", "--members",
                               "alpha,beta", "--max-usd", "1", "--no-report", "--json", *LOOSE)
    assert code == 0, err
    budget = json.loads(out)["summary"]["budget"]
    # 4 samples x 2 members: answers 4 x (0.003 + 0.002) = 0.020, beta's 8 scores 8 x 0.002 = 0.016.
    assert budget["stopped"] is False and budget["spent_usd"] == pytest.approx(0.036)


async def test_max_usd_must_be_positive(capsys, env, dataset_file):
    code, out, err = await run(capsys, env, str(dataset_file), "--max-usd", "0")
    assert (code, out) == (2, "") and "--max-usd must be positive, got 0" in err


async def test_compare_shows_both_runs_cost_and_their_ratio(fake_llm, tmp_path, dataset_file, capsys, env):
    script_priced(fake_llm)
    config = str(priced_council_file(tmp_path, fake_llm, PRICES))
    run_ids = []
    # A: the three members, $0.012 a sample. B: alpha and beta, 2 answers + 2 reviews = 2 x 0.005 = $0.010.
    for members in ("alpha,beta,gamma", "alpha,beta"):
        code, out, err = await run(capsys, env, str(dataset_file), "--config", config, "--members", members,
                                   "--no-report", "--json", *LOOSE)
        assert code == 0, err
        run_ids.append(json.loads(out)["summary"]["run_id"])
    code, out, err = await run(capsys, env, "compare", *run_ids, "--config", config)
    assert code == 0, err
    assert "cost: A $0.0480 ($0.0120 a sample) vs B $0.0400 ($0.0100 a sample); B/A 0.83x a sample" in out
    row = next(line for line in out.splitlines() if line.split()[1:2] == ["cost_per_sample_usd"])
    assert row.split()[2:] == ["$0.0120", "$0.0100", "-$0.002000"]
    code, out, _ = await run(capsys, env, "compare", *run_ids, "--config", config, "--json")
    cost = json.loads(out)["cost"]
    assert cost["a"]["total_usd"] == pytest.approx(0.048) and cost["b"]["total_usd"] == pytest.approx(0.040)
    assert cost["ratio"] == pytest.approx(10 / 12)


async def test_compare_gives_no_ratio_when_a_cost_is_unknown(fake_llm, tmp_path, dataset_file, capsys, env):
    script_priced(fake_llm)
    priced = str(priced_council_file(tmp_path, fake_llm, PRICES))
    unpriced = str(priced_council_file(tmp_path, fake_llm, dict.fromkeys(PRICES), name="unpriced.yaml"))
    run_ids = []
    for config in (priced, unpriced):
        code, out, err = await run(capsys, env, str(dataset_file), "--config", config, "--no-report", "--json",
                                   *LOOSE)
        assert code == 0, err
        run_ids.append(json.loads(out)["summary"]["run_id"])
    code, out, _ = await run(capsys, env, "compare", *run_ids, "--config", priced)
    line = next(line for line in out.splitlines() if line.startswith("cost:"))
    assert line == "cost: A $0.0480 ($0.0120 a sample) vs B unknown"
