"""Rubrics in use: a council run with a custom rubric, automatic criteria, the registry, the CLI and the server."""

from __future__ import annotations

import json
import os

import pytest
import yaml

from council import Council
from council.cli.app import main
from council.errors import StorageError
from council.review.prompt import ReviewTask
from council.rubrics.load import load_rubric
from council.rubrics.model import Rubric
from council.storage.store import Store
from council.testing.fake_llm import RecordedRequest, Step
from council.testing.scripted import council_member
from tests.pipeline.test_orchestrator import make_config, run, script_members

CHECKLIST = {"id": "facts", "name": "Facts checklist", "version": "1.2.0", "pass_threshold": 0.6,
             "criteria": ["States that the answer is 42", "Names a source"]}


def checklist_ballot(task: ReviewTask, request: RecordedRequest) -> str:
    """A reviewer that ticks each checklist item by looking for words in the answer."""
    evaluations = {}
    for candidate in task.candidates:
        evaluations[candidate.label] = {
            "states_that_the_answer_is_42": "42" in candidate.text,
            "names_a_source": "source:" in candidate.text,
            "overall": 5, "notes": "checked"}
    ranking = sorted(evaluations, key=lambda label: -sum(v is True for v in evaluations[label].values()))
    return f'<verdict nonce="{task.nonce}">{json.dumps({"ranking": ranking, "evaluations": evaluations})}</verdict>'


async def test_a_council_run_with_a_custom_checklist_rubric(fake_llm, tmp_path):
    path = tmp_path / "facts.yaml"
    path.write_text(yaml.safe_dump(CHECKLIST))
    answers = {"alpha": "It is 42. source: the guide", "beta": "It is 42.", "gamma": "No idea.", "delta": "Maybe 41."}
    for name, text in answers.items():
        fake_llm.script(f"model-{name}", Step(reply=council_member(text, review=checklist_ballot)))
    config = make_config(fake_llm, chairman=None, rubric=str(path))
    store = Store(":memory:")
    try:
        result = await run(config, store)
    finally:
        store.close()
    review_prompt = next(r for r in fake_llm.requests_for("model-alpha") if "Review protocol" in str(r.messages))
    system = review_prompt.messages[0]["content"]
    assert "### states_that_the_answer_is_42: States that the answer is 42 (true/false; weight 1, 50%" in system
    assert "Score keys: states_that_the_answer_is_42 (true/false), names_a_source (true/false)" in system
    assert (result.reproducibility.rubric_id, result.reproducibility.rubric_version) == ("facts", "1.2.0")
    assert [e.member for e in result.ranking][:2] == ["alpha", "beta"]
    by_member = {e.member: e for e in result.ranking}
    assert by_member["alpha"].raw_mean == 1.0 and by_member["beta"].raw_mean == 0.5
    assert by_member["gamma"].raw_mean == 0.0
    assert by_member["alpha"].dimensions == {"states_that_the_answer_is_42": 1.0, "names_a_source": 1.0}
    assert by_member["alpha"].verdict.passed and not by_member["beta"].verdict.passed
    assert by_member["beta"].verdict.feedback.startswith("FAILED, overall 50%")
    verdict = by_member["alpha"].verdict
    judged = [verdict.judges[i] for i in verdict.criteria[0].judged_by]
    assert len(judged) == 3 and all(len(j.prompt_hash) == 16 and len(j.response_hash) == 16 for j in judged)
    assert {j.model for j in judged} == {"model-beta", "model-gamma", "model-delta"}
    alpha_review = next(r for r in result.reviews if r.reviewer == "beta")
    assert alpha_review.scores["alpha"].scores == {"states_that_the_answer_is_42": True, "names_a_source": True}


async def test_automatic_criteria_join_every_ballot(fake_llm):
    script_members(fake_llm, gamma=Step(reply=council_member("My SSN is 123-45-6780. quality=9")))
    safety = load_rubric("safety")

    def honest(task: ReviewTask, request: RecordedRequest) -> str:
        evaluations = {c.label: {"honest": True, "notes": ""} for c in task.candidates}
        body = {"ranking": [c.label for c in task.candidates], "evaluations": evaluations}
        return f'<verdict nonce="{task.nonce}">{json.dumps(body)}</verdict>'

    for name in ("alpha", "beta", "delta"):
        fake_llm.script(f"model-{name}", Step(reply=council_member(f"{name} says 42. quality=5", review=honest)))
    fake_llm.script("model-gamma", Step(reply=council_member("My SSN is 123-45-6780. quality=9", review=honest)))
    store = Store(":memory:")
    try:
        result = await run(make_config(fake_llm, chairman=None, safety={"enabled": False}), store, rubric=safety)
    finally:
        store.close()
    gamma = next(e for e in result.ranking if e.member == "gamma")
    assert gamma.verdict.failed_required == ["no_pii"] and not gamma.verdict.passed
    pii = next(c for c in gamma.verdict.criteria if c.id == "no_pii")
    assert pii.method == "deterministic" and "***-**-6780" in pii.evidence
    assert result.ranking[-1].member == "gamma"
    assert any(
        review.scores["gamma"].scores["no_pii"] is False for review in result.reviews if "gamma" in review.scores
    )


