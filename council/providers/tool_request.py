"""A chat-completions body that uses tools, read once for every wire format that is not OpenAI's.

``member/NAME`` relays a request Council does not model, tools above all
(:mod:`council.server.relay`). An OpenAI-format member takes the body as
it came; for the others the body is read here into a :class:`ToolRequest`
(turns with their text, images, tool calls and tool results; the function
tools; the tool choice), which :mod:`.anthropic_tools`,
:mod:`.gemini_tools` and the simulated member write in their own terms,
and :mod:`.relay_reply` writes the answer back in OpenAI's.

What no other wire format can carry (custom tools, a custom tool choice,
content parts other than text and images) is an :class:`UntranslatableError`,
which the server turns into a 400 naming the parameter.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import ValidationError

from council.types import ChatMessage, ImageRef

ToolMode = Literal["auto", "none", "required"]


class UntranslatableError(ValueError):
    """A part of the request the member's wire format cannot carry: ``param`` names it, the message says why."""

    def __init__(self, param: str, message: str) -> None:
        self.param = param
        super().__init__(f"{param}: {message}")


@dataclass(frozen=True)
class ToolCall:
    """One function call: the id a tool result answers, the function's name, its arguments as JSON text."""

    id: str
    name: str
    arguments: str

    def arguments_object(self) -> dict[str, Any]:
        """The arguments as the JSON object other wire formats carry (other text is kept under ``arguments``)."""
        if not self.arguments.strip():
            return {}
        try:
            value = json.loads(self.arguments)
        except ValueError:
            return {"arguments": self.arguments}
        return value if isinstance(value, dict) else {"arguments": value}


@dataclass(frozen=True)
class FunctionTool:
    """A function the model may call: its name, what it does, and its arguments' JSON Schema (None: no arguments)."""

    name: str
    description: str | None = None
    parameters: Mapping[str, Any] | None = None

    @property
    def schema(self) -> dict[str, Any]:
        """The arguments' schema, an empty object's when the tool declares none."""
        return dict(self.parameters) if self.parameters else {"type": "object", "properties": {}}


@dataclass(frozen=True)
class ToolChoice:
    """Whether the model may (``auto``), may not (``none``) or must (``required``) call a tool; ``name``: which one."""

    mode: ToolMode = "auto"
    name: str | None = None

    @property
    def forced(self) -> bool:
        return self.mode == "required"


@dataclass(frozen=True)
class Turn:
    """One message: ``system``, ``user``, ``assistant`` (text and calls) or ``tool`` (a result of ``call_id``)."""

    role: Literal["system", "user", "assistant", "tool"]
    text: str
    images: tuple[ImageRef, ...] = ()
    calls: tuple[ToolCall, ...] = ()
    call_id: str = ""
    #: A tool result's function name: the message's own, or the call's it answers.
    name: str = ""


@dataclass(frozen=True)
class ToolRequest:
    """What a member is asked: the conversation, the tools it may call, and the choice it has."""

    turns: tuple[Turn, ...]
    tools: tuple[FunctionTool, ...] = ()
    choice: ToolChoice = ToolChoice()
    #: ``parallel_tool_calls``: False asks for one call at most (None: the wire format's default).
    parallel: bool | None = None

    @property
    def answering_results(self) -> bool:
        """Whether the conversation ends with tool results (the model is to use them)."""
        last = next((t for t in reversed(self.turns) if t.role != "system"), None)
        return last is not None and last.role == "tool"


def _text(content: Any, param: str, role: str) -> tuple[str, tuple[ImageRef, ...]]:
    if content is None:
        return "", ()
    if isinstance(content, str):
        return content, ()
    texts: list[str] = []
    images: list[ImageRef] = []
    for index, part in enumerate(content if isinstance(content, list) else ()):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "image_url" and role == "user":
            url = (part.get("image_url") or {}).get("url") if isinstance(part.get("image_url"), dict) else None
            try:
                images.append(ImageRef(url=str(url)))
            except ValidationError as exc:
                reason = exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
                raise UntranslatableError(f"{param}[{index}].image_url.url", reason) from None
        else:
            raise UntranslatableError(f"{param}[{index}]", f"only text and image_url parts (images in user messages) "
                                                    f"can be translated, got {kind!r}")
    return "\n".join(texts), tuple(images)


def _calls(raw: Any, param: str) -> tuple[ToolCall, ...]:
    calls = []
    for index, call in enumerate(raw or ()):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or call.get("type", "function") != "function":
            raise UntranslatableError(f"{param}[{index}]", "only function tool calls can be translated")
        arguments = function.get("arguments")
        calls.append(ToolCall(id=str(call.get("id") or f"call_{index}"), name=str(function.get("name") or ""),
                              arguments=arguments if isinstance(arguments, str) else json.dumps(arguments or {})))
    return tuple(calls)


