"""Council: a multi-model LLM council.

Members answer concurrently, a safety gate filters, members review each
other's anonymized answers with a sandboxed rubric, and calibrated scores
rank the answers. This module is the public API: everything a caller needs
is importable from ``council`` directly; the subpackages are internals.

    import asyncio
    from council import Council

    result = asyncio.run(Council.from_config().ask("Why is the sky blue?"))
"""

from __future__ import annotations

from council._version import __version__
from council.config import (
    CouncilConfig,
    LoggingConfig,
    MemberConfig,
    RetryPolicy,
    ReviewConfig,
    SafetyConfig,
    ServerConfig,
    StageConfig,
    StorageConfig,
    TransportConfig,
    load_config,
)
from council.errors import (
    AuthFailed,
    BadUpstreamRequest,
    ConfigError,
    CouncilError,
    InvalidRequest,
    MissingApiKey,
    ProtocolError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeout,
    RateLimited,
    StorageError,
    UnsafeBinding,
    UpstreamServerError,
)
from council.events import StageEvent
from council.pipeline.judge import judge_answer
from council.pipeline.orchestrator import Council
from council.pipeline.targets import evaluate_target
from council.result import AnswerRecord, CouncilResult, FinalAnswer, RankingEntry, ReviewRecord
from council.rubrics.catalog import UnknownRubric
from council.rubrics.load import load_rubric
from council.rubrics.model import Criterion, Rubric
from council.rubrics.target_evaluation import TargetEvaluation
from council.types import ChatMessage, Completion, GenerationParams, Usage

__all__ = [
    "AnswerRecord",
    "AuthFailed",
    "BadUpstreamRequest",
    "ChatMessage",
    "Completion",
    "ConfigError",
    "Council",
    "CouncilConfig",
    "CouncilError",
    "CouncilResult",
    "Criterion",
    "FinalAnswer",
    "GenerationParams",
    "InvalidRequest",
    "LoggingConfig",
    "MemberConfig",
    "MissingApiKey",
    "ProtocolError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderTimeout",
    "RankingEntry",
    "RateLimited",
    "RetryPolicy",
    "ReviewConfig",
    "ReviewRecord",
    "Rubric",
    "SafetyConfig",
    "ServerConfig",
    "StageConfig",
    "StageEvent",
    "StorageConfig",
    "StorageError",
    "TargetEvaluation",
    "TransportConfig",
    "UnknownRubric",
    "UnsafeBinding",
    "UpstreamServerError",
    "Usage",
    "__version__",
    "evaluate_target",
    "judge_answer",
    "load_config",
    "load_rubric",
]
