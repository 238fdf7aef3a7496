"""dataknobs' rubric documentation, example by example: its rubrics as files, through the CLI and the public API.

Required fields, ``schema_ref``, the meta-rubric scored as a rubric, and
``decode_output_schema`` checked on the decoding model's reply (a real
provider against the fake LLM server).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from council import evaluate_target, load_rubric, register_schema
from council.cli import main
from council.errors import ConfigError
from council.rubrics import register_check
from council.testing.fake_llm import Step

SEEDS = Path(__file__).parent / "fixtures" / "seeds"


@register_check("myapp.scoring:check_clarity")
def check_clarity(content: dict) -> str:
    """The seed's FunctionRegistry example: a registered function returning a level id."""
    return "excellent" if len(content.get("text", "")) > 40 else "pass"


def rubric_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["rubric", *argv], {"PATH": os.environ.get("PATH", "")})
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def written(tmp_path: Path, name: str, data: dict) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return str(path)


# -- item 16: required fields --------------------------------------------------------------------------------------

def test_the_seeds_rubric_loads_with_every_field(capsys):
    code, out, err = rubric_cli(capsys, "check", str(SEEDS / "dataknobs_content_quality.yaml"))
    assert code == 0, err
    assert "valid rubric content_quality@1.0.0 (dataknobs format)" in out
    rubric = load_rubric(str(SEEDS / "dataknobs_content_quality.yaml"), quiet=True)
    assert rubric.target_type == "content" and rubric.criteria[0].levels[2].indicators == [
        "Uses concrete examples", "Logical flow", "No jargon"]


@pytest.mark.parametrize(("path", "named"), [
    (("description",), "description: missing; a dataknobs rubric requires it"),
    (("target_type",), "target_type: missing; a dataknobs rubric requires it"),
    (("criteria", 0, "name"), "criteria[0] (clarity).name: missing; a dataknobs criterion requires it"),
    (("criteria", 0, "weight"), "criteria[0] (clarity).weight: missing; a dataknobs criterion requires it"),
    (("criteria", 0, "levels", 1, "description"),
     "criteria[0] (clarity).levels[1].description: missing; a dataknobs level requires it"),
])
def test_a_missing_required_field_is_named_with_where_it_is(capsys, tmp_path, path, named):
    data = yaml.safe_load((SEEDS / "dataknobs_content_quality.yaml").read_text(encoding="utf-8"))
    holder = data
    for step in path[:-1]:
        holder = holder[step]
    del holder[path[-1]]
    file = written(tmp_path, "incomplete.yaml", data)
    code, _, err = rubric_cli(capsys, "check", file)
    assert code == 2 and f"config error in {file}: {named}" in err, err
    with pytest.raises(ConfigError, match=named.split(":")[0].replace("[", r"\[").replace("]", r"\]")
                       .replace("(", r"\(").replace(")", r"\)")):
        load_rubric(file, quiet=True)


# -- item 14: schema_ref ------------------------------------------------------------------------------------------

def test_schema_ref_is_a_file_relative_to_the_rubric(capsys, tmp_path, monkeypatch):
    rubric_file = str(SEEDS / "dataknobs_schema_ref.yaml")
    code, out, err = rubric_cli(capsys, "check", rubric_file)
    assert code == 0, err
    rubric = load_rubric(rubric_file, quiet=True)
    (criterion,) = rubric.criteria
    assert criterion.schema_ref == "schemas/questions.json"
    assert criterion.json_schema["properties"]["questions"]["minItems"] == 1
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"questions": ["Q1", "Q2"]}), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"questions": [1, 2]}), encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the schema is found beside the rubric, wherever the command runs
    code, out, _ = rubric_cli(capsys, "evaluate", rubric_file, "--target", str(good), "--json")
    assert code == 0 and json.loads(out)["evaluations"][0]["passed"]
    code, out, _ = rubric_cli(capsys, "evaluate", rubric_file, "--target", str(bad), "--json")
    (evaluation,) = json.loads(out)["evaluations"]
    assert code == 1 and evaluation["criterion_results"][0]["level_id"] == "fail"
    assert "questions/0: 1 is not of type 'string'" in evaluation["criterion_results"][0]["evidence"]


