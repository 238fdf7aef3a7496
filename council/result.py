"""The council result: one pydantic model whose JSON form is the public record of a run.

``CouncilResult.model_dump(mode="json")`` is what ``council ask --json``
prints, what the store keeps, and what the HTTP server returns for a run.
The records of each stage are :mod:`council.records`' (re-exported here);
this module adds the run as a whole, the deliberation round's record, and
the masked copy every output shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from pydantic import Field, PrivateAttr

from council.events import DeliberationData
from council.records import (
    AgreementRecord,
    AnswerRecord,
    AnswerStatus,
    BiasFlagRecord,
    CalibrationRecord,
    CallCost,
    CostStage,
    DimensionScoresRecord,
    Failure,
    FailureReason,
    FinalAnswer,
    JudgingRecord,
    OrderBallot,
    RankingEntry,
    ReviewRecord,
    RunCost,
    SafetyGateSummary,
    _Record,
)
from council.safety.gate import SafetyVerdict
from council.types import ChatMessage, ReusedMark, Usage, is_falsy, is_none

__all__ = [
    "AgreementRecord", "AnswerMove", "AnswerRecord", "AnswerStatus", "BiasFlagRecord", "CalibrationRecord", "CallCost",
    "CostStage", "CouncilResult", "DeliberationRecord", "DimensionScoresRecord", "Failure", "FailureReason",
    "FinalAnswer", "FirstRound", "JudgingRecord", "OrderBallot", "RankingEntry", "Reproducibility", "ReviewRecord",
    "RevisionRecord", "RunCost", "SafetyGateSummary", "Timings", "masked", "masked_answer", "masked_excerpt",
]


class Timings(_Record):
    """Milliseconds spent per stage and in all."""

    answers_ms: float = 0.0
    safety_ms: float = 0.0
    review_ms: float = 0.0
    aggregate_ms: float = 0.0
    final_ms: float = 0.0
    deliberation_ms: float = Field(default=0.0, exclude_if=is_falsy,
                                   description="The second round (review.rounds: 2): revision, re-review, ranking.")
    total_ms: float = 0.0


class Reproducibility(_Record):
    """What is needed to explain or repeat a run."""

    config_hash: str
    prompt_hashes: dict[str, str]
    rubric_id: str
    rubric_version: str
    rubric_hash: str
    shuffle_seed: int
    aggregation_method: str
    package_version: str


RevisionDecision = Literal["revised", "kept", "failed", "blocked"]


class RevisionRecord(_Record, ReusedMark):
    """One member's second look at its answer after reading the critiques (a deliberation round).

    ``revised``: it rewrote its answer, and the new text is the one reviewed
    again; ``kept``: it kept its answer, saying why; ``failed``: no usable
    reply (its first answer stands); ``blocked``: the revised text failed the
    safety gate (its first answer stands, and ``safety`` says why).
    """

    member: str
    decision: RevisionDecision
    reason: str = Field(default="", description="The member's own reason, or why its revision was not used.")
    latency_ms: float = 0.0
    usage: Usage = Usage()
    error: Failure | None = Field(default=None, exclude_if=is_none)
    safety: SafetyVerdict | None = Field(default=None, exclude_if=is_none,
                                         description="The gate's verdict on the revised text.")


class AnswerMove(_Record):
    """How one answer's calibrated score and rank moved from the first round to the second."""

    member: str
    revised: bool
    rank_before: int | None
    rank_after: int | None
    score_before: float | None
    score_after: float | None


class FirstRound(_Record):
    """The first round as it stood before the second: its answers, reviews, ranking and figures."""

    answers: list[AnswerRecord]
    reviews: list[ReviewRecord]
    ranking: list[RankingEntry]
    agreement: AgreementRecord
    bias_flags: list[BiasFlagRecord] = Field(default_factory=list)
    ranking_confidence: float | None = None
    tied_for_first: list[str] = Field(default_factory=list)


