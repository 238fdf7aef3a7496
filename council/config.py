"""The council configuration: frozen pydantic models and the YAML loader.

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

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from council.assets import config_dir
from council.config_errors import format_validation_error, read_yaml
from council.errors import ConfigError, MissingApiKeyError
from council.presets import PRESET_NAME, CouncilPreset
from council.types import GenerationParams

ProviderName = Literal["openai", "anthropic", "gemini", "simulated"]
# Shapes of real credentials that also pass as variable names: vendor prefixes, and long mixed-case tokens.
_KEY_PREFIXES = re.compile(r"^(?:sk_|sk-|rk_|pk_live_|AIza|ghp_|gho_|ghs_|ghu_|github_pat_|glpat|xox[abpr]|hf_|gsk_"
                           r"|r8_|AKIA[0-9A-Z]{12}|ASIA[0-9A-Z]{12})")


def looks_like_credential(value: str) -> bool:
    """Whether ``value`` is more likely a pasted key than the name of a variable that holds one.

    Variable names are words (``OPENROUTER_API_KEY_FOR_TEAM``); keys are a
    vendor prefix (``sk_live_…``, ``AIza…``) or a long run of mixed-case
    letters and digits. A name flagged by mistake only needs renaming.
    """
    if _KEY_PREFIXES.match(value) and len(value) >= 16:
        return True
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value) and any(c.isdigit() for c in value)
    return len(value) >= 32 and mixed


def _not_a_credential(value: str) -> str:
    if looks_like_credential(value):
        # The message must never carry the value: format_validation_error prints only this text.
        raise ValueError("this looks like an API key itself, not the name of a variable; put the key in an "
                         "environment variable and name that variable here")
    return value


EnvVarName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=128),
                       AfterValidator(_not_a_credential)]
_SECRET_QUERY = re.compile(r"(?:^|&)(?:key|api_key|apikey|api-key|token|access_token|secret)=", re.IGNORECASE)


def _no_credentials_in_url(url: str | None) -> str | None:
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.username or parts.password or "@" in parts.netloc:
        raise ValueError("must not contain credentials (user:secret@host); put the key in an environment "
                         "variable named by api_key_env")
    if _SECRET_QUERY.search(parts.query):
        raise ValueError("must not carry a key in its query string; put the key in an environment variable "
                         "named by api_key_env")
    return url

ENV_CONFIG = "COUNCIL_CONFIG"
ENV_API_KEYS = "COUNCIL_API_KEYS"
ENV_LOG_LEVEL = "COUNCIL_LOG_LEVEL"
ENV_LOG_FORMAT = "COUNCIL_LOG_FORMAT"
ENV_DB_PATH = "COUNCIL_DB_PATH"
ENV_DB_URL = "COUNCIL_DB_URL"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SimulatedPersona(_Strict):
    """Overrides for a simulated member's persona. Unset fields come from its name."""

    quality: float | None = Field(default=None, ge=0, le=1, description="Hidden answer quality, 0 to 1.")
    verbosity: Literal["terse", "balanced", "verbose"] | None = Field(default=None, description="Answer length.")
    style: Literal["plain", "bulleted", "formal"] | None = Field(default=None, description="Answer layout.")
    leniency: float | None = Field(default=None, ge=-3, le=3, description="Reviewer offset: <0 harsh, >0 generous.")
    spread: float | None = Field(default=None, gt=0, le=3, description="Reviewer scale around its mean.")
    noise: float | None = Field(default=None, ge=0, le=3, description="Reviewer score noise (std, points).")
    latency_ms: float = Field(default=0.0, ge=0, le=600_000, description="Simulated time to answer.")


class Price(_Strict):
    """What a member's model costs, in US dollars per million tokens."""

    input_per_mtok: float = Field(ge=0, le=10_000, description="Prompt tokens.")
    output_per_mtok: float = Field(ge=0, le=10_000, description="Completion tokens.")
    cached_input_per_mtok: float | None = Field(default=None, ge=0, le=10_000,
                                                description="Prompt tokens read from a cache (default: the input "
                                                            "price).")


class BudgetConfig(_Strict):
    """Spending caps, in US dollars (every member needs a ``price`` for them to hold)."""

    max_usd_per_run: float | None = Field(default=None, gt=0, le=100_000, description="The most a run may spend, "
                                          "in USD; a request may ask for less. A run degrades (fewer reviews, no "
                                          "chairman) rather than spend more.")
    max_usd_per_day: float | None = Field(default=None, gt=0, le=10_000_000, description="council serve: new runs "
                                          "and pass-through calls get a 429 once the UTC day's spend reaches it.")
    max_output_tokens: int = Field(default=2048, ge=16, le=1_000_000, description="Under a budget, the max_tokens "
                                   "of calls that set none (a call's cost is bounded before it is made).")


