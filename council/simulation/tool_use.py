"""How a simulated member decides about tools it may call: a call first, a text answer once the result is in.

Two ways in. A ``member/NAME`` request offering tools asks the member
itself (:func:`use_tools`): it calls one when the client obliges it to,
and answers in text otherwise or once a result is in.

A council free to call a tool (``tool_choice: "auto"`` with
``server.council_tools: decide``) asks each member natively too
(:mod:`council.pipeline.tool_answer`), and the simulated provider plays
the loop an agent expects (:meth:`SimulatedProvider.relay_body`): with no
tool result yet it calls the tool whose name best matches the question,
and once a result is in it answers in text, quoting it. :func:`decide`
answers the same decision asked as JSON (``{"name", "arguments"}`` or
``{"reply"}``, the schema of :mod:`council.pipeline.structured`), as a
caller's own call-or-reply schema asks it. It knows nothing of the
pipeline, only the shape of the schema it was shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from council.providers.simulated import ToolUse
from council.providers.tool_request import FunctionTool, ToolChoice
from council.simulation.instances import instance_of
from council.types import ChatMessage

_WORD = re.compile(r"[a-z0-9]+")


def decision_options(schema: dict[str, Any] | None) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The reply option and the call options of a call-or-reply schema (None for any other schema)."""
    options = schema.get("oneOf") if isinstance(schema, dict) else None
    if not isinstance(options, list):
        return None
    objects = [o for o in options if isinstance(o, dict) and isinstance(o.get("properties"), dict)]
    reply = next((o for o in objects if "reply" in o["properties"]), None)
    calls = [o for o in objects if isinstance(o["properties"].get("name"), dict) and "const" in o["properties"]["name"]]
    return (reply, calls) if reply is not None and calls else None


def best_match(names: Sequence[str], question: str) -> str:
    """The function name that shares most words with the question (ties: the first listed)."""
    words = set(_WORD.findall(question.lower()))
    return max(names, key=lambda name: len(words & set(_WORD.findall(name.lower().replace("_", " ")))))


def use_tools(messages: list[ChatMessage], tools: Sequence[FunctionTool], choice: ToolChoice, seed: str,
              answer: Callable[[list[ChatMessage]], str]) -> ToolUse:
    """A simulated member's move when a client offers it tools (``member/NAME``), as an agent's loop expects.

    Once a tool result is in (the last turn), it answers in text quoting
    it; free to choose (``auto``), it answers in text as it always does
    (None); obliged to call (``required``, or a named function), it calls
    the named function or the one whose name best matches the question,
    with arguments valid for the function's schema.
    """
    last = next((m.content for m in reversed(messages) if m.role == "user"), "")
    if last.startswith("[tool result"):
        result = last.partition("\n")[2].strip()
        text = answer(messages)
        return f"{text}\n\nThe tool returned: {result[:400]}" if result else text
    if not choice.forced or not tools:
        return None
    name = choice.name or best_match([tool.name for tool in tools], last)
    tool = next(tool for tool in tools if tool.name == name)
    return name, instance_of(tool.schema, f"{seed}/{name}")


def decide(schema: dict[str, Any] | None, messages: list[ChatMessage], seed: str,
           answer: Callable[[list[ChatMessage]], str]) -> str | None:
    """A simulated member's decision as JSON text (None when ``schema`` is not a call-or-reply one)."""
    found = decision_options(schema)
    if found is None:
        return None
    _reply, calls = found
    last = next((m.content for m in reversed(messages) if m.role == "user"), "")
    if last.startswith("[tool result"):
        result = last.partition("\n")[2].strip()
        text = answer(messages)
        return json.dumps({"reply": f"{text}\n\nThe tool returned: {result[:400]}" if result else text},
                          ensure_ascii=False)
    names = [str(option["properties"]["name"]["const"]) for option in calls]
    best = calls[names.index(best_match(names, last))]
    arguments = best["properties"].get("arguments")
    return json.dumps({"name": best["properties"]["name"]["const"],
                       "arguments": instance_of(arguments if isinstance(arguments, dict) else {}, seed)},
                      ensure_ascii=False)
