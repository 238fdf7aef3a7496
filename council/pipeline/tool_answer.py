"""A member asked for the council's tool call in its own wire format's tool calling.

A run that decides a tool call (:meth:`OutputSpec.for_tools`) sends each
member the conversation as OpenAI chat messages (earlier calls and tool
results kept as such, :attr:`RunPlan.tool_messages`), the function tools and
the ``tool_choice`` the spec asks for; the provider translates them into its
wire format (:meth:`Provider.complete_tools`). The member's reply becomes the
value the rest of the run handles, as a structured answer's would: the
call's arguments, ``{"name", "arguments"}``, or ``{"reply": TEXT}`` where it
was free to answer in text. A reply that is not one (text where a call was
forced, a function not offered, arguments that are not JSON or do not
validate) is asked again once, the error quoted as the tool's result (or a
user turn after text); a second miss is :class:`StructuredReply` with its
error, which the answer stage records as ``invalid_output``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from council.pipeline.structured import OutputSpec, StructuredReply
from council.types import ChatMessage, Completion

#: How the retry of a call that was not a valid one ends (after the error it quotes).
RETRY_CALL_NOTE = "Call the tool again, with the arguments corrected."
RETRY_TEXT_NOTE = "Reply again by calling the tool."


def openai_turns(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    """Text turns (images on user turns) as OpenAI chat messages."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.images:
            parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
            parts += [{"type": "image_url", "image_url": {"url": image.url}} for image in message.images]
            turns.append({"role": message.role, "content": parts})
        else:
            turns.append({"role": message.role, "content": message.content})
    return turns


def without_images(turns: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """``turns`` with their image parts left out (a member with ``vision: false``)."""
    kept = []
    for turn in turns:
        content = turn.get("content")
        if isinstance(content, list):
            parts = [part for part in content if not (isinstance(part, dict) and part.get("type") == "image_url")]
            turn = {**turn, "content": parts}
        kept.append(turn)
    return kept


def tool_body(spec: OutputSpec, turns: list[dict[str, Any]]) -> dict[str, Any]:
    """The chat-completions body asking a member for ``spec``'s call: the tools, the choice, one call at most."""
    return {"messages": turns, "tools": list(spec.tools), "tool_choice": spec.tool_choice(),
            "parallel_tool_calls": False}


def read_call(spec: OutputSpec, completion: Completion) -> tuple[Any, str | None]:
    """The member's reply as ``spec``'s value and None, or None and why it is not a valid one (one line)."""
    if not completion.tool_calls:
        if spec.may_reply and completion.content.strip():
            return {"reply": completion.content}, None
        wanted = " or ".join(spec.calls)
        return None, f"is text where a call of {wanted} was required"
    function = completion.tool_calls[0].get("function")
    function = function if isinstance(function, dict) else {}
    name = function.get("name")
    if name not in spec.calls:
        return None, f"calls {name!r}, which is not among the tools offered ({', '.join(spec.calls)})"
    raw = function.get("arguments")
    try:
        arguments = json.loads(raw) if isinstance(raw, str) and raw.strip() else raw if raw else {}
    except ValueError as bad:
        return None, f"calls {name} with arguments that are not valid JSON: {bad}"
    value, error = spec.check(spec.value_of_call(str(name), arguments))
    return value, None if error is None else f"calls {name}: the call {error}"


def retry_turns(turns: list[dict[str, Any]], completion: Completion, error: str) -> list[dict[str, Any]]:
    """``turns`` with the member's reply and the error quoted: as the called tool's result, else a user turn."""
    if completion.tool_calls:
        call = completion.tool_calls[0]
        call_id = str(call.get("id") or "call_0")
        entry = {"id": call_id, "type": "function", "function": call.get("function") or {}}
        return [*turns, {"role": "assistant", "content": completion.content or None, "tool_calls": [entry]},
                {"role": "tool", "tool_call_id": call_id, "content": f"Not called: that call {error}. "
                                                                     f"{RETRY_CALL_NOTE}"}]
    return [*turns, {"role": "assistant", "content": completion.content},
            {"role": "user", "content": f"That reply {error}. {RETRY_TEXT_NOTE}"}]


async def ask_tools(spec: OutputSpec, turns: list[dict[str, Any]],
                    call: Callable[[list[dict[str, Any]]], Awaitable[Completion]]) -> StructuredReply:
    """Call with the tools, read the reply as ``spec``; once more quoting the error when it is not a valid call.

    The reply's ``content`` is what the member answered: its text, else the call it made as JSON.
    """
    completion = await call(turns)
    if completion.refused:
        return StructuredReply(completion, error="refused")  # asking again would not change a refusal
    value, error = read_call(spec, completion)
    if error is None:
        return StructuredReply(shown(completion), value)
    second = await call(retry_turns(turns, completion, error))
    # Both calls were made and paid for: the record counts the first one's tokens too.
    again = shown(second).model_copy(update={"usage": completion.usage + second.usage})
    if again.refused:
        return StructuredReply(again, error="refused", attempts=2)
    value, error = read_call(spec, second)
    return StructuredReply(again, value, error, attempts=2)


def shown(completion: Completion) -> Completion:
    """``completion`` with its content what it answered: the text, or else the call it made (for the record)."""
    if completion.content.strip() or not completion.tool_calls:
        return completion
    function = completion.tool_calls[0].get("function") or {}
    made = {"name": function.get("name"), "arguments": function.get("arguments")}
    return completion.model_copy(update={"content": json.dumps(made, ensure_ascii=False)})
