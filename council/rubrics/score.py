"""Scoring criteria outside the LLM (deterministic functions, JSON Schema), verdicts and feedback.

A deterministic check is any function ``f(answer, *, question) -> value``,
where value is a level id, a number on the rubric scale or a bool, or a
``(value, evidence)`` pair, found by :func:`~council.rubrics.functions.resolve_function`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from council.rubrics.bands import bands
from council.rubrics.checks import answer_json
from council.rubrics.functions import resolve_function
from council.rubrics.model import Criterion, CriterionValue, Rubric
from council.safety.gate import SafetyVerdict
from council.types import Usage


class JudgeRecord(BaseModel):
    """Who scored an LLM criterion, and hashes of what it saw and said."""

    model_config = ConfigDict(extra="forbid")
    model: str
    prompt_hash: str
    response_hash: str
    usage: Usage = Usage()


class CriterionResult(BaseModel):
    """One criterion's outcome for one answer."""

    model_config = ConfigDict(extra="forbid")
    id: str
    name: str
    method: Literal["llm", "llm_decode", "deterministic", "schema"]
    value: CriterionValue | None = None
    score: float | None = None
    level: str | None = None
    passed: bool = False
    required: bool = False
    informational: bool = False
    evidence: str = ""
    notes: str = ""
    judged_by: list[int] = []


class SafetyCap(BaseModel):
    """Why a score was capped: the safety gate failed what the rubric scored (its first finding)."""

    model_config = ConfigDict(extra="forbid")
    category: str = Field(description="The gate's category, e.g. weapon_making or pii_exposure.")
    rule: str = Field(description="The rule (or classifier) that failed it.")
    checker: str = Field(default="patterns", description="Which gate decided: patterns, patterns+llm:NAME, ...")
    cap: float = Field(description="The rubric's gates.safety_cap (0-1): the highest score it could get.")

    @classmethod
    def of(cls, rubric: Rubric, safety: SafetyVerdict | None) -> SafetyCap | None:
        """The cap ``safety`` puts on a score under ``rubric``; None when the gate passed it or did not run."""
        if safety is None or safety.passed:
            return None
        first = safety.findings[0] if safety.findings else None
        return cls(category=first.category if first else "unsafe", rule=first.rule if first else "",
                   checker=safety.checker, cap=rubric.gates.safety_cap)

    def describe(self) -> str:
        """``weapon_making (rule weapon.explosive_device)``: what failed, in a few words."""
        return f"{self.category} (rule {self.rule})" if self.rule else self.category


class RubricVerdict(BaseModel):
    """Pass or fail against a rubric, with every criterion and the feedback."""

    model_config = ConfigDict(extra="forbid")
    rubric_id: str
    rubric_version: str
    passed: bool
    score: float
    threshold: float
    criteria: list[CriterionResult]
    failed_required: list[str] = []
    gates_applied: list[str] = []
    capped_by_safety: SafetyCap | None = Field(
        default=None, description="Set when the safety gate failed the answer: its score is capped at the "
                                  "rubric's safety_cap and it cannot pass.")
    holistic: list[str] = Field(
        default_factory=list, description="Criteria no reviewer scored, for which the reviewers' holistic "
                                          "score stood in (ADR-016's fallback).")
    judges: list[JudgeRecord] = []
    feedback: str = ""
    summary: str | None = None
    summary_by: str | None = None


def _coerce(criterion: Criterion, rubric: Rubric, value: Any) -> CriterionValue:
    if criterion.kind == "levels":
        if isinstance(value, str):
            return value.strip().lower()
        raise ValueError(f"returned {value!r}, not a level id")
    if criterion.kind == "checklist":
        if isinstance(value, bool):
            return value
        raise ValueError(f"returned {value!r}, not true or false")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    raise ValueError(f"returned {value!r}, not a number on the scale")


def _extremes(criterion: Criterion, rubric: Rubric) -> tuple[CriterionValue, CriterionValue]:
    """(bottom, top) values of a criterion."""
    if criterion.kind == "levels":
        levels = criterion.levels_by_score
        return levels[0].id, levels[-1].id
    if criterion.kind == "checklist":
        return False, True
    return rubric.scale.min, rubric.scale.max


def score_schema(criterion: Criterion, rubric: Rubric, answer: str) -> tuple[CriterionValue, str]:
    """Top level when the answer is JSON valid against the criterion's schema, else bottom with the errors."""
    import jsonschema

    bottom, top = _extremes(criterion, rubric)
    try:
        document = answer_json(answer)
    except (ValueError, RecursionError) as exc:
        return bottom, f"the answer is not JSON: {exc}"[:300]
    validator = jsonschema.validators.validator_for(criterion.json_schema)(criterion.json_schema)
    problems = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if not problems:
        return top, "valid against the schema"
    shown = "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in problems[:3])
    return bottom, f"{len(problems)} schema error(s): {shown}"[:500]


