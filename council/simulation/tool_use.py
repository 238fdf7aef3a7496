"""How a simulated member decides about tools it may call: a call first, a text answer once the result is in.

A council free to call a tool (``tool_choice: "auto"`` with
``server.council_tools: decide``) asks each member for a decision as JSON:
``{"name", "arguments"}`` or ``{"reply"}`` (see
:mod:`council.pipeline.structured`). A real model decides from the
conversation; a simulated one follows the loop an agent expects: with no
tool result yet it calls the tool whose name best matches the question,
and once a result is in (the server renders it as a ``[tool result ...]``
turn) it answers in text, quoting it. It knows nothing of the pipeline,
only the shape of the schema it was shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

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
    words = set(_WORD.findall(last.lower()))
    # The call whose function name shares most words with the question (ties: the first listed).
    best = max(calls, key=lambda option: len(words & set(_WORD.findall(
        str(option["properties"]["name"]["const"]).lower().replace("_", " ")))))
    arguments = best["properties"].get("arguments")
    return json.dumps({"name": best["properties"]["name"]["const"],
                       "arguments": instance_of(arguments if isinstance(arguments, dict) else {}, seed)},
                      ensure_ascii=False)
