"""Plain data shared by providers, stages and front ends."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator

Role = Literal["system", "user", "assistant"]


class ChatMessage(BaseModel):
    """One turn of a conversation, already flattened to text."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    content: str


def as_messages(question: str | list[ChatMessage] | list[dict]) -> list[ChatMessage]:
    """Accept a bare question or a list of chat messages and return messages.

    Raises ``ValueError`` naming the problem when the input is unusable.
    """
    if isinstance(question, str):
        if not question.strip():
            raise ValueError("the question is empty")
        return [ChatMessage(role="user", content=question)]
    messages = [m if isinstance(m, ChatMessage) else ChatMessage.model_validate(m) for m in question]
    if not messages:
        raise ValueError("the message list is empty")
    if messages[-1].role != "user":
        raise ValueError(f"the last message must come from the user, not {messages[-1].role!r}")
    return messages


class GenerationParams(BaseModel):
    """Sampling settings sent upstream. Unset fields are left out of requests."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = Field(default=None, ge=0, le=2, description="Sampling temperature.")
    top_p: float | None = Field(default=None, gt=0, le=1, description="Nucleus sampling mass.")
    max_tokens: int | None = Field(default=None, ge=1, description="Cap on generated tokens.")
    seed: int | None = Field(default=None, description="Seed, where the provider supports one.")
    stop: tuple[str, ...] | None = Field(default=None, description="Stop sequences.")

    @field_validator("stop")
    @classmethod
    def _stop_not_empty(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return value or None

    def merged(self, override: GenerationParams | None) -> GenerationParams:
        """Return these params with every field set in ``override`` taking precedence."""
        if override is None:
            return self
        return self.model_copy(update=override.model_dump(exclude_none=True))


class Usage(BaseModel):
    """Token counts of one or more upstream calls."""

    # total_tokens is written out for readers; it is recomputed, so it is ignored on the way back in.
    model_config = ConfigDict(extra="ignore", frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )


class Completion(BaseModel):
    """A finished answer from one member.

    ``model_version`` is the model name the provider reported back, which can
    differ from the configured alias. ``simulated`` marks answers written by a
    built-in simulated member rather than a real model.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    member: str
    provider: str
    model: str
    content: str
    finish_reason: str | None = None
    usage: Usage = Usage()
    model_version: str | None = None
    latency_ms: float = 0.0
    attempts: int = 1
    simulated: bool = False
