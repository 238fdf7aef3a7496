"""Council: a multi-model LLM council.

Members answer concurrently, a safety gate filters, members review each
other's anonymized answers with a sandboxed rubric, and calibrated scores
rank the answers. This module is the public API: everything a caller needs
is importable from ``council`` directly, and an evaluation run's parts from
:mod:`council.evals`. Each package's docstring says whether it is public;
the others are internal.

    import asyncio
    from council import Council

    result = asyncio.run(Council.from_config().ask("Why is the sky blue?"))

A user's own tests hand a council test doubles: :class:`FunctionMember` (a
member whose replies a function writes) and :class:`HandlerTransport` (an
upstream API played by a function); see ``docs/testing.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from council._version import __version__
from council.config import (
    CouncilConfig,
    LoggingConfig,
    MemberConfig,
    ModerationConfig,
    RetryPolicy,
    ReviewConfig,
    SafetyConfig,
    ServerConfig,
    StageConfig,
    StorageConfig,
    TransportConfig,
    load_config,
)
from council.errors import RENAMED as _RENAMED
from council.errors import (
    AuthFailedError,
    BadUpstreamRequestError,
    ConfigError,
    CouncilError,
    InvalidRequestError,
    MissingApiKeyError,
    ProtocolError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    StorageError,
    UnsafeBindingError,
    UpstreamServerError,
)
from council.errors import renamed as _renamed
from council.events import StageEvent
from council.pipeline.judge import judge_answer
from council.pipeline.orchestrator import Council
from council.pipeline.plan import RunPlan
from council.pipeline.request import RunRequest
from council.pipeline.targets import evaluate_target
from council.ranking.ballot_file import BallotError
from council.ranking.ballots import BallotReport, rank_ballots
from council.result import AnswerRecord, CouncilResult, FinalAnswer, RankingEntry, ReviewRecord
from council.review.flags import ReviewFlags
from council.rubrics.catalog import UnknownRubricError
from council.rubrics.load import load_rubric
from council.rubrics.model import Criterion, Rubric
from council.rubrics.schemas import register_schema
from council.rubrics.target_evaluation import TargetEvaluation
from council.simulation import CallInfo, CallStage, FunctionMember, FunctionReply
from council.transport import HandlerTransport, UpstreamRequest, UpstreamResponse
from council.types import ChatMessage, Completion, GenerationParams, Usage

__all__ = [
    "AnswerRecord",
    "AuthFailedError",
    "BadUpstreamRequestError",
    "BallotError",
    "BallotReport",
    "CallInfo",
    "CallStage",
    "ChatMessage",
    "Completion",
    "ConfigError",
    "Council",
    "CouncilConfig",
    "CouncilError",
    "CouncilResult",
    "Criterion",
    "FinalAnswer",
    "FunctionMember",
    "FunctionReply",
    "GenerationParams",
    "HandlerTransport",
    "InvalidRequestError",
    "LoggingConfig",
    "MemberConfig",
    "MissingApiKeyError",
    "ModerationConfig",
    "ProtocolError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderTimeoutError",
    "RankingEntry",
    "RateLimitedError",
    "RetryPolicy",
    "ReviewConfig",
    "ReviewFlags",
    "ReviewRecord",
    "Rubric",
    "RunPlan",
    "RunRequest",
    "SafetyConfig",
    "ServerConfig",
    "StageConfig",
    "StageEvent",
    "StorageConfig",
    "StorageError",
    "TargetEvaluation",
    "TransportConfig",
    "UnknownRubricError",
    "UnsafeBindingError",
    "UpstreamRequest",
    "UpstreamResponse",
    "UpstreamServerError",
    "Usage",
    "__version__",
    "evaluate_target",
    "judge_answer",
    "load_config",
    "load_rubric",
    "rank_ballots",
    "register_schema",
]


if not TYPE_CHECKING:  # type checkers should flag the old names, not accept them
    def __getattr__(name: str) -> object:
        """Old error names (``InvalidRequest``, ``UnknownRubric``, ...) still import, with a DeprecationWarning."""
        return _renamed(__name__, name, globals(), {**_RENAMED, "UnknownRubric": "UnknownRubricError"})
