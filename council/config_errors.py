"""Reading YAML strictly and turning validation failures into plain messages.

Shared by the council config and the rubric loader: both want a YAML error
with its line and column, duplicate keys refused (PyYAML keeps the last one
silently), and each pydantic error rendered as ``key.path: what was expected``.
"""

from __future__ import annotations

import re
import sys
import types
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from council.errors import ConfigError

_SECRET_HINTS = ("key", "token", "secret", "password")
MAX_YAML_BYTES = 1024 * 1024  # config and rubric files; anything larger is not one


#: Nesting a config or rubric file may use: far past any real one, far short of Python's recursion limit.
MAX_YAML_DEPTH = 100


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses duplicate mapping keys, nesting past :data:`MAX_YAML_DEPTH`, and huge numbers."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        # PyYAML composes nested nodes recursively: a file nested thousands deep would end in a RecursionError.
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.composer.ComposerError(None, None, f"nested more than {MAX_YAML_DEPTH} levels deep",
                                                  self.peek_event().start_mark)  # type: ignore[no-untyped-call]
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {str(key)[:60]!r} (line {mark.line + 1}, column {mark.column + 1})", mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


def _construct_int(loader: _StrictLoader, node: yaml.ScalarNode) -> int:
    try:
        return loader.construct_yaml_int(node)
    except ValueError:  # past Python's digit limit for str -> int
        raise yaml.constructor.ConstructorError(
            None, None, f"a number of {len(str(node.value))} characters; at most {sys.get_int_max_str_digits()} "
            "digits are read", node.start_mark) from None


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def read_yaml(path: Path) -> dict[str, Any]:
    """Parse a YAML file whose top level must be a mapping."""
    source = str(path)
    if not path.exists():
        raise ConfigError(source, "file not found")
    if not path.is_file():
        raise ConfigError(source, "not a regular file")
    try:
        if path.stat().st_size > MAX_YAML_BYTES:
            raise ConfigError(source, f"the file is larger than {MAX_YAML_BYTES // 1024 // 1024} MiB")
        with path.open("rb") as handle:
            raw = handle.read(MAX_YAML_BYTES + 1)  # a file that grows while read is still capped
        if len(raw) > MAX_YAML_BYTES:
            raise ConfigError(source, f"the file is larger than {MAX_YAML_BYTES // 1024 // 1024} MiB")
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(source, f"cannot read the file: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(source, f"cannot read the file: {exc.strerror or type(exc).__name__}") from None
    try:
        data = yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(source, f"invalid YAML at {where}{problem}") from None
    if data is None:
        raise ConfigError(source, "the file is empty")
    if not isinstance(data, dict):
        raise ConfigError(source, f"the top level must be a mapping of keys, got {type(data).__name__}")
    return data


def _loc_to_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path or "(top level)"


def _model_at(root: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """Follow a key path through nested models (and lists of them) to the model it lands in."""
    current: Any = root
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)) or part not in current.model_fields:
            return None
        current = _unwrap(current.model_fields[part].annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            inner = _unwrap(arg)
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                return inner
    return annotation


_SAFE_WORD = re.compile(r"[A-Za-z0-9_.-]{1,24}")


def _describe_input(value: Any) -> str:
    """What was found, without echoing content: files named by mistake (or on purpose) may hold secrets.

    Numbers, booleans and short plain words (a misspelt choice like 'opnai')
    are shown; anything else only by its type and size.
    """
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value) if _SAFE_WORD.fullmatch(value) else f"a string of {len(value)} characters"
    if isinstance(value, (dict, list)):
        return f"a {type(value).__name__}"
    return f"a {type(value).__name__}"


def format_validation_error(
    exc: ValidationError, root: type[BaseModel], overridden: dict[tuple[str, ...], str] | None = None
) -> list[str]:
    """One line per problem: the key path, what was expected, and what was found."""
    overridden = overridden or {}
    problems: list[str] = []
    for error in exc.errors(include_url=False):
        loc = tuple(error["loc"])
        path = _loc_to_path(loc)
        origin = f" (from ${overridden[loc]})" if loc in overridden else ""  # type: ignore[index]  # locs of env overrides are str-only
        kind = error["type"]
        if kind == "extra_forbidden":
            parent = _model_at(root, loc[:-1])
            allowed = f"; allowed keys: {', '.join(parent.model_fields)}" if parent else ""
            hint = ""
            if any(h in str(loc[-1]).lower() for h in _SECRET_HINTS) and "env" not in str(loc[-1]).lower():
                hint = " (secrets never go in the file: name an environment variable with api_key_env)"
            problems.append(f"{path}: unknown key{allowed}{hint}")
        elif kind == "missing":
            problems.append(f"{path}: required key is missing")
        elif str(loc[-1] if loc else "").endswith("_env"):
            # Never echo this value: a key pasted here by mistake must not reach a terminal or log.
            if "looks like an API key" in error["msg"]:
                problems.append(f"{path}: {error['msg'].removeprefix('Value error, ')}")
            else:
                problems.append(f"{path}: expected the NAME of an environment variable (like OPENAI_API_KEY)")
        elif str(loc[-1] if loc else "") == "base_url":
            # A URL may carry a secret: say what is wrong, never what it was.
            message = error["msg"].removeprefix("Value error, ")
            if error["type"] == "string_pattern_mismatch":
                message = "expected an http:// or https:// URL without spaces"
            problems.append(f"{path}: {message}")
        else:
            message = error["msg"]
            if message.startswith("Value error, "):
                message = message.removeprefix("Value error, ")
                problems.append(f"{path}: {message}{origin}" if loc else f"{message}{origin}")
            else:
                problems.append(
                    f"{path}: {message[0].lower()}{message[1:]}, got {_describe_input(error['input'])}{origin}"
                )
    return problems