async def test_schema_ref_names_a_registered_schema(tmp_path):
    register_schema("quiz-questions-v1", json.loads((SEEDS / "schemas" / "questions.json").read_text()))
    data = yaml.safe_load((SEEDS / "dataknobs_schema_ref.yaml").read_text(encoding="utf-8"))
    data["criteria"][0]["scoring_method"]["schema_ref"] = "quiz-questions-v1"
    rubric = load_rubric(written(tmp_path, "registered.yaml", data), quiet=True)
    evaluation = await evaluate_target(rubric, {"questions": []}, target_id="empty")
    assert not evaluation.passed and "questions: [] should be non-empty" in evaluation.criterion_results[0].evidence[0]


def test_a_schema_ref_that_cannot_be_resolved_is_named(capsys, tmp_path):
    data = yaml.safe_load((SEEDS / "dataknobs_schema_ref.yaml").read_text(encoding="utf-8"))
    data["criteria"][0]["scoring_method"]["schema_ref"] = "schemas/missing.json"
    file = written(tmp_path, "dangling.yaml", data)
    code, _, err = rubric_cli(capsys, "check", file)
    assert code == 2
    assert ("criteria[0] (questions_listed).scoring_method.schema_ref: cannot be resolved: 'schemas/missing.json' "
            "is neither a registered schema") in err
    assert str(tmp_path / "schemas" / "missing.json") in err


# -- item 15: the meta-rubric scored as a rubric ----------------------------------------------------------------

def test_the_meta_rubric_scores_the_end_to_end_rubric(capsys):
    code, out, _ = rubric_cli(capsys, "check", "--meta", str(SEEDS / "dataknobs_quiz_quality.yaml"))
    assert code == 0
    assert "quiz_quality@1.0.0: meta-rubric score 100% (pass at 70%): structurally valid" in out
    code, out, _ = rubric_cli(capsys, "check", "--meta", str(SEEDS / "dataknobs_content_quality.yaml"))
    # One criterion of weight 0.4: the weights do not sum to 1, one check of five fails: 80%, still valid.
    assert code == 0 and "meta-rubric score 80% (pass at 70%): structurally valid" in out
    assert "weight_distribution: fail (weights sum to 0.400" in out


def test_severe_findings_are_scored_not_a_load_error(capsys, tmp_path):
    data = yaml.safe_load((SEEDS / "dataknobs_quiz_quality.yaml").read_text(encoding="utf-8"))
    data["pass_threshold"] = 0
    data["criteria"][0]["levels"].reverse()
    file = written(tmp_path, "backwards.yaml", data)
    code, out, err = rubric_cli(capsys, "check", "--meta", file)
    assert code == 1 and err == ""
    assert "meta-rubric score 60% (pass at 70%): NOT structurally valid" in out
    assert "threshold_reasonableness: too_low" in out and "level_ordering: fail" in out
    assert "levels must be ordered by score" in out, "what would stop it loading is still said"
    assert rubric_cli(capsys, "check", file)[0] == 2, "without --meta it stops the load as before"


# -- item 18: decode_output_schema ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("reply", "level", "reason"), [
    ('{"level_id": "pass"}', "pass", None),
    ('```json\n{"level_id": "fail"}\n```', "fail", None),
    ('{"level": "pass"}', "unable_to_evaluate", "(root): 'level_id' is a required property"),
    ("pass", "unable_to_evaluate", "the reply holds no JSON object"),
    ('{"level_id": 1}', "unable_to_evaluate", "level_id: 1 is not of type 'string'"),
    ('{"level_id": "great"}', "unable_to_evaluate", "its level_id 'great' is not one of fail, pass"),
])
async def test_a_decode_reply_is_checked_against_the_output_schema(fake_llm, make_provider, reply, level, reason):
    rubric = load_rubric(str(SEEDS / "dataknobs_llm_decode.yaml"), quiet=True)
    fake_llm.script("decoder", Step(reply=reply))
    evaluation = await evaluate_target(rubric, {"questions": ["Why do leaves fall?", "What if the sun went out?"]},
                                       decoder=make_provider("openai", "decoder"))
    (result,) = evaluation.criterion_results
    assert result.level_id == level
    if reason is None:
        assert "decode_output_schema" in result.notes
    else:
        assert "does not match decode_output_schema" in result.notes or "matches decode_output_schema" in result.notes
        assert reason in result.notes
        assert result.llm_invocation is not None, "the call is recorded even when its reply is refused"
    (request,) = fake_llm.requests_for("decoder")
    assert '"required": ["level_id"]' in request.messages[0]["content"], "the model is shown the schema"
    assert "- Why do leaves fall?" in request.messages[1]["content"]