def score_deterministic(criterion: Criterion, rubric: Rubric, answer: str, question: str) -> tuple[CriterionValue, str]:
    """Run the criterion's function; a function that fails gives the bottom value, with the reason."""

    bottom, _ = _extremes(criterion, rubric)
    try:
        function = resolve_function(criterion.function or "")
        if rubric.metadata.get("format") == "dataknobs":
            # dataknobs' contract: the function gets the target itself (a JSON object) and returns a level id.
            outcome = function(answer_json(answer))
        else:
            outcome = function(answer, question=question)
        value, evidence = outcome if isinstance(outcome, tuple) else (outcome, "")
        value = _coerce(criterion, rubric, value)
        rubric.normalize(criterion, value)
    except Exception as exc:
        return bottom, f"{criterion.function} failed: {type(exc).__name__}: {exc}"[:300]
    return value, str(evidence)[:500]


def score_fixed(rubric: Rubric, answer: str, question: str) -> dict[str, tuple[CriterionValue, str]]:
    """Every non-LLM criterion's value and evidence for one answer."""
    fixed: dict[str, tuple[CriterionValue, str]] = {}
    for criterion in rubric.criteria:
        if criterion.scoring == "schema":
            fixed[criterion.id] = score_schema(criterion, rubric, answer)
        elif criterion.scoring == "deterministic":
            fixed[criterion.id] = score_deterministic(criterion, rubric, answer, question)
    return fixed


def level_of(criterion: Criterion, rubric: Rubric, score: float) -> tuple[str, int]:
    """A readable level for a normalized score, and its index among the criterion's steps."""
    if criterion.kind == "levels":
        levels = criterion.levels_by_score
        index = max((i for i, level in enumerate(levels) if level.score <= score + 1e-9), default=0)
        return levels[index].label, index
    if criterion.kind == "checklist":
        return ("satisfied", 1) if score >= 0.5 else ("not satisfied", 0)
    low, high = rubric.scale.min, rubric.scale.max
    value = low + score * (high - low)
    index = max((i for i, (first, _, _) in enumerate(bands(criterion, low, high)) if first <= round(value)), default=0)
    return f"{value:.1f}/{high}", index


def _suggestion(criterion: Criterion, rubric: Rubric, index: int) -> str | None:
    if criterion.kind == "levels":
        levels = criterion.levels_by_score
        if index + 1 < len(levels):
            nxt = levels[index + 1]
            return f"{criterion.title}: aim for {nxt.label}: {nxt.description or nxt.label}"
        return None
    if criterion.kind == "checklist":
        return f"{criterion.title}: aim for: {criterion.guidance}" if index == 0 else None
    spans = bands(criterion, rubric.scale.min, rubric.scale.max)
    if index + 1 < len(spans):
        first, last, text = spans[index + 1]
        band = str(first) if first == last or rubric.range_keys == "anchors" else f"{first}-{last}"
        return f"{criterion.title}: aim for {band}: {text}"
    return None


def required_failed(rubric: Rubric, criterion: Criterion, score: float | None, passed: bool) -> bool:
    """Whether a required criterion fails the verdict, by the rubric's ``required_rule``.

    ``pass``: it did not pass; ``nonzero`` (AgentV): it scored 0 (or was not scored at all).
    """
    if not criterion.required:
        return False
    if rubric.required_rule == "nonzero":
        return score is None or score <= 1e-9
    return not passed