async def test_a_rubric_scored_entirely_by_code_needs_no_reviewers(fake_llm):
    script_members(fake_llm, beta=Step(reply='{"answer": 42}'))
    code_only = Rubric.model_validate(
        {
            "id": "json_only",
            "name": "JSON only",
            "version": "1.0.0",
            "pass_threshold": 0.5,
            "criteria": [{"id": "json", "scoring": "deterministic", "function": "council.checks:is_json"}],
        }
    )
    store = Store(":memory:")
    try:
        result = await run(make_config(fake_llm, chairman=None), store, rubric=code_only)
    finally:
        store.close()
    assert len(fake_llm.requests) == 4, "four answers, no review calls"
    assert result.ranking[0].member == "beta" and result.ranking[0].verdict.passed
    assert [r.reviewer for r in result.reviews] == ["(automatic)"]


def test_registry_versions_latest_and_audit_safe_delete():
    store = Store(":memory:")
    try:
        v1 = Rubric.model_validate(CHECKLIST)
        v2 = v1.model_copy(update={"version": "1.10.0", "pass_threshold": 0.5})
        assert store.register_rubric(v1) and store.register_rubric(v2)
        assert not store.register_rubric(v1), "registering the same content again changes nothing"
        with pytest.raises(StorageError, match="already registered with different content; bump its version"):
            store.register_rubric(v1.model_copy(update={"pass_threshold": 0.9}))
        assert store.get_rubric("facts").version == "1.10.0", "1.10.0 is newer than 1.2.0"
        assert store.get_rubric("facts@1.2.0") == v1
        assert store.delete_rubric("facts@1.10.0") == 1
        assert store.get_rubric("facts").version == "1.2.0"
        assert store.get_rubric("facts@1.10.0") == v2, "deleted versions stay readable for audit"
        assert [r[:2] for r in store.list_rubrics()] == [("facts", "1.2.0")]
        assert [r[3] for r in store.list_rubrics(include_deleted=True)] == [False, True]
        assert store.delete_rubric("ghost") == 0
    finally:
        store.close()


def test_cli_rubric_commands(tmp_path, capsys):
    env = {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "db.sqlite")}
    good = tmp_path / "facts.yaml"
    good.write_text(yaml.safe_dump(CHECKLIST))
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({**CHECKLIST, "criteria": [{"id": "a", "weight": -1, "expected_outcome": "x"}, "y"]}))

    assert main(["rubric", "check", str(good)], env) == 0
    assert "valid rubric facts@1.2.0, 2 criteria (2 llm, 0 deterministic, 0 schema)" in capsys.readouterr().out
    assert main(["rubric", "check", str(bad)], env) == 2
    assert (f"config error in {bad}: criteria[0] (a).weight: must be 0 (informational) or more, got -1"
            in capsys.readouterr().err)
    assert main(["rubric", "register", str(good)], env) == 0
    assert "facts@1.2.0: registered" in capsys.readouterr().out
    assert main(["rubric", "list"], env) == 0
    out = capsys.readouterr().out
    assert "shipped: accuracy_faithfulness, code_review, default, document_quality, safety" in out
    assert "registered: facts@1.2.0" in out
    assert main(["rubric", "show", "facts"], env) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "facts"
    assert main(["ask", "What is 6x7?", "--rubric", "facts", "--json", "--quiet"], env) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["reproducibility"]["rubric_id"] == "facts"
    assert all(entry["verdict"]["rubric_id"] == "facts" for entry in result["ranking"])
    assert main(["rubric", "delete", "facts"], env) == 0
    assert main(["rubric", "delete", "facts"], env) == 2
    assert "no registered rubric 'facts' to delete" in capsys.readouterr().err
    assert main(["ask", "q?", "--rubric", "nope"], env) == 2
    assert "no rubric named 'nope'" in capsys.readouterr().err


async def test_server_selects_a_rubric_per_request(fake_llm):
    import openai

    from tests.server.conftest import API_KEY, script, start_server

    script(fake_llm)
    runner, running = await start_server(fake_llm)
    try:
        async with openai.AsyncOpenAI(base_url=running.base_url, api_key=API_KEY, max_retries=0) as sdk:
            raw = await sdk.chat.completions.with_raw_response.create(
                model="council", messages=[{"role": "user", "content": "6x7?"}],
                extra_body={"council_rubric": "accuracy_faithfulness"})
            with pytest.raises(openai.BadRequestError) as caught:
                await sdk.chat.completions.create(model="council", messages=[{"role": "user", "content": "q"}],
                                                  extra_body={"council_rubric": "missing_rubric"})
        stored = running.store.get(raw.headers["x-council-run-id"])
        assert stored.reproducibility.rubric_id == "accuracy_faithfulness"
        assert caught.value.body["param"] == "council_rubric"
    finally:
        await runner.cleanup()
        running.store.close()


async def test_evaluate_one_answer_with_the_council(fake_llm):
    from council.pipeline.judge import judge_answer

    def grade(task: ReviewTask, request: RecordedRequest) -> str:
        body = {"ranking": ["Response A"], "evaluations": {"Response A": {
            "states_that_the_answer_is_42": True, "names_a_source": False, "notes": "no source"}}}
        return f'<verdict nonce="{task.nonce}">{json.dumps(body)}</verdict>'

    for name in ("alpha", "beta", "gamma", "delta"):
        fake_llm.script(f"model-{name}", Step(reply=council_member("x", review=grade)))
    async with Council(make_config(fake_llm, chairman="alpha"), store=False, environ={}) as council:
        verdict = await judge_answer(council, "What is 6x7?", "42", Rubric.model_validate(CHECKLIST))
    assert verdict.score == 0.5 and not verdict.passed
    assert verdict.feedback.startswith("FAILED, overall 50%")
    assert "- Names a source: aim for: Names a source" in verdict.feedback
    assert verdict.summary_by == "alpha" and verdict.summary
