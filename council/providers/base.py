"""What every provider is: a member's model that answers a conversation, whole or streamed.

:class:`Provider` holds what all of them share: the member, the generation
params its wire format honours (refusing, never dropping, the rest), and the
completion record. How an answer is obtained is the subclass's business:
over HTTP (:mod:`council.providers.http`) or offline
(:mod:`council.providers.simulated`).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from pydantic import SecretStr

from council.config import MemberConfig, RetryPolicy
from council.errors import ConfigError, ProtocolError, ProviderError
from council.providers.tool_request import UntranslatableError, read_tool_request
from council.transport.http import Endpoint, SSEEvent
from council.types import ChatMessage, Completion, GenerationParams, Usage

CORE_PARAMS: frozenset[str] = frozenset({"temperature", "top_p", "max_tokens", "seed", "stop"})
"""The generation params every wire format handled from the start; the default of ``supported_params``."""

OPENAI_FINISH_REASONS: frozenset[str] = frozenset({"stop", "length", "tool_calls", "content_filter", "function_call"})
"""The ``finish_reason`` values OpenAI's schema allows; typed clients refuse any other."""


class UnsupportedParamsError(ValueError):
    """A provider was handed generation params its wire format cannot honour.

    A programming error, never a user-facing one: callers check
    :meth:`Provider.unsupported_params` first and refuse the request (the
    server's pass-through) or leave the params out for that member (the
    council's stages, via :meth:`GenerationParams.without`).
    """

    def __init__(self, provider: str, member: str, names: list[str]) -> None:
        self.provider = provider
        self.member = member
        self.names = names
        super().__init__(f"member {member!r} ({provider} API) cannot honour {', '.join(names)}; "
                         f"check Provider.unsupported_params before sending")


def _is_default(name: str, value: Any) -> bool:
    """Whether a set param asks for what every wire format does anyway (plain text output)."""
    return name == "response_format" and value == {"type": "text"}


@dataclass(frozen=True)
class Reply:
    """The parts of an upstream answer that Council keeps."""

    content: str
    finish_reason: str | None
    usage: Usage
    model_version: str | None
    #: The model declined to answer (OpenAI's ``refusal``, Anthropic's ``refusal`` stop): ``content`` says why.
    refused: bool = False


class AnswerStream(Protocol):
    """An answer arriving as text deltas; ``completion`` is set once it has been read to the end."""

    completion: Completion | None

    def __aiter__(self) -> AsyncIterator[str]: ...

    async def __aenter__(self) -> AnswerStream: ...

    async def __aexit__(self, *exc_info: object) -> None: ...

    async def aclose(self) -> None:
        """Release what the stream holds (idempotent)."""

    async def collect(self) -> Completion:
        """Read the whole stream and return the finished completion."""


class RelayEvents(Protocol):
    """A relayed answer as OpenAI ``chat.completion.chunk`` SSE events, ``[DONE]`` last (None at the end)."""

    async def next_event(self) -> SSEEvent | None: ...

    async def aclose(self) -> None:
        """Release what the stream holds (idempotent)."""


