"""Reading ``POST /v1/chat/completions`` bodies the way OpenAI clients send them.

Parsing is permissive where clients differ (non-standard fields are ignored,
content may be a string or a list of parts, roles include ``developer`` and
``tool``) and strict where a wrong value would silently change the result
(``temperature: "hot"``, ``stream: "yes"``, ``n: 3``). Every problem becomes
an :class:`ApiError` naming the offending parameter.

Every standard OpenAI chat parameter is declared, with its type, and is
either honoured or refused with a 400 that names it; none is silently
dropped. Which are honoured depends on the model asked:
:mod:`council.server.param_checks` for ``council`` and ``member/NAME``.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)

from council.pipeline import image_url_refusal
from council.side_tasks import side_task_kind
from council.types import (
    GenerationParams,
    ReasoningEffort,
    check_response_format,
)

MAX_TOKENS_LIMIT = 1_000_000
"""The largest ``max_tokens`` / ``max_completion_tokens`` accepted; no model comes near it."""
MAX_STOP_SEQUENCES = 4
"""The most ``stop`` sequences a request may carry: OpenAI's own limit."""
MAX_STOP_LENGTH = 100
"""The longest ``stop`` sequence, in characters."""
MAX_MESSAGES = 2048
"""The most ``messages`` a request may carry; each member is sent them all."""
_INT64 = 2**63
_TOOL_CHOICES = ("none", "auto", "required")

