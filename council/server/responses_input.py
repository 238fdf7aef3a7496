"""A Responses API request (``POST /v1/responses``) read as the chat-completions request it asks for.

The Responses API says the same things as chat completions in other
words: ``input`` items for messages, ``instructions`` for a system turn,
``text.format`` for ``response_format``, flat function tools,
``function_call`` / ``function_call_output`` items for tool calls and
results, ``max_output_tokens`` for ``max_tokens``. This module translates
one into the other, so that every model (``council``, ``council/NAME``,
``member/NAME``) answers a response exactly as it answers a chat request,
with the same checks; a part it cannot translate is a 400 naming it in
the Responses API's own words (``input[2].content[0]``). It knows no run
and no storage.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, StrictBool, StrictStr, ValidationError

from council.server.schema import ApiError, _Lenient


class ResponsesRequest(_Lenient):
    """The fields of ``POST /v1/responses`` Council reads (others, such as ``include``, are ignored)."""

    model: StrictStr
    input: StrictStr | list[dict[str, Any]]
    instructions: StrictStr | None = None
    max_output_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    metadata: dict[str, StrictStr] | None = None
    user: StrictStr | None = None
    safety_identifier: StrictStr | None = None
    text: dict[str, Any] | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: StrictStr | dict[str, Any] | None = None
    parallel_tool_calls: StrictBool | None = None
    stream: StrictBool = False
    store: StrictBool = True
    previous_response_id: StrictStr | None = None


def read_request(data: dict[str, Any]) -> ResponsesRequest:
    """The request's fields, or a 400 naming the first one that is wrong."""
    try:
        return ResponsesRequest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        # The field's name only: pydantic adds the union member it tried (``input.str``), which no client sent.
        param = str(first["loc"][0]) if first["loc"] else None
        raise ApiError(400, f"{param}: {first['msg']}", param=param) from None


def chat_body(request: ResponsesRequest, earlier: list[dict[str, Any]]) -> dict[str, Any]:
    """The chat-completions body ``request`` asks for, continuing the ``earlier`` conversation (chat messages)."""
    messages: list[dict[str, Any]] = []
    if request.instructions:
        messages.append({"role": "system", "content": request.instructions})
    messages += earlier
    messages += input_messages(request.input)
    body: dict[str, Any] = {"model": request.model, "messages": messages, "stream": request.stream}
    if request.stream:
        body["stream_options"] = {"include_usage": True}
    for name, value in (("temperature", request.temperature), ("top_p", request.top_p),
                        ("max_tokens", request.max_output_tokens),
                        ("user", request.user), ("safety_identifier", request.safety_identifier),
                        ("parallel_tool_calls", request.parallel_tool_calls)):
        if value is not None:
            body[name] = value
    if (response_format := _response_format(request.text)) is not None:
        body["response_format"] = response_format
    if request.tools:
        body["tools"] = [_tool(tool, index) for index, tool in enumerate(request.tools)]
    if request.tool_choice is not None:
        body["tool_choice"] = _tool_choice(request.tool_choice)
    return body


def is_reference(item: Any) -> bool:
    """Whether an input item is an ``item_reference``: an earlier output item named by its id alone."""
    return isinstance(item, dict) and (item.get("type") == "item_reference"
                                       or ("type" not in item and "role" not in item and "id" in item))


