"""The council result: one pydantic model whose JSON form is the public record of a run.

``CouncilResult.model_dump(mode="json")`` is what ``council ask --json``
prints, what the store keeps, and what the HTTP server returns for a run.
Member names appear de-anonymized everywhere; the labels each reviewer saw
are kept in ``reviews[].labels`` for audit.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from council.errors import ProviderError
from council.rubrics.score import RubricVerdict
from council.safety.gate import SafetyFinding, SafetyVerdict
from council.safety.moderation.outcome import ModerationCheck
from council.types import ChatMessage, ReusedMark, Usage, is_falsy, is_none

AnswerStatus = Literal["ok", "failed", "blocked"]
FailureReason = Literal["timeout", "rate_limited", "auth", "upstream_error", "protocol", "deadline", "parse", "skipped",
                        "budget", "late"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Failure(_Record):
    """Why a call failed: a short reason code and a readable message."""

    reason: FailureReason
    message: str
    status: int | None = None
    attempts: int = 1

    @classmethod
    def from_error(cls, error: ProviderError) -> Failure:
        """The failure record of a provider error."""
        return cls(reason=error.reason, message=str(error), status=error.status, attempts=error.attempts)


class AnswerRecord(_Record, ReusedMark):
    """One member's Stage 1 answer, or why there is none."""

    member: str
    model: str
    provider: str
    content: str | None = None
    status: AnswerStatus = "ok"
    error: Failure | None = None
    latency_ms: float = 0.0
    usage: Usage = Usage()
    safety: SafetyVerdict | None = None
    moderation: ModerationCheck | None = Field(
        default=None, exclude_if=is_none,
        description="The moderation layer's check (safety.moderation or llm_member): its verdict, categories, "
                    "latency, usage and cost, or why it failed; None when it did not run on this answer.")
    flags: list[SafetyFinding] = Field(
        default_factory=list, exclude_if=is_falsy,
        description="Findings that do not block: text addressed to the reviewers (evaluator_manipulation). The "
                    "answer is still reviewed; the run is degraded and the chairman is told.")
    simulated: bool = False
    model_version: str | None = None
    attempts: int = Field(default=1, description="Upstream attempts the answer took (retries included).")
    review_truncated_from: int | None = Field(
        default=None, description="The answer's length in characters, when reviewers and the chairman were shown "
                                  "only its first review.max_answer_chars.")


class DimensionScoresRecord(_Record):
    """One reviewer's scores for one answer; ``overall`` is recomputed by Council."""

    scores: dict[str, bool | int | float | str] = Field(description="The reviewer's value per criterion.")
    overall: float = Field(description="The rubric score, 0-1, recomputed by Council.")
    normalized: dict[str, float] = Field(default_factory=dict, description="Each criterion's score, 0-1.")
    reported_overall: float | None = None
    notes: str = ""


class ReviewRecord(_Record, ReusedMark):
    """One reviewer's Stage 2 ballot, de-anonymized."""

    reviewer: str
    status: Literal["ok", "failed"] = "ok"
    error: Failure | None = None
    order: list[str] = Field(default_factory=list, description="Members in the order shown.")
    labels: dict[str, str] = Field(default_factory=dict, description="Label shown -> member.")
    ranking: list[str] = Field(default_factory=list, description="The reviewer's ranking, members, best first.")
    scores: dict[str, DimensionScoresRecord] = Field(default_factory=dict)
    attempts: int = 0
    latency_ms: float = 0.0
    usage: Usage = Usage()
    model: str = ""
    prompt_hash: str = Field(default="", description="SHA-256 (16 hex) of the review prompt sent.")
    response_hash: str = Field(default="", description="SHA-256 (16 hex) of the reply the ballot came from.")


class RankingEntry(_Record):
    """A candidate's place in the council ranking."""

    member: str
    rank: int
    score: float
    raw_mean: float | None
    n_reviews: int
    dimensions: dict[str, float] = Field(default_factory=dict)
    verdict: RubricVerdict | None = None
    rank_probabilities: list[float] = Field(
        default_factory=list, description="How often this answer took each rank (1st, 2nd, ...) when the reviews "
                                          "were resampled; empty when nothing was compared.")


class AgreementRecord(_Record):
    """How much the reviewers agreed."""

    statistic: str = "none"
    kendall_w: float | None = None
    mean_pairwise_tau: float | None = None
    n_reviewers: int = 0
    method: str | None = Field(default=None, description="The aggregation method that ranked the answers.")
    calibrated: bool | None = Field(
        default=None, description="Whether the scores were calibrated (z-scores) before averaging, not raw.")
    weighting: str | None = Field(
        default=None, description="How the reviewers were weighted: outlier, equal or reliability.")
    reviewer_weights: dict[str, float] = Field(default_factory=dict, description="Each reviewer's weight.")


class BiasFlagRecord(_Record):
    """A reviewer whose scores follow something other than quality."""

    reviewer: str
    kind: str
    correlation: float
    detail: str


class CalibrationRecord(_Record):
    """One reviewer's stored history as read when the ranking started: what its scores were calibrated with.

    With the reviews, it is enough to recompute the run's ranking exactly,
    whatever the history became afterwards.
    """

    reviewer: str
    count: int = Field(description="Scores seen before this run.")
    mean: float
    m2: float = Field(description="Sum of squared deviations from the mean (Welford).")
    resid_count: int
    resid_m2: float
    bias: list[float] = Field(default_factory=list, description="Running sums behind pooled bias flags.")


