"""A run request, checked once: :class:`RunPlan`, built by :meth:`Council.plan <council.Council.plan>`.

Every front end (the Python API, the CLI, the server's chat completions and
page, MCP, eval runs) turns what it was asked into a plan before a run
starts, so a request is validated in one place, with one set of messages:
the question, the preset, who answers, who chairs, who judges, the rubric,
the generation parameters and what the run may spend. A plan is frozen: it
says what a run will do, and running it twice runs the same request twice
(each run draws its own id, shuffle seed and budget account).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from council.config import CouncilConfig
from council.errors import InvalidRequestError
from council.pipeline.budget import RunBudget, budget_limit, fresh_budget
from council.pipeline.call_reuse import CallReuse
from council.pipeline.review_stage import judging_for
from council.presets import CouncilPreset
from council.result import JudgingRecord
from council.rubrics.load import is_rubric_path
from council.rubrics.model import Rubric
from council.storage.store import Store
from council.types import ChatMessage, GenerationParams, as_messages

#: ``chairman`` left out: the preset's chairman, else the configured one (None means "no chairman").
UNSET: Any = object()


@dataclass(frozen=True, slots=True)
class RunPlan:
    """One validated run request: what a council run will ask, of whom, judged how, within what budget."""

    #: The conversation, its last message the user's question.
    messages: tuple[ChatMessage, ...]
    #: Who answers, in the order chosen.
    members: tuple[str, ...]
    #: Who writes the final answer; None: the top-ranked answer is final.
    chairman: str | None
    #: The rubric the answers are scored with.
    rubric: Rubric
    #: The preset the run comes from, if any.
    preset: str | None = None
    #: How a preset's judge scores (None: the members review each other).
    judging: JudgingRecord | None = None
    #: Settings for the members' answers and the chairman (reviews keep each member's own).
    params: GenerationParams | None = None
    #: What the run may spend, in USD (None: no cap).
    budget_usd: float | None = None
    #: The safety gate's LLM member, when the config names one (it is called too).
    safety_member: str | None = None
    #: The straggler policy's factor (the preset's, else ``stages.straggler_factor``; None: wait for all).
    straggler_factor: float | None = None
    #: Whether the result cache may answer this run, and remember it (``cache.ttl_s`` on, not bypassed).
    use_cache: bool = False
    #: The run's key in the result cache, set by :meth:`Council.plan` when ``use_cache`` (None: not cached).
    cache_key: str | None = None
    #: Whether answers, reviews and the chairman may be answered from kept replies, and keep theirs
    #: (``council eval`` sets it; :mod:`council.pipeline.call_reuse`). Off for every other run.
    reuse_calls: bool = False
    #: Added to every kept call's key: calls of different scopes (an evaluation's repeats) never stand in.
    reuse_scope: str = ""
    #: The review shuffle seed (None: ``review.seed``, else one drawn per run); an evaluation pins one per sample.
    shuffle_seed: int | None = None
    #: 2: a second round when the first ranking is unsure (the preset's ``rounds``, else ``review.rounds``).
    rounds: int = 1
    #: Below this confidence in the top answer, the second round runs (with ``rounds`` 2).
    deliberate_below: float = 0.7

    @property
    def judges(self) -> list[str] | None:
        """Who reviews when a preset names a judge; None when the members review each other."""
        return self.judging.reviewers() if self.judging is not None else None

    @property
    def callers(self) -> list[str]:
        """Every member the run may call: answering, chairing, judging, the safety gate's."""
        return [*self.members, *([self.chairman] if self.chairman else []), *(self.judges or []),
                *([self.safety_member] if self.safety_member else [])]

    def call_reuse(self, store: Store | None) -> CallReuse | None:
        """The kept replies a run of this plan may use (None unless it reuses calls and has a store)."""
        return CallReuse(store, self.reuse_scope) if self.reuse_calls and store is not None else None

    def new_budget(self, config: CouncilConfig) -> RunBudget | None:
        """The account of one run of this plan (nothing spent yet), or None when the run has no cap."""
        return None if self.budget_usd is None else fresh_budget(config, self.budget_usd, self.callers)


