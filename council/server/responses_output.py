"""A chat completion told in the Responses API's words: the response object, and its stream of typed events.

:class:`ResponseDraft` collects what an answer says (the council's progress
as a ``reasoning`` item, the text as a ``message`` item, a refusal, the
tool calls as ``function_call`` items, the usage) and writes the response
object OpenAI's schema describes. :class:`ResponseEventWriter` is handed
to the chat handlers in place of their chunk writer: it takes the chat
deltas they write (``reasoning_content``, ``content``, ``refusal``,
``tool_calls``, a finish reason) and sends each as the events a Responses
stream carries, ``sequence_number`` on each, so a council run streams its
progress and its answer through either API from the same code.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from council.server.responses_input import ResponsesRequest
from council.types import Usage

_INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}


def _id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def item_id(prefix: str, response_id: str, index: int) -> str:
    """An output item's id: ``msg_<response hex>_<index>`` (the response's id without its ``resp_``)."""
    return f"{prefix}_{response_id.removeprefix('resp_')}_{index}"


def response_of_item(item_id: str) -> str | None:
    """The id of the response an output item of ours belongs to, or None for an id we did not give."""
    prefix, _, rest = item_id.partition("_")
    response_hex, _, index = rest.rpartition("_")
    if prefix not in ("msg", "fc", "rs") or not response_hex or not index.isdigit():
        return None
    return f"resp_{response_hex}"


def usage_object(usage: Usage) -> dict[str, Any]:
    """A response's ``usage``: input, output and total tokens."""
    return {"input_tokens": usage.prompt_tokens,
            "input_tokens_details": {"cached_tokens": usage.cached_prompt_tokens, "cache_write_tokens": 0},
            "output_tokens": usage.completion_tokens, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage.prompt_tokens + usage.completion_tokens}


class ResponseDraft:
    """One response as it is being written: its output items in order, its status and usage."""

    def __init__(self, response_id: str, request: ResponsesRequest) -> None:
        self.id = response_id
        self.request = request
        self.created_at = int(time.time())
        self.output: list[dict[str, Any]] = []
        self.status = "in_progress"
        self.usage: Usage | None = None
        self.error: dict[str, Any] | None = None
        self.incomplete: str | None = None
        self.extra: dict[str, Any] = {}

    def add(self, item: dict[str, Any]) -> int:
        self.output.append(item)
        return len(self.output) - 1

    def item_id(self, prefix: str) -> str:
        """The id of the next output item: it names this response, so an ``item_reference`` finds it."""
        return item_id(prefix, self.id, len(self.output))

    def finish(self, finish_reason: str | None) -> None:
        """The answer ended: ``length`` and ``content_filter`` leave it incomplete, as OpenAI says so."""
        if (reason := _INCOMPLETE.get(finish_reason or "")) is not None:
            self.status, self.incomplete = "incomplete", reason
        else:
            self.status = "completed"

    def fail(self, message: str, code: str | None) -> None:
        self.status = "failed"
        # The response's error code is one of OpenAI's few; Council's own code stays on the error event.
        self.error = {"code": "rate_limit_exceeded" if code == "rate_limited" else "server_error", "message": message}

    def text(self) -> str:
        """The answer's text, all message items' output text joined (``output_text`` in the SDKs)."""
        return "".join(part.get("text", "") for item in self.output if item["type"] == "message"
                       for part in item["content"] if part["type"] == "output_text")

    def body(self) -> dict[str, Any]:
        """The response object, as ``POST /v1/responses`` returns it and ``GET`` gives it back."""
        request = self.request
        tools = [{"type": "function", "name": t.get("name"), "description": t.get("description"),
                  "parameters": t.get("parameters"), "strict": t.get("strict", True)} for t in request.tools or []]
        text = {"format": (request.text or {}).get("format") or {"type": "text"}}
        body: dict[str, Any] = {
            "id": self.id, "object": "response", "created_at": self.created_at, "status": self.status,
            "background": False, "error": self.error,
            "incomplete_details": {"reason": self.incomplete} if self.incomplete else None,
            "instructions": request.instructions, "max_output_tokens": request.max_output_tokens,
            "metadata": request.metadata or {}, "model": request.model, "output": self.output,
            "parallel_tool_calls": request.parallel_tool_calls if request.parallel_tool_calls is not None else True,
            "previous_response_id": request.previous_response_id, "reasoning": None, "store": request.store,
            "temperature": request.temperature, "text": text,
            "tool_choice": request.tool_choice if request.tool_choice is not None else "auto", "tools": tools,
            "top_p": request.top_p, "truncation": "disabled",
            "usage": usage_object(self.usage) if self.usage is not None else None,
            "user": request.user, "safety_identifier": request.safety_identifier,
        }
        for optional in ("usage", "user", "safety_identifier"):
            if body[optional] is None:
                del body[optional]  # optional, and not nullable in OpenAI's schema: absent, never null
        return {**body, **self.extra}

    def read_chat(self, chat: dict[str, Any]) -> None:
        """Take a whole chat completion's answer: its text or refusal, its tool calls, usage and finish."""
        choice = chat["choices"][0]
        message = choice["message"]
        content: list[dict[str, Any]] = []
        if message.get("refusal"):
            content.append({"type": "refusal", "refusal": message["refusal"]})
        elif message.get("content") is not None and not message.get("tool_calls"):
            content.append({"type": "output_text", "text": message["content"], "annotations": [], "logprobs": []})
        if content:
            self.add({"type": "message", "id": self.item_id("msg"), "status": "completed", "role": "assistant",
                      "content": content})
        for call in message.get("tool_calls") or []:
            self.add({"type": "function_call", "id": self.item_id("fc"), "call_id": call["id"], "status": "completed",
                      "name": call["function"]["name"], "arguments": call["function"]["arguments"]})
        usage = chat.get("usage") or {}
        self.usage = Usage(prompt_tokens=int(usage.get("prompt_tokens") or 0),
                           completion_tokens=int(usage.get("completion_tokens") or 0),
                           cached_prompt_tokens=int((usage.get("prompt_tokens_details") or {}).get("cached_tokens")
                                                    or 0))
        self.extra = {key: chat[key] for key in ("council",) if key in chat}
        self.finish(choice.get("finish_reason"))

    def as_turns(self) -> list[dict[str, Any]]:
        """The output as chat messages, to continue from (``previous_response_id``)."""
        text = self.text() or None
        calls = [{"id": item["call_id"], "type": "function",
                  "function": {"name": item["name"], "arguments": item["arguments"]}}
                 for item in self.output if item["type"] == "function_call"]
        if text is None and not calls:
            return []
        return [{"role": "assistant", "content": text, **({"tool_calls": calls} if calls else {})}]


