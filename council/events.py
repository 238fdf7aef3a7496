"""Progress events a run emits while it works, for the CLI, the server and the web page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict, cast

EventKind = Literal[
    "run_started",
    "stage_started",
    "answer",
    "safety",
    "review",
    "ranking",
    "revision",
    "deliberation",
    "final_delta",
    "final",
    "run_finished",
]


@dataclass(frozen=True)
class StageEvent:
    """One thing that happened in a run. ``data`` is JSON-ready."""

    kind: EventKind
    run_id: str
    data: dict[str, Any] = field(default_factory=dict)


EventSink = Callable[[StageEvent], None]


def ignore_events(_event: StageEvent) -> None:
    """The sink used when nobody listens."""


# The payload of each kind, as the pipeline emits it (``final`` carries the FinalAnswer's fields).
class RunStartedData(TypedDict):
    """``run_started``: who answers and who chairs."""

    members: list[str]
    chairman: str | None
    simulated: bool


class StageStartedData(TypedDict):
    """``stage_started``: ``answers``, ``review``, ``deliberation`` (a second round, with its reason) or ``final``."""

    stage: Literal["answers", "review", "deliberation", "final"]
    reason: NotRequired[str]


class FailureData(TypedDict, total=False):
    """A failure record's fields, as in ``Failure.model_dump()``."""

    reason: str
    message: str


class AnswerData(TypedDict):
    """``answer``: one member's answer arrived, or did not."""

    member: str
    status: str
    latency_ms: float
    error: FailureData | None
    content: str | None


class SafetyFindingData(TypedDict):
    """One reason the safety gate gave."""

    category: str
    rule: str
    evidence: str


class SafetyData(TypedDict):
    """``safety``: the gate's verdict on one answer."""

    member: str
    passed: bool
    findings: list[SafetyFindingData]
    notes: list[str]


class ReviewData(TypedDict):
    """``review``: one reviewer's ballot was read, or failed."""

    reviewer: str
    status: str
    error: FailureData | None
    scores: dict[str, Any]
    order: list[str]
    round: NotRequired[int]


class RankingEntryData(TypedDict):
    """One place in the ranking."""

    member: str
    rank: int
    score: float


class RankingData(TypedDict):
    """``ranking``: the calibrated ranking with agreement and bias flags."""

    ranking: list[RankingEntryData]
    agreement: dict[str, Any]
    bias_flags: list[dict[str, Any]]
    ranking_confidence: NotRequired[float | None]
    tied_for_first: NotRequired[list[str]]
    round: NotRequired[int]


class RevisionData(TypedDict):
    """``revision``: one member's decision in a second round (``revised``, ``kept`` or ``failed``)."""

    member: str
    decision: str
    reason: str
    latency_ms: float
    error: FailureData | None


class AnswerMoveData(TypedDict):
    """How one answer moved between the rounds."""

    member: str
    revised: bool
    rank_before: int | None
    rank_after: int | None
    score_before: float | None
    score_after: float | None


class DeliberationData(TypedDict):
    """``deliberation``: whether a second round ran and why; when it did, what it moved and cost.

    Sent once per run of a council with ``review.rounds: 2``: after the
    first ranking when one round is enough, else after the second ranking.
    """

    rounds: int
    reason: str
    threshold: float
    confidence_before: float | None
    confidence_after: float | None
    agreement_statistic: str
    agreement_before: float | None
    agreement_after: float | None
    revised: list[str]
    revisions: list[dict[str, Any]]
    moves: list[AnswerMoveData]
    calls: int
    tokens: int
    cost_usd: float | None
    latency_ms: float


class FinalDeltaData(TypedDict):
    """``final_delta``: a piece of the chairman's text as it streams."""

    text: str
    by: str


class RunFinishedData(TypedDict):
    """``run_finished``: how the run ended."""

    status: str
    degraded: bool
    error: str | None


_STAGE_WORDS = {"answers": "Asking the council members…", "review": "Members are reviewing each other's answers…",
                "deliberation": "Second round: members read the critiques, may revise, and are reviewed again…",
                "final": "Writing the final answer…"}


def describe(event: StageEvent) -> str | None:
    """One line saying what happened, for people watching a run (the CLI's stderr, the server's progress text).

    None for events that are not worth a line (deltas, the final answer itself).
    """
    if event.kind == "stage_started":
        return _STAGE_WORDS.get(cast(StageStartedData, event.data)["stage"])
    if event.kind == "answer":
        answer = cast(AnswerData, event.data)
        if answer["status"] == "ok":
            return f"- {answer['member']} answered ({answer['latency_ms'] / 1000:.1f} s)"
        return f"- {answer['member']} did not answer ({(answer['error'] or {}).get('reason', 'failed')})"
    if event.kind == "safety":
        safety = cast(SafetyData, event.data)
        if safety["passed"]:
            return None
        category = safety["findings"][0]["category"] if safety["findings"] else "unsafe"
        return f"- {safety['member']}'s answer was set aside by the safety gate ({category})"
    if event.kind == "review":
        review = cast(ReviewData, event.data)
        again = " again" if review.get("round", 1) > 1 else ""
        if review["status"] == "ok":
            return f"- {review['reviewer']} reviewed {len(review['order'])} answers{again}"
        return f"- {review['reviewer']}'s review failed ({(review['error'] or {}).get('reason', 'failed')})"
    if event.kind == "ranking":
        ranking = cast(RankingData, event.data)
        entries = ranking["ranking"]
        if entries:
            label = "Second ranking" if ranking.get("round", 1) > 1 else "Ranking"
            return f"{label}: " + ", ".join(f"{e['rank']}. {e['member']} ({e['score']:+.2f})" for e in entries)
    if event.kind == "revision":
        return describe_revision(cast(RevisionData, event.data))
    if event.kind == "deliberation":
        return describe_deliberation(cast(DeliberationData, event.data))
    return None


def describe_revision(revision: RevisionData) -> str:
    """One line on a member's second-round decision."""
    said = f": {revision['reason']}" if revision["reason"] else ""
    if revision["decision"] == "revised":
        return f"- {revision['member']} revised its answer{said}"
    if revision["decision"] == "kept":
        return f"- {revision['member']} kept its answer{said}"
    return f"- {revision['member']}'s revision failed ({(revision['error'] or {}).get('reason', 'failed')}); " \
           "its first answer stands"


def describe_deliberation(rounds: DeliberationData) -> str:
    """One line saying how many rounds ran and why; for two, what changed and what the second cost."""
    if rounds["rounds"] == 1:
        return f"Deliberation: {rounds['reason']}"
    before, after = rounds["confidence_before"], rounds["confidence_after"]
    confidence = (f"confidence {before:.2f} -> {after:.2f}" if before is not None and after is not None
                  else "confidence not measured")
    cost = f", ${rounds['cost_usd']:.4f}" if rounds["cost_usd"] is not None else ""
    revised = ", ".join(rounds["revised"]) or "nobody"
    return (f"Deliberation: {rounds['reason']}; revised: {revised}; {confidence}; second round "
            f"{rounds['calls']} calls, {rounds['tokens']} tokens{cost}, {rounds['latency_ms'] / 1000:.1f} s")
