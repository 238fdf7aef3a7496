"""`council ask --schema FILE`: the council's answer as one JSON value valid for the schema, alone on stdout."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from council.cli import main

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "rank": {"type": "integer", "minimum": 1,
                                                                             "maximum": 10}},
          "required": ["city", "rank"], "additionalProperties": False}
MEMBERS = ("members:\n  - {name: a, provider: simulated, model: sim-a}\n"
           "  - {name: b, provider: simulated, model: sim-b}\n  - {name: c, provider: simulated, model: sim-c}\n"
           "chairman: a\nstorage: {path: ':memory:'}\n")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "council.yaml"
    config.write_text(MEMBERS, encoding="utf-8")
    return {"COUNCIL_CONFIG": str(config)}


def test_the_object_alone_goes_to_stdout_and_the_report_to_stderr(tmp_path, env, capsys):
    schema = tmp_path / "city.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    assert main(["ask", "Name a city and rank it.", "--schema", str(schema)], env) == 0
    out, err = capsys.readouterr()
    Draft202012Validator(SCHEMA).validate(json.loads(out))
    assert "Ranking" in err or "ranking" in err.lower()


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read it"),
    ("{not json", "not valid JSON"),
    ("[1, 2]", "a JSON Schema is an object, not a list"),
    ('{"type": 5}', "not a valid JSON Schema"),
])
def test_a_bad_schema_file_is_exit_2_naming_it(tmp_path, env, capsys, content, message):
    schema = tmp_path / "schema.json"
    if content is not None:
        schema.write_text(content, encoding="utf-8")
    assert main(["ask", "Name a city.", "--schema", str(schema)], env) == 2
    _out, err = capsys.readouterr()
    assert message in err and "Traceback" not in err


async def test_council_show_prints_candidates_as_json_and_the_invalid_one_with_its_error(tmp_path, fake_llm, capsys):
    from council.testing.fake_llm import Step
    from council.testing.scripted import council_member
    from tests.server.conftest import quality_judge

    fake_llm.script("model-a", Step(reply=council_member("Paris is my pick, it ranks first.", quality_judge)))
    for name, city in (("b", "Lyon"), ("c", "Nice")):
        fake_llm.script(f"model-{name}", Step(reply=council_member(json.dumps({"city": city, "rank": 2}),
                                                                     quality_judge)))
    config = tmp_path / "council.yaml"
    url = fake_llm.base_url("openai")
    members = "".join(f"  - {{name: {n}, provider: openai, model: model-{n}, base_url: '{url}'}}\n" for n in "abc")
    config.write_text(f"members:\n{members}chairman: null\nstorage: {{path: '{tmp_path / 'runs.db'}'}}\n",
                      encoding="utf-8")
    schema = tmp_path / "city.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    env = {"COUNCIL_CONFIG": str(config), "OPENAI_API_KEY": "k"}
    assert await asyncio.to_thread(main, ["ask", "Name a city and rank it.", "--schema", str(schema), "--json"],
                                   env) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    assert await asyncio.to_thread(main, ["show", run_id], env) == 0
    shown = capsys.readouterr().out
    candidates = shown.split("Candidates:", 1)[1]
    assert "b: valid" in candidates and '"city": "Lyon"' in candidates, "a valid candidate, formatted"
    assert "a: invalid_output: the answer is not valid JSON" in candidates
    assert "Paris is my pick" in candidates, "the invalid text is shown with its error"
