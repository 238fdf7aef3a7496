"""Building a moderation client pointed at the fake upstream, for either provider."""

from __future__ import annotations

from pydantic import SecretStr

from council.config import ModerationConfig, RetryPolicy
from council.safety.moderation import Moderator
from council.testing.fake_llm import FakeLLMServer
from council.testing.fake_moderation import llama_guard_reply
from council.transport.http import Transport

FAST_RETRY = RetryPolicy(max_attempts=2, initial_backoff_s=0.01, jitter_s=0)
SECRET = "sk-modtest-Zq81XvT2bLwP9rKs7YhN4cQe"  # shaped like a real key, so scrubbing has to work for it
MODELS = {"openai": "omni-moderation-latest", "llama_guard": "llama-guard3"}


def moderation_config(fake: FakeLLMServer, provider: str, *, key: bool = False, **fields: object) -> ModerationConfig:
    """``safety.moderation`` for ``provider``, pointed at the fake (its /v1)."""
    return ModerationConfig.model_validate({"provider": provider, "base_url": fake.base_url("openai"),
                                            **({"api_key_env": "MODERATION_KEY"} if key else {}), **fields})


def make_moderator(fake: FakeLLMServer, transport: Transport, provider: str, *, key: bool = False,
                   retry: RetryPolicy = FAST_RETRY, **fields: object) -> Moderator:
    """A moderator for ``provider`` on the fake, with :data:`SECRET` as its key when ``key``."""
    config = moderation_config(fake, provider, key=key, **fields)
    return Moderator(config, transport=transport, retry=retry, api_key=SecretStr(SECRET) if key else None)


def harmful_reply(provider: str) -> str:
    """What the provider's model says about an answer with self-harm instructions and hate in it."""
    return "self-harm/instructions,hate" if provider == "openai" else llama_guard_reply("S11", "S10")


def benign_reply(provider: str) -> str:
    """What the provider's model says about a harmless answer."""
    return "" if provider == "openai" else llama_guard_reply()
