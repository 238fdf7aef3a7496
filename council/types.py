"""Plain data shared by providers, stages and front ends."""

from __future__ import annotations

import base64
import binascii
import functools
import operator
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    computed_field,
    field_validator,
)

from council.strict_json import check_schema_usable

Role = Literal["system", "user", "assistant"]
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]
"""OpenAI's ``reasoning_effort`` values."""


IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_DATA_URL = re.compile(r"^data:(image/[a-z+.-]+);base64,([A-Za-z0-9+/]*={0,2})$")
MAX_IMAGE_BYTES = 10 * 1024 * 1024
# How each supported type's bytes begin: (name, offset, magic) alternatives; WebP is RIFF....WEBP.
_SIGNATURES: dict[str, tuple[str, tuple[tuple[int, bytes], ...]]] = {
    "image/png": ("PNG", ((0, b"\x89PNG\r\n\x1a\n"),)),
    "image/jpeg": ("JPEG", ((0, b"\xff\xd8\xff"),)),
    "image/gif": ("GIF", ((0, b"GIF87a"), (0, b"GIF89a"))),
    "image/webp": ("WebP", ((0, b"RIFF"), (8, b"WEBP"))),
}
_HEAD_BYTES = 16


def _is(media_type: str, head: bytes) -> bool:
    _name, parts = _SIGNATURES[media_type]
    if media_type == "image/webp":  # both parts, not either
        return all(head[offset:offset + len(magic)] == magic for offset, magic in parts)
    return any(head[offset:offset + len(magic)] == magic for offset, magic in parts)


def image_bytes_problem(media_type: str, head: bytes) -> str | None:
    """Why bytes beginning with ``head`` are not an image of ``media_type`` (one of IMAGE_TYPES), or None.

    Only the signature is read (the first bytes each format begins with):
    enough to refuse a file renamed or a body that is no image at all, which
    members would otherwise be sent and fail on, each in its own words.
    """
    if _is(media_type, head):
        return None
    name = _SIGNATURES[media_type][0]
    actual = next((other for other in IMAGE_TYPES if other != media_type and _is(other, head)), None)
    found = f" (its bytes are a {_SIGNATURES[actual][0]} image)" if actual else ""
    return f"the image is declared {media_type} but is not a {name} image{found}"


# Dumps leave out what a field holds by default where the field came later or is mostly unset (exclude_if
# keeps that in pydantic's serializer, not in a Python wrapper called for every record). The tests are C
# callables, not Python functions: pydantic calls them for every record it writes, and they then run
# without a Python frame each.
is_none: Callable[[object], bool] = functools.partial(operator.is_, None)
"""True for None (an ``exclude_if`` test)."""
is_falsy: Callable[[object], bool] = operator.not_
"""True for 0, False and empty collections (an ``exclude_if`` test)."""


class ReusedMark(BaseModel):
    """The mark of a call record that may have been answered from a kept reply (``council eval``'s call reuse)."""

    reused: bool = Field(default=False, exclude_if=is_falsy,
                         description="True when the reply was a kept one (an evaluation re-run): no upstream call, "
                                     "no cost.")


class ImageRef(BaseModel):
    """An image a user attached: a ``data:`` URL with the bytes, or an ``http(s)`` URL to fetch them from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(max_length=16 * 1024 * 1024)

    @field_validator("url")
    @classmethod
    def _data_or_web(cls, url: str) -> str:
        if url.startswith("data:"):
            match = _DATA_URL.match(url)
            if match is None:
                raise ValueError("a data URL must be data:image/TYPE;base64,DATA with valid base64")
            if match.group(1) not in IMAGE_TYPES:
                raise ValueError(f"image type {match.group(1)} is not one of {', '.join(IMAGE_TYPES)}")
            if len(match.group(2)) * 3 // 4 > MAX_IMAGE_BYTES:
                raise ValueError(f"the image is larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MB")
            try:
                base64.b64decode(match.group(2), validate=True)
            except binascii.Error:
                raise ValueError("the data URL's base64 does not decode") from None
            return url
        if re.match(r"^https?://[^\s/]+", url) and len(url) <= 4096:
            return url
        raise ValueError("an image URL must be a data: URL or an http(s) URL")

    @property
    def inline(self) -> tuple[str, str] | None:
        """(media type, base64 data) of a data URL; None for a web URL."""
        match = _DATA_URL.match(self.url)
        return (match.group(1), match.group(2)) if match else None

    def content_problem(self) -> str | None:
        """Why a data URL's bytes are not the type it declares, or None (a web URL is checked when fetched).

        Not a validator: a stored run keeps loading whatever it held; the
        server, the page and :func:`as_messages` call it on what comes in.
        """
        inline = self.inline
        if inline is None:
            return None
        media_type, data = inline
        head = base64.b64decode(data[: (_HEAD_BYTES // 3 + 1) * 4])
        return image_bytes_problem(media_type, head)


class ChatMessage(BaseModel):
    """One turn of a conversation: its text, and the images a user attached to it (members that see images)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    content: str
    # A text turn serializes as it always has: role and content.
    images: tuple[ImageRef, ...] = Field(default=(), exclude_if=is_falsy)

    def text_only(self) -> ChatMessage:
        """This turn without its images."""
        return self if not self.images else ChatMessage(role=self.role, content=self.content)


