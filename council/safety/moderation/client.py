"""The moderation client: one wire format on the shared transport, with the one retry policy and a deadline.

:class:`Moderator` sends one answer to the configured moderation API and
returns its :class:`~council.safety.moderation.outcome.Judgement`, or raises
a typed :class:`~council.errors.ProviderError` (timeout, 5xx after retries,
an answer it cannot read). It does not decide what a failure means for the
run: the safety stage keeps the pattern verdict and says so.

The API key comes from the environment variable named by
``safety.moderation.api_key_env``, never from the file; it is registered as
a secret, so logs redact it, and every error passes the transport's
scrubbing.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from typing import Any, Protocol

from pydantic import SecretStr

from council.config import CouncilConfig, ModerationConfig, RetryPolicy
from council.errors import ConfigError
from council.logs import register_secret
from council.safety.moderation.llama_guard import LlamaGuardChat
from council.safety.moderation.openai_moderations import OpenAIModerations
from council.safety.moderation.outcome import Judgement
from council.transport.http import Endpoint, HttpRequest, HttpTransport, stray_cancellation
from council.transport.retry import call_with_retry


class ModerationWire(Protocol):
    """What a moderation wire format does: a request for one answer, and a judgement from the JSON answer."""

    name: str
    max_output_tokens: int

    def build_request(self, question: str, answer: str) -> HttpRequest:
        """The upstream request classifying ``answer`` (given ``question``)."""

    def parse(self, data: dict[str, Any], question: str, answer: str) -> Judgement:
        """The judgement in the upstream's JSON answer; a ProtocolError if it cannot be read."""


WIRES: dict[str, type[OpenAIModerations] | type[LlamaGuardChat]] = {
    "openai": OpenAIModerations,
    "llama_guard": LlamaGuardChat,
}


def moderation_api_key(config: CouncilConfig, environ: Mapping[str, str] | None = None) -> SecretStr | None:
    """The moderation API's key from its environment variable (None when none is configured).

    Raises :class:`ConfigError` naming the variable when it is named but unset.
    """
    moderation = config.safety.moderation_provider
    if moderation is None or moderation.api_key_env is None:
        return None
    environ = os.environ if environ is None else environ
    value = environ.get(moderation.api_key_env, "").strip()
    if not value:
        raise ConfigError(f"${moderation.api_key_env}",
                          f"safety.moderation reads its API key from ${moderation.api_key_env}, which is not set "
                          f"(export {moderation.api_key_env}=... or remove api_key_env for a local server)")
    return SecretStr(value)


class Moderator:
    """Checks answers with one moderation API; shared by every run of a council."""

    def __init__(self, config: ModerationConfig, *, transport: HttpTransport, retry: RetryPolicy,
                 api_key: SecretStr | None) -> None:
        if config.provider is None:
            raise ValueError("a Moderator needs safety.moderation.provider (a member is checked as a member)")
        if api_key is not None:
            register_secret(api_key.get_secret_value())
        self.config = config
        self.provider = config.provider
        self.model = config.model_name
        self.checker = f"moderation:{config.provider}"
        self.transport = transport
        self.retry = retry
        self.deadline_s = config.timeout_s
        self.endpoint = Endpoint(provider=self.checker, model=self.model)
        self.wire: ModerationWire = WIRES[config.provider](config.base_url, self.model, api_key, self.endpoint)

    @property
    def max_output_tokens(self) -> int:
        """The most output tokens one check can be charged for (for a budget's bound)."""
        return self.wire.max_output_tokens

    async def judge(self, question: str, answer: str) -> tuple[Judgement, float, int]:
        """The judgement on ``answer``, the milliseconds it took and the attempts made; raises ProviderError."""
        started = time.perf_counter()
        request = self.wire.build_request(question, answer)

        async def attempt() -> Judgement:
            # Read inside the attempt: a gateway's garbled 200 is retried like a 502.
            return self.wire.parse(await self.transport.post_json(request, self.endpoint), question, answer)

        try:
            judgement, attempts = await call_with_retry(attempt, policy=self.retry, deadline_s=self.deadline_s,
                                                        endpoint=self.endpoint)
        except asyncio.CancelledError:
            stray = stray_cancellation(self.endpoint)
            if stray is None:
                raise
            raise stray from None
        return judgement, round((time.perf_counter() - started) * 1000, 3), attempts


__all__ = ["WIRES", "ModerationWire", "Moderator", "moderation_api_key"]