def input_messages(items: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``input`` as chat messages: a string is one user turn; items become turns, calls and tool results."""
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    messages: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        kind = item.get("type", "message" if "role" in item else None)
        where = f"input[{index}]"
        if kind == "message":
            messages.append(_message(item, where))
        elif kind == "function_call":
            call = {"id": _string(item, "call_id", where), "type": "function",
                    "function": {"name": _string(item, "name", where), "arguments": _string(item, "arguments", where)}}
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant" and last.get("tool_calls") and not last["content"]:
                last["tool_calls"].append(call)  # parallel calls: one assistant turn, as chat completions have it
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            text = output if isinstance(output, str) else _text_of(output, f"{where}.output")
            messages.append({"role": "tool", "tool_call_id": _string(item, "call_id", where), "content": text})
        elif kind == "reasoning":
            continue  # the council's own progress, handed back by clients: nothing a member needs to read
        else:
            raise ApiError(400, f"{where}.type: {kind!r} items are not supported; send messages, function_call and "
                                "function_call_output items", param=f"{where}.type")
    return messages


def _message(item: dict[str, Any], where: str) -> dict[str, Any]:
    role = item.get("role")
    if role not in ("user", "assistant", "system", "developer"):
        raise ApiError(400, f"{where}.role: expected user, assistant, system or developer, got {role!r}",
                       param=f"{where}.role")
    content = item.get("content")
    if isinstance(content, str):
        return {"role": role, "content": content}
    if not isinstance(content, list):
        raise ApiError(400, f"{where}.content: a string or a list of content parts", param=f"{where}.content")
    parts: list[dict[str, Any]] = []
    for index, part in enumerate(content):
        param = f"{where}.content[{index}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("input_text", "output_text", "text"):
            parts.append({"type": "text", "text": _string(part, "text", param)})
        elif kind == "refusal":
            parts.append({"type": "text", "text": _string(part, "refusal", param)})
        elif kind == "input_image":
            url = part.get("image_url")
            if not isinstance(url, str):
                raise ApiError(400, f"{param}.image_url: an image is sent as a URL (data: or https:); file_id is "
                                    "not supported", param=f"{param}.image_url")
            parts.append({"type": "image_url", "image_url": {"url": url, "detail": part.get("detail") or "auto"}})
        else:
            raise ApiError(400, f"{param}.type: {kind!r} parts are not supported; send input_text and input_image",
                           param=f"{param}.type")
    if role != "user" and all(p["type"] == "text" for p in parts):
        return {"role": role, "content": "\n".join(p["text"] for p in parts)}
    return {"role": role, "content": parts}


def _text_of(value: Any, where: str) -> str:
    if isinstance(value, list) and all(isinstance(p, dict) and isinstance(p.get("text"), str) for p in value):
        return "\n".join(p["text"] for p in value)
    raise ApiError(400, f"{where}: a string, or a list of text parts", param=where)


def _string(item: dict[str, Any], name: str, where: str) -> str:
    value = item.get(name)
    if not isinstance(value, str):
        raise ApiError(400, f"{where}.{name}: required, a string", param=f"{where}.{name}")
    return value


def _response_format(text: dict[str, Any] | None) -> dict[str, Any] | None:
    fmt = (text or {}).get("format")
    if fmt is None:
        return None
    if not isinstance(fmt, dict) or fmt.get("type") not in ("text", "json_object", "json_schema"):
        raise ApiError(400, "text.format.type: expected text, json_object or json_schema", param="text.format")
    if fmt["type"] != "json_schema":
        return {"type": fmt["type"]}
    spec = {key: fmt[key] for key in ("name", "schema", "strict", "description") if key in fmt}
    return {"type": "json_schema", "json_schema": spec}


def _tool(tool: dict[str, Any], index: int) -> dict[str, Any]:
    if tool.get("type") != "function":
        raise ApiError(400, f"tools[{index}].type: only function tools are supported, not {tool.get('type')!r}",
                       param=f"tools[{index}].type")
    function = {key: tool[key] for key in ("name", "description", "parameters", "strict") if key in tool}
    return {"type": "function", "function": function}


def _tool_choice(choice: str | dict[str, Any]) -> str | dict[str, Any]:
    if isinstance(choice, str):
        return choice
    if choice.get("type") == "function" and isinstance(choice.get("name"), str):
        return {"type": "function", "function": {"name": choice["name"]}}
    raise ApiError(400, "tool_choice: auto, none, required, or {\"type\": \"function\", \"name\": ...}",
                   param="tool_choice")
