"""Strict JSON for untrusted model output and data files.

Python's ``json`` reads ``NaN`` and ``Infinity`` (not JSON, and poison for
scores), turns ``1e999`` into infinity, and keeps the last of two equal keys
(so a smuggled second ``"ranking"`` could hide behind the first). The decoder
here refuses all three, with a :class:`StrictJSONError` that says which; and
what Python's decoder cannot take at all (an integer past Python's digit
limit, nesting past its recursion limit) is a :class:`StrictJSONError` too,
never a crash.

JSON Schemas a caller sends (typed output, tool parameters) are untrusted
JSON of the same kind: every answer is validated against them by code that
recurses, so :func:`check_schema_usable` refuses, with the request, a schema
that would make it recurse without end or follow a reference nothing can
resolve. This module knows JSON and JSON Schema, nothing of runs.
"""

from __future__ import annotations

import json
import math
import sys
import urllib.parse
from typing import Any


class StrictJSONError(ValueError):
    """Valid for Python's ``json`` but not for us; the message names the problem."""


def reject_constant(name: str) -> Any:
    """``parse_constant`` hook: NaN, Infinity and -Infinity are refused."""
    raise StrictJSONError(f"{name} is not valid JSON: numbers must be finite")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise StrictJSONError(f"{text} is not a finite number")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            shown = repr(key)
            raise StrictJSONError(
                f"key {shown if len(shown) <= 40 else shown[:37] + '...'} appears twice in one object"
            )
        result[key] = value
    return result


def _bounded_int(text: str) -> int:
    limit = sys.get_int_max_str_digits()
    digits = len(text.lstrip("-"))
    if limit and digits > limit:
        raise StrictJSONError(f"a number of {digits} digits; at most {limit} are read")
    return int(text)


DECODER = json.JSONDecoder(parse_float=_finite_float, parse_int=_bounded_int, parse_constant=reject_constant,
                           object_pairs_hook=_unique_keys)


def loads(text: str) -> Any:
    """Decode ``text`` strictly; ``json.JSONDecodeError`` or :class:`StrictJSONError` (both ValueError) if not."""
    try:
        return DECODER.decode(text)
    except RecursionError:
        raise StrictJSONError("arrays or objects nested too deeply to read") from None


#: JSON nesting a schema may use (objects and arrays within each other): a model's schema, with its nested
#: models under ``$defs``, uses a handful; validators and generators recurse, and Python's stack does not.
MAX_SCHEMA_DEPTH = 100


def nesting_depth(value: Any) -> int:
    """How deeply objects and arrays nest in ``value`` (0 for a scalar), counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _check_refs(schema: Any) -> None:
    """A ``ValueError`` naming the first ``$ref`` that points at nothing in ``schema``, or outside it.

    Nothing is fetched to validate a value (a schema naming a URL must not
    make the server call it), so a reference outside the schema could never
    be followed; one to a missing part would fail every answer instead of
    the request.
    """
    anchors = set()
    refs: list[str] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            if isinstance(node.get("$anchor"), str):
                anchors.add(node["$anchor"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    for ref in refs:
        shown = ref if len(ref) <= 80 else ref[:77] + "..."
        if not ref.startswith("#"):
            raise ValueError(f"$ref {shown!r}: only references within the schema (#/...) are followed")
        if ref == "#" or ref[1:] in anchors:
            continue
        target: Any = schema
        for part in ref.removeprefix("#/").split("/") if ref.startswith("#/") else [None]:
            key = None if part is None else urllib.parse.unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and key in target:
                target = target[key]
            elif isinstance(target, list) and key is not None and key.isdigit() and int(key) < len(target):
                target = target[int(key)]
            else:
                raise ValueError(f"$ref {shown!r} points at nothing in the schema")


def check_schema_usable(schema: Any) -> None:
    """Whether answers can be checked against ``schema``: a ``ValueError`` or ``jsonschema.SchemaError`` if not.

    Refused: nesting deeper than :data:`MAX_SCHEMA_DEPTH` (validators
    recurse), a ``$ref`` to nothing or outside the schema, what is not JSON
    Schema (``SchemaError``), and references that lead back to themselves
    without reading any of the value (``A`` is ``B``, ``B`` is ``A``): valid
    JSON Schema, but validating anything against it recurses forever. That
    last is found by validating ``null``, which any other schema answers at
    once.
    """
    if (depth := nesting_depth(schema)) > MAX_SCHEMA_DEPTH:
        raise ValueError(f"the schema is nested {depth} levels deep; at most {MAX_SCHEMA_DEPTH} are accepted")
    _check_refs(schema)
    import jsonschema  # only structured requests need it

    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    try:
        validator(schema).is_valid(None)
    except RecursionError:
        raise ValueError("the schema's $refs lead back to themselves without end") from None
    except Exception:  # anything else is for validation to report, answer by answer
        pass