class MemberConfig(_Strict):
    """One council member: a named model behind a provider."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$", description="Unique; shown in every result.")
    provider: ProviderName = Field(description="Wire format: openai, anthropic, gemini or simulated.")
    model: str = Field(min_length=1, max_length=200, description="Model id as the provider knows it.")
    base_url: Annotated[str | None, AfterValidator(_no_credentials_in_url)] = Field(
        default=None, pattern=r"^https?://\S+$", description="Provider default if unset; never with a key in it.")
    api_key_env: EnvVarName | None = Field(default=None, description="Variable holding the API key.")
    timeout_s: float | None = Field(default=None, gt=0, le=3600, description="This member's call deadline; unset: "
                                                                                   "stages.member_timeout_s.")
    vision: bool = Field(default=True, description="Send it the images a user attaches "
                                                                 "(false: the text only, noted in the run).")
    price: Price | None = Field(default=None, description="USD per million tokens (input_per_mtok, "
                                                          "output_per_mtok, cached_input_per_mtok); unset: its "
                                                          "calls' cost is unknown (null), never 0.")
    params: GenerationParams = Field(
        default_factory=GenerationParams,
        description="Generation settings sent with every call; unset: the provider's defaults.")
    persona: SimulatedPersona | None = Field(default=None, description="Simulated members only; unset: derived "
                                                                               "from the name.")

    @model_validator(mode="after")
    def _check_provider_fields(self) -> MemberConfig:
        if self.persona is not None and self.provider != "simulated":
            raise ValueError("persona is only valid for provider: simulated")
        if self.provider == "simulated" and (self.base_url or self.api_key_env):
            raise ValueError("a simulated member makes no network call: remove base_url and api_key_env")
        if self.provider in ("anthropic", "gemini") and self.api_key_env is None and self.base_url is None:
            raise ValueError(f"provider {self.provider} needs api_key_env (the variable that holds the key)")
        if self.provider == "openai" and self.api_key_env is None and self.base_url is None:
            raise ValueError("the default OpenAI endpoint needs api_key_env; set base_url for a local server")
        return self


class StageConfig(_Strict):
    """Time limits and quorum of the council stages."""

    member_timeout_s: float = Field(default=60.0, gt=0, le=3600, description="Deadline of one member's call, "
                                                                              "retries included.")
    stage_deadline_s: float = Field(default=90.0, gt=0, le=3600, description="A stage ends by then with what has "
                                                                              "arrived.")
    quorum: int = Field(default=2, ge=1, le=64, description="Fewest answers for a council result.")


class ReviewConfig(_Strict):
    """Stage 2: who reviews whom, and how scores are aggregated."""

    include_self: bool = Field(
        default=False,
        description="Let a reviewer see and score its own answer (its self-bonus, learnt from its history, is "
                    "taken off).")
    tie_threshold: float = Field(default=0.6, ge=0.5, le=1.0, description="Below this confidence in its top "
                                 "answer, the council calls it a tie with the answers that often beat it.")
    retry_on_parse_failure: bool = Field(default=True, description="Ask a reviewer once more after a bad ballot.")
    seed: int | None = Field(default=None, description="Shuffle seed; none draws one per run (always recorded).")
    aggregation: Literal["calibrated", "raw_mean", "per_question_z", "borda", "bradley_terry"] = Field(
        default="calibrated", description="How scores become a ranking (calibrated: z-scores "
                                          "against each reviewer's history)."
    )
    max_answer_chars: int | None = Field(
        default=32_000, ge=1_000,
        description="Reviewers and the chairman see at most this many characters of an answer, with a marker "
                    "saying it was cut; null shows answers whole.",
    )


class SafetyConfig(_Strict):
    """The safety gate between answers and review."""

    enabled: bool = Field(default=True, description="Run the safety gate: check answers before review.")
    llm_member: str | None = Field(default=None, description="A member that also acts as an LLM safety classifier.")


class RetryPolicy(_Strict):
    """The single retry policy used for every upstream call."""

    max_attempts: int = Field(default=3, ge=1, le=10, description="Attempts per call, the first included.")
    initial_backoff_s: float = Field(default=0.5, ge=0, le=60, description="First backoff before jitter.")
    max_backoff_s: float = Field(default=8.0, ge=0, le=300, description="Cap on one exponential backoff.")
    jitter_s: float = Field(default=0.25, ge=0, le=60, description="Random extra wait, up to this.")
    max_retry_after_s: float = Field(default=30.0, ge=0, le=600, description="A longer Retry-After fails the call at "
                                                                              "once.")
    attempt_timeout_s: float | None = Field(
        default=None, gt=0, le=3600, description="Per-attempt limit; none means the call deadline."
    )


class TransportConfig(_Strict):
    """The shared HTTP client: connection pool, socket timeouts and size caps."""

    connect_timeout_s: float = Field(default=10.0, gt=0, le=300, description="TCP and TLS connect.")
    read_idle_timeout_s: float = Field(default=60.0, gt=0, le=3600, description="Longest silence inside a response.")
    max_response_bytes: int = Field(default=8 * 1024 * 1024, ge=1024, description="Larger bodies and "
                                                                                  "streams are refused.")
    max_connections: int = Field(default=200, ge=1, le=10_000, description="Pooled connections to upstreams.")
    max_connections_per_host: int = Field(default=50, ge=1, le=10_000, description="Pooled connections per "
                                                                                       "upstream host.")
    allow_private_image_urls: bool = Field(
        default=False, description="Fetch image URLs on loopback or private addresses (off: refused, against SSRF).")


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


class CouncilConfig(_Strict):
    """A whole council: members, chairman, rubric and runtime settings."""

    members: list[MemberConfig] = Field(min_length=1, max_length=32, description="Who answers and reviews.")
    chairman: str | None = Field(default=None, description="A member's name; none means the top answer wins.")
    rubric: str = Field(default="default", description="A rubric in config/rubrics, or a path to one.")
    stages: StageConfig = Field(default_factory=StageConfig, description="Time limits and quorum.")
    review: ReviewConfig = Field(default_factory=ReviewConfig, description="Peer review and aggregation.")
    safety: SafetyConfig = Field(default_factory=SafetyConfig, description="The safety gate.")
    retry: RetryPolicy = Field(default_factory=RetryPolicy, description="Retries of upstream calls.")
    transport: TransportConfig = Field(default_factory=TransportConfig, description="The shared HTTP client.")
    server: ServerConfig = Field(default_factory=ServerConfig, description="council serve.")
    storage: StorageConfig = Field(default_factory=StorageConfig, description="Run storage.")
    budget: BudgetConfig = Field(default_factory=BudgetConfig, description="Spending caps.")
    logging: LoggingConfig = Field(default_factory=LoggingConfig, description="Log output.")
    councils: dict[Annotated[str, StringConstraints(pattern=PRESET_NAME)], CouncilPreset] = Field(
        default_factory=dict, description="Named presets (council/NAME on the server, --preset NAME): members, "
                    "chairman (none for no chairman), rubric, review (peers or judge), judge, second_judge, "
                    "description.")

    _source: str = PrivateAttr(default="<memory>")

    @model_validator(mode="after")
    def _check_references(self) -> CouncilConfig:
        names = [m.name for m in self.members]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"member names must be unique; repeated: {', '.join(duplicates)}")
        if self.chairman is not None and self.chairman not in names:
            raise ValueError(f"chairman {self.chairman!r} is not a member; members are: {', '.join(names)}")
        if self.safety.llm_member is not None and self.safety.llm_member not in names:
            raise ValueError(
                f"safety.llm_member {self.safety.llm_member!r} is not a member; members are: {', '.join(names)}"
            )
        if self.stages.quorum > len(self.members):
            raise ValueError(f"stages.quorum is {self.stages.quorum} but there are only {len(self.members)} members")
        task_member = self.server.task_model.removeprefix("member/")
        if self.server.task_model.startswith("member/") and task_member not in names:
            raise ValueError(f"server.task_model {self.server.task_model!r} names no member; members are: "
                             f"{', '.join(names)}")
        if self.budget.max_usd_per_run is not None or self.budget.max_usd_per_day is not None:
            unpriced = [m.name for m in self.members if m.price is None]
            if unpriced:
                raise ValueError(f"a budget needs a price on every member; no price: {', '.join(unpriced)} "
                                 "(add members[].price)")
        for preset_name, preset in self.councils.items():
            if problems := preset.problems(names, self.stages.quorum):
                raise ValueError(f"councils.{preset_name}: {'; '.join(problems)}; members are: {', '.join(names)}")
        return self

    @property
    def source(self) -> str:
        """The file this config was loaded from, for messages."""
        return self._source

    def member(self, name: str) -> MemberConfig:
        """The member called ``name``; ``KeyError`` if there is none."""
        for member in self.members:
            if member.name == name:
                return member
        raise KeyError(name)

    @property
    def is_simulated(self) -> bool:
        """True when every member is a built-in simulated one."""
        return all(m.provider == "simulated" for m in self.members)


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
