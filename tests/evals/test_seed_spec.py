"""The evaluation spec's own definitions, run through ``council eval`` as its users would.

Each test takes one rule of the spec as it is written (its aggregate names,
``tokens_per_correct_answer``, ``faithfulness_failure_rate``, the exact
evaluator template, the required run metadata, the reproducibility controls)
and checks what a whole CLI run against the fake upstream reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
from pathlib import Path

import pytest

from council.assets import load_prompt, prompt_hash
from council.cli.app import main
from council.review.evaluation import EvaluationTask
from council.review.prompt import read_review_task
from council.testing.fake_llm import FakeLLMServer, RecordedRequest, Step
from council.testing.scripted import council_member, request_messages, strict_verdict
from tests.evals.conftest import PROVIDERS, fake_council_file, knows

SEEDS = Path(__file__).parents[2].parent / "shared" / "seeds"
SPEC_AGGREGATES = (
    "accuracy_mean", "accuracy_full_credit_rate", "faithfulness_mean", "faithfulness_failure_rate",
    "latency_e2e_p50_ms", "latency_e2e_p95_ms", "latency_model_p50_ms", "latency_model_p95_ms",
    "total_input_tokens", "total_output_tokens", "total_tokens", "token_efficiency_ratio_mean",
    "tokens_per_correct_answer", "aggregate_score", "pass_rate",
)
SPEC_METADATA = (
    "run_id", "timestamp_utc", "dataset_id", "dataset_version_or_hash", "model_id", "model_version",
    "evaluator_model_id", "evaluator_model_version", "prompt_template_id", "prompt_template_version_or_hash",
    "evaluator_prompt_template_version_or_hash", "generation_params", "code_version", "environment",
)


def script(fake: FakeLLMServer, evaluate=None) -> None:
    for member in PROVIDERS:
        fake.script(f"model-{member}", Step(reply=council_member(knows(member), evaluate=evaluate)))


async def cli(fake: FakeLLMServer, tmp_path: Path, *extra: str, env: dict[str, str] | None = None,
              config: Path | None = None) -> tuple[int, dict | str, str]:
    """``council eval`` on the four-question dataset; (exit code, the JSON or the text printed, stderr)."""
    from tests.evals.conftest import write_dataset

    dataset = write_dataset(tmp_path / "questions.jsonl")
    config = config or fake_council_file(tmp_path, fake)
    evaluator = [] if "--judge" in extra else ["--evaluator", "beta"]
    argv = ["eval", str(dataset), "--config", str(config), "--no-report", *evaluator, *extra]
    environ = {"PATH": os.environ.get("PATH", ""), **(env or {})}

    def call() -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv, environ)
        return code, out.getvalue(), err.getvalue()

    code, out, err = await asyncio.to_thread(call)
    return code, json.loads(out) if "--json" in extra else out, err


async def test_the_summary_uses_the_spec_aggregate_names_and_keeps_the_old_ones_as_aliases(fake_llm, tmp_path):
    script(fake_llm)
    _, data, _ = await cli(fake_llm, tmp_path, "--json")
    metrics = data["summary"]["subjects"]["council"]["metrics"]
    assert set(SPEC_AGGREGATES) <= set(metrics)
    assert (metrics["input_tokens_total"], metrics["output_tokens_total"], metrics["total_tokens_total"]) == \
        (metrics["total_input_tokens"], metrics["total_output_tokens"], metrics["total_tokens"])
    _, text, _ = await cli(fake_llm, tmp_path)
    shown = {line.split()[0] for line in text.splitlines() if line.strip()}
    assert set(SPEC_AGGREGATES) <= shown and "total_tokens_total" not in shown


async def test_tokens_per_correct_answer_divides_by_at_least_one(fake_llm, tmp_path):
    # No answer gets accuracy 2: the spec's total_tokens / max(count(accuracy_score = 2), 1) is the total.
    script(fake_llm, evaluate=lambda task, request: strict_verdict(1, 2, "Partly right."))
    _, data, _ = await cli(fake_llm, tmp_path, "--json")
    metrics = data["summary"]["subjects"]["council"]["metrics"]
    assert metrics["accuracy_full_credit_rate"] == 0.0
    assert metrics["tokens_per_correct_answer"] == metrics["total_tokens"] > 0


def mostly_unparseable(task: EvaluationTask, request: RecordedRequest) -> str:
    """A well-formed verdict on the France question only; prose (a parse error, twice) on every other."""
    if "France" in task.task:
        return strict_verdict(2, 2, "Right and grounded.")
    return "The answer looks fine to me."


async def test_a_sample_without_a_faithfulness_score_never_helps_the_gate(fake_llm, tmp_path):
    script(fake_llm, evaluate=mostly_unparseable)
    code, data, _ = await cli(fake_llm, tmp_path, "--json")
    council = data["summary"]["subjects"]["council"]
    # One sample scored 2; three have no score (parse_error): they count as failures, 3 of 4.
    assert council["metrics"]["n_scored"] == 1
    assert council["metrics"]["faithfulness_failure_rate"] == 0.75
    check = next(c for c in council["gate"]["checks"] if c["metric"] == "faithfulness_failure_rate")
    assert not check["passed"] and code == 1


async def test_the_spec_template_is_sent_word_for_word_and_recorded(fake_llm, tmp_path):
    script(fake_llm)
    code, data, _ = await cli(fake_llm, tmp_path, "--json", "--evaluator-template", "spec")
    prompts = [r.messages[0]["content"] for r in fake_llm.requests_for("model-beta")
               if r.messages[0]["content"].startswith("You are a strict evaluation judge.")]
    assert len(prompts) == 4, "every answer scored with the spec's template"
    france = next(p for p in prompts if "France" in p)
    template = load_prompt("evaluator_spec.md")
    head = template.split("{{task}}")[0]
    assert france.startswith(head + "What is the capital of France?\n- reference_answer: Paris\n")
    assert france.endswith(template.split("{{candidate_answer}}")[1])
    assert "{{" not in france and "2) Do not reward style over correctness." in france
    manifest = data["manifest"]
    assert manifest["evaluator_template"] == "spec"
    assert manifest["prompt_hashes"]["evaluator_spec.md"] == prompt_hash("evaluator_spec.md")
    assert "evaluator.md" not in manifest["prompt_hashes"]
    assert data["metadata"]["evaluator_prompt_template_version_or_hash"] == prompt_hash("evaluator_spec.md")
    assert data["summary"]["subjects"]["council"]["metrics"]["n_scored"] == 4 and code == 0


def test_the_spec_template_is_the_spec_text_exactly():
    seeds = sorted(SEEDS.glob("004_*.txt")) if SEEDS.is_dir() else []
    if not seeds:
        pytest.skip(f"the evaluation spec is not beside the checkout ({SEEDS})")
    spec = seeds[0].read_text(encoding="utf-8")
    block = spec.split("### 2.1 Evaluator prompt template (exact)\n\n```text\n", 1)[1].split("\n```", 1)[0]
    assert load_prompt("evaluator_spec.md") == block + "\n"


async def test_the_run_metadata_has_the_spec_names_and_a_region(fake_llm, tmp_path):
    script(fake_llm)
    _, data, _ = await cli(fake_llm, tmp_path, "--json")
    metadata = data["metadata"]
    assert tuple(metadata)[:len(SPEC_METADATA)] == SPEC_METADATA
    assert metadata["environment"]["region"] == "unknown"
    assert metadata["generation_params"] == {"temperature": 0.0, "top_p": 1.0, "max_tokens": 1024, "seed": 42}
    assert metadata["model_id"] == "model-alpha + model-beta + model-gamma"
    assert metadata["evaluator_model_id"] == "model-beta" and metadata["evaluator_model_version"] == "model-beta"
    assert metadata["prompt_template_id"].startswith("council:") and metadata["dataset_version_or_hash"].startswith(
        "sha256:")
    _, data, _ = await cli(fake_llm, tmp_path, "--json", env={"COUNCIL_REGION": "eu-west-1"})
    assert data["metadata"]["environment"]["region"] == "eu-west-1"
    config = fake_council_file(tmp_path, fake_llm, name="regional.yaml")
    config.write_text(config.read_text(encoding="utf-8") + "evaluation: {region: us-east-2}\n", encoding="utf-8")
    _, data, _ = await cli(fake_llm, tmp_path, "--json", config=config)
    assert data["metadata"]["environment"]["region"] == "us-east-2"
    _, data, _ = await cli(fake_llm, tmp_path, "--json", "--judge", "alpha", "--members", "beta", config=config)
    assert (data["metadata"]["model_id"], data["metadata"]["prompt_template_id"]) == ("model-beta", "task-as-given")


async def test_reviews_get_the_pinned_generation_settings(fake_llm, tmp_path):
    script(fake_llm)
    await cli(fake_llm, tmp_path, "--json")
    reviews = [r for r in fake_llm.requests_for("model-alpha") if read_review_task(request_messages(r))]
    assert reviews, "alpha reviewed"
    for review in reviews:  # alpha speaks OpenAI's API on the fake: every setting, the seed included
        assert {k: review.body.get(k) for k in ("temperature", "top_p", "max_tokens", "seed")} == \
            {"temperature": 0.0, "top_p": 1.0, "max_tokens": 1024, "seed": 42}


async def test_a_floating_alias_is_refused_unless_allowed(fake_llm, tmp_path):
    script(fake_llm)
    config = fake_council_file(tmp_path, fake_llm, name="floating.yaml")
    config.write_text(config.read_text(encoding="utf-8").replace("model: model-gamma", "model: model-gamma-latest"),
                      encoding="utf-8")
    fake_llm.script("model-gamma-latest", Step(reply=council_member(knows("gamma"))))
    code, out, err = await cli(fake_llm, tmp_path, config=config)
    assert (code, out) == (2, "")
    assert "floating model alias: gamma (model-gamma-latest)" in err and "--allow-floating-models" in err
    code, out, err = await cli(fake_llm, tmp_path, "--allow-floating-models", config=config)
    assert code in (0, 1) and "model 'model-gamma-latest' is a floating alias" in err


async def test_fewer_than_three_repeats_get_a_notice(fake_llm, tmp_path):
    script(fake_llm)
    _, _, err = await cli(fake_llm, tmp_path, "--quiet")
    assert "the evaluation spec asks for at least 3 repeats" in err
    _, _, err = await cli(fake_llm, tmp_path, "--quiet", "--repeat", "3")
    assert "repeats" not in err