def preset_of(config: CouncilConfig, name: str | None) -> CouncilPreset | None:
    """The preset named ``name`` (None for none); :class:`InvalidRequestError` naming the offered ones if unknown."""
    if name is None:
        return None
    spec = config.councils.get(name)
    if spec is None:
        offered = ", ".join(config.councils) or "none are configured (councils: in the config)"
        raise InvalidRequestError(f"unknown preset {name!r}; presets: {offered}", option="preset")
    return spec


def build_plan(
    config: CouncilConfig,
    question: str | Sequence[ChatMessage] | Sequence[dict[str, Any]],
    *,
    default_rubric: Rubric,
    resolve_rubric: Callable[[Rubric | str], Rubric],
    members: Sequence[str] | None = None,
    chairman: str | None = UNSET,
    params: GenerationParams | None = None,
    rubric: Rubric | str | None = None,
    preset: str | None = None,
    max_usd: float | None = None,
    cache: bool | None = None,
) -> RunPlan:
    """Check a run request against ``config`` and return its plan (see :meth:`Council.plan`).

    Raises :class:`~council.errors.InvalidRequestError` naming what is wrong;
    its ``option`` says which argument (``question``, ``preset``,
    ``members``, ``chairman``, ``max_usd``).
    """
    try:
        messages = as_messages(question if isinstance(question, str) else list(question))
    except ValueError as exc:
        raise InvalidRequestError(f"invalid question: {exc}", option="question") from None
    member_names = [m.name for m in config.members]
    spec = preset_of(config, preset)
    if spec is not None:
        members = members if members is not None else spec.members
        chairman = spec.chairman_for(config.chairman) if chairman is UNSET else chairman
        rubric = rubric if rubric is not None else config_relative(spec.rubric, config)
    chosen = list(members) if members is not None else member_names
    unknown = [m for m in chosen if m not in member_names]
    if unknown or not chosen:
        raise InvalidRequestError(f"unknown members: {', '.join(unknown) or '(none chosen)'}; "
                                  f"members are: {', '.join(member_names)}", option="members")
    chair = config.chairman if chairman is UNSET else chairman
    if chair is not None and chair not in member_names:
        raise InvalidRequestError(f"chairman {chair!r} is not a member; members are: {', '.join(member_names)}",
                                  option="chairman")
    rounds, deliberate_below = deliberation_of(config, spec)
    plan = RunPlan(messages=tuple(messages), members=tuple(chosen), chairman=chair, rubric=default_rubric,
                   preset=preset, judging=judging_for(spec, chosen, member_names), params=params,
                   safety_member=config.safety.llm_member,
                   straggler_factor=spec.straggler_factor if spec is not None and spec.straggler_factor is not None
                   else config.stages.straggler_factor,
                   use_cache=config.cache.ttl_s > 0 and cache is not False,
                   rounds=rounds, deliberate_below=deliberate_below)
    limit = budget_limit(config, max_usd, plan.callers)
    # The rubric last: a registered one is read from the database, and a bad request should not wait for it.
    chosen_rubric = default_rubric if rubric is None else resolve_rubric(rubric)
    return replace(plan, budget_usd=limit, rubric=chosen_rubric)


def deliberation_of(config: CouncilConfig, spec: CouncilPreset | None) -> tuple[int, float]:
    """The rounds and the deliberation threshold of a run: the preset's, else ``review:``'s."""
    rounds = spec.rounds if spec is not None and spec.rounds is not None else config.review.rounds
    below = spec.deliberate_below if spec is not None and spec.deliberate_below is not None \
        else config.review.deliberate_below
    return rounds, below


def config_relative(reference: str | None, config: CouncilConfig) -> str | None:
    """A rubric path written in the config file, made relative to that file (names are left as they are)."""
    if reference is None or not is_rubric_path(reference) or config.source == "<memory>":
        return reference
    path = Path(reference).expanduser()
    return reference if path.is_absolute() else str(Path(config.source).parent / path)
