"""``council calibrate``: reviewer weights learned from an eval run, used by ``review.weighting: learned``.

Four members on the fake upstream over real HTTP. ``sage`` reviews by the
reference answer; ``b1``, ``b2`` and ``b3`` score answers by their length.
``b1`` answers right and briefly, ``b2`` wrong at length: with equal weights
the three length-lovers put b2's answer on top; after one ``council eval
--score-candidates`` and ``council calibrate``, a ``learned`` council ranks
b1's answer first, as sage does, until sage's model changes.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from council.cli.app import main
from council.review.prompt import ReviewTask
from council.simulation.honest import honest_ballot
from council.testing.fake_llm import FakeLLMServer, RecordedRequest, Step
from council.testing.scripted import council_member
from tests.evals.conftest import QUESTIONS, write_dataset

LENIENT = ["--min-aggregate-score", "0", "--min-pass-rate", "0", "--max-faithfulness-failure-rate", "1",
           "--min-accuracy", "0", "--max-sample-tokens", "1000000", "--max-sample-latency-ms", "600000",
           "--max-latency-p95-ms", "600000"]
MEMBERS = ("sage", "b1", "b2", "b3")
QUESTION_FOR_ASK = "What is the capital of France?"


def _reference(text: str) -> str | None:
    return next((ref for question, ref in QUESTIONS.values() if question in text), None)


def _answer(member: str):
    def answer(request: RecordedRequest) -> str:
        reference = _reference(request.last_user_text) or "it"
        if member == "b1":
            return f"{reference}."
        if member == "b2":
            return "I am quite sure the answer is something else entirely, " + "and here is why at length; " * 6
        return f"{member} thinks it is hard to say which, on balance."
    return answer


def _by_reference(task: ReviewTask, request: RecordedRequest) -> str:
    reference = _reference(" ".join(m["content"] for m in request.messages)) or "?"
    return honest_ballot(task, lambda text: 9 if reference.lower() in text.lower() else 3)


def _by_length(task: ReviewTask, request: RecordedRequest) -> str:
    return honest_ballot(task, lambda text: len(text) / 15)


def script(fake: FakeLLMServer) -> None:
    for member in MEMBERS:
        review = _by_reference if member == "sage" else _by_length
        fake.script(f"model-{member}", Step(reply=council_member(_answer(member), review=review)))
    fake.script("model-sage-2", Step(reply=council_member(_answer("sage"), review=_by_reference)))


def council_file(tmp_path: Path, fake: FakeLLMServer, weighting: str | None, sage_model: str = "model-sage",
                 name: str = "council.yaml") -> Path:
    url = fake.base_url("openai")
    members = "".join(f"  - {{name: {m}, provider: openai, model: {sage_model if m == 'sage' else 'model-' + m}, "
                      f"base_url: '{url}'}}\n" for m in MEMBERS)
    review = f"review: {{weighting: {weighting}}}\n" if weighting else ""
    path = tmp_path / name
    path.write_text(f"members:\n{members}chairman: sage\n{review}"
                    "retry: {max_attempts: 1, initial_backoff_s: 0.01, jitter_s: 0}\n"
                    "stages: {member_timeout_s: 10, stage_deadline_s: 10, quorum: 1}\n"
                    f"storage: {{path: '{tmp_path / 'council.db'}'}}\n", encoding="utf-8")
    return path


@pytest.fixture
def env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "")}


async def cli(capsys, env: dict[str, str], *argv: str) -> tuple[int, str, str]:
    code = await asyncio.to_thread(main, list(argv), env)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


async def ask(capsys, env: dict[str, str], config: Path) -> dict:
    code, out, err = await cli(capsys, env, "ask", QUESTION_FOR_ASK, "--config", str(config), "--json")
    assert code == 0, err
    return json.loads(out)


async def eval_run(capsys, env, tmp_path: Path, config: Path, *extra: str) -> str:
    dataset = write_dataset(tmp_path / "questions.jsonl")
    code, out, err = await cli(capsys, env, "eval", str(dataset), "--config", str(config), "--evaluator", "sage",
                               "--no-report", "--quiet", "--concurrency", "2", *LENIENT, *extra)
    assert code == 0, err
    return out.split()[1].rstrip(":")


async def test_learned_weights_rank_by_the_accurate_reviewer_until_its_model_changes(fake_llm, tmp_path, capsys,
                                                                                     env):
    script(fake_llm)
    equal = council_file(tmp_path, fake_llm, "equal", name="equal.yaml")
    learned = council_file(tmp_path, fake_llm, "learned", name="learned.yaml")

    before = await ask(capsys, env, equal)
    assert before["ranking"][0]["member"] == "b2"  # the three length-lovers outvote sage
    assert before["agreement"]["weighting"] == "equal"

    run_id = await eval_run(capsys, env, tmp_path, equal, "--score-candidates")
    code, out, err = await cli(capsys, env, "calibrate", run_id, "--config", str(learned))
    assert code == 0, err
    rows = {line.split()[0]: line.split() for line in out.splitlines()[3:]}
    assert set(rows) == set(MEMBERS)
    # sage was right on all four questions; b2 and b3 on none; b1 never saw the right answer (its own) to judge.
    assert rows["sage"][2:4] == ["4", "1.000"] and rows["b2"][2:4] == ["4", "0.000"]
    assert rows["b1"][2] == "0" and float(rows["b1"][-1]) == 1.0
    assert float(rows["sage"][-1]) > 1.0 > float(rows["b3"][-1])

    after = await ask(capsys, env, learned)
    assert after["ranking"][0]["member"] == "b1"
    agreement = after["agreement"]
    assert agreement["weighting"] == "learned" and "weighting_note" not in agreement
    assert agreement["learned"]["sage"]["eval_runs"] == [run_id] and agreement["learned"]["sage"]["samples"] == 4
    assert agreement["reviewer_weights"]["sage"] == pytest.approx(float(rows["sage"][-1]), abs=0.01)
    assert agreement["reviewer_weights"]["sage"] > agreement["reviewer_weights"]["b2"]

    borda = council_file(tmp_path, fake_llm, "learned, aggregation: borda", name="borda.yaml")
    agreement = (await ask(capsys, env, borda))["agreement"]
    assert agreement["weighting"] == "equal" and "only the calibrated method weighs" in agreement["weighting_note"]

    changed = council_file(tmp_path, fake_llm, "learned", sage_model="model-sage-2", name="changed.yaml")
    reset = await ask(capsys, env, changed)
    agreement = reset["agreement"]
    assert agreement["weighting"] == "outlier" and "learned" not in agreement
    assert reset["ranking"][0]["member"] == "b2"  # without sage's learned weight the majority wins again
    assert "none for sage (openai model-sage-2)" in agreement["weighting_note"]


async def test_bad_inputs_exit_2_with_a_message(fake_llm, tmp_path, capsys, env):
    script(fake_llm)
    config = council_file(tmp_path, fake_llm, None)
    code, _, err = await cli(capsys, env, "calibrate", "nope", "--config", str(config))
    assert code == 2 and "no database at" in err and "council.db" in err

    plain = await eval_run(capsys, env, tmp_path, config)  # no --score-candidates
    code, _, err = await cli(capsys, env, "calibrate", "missing-run", "--config", str(config))
    assert code == 2 and "no evaluation run 'missing-run'" in err and plain in err
    code, _, err = await cli(capsys, env, "calibrate", plain, "--config", str(config))
    assert code == 2 and f"evaluation run {plain} did not score the members' answers" in err

    no_reference = write_dataset(tmp_path / "open.jsonl", [{"id": "o1", "task": QUESTIONS["q1"][0]}])
    code, out, err = await cli(capsys, env, "eval", str(no_reference), "--config", str(config), "--evaluator", "sage",
                               "--no-report", "--quiet", "--score-candidates", *LENIENT)
    assert code == 0, err
    open_run = out.split()[1].rstrip(":")
    code, _, err = await cli(capsys, env, "calibrate", open_run, "--config", str(config))
    assert code == 2 and "has no sample whose answers the evaluator told apart" in err

    code, _, err = await cli(capsys, env, "eval", str(no_reference), "--config", str(config), "--judge", "sage",
                             "--score-candidates", "--no-report")
    assert code == 2 and "--score-candidates: only in council mode" in err
