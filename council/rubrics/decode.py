"""llm_decode scoring's text side: the sandboxed decode prompt, and reading the model's level back.

A criterion scored by ``llm_decode`` classifies a JSON target into exactly
one of its levels. Its ``decode_prompt`` is a Jinja2 template rendered with
the target's fields as variables in a sandboxed, immutable environment: a
template cannot call methods that change data or reach Python internals
(``{{ x.__class__ }}`` is refused), and a missing variable is an error, not an
empty string. The model is told the valid levels and asked for
``{"level_id": "..."}``; its reply is read as JSON first, then by the level
ids it names. A criterion with a ``decode_output_schema`` is stricter: the
reply must be a JSON object valid against that schema (shown to the model),
and its ``level_id`` a valid level; a reply that is not is a failed decode
whose reason says why, never an exception. Pure text: calling the model is
the caller's business.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from council.rubrics.model import Criterion
from council.types import ChatMessage

_ENVIRONMENT = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False)
_JSON_OBJECT = re.compile(r"\{[^{}]*\}")
_FENCED = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n(.*?)\n\s*```\s*$", re.S)
DEFAULT_TEMPLATE = "The content to classify, as JSON:\n{{ target_json }}"


class DecodeRefusedError(ValueError):
    """The decode prompt could not be rendered: a syntax error, a missing variable, or a sandbox refusal."""


@dataclass(frozen=True)
class DecodeReading:
    """The level a model's reply names, or None, and how it was read."""

    level_id: str | None
    how: str


def template_problem(template: str) -> str | None:
    """What is wrong with a decode template's syntax, or None (used when a rubric is checked)."""
    try:
        _ENVIRONMENT.parse(template)
    except TemplateError as error:
        return f"not a valid Jinja2 template: {error}"
    return None


def decode_messages(criterion: Criterion, target: dict[str, Any]) -> list[ChatMessage]:
    """The classification prompt: the levels to choose from, and the rendered template.

    Raises :class:`DecodeRefusedError` when the template cannot be rendered.
    """
    template = criterion.decode_prompt or DEFAULT_TEMPLATE
    try:
        rendered = _ENVIRONMENT.from_string(template).render(
            **target, target=target, target_json=json.dumps(target, indent=2, ensure_ascii=False))
    except TemplateError as error:  # SecurityError is one: the sandbox refused an attribute or call
        raise DecodeRefusedError(f"{type(error).__name__}: {error}") from None
    levels = "\n".join(f'- "{level.id}" ({level.label}): {level.description}'.rstrip(": ")
                       for level in criterion.levels or [])
    system = (f"You classify content for one criterion, {criterion.title}"
              f"{': ' + criterion.guidance if criterion.guidance else ''}.\n"
              f"Choose exactly one of these levels:\n{levels}\n"
              'Reply with JSON only: {"level_id": "<one of the ids above>"}')
    if criterion.decode_output_schema is not None:
        shape = json.dumps(criterion.decode_output_schema, ensure_ascii=False)
        system += f"\nYour reply must be one JSON object valid against this JSON Schema: {shape}"
    return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=rendered)]


def read_level(reply: str, criterion: Criterion) -> DecodeReading:
    """The level a reply names: from a ``{"level_id": ...}`` object first, else the one level id in the text."""
    ids = {level.id for level in criterion.levels or []}
    if criterion.decode_output_schema is not None:
        return _read_by_schema(reply, criterion.decode_output_schema, ids)
    for match in reversed(_JSON_OBJECT.findall(reply)):
        try:
            data = json.loads(match)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("level_id") in ids:
            return DecodeReading(str(data["level_id"]), "json")
    named = [level_id for level_id in ids if re.search(rf"(?<![\w-]){re.escape(level_id)}(?![\w-])", reply)]
    if len(named) == 1:
        return DecodeReading(named[0], "text")
    return DecodeReading(None, "ambiguous" if named else "no level named")


def _reply_object(reply: str) -> Any:
    """The JSON value a reply holds: all of it, a fenced block, or its last flat object; ``ValueError`` if none."""
    fenced = _FENCED.match(reply)
    text = fenced.group(1) if fenced else reply.strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    for match in reversed(_JSON_OBJECT.findall(reply)):
        try:
            return json.loads(match)
        except ValueError:
            continue
    raise ValueError("the reply holds no JSON object")


def _read_by_schema(reply: str, schema: dict[str, Any], ids: set[str]) -> DecodeReading:
    """The level of a reply that must match ``schema``; a mismatch names the first problem."""
    import jsonschema

    try:
        data = _reply_object(reply)
    except ValueError as error:
        return DecodeReading(None, f"does not match decode_output_schema: {error}")
    validator = jsonschema.validators.validator_for(schema)(schema)
    problems = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if problems:
        first = problems[0]
        where = "/".join(map(str, first.absolute_path)) or "(root)"
        return DecodeReading(None, f"does not match decode_output_schema: {where}: {first.message}"[:300])
    level = data.get("level_id") if isinstance(data, dict) else None
    if level not in ids:
        return DecodeReading(None, f"matches decode_output_schema but its level_id {level!r} is not one of "
                                   f"{', '.join(sorted(ids))}")
    return DecodeReading(str(level), "json, valid against decode_output_schema")