def _tools(raw: Any) -> tuple[FunctionTool, ...]:
    tools = []
    for index, tool in enumerate(raw or ()):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or tool.get("type") != "function" or not function.get("name"):
            kind = tool.get("type") if isinstance(tool, dict) else None
            raise UntranslatableError(f"tools[{index}]", f"only function tools can be translated, got {kind!r}")
        parameters = function.get("parameters")
        tools.append(FunctionTool(str(function["name"]), function.get("description") or None,
                                  parameters if isinstance(parameters, dict) else None))
    return tuple(tools)


def _choice(raw: Any, tools: tuple[FunctionTool, ...]) -> tuple[ToolChoice, tuple[FunctionTool, ...]]:
    """The choice, and the tools it leaves callable (``allowed_tools`` narrows them)."""
    if raw is None or raw in ("auto", "none", "required"):
        return ToolChoice(raw or "auto"), tools
    kind = raw.get("type") if isinstance(raw, dict) else None
    if kind == "function" and isinstance(raw.get("function"), dict) and raw["function"].get("name"):
        return ToolChoice("required", str(raw["function"]["name"])), tools
    allowed = raw.get("allowed_tools") if isinstance(raw, dict) else None
    if kind == "allowed_tools" and isinstance(allowed, dict) and allowed.get("mode") in ("auto", "required"):
        names = {str((t.get("function") or {}).get("name")) for t in allowed.get("tools") or () if isinstance(t, dict)}
        return ToolChoice(allowed["mode"]), tuple(t for t in tools if t.name in names)
    raise UntranslatableError("tool_choice", f"a tool choice of type {kind!r} cannot be translated")


def read_tool_request(body: Mapping[str, Any]) -> ToolRequest:
    """``body`` (a chat-completions request) as a :class:`ToolRequest`; an :class:`UntranslatableError` for what no
    other wire format carries."""
    turns: list[Turn] = []
    called: dict[str, str] = {}
    for index, message in enumerate(body.get("messages") or ()):
        role = message.get("role") if isinstance(message, dict) else None
        param = f"messages[{index}].content"
        if role in ("system", "developer"):
            turns.append(Turn("system", _text(message.get("content"), param, "system")[0]))
        elif role in ("tool", "function"):
            call_id = str(message.get("tool_call_id") or "")
            name = str(message.get("name") or called.get(call_id, ""))
            turns.append(Turn("tool", _text(message.get("content"), param, "tool")[0], call_id=call_id, name=name))
        elif role in ("user", "assistant"):
            text, images = _text(message.get("content"), param, role)
            calls = _calls(message.get("tool_calls"), f"messages[{index}].tool_calls") if role == "assistant" else ()
            called.update((call.id, call.name) for call in calls)
            turns.append(Turn(role, text, images, calls))
    tools = _tools(body.get("tools"))
    choice, tools = _choice(body.get("tool_choice"), tools)
    if choice.name is not None and all(tool.name != choice.name for tool in tools):
        raise UntranslatableError("tool_choice", f"names the function {choice.name!r}, which is not among the tools")
    parallel = body.get("parallel_tool_calls")
    return ToolRequest(tuple(turns), tools, choice, parallel if isinstance(parallel, bool) else None)


async def with_fetched_images(request: ToolRequest,
                              fetch: Callable[[list[ChatMessage]], Awaitable[list[ChatMessage]]]) -> ToolRequest:
    """``request`` with its linked images fetched by ``fetch`` (a provider's ``_with_images``) for wire formats
    that want the bytes inline."""
    if not any(turn.images for turn in request.turns):
        return request
    holders = [ChatMessage(role="user", content="", images=turn.images) for turn in request.turns]
    fetched = await fetch(holders)
    return replace(request, turns=tuple(replace(turn, images=holder.images)
                                        for turn, holder in zip(request.turns, fetched, strict=True)))


def as_text_messages(request: ToolRequest) -> list[ChatMessage]:
    """The conversation as plain turns (calls and results written out), for a member that reads text only."""
    messages: list[ChatMessage] = []
    for turn in request.turns:
        if turn.role == "tool":
            of = f" of {turn.name}" if turn.name else ""
            messages.append(ChatMessage(role="user", content=f"[tool result{of}]\n{turn.text}"))
            continue
        calls = "\n".join(f"[called tool {c.name} with arguments {c.arguments or '{}'}]" for c in turn.calls)
        text = "\n".join(t for t in (turn.text, calls) if t)
        if text or turn.images or turn.role == "user":
            messages.append(ChatMessage(role=turn.role, content=text, images=turn.images))
    return messages
