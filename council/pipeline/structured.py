"""Structured answers: a council run whose answer is one JSON value valid for a schema.

A run asked for structured output (``RunRequest.output_type``: a pydantic
model class, a JSON Schema, or ``response_format`` over HTTP) asks every
member for the schema in the way its wire format supports it (the
``response_format`` the provider translates, else the schema in the
prompt), reads each answer as JSON and validates it with ``jsonschema``.
An answer that does not validate gets one retry that quotes the validation
error; a second miss is a failed answer (``invalid_output``) kept with its
text and error, visibly, like a blocked one. The reviewers score the valid
candidates with the rubric as usual; the chairman, asked with the same
schema, merges them, and if its object fails too the top-ranked valid
candidate stands. A tool call the council decides is asked of members in
their wire format's own tool calling instead (:mod:`.tool_answer`), and
read back into the value this module validates. This module knows schemas
and JSON; it knows no stage.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import BaseModel

from council.errors import InvalidRequestError
from council.providers import Provider
from council.strict_json import check_schema_usable
from council.types import ChatMessage, Completion, GenerationParams, check_response_format

_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n(?P<body>.*?)\n?```\s*$", re.DOTALL)
_NAME = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(frozen=True, eq=False)
class OutputSpec:
    """What a structured run must return: a JSON value valid for ``schema`` (None: any JSON object)."""

    schema: dict[str, Any] | None
    name: str = "output"
    strict: bool = False
    description: str | None = None
    #: The pydantic class a Python caller asked for: the result's ``output`` is an instance of it.
    model: type[BaseModel] | None = field(default=None, compare=False)
    #: A tool call the council decides: the functions it may call (one: the value is its arguments; several:
    #: ``{"name": ..., "arguments": ...}``). Empty: the value is the answer itself.
    calls: tuple[str, ...] = ()
    #: The council may answer in text instead (``tool_choice: "auto"``): the value is ``{"reply": TEXT}`` or a call.
    may_reply: bool = False
    #: The function tools as the caller sent them (OpenAI's shape): what members are offered natively.
    tools: tuple[dict[str, Any], ...] = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OutputSpec) and self.fingerprint() == other.fingerprint()

    def __hash__(self) -> int:
        return hash(self.fingerprint())

    @classmethod
    def of(cls, value: OutputSpec | type[BaseModel] | Mapping[str, Any]) -> OutputSpec:
        """A spec from a pydantic model class, a JSON Schema, or an OpenAI ``response_format``.

        Raises :class:`InvalidRequestError` (``option`` ``output_type``) naming what is wrong.
        """
        if isinstance(value, OutputSpec):
            return value
        if isinstance(value, type) and issubclass(value, BaseModel):
            return cls(schema=value.model_json_schema(), name=_NAME.sub("_", value.__name__)[:64] or "output",
                       model=value)
        if not isinstance(value, Mapping):
            raise InvalidRequestError(f"output_type must be a pydantic model class or a JSON Schema object, not "
                                      f"{type(value).__name__}", option="output_type")
        if value.get("type") in ("json_schema", "json_object", "text") and set(value) <= {"type", "json_schema"}:
            spec = cls.from_response_format(dict(value))
            if spec is None:
                raise InvalidRequestError("output_type: a response_format of type text asks for no structure",
                                          option="output_type")
            return spec
        try:
            check_schema_usable(dict(value))
        except SchemaError as error:
            raise InvalidRequestError(f"output_type is not a valid JSON Schema: {error.message}",
                                      option="output_type") from None
        except ValueError as error:
            raise InvalidRequestError(f"output_type: {error}", option="output_type") from None
        return cls(schema=dict(value))

    @classmethod
    def from_response_format(cls, response_format: dict[str, Any]) -> OutputSpec | None:
        """The spec an OpenAI ``response_format`` asks for (None for ``text``); a bad one names its part."""
        try:
            checked = check_response_format(response_format)
        except ValueError as error:
            raise InvalidRequestError(f"response_format: {error}", option="params.response_format") from None
        if checked["type"] == "text":
            return None
        if checked["type"] == "json_object":
            return cls(schema=None, name="json_object")
        spec = checked["json_schema"]
        return cls(schema=spec["schema"], name=spec["name"], strict=bool(spec.get("strict", False)),
                   description=spec.get("description"))

    @classmethod
    def for_tools(cls, tools: Sequence[Mapping[str, Any]], choice: str | Mapping[str, Any] | None) -> OutputSpec | None:
        """The call ``tool_choice`` asks the council to decide (None: no function tools, or ``"none"``).

        ``"auto"`` (or no choice): call one of them or answer in text, as
        ``{"name", "arguments"}`` or ``{"reply"}``. ``"required"`` with one function, or a named function: the answer is
        its arguments, valid for its ``parameters``. ``"required"`` with
        several: ``{"name", "arguments"}``, one of them. Raises
        :class:`InvalidRequestError` (``option`` ``tools``/``tool_choice``) naming what is wrong.
        """
        functions = _functions(tools)
        offered = tuple(dict(tool) for tool in tools if isinstance(tool, Mapping) and tool.get("type") == "function"
                        and isinstance(tool.get("function"), Mapping))
        if choice == "none" or (not functions and choice in (None, "auto")):
            return None
        if choice is None or choice == "auto":
            # Free to call or not: every member says which, and the top-ranked decision stands.
            reply = {"type": "object", "properties": {"reply": {"type": "string", "description": _REPLY_HINT}},
                     "required": ["reply"], "additionalProperties": False}
            return cls(schema={"oneOf": [reply, *_call_options(functions)]}, name="reply_or_tool_call",
                       calls=tuple(functions), may_reply=True, tools=offered)
        if isinstance(choice, Mapping):
            name = (choice.get("function") or {}).get("name") if choice.get("type") == "function" else None
            if not isinstance(name, str):
                raise InvalidRequestError("tool_choice: the council can be made to call a function tool, named as "
                                          '{"type": "function", "function": {"name": ...}}', option="tool_choice")
            if name not in functions:
                raise InvalidRequestError(f"tool_choice: no tool named {name!r} in tools", option="tool_choice")
            return cls(schema=functions[name], name=name, calls=(name,), tools=offered)
        if choice != "required":
            raise InvalidRequestError(f"tool_choice: unknown choice {choice!r}", option="tool_choice")
        if not functions:
            raise InvalidRequestError("tool_choice: required, but tools lists no function", option="tool_choice")
        if len(functions) == 1:
            (name, parameters), = functions.items()
            return cls(schema=parameters, name=name, calls=(name,), tools=offered)
        return cls(schema={"oneOf": _call_options(functions)}, name="tool_call", calls=tuple(functions),
                   tools=offered)

    def call_of(self, value: Any) -> tuple[str, Any] | None:
        """The function a decided call names, and its arguments (None: the council answered in text)."""
        if self.may_reply and isinstance(value, dict) and "reply" in value:
            return None
        if len(self.calls) == 1 and not self.may_reply:
            return self.calls[0], value
        return str(value["name"]), value["arguments"]

    @staticmethod
    def reply_of(value: Any) -> str | None:
        """The text answer of a council that was free to call a tool and did not."""
        return value["reply"] if isinstance(value, dict) and isinstance(value.get("reply"), str) else None

    def tool_choice(self) -> str | dict[str, Any]:
        """The ``tool_choice`` asking a member natively for this call: the one function, any, or call-or-text."""
        if self.may_reply:
            return "auto"
        if len(self.calls) == 1:
            return {"type": "function", "function": {"name": self.calls[0]}}
        return "required"

    def value_of_call(self, name: str, arguments: Any) -> Any:
        """A member's call of ``name`` as this spec's value (the arguments alone when only one function may be)."""
        if len(self.calls) == 1 and not self.may_reply:
            return arguments
        return {"name": name, "arguments": arguments}

    def response_format(self) -> dict[str, Any]:
        """The OpenAI ``response_format`` asking a member for this output."""
        if self.schema is None:
            return {"type": "json_object"}
        body: dict[str, Any] = {"name": self.name, "schema": self.schema, "strict": self.strict}
        if self.description:
            body["description"] = self.description
        return {"type": "json_schema", "json_schema": body}

    def fingerprint(self) -> str:
        """A hash of what decides a valid answer (the run record and the cache key keep it)."""
        # The tools as offered count too: their descriptions steer what a member decides.
        text = json.dumps({"schema": self.schema, "name": self.name, "strict": self.strict, "calls": self.calls,
                           "may_reply": self.may_reply, "tools": self.tools}, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def instruction(self) -> str:
        """What a member whose wire format has no structured output is told, in the prompt."""
        if self.may_reply:
            return ("You may call one of the tools below or answer in text. Reply with a single JSON object and "
                    'nothing else: {"name": TOOL, "arguments": {...}} to call a tool, or {"reply": TEXT} to answer. '
                    "It must validate against this JSON Schema:\n" + json.dumps(self.schema, ensure_ascii=False))
        if self.schema is None:
            return ("Reply with a single JSON object and nothing else: no prose before or after it, no code fence.")
        return ("Reply with a single JSON value that validates against this JSON Schema, and nothing else: no prose "
                "before or after it, no code fence.\n" + json.dumps(self.schema, ensure_ascii=False))

    def read(self, text: str) -> tuple[Any, str | None]:
        """The JSON value in ``text`` and None, or None and why it is not a valid answer (one line)."""
        body = text.strip()
        if (fenced := _FENCE.match(body)) is not None:
            body = fenced.group("body").strip()  # models often fence JSON even when told not to
        try:
            value = json.loads(body)
        except ValueError as error:
            return None, f"is not valid JSON: {error}"
        return self.check(value)

    def check(self, value: Any) -> tuple[Any, str | None]:
        """``value`` and None when it is valid for the schema, else None and why not (one line)."""
        if self.schema is None:
            return (value, None) if isinstance(value, dict) else (None, "is not a JSON object")
        errors = sorted(Draft202012Validator(self.schema).iter_errors(value), key=lambda e: list(e.absolute_path))
        if errors:
            where = "/".join(str(p) for p in errors[0].absolute_path) or "(the top level)"
            message = errors[0].message  # it may quote the whole value first ("[...] is too short"): keep the end
            if len(message) > 300:
                message = message[:160] + " ... " + message[-135:]
            return None, f"does not validate against the schema at {where}: {message}"
        return value, None

    def output_of(self, value: Any) -> Any:
        """The value as the caller asked for it: an instance of its pydantic model, else the JSON value."""
        return self.model.model_validate(value) if self.model is not None else value


_REPLY_HINT = "Your answer in text, when no tool call is needed (for example once the tool results are in)"


def _call_options(functions: Mapping[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One schema per function: a call naming it, with arguments valid for its parameters."""
    return [{"type": "object", "properties": {"name": {"const": name}, "arguments": parameters},
             "required": ["name", "arguments"], "additionalProperties": False}
            for name, parameters in functions.items()]


