"""The simulated provider: a member with no network, answering through the reply function it is handed.

It knows nothing of councils or prompts: :mod:`council.simulation` decides
what a simulated member writes, and this module delivers it like a model
would (whole or as a stream, with usage, the member's latency, and
``max_tokens`` / ``stop`` applied). Tests can hand it any reply function,
sync or async; one that returns a whole :class:`~council.providers.base.Reply`
(usage and finish reason of its own) has it delivered as written.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from council.config import MemberConfig
from council.providers.base import Provider, RelayEvents, Reply
from council.providers.relay_reply import (
    CallArguments,
    CallStart,
    End,
    Piece,
    RelayStream,
    TextPiece,
    ToolReply,
    new_call_id,
)
from council.providers.tool_request import (
    FunctionTool,
    ToolCall,
    ToolChoice,
    as_text_messages,
    read_tool_request,
)
from council.types import ChatMessage, Completion, GenerationParams, Usage

Written = str | Reply
ReplyWriter = Callable[[list[ChatMessage]], Written | Awaitable[Written]]
"""Writes a simulated member's whole reply to a conversation: its text, or a whole reply; sync or async."""

StructuredWriter = Callable[[list[ChatMessage], dict[str, Any]], str]
"""Writes a simulated member's reply to a conversation that asks for a JSON ``response_format``."""

ToolUse = tuple[str, Any] | str | None
"""A simulated member's move when it may call tools: a call (function name, arguments), a text answer, or None
(it answers as its writer would)."""

ToolUser = Callable[[list[ChatMessage], Sequence[FunctionTool], ToolChoice], ToolUse]
"""Decides a simulated member's move in a conversation (tool calls and results written out as text) that offers
``tools`` with a tool choice."""


@dataclass(frozen=True)
class SimulatedBehaviour:
    """How one simulated member replies, and how long it takes."""

    write: ReplyWriter
    latency_ms: float = 0.0
    #: How it answers a JSON ``response_format`` (None: it writes prose whatever is asked).
    write_structured: StructuredWriter | None = None
    #: How it uses tools it is offered (None: it answers in text, as a model that ignores them).
    use_tools: ToolUser | None = None


def _count_tokens(text: str) -> int:
    return max(1, len(text.split()))


def word_usage(messages: list[ChatMessage], text: str) -> Usage:
    """What a simulated call costs in tokens: one a word, of the conversation and of the answer."""
    return Usage(prompt_tokens=sum(_count_tokens(m.content) for m in messages), completion_tokens=_count_tokens(text))


