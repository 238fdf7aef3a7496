"""OpenAI's published response schemas as JSON Schema validators, for checking what ``council serve`` sends.

The schemas are OpenAPI 3.0 text: ``$ref`` s point into
``#/components/schemas`` and ``nullable: true`` means "or null", which JSON
Schema does not know (a validator would ignore it and refuse every null).
:func:`validator` turns ``nullable`` into JSON Schema and resolves the
``$ref`` s against the document itself.

The files are in ``tests/data/openai/`` (see the README there), so CI has
them: ``openai-chat-schemas.json`` for Chat Completions and the model list (the
default), ``openai-responses-schemas.json`` for the Responses API
(``schemas="responses"``: ``Response``, ``ResponseStreamEvent``,
``ResponseItemList``). The chat file is a copy of a shared fixture
(``../shared/fixtures`` beside the repository), which is only used to check the
copy is still the same.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "tests" / "data" / "openai" / "openai-chat-schemas.json"
SHARED_SCHEMAS = ROOT.parent / "shared" / "fixtures" / "openai-chat-schemas.json"
RESPONSES_SCHEMAS = ROOT / "tests" / "data" / "openai" / "openai-responses-schemas.json"
FILES = {"chat": SCHEMAS, "responses": RESPONSES_SCHEMAS}


def _json_schema(node: Any) -> Any:
    """``node`` with every OpenAPI ``nullable: true`` written as JSON Schema's null."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable") is not True:
        return converted
    if "$ref" in converted or "type" not in converted:
        # A $ref (or anyOf) cannot be widened in place: allow null beside it.
        siblings = {key: value for key, value in converted.items() if key in ("description", "deprecated")}
        rest = {key: value for key, value in converted.items() if key not in siblings}
        return {**siblings, "anyOf": [rest, {"type": "null"}]}
    kinds = converted["type"] if isinstance(converted["type"], list) else [converted["type"]]
    converted["type"] = [*kinds, "null"]
    if "enum" in converted:
        converted["enum"] = [*converted["enum"], None]
    return converted


@functools.cache
def document(schemas: str = "chat") -> dict[str, Any]:
    """The schema file ``schemas`` names (a key of :data:`FILES`), ``nullable`` converted."""
    loaded: dict[str, Any] = json.loads(FILES[schemas].read_text(encoding="utf-8"))
    return {"components": _json_schema(loaded["components"])}


@functools.cache
def validator(root: str, schemas: str = "chat") -> Draft202012Validator:
    """A validator for ``components/schemas/<root>`` (``CreateChatCompletionResponse``, ``ErrorResponse``, …).

    ``schemas`` picks the file: ``"chat"`` (the default) or ``"responses"`` (``Response``, ``ResponseStreamEvent``, …).
    """
    named = document(schemas)["components"]["schemas"]
    if root not in named:
        raise KeyError(f"{root} is not in {FILES[schemas].name}; it has {', '.join(named)}")
    schema = {**document(schemas), "$ref": f"#/components/schemas/{root}"}
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def problems(instance: Any, root: str, schemas: str = "chat") -> list[str]:
    """Where ``instance`` breaks the schema ``root``, one line each (empty when it conforms)."""
    found = sorted(validator(root, schemas).iter_errors(instance), key=lambda error: list(error.absolute_path))
    return [f"{'/'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message}" for error in found]


def assert_valid(instance: Any, root: str, schemas: str = "chat") -> None:
    """Fail with every problem listed when ``instance`` is not a valid ``root`` of the file ``schemas`` names."""
    found = problems(instance, root, schemas)
    assert not found, f"not a valid {root}:\n  " + "\n  ".join(found) + f"\n{json.dumps(instance)[:2000]}"