class SafetyGateSummary(_Record):
    """The safety gate over the whole run (ADR-016's ``safety_gate``): whose answers failed it, and why.

    Each answer's ``safety`` holds the detail (findings, masked evidence, the
    classifier's notes); this names the failures in one place.
    """

    checked_models: list[str] = Field(default_factory=list, description="Members whose answer was checked.")
    failed_models: list[str] = Field(default_factory=list, description="Members whose answer failed the gate.")
    categories: dict[str, list[str]] = Field(
        default_factory=dict, description="The categories each failed member's answer was blocked for.")
    checker: str = Field(default="patterns", description="What checked: patterns, patterns+llm:NAME or "
                                                         "patterns+moderation:PROVIDER.")

    @classmethod
    def of(cls, answers: list[AnswerRecord]) -> SafetyGateSummary:
        """The summary of the answers the gate has marked."""
        checked = [a for a in answers if a.safety is not None]
        failed = [a for a in checked if a.safety is not None and not a.safety.passed]
        checkers = sorted({a.safety.checker for a in checked if a.safety is not None})
        return cls(checked_models=[a.member for a in checked], failed_models=[a.member for a in failed],
                   categories={a.member: sorted({f.category for f in a.safety.findings})
                               for a in failed if a.safety is not None},
                   checker=checkers[-1] if checkers else "patterns")


class FinalAnswer(_Record, ReusedMark):
    """The council's answer and who wrote it."""

    content: str
    by: str = Field(description="The chairman, or the member whose top-ranked answer was used.")
    source: Literal["chairman", "top_answer", "none"] = "top_answer"
    fallback: bool = Field(default=False, description="True when the chairman failed and the top answer was used.")
    fallback_reason: str | None = None
    blocked: bool = Field(default=False, description="True when no answer passed the safety gate.")
    latency_ms: float = 0.0
    usage: Usage = Usage()


class JudgingRecord(_Record):
    """How a judge preset (``review: judge``) kept the judge from ranking its own answer by its own score.

    ``judge_does_not_answer``: the judge is not among the answering members
    and scores every answer. ``second_judge``: the judge answers too; it
    scores every answer but its own, and ``second_judge`` scores every answer
    but its own, the judge's included.
    """

    policy: Literal["judge_does_not_answer", "second_judge"]
    judge: str
    second_judge: str | None = Field(default=None, description="Who scored the judge's own answer (second judge).")

    def reviewers(self) -> list[str]:
        """The members who review in a run under this policy."""
        return [self.judge, *([self.second_judge] if self.second_judge else [])]

    def describe(self) -> str:
        """The policy in a few words, for people: who judged, and who scored the judge's answer."""
        if self.policy == "judge_does_not_answer":
            return f"judge {self.judge}, who did not answer"
        return f"judge {self.judge}, its answer scored by {self.second_judge or 'nobody'}"


CostStage = Literal["answers", "safety", "reviews", "chairman"]


class CallCost(_Record):
    """What one upstream call (with its retries and re-asks) cost.

    Stored with every run, so it is written compactly: ``source`` (when
    unknown) and ``estimated`` (when false) are left out.
    """

    stage: CostStage
    member: str
    prompt_tokens: int
    completion_tokens: int
    usd: float | None = Field(description="None when the member has no price and the upstream reported none.")
    source: Literal["reported", "computed"] | None = Field(
        default=None, exclude_if=is_none,
        description="reported: the upstream's figure; computed: tokens times the member's price.")
    estimated: bool = Field(default=False, exclude_if=is_falsy,
                            description="Token counts estimated from text length.")


class RunCost(_Record):
    """A run's cost: per call, per stage, per member and in all, in US dollars.

    Sums count the calls whose cost is known; ``partial`` says some were
    not (a member without a price), and then ``total_usd`` is a lower bound.
    """

    total_usd: float | None = Field(description="None when no call's cost is known.")
    partial: bool = False
    budget_usd: float | None = Field(default=None, description="The run's budget, when it had one.")
    by_stage: dict[str, float] = Field(default_factory=dict)
    by_member: dict[str, float] = Field(default_factory=dict)
    unpriced: list[str] = Field(default_factory=list, description="Members whose calls have no known cost.")
    calls: list[CallCost] = Field(default_factory=list)
    reused_usd: float = Field(default=0.0, exclude_if=is_falsy, description="What the reused calls (council eval's "
                              "kept replies) cost when they were made: not spent again, not in the sums above.")


class Timings(_Record):
    """Milliseconds spent per stage and in all."""

    answers_ms: float = 0.0
    safety_ms: float = 0.0
    review_ms: float = 0.0
    aggregate_ms: float = 0.0
    final_ms: float = 0.0
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
    final_answer: FinalAnswer | None = None
    degraded: bool = False
    degraded_reasons: list[str] = Field(default_factory=list)
    stored: bool = Field(default=True, description="False when the database failed and the run is not on record.")
    timings: Timings = Field(default_factory=Timings)
    usage: Usage = Usage()
    cost: RunCost | None = Field(default=None, description="Set when the run ends.")
    reproducibility: Reproducibility

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
        for usage in [*(a.usage for a in self.answers), *safety, *(r.usage for r in self.reviews)]:
            total = total + usage
        if self.final_answer is not None:
            total = total + self.final_answer.usage
        return total


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


def _masked_verdict(verdict: SafetyVerdict) -> SafetyVerdict:
    findings = [f.model_copy(update={"evidence": masked_excerpt(f.evidence, f.category)}) for f in verdict.findings]
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
    """
    answers = [masked_answer(a) for a in result.answers]
    if all(new is old for new, old in zip(answers, result.answers, strict=True)):
        return result
    return result.model_copy(update={"answers": answers})
