"""AgentV eval files as datasets: each evalcase a sample judged by its rubrics, reported through the gate."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from council.cli import main
from council.evals.dataset import DatasetError, load_dataset
from council.evals.records import EvalStore

FIXTURE = Path(__file__).parents[1] / "rubrics" / "fixtures" / "agentv_review.yaml"


def test_evalcases_become_samples_with_their_rubrics():
    dataset = load_dataset(FIXTURE)
    first, second = dataset.samples
    assert first.id == "unchecked-input" and first.messages[0].content.startswith("Review: subprocess.run(")
    assert first.reference_answer.startswith("Flags the handler")
    assert second.question == "Hello there!" and second.reference_answer == "A short friendly greeting"
    assert [r.id for r in dataset.rubrics["unchecked-input"]] == ["api-review-eval.review_quality"]
    (combined,) = dataset.rubrics["friendly-reply"]
    assert len(combined.criteria) == 5, "file-level and inline criteria combined"


@pytest.mark.parametrize(("case", "message"), [
    ({"id": "x", "expected_outcome": "y"}, "evalcases[0]: field 'input': missing"),
    ({"id": "x", "input": [{"role": "robot", "content": "hi"}]}, "field 'input[0].role'"),
    ({"id": "x", "input": "hi", "expected_outcome": 5}, "field 'expected_outcome'"),
])
def test_bad_evalcases_are_named_in_agentv_terms(tmp_path, case, message):
    path = tmp_path / "eval.yaml"
    path.write_text(json.dumps({"name": "e", "execution": {"evaluators": [
        {"name": "q", "type": "rubric", "rubrics": ["Is correct"]}]}, "evalcases": [case]}), encoding="utf-8")
    with pytest.raises(DatasetError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_dataset(path)


def weak_council(tmp_path: Path) -> Path:
    """Simulated members whose answers are mostly filler, judged by reviewers who see it."""
    members = "".join(f"  - {{name: {name}, provider: simulated, model: sim-{name}, persona: {{quality: 0.05, "
                      f"leniency: -1.5, noise: 0.1, verbosity: terse, latency_ms: 0}}}}\n" for name in ("dim", "dull"))
    path = tmp_path / "weak.yaml"
    path.write_text(f"members:\n{members}chairman: dim\n", encoding="utf-8")
    return path


def test_council_eval_runs_an_agentv_file_and_a_failed_rubric_fails_the_sample(capsys, tmp_path):
    env = {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "eval.db")}
    code = main(["eval", str(FIXTURE), "--config", str(weak_council(tmp_path)), "--json", "--report",
                 str(tmp_path / "report.html")], env)  # the default report lands in the working directory
    data = json.loads(capsys.readouterr().out)
    assert data["manifest"]["n_samples"] == 2
    store = EvalStore(tmp_path / "eval.db")
    try:
        records = {r.sample_id: r for r in store.samples(data["manifest"]["run_id"])}
    finally:
        store.close()
    assert set(records) == {"unchecked-input", "friendly-reply"}
    verdicts = {sample: [v.rubric_id for v in r.rubric_verdicts] for sample, r in records.items()}
    assert verdicts == {"unchecked-input": ["api-review-eval.review_quality"],
                        "friendly-reply": ["api-review-eval.friendly-reply"]}
    failed = [r for r in records.values() if not r.rubric_verdicts[0].passed]
    assert failed, "weak answers fail their rubric"
    for record in failed:
        assert any(c.startswith(f"rubric {record.rubric_verdicts[0].rubric_id}: failed at") for c in
                   record.failed_conditions) and not record.passed
    assert code == 1, "the gate fails"