def _functions(tools: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The function tools by name, each with its parameters' schema (checked)."""
    found: dict[str, dict[str, Any]] = {}
    for index, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, Mapping) and tool.get("type") == "function" else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            continue  # other tool types (custom, builtin) are never called by the council
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        try:
            check_schema_usable(parameters)
        except SchemaError as error:
            raise InvalidRequestError(f"tools[{index}].function.parameters is not a valid JSON Schema: "
                                      f"{error.message}", option="tools") from None
        except ValueError as error:
            raise InvalidRequestError(f"tools[{index}].function.parameters: {error}", option="tools") from None
        found[function["name"]] = dict(parameters)
    return found


def as_text(value: Any) -> str:
    """A valid JSON value as the run's answer text: the content a client receives, and what reviewers read."""
    return json.dumps(value, ensure_ascii=False, indent=2)


def supports_output(provider: Provider) -> bool:
    """Whether a member's wire format takes a ``response_format`` (else the schema goes in its prompt)."""
    probe = GenerationParams(response_format={"type": "json_object"})
    return "response_format" not in provider.unsupported_params(probe)


def structured_request(spec: OutputSpec, messages: list[ChatMessage], params: GenerationParams | None,
                       supported: bool) -> tuple[list[ChatMessage], GenerationParams | None]:
    """A member's messages and params asking for ``spec``: natively when its wire format can, else in the prompt."""
    if supported:
        return messages, (params or GenerationParams()).merged(GenerationParams(response_format=spec.response_format()))
    return with_note(messages, spec.instruction()), params


