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

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("council")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

# Imported after __version__: the orchestrator records the package version in every result.
from council.config import (  # noqa: E402
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
from council.errors import (  # noqa: E402
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
from council.events import StageEvent  # noqa: E402
from council.orchestrator import Council  # noqa: E402
from council.result import AnswerRecord, CouncilResult, FinalAnswer, RankingEntry, ReviewRecord  # noqa: E402
from council.rubric import Criterion, Rubric, load_rubric  # noqa: E402
from council.rubric_catalog import UnknownRubric  # noqa: E402
from council.types import ChatMessage, Completion, GenerationParams, Usage  # noqa: E402

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
    "TransportConfig",
    "UnknownRubric",
    "UnsafeBinding",
    "UpstreamServerError",
    "Usage",
    "__version__",
    "load_config",
    "load_rubric",
]
