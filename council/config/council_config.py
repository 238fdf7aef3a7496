"""The whole config file: every section, the presets, and the references between them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import Field, PrivateAttr, StringConstraints, ValidationError, model_validator

from council.config.sections import (
    BudgetConfig,
    EvaluationConfig,
    MemberConfig,
    RetryPolicy,
    ReviewConfig,
    SafetyConfig,
    StageConfig,
    TransportConfig,
    _Strict,
)
from council.config.serving import CacheConfig, LoggingConfig, ServerConfig, StorageConfig
from council.config_errors import format_validation_error
from council.errors import ConfigError
from council.presets import PRESET_NAME, CouncilPreset


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
    cache: CacheConfig = Field(default_factory=CacheConfig, exclude_if=CacheConfig.is_default,
                               description="The result cache (off by default).")
    logging: LoggingConfig = Field(default_factory=LoggingConfig, description="Log output.")
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig, exclude_if=EvaluationConfig.is_default,
                                         description="council eval: what a run records about where it ran.")
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
                f"safety.llm_member (or safety.moderation.member) {self.safety.llm_member!r} is not a member; "
                f"members are: {', '.join(names)}"
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

    @classmethod
    def in_memory(cls, members: Sequence[MemberConfig], *, chairman: str | None = None) -> CouncilConfig:
        """A council of ``members`` with every other setting at its default: what ``Council(members=...)`` runs.

        The quorum is the default's (2), or one for a council of one, so that
        a lone member makes a council too. Raises :class:`ConfigError` (source
        ``<memory>``) as a config file's problems do: no members, repeated
        names, a chairman who is not a member.
        """
        quorum = max(1, min(StageConfig().quorum, len(members)))
        try:
            return cls(members=list(members), chairman=chairman, stages=StageConfig(quorum=quorum))
        except ValidationError as exc:
            raise ConfigError("<memory>", format_validation_error(exc, cls)) from None

    @classmethod
    def for_council(cls, config: CouncilConfig | None, *, members: Sequence[MemberConfig] | None,
                    chairman: str | None) -> CouncilConfig:
        """The config a ``Council`` is built from: ``config``, or :meth:`in_memory` for ``members`` (and ``chairman``).

        Raises ``TypeError`` for both or neither, or a chairman without members.
        """
        if members is not None and config is None:
            return cls.in_memory(members, chairman=chairman)
        if config is None or members is not None or chairman is not None:
            raise TypeError("Council takes a config, or members= (and chairman=) for a council held in memory")
        return config

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

    def calls_in_flight_per_run(self) -> int:
        """The most upstream calls one run of this council has open at once.

        Stages run one after another and the calls of a stage run together,
        so the widest stage counts: every member answering (or reviewing);
        the safety classifier checks at most that many answers, a judge or
        two and the chairman are fewer. The straggler policy (in the stages
        or in any preset) lets up to members minus quorum cut calls run on
        into the next stage.
        """
        members = len(self.members)
        stragglers = self.stages.straggler_factor is not None or any(
            preset.straggler_factor is not None for preset in self.councils.values())
        return members + (members - self.stages.quorum if stragglers else 0)

    def transport_for(self, runs_at_once: int) -> TransportConfig:
        """``transport`` with the connection limits it leaves unset sized for ``runs_at_once`` runs at once."""
        return self.transport.sized_for(runs_at_once * self.calls_in_flight_per_run())

    @property
    def is_simulated(self) -> bool:
        """True when every member is a built-in simulated one."""
        return all(m.provider == "simulated" for m in self.members)
