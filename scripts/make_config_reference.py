"""Write docs/reference.md: every config setting, its default and meaning, from the config model itself.

The table is generated from :class:`council.config.CouncilConfig`'s field
descriptions and defaults, so it cannot drift from what the program reads;
``tests/test_docs.py`` fails when the committed page differs from what this
script writes. Run it after changing a setting:

    .venv/bin/python scripts/make_config_reference.py
"""

from __future__ import annotations

import argparse
import sys
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from council.config import CouncilConfig

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "reference.md"
# Defaults that depend on the machine or on other settings, said in words.
SPECIAL_DEFAULTS = {
    "storage.path": "`$XDG_DATA_HOME/council/council.db` (`~/.local/share/...`)",
    "server.max_connections_per_client": "an eighth of `max_connections`, at least 64",
    "transport.max_connections": "as `max_connections_per_host`",
    "transport.max_connections_per_host": "runs at once × calls in flight per run (32 × 4 = 128 for four "
                                          "members and the server's defaults)",
    "members[].timeout_s": "`stages.member_timeout_s`",
    "members[].persona": "from the name",
    "members[].params": "provider defaults",
}
INTRO = """# Configuration reference

One YAML file, validated strictly: an unknown key, a wrong type or a bad
reference stops the program with the file, the key path and what was
expected, for example

```
council: config error in council.yaml (2 problems):
  - members[0].modle: unknown key; allowed keys: name, provider, model, base_url, api_key_env, timeout_s, …
  - stages.quorum: input should be a valid integer, unable to parse string as an integer, got 'many'
```

Nothing ever falls back to defaults silently. API keys never go in the
file: a member names the environment variable that holds its key
(`api_key_env`, see [Providers](providers.md)).

Every setting, its default and what it does. This page is generated from
the config model (`scripts/make_config_reference.py`), so it says what the
program reads.
"""


def _model_in(annotation: Any) -> tuple[type[BaseModel] | None, str]:
    """The config model a field holds (directly, in a list, a dict or an Optional), and the key suffix it takes."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, "."
    origin = typing.get_origin(annotation)
    for arg in typing.get_args(annotation):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg, "[]." if origin is list else ".NAME." if origin is dict else "."
        if typing.get_origin(arg) is typing.Annotated:
            continue
    return None, "."


def _type_name(annotation: Any) -> str:
    if typing.get_origin(annotation) is typing.Annotated:
        return _type_name(typing.get_args(annotation)[0])
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return " \\| ".join(f"`{value}`" for value in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        names = [_type_name(arg) for arg in typing.get_args(annotation) if arg is not type(None)]
        return " \\| ".join(names)
    if origin in (list, tuple):
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        return f"list of {_type_name(args[0])}" if args else "list"
    if origin is dict:
        return "mapping"
    if isinstance(annotation, type):
        return {"str": "text", "int": "integer", "float": "number", "bool": "true/false", "Path": "path"}.get(
            annotation.__name__, annotation.__name__)
    return str(annotation)


def _default(key: str, field: FieldInfo) -> str:
    if key in SPECIAL_DEFAULTS:
        return SPECIAL_DEFAULTS[key]
    if field.is_required():
        return "required"
    value = field.default_factory() if field.default_factory is not None else field.default  # type: ignore[call-arg]
    if value is PydanticUndefined or value is None:
        return "none"
    if isinstance(value, BaseModel):
        return "see below"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list | dict) and not value:
        return "`[]`" if isinstance(value, list) else "none"
    if isinstance(value, int) and value >= 1024 * 1024 and value % (1024 * 1024) == 0:
        return f"{value // (1024 * 1024)} MiB"
    if isinstance(value, float):
        return f"`{value:g}`"
    if value == "":
        return '`""`'
    return f"`{value}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def rows(model: type[BaseModel], prefix: str = "") -> list[tuple[str, str, str, str]]:
    """(key, type, default, meaning) for every field of ``model`` and the models it holds, in declaration order."""
    found = []
    for name, field in model.model_fields.items():
        key = prefix + name
        inner, joiner = _model_in(field.annotation)
        kind = "section" if inner is not None and joiner == "." else (
            "list of entries" if joiner == "[]." else "named entries" if joiner == ".NAME." else
            _type_name(field.annotation))
        found.append((key, kind, _default(key, field), _cell(field.description or "")))
        if inner is not None:
            found += rows(inner, key + joiner)
    return found


def reference() -> str:
    """The whole page."""
    lines = [INTRO, "| Key | Type | Default | Meaning |", "|---|---|---|---|"]
    lines += [f"| `{key}` | {kind} | {default} | {meaning} |" for key, kind, default, meaning in rows(CouncilConfig)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed page differs, write nothing")
    args = parser.parse_args(argv)
    text = reference()
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE.relative_to(ROOT)} is out of date: run scripts/make_config_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.parent.mkdir(exist_ok=True)
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)} ({len(rows(CouncilConfig))} settings)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
