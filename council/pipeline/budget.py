"""A run's budget: every upstream call is admitted only if what it could cost still fits.

Before a call, its cost is bounded from above: the prompt's UTF-8 bytes
over 3 (one token per 3 bytes overestimates English, which runs about 4
characters a token, and holds for scripts of 3-byte characters) times the
input price, plus its ``max_tokens`` times the output price. A call that
sets no ``max_tokens`` gets ``budget.max_output_tokens``, so the bound
holds. The bound is reserved while the call runs and replaced by the
call's real cost when it ends.

A call that does not fit is not made: it fails with
:class:`~council.errors.BudgetExhaustedError`, which every stage already treats
as a failed call. So the council degrades in its own order: reviewers that
do not fit do not review (the ranking uses fewer ballots), a chairman that
does not fit leaves the top answer as final, and members that do not fit
do not answer (below the quorum, the run fails and says why). Calls run
concurrently, so admission is per call, against what is spent and reserved.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from council.config import CouncilConfig, MemberConfig, Price
from council.errors import BudgetExhaustedError
from council.pipeline.cost import priced, usd_of
from council.providers import Provider
from council.providers.base import AnswerStream
from council.types import ChatMessage, Completion, GenerationParams, Usage

BYTES_PER_TOKEN = 3
MESSAGE_OVERHEAD_TOKENS = 8  # the role and framing each message costs on every wire format
IMAGE_TOKENS = 2000
"""An image's prompt tokens, bounded: above what OpenAI (about 1,100 at high detail), Anthropic (about 1,600
for the largest image it takes without resizing) and Gemini (258 a tile) count for one image."""


def prompt_tokens_bound(messages: list[ChatMessage]) -> int:
    """An upper estimate of a prompt's tokens: its text's UTF-8 bytes over 3, framing, and each image's bound."""
    size = sum(len(message.content.encode()) for message in messages)
    images = sum(len(message.images) for message in messages)
    return -(-size // BYTES_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS * len(messages) + IMAGE_TOKENS * images


@dataclass
class RunBudget:
    """What one run may spend, what it has spent, and what its calls in flight may still cost."""

    limit_usd: float
    prices: dict[str, Price]
    max_output_tokens: int
    spent_usd: float = 0.0
    reserved_usd: float = 0.0
    refused: list[str] = field(default_factory=list)
    #: Calls whose upstream reported more output tokens than the call allowed: counted as reported, and named.
    over_reported: list[str] = field(default_factory=list)

    @property
    def left_usd(self) -> float:
        """What is neither spent nor reserved."""
        return self.limit_usd - self.spent_usd - self.reserved_usd

    def _bounded(self, member: MemberConfig, params: GenerationParams | None) -> tuple[GenerationParams, int]:
        merged = member.params.merged(params)
        if merged.max_tokens is not None:
            return params or GenerationParams(), merged.max_tokens
        capped = (params or GenerationParams()).model_copy(update={"max_tokens": self.max_output_tokens})
        return capped, self.max_output_tokens

    def bound_usd(self, member: MemberConfig, messages: list[ChatMessage], params: GenerationParams | None) -> float:
        """The most a call of ``member`` with these messages could cost (what :meth:`admit` reserves)."""
        _bounded, output_tokens = self._bounded(member, params)
        usage = Usage(prompt_tokens=prompt_tokens_bound(messages), completion_tokens=output_tokens)
        return priced(usage, self.prices[member.name])

    def admit(self, member: MemberConfig, messages: list[ChatMessage], params: GenerationParams | None,
              what: str) -> tuple[GenerationParams, float]:
        """Reserve a call's bound; the params to call with. Raises :class:`BudgetExhaustedError` if it does not fit."""
        bounded, _output_tokens = self._bounded(member, params)
        bound = self.bound_usd(member, messages, params)
        if bound > self.left_usd:
            self.refused.append(what)
            raise BudgetExhaustedError(
                f"not called: {what} could cost up to ${bound:.4f} and ${max(self.left_usd, 0):.4f} of the run's "
                f"${self.limit_usd:g} budget is left", provider="budget", model=member.model, member=member.name)
        self.reserved_usd += bound
        return bounded, bound

    def reserve(self, bound: float, what: str, model: str) -> None:
        """Reserve ``bound`` USD for a call that is not a member's (the moderation API); raises if it does not fit."""
        if bound > self.left_usd:
            self.refused.append(what)
            raise BudgetExhaustedError(
                f"not called: {what} could cost up to ${bound:.4f} and ${max(self.left_usd, 0):.4f} of the run's "
                f"${self.limit_usd:g} budget is left", provider="budget", model=model)
        self.reserved_usd += bound

    def release(self, bound: float, usd: float | None) -> None:
        """Replace a :meth:`reserve` by what the call cost (None: nothing known to have been spent)."""
        self.reserved_usd -= bound
        self.spent_usd += usd or 0.0

    def settle(self, member: MemberConfig, bound: float, usage: Usage | None) -> None:
        """Replace a call's reservation by what it cost (a failed call with no usage: nothing)."""
        self.reserved_usd -= bound
        if usage is not None:
            self.spent_usd += usd_of(usage, self.prices[member.name]) or 0.0

    async def complete(self, provider: Provider, messages: list[ChatMessage], params: GenerationParams | None,
                       what: str) -> Completion:
        """``provider.complete`` if the call fits."""
        return await self.call(provider, messages, params, what, lambda bounded: provider.complete(messages, bounded))

    async def call(self, provider: Provider, messages: list[ChatMessage], params: GenerationParams | None, what: str,
                   send: Callable[[GenerationParams], Awaitable[Completion]]) -> Completion:
        """``send(params)`` if a call of ``messages`` (what the call's prompt is bounded by) fits."""
        bounded, bound = self.admit(provider.member, messages, params, what)
        usage = None
        try:
            completion = await send(bounded)
            usage = completion.usage
            return completion
        finally:
            self.settle(provider.member, bound, usage)
            self._check_report(provider.member, bounded, usage)

    @contextlib.asynccontextmanager
    async def stream(self, provider: Provider, messages: list[ChatMessage], params: GenerationParams | None,
                     what: str) -> AsyncIterator[AnswerStream]:
        """``provider.stream`` if the call fits; settled when the stream is left."""
        bounded, bound = self.admit(provider.member, messages, params, what)
        stream = provider.stream(messages, bounded)
        try:
            async with stream:
                yield stream
        finally:
            usage = stream.completion.usage if stream.completion else None
            self.settle(provider.member, bound, usage)
            self._check_report(provider.member, bounded, usage)

    def _check_report(self, member: MemberConfig, bounded: GenerationParams, usage: Usage | None) -> None:
        """Name a member whose upstream reported more output than the call allowed (its bound did not hold)."""
        allowed = member.params.merged(bounded).max_tokens
        if usage is not None and allowed is not None and usage.completion_tokens > allowed:
            self.over_reported.append(f"{member.name} reported {usage.completion_tokens} output tokens for a call "
                                      f"allowed {allowed}")


async def complete(budget: RunBudget | None, provider: Provider, messages: list[ChatMessage],
                   params: GenerationParams | None, what: str) -> Completion:
    """A call within ``budget``, or a plain call when the run has none."""
    if budget is None:
        return await provider.complete(messages, params)
    return await budget.complete(provider, messages, params, what)


async def complete_tools(budget: RunBudget | None, provider: Provider, body: dict[str, Any],
                         prompt: list[ChatMessage], params: GenerationParams | None, what: str) -> Completion:
    """A call offering function tools (:meth:`Provider.complete_tools`) within ``budget``, or a plain one.

    Its prompt is bounded by ``prompt`` (the conversation as text turns, calls and results written out, images
    on their turns) and the tools' JSON, which the member reads in whatever wire format.
    """
    if budget is None:
        return await provider.complete_tools(body, params)
    tools = json.dumps({"tools": body.get("tools"), "tool_choice": body.get("tool_choice")}, ensure_ascii=False)
    return await budget.call(provider, [ChatMessage(role="system", content=tools), *prompt], params, what,
                             lambda bounded: provider.complete_tools(body, bounded))


@contextlib.asynccontextmanager
async def stream(budget: RunBudget | None, provider: Provider, messages: list[ChatMessage],
                 params: GenerationParams | None, what: str) -> AsyncIterator[AnswerStream]:
    """A streamed call within ``budget``, or a plain one when the run has none."""
    if budget is None:
        async with provider.stream(messages, params) as plain:
            yield plain
        return
    async with budget.stream(provider, messages, params, what) as budgeted:
        yield budgeted


def fresh_budget(config: CouncilConfig, limit_usd: float, callers: list[str]) -> RunBudget:
    """A budget of ``limit_usd`` (as :func:`budget_limit` accepted it) with nothing spent yet."""
    prices = {m.name: m.price for m in config.members if m.name in callers and m.price is not None}
    return RunBudget(limit_usd=limit_usd, prices=prices, max_output_tokens=config.budget.max_output_tokens)

