"""JSON Schemas a rubric names instead of writing inline (dataknobs' ``schema_ref``).

A reference is resolved when the rubric is loaded, in this order:

* a schema registered in this process under that name
  (:func:`register_schema`, e.g. ``register_schema("quiz-v1", {...})``);
* a JSON or YAML file, relative to the rubric file that names it (an
  absolute path as written), optionally with a JSON Pointer after ``#``
  (``schemas/quiz.json#/definitions/question``).

The schema found is copied into the rubric, so a registered rubric carries
its schema and scores the same wherever it is read; the reference is kept
beside it as a record. Anything that cannot be resolved is a ``ValueError``
saying what was tried.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

SCHEMAS: dict[str, dict[str, Any]] = {}
"""Schemas registered by name in this process."""


def register_schema(name: str, schema: dict[str, Any]) -> None:
    """Register ``schema`` under ``name``, for rubrics whose ``schema_ref`` names it."""
    if not isinstance(schema, dict):
        raise TypeError(f"a JSON Schema is an object (a dict), not {type(schema).__name__}")
    SCHEMAS[name] = copy.deepcopy(schema)


def _pointer(document: Any, pointer: str, ref: str) -> Any:
    """The part of ``document`` that the JSON Pointer ``pointer`` (RFC 6901) names."""
    if pointer in ("", "/"):
        return document
    if not pointer.startswith("/"):
        raise ValueError(f"{ref!r}: the part after # must be a JSON Pointer starting with /")
    found = document
    for raw in pointer[1:].split("/"):
        step = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(found, dict) and step in found:
            found = found[step]
        elif isinstance(found, list) and step.isdigit() and int(step) < len(found):
            found = found[int(step)]
        else:
            raise ValueError(f"{ref!r}: the file has nothing at {pointer}")
    return found


def resolve_schema_ref(ref: str, rubric_file: str | None) -> dict[str, Any]:
    """The schema ``ref`` names: a registered one, else a file relative to ``rubric_file``'s folder."""
    from council.config_errors import read_yaml
    from council.errors import ConfigError

    if ref in SCHEMAS:
        return copy.deepcopy(SCHEMAS[ref])
    location, _, pointer = ref.partition("#")
    path = Path(location).expanduser()
    if not path.is_absolute() and rubric_file:
        path = Path(rubric_file).parent / path
    if not location or not path.is_file():
        known = f"registered schemas: {', '.join(sorted(SCHEMAS))}" if SCHEMAS else "no schema is registered"
        raise ValueError(f"{ref!r} is neither a registered schema ({known}) nor a file "
                         f"(looked for {path if location else 'a path before #'})")
    try:
        document = read_yaml(path)  # JSON is YAML; the same size limit and UTF-8 check apply
    except ConfigError as error:
        raise ValueError(f"{ref!r}: {error}") from None
    schema = _pointer(document, pointer, ref)
    if not isinstance(schema, dict):
        raise ValueError(f"{ref!r} names a {type(schema).__name__}, not a JSON Schema object")
    return schema
