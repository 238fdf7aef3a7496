"""The function calls a scripted fake reply makes (:attr:`Step.tool_calls`), written in each wire format.

Kept apart from :mod:`council.testing.fake_llm`, which calls these when a
step has calls: OpenAI's ``tool_calls`` (whole, or as deltas whose
arguments arrive in two pieces), Anthropic's ``tool_use`` blocks (whole, or
``content_block_start`` then ``input_json_delta`` events), Gemini's
``functionCall`` parts (with a ``thoughtSignature`` when scripted).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from council.testing.fake_steps import FakeCall


def _halves(text: str) -> list[str]:
    """``text`` in two pieces, as a streamed call's arguments arrive."""
    middle = len(text) // 2
    return [piece for piece in (text[:middle], text[middle:]) if piece]


def calls_words(calls: tuple[FakeCall, ...]) -> int:
    """What the calls count as completion tokens (one a word of their arguments, plus one each)."""
    return sum(1 + len(json.dumps(call.arguments).split()) for call in calls)


# -- OpenAI -------------------------------------------------------------------------------------------
def openai_calls(calls: tuple[FakeCall, ...]) -> list[dict[str, Any]]:
    """A message's ``tool_calls``."""
    return [{"id": call.id or f"call_fake{index}", "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}
            for index, call in enumerate(calls)]


def openai_call_deltas(calls: tuple[FakeCall, ...]) -> list[dict[str, Any]]:
    """The stream deltas of the calls: each one's id and name, then its arguments in two pieces."""
    deltas: list[dict[str, Any]] = []
    for index, entry in enumerate(openai_calls(calls)):
        deltas.append({"tool_calls": [{"index": index, "id": entry["id"], "type": "function",
                                       "function": {"name": entry["function"]["name"], "arguments": ""}}]})
        deltas += [{"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
                   for piece in _halves(entry["function"]["arguments"])]
    return deltas


# -- Anthropic ----------------------------------------------------------------------------------------
def anthropic_blocks(calls: tuple[FakeCall, ...]) -> list[dict[str, Any]]:
    """The answer's ``tool_use`` content blocks."""
    return [{"type": "tool_use", "id": call.id or f"toolu_fake{index}", "name": call.name, "input": call.arguments}
            for index, call in enumerate(calls)]


def anthropic_call_events(calls: tuple[FakeCall, ...], first_index: int,
                          event: Callable[[str, dict[str, Any]], bytes]) -> list[bytes]:
    """The stream events of the calls, blocks numbered from ``first_index``: start, ``input_json_delta`` s, stop."""
    events: list[bytes] = []
    for offset, block in enumerate(anthropic_blocks(calls)):
        index = first_index + offset
        events.append(event("content_block_start", {"index": index, "content_block": {**block, "input": {}}}))
        events += [event("content_block_delta", {"index": index,
                                                 "delta": {"type": "input_json_delta", "partial_json": piece}})
                   for piece in _halves(json.dumps(block["input"]))]
        events.append(event("content_block_stop", {"index": index}))
    return events


# -- Gemini -------------------------------------------------------------------------------------------
def gemini_parts(calls: tuple[FakeCall, ...]) -> list[dict[str, Any]]:
    """The answer's ``functionCall`` parts."""
    parts = []
    for call in calls:
        part: dict[str, Any] = {"functionCall": {"name": call.name, "args": call.arguments}}
        if call.id is not None:
            part["functionCall"]["id"] = call.id
        if call.signature is not None:
            part["thoughtSignature"] = call.signature
        parts.append(part)
    return parts
