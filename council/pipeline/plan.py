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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from council.config import CouncilConfig
from council.errors import InvalidRequestError
from council.pipeline.budget import RunBudget, fresh_budget
from council.pipeline.call_reuse import CallReuse
from council.pipeline.request import RunRequest
from council.pipeline.structured import OutputSpec
from council.presets import CouncilPreset
from council.providers.tool_request import UntranslatableError, read_tool_request
from council.result import JudgingRecord
from council.rubrics.load import is_rubric_path
from council.rubrics.model import Rubric
from council.storage.store import Store
from council.types import ChatMessage, ConversationError, GenerationParams, as_messages


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
    #: Joins the cache key: cached runs answer only requests of the same scope ("": the shared one).
    cache_scope: str = ""
    #: The review shuffle seed (None: ``review.seed``, else one drawn per run); an evaluation pins one per sample.
    shuffle_seed: int | None = None
    #: 2: a second round when the first ranking is unsure (the preset's ``rounds``, else ``review.rounds``).
    rounds: int = 1
    #: Below this confidence in the top answer, the second round runs (with ``rounds`` 2).
    deliberate_below: float = 0.7
    #: A structured answer: the JSON the run must return (None: prose).
    output: OutputSpec | None = None
    #: A tool call's conversation as OpenAI chat messages, tool calls and results kept (None: ``messages``).
    tool_messages: tuple[dict[str, Any], ...] | None = None

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
    request: RunRequest,
    *,
    default_rubric: Rubric,
    resolve_rubric: Callable[[Rubric | str], Rubric],
    named_rubric: Callable[[str], Rubric],
) -> RunPlan:
    """Check ``request`` against ``config`` and return its plan (see :meth:`Council.plan`).

    The one place a run request is checked. Raises
    :class:`~council.errors.InvalidRequestError` naming what is wrong; its
    ``option`` is the :class:`RunRequest` field at fault (``messages``,
    ``preset``, ``members``, ``chairman``, ``rounds``, ``params``,
    ``max_usd``, ``rubric``), and for a message its index.
    """
    messages = conversation_of(request)
    member_names = [m.name for m in config.members]
    spec = preset_of(config, request.preset)
    members, chairman, rubric = request.members, request.chairman, request.rubric
    if isinstance(members, str):
        raise InvalidRequestError(f"members must be a list of names, not the string {members!r}", option="members")
    if spec is not None:
        members = members if members is not None else spec.members
        rubric = rubric if rubric is not None else config_relative(spec.rubric, config)
    chosen = list(members) if members is not None else member_names
    unknown = [m for m in chosen if m not in member_names]
    if unknown or not chosen:
        raise InvalidRequestError(f"unknown members: {', '.join(unknown) or '(none chosen)'}; "
                                  f"members are: {', '.join(member_names)}", option="members")
    if len(set(chosen)) != len(chosen):
        twice = next(m for m in chosen if chosen.count(m) > 1)
        raise InvalidRequestError(f"member {twice!r} is listed twice", option="members")
    choice = request.chairman_choice
    if choice == "default":
        chair = spec.chairman_for(config.chairman) if spec is not None else config.chairman
    else:
        chair = None if choice == "none" else chairman
    if chair is not None and chair not in member_names:
        raise InvalidRequestError(f"chairman {chair!r} is not a member; members are: {', '.join(member_names)}",
                                  option="chairman")
    rounds, deliberate_below = deliberation_of(config, spec)
    if request.rounds is not None:
        if request.rounds not in (1, 2):
            raise InvalidRequestError(f"rounds must be 1 or 2, got {request.rounds!r}", option="rounds")
        rounds = request.rounds
    output, params = output_of(request)
    plan = RunPlan(messages=tuple(messages), members=tuple(chosen), chairman=chair, rubric=default_rubric,
                   preset=request.preset, judging=judging_for(spec, chosen, member_names), params=params,
                   safety_member=config.safety.llm_member,
                   straggler_factor=spec.straggler_factor if spec is not None and spec.straggler_factor is not None
                   else config.stages.straggler_factor,
                   use_cache=config.cache.ttl_s > 0 and request.cache is not False,
                   reuse_calls=request.reuse_scope is not None, reuse_scope=request.reuse_scope or "",
                   cache_scope=request.cache_scope or "",
                   shuffle_seed=request.shuffle_seed, rounds=rounds, deliberate_below=deliberate_below,
                   output=output, tool_messages=tool_messages_of(request, output))
    limit = budget_limit(config, request.max_usd, plan.callers)
    # The rubric last: a registered one is read from the database, and a bad request should not wait for it.
    if rubric is None:
        chosen_rubric = default_rubric
    elif request.rubric_source == "named":
        if not isinstance(rubric, str):
            raise InvalidRequestError("rubric: a remote request names a rubric; it cannot send one", option="rubric")
        chosen_rubric = named_rubric(rubric)
    else:
        chosen_rubric = resolve_rubric(rubric)
    return replace(plan, budget_usd=limit, rubric=chosen_rubric)