class ResponseEventWriter:
    """Writes a Responses API stream from the chat deltas a handler produces (the chunk writer's interface)."""

    def __init__(self, response: web.StreamResponse, draft: ResponseDraft,
                 before_end: Callable[[], Awaitable[None]] | None = None) -> None:
        self.response = response
        self.draft = draft
        # Run before the last event (storing the response): a client that follows up the moment the stream
        # ends, naming the response or its items, must find it.
        self.before_end = before_end
        self.sequence = 0
        self.started = False
        self.open: dict[str, Any] | None = None  # the item being written: reasoning, message or refusal
        self.calls: dict[int, int] = {}  # a streamed call's index -> its output index

    async def send(self, kind: str, **fields: Any) -> None:
        payload = {"type": kind, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        await self.response.write(f"event: {kind}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n".encode())

    async def start(self) -> None:
        if not self.started:
            self.started = True
            await self.send("response.created", response=self.draft.body())
            await self.send("response.in_progress", response=self.draft.body())

    async def delta(self, delta: dict[str, Any], finish_reason: str | None = None,
                    upstream_finish_reason: str | None = None) -> None:
        """One chat delta, told as the events it stands for (a finish reason closes the open items)."""
        await self.start()
        if text := delta.get("reasoning_content"):
            await self._write("reasoning", text)
        if text := delta.get("content"):
            await self._write("output_text", text)
        if text := delta.get("refusal"):
            await self._write("refusal", text)
        for call in delta.get("tool_calls") or []:
            await self._call(call)
        if finish_reason is not None:
            await self._close()
            for index in self.calls.values():
                await self._end_call(index)
            self.calls = {}
            self.draft.finish(finish_reason)

    async def _write(self, kind: str, text: str) -> None:
        if self.open is None or self.open["kind"] != kind:
            await self._close()
            await self._open(kind)
        assert self.open is not None
        self.open["text"] += text
        where = {"item_id": self.open["item"]["id"], "output_index": self.open["index"]}
        if kind == "reasoning":
            await self.send("response.reasoning_summary_text.delta", **where, summary_index=0, delta=text)
        elif kind == "refusal":
            await self.send("response.refusal.delta", **where, content_index=0, delta=text)
        else:
            await self.send("response.output_text.delta", **where, content_index=0, delta=text, logprobs=[])

    async def _open(self, kind: str) -> None:
        if kind == "reasoning":
            item: dict[str, Any] = {"type": "reasoning", "id": self.draft.item_id("rs"), "summary": []}
        else:
            item = {"type": "message", "id": self.draft.item_id("msg"), "status": "in_progress", "role": "assistant",
                    "content": []}
        index = self.draft.add(item)
        self.open = {"kind": kind, "item": item, "index": index, "text": ""}
        where = {"item_id": item["id"], "output_index": index}
        await self.send("response.output_item.added", output_index=index, item=item)
        if kind == "reasoning":
            await self.send("response.reasoning_summary_part.added", **where, summary_index=0,
                            part={"type": "summary_text", "text": ""})
        else:
            await self.send("response.content_part.added", **where, content_index=0, part=_part(kind, ""))

    async def _close(self) -> None:
        if self.open is None:
            return
        kind, item, text = self.open["kind"], self.open["item"], self.open["text"]
        where = {"item_id": item["id"], "output_index": self.open["index"]}
        self.open = None
        if kind == "reasoning":
            item["summary"] = [{"type": "summary_text", "text": text}]
            await self.send("response.reasoning_summary_text.done", **where, summary_index=0, text=text)
            await self.send("response.reasoning_summary_part.done", **where, summary_index=0,
                            part={"type": "summary_text", "text": text})
        else:
            part = _part(kind, text)
            item["content"], item["status"] = [part], "completed"
            if kind == "refusal":
                await self.send("response.refusal.done", **where, content_index=0, refusal=text)
            else:
                await self.send("response.output_text.done", **where, content_index=0, text=text, logprobs=[])
            await self.send("response.content_part.done", **where, content_index=0, part=part)
        await self.send("response.output_item.done", output_index=where["output_index"], item=item)

    async def _call(self, call: dict[str, Any]) -> None:
        function = call.get("function") or {}
        position = int(call.get("index", 0))
        if position not in self.calls:
            await self._close()
            item = {"type": "function_call", "id": self.draft.item_id("fc"), "call_id": call.get("id") or _id("call"),
                    "name": function.get("name") or "", "arguments": "", "status": "in_progress"}
            self.calls[position] = self.draft.add(item)
            await self.send("response.output_item.added", output_index=self.calls[position], item=item)
        index = self.calls[position]
        item = self.draft.output[index]
        if arguments := function.get("arguments"):
            item["arguments"] += arguments
            await self.send("response.function_call_arguments.delta", item_id=item["id"], output_index=index,
                            delta=arguments)

    async def _end_call(self, index: int) -> None:
        item = self.draft.output[index]
        item["status"] = "completed"
        await self.send("response.function_call_arguments.done", item_id=item["id"], output_index=index,
                        name=item["name"], arguments=item["arguments"])
        await self.send("response.output_item.done", output_index=index, item=item)

    async def usage(self, usage: Usage) -> None:
        self.draft.usage = usage

    async def error(self, message: str, type: str = "server_error", code: str | None = None) -> None:
        """The answer failed after the stream started: ``error``, then ``response.failed`` from :meth:`done`."""
        await self.start()
        await self._close()
        self.draft.fail(message, code)
        await self.send("error", code=code, message=message, param=None)

    async def keepalive(self) -> None:
        await self.response.write(b": keep-alive\n\n")

    async def done(self) -> None:
        """The end: ``response.completed`` (or ``incomplete`` / ``failed``) with the whole response."""
        await self.start()
        await self._close()
        if self.draft.status == "in_progress":
            self.draft.finish("stop")
        ending = {"completed": "response.completed", "incomplete": "response.incomplete"}.get(
            self.draft.status, "response.failed")
        if self.before_end is not None:
            await self.before_end()
        await self.send(ending, response=self.draft.body())


def _part(kind: str, text: str) -> dict[str, Any]:
    if kind == "refusal":
        return {"type": "refusal", "refusal": text}
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


async def replay(writer: ResponseEventWriter, draft: ResponseDraft) -> None:
    """Stream a response that was answered whole (a relayed tool call): every event, in order, at once."""
    items, draft.output = draft.output, []
    status, incomplete = draft.status, draft.incomplete
    draft.status = "in_progress"
    for item in items:
        if item["type"] == "function_call":
            await writer.delta({"tool_calls": [{"index": len(writer.calls), "id": item["call_id"],
                                                "function": {"name": item["name"], "arguments": item["arguments"]}}]})
        else:
            for part in item["content"]:
                await writer.delta({"refusal": part["refusal"]} if part["type"] == "refusal"
                                   else {"content": part["text"]})
    await writer.delta({}, "stop")
    draft.status, draft.incomplete = status, incomplete
    await writer.done()