class DeliberationRecord(_Record):
    """Whether a second round ran (``review.rounds: 2``), why, and what it changed and cost.

    With two rounds, the result's answers, reviews and ranking are the second
    round's (the chairman wrote from them) and ``first_round`` keeps the
    first. With one, ``reason`` says why the second was not needed or did
    not fit.
    """

    rounds: Literal[1, 2]
    reason: str
    threshold: float = Field(description="review.deliberate_below: below this ranking confidence, a second round.")
    confidence_before: float | None = None
    confidence_after: float | None = None
    agreement_statistic: str = "none"
    agreement_before: float | None = None
    agreement_after: float | None = None
    first_round: FirstRound | None = Field(default=None, exclude_if=is_none)
    revisions: list[RevisionRecord] = Field(default_factory=list)
    moves: list[AnswerMove] = Field(default_factory=list)
    calls: int = Field(default=0, description="Upstream calls the second round made (revisions and reviews).")
    tokens: int = Field(default=0, description="Their tokens, prompt and completion.")
    cost_usd: float | None = Field(default=None, description="Their cost; None when a member has no price.")
    latency_ms: float = 0.0

    @property
    def revised(self) -> list[str]:
        """The members whose revised answer was reviewed in the second round."""
        return [r.member for r in self.revisions if r.decision == "revised"]

    def event_data(self) -> DeliberationData:
        """The ``deliberation`` event's payload: the record without its first round, and who revised."""
        return {"rounds": self.rounds, "reason": self.reason, "threshold": self.threshold,
                "confidence_before": self.confidence_before, "confidence_after": self.confidence_after,
                "agreement_statistic": self.agreement_statistic, "agreement_before": self.agreement_before,
                "agreement_after": self.agreement_after,
                "revisions": [r.model_dump(mode="json") for r in self.revisions],
                "moves": [{"member": m.member, "revised": m.revised, "rank_before": m.rank_before,
                           "rank_after": m.rank_after, "score_before": m.score_before, "score_after": m.score_after}
                          for m in self.moves],
                "calls": self.calls, "tokens": self.tokens, "cost_usd": self.cost_usd, "latency_ms": self.latency_ms,
                "revised": sorted(self.revised)}

    def brief(self) -> dict[str, object]:
        """What the machine-facing summaries (the chat endpoint's ``council``, MCP's ``ask_council``) say of it."""
        return {"rounds": self.rounds, "reason": self.reason, "revised": self.revised,
                "confidence_before": self.confidence_before, "confidence_after": self.confidence_after,
                "moves": [move.model_dump(mode="json") for move in self.moves],
                "calls": self.calls, "tokens": self.tokens, "cost_usd": self.cost_usd}


