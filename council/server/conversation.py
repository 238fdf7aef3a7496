"""A chat request's messages as a council conversation, and a refused run request named as the client sent it.

:mod:`.schema` reads the body's wire format; this module turns its
messages into the conversation a run gets (developer turns become system,
tool results user turns, image parts images) and keeps where each came
from, so that what the run plan refuses (:meth:`council.Council.plan`)
reaches the client as a 400 naming the request's own parameter, mapped in
one place (:func:`invalid_request`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from council.errors import InvalidRequestError
from council.server.schema import SURROGATE, ApiError, ChatCompletionRequest, ContentPart, RequestMessage
from council.types import ChatMessage, ConversationError, ImageRef, as_messages


def _calls_of(message: RequestMessage) -> str:
    """An assistant turn's tool calls as text the members read: each function's name and arguments."""
    lines = []
    for call in message.tool_calls or []:
        function = call.get("function") if isinstance(call, dict) else None
        function = function if isinstance(function, dict) else {}
        lines.append(f"[called tool {function.get('name', '?')} with arguments {function.get('arguments') or '{}'}]")
    return "\n".join(lines)


def _content_of(message: RequestMessage, index: int) -> tuple[str, tuple[ImageRef, ...]]:
    """The text of a message and the images it carries; a 400 naming the part for anything else."""
    calls = _calls_of(message)
    if message.content is None:
        return calls, ()
    if isinstance(message.content, str):
        return "\n".join(t for t in (message.content, calls) if t), ()
    texts: list[str] = []
    images: list[ImageRef] = []
    for part_index, part in enumerate(message.content):
        param = f"messages[{index}].content[{part_index}]"
        if part.type == "text" and part.text is not None:
            texts.append(part.text)
        elif part.type == "image_url":
            images.append(_image_of(part, param, message.role))
        else:
            raise ApiError(400, f"{param}: only text and image_url parts are supported, got {part.type!r}",
                           param=param)
    return "\n".join(texts), tuple(images)


def _image_of(part: ContentPart, param: str, role: str) -> ImageRef:
    if part.image_url is None:
        raise ApiError(400, f"{param}.image_url: required for a part of type image_url", param=f"{param}.image_url")
    if role != "user":
        raise ApiError(400, f"{param}: images are accepted in user messages only, not in a {role} message",
                       param=param)
    # The URL's form is read here; whether its bytes are the image they say is the run plan's check.
    try:
        return ImageRef(url=part.image_url.url)
    except ValidationError as exc:
        reason = exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        raise ApiError(400, f"{param}.image_url.url: {reason}", param=f"{param}.image_url.url",
                       code="invalid_image") from None


@dataclass(frozen=True, slots=True)
class MessageOrigin:
    """Where one council message came from in the request: its index, and the content part of each image."""

    index: int
    image_parts: tuple[int, ...] = ()


def to_conversation(request: ChatCompletionRequest) -> tuple[list[ChatMessage], list[MessageOrigin]]:
    """The conversation as council messages, and where each came from (to name a request's part in an error).

    Developer becomes system, tool results become user turns. What a run
    may take (a user message last, images whose bytes are what they say) is
    the run plan's to check, not this reader's: it reads the wire format.
    """
    messages: list[ChatMessage] = []
    origins: list[MessageOrigin] = []
    called: dict[str, str] = {}  # tool call id -> function name, to say whose result a tool message is
    for index, message in enumerate(request.messages):
        for call in message.tool_calls or []:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                called[call["id"]] = str((call.get("function") or {}).get("name", "?"))
        text, images = _content_of(message, index)
        param = f"messages[{index}].content"
        if SURROGATE.search(text):
            raise ApiError(400, f"{param}: contains an unpaired Unicode surrogate", param=param)
        if "\x00" in text:
            raise ApiError(400, f"{param}: contains a NUL character", param=param)
        parts = tuple(i for i, part in enumerate(message.content if isinstance(message.content, list) else ())
                      if part.type == "image_url")
        if message.role in ("system", "developer"):
            messages.append(ChatMessage(role="system", content=text))
        elif message.role in ("tool", "function"):
            tool = message.name or called.get(message.tool_call_id or "", "")
            messages.append(ChatMessage(role="user", content=f"[tool result{' of ' + tool if tool else ''}]\n{text}"))
        elif text or images or message.role == "user":
            messages.append(ChatMessage(role=message.role, content=text, images=images))
        else:
            continue
        origins.append(MessageOrigin(index, parts))
    return messages, origins


def to_messages(request: ChatCompletionRequest) -> list[ChatMessage]:
    """The conversation as council messages, checked as a run's is (for a member's pass-through)."""
    messages, origins = to_conversation(request)
    try:
        return as_messages(messages)
    except ConversationError as exc:
        raise invalid_request(InvalidRequestError(str(exc), option="messages", message_index=exc.message_index,
                                                  image_index=exc.image_index,
                                                  code="invalid_image" if exc.image_index is not None else None),
                              origins) from None


#: A run option, as the chat API names it: the parameter and the error code a client gets.
_CHAT_PARAMS: dict[str, tuple[str, str | None]] = {
    "max_usd": ("council_max_usd", "invalid_budget"),
    "rubric": ("council_rubric", "rubric_not_found"),
    "preset": ("model", "model_not_found"),
    "tool_messages": ("messages", None),
}


def invalid_request(error: InvalidRequestError, origins: Sequence[MessageOrigin] | None = None) -> ApiError:
    """A refused run request as a 400 in OpenAI's shape, naming the request's parameter at fault.

    The one place the server maps a run option (:class:`council.RunRequest`)
    to its chat parameter; ``origins`` places a message or an image the
    plan refused in the request as the client sent it.
    """
    option = error.option or ""
    message = str(error).removeprefix("invalid question: ")
    if option == "messages":
        param = "messages"
        if error.message_index is not None and origins and error.message_index < len(origins):
            origin = origins[error.message_index]
            param = f"messages[{origin.index}].content"
            if error.image_index is not None and error.image_index < len(origin.image_parts):
                param += f"[{origin.image_parts[error.image_index]}].image_url.url"
        message = message.split(": ", 1)[1] if message.startswith("messages[") else message
        return ApiError(400, f"{param}: {message}", param=param, code=error.code)
    if option.startswith("params."):
        param = option.removeprefix("params.")
        return ApiError(400, message, param=param, code=error.code)
    named, code = _CHAT_PARAMS.get(option, (option or None, None))
    return ApiError(400, f"{named}: {message}" if named else message, param=named, code=error.code or code)


