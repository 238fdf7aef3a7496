"""Council: a multi-model LLM council.

Members answer concurrently, a safety gate filters, members review each
other's anonymized answers with a sandboxed rubric, and calibrated scores
rank the answers.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("council")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

from council.config import CouncilConfig, MemberConfig, load_config  # noqa: E402
from council.errors import (  # noqa: E402
    AuthFailed,
    BadUpstreamRequest,
    ConfigError,
    CouncilError,
    MissingApiKey,
    ProtocolError,
    ProviderError,
    ProviderTimeout,
    RateLimited,
    UpstreamServerError,
)
from council.types import ChatMessage, Completion, GenerationParams, Usage  # noqa: E402

__all__ = [
    "AuthFailed",
    "BadUpstreamRequest",
    "ChatMessage",
    "Completion",
    "ConfigError",
    "CouncilConfig",
    "CouncilError",
    "GenerationParams",
    "MemberConfig",
    "MissingApiKey",
    "ProtocolError",
    "ProviderError",
    "ProviderTimeout",
    "RateLimited",
    "UpstreamServerError",
    "Usage",
    "__version__",
    "load_config",
]