def build_verdict(
    rubric: Rubric,
    normalized: Mapping[str, float],
    *,
    values: Mapping[str, CriterionValue] | None = None,
    evidence: Mapping[str, str] | None = None,
    notes: Mapping[str, str] | None = None,
    judges: list[JudgeRecord] | None = None,
    judged_by: Mapping[str, list[int]] | None = None,
    safety_failed: bool = False,
    safety: SafetyVerdict | None = None,
    holistic: float | None = None,
) -> RubricVerdict:
    """The verdict for one answer from its normalized criterion scores (missing ones count as failed).

    ``safety`` is the safety gate's verdict on the answer: when it failed,
    the score is capped at ``gates.safety_cap``, the verdict fails and
    ``capped_by_safety`` says why (``safety_failed`` caps without a reason).
    ``holistic`` (0–1) is the reviewers' holistic score: it stands in for
    each reviewer-scored criterion without a score (listed in ``holistic``).
    """
    values, evidence, notes, judged_by = values or {}, evidence or {}, notes or {}, judged_by or {}
    capped = SafetyCap.of(rubric, safety)
    safety_failed = safety_failed or capped is not None
    stand_in = [cid for cid in rubric.dimension_ids() if cid not in normalized] if holistic is not None else []
    scored = {**normalized, **dict.fromkeys(stand_in, holistic or 0.0)}
    raw = rubric.weighted(scored)
    # rubric.unit_score, without weighting twice; only scored criteria reach a ceiling
    ceiled = rubric.gated(raw, normalized, scored_only=bool(stand_in))
    score = rubric.gated(raw, normalized, safety_failed, scored_only=bool(stand_in))
    gates = ["ceiling"] if ceiled < raw - 1e-9 else []
    if safety_failed:
        gates.append("safety cap")  # said even when the score was already below the cap: it could not pass
    results, failed_required = [], []
    steps: dict[str, tuple[str, int]] = {}
    for criterion in rubric.criteria:
        value = scored.get(criterion.id)
        passed = value is not None and value >= rubric.passing_bound(criterion) - 1e-9
        found = level_of(criterion, rubric, value) if value is not None else None
        level = found[0] if found else None
        if found:
            steps[criterion.id] = found
        note = notes.get(criterion.id, "") or ("" if value is not None else "not scored: counts as failed")
        if criterion.id in stand_in:
            note = "no reviewer scored it: the reviewers' holistic score stands in"
        if criterion.weight == 0:
            note = "; ".join(filter(None, [note, "weight 0: informational, not counted in the overall score"]))
        # model_construct: every value here is computed by Council itself, so validation would only cost time.
        results.append(CriterionResult.model_construct(
            id=criterion.id, name=criterion.title, method=criterion.scoring, value=values.get(criterion.id),
            score=None if value is None else round(value, 4), level=level, passed=passed,
            required=criterion.required, informational=criterion.weight == 0,
            evidence=evidence.get(criterion.id, ""), notes=note,
            judged_by=judged_by.get(criterion.id, []),
        ))
        if required_failed(rubric, criterion, value, passed):
            failed_required.append(criterion.id)
    passed = score >= rubric.pass_threshold - 1e-9 and not failed_required and not safety_failed
    verdict = RubricVerdict.model_construct(rubric_id=rubric.id, rubric_version=rubric.version, passed=passed,
                            score=round(score, 4),
                            threshold=rubric.pass_threshold, criteria=results, failed_required=failed_required,
                            gates_applied=gates, capped_by_safety=capped, holistic=stand_in,
                            judges=list(judges or []), feedback="", summary=None, summary_by=None)
    verdict.feedback = feedback_text(rubric, verdict, scored, steps)
    return verdict


def feedback_text(rubric: Rubric, verdict: RubricVerdict, normalized: Mapping[str, float],
                  steps: Mapping[str, tuple[str, int]] | None = None) -> str:
    """"PASSED/FAILED, overall N%", each criterion with its level and score, then suggestions."""
    head = f"{'PASSED' if verdict.passed else 'FAILED'}, overall {verdict.score * 100:.0f}%"
    if verdict.failed_required:
        head += f" (required criteria failed: {', '.join(verdict.failed_required)})"
    if verdict.capped_by_safety is not None:
        cap = verdict.capped_by_safety
        head += f" (blocked by the safety gate: {cap.describe()}; capped at {cap.cap * 100:.0f}%)"
    if verdict.gates_applied and (verdict.capped_by_safety is None or verdict.gates_applied != ["safety cap"]):
        head += f" (capped by {', '.join(verdict.gates_applied)})"
    lines = [head]
    suggestions = []
    steps = steps or {}
    for criterion, result in zip(rubric.criteria, verdict.criteria, strict=True):
        if result.score is None:
            lines.append(f"- {criterion.title}: not scored (counts as failed)")
            suggestions.append(f"{criterion.title}: make sure it can be assessed")
            continue
        label, index = steps.get(criterion.id) or level_of(criterion, rubric, normalized[criterion.id])
        mark = ("pass" if result.passed else "FAIL") + ("; informational, weight 0" if result.informational else "")
        mark += "; the reviewers' holistic score" if criterion.id in verdict.holistic else ""
        lines.append(f"- {criterion.title}: {label} ({result.score * 100:.0f}%, {mark})")
        suggestion = _suggestion(criterion, rubric, index)
        if suggestion is not None and (not result.passed or result.score < 1):
            suggestions.append(suggestion)
    if suggestions:
        lines.append("Suggestions:")
        lines += [f"- {s}" for s in suggestions]
    return "\n".join(lines)
