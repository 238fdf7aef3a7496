"""What a caller asks of one council run: :class:`RunRequest`, every run option declared once.

Every face builds one (the Python API from ``Council.ask``'s arguments, the
CLI from its flags, the server from a chat completion or the page's
conversation, MCP from a tool call, ``council eval`` from a sample) and
hands it to :meth:`Council.plan <council.Council.plan>`, the one place a
request is checked against the config and resolved into a
:class:`~council.pipeline.plan.RunPlan`. A request holds what was asked, as
it was asked: nothing here validates it, so that no face can validate it
differently from another.

New options (an output schema, tools) are added here and in the plan, and
every face that can express them builds them in; nothing else changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from pydantic import BaseModel

from council.errors import InvalidRequestError
from council.pipeline.structured import OutputSpec
from council.presets import NO_CHAIRMAN
from council.rubrics import Rubric
from council.types import ChatMessage, GenerationParams

DEFAULT_CHAIRMAN = "default"
"""``chairman``: the preset's chairman, else the configured one (which may be none)."""

#: Where a rubric reference may be looked up: ``"any"`` (an object, a registered id, a shipped name or a
#: path, as a local caller may), ``"named"`` (a name the council offers, never a path: remote callers).
RubricSource = Literal["any", "named"]

Question = str | Sequence[ChatMessage] | Sequence[Mapping[str, Any]]
"""A bare question, or a conversation whose last message is the user's."""


def caller_scope(authorization: str | None) -> str:
    """Who calls, from an HTTP ``Authorization`` header: a hash of its bearer key ("" without one).

    The servers key what belongs to a caller with it (stored responses; cached runs with
    ``cache.scope: key``): a hash, so that no key is ever written to the database.
    """
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return ""
    return hashlib.sha256(token.strip().encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRequest:
    """One council run as asked, before it is checked: what to ask, of whom, judged how, within what budget."""

    #: The question, or the conversation (its last message the user's; images ride on their messages).
    messages: Question
    #: Who answers (None: every configured member, or the preset's).
    members: Sequence[str] | None = None
    #: A member's name, ``"none"`` (or None) for the top-ranked answer as the final one, or ``"default"``.
    chairman: str | None = DEFAULT_CHAIRMAN
    #: The rubric: a :class:`Rubric`, a registered ``id`` / ``id@version``, a shipped name or a path
    #: (None: the preset's, else the configured one).
    rubric: Rubric | str | None = None
    #: Where ``rubric`` may be looked up when it is a reference.
    rubric_source: RubricSource = "any"
    #: A preset from the config's ``councils:`` (its members, chairman, rubric and review); options given here win.
    preset: str | None = None
    #: 1, or 2 for a second round when the first ranking is unsure (None: the preset's, else ``review.rounds``).
    rounds: int | None = None
    #: Settings for the members' answers and the chairman (reviews keep each member's own).
    params: GenerationParams | None = None
    #: What the run may spend, in USD (None: ``budget.max_usd_per_run`` if set, else no cap).
    max_usd: float | None = None
    #: False: neither answered from the result cache nor remembered by it.
    cache: bool = True
    #: A structured answer: a pydantic model class, a JSON Schema, or an OpenAI ``response_format``
    #: (None: prose; a ``response_format`` in ``params`` asks the same).
    output_type: OutputSpec | type[BaseModel] | Mapping[str, Any] | None = None
    #: Function tools (OpenAI's shape) and the choice among them: the council decides a call (a forced
    #: choice: ``"required"``, a named function), or whether to call one at all (``"auto"`` or no choice:
    #: the result is a call or ``{"reply": TEXT}``); ``"none"``: the council answers in text.
    tools: Sequence[Mapping[str, Any]] | None = None
    tool_choice: str | Mapping[str, Any] | None = None
    #: The conversation as OpenAI chat messages, earlier assistant ``tool_calls`` and ``role: "tool"`` results
    #: kept as such (the server passes the client's): members deciding a tool call are sent it in their own
    #: wire format's tool calling. ``messages`` stays the text every other stage reads (None: members get
    #: ``messages``). Read only when the run decides a tool call.
    tool_messages: Sequence[Mapping[str, Any]] | None = None
    #: The review shuffle seed (None: ``review.seed``, else one drawn per run).
    shuffle_seed: int | None = None
    #: Answers, reviews and the chairman may be answered from kept replies of this scope, and keep theirs
    #: (``council eval``'s repeats; None: every call goes upstream). Calls of other scopes never stand in.
    reuse_scope: str | None = None
    #: Cached runs of one scope answer only requests of the same scope (``council serve`` with
    #: ``cache.scope: key`` passes a hash of the caller's API key; None: the shared scope).
    cache_scope: str | None = None

    @property
    def chairman_choice(self) -> Literal["default", "none", "member"]:
        """Which kind of chairman was asked for."""
        if self.chairman is None or self.chairman.lower() == NO_CHAIRMAN:
            return "none"
        return "default" if self.chairman == DEFAULT_CHAIRMAN else "member"

    @classmethod
    def of(cls, question: RunRequest | Question, **options: Any) -> RunRequest:
        """``question`` with ``options`` (this class's fields); a request given as it is takes none.

        Raises ``TypeError`` naming an option that does not exist, as a
        misspelt keyword argument does, and :class:`InvalidRequestError` for
        options given beside a request that holds its own.
        """
        if isinstance(question, RunRequest):
            if options:
                raise InvalidRequestError(f"a RunRequest holds its options; give none beside it: "
                                          f"{', '.join(sorted(options))}", option=min(options))
            return question
        unknown = sorted(set(options) - OPTION_NAMES)
        if unknown:
            raise TypeError(f"unknown run option {unknown[0]!r}; the options are: {', '.join(sorted(OPTION_NAMES))}")
        return cls(messages=question, **options)


OPTION_NAMES = frozenset(f.name for f in fields(RunRequest)) - {"messages"}
"""The options a run request takes beside its messages."""
