"""Progress events a run emits while it works, for the CLI, the server and the web page.

Each kind is its own frozen class with its own payload type (``AnswerEvent``
carries :class:`AnswerData`, ...), and :data:`StageEvent` is their union: a
listener that checks ``event.kind == "answer"`` reads ``event.data`` as an
:class:`AnswerData`. ``data`` is JSON-ready: the web page's event stream
sends it as it is (blocked text masked). The pipeline builds each payload
from its record with one function (:mod:`council.pipeline.payloads`), for the
live run and for the replay of a stored or cached one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

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


# The payload of each kind. Those mirroring a record's dump (a failure, a ranking entry, the final answer) list
# its fields in its order: tests/test_events.py holds them to the models.
class RunStartedData(TypedDict):
    """``run_started``: who answers and who chairs."""

    members: list[str]
    chairman: str | None
    simulated: bool
    #: A run answered by the result cache: the run it was answered from.
    cached_from: NotRequired[str | None]


class StageStartedData(TypedDict):
    """``stage_started``: ``answers``, ``review``, ``deliberation`` (a second round, with its reason) or ``final``."""

    stage: Literal["answers", "review", "deliberation", "final"]
    reason: NotRequired[str]
    #: ``final`` only: who gives the final answer, the chairman or the top-ranked answer as it stands.
    writer: NotRequired[Literal["chairman", "top_answer"]]


class FailureData(TypedDict):
    """A failure record's fields, as in ``Failure.model_dump()``."""

    reason: str
    message: str
    status: int | None
    attempts: int


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
    #: Who decided: the patterns (with a moderation layer, ``patterns+...``), or ``council``: the reviewers' reading.
    checker: NotRequired[str]


class ReviewData(TypedDict):
    """``review``: one reviewer's ballot was read, or failed."""

    reviewer: str
    status: str
    error: FailureData | None
    scores: dict[str, Any]
    order: list[str]
    round: NotRequired[int]
    #: Member -> the rubric criteria the ballot left out, for the answers it scored holistically (none: absent).
    holistic: NotRequired[dict[str, list[str]]]
    #: Label shown -> member: only in the web page's replay of a stored run (its live view adds them itself).
    labels: NotRequired[dict[str, str]]
    #: With review.both_orders: held, changed or unknown (did the reviewer's top pick hold in both orders?).
    position_consistency: NotRequired[str]


class RankingEntryData(TypedDict):
    """One place in the ranking, as in ``RankingEntry.model_dump()``."""

    member: str
    rank: int
    score: float
    raw_mean: float | None
    n_reviews: int
    dimensions: dict[str, float]
    verdict: dict[str, Any] | None
    rank_probabilities: list[float]


class RankingData(TypedDict):
    """``ranking``: the calibrated ranking with agreement and bias flags."""

    ranking: list[RankingEntryData]
    agreement: dict[str, Any]
    bias_flags: list[dict[str, Any]]
    ranking_confidence: float | None
    tied_for_first: list[str]
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


class FinalData(TypedDict):
    """``final``: the council's answer, as in ``FinalAnswer.model_dump()`` (``reused`` only when true)."""

    reused: NotRequired[bool]
    content: str
    by: str
    source: Literal["chairman", "top_answer", "none"]
    fallback: bool
    fallback_reason: str | None
    blocked: bool
    latency_ms: float
    usage: dict[str, Any]


class RunFinishedData(TypedDict):
    """``run_finished``: how the run ended."""

    status: str
    degraded: bool
    error: str | None


# One class per kind: ``kind`` is fixed by the class, so checking it tells a type checker which ``data`` it is.


@dataclass(frozen=True)
class RunStartedEvent:
    """``run_started``: the run began."""

    run_id: str
    data: RunStartedData
    kind: Literal["run_started"] = field(default="run_started", init=False)


@dataclass(frozen=True)
class StageStartedEvent:
    """``stage_started``: a stage began."""

    run_id: str
    data: StageStartedData
    kind: Literal["stage_started"] = field(default="stage_started", init=False)


@dataclass(frozen=True)
class AnswerEvent:
    """``answer``: a member's answer arrived, or did not."""

    run_id: str
    data: AnswerData
    kind: Literal["answer"] = field(default="answer", init=False)


@dataclass(frozen=True)
class SafetyEvent:
    """``safety``: the safety gate's verdict on one answer."""

    run_id: str
    data: SafetyData
    kind: Literal["safety"] = field(default="safety", init=False)


@dataclass(frozen=True)
class ReviewEvent:
    """``review``: a reviewer's ballot was read, or failed."""

    run_id: str
    data: ReviewData
    kind: Literal["review"] = field(default="review", init=False)


