"""Asking the evaluator for a verdict, and reading it strictly.

The evaluator must reply with strict JSON only: one object with exactly the
keys ``accuracy_score``, ``faithfulness_score`` and ``rationale``; each score
the integer 0, 1 or 2 (not ``2.0``, not ``"2"``, not ``true``); the rationale
a non-empty string of at most 80 words. Surrounding whitespace is the only
slack: a code fence, a preamble, a duplicated key, ``NaN`` or a trailing
comment all make the reply unusable, because an evaluator that cannot follow
the format is not trusted to follow the anchors either.

An unusable reply is asked for once more with identical inputs: the very same
messages and parameters, with no note about what went wrong, so the second
attempt measures the same thing as the first. If that fails too, both scores
are None and ``evaluator_error`` is ``"parse_error"``. A failed call (timeout,
rate limit, ...) is not retried here (the provider's retry policy already
did) and ``evaluator_error`` is its reason.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from council import strict_json
from council.errors import ProviderError
from council.evals.dataset import Sample
from council.pipeline.call_reuse import CallReuse, reusable_call
from council.providers import Provider
from council.review.evaluation import render_evaluation_prompt
from council.review.sandbox import new_nonce
from council.strict_json import StrictJSONError
from council.types import ChatMessage, GenerationParams, Usage

KEYS = ("accuracy_score", "faithfulness_score", "rationale")
SCORES = (0, 1, 2)
MAX_RATIONALE_WORDS = 80
ATTEMPTS = 2
PARSE_ERROR = "parse_error"


class Verdict(BaseModel):
    """A usable evaluator verdict."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    accuracy_score: int
    faithfulness_score: int
    rationale: str


class Evaluation(BaseModel):
    """What the evaluator said about one candidate answer, or why there is no verdict."""

    model_config = ConfigDict(extra="forbid")

    accuracy_score: int | None = None
    faithfulness_score: int | None = None
    rationale: str | None = None
    evaluator_error: str | None = Field(default=None, description="parse_error, or the reason a call failed.")
    problems: list[str] = Field(default_factory=list, description="Why each unusable reply was rejected.")
    attempts: int = 0
    replies: list[str] = Field(default_factory=list, description="The raw replies, for audit.")
    usage: Usage = Usage()
    latency_ms: float = 0.0
    model_version: str | None = None
    cost_usd: float | None = Field(default=None, description="What the evaluator's calls cost in US dollars (set by "
                                                             "the runner from its price); None when unknown.")
    reused: int = Field(default=0, description="Attempts answered from kept replies (council eval's call reuse).")


def parse_verdict(text: str) -> tuple[Verdict | None, str | None]:
    """``(verdict, None)`` for a usable reply, else ``(None, the problem)``. Never raises."""
    body = text.strip()
    if not body.startswith("{") or not body.endswith("}"):
        return None, "the reply is not a bare JSON object"
    try:
        data = strict_json.loads(body)
    except StrictJSONError as exc:
        return None, str(exc)
    except (ValueError, RecursionError) as exc:
        return None, f"the reply is not valid JSON ({exc})"
    if not isinstance(data, dict):
        return None, "the reply is not a JSON object"
    missing = [k for k in KEYS if k not in data]
    extra = sorted(set(data) - set(KEYS))
    if missing or extra:
        parts = ([f"missing keys: {', '.join(missing)}"] if missing else []) + \
                ([f"unexpected keys: {', '.join(extra)}"] if extra else [])
        return None, "; ".join(parts)
    for key in KEYS[:2]:
        value = data[key]
        # bool is an int in Python, and JSON true must not pass for a score of 1.
        if isinstance(value, bool) or not isinstance(value, int) or value not in SCORES:
            return None, f"{key} must be the integer 0, 1 or 2, got {json.dumps(value)[:40]}"
    rationale = data["rationale"]
    if not isinstance(rationale, str) or not rationale.strip():
        return None, "rationale must be a non-empty string"
    words = len(rationale.split())
    if words > MAX_RATIONALE_WORDS:
        return None, f"rationale has {words} words, at most {MAX_RATIONALE_WORDS} are allowed"
    return Verdict(accuracy_score=data["accuracy_score"], faithfulness_score=data["faithfulness_score"],
                   rationale=rationale.strip()), None


async def evaluate(provider: Provider, messages: list[ChatMessage], params: GenerationParams | None,
                   reuse: CallReuse | None = None, nonce: str | None = None,
                   kept: Callable[[asyncio.Future[None]], None] | None = None) -> Evaluation:
    """Ask ``provider`` for a verdict on the rendered prompt ``messages``, retrying once on an unusable reply.

    With ``reuse``, a kept reply to the same attempt stands in for the call
    (``nonce`` is the prompt's, masked out of the key).
    """
    evaluation = Evaluation()
    started = time.perf_counter()
    try:
        for attempt in range(ATTEMPTS):
            try:
                completion, reused = await reusable_call(
                    reuse, "evaluation", provider, messages, params,
                    functools.partial(provider.complete, messages, params),
                    nonce=nonce, facts={"attempt": attempt}, kept=kept)
            except ProviderError as error:
                evaluation.evaluator_error = error.reason
                evaluation.problems.append(f"{error.reason}: {error}")
                return evaluation
            evaluation.attempts += 1
            evaluation.reused += reused
            evaluation.replies.append(completion.content)
            evaluation.usage = evaluation.usage + completion.usage
            evaluation.model_version = completion.model_version or evaluation.model_version
            verdict, problem = parse_verdict(completion.content)
            if verdict is not None:
                evaluation.accuracy_score = verdict.accuracy_score
                evaluation.faithfulness_score = verdict.faithfulness_score
                evaluation.rationale = verdict.rationale
                return evaluation
            evaluation.problems.append(problem or "unusable reply")
        evaluation.evaluator_error = PARSE_ERROR
        return evaluation
    finally:
        evaluation.latency_ms = (time.perf_counter() - started) * 1000


async def evaluate_sample(provider: Provider, sample: Sample, candidate_answer: str,
                          params: GenerationParams | None, template: str = "council", reuse: CallReuse | None = None,
                          kept: Callable[[asyncio.Future[None]], None] | None = None) -> Evaluation:
    """Render the evaluator template named ``template`` for one sample's candidate answer and evaluate it.

    With ``reuse``, kept replies stand in for calls asked the same way before (:func:`evaluate`).
    """
    inputs = [candidate_answer, *(m.content for m in sample.messages),
              *(t for t in (sample.reference_answer, sample.context, sample.rubric) if t)]
    nonce = new_nonce(inputs)
    messages = render_evaluation_prompt(
        sample.messages, candidate_answer, reference_answer=sample.reference_answer,
        provided_context=sample.context, rubric=sample.rubric, nonce=nonce, template=template,
    )
    return await evaluate(provider, messages, params, reuse, nonce, kept)
