"""JSON values a simulated member writes for a schema: valid, and different from one member to another.

A simulated council must do everything a real one does, typed output
included: asked for a JSON Schema (``response_format``), each simulated
member writes an instance of it, its strings and numbers drawn from its own
seed (its persona and the question), so that the council has distinct
candidates to review. A simulated chairman keeps the top-ranked candidate
that still validates. Covers what pydantic models and hand-written schemas
use: objects, arrays, strings (enum, const, lengths, common formats),
numbers within their bounds, booleans, null, ``anyOf``/``oneOf``/``allOf``
and local ``$ref``s.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator

_WORDS = ("light", "water", "orbit", "signal", "pattern", "energy", "balance", "measure", "field", "wave")
_FORMATS = {"date": "2026-11-28", "date-time": "2026-11-28T12:00:00Z", "email": "member@example.org",
            "uri": "https://example.org/", "uuid": "123e4567-e89b-42d3-a456-426614174000", "time": "12:00:00"}


def instance_of(schema: dict[str, Any] | None, seed: str) -> Any:
    """A value valid for ``schema`` (None: any JSON object), drawn from ``seed``."""
    rng = random.Random(seed)
    if schema is None:
        return {"answer": _phrase(rng, seed), "confidence": round(rng.uniform(0.5, 0.95), 2)}
    return _value(schema, schema, rng, seed, depth=0)


def valid_for(schema: dict[str, Any] | None, text: str) -> bool:
    """Whether ``text`` is a JSON value valid for ``schema`` (an object when None)."""
    try:
        value = json.loads(text)
    except ValueError:
        return False
    if schema is None:
        return isinstance(value, dict)
    return bool(Draft202012Validator(schema).is_valid(value))


def prompted_schema(texts: list[str]) -> dict[str, Any] | None:
    """A JSON Schema written into a prompt (as instructor's JSON mode and pydantic-ai's prompted output do), if any.

    A real model reads the schema it is shown; a simulated one finds the
    first JSON object in the text that declares an object's properties.
    """
    decoder = json.JSONDecoder()
    for text in texts:
        if "json" not in text.lower():
            continue
        start = text.find("{")
        while start != -1:
            try:
                value, _end = decoder.raw_decode(text, start)
            except ValueError:
                value = None
            if isinstance(value, dict) and ("properties" in value or "$defs" in value):
                return value
            start = text.find("{", start + 1)
    return None


def _phrase(rng: random.Random, seed: str) -> str:
    return " ".join(rng.sample(_WORDS, 3)) + f" ({seed.split('/')[0]})"


def _resolve(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    node: Any = root
    for part in ref.removeprefix("#/").split("/"):
        node = node.get(part, {}) if isinstance(node, dict) else {}
    return node if isinstance(node, dict) else {}


#: Past this depth a value is the least its schema allows: required properties only, the fewest items, null
#: where null is allowed. A recursive schema (a tree of nodes, a model that contains itself) ends there.
MINIMAL_FROM = 12
#: Past this depth nothing more is written (a schema that requires itself forever has no instance).
GIVE_UP_AT = 120
#: The most items and characters one array or string gets, whatever its schema's minimum: a real model
#: cannot write a hundred million items either, and its answer then fails validation as this one does.
MAX_ITEMS, MAX_CHARS = 1000, 20_000


def _value(schema: dict[str, Any], root: dict[str, Any], rng: random.Random, seed: str, depth: int) -> Any:
    if depth > GIVE_UP_AT:
        return None
    if "$ref" in schema and isinstance(schema["$ref"], str) and schema["$ref"].startswith("#"):
        return _value({**_resolve(schema["$ref"], root), **{k: v for k, v in schema.items() if k != "$ref"}},
                      root, rng, seed, depth + 1)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return rng.choice(list(schema["enum"]))
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            choices = [o for o in schema[key] if isinstance(o, dict)]
            if depth > MINIMAL_FROM and any(o.get("type") == "null" for o in choices):
                return None
            options = [o for o in choices if o.get("type") != "null"] or choices or [{}]
            return _value(options[0], root, rng, seed, depth + 1)
    if isinstance(schema.get("allOf"), list):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged = _merge(merged, _resolve(part["$ref"], root) if "$ref" in part else part)
        return _value({**{k: v for k, v in schema.items() if k != "allOf"}, **merged}, root, rng, seed, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    return _OF_TYPE.get(kind, _null)(schema, root, rng, seed, depth)


def _merge(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    merged = {**left, **right}
    if "properties" in left or "properties" in right:
        merged["properties"] = {**left.get("properties", {}), **right.get("properties", {})}
        merged["required"] = sorted({*left.get("required", []), *right.get("required", [])})
    return merged


def _object(schema: dict[str, Any], root: dict[str, Any], rng: random.Random, seed: str, depth: int) -> Any:
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        return {}
    if depth > MINIMAL_FROM:
        required = schema["required"] if isinstance(schema.get("required"), list) else []
        properties = {name: sub for name, sub in properties.items() if name in required}
    # Every declared property, not only the required ones: strict schemas require them all anyway.
    return {name: _value(sub if isinstance(sub, dict) else {}, root, rng, f"{seed}/{name}", depth + 1)
            for name, sub in properties.items()}


def _array(schema: dict[str, Any], root: dict[str, Any], rng: random.Random, seed: str, depth: int) -> Any:
    low = min(int(schema.get("minItems", 0 if depth > MINIMAL_FROM else 1)), MAX_ITEMS)
    high = low if depth > MINIMAL_FROM else max(low, min(int(schema.get("maxItems", low + 2)), low + 2, MAX_ITEMS))
    items: dict[str, Any] = schema["items"] if isinstance(schema.get("items"), dict) else {}
    values = [_value(items, root, rng, f"{seed}/{index}", depth + 1) for index in range(rng.randint(low, high))]
    if schema.get("uniqueItems"):
        unique: list[Any] = []
        for value in values:
            if value not in unique:
                unique.append(value)
        values = unique
    return values


def _string(schema: dict[str, Any], _root: dict[str, Any], rng: random.Random, seed: str, _depth: int) -> Any:
    if (fixed := _FORMATS.get(str(schema.get("format")))) is not None:
        return fixed
    text = _phrase(rng, seed)
    low, high = min(int(schema.get("minLength", 0)), MAX_CHARS), schema.get("maxLength")
    while len(text) < low:
        text += " " + rng.choice(_WORDS)
    return text[: int(high)] if high is not None else text


def _number(schema: dict[str, Any], _root: dict[str, Any], rng: random.Random, _seed: str, _depth: int) -> Any:
    low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
    high = schema.get("maximum", schema.get("exclusiveMaximum", max(low, 0) + 100))
    if "exclusiveMinimum" in schema and "minimum" not in schema:
        low += 1
    if "exclusiveMaximum" in schema and "maximum" not in schema:
        high -= 1
    value: float = rng.uniform(low, max(low, high))
    if schema.get("type") == "integer":
        return int(max(low, min(high, round(value))))
    return round(value, 2) if low <= round(value, 2) <= high else value


def _boolean(_schema: dict[str, Any], _root: dict[str, Any], rng: random.Random, _seed: str, _depth: int) -> Any:
    return rng.random() < 0.5


def _null(_schema: dict[str, Any], _root: dict[str, Any], _rng: random.Random, _seed: str, _depth: int) -> Any:
    return None


_OF_TYPE: dict[str, Callable[[dict[str, Any], dict[str, Any], random.Random, str, int], Any]] = {
    "object": _object, "array": _array, "string": _string, "number": _number, "integer": _number,
    "boolean": _boolean, "null": _null,
}
