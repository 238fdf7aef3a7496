"""ADR-016's ballots in whole council runs on the fake upstream: read as holistic, ranked, recorded and shown.

alpha reviews as Council's prompt asks; beta answers with the ADR's example
ballot (four dimensions and an overall, no relevance), gamma with the ADR's
holistic ballot (a ranking and one score per answer), delta with a ranking
alone. Each member's answer carries its quality, which every reviewer scores.
"""

from __future__ import annotations

import asyncio
import json
import os
import re

import pytest

from council import Council
from council.cli import main
from council.config import CouncilConfig
from council.review.prompt import ReviewTask
from council.rubrics import load_rubric
from council.testing.fake_llm import FakeLLMServer, RecordedRequest, Step
from council.testing.scripted import council_member, honest_ballot

RUBRIC = load_rubric("default", quiet=True)
QUALITY = {"alpha": 9, "beta": 7, "gamma": 5, "delta": 3}


def quality(text: str) -> int:
    match = re.search(r"quality=(\d+)", text)
    return int(match.group(1)) if match else 1


def ranked(task: ReviewTask) -> tuple[dict[str, int], list[str]]:
    scores = {c.label: quality(c.text) for c in task.candidates}
    return scores, sorted(scores, key=lambda label: -scores[label])


def adr_example_ballot(task: ReviewTask, request: RecordedRequest) -> str:
    """The ADR's example ballot: four dimensions, the overall, notes; as the ADR asks, a JSON block at the end."""
    scores, ranking = ranked(task)
    evaluations = {label: {"accuracy": s, "completeness": s, "conciseness": s, "clarity": s, "overall": s,
                           "notes": "Scored on the ADR's four criteria."} for label, s in scores.items()}
    ballot = json.dumps({"ranking": ranking, "evaluations": evaluations})
    return "Here is my evaluation.\n\n```json\n" + ballot + "\n```"


def adr_holistic_ballot(task: ReviewTask, request: RecordedRequest) -> str:
    scores, ranking = ranked(task)
    return json.dumps({"ranking": ranking, "scores": scores})


def ranking_only(task: ReviewTask, request: RecordedRequest) -> str:
    return json.dumps({"ranking": ranked(task)[1]})


def honest(task: ReviewTask, request: RecordedRequest) -> str:
    return honest_ballot(task, quality)


REVIEWS = {"alpha": honest, "beta": adr_example_ballot, "gamma": adr_holistic_ballot, "delta": ranking_only}


def script(fake: FakeLLMServer, reviews: dict[str, object]) -> None:
    for name in QUALITY:
        answer = f"{name} says the answer is 42. quality={QUALITY[name]}"
        fake.script(f"model-{name}", Step(reply=council_member(answer, review=reviews[name])))  # type: ignore[arg-type]


def config(fake: FakeLLMServer) -> dict[str, object]:
    return {"members": [{"name": name, "provider": "openai", "model": f"model-{name}",
                         "base_url": fake.base_url("openai")} for name in QUALITY],
            "chairman": None, "retry": {"max_attempts": 1, "initial_backoff_s": 0.01, "jitter_s": 0},
            "stages": {"member_timeout_s": 5, "stage_deadline_s": 5, "quorum": 2}}


async def test_the_adr_ballots_are_read_as_holistic_ranked_and_recorded(fake_llm):
    script(fake_llm, REVIEWS)
    events = []
    async with Council(CouncilConfig.model_validate(config(fake_llm)), environ={}) as council:
        result = await council.ask("What is six times seven?", on_event=events.append)
    reviews = {r.reviewer: r for r in result.reviews}
    assert reviews["alpha"].status == "ok" and reviews["alpha"].holistic == {}
    assert reviews["beta"].status == "ok" and reviews["beta"].holistic == {m: ["relevance"] for m in
                                                                             reviews["beta"].order}
    assert reviews["gamma"].status == "ok"
    assert reviews["gamma"].holistic == {m: RUBRIC.dimension_ids() for m in reviews["gamma"].order}
    assert reviews["delta"].status == "failed" and reviews["delta"].error is not None
    assert reviews["delta"].error.reason == "parse" and reviews["delta"].error.message == "evaluations is missing"
    # The holistic score stands in for the missing dimensions in the overall the aggregation ranks on.
    beta_on_alpha = reviews["beta"].scores["alpha"]
    assert beta_on_alpha.reported_overall == 9 and "relevance" not in beta_on_alpha.normalized
    assert beta_on_alpha.overall == round(RUBRIC.unit_score(beta_on_alpha.normalized, holistic=0.9), 4)
    assert reviews["gamma"].scores["alpha"].overall == 0.9 and reviews["gamma"].scores["delta"].overall == 0.3
    assert [e.member for e in result.ranking] == ["alpha", "beta", "gamma", "delta"]
    # The holistic reviews count, delta's failed one does not (delta's own answer had the three others).
    assert {e.member: e.n_reviews for e in result.ranking} == {"alpha": 2, "beta": 2, "gamma": 2, "delta": 3}
    # Nobody scored relevance for alpha's answer (alpha does not review itself): the holistic scores stand in.
    verdict = result.ranking[0].verdict
    assert verdict is not None and verdict.holistic == ["relevance"]
    relevance = next(c for c in verdict.criteria if c.id == "relevance")
    assert relevance.score == pytest.approx(0.9) and "holistic score stands in" in relevance.notes
    # beta's relevance was scored by alpha's full ballot: no stand-in there.
    assert result.ranking[1].verdict is not None and result.ranking[1].verdict.holistic == []
    sent = {e.data["reviewer"]: e.data for e in events if e.kind == "review"}
    assert sent["beta"]["holistic"] == reviews["beta"].holistic and "holistic" not in sent["alpha"]


async def test_every_reviewer_holistic_still_ranks_and_the_verdicts_use_the_holistic_scores(fake_llm):
    script(fake_llm, {name: adr_holistic_ballot for name in QUALITY})
    async with Council(CouncilConfig.model_validate(config(fake_llm)), environ={}) as council:
        result = await council.ask("What is six times seven?")
    assert all(r.status == "ok" for r in result.reviews)
    assert [e.member for e in result.ranking] == ["alpha", "beta", "gamma", "delta"]
    for entry in result.ranking:
        assert entry.verdict is not None and entry.verdict.holistic == RUBRIC.dimension_ids()
        assert entry.verdict.score == pytest.approx(QUALITY[entry.member] / 10, abs=1e-4)


async def test_the_report_and_the_stored_run_show_the_holistic_ballots(fake_llm, tmp_path, capsys):
    script(fake_llm, REVIEWS)
    path = tmp_path / "council.yaml"
    path.write_text(json.dumps({**config(fake_llm), "storage": {"path": str(tmp_path / "runs.db")}}),
                    encoding="utf-8")
    env = {"PATH": os.environ.get("PATH", "")}
    code = await asyncio.to_thread(main, ["ask", "What is six times seven?", "--config", str(path), "--json",
                                          "--quiet"], env)
    stored = json.loads(capsys.readouterr().out)
    assert code == 0
    holistic = {r["reviewer"]: r.get("holistic") for r in stored["reviews"]}
    assert holistic["alpha"] is None and set(holistic["gamma"]) == {"alpha", "beta", "delta"}
    code = await asyncio.to_thread(main, ["show", stored["run_id"], "--config", str(path)], env)
    report = capsys.readouterr().out
    assert code == 0
    assert re.search(r"holistic ballot: beta gave [a-z, ]+ an overall score without relevance", report), report
    assert "holistic ballot: gamma gave" in report and "holistic ballot: alpha" not in report
    assert "reviews failed: delta (parse)" in report
