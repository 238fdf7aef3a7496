"""Evaluation datasets: JSONL files of tasks, read and validated strictly.

One sample per line::

    {"id": "capital-fr", "task": "What is the capital of France?", "reference_answer": "Paris."}
    {"id": "chat-1", "task": [{"role": "user", "content": "Pick a prime."}, {"role": "assistant", "content": "7"},
                              {"role": "user", "content": "Double it."}], "reference_answer": "14"}

``id`` (a non-empty string, unique in the file) and ``task`` (a question, or
a list of chat messages ending with a user turn) are required.
``reference_answer``, ``context`` (a string or a list of passages) and
``rubric`` (grading notes for the evaluator) and ``output_schema`` (a JSON
Schema the answer must be a JSON value of: the council is asked for it as a
structured answer, and whether the answer validates is a scored, gated
criterion) are optional, as is
``metadata``, an object kept with the sample and otherwise ignored. Any other
key is an error, as in the config: a typo must not silently drop a field.
Blank lines are skipped.

Every problem names the file, the line and the field, and the dataset's
identity is its file name (``dataset_id``) and the SHA-256 of its bytes
(``dataset_hash``), recorded with every run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from council import strict_json
from council.errors import ConfigError, CouncilError
from council.rubrics.model import Rubric
from council.types import ChatMessage, as_messages

ALLOWED_FIELDS = ("id", "task", "reference_answer", "context", "rubric", "output_schema", "metadata")
MAX_SAMPLES = 100_000


class DatasetError(CouncilError):
    """The dataset file is missing or a line is invalid; the message names the line and the field."""


class Sample(BaseModel):
    """One task of a dataset, validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="Unique within the dataset.")
    messages: list[ChatMessage] = Field(description="The task as a conversation (a question is one user turn).")
    reference_answer: str | None = Field(default=None, description="What a correct answer says.")
    context: str | None = Field(default=None, description="Material the answer should stay faithful to.")
    rubric: str | None = Field(default=None, description="Grading notes for the evaluator.")
    output_schema: dict[str, Any] | None = Field(default=None, description="The JSON Schema the answer must "
                                                                           "validate against (None: prose).")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Kept with the sample, otherwise unused.")
    line: int = Field(default=0, description="Line number in the file, for messages.")

    @property
    def question(self) -> str:
        """The last user turn, for tables and logs."""
        return next((m.content for m in reversed(self.messages) if m.role == "user"), "")


@dataclass(frozen=True)
class Dataset:
    """A validated dataset and its identity."""

    path: Path
    dataset_id: str
    dataset_hash: str
    samples: list[Sample]
    rubrics: dict[str, list[Rubric]] = field(default_factory=dict)
    """Per sample id, the rubrics its answer is judged by (AgentV eval files); empty for JSONL datasets."""

    def __len__(self) -> int:
        return len(self.samples)


def _text(raw: dict[str, Any], name: str, where: str, *, required: bool = False) -> str | None:
    value = raw.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        got = "missing" if name not in raw else f"got {type(value).__name__}" if not isinstance(value, str) else "empty"
        raise DatasetError(f"{where}: field {name!r}: must be a non-empty string ({got})")
    return value


def _task(raw: dict[str, Any], where: str) -> list[ChatMessage]:
    if "task" not in raw:
        raise DatasetError(f"{where}: field 'task': missing (a question or a list of messages)")
    task = raw["task"]
    if isinstance(task, str):
        if not task.strip():
            raise DatasetError(f"{where}: field 'task': the question is empty")
        return as_messages(task)
    if not isinstance(task, list):
        raise DatasetError(f"{where}: field 'task': must be a string or a list of messages, got {type(task).__name__}")
    for index, message in enumerate(task):
        if not isinstance(message, dict):
            raise DatasetError(f"{where}: field 'task[{index}]': a message must be an object with role and content")
        try:
            ChatMessage.model_validate(message)
        except ValidationError as exc:
            first = exc.errors()[0]
            path = ".".join(str(p) for p in first["loc"])
            raise DatasetError(f"{where}: field 'task[{index}].{path}': {first['msg'].lower()}") from None
    try:
        return as_messages(task)
    except ValueError as exc:
        raise DatasetError(f"{where}: field 'task': {exc}") from None


def _context(raw: dict[str, Any], where: str) -> str | None:
    value = raw.get("context")
    if value is None:
        return None
    if isinstance(value, list) and value and all(isinstance(p, str) and p.strip() for p in value):
        return "\n\n".join(value)
    if isinstance(value, str) and value.strip():
        return value
    raise DatasetError(f"{where}: field 'context': must be a non-empty string or a list of non-empty strings")