class ConversationError(ValueError):
    """A conversation a run cannot take; ``message_index`` and ``image_index`` say where, when one part is at fault."""

    def __init__(self, message: str, message_index: int | None = None, image_index: int | None = None) -> None:
        super().__init__(message)
        self.message_index = message_index
        self.image_index = image_index


def as_messages(question: str | Sequence[ChatMessage | Mapping[str, Any]]) -> list[ChatMessage]:
    """Accept a bare question or a list of chat messages and return messages.

    Raises :class:`ConversationError` (a ``ValueError``) naming the problem
    and where it is when the input is unusable: an empty question, no
    messages, an image whose bytes are not what it says, a conversation
    that does not end with a user message, or one whose last message is empty.
    """
    if isinstance(question, str):
        if not question.strip():
            raise ConversationError("the question is empty")
        return [ChatMessage(role="user", content=question)]
    messages = [m if isinstance(m, ChatMessage) else ChatMessage.model_validate(m) for m in question]
    if not messages:
        raise ConversationError("the message list is empty")
    for index, message in enumerate(messages):
        for image_index, image in enumerate(message.images):
            if (problem := image.content_problem()) is not None:
                raise ConversationError(problem, index, image_index)
    last = messages[-1]
    if last.role != "user":
        raise ConversationError(f"the conversation must end with a user message, not {last.role!r}")
    if not last.content.strip() and not last.images:
        raise ConversationError("the last user message is empty", len(messages) - 1)
    return messages


_SCHEMA_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_JSON_SCHEMA_KEYS = frozenset({"name", "schema", "strict", "description"})


def check_response_format(value: Any) -> dict[str, Any]:
    """``value`` if it is an OpenAI ``response_format``, else a ``ValueError`` naming the bad part.

    The accepted shapes are ``{"type": "text"}``, ``{"type": "json_object"}``
    and ``{"type": "json_schema", "json_schema": {"name": ..., "schema":
    {...}, "strict": bool, "description": str}}`` (``name`` and ``schema``
    required, ``schema`` a valid JSON Schema). Unknown keys are refused, not
    ignored: a wire format that translates the format must not lose a part.
    """
    if not isinstance(value, dict):
        raise ValueError(f"must be an object, not {type(value).__name__}")
    kind = value.get("type")
    if kind not in ("text", "json_object", "json_schema"):
        raise ValueError(f"type must be one of text, json_object, json_schema; got {kind!r}")
    allowed = {"type", "json_schema"} if kind == "json_schema" else {"type"}
    extra = sorted(set(value) - allowed, key=str)
    if extra:
        raise ValueError(f"unknown key {extra[0]!r} for type {kind}")
    if kind != "json_schema":
        return value
    spec = value.get("json_schema")
    if not isinstance(spec, dict):
        raise ValueError("json_schema must be an object with name and schema when type is json_schema")
    extra = sorted(set(spec) - _JSON_SCHEMA_KEYS, key=str)
    if extra:
        raise ValueError(f"json_schema: unknown key {extra[0]!r}; allowed: description, name, schema, strict")
    name = spec.get("name")
    if not isinstance(name, str) or not _SCHEMA_NAME.match(name):
        raise ValueError("json_schema.name is required: 1-64 letters, digits, _ or -")
    schema = spec.get("schema")
    if not isinstance(schema, dict):
        raise ValueError("json_schema.schema is required and must be a JSON Schema object")
    if "strict" in spec and not isinstance(spec["strict"], bool):
        raise ValueError("json_schema.strict must be true or false")
    if "description" in spec and not isinstance(spec["description"], str):
        raise ValueError("json_schema.description must be a string")
    import jsonschema  # only json_schema formats need it

    try:
        check_schema_usable(schema)
    except jsonschema.SchemaError as error:
        where = "/".join(str(p) for p in error.path)
        raise ValueError(f"json_schema.schema is not a valid JSON Schema{f' at {where}' if where else ''}: "
                         f"{error.message[:200]}") from None
    except ValueError as error:
        raise ValueError(f"json_schema.schema: {error}") from None
    return value


