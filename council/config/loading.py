"""Finding, reading and checking a config file; reading the keys it names from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import SecretStr, ValidationError

from council.assets import config_dir
from council.config.council_config import CouncilConfig
from council.config.environment import ENV_API_KEYS, ENV_CONFIG, ENV_DB_PATH, ENV_DB_URL, ENV_LOG_FORMAT, ENV_LOG_LEVEL
from council.config.sections import RetryPolicy, ReviewConfig, SafetyConfig, StageConfig, TransportConfig
from council.config.serving import LoggingConfig, ServerConfig
from council.config_errors import format_validation_error, read_yaml
from council.errors import ConfigError, MissingApiKeyError

_ENV_OVERRIDES: dict[str, tuple[str, ...]] = {
    ENV_LOG_LEVEL: ("logging", "level"),
    ENV_LOG_FORMAT: ("logging", "format"),
    ENV_DB_PATH: ("storage", "path"),
    ENV_DB_URL: ("storage", "url"),
}


def simulated_config_path() -> Path:
    """The built-in offline council, used when no config is given."""
    return config_dir() / "simulated.yaml"


def config_path_from(cli_path: str | os.PathLike[str] | None, environ: Mapping[str, str]) -> Path | None:
    """The config file chosen by ``--config`` or ``$COUNCIL_CONFIG``, or None."""
    if cli_path:
        return Path(cli_path)
    if environ.get(ENV_CONFIG):
        return Path(environ[ENV_CONFIG])
    return None


def load_config(path: str | os.PathLike[str], environ: Mapping[str, str] | None = None) -> CouncilConfig:
    """Read, override from the environment, and validate one config file.

    Raises :class:`ConfigError` naming the file, the key path and what was
    expected. Nothing falls back to defaults when the file is wrong.
    """
    environ = os.environ if environ is None else environ
    source = str(path)
    raw = read_yaml(Path(path))
    _refuse_stored_password(source, raw)
    overridden: dict[tuple[str, ...], str] = {}
    for variable, key_path in _ENV_OVERRIDES.items():
        value = environ.get(variable)
        if value:
            section = raw.setdefault(key_path[0], {})
            if not isinstance(section, dict):
                raise ConfigError(source, f"{key_path[0]}: expected a mapping, got {type(section).__name__}")
            section[key_path[1]] = value.lower() if key_path[0] == "logging" else value
            overridden[key_path] = variable
    try:
        config = CouncilConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(source, format_validation_error(exc, CouncilConfig, overridden)) from None
    config._source = source
    return config


def _refuse_stored_password(source: str, raw: dict[str, Any]) -> None:
    storage = raw.get("storage")
    url = storage.get("url") if isinstance(storage, dict) else None
    if isinstance(url, str) and urlsplit(url).password is not None:
        raise ConfigError(source, "storage.url: holds a password; secrets never go in the config file: set "
                                  "PGPASSWORD (or ~/.pgpass), or put the whole URL in $COUNCIL_DB_URL")


def resolve_api_keys(config: CouncilConfig, environ: Mapping[str, str] | None = None) -> dict[str, SecretStr | None]:
    """Read every member's key from its environment variable, before any call.

    Returns member name to key (None for members that need none). Raises
    :class:`MissingApiKeyError` naming the member and the variable when one is unset.
    """
    environ = os.environ if environ is None else environ
    keys: dict[str, SecretStr | None] = {}
    for member in config.members:
        if member.api_key_env is None:
            keys[member.name] = None
            continue
        value = environ.get(member.api_key_env, "").strip()
        if not value:
            raise MissingApiKeyError(member.name, member.api_key_env)
        keys[member.name] = SecretStr(value)
    return keys


def server_api_keys(config: CouncilConfig, environ: Mapping[str, str] | None = None) -> list[SecretStr]:
    """The keys the HTTP server accepts: ``$COUNCIL_API_KEYS`` or the configured variable."""
    environ = os.environ if environ is None else environ
    raw = environ.get(ENV_API_KEYS) or environ.get(config.server.api_keys_env, "")
    return [SecretStr(k.strip()) for k in raw.split(",") if k.strip()]


def describe_defaults() -> dict[str, Any]:
    """Every setting below the members with its default, for docs and ``council config defaults``."""
    sections = {
        "stages": StageConfig(),
        "review": ReviewConfig(),
        "safety": SafetyConfig(),
        "retry": RetryPolicy(),
        "transport": TransportConfig(),
        "server": ServerConfig(),
        "logging": LoggingConfig(),
    }
    return {name: model.model_dump(mode="json") for name, model in sections.items()}
