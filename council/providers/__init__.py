"""Provider clients: one module per wire format (OpenAI-compatible, Anthropic, Gemini, simulated).

Each maps Council's messages and generation params to its API and back,
refusing params its API lacks rather than dropping them, and calls through
:mod:`council.transport`. Providers know nothing of councils, reviews or
storage: a member is a model that answers a conversation.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import SecretStr

from council.config import CouncilConfig, MemberConfig, RetryPolicy
from council.errors import ConfigError
from council.logs import register_secret
from council.providers.anthropic import AnthropicProvider
from council.providers.base import AnswerStream, Provider, Reply
from council.providers.gemini import GeminiProvider
from council.providers.http import ChatStream, HttpProvider, StreamDecoder
from council.providers.openai import OpenAIProvider
from council.providers.simulated import SimulatedBehaviour, SimulatedProvider
from council.transport.http import HttpTransport

PROVIDERS: dict[str, type[Provider]] = {
    "openai": OpenAIProvider,
    "anthropic": AnthropicProvider,
    "gemini": GeminiProvider,
    "simulated": SimulatedProvider,
}


Simulate = Callable[[MemberConfig], SimulatedBehaviour]
"""How simulated members behave: :func:`council.simulation.behaviour_for`, or a test's own."""

HTTP_PROVIDERS: dict[str, type[HttpProvider]] = {
    "openai": OpenAIProvider,
    "anthropic": AnthropicProvider,
    "gemini": GeminiProvider,
}


def build_provider(
    member: MemberConfig,
    *,
    transport: HttpTransport,
    retry: RetryPolicy,
    deadline_s: float,
    api_key: SecretStr | None,
    simulate: Simulate | None = None,
) -> Provider:
    """The provider client for one member: on the shared transport, or simulated as ``simulate`` says."""
    if member.provider == "simulated":
        if simulate is None:
            raise ValueError(f"member {member.name!r} is simulated: pass simulate= to say how it behaves")
        return SimulatedProvider(member, behaviour=simulate(member), retry=retry, deadline_s=deadline_s)
    if api_key is not None:
        register_secret(api_key.get_secret_value())
    return HTTP_PROVIDERS[member.provider](member, transport=transport, retry=retry, deadline_s=deadline_s,
                                          api_key=api_key)


def check_member_params(config: CouncilConfig) -> None:
    """Raise :class:`ConfigError` if a member's ``params`` set something its wire format lacks.

    Run when a council is built and by ``council config check``, so such a
    config stops the program before any question is asked.
    """
    problems = [f"members[{index}].{problem}"
                for index, member in enumerate(config.members)
                for problem in PROVIDERS[member.provider].config_problems(member)]
    if problems:
        raise ConfigError(config.source, problems)


def build_providers(
    config: CouncilConfig, transport: HttpTransport, api_keys: dict[str, SecretStr | None],
    simulate: Simulate | None = None,
) -> dict[str, Provider]:
    """A provider for every member of ``config``, keyed by member name."""
    return {
        member.name: build_provider(
            member,
            transport=transport,
            retry=config.retry,
            deadline_s=member.timeout_s or config.stages.member_timeout_s,
            api_key=api_keys.get(member.name),
            simulate=simulate,
        )
        for member in config.members
    }


__all__ = [
    "HTTP_PROVIDERS",
    "PROVIDERS",
    "AnswerStream",
    "ChatStream",
    "HttpProvider",
    "Provider",
    "Reply",
    "Simulate",
    "SimulatedBehaviour",
    "StreamDecoder",
    "build_provider",
    "build_providers",
    "check_member_params",
]
