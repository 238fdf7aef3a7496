"""Datasets: the accepted shapes, and errors that name the line and the field."""

from __future__ import annotations

import hashlib
import json

import pytest

from council.assets import config_dir
from council.evals.dataset import DatasetError, load_dataset


def write(tmp_path, *lines: str):
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_every_field_shape_is_read(tmp_path):
    conversation = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Pick 21."},
                    {"role": "assistant", "content": "21"}, {"role": "user", "content": "Double it."}]
    path = write(
        tmp_path,
        json.dumps({"id": "a", "task": "What is 2+2?", "reference_answer": "4", "rubric": "Exact number."}),
        "",
        json.dumps({"id": "b", "task": conversation, "context": ["One.", "Two."], "metadata": {"topic": "maths"}}),
        json.dumps({"id": "c", "task": "Where?", "context": "Here."}),
    )
    dataset = load_dataset(path)
    assert dataset.dataset_id == "data" and len(dataset) == 3
    assert dataset.dataset_hash == hashlib.sha256(path.read_bytes()).hexdigest()
    a, b, c = dataset.samples
    assert (a.question, a.reference_answer, a.rubric, a.context, a.line) == (
        "What is 2+2?",
        "4",
        "Exact number.",
        None,
        1,
    )
    assert [m.role for m in b.messages] == ["system", "user", "assistant", "user"] and b.question == "Double it."
    assert b.context == "One.\n\nTwo." and b.metadata == {"topic": "maths"} and b.line == 3
    assert c.context == "Here." and c.reference_answer is None


def test_the_shipped_sample_dataset_is_valid():
    dataset = load_dataset(config_dir() / "datasets" / "sample.jsonl")
    assert 10 <= len(dataset) <= 15
    assert all(s.reference_answer for s in dataset.samples)
    assert sum(s.context is not None for s in dataset.samples) >= 2
    assert any(len(s.messages) > 1 for s in dataset.samples)


@pytest.mark.parametrize(("line", "message"), [
    ('{"id": "x", "task": "q"', "line 2: not valid JSON"),
    ('["x", "q"]', "line 2: expected a JSON object, got list"),
    ('{"task": "q"}', "line 2: field 'id': must be a non-empty string (missing)"),
    ('{"id": 7, "task": "q"}', "line 2: field 'id': must be a non-empty string (got int)"),
    ('{"id": "x"}', "line 2: field 'task': missing"),
    ('{"id": "x", "task": "   "}', "line 2: field 'task': the question is empty"),
    ('{"id": "x", "task": 5}', "line 2: field 'task': must be a string or a list of messages, got int"),
    ('{"id": "x", "task": []}', "line 2: field 'task': the message list is empty"),
    ('{"id": "x", "task": [{"role": "robot", "content": "hi"}]}', "line 2: field 'task[0].role':"),
    ('{"id": "x", "task": [{"role": "user"}]}', "line 2: field 'task[0].content': field required"),
    ('{"id": "x", "task": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}',
     "line 2: field 'task': the conversation must end with a user message"),
    ('{"id": "x", "task": "q", "reference_answer": 4}', "line 2: field 'reference_answer': must be a non-empty string"),
    ('{"id": "x", "task": "q", "context": [1]}', "line 2: field 'context': must be a non-empty string or a list"),
    ('{"id": "x", "task": "q", "rubric": ""}', "line 2: field 'rubric': must be a non-empty string (empty)"),
    ('{"id": "x", "task": "q", "metadata": 3}', "line 2: field 'metadata': must be an object"),
    ('{"id": "x", "task": "q", "refernce_answer": "y"}', "line 2: field 'refernce_answer': unknown field"),
    ('{"id": "x", "task": "q", "reference_answer": NaN}', "line 2: not valid JSON: NaN is not valid JSON"),
    ('{"id": "first", "task": "again"}', "line 2: field 'id': duplicate id 'first' (first on line 1)"),
])
def test_a_bad_line_is_named_with_its_field(tmp_path, line, message):
    path = write(tmp_path, '{"id": "first", "task": "fine"}', line)
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    assert f"{path} {message}" in str(caught.value)


def test_file_problems(tmp_path):
    with pytest.raises(DatasetError, match="file not found"):
        load_dataset(tmp_path / "missing.jsonl")
    with pytest.raises(DatasetError, match="no samples"):
        load_dataset(write(tmp_path, "", "  "))
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b'{"id": "\xff"}\n')
    with pytest.raises(DatasetError, match="not UTF-8"):
        load_dataset(binary)
