"""``council eval`` re-runs reuse calls: an unchanged re-run asks nothing upstream, ``--fresh`` asks everything.

Members alpha, beta and gamma are on the fake upstream's OpenAI API, priced
and reporting usage; alpha chairs and evaluates. A sample is 3 answers, 3
reviews, 1 chairman and 1 evaluation: 8 calls, 32 for the four questions.
Every call is counted at the fake upstream and sorted by kind from its
prompt, so what a re-run asks is seen, not inferred from the manifest.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from pathlib import Path

import pytest

from council.cli.app import main
from council.review.evaluation import read_evaluation_task
from council.review.prompt import read_review_task
from council.testing.fake_llm import FakeLLMServer, RecordedRequest, Step
from council.testing.scripted import council_member, is_chairman_prompt, request_messages
from tests.evals.conftest import PRICES, QUESTIONS, USAGE, knows, partly_right, script_priced, write_dataset

LOOSE = ["--max-sample-tokens", "100000", "--max-sample-latency-ms", "60000", "--max-latency-p95-ms", "60000",
         "--min-aggregate-score", "0", "--min-pass-rate", "0", "--max-faithfulness-failure-rate", "1", "--no-report",
         "--json"]


@pytest.fixture
def env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "")}


def council_file(tmp_path: Path, fake: FakeLLMServer, chairman: str = "alpha", gamma_model: str = "model-gamma",
                 name: str = "council.yaml") -> Path:
    """The priced council with ``chairman``; every config of a test shares one database."""
    models = {"alpha": "model-alpha", "beta": "model-beta", "gamma": gamma_model}
    members = "".join(
        f"  - {{name: {member}, provider: openai, model: {models[member]}, base_url: '{fake.base_url('openai')}', "
        f"price: {json.dumps(price)}}}\n" for member, price in PRICES.items())
    path = tmp_path / name
    path.write_text(f"members:\n{members}chairman: {chairman}\n"
                    f"retry: {{max_attempts: 1, initial_backoff_s: 0.01, jitter_s: 0}}\n"
                    f"stages: {{member_timeout_s: 5, stage_deadline_s: 5, quorum: 1}}\n"
                    f"storage: {{path: '{tmp_path / 'council.db'}'}}\n", encoding="utf-8")
    return path


def kind_of(request: RecordedRequest) -> str:
    """What a request to the fake upstream was, read from its prompt."""
    messages = request_messages(request)
    if read_review_task(messages) is not None:
        return "review"
    if read_evaluation_task(messages) is not None:
        return "evaluation"
    return "chairman" if is_chairman_prompt(messages) else "answer"


async def evaluate(capsys, env: dict[str, str], fake: FakeLLMServer, *argv: str) -> tuple[dict, Counter[str]]:
    """Run ``council eval`` with ``argv``; its JSON output, and the upstream calls it made, per kind."""
    before = len(fake.requests)
    code = await asyncio.to_thread(main, ["eval", *argv, *LOOSE], env)
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out), Counter(kind_of(r) for r in fake.requests[before:])


def leaderboard(data: dict) -> list[tuple[str, float]]:
    """Each member's place and mean score (to 1e-9: sums in another order differ in the last bits)."""
    return [(e["member"], round(e["score"]["mean"], 9)) for e in data["summary"]["leaderboard"]["entries"]]


async def test_an_unchanged_rerun_asks_nothing_upstream_and_says_what_it_reused(fake_llm, tmp_path, capsys, env):
    script_priced(fake_llm)
    dataset = str(write_dataset(tmp_path / "questions.jsonl"))
    config = str(council_file(tmp_path, fake_llm))
    first, made = await evaluate(capsys, env, fake_llm, dataset, "--config", config)
    assert made == {"answer": 12, "review": 12, "chairman": 4, "evaluation": 4}
    assert first["manifest"]["reuse_calls"] is True and first["manifest"]["reused_calls"] == {}
    assert first["summary"]["cost"]["total_usd"] > 0

    again, made = await evaluate(capsys, env, fake_llm, dataset, "--config", config)
    assert made == {}  # not one upstream call
    assert again["manifest"]["reused_calls"] == {"answer": 12, "chairman": 4, "evaluation": 4, "review": 12}
    # The kept ballots parse again (their nonce put back), so the ranking and the scores are the same.
    assert leaderboard(again) == leaderboard(first)
    metrics = [run["summary"]["subjects"]["council"]["metrics"] for run in (first, again)]
    assert [m["accuracy_mean"] for m in metrics] == [metrics[0]["accuracy_mean"]] * 2
    # What the answers cost is the same (so runs compare); none of it was spent again.
    assert metrics[1]["cost_usd_total"] == pytest.approx(metrics[0]["cost_usd_total"])
    costs = [run["summary"]["cost"] for run in (first, again)]
    assert costs[0]["reused_usd"] == 0
    assert costs[1]["reused_usd"] == pytest.approx(costs[0]["total_usd"] + costs[0]["evaluator_usd"])

    # Reused calls are not paid for again, so a budget far below one sample's cost does not stop a re-run.
    budgeted, made = await evaluate(capsys, env, fake_llm, dataset, "--config", config, "--max-usd", "0.001")
    assert made == {} and budgeted["summary"]["budget"]["stopped"] is False
    assert budgeted["summary"]["budget"]["spent_usd"] == 0

    fresh, made = await evaluate(capsys, env, fake_llm, dataset, "--config", config, "--fresh")
    assert made == {"answer": 12, "review": 12, "chairman": 4, "evaluation": 4}
    assert fresh["manifest"]["reuse_calls"] is False and fresh["manifest"]["reused_calls"] == {}


