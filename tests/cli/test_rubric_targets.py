"""``council rubric`` with structured targets: evaluate --target, the review flow, and the registry operations."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from council.cli import main
from council.config_errors import read_yaml
from council.errors import StorageError
from council.rubrics import load_rubric
from council.rubrics.load import parse_rubrics
from council.storage import Store

FIXTURES = Path(__file__).parents[1] / "rubrics" / "fixtures"
QUIZ = str(FIXTURES / "dataknobs_quiz.yaml")
CONFIG = FIXTURES / "dataknobs_config.yaml"


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "rubrics.db")}


def target(tmp_path: Path, name: str, content: object) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    return str(path)


def run(capsys, env, *argv: str) -> tuple[int, str, str]:
    code = main(["rubric", *argv], env)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_evaluate_a_json_target(capsys, env, tmp_path):
    no_chairman = tmp_path / "plain.yaml"
    no_chairman.write_text("members:\n  - {name: a, provider: simulated, model: sim-a}\n"
                           "  - {name: b, provider: simulated, model: sim-b}\n", encoding="utf-8")
    quiz = target(tmp_path, "bio-quiz", {"title": "Cells", "questions": [f"Q{i}" for i in range(5)]})
    code, out, _ = run(capsys, env, "evaluate", QUIZ, "--target", quiz, "--config", str(no_chairman))
    assert code == 0 and out.startswith("Evaluation PASSED for rubric 'Quiz Quality'.\nOverall score: 100%"), \
        "without a chairman the summary is the deterministic one"
    code, out, _ = run(capsys, env, "evaluate", QUIZ, "--target", target(tmp_path, "short", {"questions": ["Q"]}),
                       "--json")
    data = json.loads(out)
    assert code == 1 and data["status"] == "needs_revision" and data["target_id"] == "short"
    (evaluation,) = data["evaluations"]
    assert evaluation["rubric_id"] == "quiz_quality" and evaluation["criterion_results"][0]["level_id"] == "fail"


def test_the_review_flow_approves_only_when_every_rubric_passes(capsys, env, tmp_path):
    shape = str(CONFIG)
    assert run(capsys, env, "register", shape)[0] == 0
    good = target(tmp_path, "quiz-7", {"title": "Cells", "questions": [f"Q{i}" for i in range(5)]})
    code, out, _ = run(capsys, env, "review", good, "--rubric", QUIZ, "--rubric", "quiz_shape")
    assert code == 0 and out.strip().endswith("quiz-7: approved (2 of 2 rubrics passed)")
    untitled = target(tmp_path, "quiz-8", {"questions": [f"Q{i}" for i in range(5)]})
    code, out, _ = run(capsys, env, "review", untitled, "--rubric", QUIZ, "--rubric", "quiz_shape")
    assert code == 1 and out.strip().endswith("quiz-8: needs_revision (1 of 2 rubrics passed)")
    store = Store(env["COUNCIL_DB_PATH"])
    try:
        stored = store.target_evaluations("quiz-8")
        assert [(e.rubric_id, e.passed) for e in stored] == [("quiz_quality", True), ("quiz_shape", False)]
        assert [e.rubric_id for e in store.target_evaluations("quiz-7")] == ["quiz_quality", "quiz_shape"]
    finally:
        store.close()


def test_bad_targets_and_arguments_are_named(capsys, env, tmp_path):
    code, _, err = run(capsys, env, "evaluate", QUIZ, "--target", target(tmp_path, "list", [1, 2]))
    assert code == 2 and "the target must be a JSON object, not list" in err
    broken = tmp_path / "broken.json"
    broken.write_text("{nope", encoding="utf-8")
    code, _, err = run(capsys, env, "evaluate", QUIZ, "--target", str(broken))
    assert code == 2 and "not valid JSON" in err
    code, _, err = run(capsys, env, "evaluate", QUIZ, "--target", str(broken), "--question", "q")
    assert code == 2 and "--question and --answer are for answers" in err


def test_every_registry_operation(tmp_path):
    store = Store(tmp_path / "registry.db")
    try:
        for _where, rubric, _warnings in parse_rubrics(read_yaml(CONFIG), str(CONFIG)):
            assert store.register_rubric(rubric)
        assert [r[0] for r in store.list_rubrics()] == ["lesson_plan", "quiz_shape"], "many from one config"
        assert [r.id for r in store.rubrics_for_target("content")] == ["quiz_shape"]
        shape = store.get_rubric("quiz_shape")
        newer = shape.model_copy(update={"version": "1.1.0", "pass_threshold": 0.9})
        store.update_rubric(newer)
        assert store.get_rubric("quiz_shape").version == "1.1.0", "latest"
        assert store.get_rubric("quiz_shape@1.0.0").pass_threshold == 0.5, "a given version"
        with pytest.raises(StorageError, match=r"newer than 1\.1\.0"):
            store.update_rubric(newer.model_copy(update={"version": "1.0.5"}))
        with pytest.raises(StorageError, match="not registered"):
            store.update_rubric(load_rubric(QUIZ, quiet=True))
        assert store.delete_rubric("quiz_shape") == 2
        assert store.get_rubric("quiz_shape") is None, "the latest pointer is gone"
        assert store.get_rubric("quiz_shape@1.1.0", include_deleted=True).version == "1.1.0", "versions are kept"
        assert store.rubrics_for_target("content") == []
    finally:
        store.close()