class CouncilResult(_Record):
    """Everything one council run produced."""

    run_id: str
    created_at: datetime
    # blocked: it ran to the end, but the safety gate set every answer aside, so there is no answer to give
    # (final_answer says so and names the categories). interrupted: stopped before it finished (a cancelled
    # caller, a server shutdown, a killed process).
    status: Literal["running", "complete", "blocked", "failed", "interrupted"] = "running"
    error: str | None = None
    question: list[ChatMessage]
    simulated: bool = False
    preset: str | None = Field(default=None, description="The preset (councils: NAME) that ran; None: the council "
                                                         "as configured.")
    judging: JudgingRecord | None = Field(default=None, description="How a judge preset's answers were scored "
                                                                     "(its policy); None: peer review.")
    cached_from: str | None = Field(
        default=None, exclude_if=is_none, description="The run this one was answered from by the result cache "
                                                       "(cache.ttl_s); None: it ran.")
    answers: list[AnswerRecord] = Field(default_factory=list)
    safety_gate: SafetyGateSummary | None = Field(
        default=None, description="Who failed the safety gate, and why; None: the gate is off (or not reached).")
    reviews: list[ReviewRecord] = Field(default_factory=list)
    ranking: list[RankingEntry] = Field(default_factory=list)
    agreement: AgreementRecord = Field(default_factory=AgreementRecord)
    bias_flags: list[BiasFlagRecord] = Field(default_factory=list)
    calibration: list[CalibrationRecord] = Field(
        default_factory=list, description="Each reviewer's history as read when the ranking started.")
    ranking_confidence: float | None = Field(
        default=None, description="How sure the council is that its top answer is the best (0-1): how often it "
                                  "came first when the reviews were resampled. None: nothing was compared.")
    tied_for_first: list[str] = Field(
        default_factory=list, description="Answers the council cannot tell from its top one (confidence below "
                                          "review.tie_threshold), besides the top one itself.")
    deliberation: DeliberationRecord | None = Field(
        default=None, exclude_if=is_none, description="The second round, when review.rounds is 2: whether it ran, "
                                                      "why, and what it moved (the ranking above is its own).")
    output_schema: str | None = Field(
        default=None, exclude_if=is_none, description="A structured run's schema, by its hash: the final answer's "
                                                      "content is one JSON value valid for it.")
    final_answer: FinalAnswer | None = None
    degraded: bool = False
    degraded_reasons: list[str] = Field(default_factory=list)
    stored: bool = Field(default=True, description="False when the database failed and the run is not on record.")
    timings: Timings = Field(default_factory=Timings)
    usage: Usage = Usage()
    cost: RunCost | None = Field(default=None, description="Set when the run ends.")
    reproducibility: Reproducibility

    #: How ``output`` reads the final JSON (a structured run asked from Python sets it): not stored.
    _read_output: Callable[[Any], Any] | None = PrivateAttr(default=None)

    @property
    def output(self) -> Any:
        """A structured run's answer: the validated object (the caller's pydantic model, else the JSON value).

        None for a prose run, or when the run has no final answer.
        """
        final = self.final_answer
        if self.output_schema is None or final is None or final.blocked or not final.content.strip():
            return None
        value = json.loads(final.content)
        return self._read_output(value) if self._read_output is not None else value

    @property
    def refusal(self) -> str | None:
        """Why a structured run has no answer when members refused: the first refusal's text (None otherwise).

        OpenAI's structured outputs answer a refusal in ``message.refusal``
        instead of an object; a council whose every candidate failed, one
        of them by refusing, answers the same way.
        """
        if self.output_schema is None or self.final_answer is not None or any(a.status == "ok" for a in self.answers):
            return None
        return next((a.content or a.error.message for a in self.answers
                     if a.error is not None and a.error.reason == "refused"), None)

    def degrade(self, *reasons: str | None) -> None:
        """Mark the run degraded for each reason given (None is no reason), keeping every reason once."""
        for reason in reasons:
            if reason is None:
                continue
            self.degraded = True
            if reason not in self.degraded_reasons:
                self.degraded_reasons.append(reason)

    def answer(self, member: str) -> AnswerRecord | None:
        """The Stage 1 record of ``member``."""
        return next((a for a in self.answers if a.member == member), None)

    def total_usage(self) -> Usage:
        """Tokens of every upstream call in the run."""
        total = Usage()
        safety = [a.safety.usage for a in self.answers if a.safety is not None and a.safety.usage is not None]
        for usage in [*(a.usage for a in self.answers), *safety, *(r.usage for r in self.reviews),
                      *(usage for _stage, _member, usage, _reused in self.second_round_calls())]:
            total = total + usage
        if self.final_answer is not None:
            total = total + self.final_answer.usage
        return total


    def second_round_calls(self, safety_member: str | None = None) -> list[tuple[CostStage, str, Usage, bool]]:
        """The calls a second round adds to those the records above hold: stage, member, usage, reused.

        The first round's reviews and the revisions; the safety check of each
        first answer later revised (the answer above carries its new check),
        and of each revision the gate blocked (only its record has that check).
        A safety check has usage only when a member or moderation API made it;
        it is listed under ``safety_member`` (the checker), else ``safety``.
        """
        rounds = self.deliberation
        if rounds is None or rounds.first_round is None:
            return []
        calls: list[tuple[CostStage, str, Usage, bool]] = [
            ("reviews", r.reviewer, r.usage, r.reused) for r in rounds.first_round.reviews]
        calls += [("revisions", r.member, r.usage, r.reused) for r in rounds.revisions]
        checker, revised = safety_member or "safety", set(rounds.revised)
        calls += [("safety", checker, a.safety.usage, False) for a in rounds.first_round.answers
                  if a.member in revised and a.safety is not None and a.safety.usage is not None]
        calls += [("safety", checker, r.safety.usage, False) for r in rounds.revisions
                  if r.decision == "blocked" and r.safety is not None and r.safety.usage is not None]
        return calls


