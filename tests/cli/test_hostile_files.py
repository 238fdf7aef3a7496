"""Other tools' files and hand-written schemas built to break a reader: each ends with exit 2 naming the problem.

Nesting deeper than the readers go (PyYAML and Python's ``json`` recurse),
integers past Python's digit limit, and JSON Schemas whose ``$ref``s point
at nothing, outside the schema, or back at themselves. Before, each of these
ended in "internal error ... (please report this)" with exit 1, or in every
member failing. Each test runs the real CLI (``council.cli.app.main``) on a
file written here, on the simulated council.
"""

from __future__ import annotations

import json

import pytest

from council.cli.app import main
from council.config_errors import MAX_YAML_DEPTH
from council.strict_json import MAX_SCHEMA_DEPTH

USAGE = 2
DIGITS = 5000  # past Python's default limit of 4300 digits for str -> int


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv), {})
    return code, capsys.readouterr().err


def nested_schema(levels: int) -> dict:
    """An object schema with one required property ``a`` per level: ``2 * levels + 1`` JSON levels deep."""
    schema: dict = {"type": "object", "properties": {}, "required": []}
    node = schema
    for _ in range(levels):
        child: dict = {"type": "object", "properties": {}, "required": []}
        node["properties"]["a"], node["required"] = child, ["a"]
        node = child
    return schema


@pytest.mark.parametrize(("name", "text", "message"), [
    ("deep.yaml", "id: " + "[" * 5000 + "]" * 5000 + "\n", f"nested more than {MAX_YAML_DEPTH} levels deep"),
    ("deep.json", "[" * 100_000 + "]" * 100_000, f"nested more than {MAX_YAML_DEPTH} levels deep"),
    ("big.json", '{"id": "x", "version": ' + "9" * DIGITS + "}", f"a number of {DIGITS} characters"),
    ("big.yaml", "id: x\nversion: " + "9" * DIGITS + "\n", "line 2, column 10"),
])
def test_a_hostile_rubric_file_is_refused_naming_what_is_wrong(tmp_path, capsys, name, text, message):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, err = run(capsys, "rubric", "check", str(path))
    assert code == USAGE and message in err and name in err, err
    assert "internal error" not in err


@pytest.mark.parametrize(("text", "message"), [
    ("members: " + "[" * 5000 + "]" * 5000 + "\n", f"nested more than {MAX_YAML_DEPTH} levels deep"),
    ("members:\n  - name: a\n    provider: simulated\n    timeout_s: " + "9" * DIGITS + "\n",
     f"line 4, column 16: a number of {DIGITS} characters"),
])
def test_a_hostile_config_file_stops_the_program_naming_the_line(tmp_path, capsys, text, message):
    path = tmp_path / "council.yaml"
    path.write_text(text, encoding="utf-8")
    code, err = run(capsys, "ask", "--config", str(path), "Hello?")
    assert code == USAGE and message in err and "council.yaml" in err, err


@pytest.mark.parametrize(("line", "message"), [
    ('{"id": "b", "task": ' + "[" * 3000 + "]" * 3000 + "}", "nested too deeply to read"),
    ('{"id": "b", "task": "q", "metadata": {"n": ' + "9" * DIGITS + "}}", f"a number of {DIGITS} digits"),
])
def test_a_hostile_dataset_line_is_refused_naming_the_line(tmp_path, capsys, line, message):
    path = tmp_path / "samples.jsonl"
    path.write_text('{"id": "a", "task": "Why is the sky blue?"}\n' + line + "\n", encoding="utf-8")
    code, err = run(capsys, "eval", str(path))
    assert code == USAGE and "samples.jsonl line 2" in err and message in err, err


@pytest.mark.parametrize(("schema", "message"), [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply to read"),
    ('{"type": "object", "maxProperties": ' + "9" * DIGITS + "}", f"a number of {DIGITS} digits"),
    (json.dumps(nested_schema(MAX_SCHEMA_DEPTH)), f"at most {MAX_SCHEMA_DEPTH} are accepted"),
    (json.dumps({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}),
     "$refs lead back to themselves without end"),
    (json.dumps({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}),
     "$ref '#/$defs/missing' points at nothing in the schema"),
    (json.dumps({"$ref": "https://example.org/schema.json"}), "only references within the schema"),
])
def test_a_hostile_schema_file_is_refused_before_any_member_is_asked(tmp_path, capsys, schema, message):
    path = tmp_path / "schema.json"
    path.write_text(schema, encoding="utf-8")
    code, err = run(capsys, "ask", "--schema", str(path), "Name a city.")
    assert code == USAGE and message in err, err
    assert "Asking the council" not in err, "refused before the run"


def test_a_recursive_schema_gets_a_valid_object_from_the_simulated_council(tmp_path, capsys):
    # A model that contains itself (a tree): a real model stops somewhere; so must a simulated one.
    node = {"type": "object", "properties": {"name": {"type": "string"},
                                             "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            "required": ["name", "children"]}
    path = tmp_path / "tree.json"
    path.write_text(json.dumps({"$defs": {"Node": node}, "$ref": "#/$defs/Node"}), encoding="utf-8")
    code = main(["ask", "--preset", "quick", "--schema", str(path), "Draw a small tree."], {})
    out = capsys.readouterr().out
    assert code == 0
    tree = json.loads(out)

    def check(value: dict) -> None:
        assert set(value) == {"name", "children"} and isinstance(value["name"], str)
        for child in value["children"]:
            check(child)
    check(tree)


def test_a_schema_no_answer_can_meet_fails_the_run_with_a_reason_of_one_line(tmp_path, capsys):
    path = tmp_path / "huge.json"
    path.write_text(json.dumps({"type": "array", "minItems": 100_000_000, "items": {"type": "string"}}),
                    encoding="utf-8")
    code = main(["ask", "--preset", "quick", "--schema", str(path), "List every word."], {})
    err = capsys.readouterr().err
    assert code == 1 and "no member produced a valid answer for the schema" in err
    assert "is too short" in err and max(len(line) for line in err.splitlines()) < 2000, err
