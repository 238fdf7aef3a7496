"""AgentV's own "Code Review Rubric" example, run through ``council eval``: a failed verdict fails the run.

The eval file is ``fixtures/agentv_code_review.yaml``, written as AgentV's
rubric evaluator page shows it. The members are scripted on the fake
upstream so the outcome is certain: every answer is judged right by the
evaluator (accuracy and faithfulness 2), but every reviewer gives the
required bug-detection criterion 0. The sample must then fail, and the
summary, the gate and the judge-mode leaderboard must say so.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from council.cli.app import main
from council.review.prompt import ReviewTask
from council.testing.fake_llm import FakeLLMServer, RecordedRequest, Step
from council.testing.scripted import council_member, strict_verdict
from tests.evals.conftest import PROVIDERS, fake_council_file

FIXTURE = Path(__file__).parent / "fixtures" / "agentv_code_review.yaml"


def misses_the_bug(task: ReviewTask, request: RecordedRequest) -> str:
    """A ballot scoring the bug-detection criterion 0 and every other criterion 10."""
    evaluations = {c.label: {**{d: 0 if "bug" in d else 10 for d in task.dimension_ids}, "notes": "no bug named"}
                   for c in task.candidates}
    verdict = json.dumps({"ranking": [c.label for c in task.candidates], "evaluations": evaluations})
    return f'<verdict nonce="{task.nonce}">{verdict}</verdict>'


def script(fake: FakeLLMServer) -> None:
    for member in PROVIDERS:
        fake.script(f"model-{member}", Step(reply=council_member(
            "The f-string puts user_id straight into the SQL text.", review=misses_the_bug,
            evaluate=lambda task, request: strict_verdict(2, 2, "Names the problem."))))


async def run_eval(fake: FakeLLMServer, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    config = fake_council_file(tmp_path, fake, chairman="alpha")
    out = tmp_path / "out.json"
    argv = ["eval", str(FIXTURE), "--config", str(config), "--json", "--no-report", *extra]
    env = {"PATH": os.environ.get("PATH", "")}

    def call() -> int:
        import contextlib
        import io
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            code = main(argv, env)
        out.write_text(buffer.getvalue(), encoding="utf-8")
        return code

    code = await asyncio.to_thread(call)
    return code, json.loads(out.read_text(encoding="utf-8"))


async def test_a_failed_required_criterion_counts_in_pass_rate_failures_and_the_gate(fake_llm, tmp_path):
    script(fake_llm)
    code, data = await run_eval(fake_llm, tmp_path)
    council = data["summary"]["subjects"]["council"]
    assert council["metrics"]["accuracy_mean"] == 2.0, "the evaluator found the answer right"
    assert council["metrics"]["pass_rate"] == 0.0
    assert council["n_failed"] == 1
    assert council["failed_because"] == {"rubric": 1}
    pass_rate = next(c for c in council["gate"]["checks"] if c["metric"] == "pass_rate")
    assert pass_rate["value"] == 0.0 and not pass_rate["passed"]
    assert data["summary"]["gate_passed"] is False and code == 1


async def test_in_judge_mode_the_leaderboard_counts_the_failed_verdict(fake_llm, tmp_path):
    script(fake_llm)
    code, data = await run_eval(fake_llm, tmp_path, "--judge", "alpha", "--members", "beta,gamma")
    for member in ("beta", "gamma"):
        assert data["summary"]["subjects"][member]["metrics"]["pass_rate"] == 0.0
        assert data["summary"]["subjects"][member]["failed_because"] == {"rubric": 1}
    entries = data["summary"]["leaderboard"]["entries"]
    assert {e["member"]: e["dimensions"]["pass_rate"]["mean"] for e in entries} == {"beta": 0.0, "gamma": 0.0}
    assert code == 1