@dataclass(frozen=True)
class RankingEvent:
    """``ranking``: a round's ranking."""

    run_id: str
    data: RankingData
    kind: Literal["ranking"] = field(default="ranking", init=False)


@dataclass(frozen=True)
class RevisionEvent:
    """``revision``: a member's second-round decision."""

    run_id: str
    data: RevisionData
    kind: Literal["revision"] = field(default="revision", init=False)


@dataclass(frozen=True)
class DeliberationEvent:
    """``deliberation``: whether a second round ran, and what it did."""

    run_id: str
    data: DeliberationData
    kind: Literal["deliberation"] = field(default="deliberation", init=False)


@dataclass(frozen=True)
class FinalDeltaEvent:
    """``final_delta``: a piece of the chairman's text as it streams."""

    run_id: str
    data: FinalDeltaData
    kind: Literal["final_delta"] = field(default="final_delta", init=False)


@dataclass(frozen=True)
class FinalEvent:
    """``final``: the council's answer."""

    run_id: str
    data: FinalData
    kind: Literal["final"] = field(default="final", init=False)


@dataclass(frozen=True)
class RunFinishedEvent:
    """``run_finished``: the run ended."""

    run_id: str
    data: RunFinishedData
    kind: Literal["run_finished"] = field(default="run_finished", init=False)


#: Any event of a run; narrow it by ``kind``.
StageEvent: TypeAlias = (
    RunStartedEvent | StageStartedEvent | AnswerEvent | SafetyEvent | ReviewEvent | RankingEvent | RevisionEvent
    | DeliberationEvent | FinalDeltaEvent | FinalEvent | RunFinishedEvent)

EventSink = Callable[[StageEvent], None]


def ignore_events(_event: StageEvent) -> None:
    """The sink used when nobody listens."""


_STAGE_WORDS = {"answers": "Asking the council members…", "review": "Members are reviewing each other's answers…",
                "deliberation": "Second round: members read the critiques, may revise, and are reviewed again…",
                "final": "Writing the final answer…"}


def describe(event: StageEvent) -> str | None:
    """One line saying what happened, for people watching a run (the CLI's stderr, the server's progress text).

    None for events that are not worth a line (deltas, the final answer itself).
    """
    if event.kind == "stage_started":
        if event.data["stage"] == "final" and event.data.get("writer") == "top_answer":
            return "No chairman: the top-ranked answer stands."
        return _STAGE_WORDS.get(event.data["stage"])
    if event.kind == "answer":
        answer = event.data
        if answer["status"] == "ok":
            return f"- {answer['member']} answered ({answer['latency_ms'] / 1000:.1f} s)"
        return f"- {answer['member']} did not answer ({failure_reason(answer['error'])})"
    if event.kind == "safety":
        safety = event.data
        if safety["passed"]:
            return None
        category = safety["findings"][0]["category"] if safety["findings"] else "unsafe"
        if safety.get("checker") == "council" and safety["findings"]:
            # The reviewers' own reading: its evidence names who flagged it, never the answer's words.
            said = safety["findings"][0]["evidence"]
            return f"- {safety['member']}'s answer was set aside after review ({category}): {said}"
        return f"- {safety['member']}'s answer was set aside by the safety gate ({category})"
    if event.kind == "review":
        review = event.data
        again = " again" if review.get("round", 1) > 1 else ""
        if review["status"] == "ok":
            count = len(review["order"])
            return f"- {review['reviewer']} reviewed {count} answer{'' if count == 1 else 's'}{again}"
        return f"- {review['reviewer']}'s review failed ({failure_reason(review['error'])})"
    if event.kind == "ranking":
        ranking = event.data
        entries = ranking["ranking"]
        if entries:
            label = "Second ranking" if ranking.get("round", 1) > 1 else "Ranking"
            return f"{label}: " + ", ".join(f"{e['rank']}. {e['member']} ({e['score']:+.2f})" for e in entries)
    if event.kind == "revision":
        return describe_revision(event.data)
    if event.kind == "deliberation":
        return describe_deliberation(event.data)
    return None


def failure_reason(error: FailureData | None) -> str:
    """A failure's reason code, or ``failed`` when there is no failure record."""
    return error["reason"] if error else "failed"


def describe_revision(revision: RevisionData) -> str:
    """One line on a member's second-round decision."""
    said = f": {revision['reason']}" if revision["reason"] else ""
    if revision["decision"] == "revised":
        return f"- {revision['member']} revised its answer{said}"
    if revision["decision"] == "kept":
        return f"- {revision['member']} kept its answer{said}"
    return f"- {revision['member']}'s revision failed ({failure_reason(revision['error'])}); " \
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
