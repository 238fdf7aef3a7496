"""Write ``tests/data/openai/openai-responses-schemas.json`` from OpenAI's OpenAPI description of its API.

Usage::

    python scripts/make_openai_responses_schemas.py SPEC "SOURCE" [OUT]

SPEC is OpenAI's spec as YAML (``openapi.documented.yml``, ``openapi.yaml``) or
JSON (``openapi.json``); SOURCE is the sentence that says where SPEC came from
(repository, file, commit or version), written into the output's ``source``.
The output keeps, verbatim, every ``components/schemas`` entry that the roots
reach through ``$ref``, transitively; nothing is edited. The script refuses a
spec whose ``POST /responses`` stream is not ``ResponseStreamEvent`` or whose
``GET /responses/{response_id}`` is not ``Response``, so a rename upstream is
seen rather than copied past. See ``tests/data/openai/README.md``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "openai" / "openai-responses-schemas.json"
ROOTS = ["Response", "ResponseStreamEvent", "ResponseItemList"]
PREFIX = "#/components/schemas/"


class _Loader(yaml.SafeLoader):
    """YAML without timestamps: a date in an example stays the string it is (JSON has no dates)."""


_Loader.yaml_implicit_resolvers = {
    first: [resolver for resolver in resolvers if resolver[0] != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=_Loader)
    return loaded


def refs(node: Any) -> list[str]:
    """The schema names ``node``'s ``$ref`` s point at, in document order."""
    if isinstance(node, dict):
        found = [node["$ref"].removeprefix(PREFIX)] if isinstance(node.get("$ref"), str) else []
        return found + [name for key, value in node.items() if key != "$ref" for name in refs(value)]
    if isinstance(node, list):
        return [name for item in node for name in refs(item)]
    return []


def closure(schemas: dict[str, Any], roots: list[str]) -> list[str]:
    """``roots`` and every schema they reach, breadth first."""
    seen: list[str] = []
    todo = list(roots)
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        if name not in schemas:
            raise KeyError(f"{name} is referenced but not defined in components/schemas")
        seen.append(name)
        todo.extend(refs(schemas[name]))
    return seen


def check_paths(paths: dict[str, Any]) -> None:
    def schema(operation: dict[str, Any], media: str) -> str:
        ref: str = operation["responses"]["200"]["content"][media]["schema"]["$ref"]
        return ref.removeprefix(PREFIX)

    create, by_id = paths["/responses"]["post"], paths["/responses/{response_id}"]
    found = (schema(create, "application/json"), schema(create, "text/event-stream"),
             schema(by_id["get"], "application/json"))
    if found != ("Response", "ResponseStreamEvent", "Response"):
        raise SystemExit(f"the spec names the Responses API's schemas differently now: {found}")
    deleted = by_id["delete"]["responses"]["200"]
    if "content" in deleted:
        raise SystemExit(f"DELETE /responses/{{response_id}} now has a body; add its schema to ROOTS: {deleted}")


def main(argv: list[str]) -> None:
    if len(argv) not in (2, 3):
        raise SystemExit(__doc__)
    spec = load(Path(argv[0]))
    check_paths(spec["paths"])
    schemas = spec["components"]["schemas"]
    names = closure(schemas, ROOTS)
    out = Path(argv[2]) if len(argv) == 3 else OUT
    document = {"source": argv[1], "roots": ROOTS, "components": {"schemas": {name: schemas[name] for name in names}}}
    out.write_text(json.dumps(document, indent=1), encoding="utf-8")
    print(f"{out}: {len(names)} schemas")


if __name__ == "__main__":
    main(sys.argv[1:])
