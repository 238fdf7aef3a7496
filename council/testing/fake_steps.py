"""What the fake LLM server is scripted with, and what it records: :class:`Step`, :class:`RecordedRequest`.

Kept apart from the server (:mod:`council.testing.fake_llm`, which
re-exports them) so a test or a reply function can name them without the
HTTP machinery.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Api = Literal["openai", "anthropic", "gemini"]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received, with its messages normalized to role/content."""

    api: Api
    path: str
    model: str
    headers: dict[str, str]
    body: dict[str, Any]
    stream: bool
    received_at: float
    messages: list[dict[str, str]]
    #: The client's address and port: requests with the same one came over the same TCP connection.
    peer: tuple[str, int] | None = None

    @property
    def last_user_text(self) -> str:
        """The text of the last user turn."""
        return next((m["content"] for m in reversed(self.messages) if m["role"] == "user"), "")


Replier = Callable[[RecordedRequest], str]


@dataclass(frozen=True)
class FakeCall:
    """A function call a scripted reply makes, in whichever wire format the request came in."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    #: The call's id (OpenAI's ``call_...``, Anthropic's ``toolu_...``); None: one is made up (Gemini sends none).
    id: str | None = None
    #: A Gemini 3 ``thoughtSignature`` sent beside the call (Gemini only).
    signature: str | None = None


@dataclass
class Step:
    """What the fake does for one request."""

    status: int = 200
    reply: str | Replier | None = None
    headers: dict[str, str] = field(default_factory=dict)
    latency_s: float = 0.0
    hang: bool = False
    #: The reply waits until the test sets this event (the fake's shutdown ends the wait with a 503, as ``hang``):
    #: a member that is still answering for as long as the test needs it to be, on any machine, not for a guessed time.
    release: asyncio.Event | None = None
    body: bytes | None = None
    content_type: str = "application/json"
    truncate_stream: bool = False
    abort_stream: bool = False
    chunk_delay_s: float = 0.0
    stream_error: str | None = None
    error_message: str = "scripted failure"
    #: Fields that replace or join the usage an OpenAI-format reply reports (``{"cost": 0.01}``, token counts).
    usage: dict[str, Any] | None = None
    #: Send no usage chunk in an OpenAI-format stream even when asked (some servers never do).
    omit_usage: bool = False
    #: The reply is a refusal: OpenAI's ``refusal`` field (content null), Anthropic's ``refusal`` stop reason.
    refuse: bool = False
    #: The reply calls these functions (after its text, empty unless ``reply`` is set): OpenAI ``tool_calls``,
    #: Anthropic ``tool_use`` blocks (streamed as ``input_json_delta``), Gemini ``functionCall`` parts.
    tool_calls: tuple[FakeCall, ...] = ()


@dataclass(frozen=True)
class RandomFaults:
    """Faults drawn at random for unscripted requests (load tests): 500s, and 429s with ``Retry-After``.

    ``seed`` makes the draw repeatable; scripted steps are never replaced.
    """

    server_error_rate: float = 0.0
    rate_limit_rate: float = 0.0
    retry_after_s: int = 1
    seed: int | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.server_error_rate + self.rate_limit_rate <= 1:
            raise ValueError("fault rates must be between 0 and 1 together")
