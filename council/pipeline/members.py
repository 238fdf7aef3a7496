"""One member called outside a run: what a face needs to pass a request through to it.

``POST /v1/chat/completions`` with ``member/NAME`` (and the side tasks a chat
app sends) calls one member directly; :meth:`Council.member` hands out a
:class:`Member` for that. It answers whole or streamed in Council's own
terms, says what its wire format cannot honour, words its finish reason as
OpenAI does, and relays a request Council does not model (tools above all)
as it came, to an OpenAI-format member, through the one transport with the
member's retry policy and deadline.

Also here, for the faces: the rules a request or a config is checked by
before any member is called (:func:`check_member_params`,
:func:`image_url_refusal`) and the scrubbing an upstream's words pass
before a client reads them (:func:`upstream_words`). The faces reach
providers and the transport only through this module.
"""

from __future__ import annotations

from typing import Any

from council.errors import ProtocolError, ProviderError
from council.providers import AnswerStream, Provider, check_member_params
from council.providers.images import image_url_refusal
from council.providers.openai import OpenAIProvider, read_usage
from council.transport.http import SSEStream
from council.transport.retry import call_with_retry
from council.transport.upstream_text import first_line, scrub_secrets
from council.types import ChatMessage, Completion, GenerationParams, Usage

__all__ = ["Member", "check_member_params", "image_url_refusal", "upstream_words"]


def upstream_words(text: str, limit: int | None = None) -> str:
    """An upstream's words as a client may read them: what looks like a secret starred, and with ``limit``
    only the first line, cut to ``limit`` characters."""
    return scrub_secrets(first_line(text, limit) if limit is not None else text)


class Member:
    """One configured member, for calls outside a council run (pass-through, side tasks, relayed tools)."""

    def __init__(self, provider: Provider) -> None:
        self._provider = provider

    @property
    def name(self) -> str:
        """The member's name in the config."""
        return self._provider.member.name

    @property
    def wire_format(self) -> str:
        """The API it speaks: ``openai``, ``anthropic``, ``gemini`` or ``simulated``."""
        return self._provider.name

    def unsupported_params(self, params: GenerationParams) -> list[str]:
        """The fields set in ``params`` that its wire format cannot honour, in declaration order."""
        return self._provider.unsupported_params(params)

    def openai_finish_reason(self, reason: str | None) -> str:
        """``reason``, as the member reported it, in OpenAI's enum (``stop`` when it names none OpenAI knows)."""
        return self._provider.openai_finish_reason(reason)

    async def complete(self, messages: list[ChatMessage], params: GenerationParams | None = None) -> Completion:
        """A whole answer to ``messages``, with ``params`` over the member's configured ones."""
        return await self._provider.complete(messages, params)

    def stream(self, messages: list[ChatMessage], params: GenerationParams | None = None) -> AnswerStream:
        """An answer as text deltas: iterate it, then read ``.completion``; ``aclose()`` releases it."""
        return self._provider.stream(messages, params)

    # -- relaying a request as it came ------------------------------------------------
    @property
    def relays_tools(self) -> bool:
        """Whether a request Council does not model (tools, tool messages) can be relayed to it as it came.

        Only an OpenAI-format member takes a chat-completions body as the
        client wrote it; others would need their tool formats translated.
        """
        return isinstance(self._provider, OpenAIProvider)

    def _relaying(self) -> OpenAIProvider:
        if not isinstance(self._provider, OpenAIProvider):
            raise TypeError(f"member {self.name!r} speaks the {self.wire_format} API: nothing is relayed to it")
        return self._provider

    async def relay(self, raw: dict[str, Any]) -> tuple[dict[str, Any], Usage | None]:
        """Send a client's decoded body on (the member's model swapped in) and return its whole answer, as the
        member wrote it, with the usage it reported (None when it reported none).

        Retried as any call of the member; raises :class:`ProviderError`.
        """
        provider = self._relaying()
        transport = provider.transport
        upstream = provider.relay_request(raw, stream=False)
        data, _attempts = await call_with_retry(lambda: transport.post_json(upstream, provider.endpoint),
                                                policy=provider.retry, deadline_s=provider.deadline_s,
                                                endpoint=provider.endpoint)
        reported = data.get("usage")
        return data, read_usage(reported) if isinstance(reported, dict) else None

    async def open_relay_stream(self, raw: dict[str, Any]) -> SSEStream:
        """Send a client's decoded body on as a stream; the member's events, read with ``next_event()`` (each
        with its ``data``; None at the end) and released with ``aclose()``."""
        provider = self._relaying()
        return await provider.transport.open_stream(provider.relay_request(raw, stream=True), provider.endpoint)

    @staticmethod
    def usage_of(reported: dict[str, Any]) -> Usage:
        """A relayed answer's ``usage`` object (OpenAI's format) as a :class:`Usage`."""
        return read_usage(reported)

    def protocol_error(self, message: str) -> ProviderError:
        """A failure of the member's answer itself (not of the connection), naming the member."""
        return self._provider.endpoint.error(ProtocolError, message)
