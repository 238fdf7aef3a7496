"""Helpers for evaluation tests: datasets, councils on the fake upstream, fast simulated councils."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.config import load_config
from council.evals.dataset import load_dataset
from council.evals.manifest import build_manifest
from council.evals.metrics import Thresholds
from council.evals.records import RunManifest
from council.review.evaluation import EvaluationTask
from council.rubrics.load import load_rubric
from council.testing.fake_llm import FakeLLMServer, RecordedRequest, Step
from council.testing.scripted import council_member, default_verdict, strict_verdict

# Each question's reference answer; scripted members answer with it (or not), so verdicts are predictable.
QUESTIONS = {
    "q1": ("What is the capital of France?", "Paris"),
    "q2": ("Which planet is the largest?", "Jupiter"),
    "q3": ("Who wrote Hamlet?", "Shakespeare"),
    "q4": ("What is double 21?", "42"),
}
PROVIDERS = {"alpha": "openai", "beta": "anthropic", "gamma": "gemini"}


def write_dataset(path: Path, rows: list[dict] | None = None) -> Path:
    """A JSONL dataset of ``rows`` (default: the QUESTIONS, with reference answers)."""
    rows = rows if rows is not None else [{"id": key, "task": q, "reference_answer": ref}
                                          for key, (q, ref) in QUESTIONS.items()]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def knows(name: str, right: bool = True):
    """An answer function: the member names the reference answer (or a wrong one) for each question."""

    def answer(request: RecordedRequest) -> str:
        text = request.last_user_text
        for question, reference in QUESTIONS.values():
            if question in text:
                return f"{name}: the answer is {reference if right else 'unknown'}."
        return f"{name}: no idea."

    return answer


def base_url(provider: str, fake: FakeLLMServer) -> str:
    return fake.base_url(provider)


def fake_council_file(tmp_path: Path, fake: FakeLLMServer, *, chairman: str | None = None,
                      member_timeout_s: float = 5, name: str = "council.yaml") -> Path:
    """A council config whose members (alpha: openai, beta: anthropic, gamma: gemini) are on the fake upstream."""
    members = "".join(
        f"  - {{name: {member}, provider: {provider}, model: model-{member}, base_url: '{base_url(provider, fake)}'}}\n"
        for member, provider in PROVIDERS.items())
    chair = f"chairman: {chairman}\n" if chairman else ""
    path = tmp_path / name
    path.write_text(
        f"members:\n{members}{chair}"
        f"retry: {{max_attempts: 1, initial_backoff_s: 0.01, jitter_s: 0}}\n"
        f"stages: {{member_timeout_s: {member_timeout_s}, stage_deadline_s: {member_timeout_s}, quorum: 1}}\n"
        f"storage: {{path: '{tmp_path / 'council.db'}'}}\n",
        encoding="utf-8",
    )
    return path


def script_members(fake: FakeLLMServer, **steps: Step) -> None:
    """Every member answers right (beta and gamma too) unless a Step overrides it."""
    for member in PROVIDERS:
        fake.script(f"model-{member}", steps.get(member, Step(reply=council_member(knows(member)))))


def fast_simulated_file(tmp_path: Path) -> Path:
    """A simulated council with no simulated latency, for quick CLI runs."""
    personas = {"sage": (0.9, 0.0), "scout": (0.7, -0.5), "sprout": (0.5, 0.8)}
    members = "".join(
        f"  - {{name: {name}, provider: simulated, model: sim-{name}-1, persona: {{quality: {quality}, "
        f"leniency: {leniency}, noise: 0.2, verbosity: terse, latency_ms: 0}}}}\n"
        for name, (quality, leniency) in personas.items())
    path = tmp_path / "fast.yaml"
    path.write_text(f"members:\n{members}chairman: sage\n", encoding="utf-8")
    return path


# Priced members on the fake upstream's OpenAI API, every call reporting USAGE: each call's cost by hand is
# alpha 1000*2 + 100*10 = 3000 -> $0.003, beta 1000*1 + 100*10 = 2000 -> $0.002, gamma 1000*0.5 + 100*5 -> $0.001.
USAGE = {"prompt_tokens": 1000, "completion_tokens": 100}
PRICES: dict[str, dict[str, float] | None] = {
    "alpha": {"input_per_mtok": 2.0, "output_per_mtok": 10.0},
    "beta": {"input_per_mtok": 1.0, "output_per_mtok": 10.0},
    "gamma": {"input_per_mtok": 0.5, "output_per_mtok": 5.0},
}


def priced_council_file(tmp_path: Path, fake: FakeLLMServer, prices: dict[str, dict[str, float] | None],
                        name: str = "priced.yaml") -> Path:
    """alpha, beta and gamma on the fake upstream's OpenAI API (which reports the scripted usage), priced."""
    members = "".join(
        f"  - {{name: {member}, provider: openai, model: model-{member}, base_url: '{fake.base_url('openai')}'"
        + (f", price: {json.dumps(price)}" if price else "") + "}\n"
        for member, price in prices.items())
    path = tmp_path / name
    path.write_text(
        f"members:\n{members}"
        f"retry: {{max_attempts: 1, initial_backoff_s: 0.01, jitter_s: 0}}\n"
        f"stages: {{member_timeout_s: 5, stage_deadline_s: 5, quorum: 1}}\n"
        f"storage: {{path: '{tmp_path / 'council.db'}'}}\n",
        encoding="utf-8",
    )
    return path


def partly_right(task: EvaluationTask, request: RecordedRequest) -> str:
    """The evaluator's verdict: accuracy 1 on the '42' question, else the default (full marks when right)."""
    if task.reference_answer == "42":
        return strict_verdict(1, 2, "Partly right.")
    return default_verdict(task, request)


def script_priced(fake: FakeLLMServer, *, wrong: tuple[str, ...] = ()) -> None:
    """Every member answers (right, unless in ``wrong``), reviews and evaluates, each call with USAGE."""
    for member in PRICES:
        fake.script(f"model-{member}", Step(reply=council_member(knows(member, member not in wrong),
                                                                 evaluate=partly_right), usage=USAGE))


def manifest_for(tmp_path: Path, run_id: str, thresholds: Thresholds | None = None) -> RunManifest:
    """A council-mode manifest over the four-question dataset and the fast simulated council (nothing is run)."""
    config = load_config(fast_simulated_file(tmp_path), {})
    dataset = load_dataset(write_dataset(tmp_path / "d.jsonl"))
    return build_manifest(run_id=run_id, mode="council", config=config, config_path=config.source, dataset=dataset,
                          members=["sage", "scout"], evaluator="scout", judge=None, rubric=load_rubric("default"),
                          repeat=1, concurrency=1, sample_timeout_s=60, thresholds=thresholds or Thresholds())


@pytest.fixture
def dataset_file(tmp_path: Path) -> Path:
    """The four-question dataset in a temporary file."""
    return write_dataset(tmp_path / "questions.jsonl")
