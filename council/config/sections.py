"""The council's own settings: members, stages, review, safety, retries, transport, budget.

Each section is a frozen pydantic model that forbids unknown keys, so a typo
is an error naming the key. Knows nothing of files or of the server.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from council.config.environment import EnvVarName, _no_credentials_in_url
from council.types import GenerationParams

ProviderName = Literal["openai", "anthropic", "gemini", "simulated"]
#: The most pooled upstream connections a config may set or a council may derive.
MAX_POOLED_CONNECTIONS = 10_000


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
    uptake: float | None = Field(default=None, ge=0, le=1, description="In a second round, how far a revision "
                                 "moves toward the best-critiqued answer (0: never improves).")
    latency_ms: float = Field(default=0.0, ge=0, le=600_000, description="Simulated time to answer.")
    harm_sensitivity: float | None = Field(
        default=None, ge=0, le=1, description="As a reviewer asked for flags (safety.council_review), how often it "
                                              "flags an answer that goes along with a harmful request.")
    false_flag_rate: float | None = Field(
        default=None, ge=0, le=1, description="As a reviewer, how often it flags an answer that is fine (harmful, "
                                              "or addressing the reviewers).")


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


class EvaluationConfig(_Strict):
    """What ``council eval`` records about where a run happened."""

    region: str | None = Field(default=None, min_length=1, max_length=64,
                               description="The region the run's models are served from, for the run metadata's "
                                           "environment (the COUNCIL_REGION variable wins; else \"unknown\").")

    def is_default(self) -> bool:
        """Nothing set: left out of the config's dump, so existing configs keep their hash."""
        return self.region is None


class StageConfig(_Strict):
    """Time limits and quorum of the council stages."""

    member_timeout_s: float = Field(default=60.0, gt=0, le=3600, description="Deadline of one member's call, "
                                                                              "retries included.")
    stage_deadline_s: float = Field(default=90.0, gt=0, le=3600, description="A stage ends by then with what has "
                                                                              "arrived.")
    quorum: int = Field(default=2, ge=1, le=64, description="Fewest answers for a council result.")
    straggler_factor: float | None = Field(
        default=None, ge=1.0, le=100.0, exclude_if=lambda factor: factor is None,
        description="Once the quorum has answered (or reviewed), wait at most this many times the median time of "
                    "those in, then go on: a member cut this way is recorded as late, and what it sends before the "
                    "run ends is stored but not ranked. None (the default): wait for all, up to stage_deadline_s.")


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
    weighting: Literal["outlier", "equal", "reliability", "learned"] = Field(
        default="outlier", exclude_if=lambda weighting: weighting == "outlier",
        description="How much each reviewer counts in the calibrated mean: outlier (equal unless a reviewer "
                    "disagrees with all the others), equal, reliability, or learned (weights from council "
                    "calibrate, measured on eval runs with reference answers; a reviewer without them, such as a "
                    "member whose model changed, makes the run fall back to outlier, noted in its agreement).")
    max_answer_chars: int | None = Field(
        default=32_000, ge=1_000,
        description="Reviewers and the chairman see at most this many characters of an answer, with a marker "
                    "saying it was cut; null shows answers whole.",
    )
    rounds: Literal[1, 2] = Field(
        default=1, exclude_if=lambda rounds: rounds == 1,
        description="2: when the first ranking is unsure (confidence below deliberate_below, or a tie at the top), "
                    "each member reads the anonymous critiques, may revise its answer, and the answers are "
                    "reviewed and ranked again.")
    deliberate_below: float = Field(
        default=0.7, gt=0.0, le=1.0, exclude_if=lambda threshold: threshold == 0.7,
        description="With rounds: 2, a second round runs when the first ranking's confidence in its top answer "
                    "is below this (1: every run with two or more reviewed answers).")
    both_orders: bool = Field(
        default=False, exclude_if=lambda both: not both,
        description="Each reviewer scores the answers twice, in two orders where every answer moves (twice the "
                    "review calls and their cost); its two ballots' scores are averaged per answer and criterion, "
                    "and each reviewer's position consistency (did its top pick hold?) is reported.")


ModerationProvider = Literal["openai", "llama_guard"]
MODERATION_MODELS: dict[str, str] = {"openai": "omni-moderation-latest", "llama_guard": "llama-guard3"}
"""Each moderation provider's model when ``safety.moderation.model`` is unset."""


