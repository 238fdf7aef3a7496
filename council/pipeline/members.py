"""One member called outside a run: what a face needs to pass a request through to it.

``POST /v1/chat/completions`` with ``member/NAME`` (and the side tasks a chat
app sends) calls one member directly; :meth:`Council.member` hands out a
:class:`Member` for that. It answers whole or streamed in Council's own
terms, says what its wire format cannot honour, words its finish reason as
OpenAI does, and relays a request Council does not model (tools above all):
as it came to an OpenAI-format member, translated to and from another
member's wire format, through the one transport with the member's retry
policy and deadline.

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
from council.providers.base import RelayEvents
from council.providers.images import image_url_refusal
from council.providers.openai import read_usage
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
    def relay_refusal(self, raw: dict[str, Any]) -> tuple[str, str] | None:
        """What in a client's chat-completions body (``raw``) cannot reach this member: (the parameter, why), or None.

        An OpenAI-format member takes the body as the client wrote it; the
        others get it translated (tools, tool calls and results in their own
        terms), and what has no translation (custom tools, say) is named.
        """
        refusal = self._provider.relay_refusal(raw)
        return None if refusal is None else (refusal.param, str(refusal).removeprefix(f"{refusal.param}: "))

    async def relay(self, raw: dict[str, Any], params: GenerationParams | None = None
                    ) -> tuple[dict[str, Any], Usage | None]:
        """Answer a client's decoded body (``params``: its generation params) with a whole ``chat.completion``
        object in OpenAI's format, and the usage the member reported (None when it reported none).

        An OpenAI-format member gets the body as it came (its model swapped
        in) and its answer is returned as it wrote it; another member's is
        translated both ways. Retried as any call of the member; raises
        :class:`ProviderError`.
        """
        return await self._provider.relay(raw, params)

    async def open_relay_stream(self, raw: dict[str, Any], params: GenerationParams | None = None) -> RelayEvents:
        """Answer a client's decoded body as a stream: ``chat.completion.chunk`` events in OpenAI's format, read
        with ``next_event()`` (each with its ``data``, ``[DONE]`` last; None at the end) and released with
        ``aclose()``."""
        return await self._provider.open_relay(raw, params)

    @staticmethod
    def usage_of(reported: dict[str, Any]) -> Usage:
        """A relayed answer's ``usage`` object (OpenAI's format) as a :class:`Usage`."""
        return read_usage(reported)

    def protocol_error(self, message: str) -> ProviderError:
        """A failure of the member's answer itself (not of the connection), naming the member."""
        return self._provider.endpoint.error(ProtocolError, message)
