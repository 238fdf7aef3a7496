"""The fake upstream's moderation side: OpenAI's ``/v1/moderations`` and Llama Guard's replies.

:class:`~council.testing.fake_llm.FakeLLMServer` serves ``POST
/v1/moderations`` through :func:`serve_moderation`, in the shape OpenAI
publishes: ``{"id", "model", "results": [{"flagged", "categories",
"category_scores", "category_applied_input_types"}]}``, one result per input.
A model is scripted with the same :class:`~council.testing.fake_llm.Step` s as
a chat model; the step's reply text names the categories to flag, comma
separated (``"self-harm/instructions,illicit"``; empty: nothing flagged), and
a computed reply sees the input as the request's user text. Statuses,
latency, hangs and raw bodies work as for chat.

Llama Guard is served by the ordinary chat route: :func:`llama_guard_reply`
writes its ``safe`` / ``unsafe`` + codes reply for a script.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from aiohttp import web

OPENAI_MODERATION_CATEGORIES = (
    "harassment", "harassment/threatening", "hate", "hate/threatening", "illicit", "illicit/violent",
    "self-harm", "self-harm/instructions", "self-harm/intent", "sexual", "sexual/minors", "violence",
    "violence/graphic",
)
"""The categories ``omni-moderation-latest`` reports on, each in every result."""

_IMAGE_TOO = frozenset({"self-harm", "self-harm/instructions", "self-harm/intent", "sexual", "violence",
                        "violence/graphic"})
FLAGGED_SCORE = 0.97
CLEAR_SCORE = 0.0012


def llama_guard_reply(*codes: str) -> str:
    """What Llama Guard 3 answers: ``safe``, or ``unsafe`` and the hazard codes on the next line."""
    return "unsafe\n" + ",".join(codes) if codes else "safe"


def moderation_result(flag: Iterable[str]) -> dict[str, Any]:
    """One result object flagging the categories in ``flag`` (a name OpenAI does not use is added as given)."""
    flagged = {name.strip() for name in flag if name.strip()}
    names = [*OPENAI_MODERATION_CATEGORIES, *sorted(flagged - set(OPENAI_MODERATION_CATEGORIES))]
    return {
        "flagged": bool(flagged),
        "categories": {name: name in flagged for name in names},
        "category_scores": {name: FLAGGED_SCORE if name in flagged else CLEAR_SCORE for name in names},
        "category_applied_input_types": {name: ["text", "image"] if name in _IMAGE_TOO else ["text"]
                                         for name in names},
    }


def _inputs(raw: Any) -> list[str] | None:
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list) and raw and all(isinstance(item, str) for item in raw):
        return list(raw)
    if isinstance(raw, list) and raw and all(isinstance(item, dict) for item in raw):
        return [str(item.get("text", "")) for item in raw if item.get("type") == "text"]
    return None


async def serve_moderation(server: Any, request: web.Request) -> web.StreamResponse:
    """Answer one ``POST /v1/moderations`` for ``server`` (a FakeLLMServer): recorded, scripted, in OpenAI's shape."""
    body = await server._json(request)
    inputs = _inputs(body.get("input"))
    if inputs is None:
        payload = {"error": {"message": "input must be a string or a list of strings or text parts",
                             "type": "invalid_request_error", "code": None}}
        return web.json_response(payload, status=400)
    model = str(body.get("model") or "omni-moderation-latest")
    results = []
    for text in inputs:
        recorded = await server._record(request, "openai", model, body, False, [{"role": "user", "content": text}])
        step = server._next_step(model)
        early: web.StreamResponse | None = await server._prelude(step)
        if early is not None:
            return early
        # Unscripted, nothing is flagged: the echo a chat model gives is no list of categories.
        reply = server._reply_text(step, recorded) if step.reply is not None else ""
        results.append(moderation_result(reply.split(",")))
    return web.json_response({"id": f"modr-fake-{int(time.time() * 1000)}", "model": model, "results": results})


__all__ = ["OPENAI_MODERATION_CATEGORIES", "llama_guard_reply", "moderation_result", "serve_moderation"]
