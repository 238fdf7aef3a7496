"""Settings of the long-running parts: the HTTP server, the run database, logging."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator

from council.config.environment import ENV_API_KEYS, EnvVarName
from council.config.sections import _Strict


class CacheConfig(_Strict):
    """The result cache: the same question, asked the same way, answered from the run database."""

    ttl_s: float = Field(
        default=0, ge=0, le=365 * 86400,
        description="How long a finished run answers the same request again (same messages, members and their "
                    "models, rubric, review, generation parameters, config and prompts), at no upstream cost; "
                    "0 (the default) turns the cache off. Failed, degraded and interrupted runs are never served.")
    outage_pause_s: float = Field(
        default=5.0, gt=0, le=3600,
        description="After a lookup fails (the database down or slow), the cache is not asked for this long: "
                    "requests are misses at no cost. Then one lookup probes, once no write waits for the database "
                    "(the store's own retries probe until then); while probes fail the pause doubles, up to 60 s.")

    scope: Literal["shared", "key"] = Field(
        default="shared",
        description="Who a cached run answers. shared (the default): every caller of the server, whatever its "
                    "API key, so a hit tells one key that another asked the same conversation within ttl_s. key: "
                    "only callers with the same API key (the CLI, the Python API and keyless servers share one "
                    "scope).")

    def is_default(self) -> bool:
        """Off: left out of the config's dump, so existing configs keep their hash."""
        return self.ttl_s == 0 and self.outage_pause_s == 5.0 and self.scope == "shared"


class ServerConfig(_Strict):
    """Settings of ``council serve``."""

    host: str = Field(default="127.0.0.1", description="Address council serve listens on.")
    port: int = Field(default=8000, ge=0, le=65535, description="Port to bind; 0 picks a free one.")
    api_keys_env: EnvVarName = Field(default=ENV_API_KEYS, description="Variable with accepted keys, comma-separated.")
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024, description="Larger request bodies get 413.")
    max_concurrent_runs: int = Field(default=32, ge=1, le=10_000, description="Runs at once, chat and page "
                                                                                   "together; more wait in the queue.")
    queue_size: int = Field(default=256, ge=0, le=100_000,
                            description="Requests that may wait for a run slot; beyond it they get 429.")
    queue_timeout_s: float = Field(default=30.0, gt=0, le=3600,
                                   description="Longest wait for a run slot before a 429 with Retry-After.")
    progress: Literal["reasoning_content", "think", "off"] = Field(
        default="reasoning_content", description="How streamed runs show stage progress."
    )
    keepalive_s: float = Field(default=10.0, gt=0, le=300, description="Longest silence on a stream.")
    on_disconnect: Literal["cancel", "finish"] = Field(
        default="cancel", description="When a client goes away: cancel the run, or finish and store it."
    )
    shutdown_grace_s: float = Field(default=30.0, ge=0, le=3600, description="Time runs get to finish on SIGTERM.")
    header_timeout_s: float = Field(
        default=15.0, gt=0, le=600,
        description="Time a connection gets to send a request's headers; also how long an idle one stays open.")
    body_timeout_s: float = Field(default=30.0, gt=0, le=3600, description="Time a client gets to send a request "
                                                                                     "body, then 408.")
    max_connections: int = Field(default=512, ge=1, le=100_000, description="Open client connections; more are "
                                                                                       "answered 503 and closed.")
    max_connections_per_client: int | None = Field(
        default=None, ge=1, le=100_000,
        description="Open connections from one client address (an IPv6 /64 counts as one); more get 429. None: an "
                    "eighth of max_connections, at least 64. Behind a reverse proxy on another address every client "
                    "has the proxy's address: raise it to max_connections and let the proxy limit its clients.")
    per_client_loopback: bool = Field(
        default=False,
        description="Hold loopback clients to max_connections_per_client too. Off: a reverse proxy, chat app or "
                    "load test on this machine, one address for all its users, is limited by max_connections alone.")
    access_log: bool = Field(default=True, description="One log line per request: method, path, status, latency.")
    metrics_public: bool = Field(default=False, description="Serve GET /metrics without an API key.")
    cors_origins: list[str] = Field(
        default_factory=list,
        description="Browser origins allowed to call the API (e.g. https://chat.example.com); empty: same origin only.")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host header values served besides loopback ones on a loopback bind (a reverse proxy's name: "
                    "council.example.com for any port, or host:port); on another bind, when set, the only ones.")
    council_tools: Literal["text", "decide"] = Field(
        default="text",
        description="What a council model does with a request's tools when the client leaves the choice to it "
                    "(tool_choice auto): text answers in text, as chat apps that attach tools to every question "
                    "expect; decide lets the council answer with a tool call when its top-ranked answer is one. A "
                    "forced choice (required, a named function) is always decided. A preset's tools overrides it.")
    task_model: str = Field(
        default="auto",
        description="Where chat apps' side tasks (titles, tags, follow-ups) go: auto (one member: the chairman, "
                    "else the cheapest priced member, else the first), council (a full run each), or member/NAME.")

    @field_validator("task_model")
    @classmethod
    def _task_model_shape(cls, value: str) -> str:
        if value in ("auto", "council") or re.fullmatch(r"member/[A-Za-z0-9_.-]+", value):
            return value
        raise ValueError(f"task_model must be auto, council or member/NAME, got {value[:80]!r}")

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts_are_hosts(cls, hosts: list[str]) -> list[str]:
        for host in hosts:
            match = re.fullmatch(r"(?:[A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?", host)
            if match is None or int(match.group(1) or 0) > 65535:
                raise ValueError(f"allowed_hosts: {host[:80]!r} is not a Host value like council.example.com or "
                                 "council.example.com:8443 (no scheme, no path)")
        return [host.lower() for host in hosts]

    @field_validator("cors_origins")
    @classmethod
    def _origins_are_origins(cls, origins: list[str]) -> list[str]:
        for origin in origins:
            if origin != "*" and re.fullmatch(r"https?://[A-Za-z0-9.-]+(:\d{1,5})?", origin) is None:
                raise ValueError(f"cors_origins: {origin[:80]!r} is not an origin like https://chat.example.com "
                                 "(scheme and host, no path) or '*'")
        return origins