# How much of a blocked text an output keeps: enough words to tell which answer it was, never the passage.
_EXCERPT_WORDS = 4
_EXCERPT_CHARS = 32
_DIGIT = re.compile(r"\d")


def masked_excerpt(text: str, category: str) -> str:
    """What outputs show in place of text the safety gate blocked: its first words, digits starred, then why.

    ``masked_excerpt("To build a pipe bomb, step 1 ...", "weapon_making")`` is
    ``"To build a pipe …[blocked: weapon_making]"``. The same form stands for
    a blocked answer's content and for a finding's evidence.
    """
    kept: list[str] = []
    for word in text.split():
        if len(kept) == _EXCERPT_WORDS or len(" ".join([*kept, word])) > _EXCERPT_CHARS:
            break
        kept.append(_DIGIT.sub("*", word.lstrip("…")))
    lead = " ".join(w for w in kept if w)
    return f"{lead} …[blocked: {category}]" if lead else f"…[blocked: {category}]"


#: Rules whose evidence quotes no answer text (the council's reading says which reviewers flagged it): shown as is.
UNQUOTED_RULES = frozenset({"council.review"})


def masked_evidence(evidence: str, category: str, rule: str) -> str:
    """A finding's evidence as outputs show it: masked, unless its rule quotes no answer text."""
    return evidence if rule in UNQUOTED_RULES else masked_excerpt(evidence, category)


def _masked_verdict(verdict: SafetyVerdict) -> SafetyVerdict:
    findings = [f.model_copy(update={"evidence": masked_evidence(f.evidence, f.category, f.rule)})
                for f in verdict.findings]
    return verdict.model_copy(update={"findings": findings})


def masked_answer(answer: AnswerRecord) -> AnswerRecord:
    """``answer`` as outputs show it: a blocked answer's text and every finding's evidence masked."""
    findings = answer.safety.findings if answer.safety is not None else []
    update: dict[str, object] = {}
    if answer.safety is not None and findings:
        update["safety"] = _masked_verdict(answer.safety)
    if answer.status == "blocked" and answer.content is not None:
        update["content"] = masked_excerpt(answer.content, findings[0].category if findings else "unsafe")
    return answer.model_copy(update=update) if update else answer


def masked(result: CouncilResult) -> CouncilResult:
    """A copy of ``result`` fit to show: what the safety gate blocked is masked (see :func:`masked_excerpt`).

    Every output (the CLI, ``GET /v1/council/runs/ID``, MCP, the page) shows
    this copy; the store and the Python API keep the original, and
    ``council show RUN --reveal-blocked`` prints it for an audit of the gate.
    A second round's records are masked alike: the first round's answers,
    and the evidence against each revision the gate blocked.
    """
    answers = [masked_answer(a) for a in result.answers]
    update: dict[str, object] = {}
    if any(new is not old for new, old in zip(answers, result.answers, strict=True)):
        update["answers"] = answers
    if result.deliberation is not None and (rounds := _masked_rounds(result.deliberation)) is not result.deliberation:
        update["deliberation"] = rounds
    return result.model_copy(update=update) if update else result


def _masked_rounds(rounds: DeliberationRecord) -> DeliberationRecord:
    update: dict[str, object] = {}
    first = rounds.first_round
    if first is not None:
        answers = [masked_answer(a) for a in first.answers]
        if any(new is not old for new, old in zip(answers, first.answers, strict=True)):
            update["first_round"] = first.model_copy(update={"answers": answers})
    if any(r.safety is not None and r.safety.findings for r in rounds.revisions):
        update["revisions"] = [r.model_copy(update={"safety": _masked_verdict(r.safety)})
                               if r.safety is not None and r.safety.findings else r for r in rounds.revisions]
    return rounds.model_copy(update=update) if update else rounds
