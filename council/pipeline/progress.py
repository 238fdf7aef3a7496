"""What a run's stages hand each other: :class:`RunSoFar`, the records so far, and what one stage adds.

A stage never edits what it was given: it returns the next :class:`RunSoFar`
(:meth:`RunSoFar.then`), and the run's loop (:mod:`council.pipeline.stages`)
is the only code that writes it into the result, the store and the log.
Besides the records, each step carries what that stage alone adds: reasons
the run is degraded, writes it queued to the store, and the reason to stop
the run, if it must.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from typing import Any

from council.pipeline.stragglers import LateCall
from council.ranking.sheet import ReviewerHistory
from council.result import (
    AgreementRecord,
    AnswerRecord,
    BiasFlagRecord,
    CalibrationRecord,
    CouncilResult,
    DeliberationRecord,
    FinalAnswer,
    RankingEntry,
    ReviewRecord,
    RevisionRecord,
    SafetyGateSummary,
)
from council.rubrics.model import CriterionValue
from council.types import ChatMessage

#: A write queued to the store, with what its failure costs the run ("the run could not be stored").
QueuedWrite = tuple[asyncio.Future[None], str]


@dataclass(frozen=True)
class HistoryRead:
    """The reviewers' calibration history, read while the reviews are out (:func:`.rank_stage.read_history_ahead`)."""

    keys: frozenset[str]
    stored: Awaitable[dict[str, ReviewerHistory]]


@dataclass(frozen=True)
class AutomaticScores:
    """The rubric criteria code scores (deterministic, schema): each answer's values and their evidence."""

    values: dict[str, dict[str, CriterionValue]] = field(default_factory=dict)
    evidence: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass
class Ranked:
    """What the ranking stage hands back: the ranking and its figures, and why the run is degraded, if it is."""

    ranking: list[RankingEntry]
    agreement: AgreementRecord = field(default_factory=AgreementRecord)
    bias_flags: list[BiasFlagRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    calibration: list[CalibrationRecord] = field(default_factory=list)
    #: The run's history update, queued to the store: whoever finishes the run checks how it went.
    history_write: asyncio.Future[None] | None = None
    #: How sure the ranking is of its top answer (None: nothing was compared), and who is tied with it.
    confidence: float | None = None
    tied_for_first: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RevisionCall:
    """One member's revision prompt in a second round, ready to send, and its nonce."""

    member: str
    messages: list[ChatMessage]
    nonce: str


@dataclass(frozen=True)
class SecondRound:
    """A second round under way: why it runs, its prompts, and what its stages have produced so far.

    Its records replace the first round's only when its ranking is done
    (:func:`council.pipeline.deliberation.second_ranking_stage`): a round
    that fails midway leaves the first round standing, whole.
    """

    reason: str
    #: When the round started (a ``time.perf_counter`` reading), for its latency.
    started: float
    calls: tuple[RevisionCall, ...]
    #: Each member's decision, and the answers the second review reads (revised where a revision passed the gate).
    revisions: tuple[RevisionRecord, ...] = ()
    answers: tuple[AnswerRecord, ...] = ()
    automatic: AutomaticScores = field(default_factory=AutomaticScores)
    reviews: tuple[ReviewRecord, ...] = ()


@dataclass(frozen=True)
class RunSoFar:
    """The records a run's stages have produced, and what the latest stage adds to the run."""

    answers: tuple[AnswerRecord, ...] = ()
    safety_gate: SafetyGateSummary | None = None
    automatic: AutomaticScores = field(default_factory=AutomaticScores)
    #: The reviewers' history, read ahead while the reviews are out (None: nothing to read).
    history: HistoryRead | None = None
    reviews: tuple[ReviewRecord, ...] = ()
    ranked: Ranked | None = None
    #: Whether a second round ran and what it moved (None: the run has one round, review.rounds 1).
    deliberation: DeliberationRecord | None = None
    #: A second round under way (None: none is, or it is done and its records are the run's).
    second_round: SecondRound | None = None
    final: FinalAnswer | None = None
    #: Added by the latest stage only: why the run is degraded, writes it queued, calls it stopped waiting for
    #: (still running), and why the run must stop.
    degraded: tuple[str | None, ...] = ()
    writes: tuple[QueuedWrite, ...] = ()
    late: tuple[LateCall, ...] = ()
    stop: str | None = None

    @property
    def surviving(self) -> list[AnswerRecord]:
        """The answers that came back and passed the safety gate."""
        return [a for a in self.answers if a.status == "ok"]

    def then(self, **changes: Any) -> RunSoFar:
        """The next step: these records changed, and nothing added yet beyond what ``changes`` says."""
        return replace(self, **{"degraded": (), "writes": (), "late": (), "stop": None, **changes})

    def record_into(self, result: CouncilResult) -> None:
        """Write the records into ``result``; the reasons this step gives join its degraded reasons."""
        result.answers = list(self.answers)
        result.safety_gate = self.safety_gate
        result.reviews = list(self.reviews)
        if self.ranked is not None:
            ranked = self.ranked
            result.ranking, result.agreement, result.bias_flags = ranked.ranking, ranked.agreement, ranked.bias_flags
            result.calibration = ranked.calibration
            result.ranking_confidence, result.tied_for_first = ranked.confidence, ranked.tied_for_first
        if self.deliberation is not None:
            result.deliberation = self.deliberation
        if self.final is not None:
            result.final_answer = self.final
            result.status = "blocked" if self.final.blocked else "complete"
        result.degrade(*self.degraded)