def default_db_path() -> Path:
    """``council.db`` under the user's data directory."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "council" / "council.db"


class StorageConfig(_Strict):
    """Where runs, calibration, rubrics, conversations and evaluations are kept."""

    path: Path = Field(default_factory=default_db_path, description="SQLite database file (when no url is set).")
    url: str | None = Field(
        default=None,
        description="postgresql://user@host:5432/dbname: a PostgreSQL database shared by several replicas. "
                    "Put a password in PGPASSWORD or COUNCIL_DB_URL, never in the config file.")
    pool_size: int = Field(default=10, ge=1, le=200, description="PostgreSQL connections (and worker "
                                                                 "threads) per process.")
    keep_runs_days: int | None = Field(
        default=None, ge=1, description="`council serve` deletes finished runs older than this (daily); "
                                        "none keeps every run. Calibration history is always kept.")
    critical_wait_s: float = Field(
        default=2.0, gt=0, le=60,
        description="The longest a run waits for the database before answering (reading reviewers' history, "
                    "writing its last row): past it the run ranks without history, answers with stored: false, "
                    "and its writes are retried in the background. Also bounds PostgreSQL pool waits and "
                    "SQLite's busy timeout.")

    @field_validator("url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("postgresql", "postgres") or (not parts.hostname and "host=" not in parts.query):
            raise ValueError("expected a PostgreSQL URL such as postgresql://council@db.internal:5432/council "
                             "(SQLite is the default: set storage.path instead)")
        return value

    @property
    def location(self) -> str | Path:
        """What the store opens: the PostgreSQL URL when set, else the SQLite file."""
        return self.url or self.path


class LoggingConfig(_Strict):
    """Structured log output (always to stderr)."""

    level: Literal["debug", "info", "warning", "error"] = Field(
        default="warning", description="Least severe level shown; logs go to stderr."
    )
    format: Literal["console", "json"] = Field(default="console", description="Human text or JSON lines.")