def with_note(messages: list[ChatMessage], note: str) -> list[ChatMessage]:
    """``messages`` with ``note`` closing the last message (where a prompt's reader still finds its blocks)."""
    last = messages[-1]
    return [*messages[:-1], last.model_copy(update={"content": f"{last.content}\n\n{note}"})]


#: How the retry of an answer that did not validate ends (after the validation error it quotes).
RETRY_NOTE = "Reply again with only the JSON value, corrected."


@dataclass(frozen=True)
class StructuredReply:
    """A member's structured reply: its value and text when valid, else the last text and why it is not."""

    completion: Completion
    value: Any = None
    error: str | None = None
    attempts: int = 1


async def ask_structured(spec: OutputSpec, messages: list[ChatMessage],
                         call: Callable[[list[ChatMessage]], Awaitable[Completion]]) -> StructuredReply:
    """Call, read the reply as ``spec``; once more quoting the validation error when it does not validate."""
    completion = await call(messages)
    if completion.refused:
        return StructuredReply(completion, error="refused")  # asking again would not change a refusal
    value, error = spec.read(completion.content)
    if error is None:
        return StructuredReply(completion, value)
    retry = [*messages, ChatMessage(role="assistant", content=completion.content),
             ChatMessage(role="user", content=f"That reply {error}. {RETRY_NOTE}")]
    # Both calls were made and paid for: the record counts the first one's tokens too.
    second = await call(retry)
    again = second.model_copy(update={"usage": completion.usage + second.usage})
    if again.refused:
        return StructuredReply(again, error="refused", attempts=2)
    value, error = spec.read(again.content)
    return StructuredReply(again, value, error, attempts=2)