SURROGATE = re.compile("[\ud800-\udfff]")
# pydantic puts the tried type of a union member into error locations; field names are snake_case.
_TYPE_TAG = re.compile(r"^(?:str|int|float|bool|none"
                       r"|(?:list|dict|literal|tagged-union|function-\w+|constrained-\w+)\[.*\]"
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


class ImageUrl(_Lenient):
    """``image_url`` of an image part: a ``data:`` URL or an http(s) URL (``detail`` is accepted and not used)."""

    url: StrictStr
    detail: Literal["auto", "low", "high"] | None = None


class ContentPart(_Lenient):
    """One part of a list-valued ``content``: text, or an image."""

    type: StrictStr
    text: StrictStr | None = None
    image_url: ImageUrl | None = None


class RequestMessage(_Lenient):
    """A message as clients send it."""

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: StrictStr | list[ContentPart] | None = None
    name: StrictStr | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: StrictStr | None = None


class StreamOptions(_Lenient):
    """``stream_options``."""

    include_usage: StrictBool = False


Number = StrictFloat | StrictInt


class ChatCompletionRequest(_Lenient):
    """A chat completion request: every standard OpenAI parameter, strictly typed; other fields are ignored.

    Declared here means read: a parameter is honoured or refused (see
    :mod:`council.server.param_checks`),
    and a value of the wrong type is a 400 naming it.
    """

    model: StrictStr
    messages: list[RequestMessage] = Field(min_length=1)
    stream: StrictBool = False
    stream_options: StreamOptions | None = None
    # Honoured: sampling and length.
    temperature: Number | None = Field(default=None, ge=0, le=2)
    top_p: Number | None = Field(default=None, ge=0, le=1)
    max_tokens: StrictInt | None = Field(default=None, ge=1, le=MAX_TOKENS_LIMIT)
    max_completion_tokens: StrictInt | None = Field(default=None, ge=1, le=MAX_TOKENS_LIMIT)
    n: StrictInt | None = None
    stop: StrictStr | list[StrictStr] | None = None
    seed: StrictInt | None = Field(default=None, ge=-_INT64, lt=_INT64)
    presence_penalty: Number | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: Number | None = Field(default=None, ge=-2, le=2)
    user: StrictStr | None = Field(default=None, max_length=256)
    reasoning_effort: ReasoningEffort | None = None
    response_format: dict[str, Any] | None = None
    # Refused unless left at their defaults: Council answers with text only, without token data.
    logprobs: StrictBool | None = None
    top_logprobs: StrictInt | None = Field(default=None, ge=0, le=20)
    logit_bias: dict[StrictStr, Annotated[Number, Field(ge=-100, le=100)]] | None = None
    audio: dict[str, Any] | None = None
    modalities: list[StrictStr] | None = None
    prediction: dict[str, Any] | None = None
    functions: list[dict[str, Any]] | None = None
    function_call: Literal["none", "auto"] | dict[str, Any] | None = None
    web_search_options: dict[str, Any] | None = None
    verbosity: Literal["low", "medium", "high"] | None = None
    # Accepted as metadata about the call: they ask nothing of the answer.
    metadata: dict[StrictStr, StrictStr] | None = None
    store: StrictBool | None = None
    service_tier: StrictStr | None = None
    parallel_tool_calls: StrictBool | None = None
    prompt_cache_key: StrictStr | None = None
    prompt_cache_retention: StrictStr | None = None
    safety_identifier: StrictStr | None = None
    tools: list[Any] | None = None
    tool_choice: StrictStr | dict[str, Any] | None = None
    # Council's own.
    council_rubric: StrictStr | None = Field(default=None, max_length=300)
    council_max_usd: Number | None = Field(default=None, gt=0, le=100_000)
    council_cache: StrictBool | None = None

    @field_validator("messages", mode="before")
    @classmethod
    def _not_too_many_messages(cls, value: Any) -> Any:
        # Before the messages are read one by one: 30,000 of them are refused at once.
        if isinstance(value, list) and len(value) > MAX_MESSAGES:
            raise ValueError(f"at most {MAX_MESSAGES} messages a request, got {len(value)}")
        return value

    @field_validator("stop")
    @classmethod
    def _stop_within_caps(cls, value: str | list[str] | None) -> str | list[str] | None:
        sequences = [value] if isinstance(value, str) else value or []
        if len(sequences) > MAX_STOP_SEQUENCES:
            raise ValueError(f"at most {MAX_STOP_SEQUENCES} stop sequences (as OpenAI allows), got {len(sequences)}")
        for index, sequence in enumerate(sequences):
            if len(sequence) > MAX_STOP_LENGTH:
                where = "the stop sequence" if isinstance(value, str) else f"stop[{index}]"
                raise ValueError(f"a stop sequence is at most {MAX_STOP_LENGTH} characters; {where} has "
                                 f"{len(sequence)}")
        return value

    @field_validator("tool_choice")
    @classmethod
    def _tool_choice_shape(cls, value: str | dict[str, Any] | None) -> str | dict[str, Any] | None:
        if isinstance(value, str) and value not in _TOOL_CHOICES:
            raise ValueError(f"expected 'none', 'auto', 'required' or an object naming a tool, got {value[:40]!r}")
        if isinstance(value, dict) and not isinstance(value.get("type"), str):
            raise ValueError("an object tool_choice needs a type ('function', 'custom' or 'allowed_tools')")
        return value

    @field_validator("response_format")
    @classmethod
    def _response_format_shape(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else check_response_format(value)

    @property
    def tool_definitions(self) -> int:
        """How many tool definitions (``tools`` and legacy ``functions``) the request carries."""
        return len(self.tools or ()) + len(self.functions or ())

    def forced_tool_param(self) -> str | None:
        """The parameter that obliges the model to call a tool (``tool_choice``, ``function_call``), if any.

        ``"none"`` and ``"auto"`` leave the model free to answer in text, as
        does ``allowed_tools`` in ``auto`` mode; ``"required"``, a named
        function or tool, and ``allowed_tools`` in ``required`` mode do not.
        """
        choice = self.tool_choice
        if choice == "required":
            return "tool_choice"
        if isinstance(choice, dict):
            allowed = choice.get("allowed_tools")
            if not (choice["type"] == "allowed_tools" and isinstance(allowed, dict) and allowed.get("mode") == "auto"):
                return "tool_choice"
        if isinstance(self.function_call, dict):
            return "function_call"
        return None

    @property
    def include_usage(self) -> bool:
        """Whether a streamed answer ends with a usage chunk."""
        return bool(self.stream_options and self.stream_options.include_usage)

    def params(self) -> GenerationParams:
        """The generation settings to pass to a member (or, for the council, to its members).

        ``max_completion_tokens`` wins over ``max_tokens``; a ``response_format``
        of ``{"type": "text"}`` is the default everywhere and is left unset.
        """
        stop = [self.stop] if isinstance(self.stop, str) else self.stop
        response_format = None if self.response_format == {"type": "text"} else self.response_format
        return GenerationParams(
            temperature=self.temperature, top_p=self.top_p, seed=self.seed,
            max_tokens=self.max_completion_tokens or self.max_tokens, stop=tuple(stop) if stop else None,
            presence_penalty=self.presence_penalty, frequency_penalty=self.frequency_penalty, user=self.user,
            safety_identifier=self.safety_identifier,
            reasoning_effort=self.reasoning_effort, response_format=response_format,
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


def is_side_task(request: ChatCompletionRequest) -> bool:
    """Whether a request is a chat app's side task (a title, tags, follow-up questions), not a user's question.

    The rule is :func:`council.side_tasks.side_task_kind`'s, read on the
    last user message: kept narrow, so a real question is never taken for one.
    """
    last = next((m for m in reversed(request.messages) if m.role == "user"), None)
    if last is None or not isinstance(last.content, str):
        return False
    return side_task_kind(last.content) is not None


def parse_request(data: dict[str, Any], *, allow_private_images: bool = False) -> ChatCompletionRequest:
    """Validate a decoded body; raises :class:`ApiError` naming the parameter.

    An image URL whose host is not public is refused here, before any member
    is called or sent it, unless ``allow_private_images``
    (``transport.allow_private_image_urls``) says otherwise.
    """
    try:
        request = ChatCompletionRequest.model_validate(data)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        param = _param(tuple(error["loc"]))
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "missing":
            message = "required parameter is missing"
        raise ApiError(400, f"{param}: {message}", param=param or None) from None
    except RecursionError:
        raise ApiError(400, "the request is nested too deeply") from None
    if request.n is not None and request.n != 1:
        raise ApiError(400, f"n: only 1 completion per request is supported, got {request.n}", param="n")
    if not allow_private_images:
        _refuse_private_images(request)
    return request


def _refuse_private_images(request: ChatCompletionRequest) -> None:
    for index, message in enumerate(request.messages):
        for part_index, part in enumerate(message.content if isinstance(message.content, list) else ()):
            if part.type == "image_url" and part.image_url is not None:
                reason = image_url_refusal(part.image_url.url)
                if reason is not None:
                    param = f"messages[{index}].content[{part_index}].image_url.url"
                    raise ApiError(400, f"{param}: {reason}", param=param, code="invalid_image")
