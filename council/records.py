"""The records one run's stages produce: answers, reviews, the ranking, the final answer and the cost.

Each is a pydantic model whose JSON form is part of the public record of a
run (:class:`council.result.CouncilResult` holds them). Member names
appear de-anonymized everywhere; the labels each reviewer saw are kept in
``ReviewRecord.labels`` for audit. Knows nothing of how a run makes them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from council.errors import ProviderError
from council.rubrics.score import RubricVerdict
from council.safety.gate import SafetyFinding, SafetyVerdict
from council.safety.moderation.outcome import ModerationCheck
from council.types import ReusedMark, Usage, is_falsy, is_none

AnswerStatus = Literal["ok", "failed", "blocked"]
FailureReason = Literal["timeout", "rate_limited", "auth", "upstream_error", "protocol", "deadline", "parse", "skipped",
                        "budget", "late", "invalid_output", "refused"]

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
    """One member's Stage 1 answer, or why there is none.

    After a second round (``review.rounds: 2``), ``content`` is the text the
    second round reviewed, ``revised`` says whether the member rewrote it,
    and ``usage`` and ``latency_ms`` stay those of the first answer's call
    (the revision's are in the result's ``deliberation.revisions``).
    """

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
    revised: bool = Field(default=False, exclude_if=is_falsy,
                          description="The member rewrote this answer in a second round, after the critiques.")


class DimensionScoresRecord(_Record):
    """One reviewer's scores for one answer; ``overall`` is recomputed by Council."""

    scores: dict[str, bool | int | float | str] = Field(description="The reviewer's value per criterion.")
    overall: float = Field(description="The rubric score, 0-1, recomputed by Council.")
    normalized: dict[str, float] = Field(default_factory=dict, description="Each criterion's score, 0-1.")
    reported_overall: float | None = Field(
        default=None, description="The reviewer's own overall score, kept for audit; for an answer its ballot "
                                  "scored holistically (ReviewRecord.holistic), the holistic score (0-10) that "
                                  "stood in for the criteria it left out.")
    notes: str = ""
    harmful: str | None = Field(
        default=None, exclude_if=is_none,
        description="The reviewer called the answer harmful help, in this category (safety.council_review).")
    addresses_reviewers: bool = Field(
        default=False, exclude_if=is_falsy,
        description="The reviewer found text in the answer aimed at the reviewers or the other members.")


PositionConsistency = Literal["held", "changed", "unknown"]


class OrderBallot(_Record):
    """One of a reviewer's two ballots under ``review.both_orders``: the order it saw and what it made of it."""

    order: list[str] = Field(description="Members in the order shown.")
    labels: dict[str, str] = Field(default_factory=dict, description="Label shown -> member.")
    status: Literal["ok", "failed"] = "ok"
    error: Failure | None = Field(default=None, exclude_if=is_none)
    ranking: list[str] = Field(default_factory=list, description="This ballot's ranking, members, best first.")
    overall: dict[str, float] = Field(default_factory=dict, description="This ballot's overall score per member.")
    top: list[str] = Field(default_factory=list, description="The members with this ballot's best overall score.")
    attempts: int = 0
    prompt_hash: str = ""
    response_hash: str = ""


class ReviewRecord(_Record, ReusedMark):
    """One reviewer's Stage 2 ballot, de-anonymized.

    Under ``review.both_orders`` it is the mean of the reviewer's two
    ballots (``order_ballots``): ``order`` and ``labels`` are the first
    order's, ``usage`` and ``attempts`` count both calls.
    """

    reviewer: str
    status: Literal["ok", "failed"] = "ok"
    error: Failure | None = None
    order: list[str] = Field(default_factory=list, description="Members in the order shown.")
    labels: dict[str, str] = Field(default_factory=dict, description="Label shown -> member.")
    ranking: list[str] = Field(default_factory=list, description="The reviewer's ranking, members, best first.")
    scores: dict[str, DimensionScoresRecord] = Field(default_factory=dict)
    holistic: dict[str, list[str]] = Field(
        default_factory=dict, exclude_if=is_falsy,
        description="The answers this ballot scored holistically (ADR-016's fallback), each with the rubric "
                    "criteria it left out; their overall stands on the holistic score. Empty: read as the rubric.")
    attempts: int = 0
    latency_ms: float = 0.0
    usage: Usage = Usage()
    model: str = ""
    prompt_hash: str = Field(default="", description="SHA-256 (16 hex) of the review prompt sent.")
    response_hash: str = Field(default="", description="SHA-256 (16 hex) of the reply the ballot came from.")
    order_ballots: list[OrderBallot] = Field(
        default_factory=list, exclude_if=is_falsy,
        description="With review.both_orders: the two ballots, first order then second; scores and ranking "
                    "above are their mean (or the one that stands, when the other call failed).")
    position_consistency: PositionConsistency | None = Field(
        default=None, exclude_if=is_none,
        description="With review.both_orders: held (the same top pick in both orders), changed, or unknown "
                    "(one of the two calls failed, and the other ballot stands alone).")


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


class LearnedWeightRecord(_Record):
    """A reviewer's learned weight as a run used it, and the evaluation runs it was learned from."""

    weight: float
    samples: int = Field(description="Ballots on samples that told a right answer from a wrong one.")
    accuracy: float | None = Field(description="Share of those ballots whose top pick was a best answer.")
    eval_runs: list[str] = Field(default_factory=list, description="The evaluation runs behind the weight.")
    reviewer_key: str = Field(description="member|provider|model: a changed model finds no learned weight.")


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
    learned: dict[str, LearnedWeightRecord] = Field(
        default_factory=dict, exclude_if=lambda learned: not learned,
        description="With review.weighting learned, when the learned weights ranked: each reviewer's weight and "
                    "what it was learned from.")
    weighting_note: str | None = Field(
        default=None, exclude_if=lambda note: note is None,
        description="Why the configured weighting was not the one used (learned weights missing for a reviewer, "
                    "such as a member whose model changed, or not readable).")


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


CostStage = Literal["answers", "safety", "reviews", "revisions", "chairman"]


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