class ModerationConfig(_Strict):
    """The moderation layer: a second check on the answers that pass the patterns.

    Exactly one of ``provider`` (a moderation API) or ``member`` (a council
    member acting as a classifier, as ``safety.llm_member`` does) is set.
    """

    provider: ModerationProvider | None = Field(
        default=None, description="openai: OpenAI's moderation endpoint (POST /moderations); llama_guard: Llama "
                                  "Guard 3 on any OpenAI-compatible server (Ollama, vLLM). Unset with member.")
    member: str | None = Field(default=None, description="A member that classifies answers instead of a "
                                                         "moderation API (the same as safety.llm_member).")
    model: str | None = Field(default=None, min_length=1, max_length=200, description="Unset: "
                              "omni-moderation-latest (openai), llama-guard3 (llama_guard, Ollama's name).")
    base_url: Annotated[str | None, AfterValidator(_no_credentials_in_url)] = Field(
        default=None, pattern=r"^https?://\S+$", description="The API root (its /v1); unset: "
        "https://api.openai.com/v1 for openai; llama_guard needs one. Never with a key in it.")
    api_key_env: EnvVarName | None = Field(default=None, description="Variable holding the moderation API's key.")
    timeout_s: float = Field(default=30.0, gt=0, le=3600, description="Deadline of one check, retries included; "
                                                                      "the stage deadline still bounds it.")
    price: Price | None = Field(default=None, description="USD per million tokens of the provider's calls "
                                "(OpenAI's endpoint reports no tokens: they are estimated from the text); unset: "
                                "the calls' cost is unknown and not held against a budget.")

    @model_validator(mode="after")
    def _check_choice(self) -> ModerationConfig:
        if (self.provider is None) == (self.member is None):
            raise ValueError("set either provider (openai or llama_guard) or member, not both and not neither")
        if self.member is not None:
            extra = [name for name in ("model", "base_url", "api_key_env", "price") if getattr(self, name) is not None]
            if extra:
                raise ValueError(f"member: the member's own settings apply; remove {', '.join(extra)}")
        elif self.provider == "llama_guard" and self.base_url is None:
            raise ValueError("provider llama_guard needs base_url (the OpenAI-compatible server's /v1, e.g. "
                             "http://localhost:11434/v1 for Ollama)")
        elif self.provider == "openai" and self.base_url is None and self.api_key_env is None:
            raise ValueError("the default OpenAI endpoint needs api_key_env; set base_url for another server")
        return self

    @property
    def model_name(self) -> str:
        """The model asked: the configured one, or the provider's usual one."""
        return self.model or MODERATION_MODELS.get(self.provider or "", "")


class SafetyConfig(_Strict):
    """The safety gate between answers and review."""

    enabled: bool = Field(default=True, description="Run the safety gate: check answers before review.")
    llm_member: str | None = Field(default=None, description="A member that also acts as an LLM safety classifier; "
                                   "the same as moderation: {member: NAME}, which sets it.")
    moderation: ModerationConfig | None = Field(
        default=None, description="A second check on answers that pass the patterns: provider (openai, "
                                  "llama_guard) or member; unset: the patterns alone (or llm_member).")
    council_review: bool = Field(
        default=True, description="Reviewers also say, in their ballots, whether each answer gives harmful help "
                                  "and whether it addresses the reviewers or members: an answer a strict majority "
                                  "of its reviewers call harmful is blocked after review (before the ranking, the "
                                  "chairman and revisions); one any reviewer says addresses them is flagged. No "
                                  "extra call; the ballots grow by two keys an answer.")
    pii_allow_example_ssns: bool = Field(
        default=False,
        description="Let the published example SSNs (123-45-6789, 078-05-1120, 219-09-9999) pass the PII check "
                    "with a note; off (ADR-016): they are blocked as pii_exposure like any other SSN.")

    @model_validator(mode="before")
    @classmethod
    def _one_classifier_member(cls, data: object) -> object:
        # llm_member and moderation.member are one setting under two names: each fills in the other.
        moderation = data.get("moderation") if isinstance(data, dict) else None
        if isinstance(moderation, ModerationConfig):
            moderation = moderation.model_dump()
        if not isinstance(data, dict) or not isinstance(moderation, dict):
            return data
        chosen, alias = moderation.get("member"), data.get("llm_member")
        if alias is not None and moderation.get("provider") is not None:
            raise ValueError("llm_member and moderation.provider both name a second check: keep one")
        if chosen is not None and alias is not None and chosen != alias:
            raise ValueError(f"llm_member ({alias}) and moderation.member ({chosen}) differ: keep one")
        if chosen is not None and alias is None:
            return {**data, "llm_member": chosen}
        return data

    @property
    def moderation_provider(self) -> ModerationConfig | None:
        """The moderation API settings, when a provider (not a member) checks after the patterns."""
        return self.moderation if self.moderation is not None and self.moderation.provider is not None else None

    @property
    def classifier(self) -> str | None:
        """Who checks after the patterns, as costs name it: the member, ``moderation:PROVIDER``, or None."""
        if self.llm_member is not None:
            return self.llm_member
        provider = self.moderation_provider
        return f"moderation:{provider.provider}" if provider is not None else None


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
    max_connections: int | None = Field(
        default=None, ge=1, le=MAX_POOLED_CONNECTIONS,
        description="Pooled connections to all upstreams together. Unset: the council's calls in flight at once, "
                    "as for max_connections_per_host (or that setting, if larger).")
    max_connections_per_host: int | None = Field(
        default=None, ge=1, le=MAX_POOLED_CONNECTIONS,
        description="Pooled connections to one upstream host; a gateway (OpenRouter, a LiteLLM proxy, one vLLM "
                    "server) is one host for every member behind it. Unset: runs at once (server.max_concurrent_runs;"
                    " council eval: --concurrency; Python: Council(runs_at_once=...)) times a run's calls in flight "
                    "(its members, plus members minus quorum when a straggler policy is on), so the pool never "
                    "holds an admitted run back.")
    allow_private_image_urls: bool = Field(
        default=False, description="Fetch image URLs on loopback or private addresses (off: refused, against SSRF).")

    def connection_limits(self, calls_at_once: int) -> tuple[int, int]:
        """The pool's limits, total and per host: those set here, and those unset sized for ``calls_at_once`` calls.

        A derived per-host limit never exceeds an explicit total; a derived
        total is never below the per-host limit.
        """
        calls = max(1, min(calls_at_once, MAX_POOLED_CONNECTIONS))
        per_host = self.max_connections_per_host or min(calls, self.max_connections or calls)
        return self.max_connections or max(calls, per_host), per_host

    def sized_for(self, calls_at_once: int) -> TransportConfig:
        """This config with the connection limits it leaves unset sized for ``calls_at_once`` upstream calls."""
        total, per_host = self.connection_limits(calls_at_once)
        return self.model_copy(update={"max_connections": total, "max_connections_per_host": per_host})
