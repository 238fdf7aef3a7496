"""What evaluating a structured target produces: per-criterion levels, the weighted score, the verdict, feedback.

The record of :func:`council.pipeline.targets.evaluate_target`, in the
fields dataknobs documents for an evaluation, and the deterministic summary
in its layout. Data only: the storage package keeps these records.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from council.rubrics.model import Rubric
from council.rubrics.score import JudgeRecord, SafetyCap

ERROR_LEVEL = "error"
"""The level of a criterion whose scoring failed (a function raised, a template was refused)."""
UNABLE_LEVEL = "unable_to_evaluate"
"""The level of an llm_decode criterion whose reply named no valid level, or that had no model."""


class LLMInvocation(JudgeRecord):
    """One model call made to score a criterion: a judge's record, with when it was made."""

    timestamp: datetime


class TargetCriterionResult(BaseModel):
    """One criterion's level for the target, with what supports it."""

    model_config = ConfigDict(extra="forbid")
    criterion_id: str
    level_id: str
    score: float
    evidence: list[str] = Field(default_factory=list)
    notes: str = ""
    scoring_method_used: Literal["deterministic", "schema", "llm_decode"]
    llm_invocation: LLMInvocation | None = None


class TargetEvaluation(BaseModel):
    """A structured target's evaluation against one rubric."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(default_factory=lambda: f"eval_{uuid.uuid4().hex[:16]}")
    rubric_id: str
    rubric_version: str
    target_id: str = ""
    target_type: str = ""
    criterion_results: list[TargetCriterionResult] = Field(default_factory=list)
    weighted_score: float = 0.0
    passed: bool = False
    capped_by_safety: SafetyCap | None = Field(
        default=None, description="Set when the safety gate failed the target: capped at the rubric's "
                                  "safety_cap, and it cannot pass.")
    feedback_summary: str = ""
    evaluated_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    evaluated_by: str = "council"


def deterministic_summary(rubric: Rubric, evaluation: TargetEvaluation) -> str:
    """The summary in dataknobs' layout: the outcome, the score, a line per criterion, then suggestions."""
    lines = [f"Evaluation {'PASSED' if evaluation.passed else 'FAILED'} for rubric '{rubric.name}'.",
             f"Overall score: {evaluation.weighted_score * 100:.0f}%"]
    if evaluation.capped_by_safety is not None:
        cap = evaluation.capped_by_safety
        lines.append(f"Blocked by the safety gate: {cap.describe()}; the score is capped at {cap.cap * 100:.0f}%.")
    suggestions = []
    for result in evaluation.criterion_results:
        criterion = rubric.criterion(result.criterion_id)
        lines.append(f"- {criterion.title}: {result.level_id} (score: {result.score:.2f})")
        ordered = sorted(criterion.levels or [], key=lambda level: level.score)
        higher = [level for level in ordered if level.score > result.score + 1e-9]
        if higher:
            aim = f"- {criterion.title}: aim for '{higher[0].label}'"
            suggestions.append(f"{aim} — {higher[0].description}" if higher[0].description else aim)
    if suggestions:
        lines += ["", "Suggestions for improvement:", *suggestions]
    return "\n".join(lines)