def parse_line(text: str, line: int, source: str = "<dataset>") -> Sample:
    """One JSONL line as a sample; :class:`DatasetError` names the line and the field."""
    where = f"{source} line {line}"
    try:
        raw = strict_json.loads(text)
    except ValueError as exc:
        raise DatasetError(f"{where}: not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    unknown = sorted(set(raw) - set(ALLOWED_FIELDS))
    if unknown:
        raise DatasetError(f"{where}: field {unknown[0]!r}: unknown field; allowed fields: {', '.join(ALLOWED_FIELDS)}")
    return _sample(raw, where, line)


def _schema(raw: dict[str, Any], where: str) -> dict[str, Any] | None:
    value = raw.get("output_schema")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise DatasetError(f"{where}: field 'output_schema': must be a JSON Schema object, got {type(value).__name__}")
    try:
        Draft202012Validator.check_schema(value)
    except SchemaError as exc:
        raise DatasetError(f"{where}: field 'output_schema': not a valid JSON Schema: {exc.message}") from None
    return value


def _sample(raw: dict[str, Any], where: str, line: int) -> Sample:
    sample_id = _text(raw, "id", where, required=True)
    metadata = raw.get("metadata", {})
    if not isinstance(metadata, dict):
        raise DatasetError(f"{where}: field 'metadata': must be an object, got {type(metadata).__name__}")
    return Sample(
        id=sample_id or "",
        messages=_task(raw, where),
        reference_answer=_text(raw, "reference_answer", where),
        context=_context(raw, where),
        rubric=_text(raw, "rubric", where),
        output_schema=_schema(raw, where),
        metadata=metadata,
        line=line,
    )


def _agentv_dataset(path: Path, data: bytes) -> Dataset:
    """An AgentV eval file as a dataset: each evalcase a sample, ``expected_outcome`` its reference answer."""
    from council.config_errors import read_yaml
    from council.rubrics.formats import agentv_case_rubrics
    from council.rubrics.load import parse_rubrics

    raw = read_yaml(path)
    cases = raw.get("evalcases")
    if not isinstance(cases, list) or not cases:
        raise DatasetError(f"{path}: an AgentV eval file needs evalcases to run")
    by_case = agentv_case_rubrics(raw, str(path))
    checked = {rubric.id: rubric for _where, rubric, _warnings in parse_rubrics(raw, str(path))}
    samples, rubrics = [], {}
    for index, case in enumerate(cases):
        where = f"{path}: evalcases[{index}]"
        if not isinstance(case, dict):
            raise DatasetError(f"{where}: must be an object with id, input and expected_outcome")
        case_id = str(case.get("id") or index)
        try:
            fields = {"task": "input", "reference_answer": "expected_outcome"}
            sample = _sample({"id": case_id, **{ours: case[theirs] for ours, theirs in fields.items()
                                                if theirs in case}}, where, index + 1)
        except DatasetError as error:  # in AgentV's words: the task is `input`, the reference `expected_outcome`
            raise DatasetError(str(error).replace("field 'task", "field 'input").replace(
                "field 'reference_answer'", "field 'expected_outcome'")) from None
        samples.append(sample)
        rubrics[case_id] = [checked[found.data["id"]] for found in by_case.get(case_id, [])]
    ids = [s.id for s in samples]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise DatasetError(f"{path}: evalcase ids {', '.join(repeated)} are repeated")
    return Dataset(path=path, dataset_id=path.stem, dataset_hash=hashlib.sha256(data).hexdigest(), samples=samples,
                   rubrics=rubrics)


def load_dataset(path: str | Path) -> Dataset:
    """Read and validate a whole dataset (JSONL, or an AgentV eval file in YAML); the first problem stops it."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DatasetError(f"dataset {path}: file not found") from None
    except OSError as exc:
        raise DatasetError(f"dataset {path}: cannot read it: {exc.strerror or exc}") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            return _agentv_dataset(path, data)
        except ConfigError as error:
            raise DatasetError(str(error)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"dataset {path}: not UTF-8 text (byte {exc.start})") from None
    samples: list[Sample] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        sample = parse_line(line, number, str(path))
        if sample.id in first_line:
            raise DatasetError(f"{path} line {number}: field 'id': duplicate id {sample.id!r} "
                               f"(first on line {first_line[sample.id]})")
        first_line[sample.id] = number
        samples.append(sample)
        if len(samples) > MAX_SAMPLES:
            raise DatasetError(f"dataset {path}: more than {MAX_SAMPLES} samples")
    if not samples:
        raise DatasetError(f"dataset {path}: no samples (one JSON object per line)")
    return Dataset(path=path, dataset_id=path.stem, dataset_hash=hashlib.sha256(data).hexdigest(), samples=samples)