def conversation_of(request: RunRequest) -> list[ChatMessage]:
    """The request's conversation as messages, or :class:`InvalidRequestError` saying which message is at fault."""
    question = request.messages
    try:
        return as_messages(question if isinstance(question, str) else list(question))
    except ConversationError as exc:
        where = "" if exc.message_index is None else f"messages[{exc.message_index}]" + (
            "" if exc.image_index is None else f".images[{exc.image_index}]") + ": "
        raise InvalidRequestError(f"invalid question: {where}{exc}", option="messages",
                                  message_index=exc.message_index, image_index=exc.image_index,
                                  code="invalid_image" if exc.image_index is not None else None) from None
    except (ValueError, TypeError) as exc:  # a message that is not one (pydantic's ValidationError is a ValueError)
        raise InvalidRequestError(f"invalid question: {exc}", option="messages") from None


def output_of(request: RunRequest) -> tuple[OutputSpec | None, GenerationParams | None]:
    """The structured answer a request asks for (``output_type``, or a JSON ``response_format`` in its params).

    The ``response_format`` leaves the params: each member is asked for the
    output in its own wire format (:mod:`.structured`), not sent the
    caller's setting as it is.
    """
    params = request.params
    asked = params.response_format if params is not None else None
    from_params = OutputSpec.from_response_format(asked) if asked is not None else None
    if params is not None and asked is not None:
        params = params.model_copy(update={"response_format": None})
    call = OutputSpec.for_tools(request.tools or (), request.tool_choice)
    if call is not None:
        if request.output_type is not None:
            raise InvalidRequestError("a tool call to decide and output_type cannot be asked at once: the answer "
                                      "is the call's arguments", option="tool_choice")
        if from_params is not None and call.may_reply:
            raise InvalidRequestError("a structured answer and tool calls the council may decide (tool_choice "
                                      "auto) cannot be asked at once; force the call, or leave tools out",
                                      option="tool_choice")
        # A forced call leaves no text for response_format to shape: OpenAI accepts both, and clients send both
        # (instructor's RESPONSES_TOOLS mode names the same schema twice).
        return call, params
    if request.output_type is not None:
        output = OutputSpec.of(request.output_type)
        if from_params is not None and from_params != output:
            raise InvalidRequestError("give the output's schema once: output_type and params.response_format differ",
                                      option="output_type")
        return output, params
    return from_params, params


def tool_messages_of(request: RunRequest, output: OutputSpec | None) -> tuple[dict[str, Any], ...] | None:
    """The request's tool conversation, checked as every wire format reads it; None when it gave none.

    Ignored (None) when the run decides no tool call. Raises :class:`InvalidRequestError` (``option``
    ``tool_messages``) when it holds what no wire format but OpenAI's can carry.
    """
    if request.tool_messages is None or output is None or not output.calls:
        return None  # no call to decide: every member reads ``messages``
    turns = tuple(dict(turn) for turn in request.tool_messages if isinstance(turn, Mapping))
    if len(turns) != len(request.tool_messages) or not turns:
        raise InvalidRequestError("tool_messages: a non-empty list of chat messages (JSON objects)",
                                  option="tool_messages")
    try:
        read_tool_request({"messages": list(turns), "tools": list(output.tools)})
    except UntranslatableError as error:
        raise InvalidRequestError(f"tool_messages: {error}", option="tool_messages") from None
    return turns


def budget_limit(config: CouncilConfig, max_usd: float | None, callers: list[str]) -> float | None:
    """What a run may spend (``max_usd``, never above ``budget.max_usd_per_run``), or None for an unbounded run.

    ``callers`` are the members the run may call. Raises
    :class:`~council.errors.InvalidRequestError` (its ``option`` is ``max_usd``)
    naming what is wrong.
    """
    cap = config.budget.max_usd_per_run
    if max_usd is not None:
        if isinstance(max_usd, bool) or not isinstance(max_usd, int | float) or not max_usd > 0:
            raise InvalidRequestError(f"max_usd must be more than 0, got {max_usd}", option="max_usd")
        if cap is not None and max_usd > cap:
            raise InvalidRequestError(f"max_usd {max_usd:g} is above the configured budget.max_usd_per_run ({cap:g})",
                                      option="max_usd")
    limit = max_usd if max_usd is not None else cap
    if limit is None:
        return None
    priced_members = {m.name for m in config.members if m.price is not None}
    unpriced = [name for name in dict.fromkeys(callers) if name not in priced_members]  # a chairman is a member too
    if unpriced:
        raise InvalidRequestError(f"a budget needs a price on every member it may call; no price: "
                                  f"{', '.join(unpriced)} (add members[].price)", option="max_usd")
    return float(limit)


def judging_for(preset: CouncilPreset | None, answering: list[str], member_names: list[str]) -> JudgingRecord | None:
    """How a run of ``preset`` with these answering members keeps its judge from scoring its own answer.

    None for peer review. A judge that does not answer scores every
    answer; one that answers scores the others, and a second judge scores
    every answer but its own, the judge's included.
    """
    if preset is None or preset.judge is None:
        return None
    if preset.judge not in answering:
        return JudgingRecord(policy="judge_does_not_answer", judge=preset.judge)
    return JudgingRecord(policy="second_judge", judge=preset.judge,
                         second_judge=preset.second_judge_for(answering, member_names))


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
