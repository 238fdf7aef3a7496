"""Reading ``POST /v1/chat/completions`` bodies the way OpenAI clients send them.

Parsing is permissive where clients differ (unknown fields are ignored,
content may be a string or a list of parts, roles include ``developer`` and
``tool``) and strict where a wrong value would silently change the result
(``temperature: "hot"``, ``stream: "yes"``, ``n: 3``). Every problem becomes
an :class:`ApiError` naming the offending parameter.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, ValidationError

from council.types import ChatMessage, GenerationParams

_SURROGATE = re.compile("[\ud800-\udfff]")
# pydantic puts the tried type of a union member into error locations; field names are snake_case.
_TYPE_TAG = re.compile(r"^(?:str|int|float|bool|none|(?:list|dict|tagged-union|function-\w+|constrained-\w+)\[.*\]"
                       r"|function-.*|[A-Z]\w*)$")


class ApiError(Exception):
    """An error answered in OpenAI's shape: ``{"error": {message, type, param, code}}``."""

    def __init__(self, status: int, message: str, *, type: str = "invalid_request_error",
                 param: str | None = None, code: str | None = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        """The JSON body."""
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ContentPart(_Lenient):
    """One part of a list-valued ``content``."""

    type: StrictStr
    text: StrictStr | None = None


class RequestMessage(_Lenient):
    """A message as clients send it."""

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: StrictStr | list[ContentPart] | None = None
    name: StrictStr | None = None
    tool_calls: list[dict[str, Any]] | None = None


class StreamOptions(_Lenient):
    """``stream_options``."""

    include_usage: StrictBool = False


Number = StrictFloat | StrictInt


class ChatCompletionRequest(_Lenient):
    """The fields Council reads; every other field is accepted and ignored."""

    model: StrictStr
    messages: list[RequestMessage] = Field(min_length=1)
    stream: StrictBool = False
    stream_options: StreamOptions | None = None
    temperature: Number | None = Field(default=None, ge=0, le=2)
    top_p: Number | None = Field(default=None, ge=0, le=1)
    max_tokens: StrictInt | None = Field(default=None, ge=1)
    max_completion_tokens: StrictInt | None = Field(default=None, ge=1)
    n: StrictInt | None = None
    stop: StrictStr | list[StrictStr] | None = None
    seed: StrictInt | None = None
    presence_penalty: Number | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: Number | None = Field(default=None, ge=-2, le=2)
    user: StrictStr | None = None
    response_format: dict[str, Any] | None = None
    tools: list[Any] | None = None
    tool_choice: StrictStr | dict[str, Any] | None = None
    council_rubric: StrictStr | None = Field(default=None, max_length=300)

    @property
    def include_usage(self) -> bool:
        """Whether a streamed answer ends with a usage chunk."""
        return bool(self.stream_options and self.stream_options.include_usage)

    def params(self) -> GenerationParams:
        """The sampling settings to pass to a member."""
        stop = [self.stop] if isinstance(self.stop, str) else self.stop
        return GenerationParams(
            temperature=self.temperature, top_p=self.top_p, seed=self.seed,
            max_tokens=self.max_completion_tokens or self.max_tokens, stop=tuple(stop) if stop else None,
        )


def _param(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif not _TYPE_TAG.match(part):
            path += f".{part}" if path else part
    return path


def decode_body(raw: bytes) -> dict[str, Any]:
    """The JSON object in a request body, or a 400 that says what is wrong with it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(400, f"the body is not valid UTF-8 (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise ApiError(400, "the JSON body is nested too deeply") from None
    except ValueError as exc:
        raise ApiError(400, f"the body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, not a {type(data).__name__}")
    return data


def parse_request(data: dict[str, Any]) -> ChatCompletionRequest:
    """Validate a decoded body; raises :class:`ApiError` naming the parameter."""
    try:
        request = ChatCompletionRequest.model_validate(data)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        param = _param(tuple(error["loc"]))
        message = error["msg"]
        if error["type"] == "missing":
            message = "required parameter is missing"
        raise ApiError(400, f"{param}: {message}", param=param or None) from None
    except RecursionError:
        raise ApiError(400, "the request is nested too deeply") from None
    if request.n is not None and request.n != 1:
        raise ApiError(400, f"n: only 1 completion per request is supported, got {request.n}", param="n")
    choice = request.tool_choice
    if choice == "required" or isinstance(choice, dict):
        raise ApiError(400, "tool_choice: the council cannot be forced to call a tool", param="tool_choice")
    return request


def _text_of(message: RequestMessage, index: int) -> str:
    if message.content is None:
        calls = ", ".join(str((c.get("function") or {}).get("name", "?")) for c in message.tool_calls or [])
        return f"[called tools: {calls}]" if calls else ""
    if isinstance(message.content, str):
        return message.content
    texts = []
    for part_index, part in enumerate(message.content):
        if part.type != "text" or part.text is None:
            param = f"messages[{index}].content[{part_index}]"
            raise ApiError(400, f"{param}: only text parts are supported, got {part.type!r}", param=param)
        texts.append(part.text)
    return "\n".join(texts)


def to_messages(request: ChatCompletionRequest) -> list[ChatMessage]:
    """The conversation as council messages: developer becomes system, tool results become user turns."""
    messages = []
    for index, message in enumerate(request.messages):
        text = _text_of(message, index)
        param = f"messages[{index}].content"
        if _SURROGATE.search(text):
            raise ApiError(400, f"{param}: contains an unpaired Unicode surrogate", param=param)
        if "\x00" in text:
            raise ApiError(400, f"{param}: contains a NUL character", param=param)
        if message.role in ("system", "developer"):
            messages.append(ChatMessage(role="system", content=text))
        elif message.role in ("tool", "function"):
            messages.append(ChatMessage(role="user", content=f"[tool result]\n{text}"))
        elif text or message.role == "user":
            messages.append(ChatMessage(role=message.role, content=text))
    if not messages or messages[-1].role != "user":
        raise ApiError(400, "messages: the conversation must end with a user message", param="messages")
    if not messages[-1].content.strip():
        raise ApiError(400, f"messages[{len(request.messages) - 1}].content: the last user message is empty",
                       param=f"messages[{len(request.messages) - 1}].content")
    return messages
