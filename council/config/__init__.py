"""The council configuration: frozen pydantic models and the YAML loader.

The package's modules: :mod:`.environment` (the variables read, credential
checks), :mod:`.sections` (members and the council's own settings),
:mod:`.serving` (server, storage, logging), :mod:`.council_config` (the
whole file) and :mod:`.loading` (reading a file, reading keys). Everything
public is imported from ``council.config``.

Public: the names imported here (``__all__``): the config models,
:func:`load_config` and the key readers; its modules may change in any release.

One YAML file describes a council. Every model here forbids unknown keys, so
a typo is an error that names the key instead of a setting silently ignored.
API keys never appear in the file: a member names the environment variable
that holds its key (``api_key_env``) and :func:`resolve_api_keys` reads it.

A few operator settings can be overridden by environment variables:

=====================  ==========================================
``COUNCIL_CONFIG``     the config file to load
``COUNCIL_API_KEYS``   comma-separated keys the HTTP server accepts
``COUNCIL_LOG_LEVEL``  debug, info, warning or error
``COUNCIL_LOG_FORMAT`` console or json
``COUNCIL_DB_PATH``    the SQLite database path
=====================  ==========================================
"""

from council.config.council_config import CouncilConfig
from council.config.environment import (
    ENV_API_KEYS,
    ENV_CONFIG,
    ENV_DB_PATH,
    ENV_DB_URL,
    ENV_LOG_FORMAT,
    ENV_LOG_LEVEL,
    EnvVarName,
    looks_like_credential,
)
from council.config.loading import (
    config_path_from,
    describe_defaults,
    load_config,
    resolve_api_keys,
    server_api_keys,
    simulated_config_path,
)
from council.config.sections import (
    BudgetConfig,
    EvaluationConfig,
    MemberConfig,
    ModerationConfig,
    ModerationProvider,
    Price,
    ProviderName,
    RetryPolicy,
    ReviewConfig,
    SafetyConfig,
    SimulatedPersona,
    StageConfig,
    TransportConfig,
)
from council.config.serving import CacheConfig, LoggingConfig, ServerConfig, StorageConfig, default_db_path

__all__ = [
    "ENV_API_KEYS", "ENV_CONFIG", "ENV_DB_PATH", "ENV_DB_URL", "ENV_LOG_FORMAT", "ENV_LOG_LEVEL", "BudgetConfig",
    "CacheConfig", "CouncilConfig", "EnvVarName", "EvaluationConfig", "LoggingConfig", "MemberConfig",
    "ModerationConfig", "ModerationProvider", "Price", "ProviderName", "RetryPolicy", "ReviewConfig", "SafetyConfig",
    "ServerConfig", "SimulatedPersona", "StageConfig", "StorageConfig", "TransportConfig", "config_path_from",
    "default_db_path", "describe_defaults", "load_config", "looks_like_credential", "resolve_api_keys",
    "server_api_keys", "simulated_config_path",
]