class GenerationParams(BaseModel):
    """Sampling settings sent upstream. Unset fields are left out of requests.

    Not every wire format can honour every field: each provider declares
    what it supports (``Provider.supported_params``) and refuses the rest
    rather than dropping them (``Provider.unsupported_params``). ``seed`` is
    the one best-effort field: a wire format without seeds leaves it out.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = Field(default=None, ge=0, le=2, description="Sampling temperature.")
    top_p: float | None = Field(default=None, gt=0, le=1, description="Nucleus sampling mass.")
    max_tokens: int | None = Field(default=None, ge=1, description="Cap on generated tokens.")
    seed: int | None = Field(default=None, description="Seed, where the provider supports one.")
    stop: tuple[str, ...] | None = Field(default=None, description="Stop sequences.")
    # Fields added after the first release are left out of dumps while unset, so the config hash and the eval
    # manifests of existing setups stay what they were.
    presence_penalty: float | None = Field(default=None, ge=-2, le=2, exclude_if=is_none,
                                           description="Penalty on tokens already used.")
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2, exclude_if=is_none,
                                            description="Penalty growing with a token's count so far.")
    user: str | None = Field(default=None, max_length=256, exclude_if=is_none,
                              description="Opaque id of the end user, for abuse tracking.")
    safety_identifier: str | None = Field(default=None, max_length=256, exclude_if=is_none,
                                          description="Opaque id of the end user, as OpenAI's newer name for it.")
    reasoning_effort: ReasoningEffort | None = Field(default=None, exclude_if=is_none,
                                                      description="How hard a reasoning model thinks.")
    response_format: dict[str, Any] | None = Field(
        default=None, exclude_if=is_none,
        description="OpenAI's response_format: text, json_object, or json_schema with a schema.")

    @field_validator("stop")
    @classmethod
    def _stop_not_empty(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return value or None

    @field_validator("response_format")
    @classmethod
    def _response_format_shape(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else check_response_format(value)

    def set_fields(self) -> list[str]:
        """The names of the fields that are set (not None), in declaration order."""
        return [name for name in type(self).model_fields if getattr(self, name) is not None]

    def without(self, names: Iterable[str]) -> GenerationParams:
        """These params with the named fields unset.

        For callers that send one request to several wire formats (the
        council's members) and leave out, per member, what its wire format
        cannot honour: ``params.without(provider.unsupported_params(params))``.
        """
        drop = {name: None for name in names}
        unknown = set(drop) - set(type(self).model_fields)
        if unknown:
            raise ValueError(f"not a generation param: {', '.join(sorted(unknown))}")
        return self.model_copy(update=drop) if drop else self

    def merged(self, override: GenerationParams | None) -> GenerationParams:
        """Return these params with every field set in ``override`` taking precedence."""
        if override is None:
            return self
        return self.model_copy(update=override.model_dump(exclude_none=True))


class Usage(BaseModel):
    """Token counts of one or more upstream calls, and their cost when the upstream reported it."""

    # total_tokens is written out for readers; it is recomputed, so it is ignored on the way back in. Every
    # stored record carries a usage: the fields most calls leave at their default are left out.
    model_config = ConfigDict(extra="ignore", frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = Field(default=0, exclude_if=is_falsy,
                                      description="Of the prompt tokens, those read from a cache.")
    cost_usd: float | None = Field(default=None, exclude_if=is_none,
                                   description="What the upstream said the call cost (OpenRouter's usage.cost); "
                                               "None when it did not say.")
    estimated: bool = Field(default=False, exclude_if=is_falsy,
                            description="True when the counts were estimated from text length "
                                        "(a stream that reported no usage).")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        # A reported cost adds up where both sides have one; a side without calls (no tokens) adds nothing.
        costs = [u.cost_usd for u in (self, other) if u.cost_usd is not None or u.total_tokens]
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_prompt_tokens=self.cached_prompt_tokens + other.cached_prompt_tokens,
            cost_usd=sum(c for c in costs if c is not None) if costs and None not in costs else None,
            estimated=self.estimated or other.estimated,
        )


class Completion(BaseModel):
    """A finished answer from one member.

    ``model_version`` is the model name the provider reported back, which can
    differ from the configured alias. ``simulated`` marks answers written by a
    built-in simulated member rather than a real model.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    member: str
    provider: str
    model: str
    content: str
    finish_reason: str | None = None
    usage: Usage = Usage()
    model_version: str | None = None
    latency_ms: float = 0.0
    attempts: int = 1
    simulated: bool = False
    #: The model declined (``content`` holds its refusal): a structured run records it as ``refused``.
    refused: bool = False
    #: The function calls the answer made, as OpenAI's ``message.tool_calls`` entries (asked with tools only).
    tool_calls: tuple[dict[str, Any], ...] = ()