class SimulatedProvider(Provider):
    """A member that answers through its :class:`SimulatedBehaviour`, without any network call.

    Its generation params: ``max_tokens`` cuts the answer (in words) and
    ``stop`` ends it before the first stop sequence, both with the finish
    reason a real model gives. It has no sampler, so the sampling settings
    (``temperature``, ``top_p``, ``seed``, the penalties, ``reasoning_effort``)
    are honoured trivially: the answer is the same whatever they are, which
    is what a deterministic model promises. ``user`` tags nothing, since it
    keeps no logs. A JSON ``response_format`` goes to its behaviour's
    structured writer (the built-in simulated council writes valid
    instances); a behaviour without one answers in prose, as a model that
    ignores the format would, and the council finds it invalid.
    """

    name = "simulated"
    simulated = True
    supported_params = frozenset(GenerationParams.model_fields)

    def __init__(self, member: MemberConfig, *, behaviour: SimulatedBehaviour, **kwargs: Any) -> None:
        super().__init__(member, **kwargs)
        self.behaviour = behaviour

    async def _reply(self, messages: list[ChatMessage], params: GenerationParams, text: str | None = None) -> Reply:
        """The reply to ``messages``: ``text`` if given, else what the behaviour writes; cut as ``params`` say."""
        self.check_params(params)
        asked = params.response_format
        structured = asked is not None and asked != {"type": "text"} and self.behaviour.write_structured is not None
        written: Written | Awaitable[Written]
        if text is not None:
            written = text
        elif structured and self.behaviour.write_structured is not None and asked is not None:
            written = self.behaviour.write_structured(messages, asked)
        else:
            written = self.behaviour.write(messages)
        if inspect.isawaitable(written):
            written = await written
        if isinstance(written, Reply):
            return written
        text = written
        finish = "stop"
        if params.stop:
            cuts = [text.find(stop) for stop in params.stop if stop and stop in text]
            if cuts:
                text = text[: min(cuts)]
        if params.max_tokens is not None:
            words = text.split(" ")
            if len(words) > params.max_tokens:
                text, finish = " ".join(words[: params.max_tokens]), "length"
        return Reply(text, finish, word_usage(messages, text), f"simulated/{self.member.model}")

    async def _pause(self) -> None:
        if self.behaviour.latency_ms > 0:
            await asyncio.sleep(self.behaviour.latency_ms / 1000)

    async def complete(self, messages: list[ChatMessage], params: GenerationParams | None = None) -> Completion:
        started = time.perf_counter()
        await self._pause()
        return self._completion(await self._reply(messages, self.member.params.merged(params)), started, 1)

    def stream(self, messages: list[ChatMessage], params: GenerationParams | None = None) -> SimulatedStream:
        return SimulatedStream(self, messages, self.member.params.merged(params))

    # -- relayed requests: tools --------------------------------------------------------------------
    async def _tool_reply(self, body: dict[str, Any], params: GenerationParams | None) -> ToolReply:
        """The answer to a relayed request: a call when the behaviour makes one, text otherwise.

        The behaviour reads the conversation with calls and results written
        out (:func:`~council.providers.tool_request.as_text_messages`) and
        decides (:attr:`SimulatedBehaviour.use_tools`); tool choice ``none``
        leaves it nothing to decide.
        """
        await self._pause()
        request = read_tool_request(body)
        merged = self.member.params.merged(params)
        messages = as_text_messages(request)
        use = self.behaviour.use_tools(messages, request.tools, request.choice) \
            if self.behaviour.use_tools is not None and request.tools and request.choice.mode != "none" else None
        if isinstance(use, tuple):
            name, arguments = use
            call = ToolCall(new_call_id(), name, json.dumps(arguments, ensure_ascii=False))
            return ToolReply("", (call,), "tool_calls", word_usage(messages, call.arguments),
                             f"simulated/{self.member.model}")
        reply = await self._reply(messages, merged, use)
        return ToolReply(reply.content, (), self.openai_finish_reason(reply.finish_reason), reply.usage,
                         reply.model_version)

    def relay_body(self, body: dict[str, Any], params: GenerationParams | None) -> dict[str, Any]:
        """A council free to call a tool asks a simulated member as an agent's loop expects a decision: with no
        tool result in yet, a call (a real model decides from the conversation; this one follows the loop)."""
        if body.get("tool_choice") == "auto" and body.get("tools") and not read_tool_request(body).answering_results:
            return {**body, "tool_choice": "required"}
        return body

    async def relay(self, body: dict[str, Any], params: GenerationParams | None = None
                    ) -> tuple[dict[str, Any], Usage | None]:
        reply = await self._tool_reply(body, params)
        return reply.completion(), reply.usage

    async def open_relay(self, body: dict[str, Any], params: GenerationParams | None = None) -> RelayEvents:
        reply = await self._tool_reply(body, params)
        return RelayStream(_pieces(reply), reply.model or self.member.model)


async def _pieces(reply: ToolReply) -> AsyncIterator[Piece]:
    """A whole reply delivered as a stream: its text a few words at a time, then its calls, then the end."""
    words = reply.content.split(" ") if reply.content else []
    for index in range(0, len(words), 4):
        yield TextPiece((" " if index else "") + " ".join(words[index : index + 4]))
    for index, call in enumerate(reply.calls):
        yield CallStart(index, call.id, call.name)
        yield CallArguments(index, call.arguments)
    yield End(reply.finish_reason, reply.usage, reply.model)


class SimulatedStream:
    """The simulated answer delivered a few words at a time, like a real stream."""

    def __init__(self, provider: SimulatedProvider, messages: list[ChatMessage], params: GenerationParams) -> None:
        self._provider = provider
        self._messages = messages
        self._params = params
        self.completion: Completion | None = None

    async def __aenter__(self) -> SimulatedStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    async def aclose(self) -> None:
        """Nothing to release."""

    def __aiter__(self) -> AsyncIterator[str]:
        return self._deltas()

    async def _deltas(self) -> AsyncIterator[str]:
        started = time.perf_counter()
        await self._provider._pause()
        reply = await self._provider._reply(self._messages, self._params)
        words = reply.content.split(" ")
        for index in range(0, len(words), 4):
            yield (" " if index else "") + " ".join(words[index : index + 4])
        self.completion = self._provider._completion(reply, started, 1)

    async def collect(self) -> Completion:
        """Read the whole stream and return the finished completion."""
        async for _ in self:
            pass
        assert self.completion is not None
        return self.completion