async def test_a_new_chairman_reruns_only_the_chairman(fake_llm, tmp_path, capsys, env):
    script_priced(fake_llm)
    dataset = str(write_dataset(tmp_path / "questions.jsonl"))
    await evaluate(capsys, env, fake_llm, dataset, "--config", str(council_file(tmp_path, fake_llm)))
    beta_chairs = str(council_file(tmp_path, fake_llm, chairman="beta", name="beta-chairs.yaml"))
    data, made = await evaluate(capsys, env, fake_llm, dataset, "--config", beta_chairs, "--evaluator", "alpha")
    # The new chairman writes a new final answer (the fake's chairman names its model), which is then
    # evaluated anew; the members' answers and reviews are all reused.
    assert made == {"chairman": 4, "evaluation": 4}
    assert {r.model for r in fake_llm.requests[-8:] if kind_of(r) == "chairman"} == {"model-beta"}
    assert data["manifest"]["reused_calls"] == {"answer": 12, "review": 12}


async def test_a_changed_question_or_model_is_asked_again(fake_llm, tmp_path, capsys, env):
    script_priced(fake_llm)
    # The new model answers in its own words (an answer worded as before would leave the reviews unchanged).
    fake_llm.script("model-gamma-2", Step(reply=council_member(knows("gamma 2"), evaluate=partly_right), usage=USAGE))
    rows = [{"id": key, "task": q, "reference_answer": ref} for key, (q, ref) in QUESTIONS.items()]
    dataset = str(write_dataset(tmp_path / "questions.jsonl", rows))
    config = str(council_file(tmp_path, fake_llm))
    await evaluate(capsys, env, fake_llm, dataset, "--config", config)

    rows[0]["task"] = "What is the capital city of France?"
    changed = str(write_dataset(tmp_path / "changed.jsonl", rows))
    data, made = await evaluate(capsys, env, fake_llm, changed, "--config", config)
    # Only the changed question's sample is asked: 3 answers, 3 reviews, the chairman and its evaluation.
    assert made == {"answer": 3, "review": 3, "chairman": 1, "evaluation": 1}
    assert data["manifest"]["reused_calls"] == {"answer": 9, "chairman": 3, "evaluation": 3, "review": 9}

    new_model = str(council_file(tmp_path, fake_llm, gamma_model="model-gamma-2", name="gamma-2.yaml"))
    data, made = await evaluate(capsys, env, fake_llm, dataset, "--config", new_model)
    asked = [r for r in fake_llm.requests if kind_of(r) == "answer"][-made["answer"]:]
    # gamma's answers are new, so every review (which shows them) is asked again; alpha and beta's answers
    # are reused, and the chairman's prompt, which carries gamma's answer, is asked again too.
    assert made["answer"] == 4 and {r.model for r in asked} == {"model-gamma-2"}
    assert made["review"] == 12 and data["manifest"]["reused_calls"]["answer"] == 8


async def test_judge_mode_reuses_answers_and_verdicts(fake_llm, tmp_path, capsys, env):
    script_priced(fake_llm)
    dataset = str(write_dataset(tmp_path / "questions.jsonl"))
    config = str(council_file(tmp_path, fake_llm))
    _, made = await evaluate(capsys, env, fake_llm, dataset, "--config", config, "--judge", "alpha")
    assert made == {"answer": 12, "evaluation": 12}
    again, made = await evaluate(capsys, env, fake_llm, dataset, "--config", config, "--judge", "alpha")
    assert made == {} and again["manifest"]["reused_calls"] == {"answer": 12, "evaluation": 12}
    # Two repeats never stand in for each other: the second repeat asks again, the first is reused.
    _, made = await evaluate(capsys, env, fake_llm, dataset, "--config", config, "--judge", "alpha", "--repeat", "2")
    assert made == {"answer": 12, "evaluation": 12}