class Provider(ABC):
    """A council member's model: it answers a conversation whole or as a stream.

    Subclasses are :class:`~council.providers.http.HttpProvider` (a wire
    format over the shared transport) and the offline
    :class:`~council.providers.simulated.SimulatedProvider`.
    """

    name: ClassVar[str]
    default_base_url: ClassVar[str] = ""
    simulated: ClassVar[bool] = False
    supported_params: ClassVar[frozenset[str]] = CORE_PARAMS
    """The :class:`GenerationParams` fields this wire format honours."""
    best_effort_params: ClassVar[frozenset[str]] = frozenset()
    """Unsupported fields that are hints by contract (``seed``: "where the provider supports one").

    They are still listed by :meth:`unsupported_params`, so a pass-through
    request that sets one is refused; but :meth:`build_request` leaves them
    out instead of raising, so shared settings (an eval manifest's
    ``seed: 42``, a member's configured ``params``) work on every member.
    """

    finish_reasons: ClassVar[Mapping[str, str]] = {}
    """This wire format's own stop reasons in OpenAI's words (``max_tokens`` is ``length``); see
    :meth:`openai_finish_reason`."""

    def __init__(
        self,
        member: MemberConfig,
        *,
        retry: RetryPolicy,
        deadline_s: float,
        api_key: SecretStr | None = None,
    ) -> None:
        self.member = member
        self.retry = retry
        self.deadline_s = deadline_s
        self.api_key = api_key
        self.base_url = (member.base_url or self.default_base_url).rstrip("/")
        self.endpoint = Endpoint(provider=self.name, model=member.model, member=member.name)
        problems = self.config_problems(member)
        if problems:
            raise ConfigError(f"member {member.name!r}", problems)

    @classmethod
    def openai_finish_reason(cls, reason: str | None) -> str:
        """``reason``, as this wire format reported it, in OpenAI's enum (:data:`OPENAI_FINISH_REASONS`).

        A reason the enum has stays; one of :attr:`finish_reasons` is
        translated; anything else (none, or a value this release does not
        know) is ``stop``: the answer ended, for no reason a client could act on.
        """
        if reason is None or reason in OPENAI_FINISH_REASONS:
            return reason or "stop"
        return cls.finish_reasons.get(reason, "stop")

    @classmethod
    def config_problems(cls, member: MemberConfig) -> list[str]:
        """What is wrong with this member's configured ``params`` for this wire format (empty when nothing)."""
        return [f"params.{name}: the {cls.name} API has no {name}; remove it from this member's params"
                for name in cls._refused(member.params)]

    @classmethod
    def unsupported_params(cls, params: GenerationParams) -> list[str]:
        """The fields set in ``params`` that this wire format cannot honour, in declaration order.

        ``response_format: {"type": "text"}`` never counts: every wire format
        answers in text. Best-effort fields (:attr:`best_effort_params`) do.
        """
        return [name for name in params.set_fields()
                if name not in cls.supported_params and not _is_default(name, getattr(params, name))]

    @classmethod
    def _refused(cls, params: GenerationParams) -> list[str]:
        return [name for name in cls.unsupported_params(params) if name not in cls.best_effort_params]

    def check_params(self, params: GenerationParams) -> None:
        """Raise :class:`UnsupportedParamsError` if ``params`` sets a field this wire format would have to drop."""
        refused = self._refused(params)
        if refused:
            raise UnsupportedParamsError(self.name, self.member.name, refused)

    @abstractmethod
    async def complete(self, messages: list[ChatMessage], params: GenerationParams | None = None) -> Completion:
        """A whole answer to ``messages``, with ``params`` over the member's configured ones."""

    @abstractmethod
    def stream(self, messages: list[ChatMessage], params: GenerationParams | None = None) -> AnswerStream:
        """An answer as text deltas: iterate it, then read ``.completion``."""

    # -- relaying a request Council does not model (tools above all) ---------------------------------
    def relay_refusal(self, body: dict[str, Any]) -> UntranslatableError | None:
        """What in ``body`` (a chat-completions request) this wire format cannot carry, or None.

        A wire format other than OpenAI's gets the body translated
        (:mod:`council.providers.tool_request`): what has no translation is refused.
        """
        try:
            read_tool_request(body)
        except UntranslatableError as refusal:
            return refusal
        return None

    @abstractmethod
    async def relay(self, body: dict[str, Any], params: GenerationParams | None = None
                    ) -> tuple[dict[str, Any], Usage | None]:
        """Answer ``body`` (a chat-completions request, tools and all; ``params`` its generation params) with a
        whole ``chat.completion`` object, and the usage the member reported (None: none)."""

    @abstractmethod
    async def open_relay(self, body: dict[str, Any], params: GenerationParams | None = None) -> RelayEvents:
        """Answer ``body`` as a stream of ``chat.completion.chunk`` events."""

    def relay_body(self, body: dict[str, Any], params: GenerationParams | None) -> dict[str, Any]:
        """``body`` as :meth:`relay` sends it with ``params``: a wire format that takes the body as it came
        (OpenAI's) writes the member's params into it; the others merge them in their own translation."""
        return body

    async def complete_tools(self, body: dict[str, Any], params: GenerationParams | None = None) -> Completion:
        """A whole answer to ``body`` (a chat-completions request offering function tools, its earlier calls and
        tool results as they were) in this wire format's own tool calling: the calls it made are the
        completion's ``tool_calls``, its text its ``content``. A reply with no message is a ``ProtocolError``."""
        started = time.perf_counter()
        data, usage = await self.relay(self.relay_body(body, params), params)
        choices = data.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        message = choice.get("message")
        if not isinstance(message, dict):
            raise self.endpoint.error(ProtocolError, "the answer to a request with tools has no choices[0].message")
        content, refusal = message.get("content"), message.get("refusal")
        refused = not isinstance(content, str) and isinstance(refusal, str) and bool(refusal)
        calls = message.get("tool_calls")
        text = refusal if refused else content
        reply = Reply(text if isinstance(text, str) else "",
                      choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None,
                      usage or Usage(), data.get("model") if isinstance(data.get("model"), str) else None, refused)
        completion = self._completion(reply, started, 1)
        entries = tuple(call for call in calls if isinstance(call, dict)) if isinstance(calls, list) else ()
        return completion.model_copy(update={"tool_calls": entries})

    def _completion(self, reply: Reply, started: float, attempts: int) -> Completion:
        return Completion(
            member=self.member.name,
            provider=self.name,
            model=self.member.model,
            content=reply.content,
            finish_reason=reply.finish_reason,
            usage=reply.usage,
            model_version=reply.model_version,
            refused=reply.refused or reply.finish_reason == "refusal",
            latency_ms=round((time.perf_counter() - started) * 1000, 3),  # to the microsecond, as a run's timings
            attempts=attempts,
            simulated=self.simulated,
        )


__all__ = ["CORE_PARAMS", "OPENAI_FINISH_REASONS", "AnswerStream", "Provider", "ProviderError", "RelayEvents", "Reply",
           "UnsupportedParamsError"]
