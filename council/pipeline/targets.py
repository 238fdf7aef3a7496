"""Evaluating a structured target (a JSON object) against a rubric, as dataknobs' executor does.

Each criterion gives the target a level: a deterministic function returns a
level id for the dict, a JSON Schema passes (the highest level) or fails (the
lowest, with the validation errors as evidence), and ``llm_decode`` asks one
model to classify it (see :mod:`council.rubrics.decode`), recording the call.
A criterion whose scoring fails gets the level ``error`` (score 0, the reason
in ``notes``); a decode reply naming no valid level gets
``unable_to_evaluate``. Neither raises. The weighted score is Council's one
formula; the summary follows dataknobs' layout, rewritten in 3–5 sentences by
a summarizing model when one is given (the deterministic one stays if it fails).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from council.errors import ProviderError
from council.logs import get_logger
from council.providers import Provider
from council.rubrics.decode import DecodeRefusedError, decode_messages, read_level
from council.rubrics.functions import resolve_function
from council.rubrics.model import Criterion, Rubric
from council.rubrics.score import SafetyCap
from council.rubrics.target_evaluation import (
    ERROR_LEVEL,
    UNABLE_LEVEL,
    LLMInvocation,
    TargetCriterionResult,
    TargetEvaluation,
    deterministic_summary,
)
from council.safety.gate import SafetyVerdict, check_answer
from council.types import ChatMessage

_log = get_logger("targets")


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _level_score(criterion: Criterion, level_id: str) -> float | None:
    return next((level.score for level in criterion.levels or [] if level.id == level_id), None)


def _extreme_levels(criterion: Criterion) -> tuple[str, str]:
    ordered = sorted(criterion.levels or [], key=lambda level: level.score)
    return ordered[0].id, ordered[-1].id


def _failed(criterion: Criterion, method: Any, reason: str, level: str = ERROR_LEVEL) -> TargetCriterionResult:
    return TargetCriterionResult(criterion_id=criterion.id, level_id=level, score=0.0, notes=reason[:500],
                                 scoring_method_used=method)


def _deterministic(criterion: Criterion, target: Mapping[str, Any]) -> TargetCriterionResult:
    try:
        outcome = resolve_function(criterion.function or "")(dict(target))
        level_id, evidence = outcome if isinstance(outcome, tuple) else (outcome, "")
    except Exception as error:
        return _failed(criterion, "deterministic", f"{criterion.function} failed: {type(error).__name__}: {error}")
    score = _level_score(criterion, str(level_id))
    if score is None:
        return _failed(criterion, "deterministic", f"{criterion.function} returned {level_id!r}, not a level id")
    return TargetCriterionResult(criterion_id=criterion.id, level_id=str(level_id), score=score,
                                 evidence=[str(evidence)] if evidence else [], scoring_method_used="deterministic")


def _schema(criterion: Criterion, target: Mapping[str, Any]) -> TargetCriterionResult:
    import jsonschema

    lowest, highest = _extreme_levels(criterion)
    validator = jsonschema.validators.validator_for(criterion.json_schema)(criterion.json_schema)
    errors = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"[:300]
              for e in validator.iter_errors(dict(target))]
    level = lowest if errors else highest
    return TargetCriterionResult(criterion_id=criterion.id, level_id=level, score=_level_score(criterion, level) or 0.0,
                                 evidence=errors[:10] or ["valid against the schema"], scoring_method_used="schema")


async def _decode(criterion: Criterion, target: Mapping[str, Any], decoder: Provider | None) -> TargetCriterionResult:
    if decoder is None:
        return _failed(criterion, "llm_decode", "no model to decode with (configure members or a chairman)",
                       UNABLE_LEVEL)
    try:
        messages = decode_messages(criterion, dict(target))
    except DecodeRefusedError as refused:
        return _failed(criterion, "llm_decode", f"the decode prompt was refused: {refused}")
    try:
        completion = await decoder.complete(messages)
    except ProviderError as error:
        return _failed(criterion, "llm_decode", f"{decoder.member.name} failed ({error.reason}): {error}",
                       UNABLE_LEVEL)
    invocation = LLMInvocation(model=completion.model_version or decoder.member.model,
                               prompt_hash=_hash("\n".join(f"{m.role}: {m.content}" for m in messages)),
                               response_hash=_hash(completion.content), timestamp=datetime.now(UTC),
                               usage=completion.usage)
    reading = read_level(completion.content, criterion)
    if reading.level_id is None:
        # A reply checked against decode_output_schema says why the schema refused it; others named no level.
        why = (f"the reply was refused: {reading.how}" if reading.how.startswith(("does not match", "matches"))
               else f"the reply named no valid level ({reading.how})")
        result = _failed(criterion, "llm_decode", f"{why}: {completion.content[:200]!r}", UNABLE_LEVEL)
        return result.model_copy(update={"llm_invocation": invocation})
    return TargetCriterionResult(criterion_id=criterion.id, level_id=reading.level_id,
                                 score=_level_score(criterion, reading.level_id) or 0.0,
                                 notes=f"read from the reply's {reading.how}", scoring_method_used="llm_decode",
                                 llm_invocation=invocation)


async def _llm_summary(summarizer: Provider, text: str) -> str | None:
    messages = [ChatMessage(role="system", content="You turn a rubric evaluation into 3 to 5 plain sentences of "
                                                   "actionable feedback. Use only what the evaluation says."),
                ChatMessage(role="user", content=text)]
    try:
        completion = await summarizer.complete(messages)
    except ProviderError as error:
        _log.warning("summary_failed", member=summarizer.member.name, error=error)
        return None
    return completion.content.strip() or None


def target_text(target: Mapping[str, Any]) -> str:
    """The target as the safety gate reads it: each string or number after its path, a paragraph each.

    A multi-line string stays one paragraph (a list of steps is judged as
    one passage); keys are kept so a value is read with its label (``ssn: …``).
    """
    lines: list[str] = []
    stack: list[tuple[str, Any]] = [("", target)]
    while stack:  # not recursive: a deeply nested target must not overflow the stack
        path, value = stack.pop()
        if isinstance(value, Mapping):
            stack += reversed([(f"{path}.{key}" if path else str(key), item) for key, item in value.items()])
        elif isinstance(value, list):
            stack += reversed([(f"{path}[{index}]", item) for index, item in enumerate(value)])
        elif isinstance(value, str) or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            lines.append(f"{path}: {value}" if path else str(value))
    return "\n\n".join(lines)


async def evaluate_target(rubric: Rubric, target: Mapping[str, Any], *, target_id: str = "", target_type: str = "",
                          decoder: Provider | None = None, summarizer: Provider | None = None,
                          evaluated_by: str = "council",
                          safety: SafetyVerdict | Literal["patterns", "off"] = "patterns") -> TargetEvaluation:
    """Evaluate ``target`` against ``rubric``: every criterion's level, the weighted score, pass or fail, feedback.

    ``decoder`` answers ``llm_decode`` criteria (and Council's own ``llm``
    criteria, classified by their levels); ``summarizer`` rewrites the
    feedback, falling back to the deterministic summary. ``safety`` is the
    safety gate's verdict on the target (:func:`target_text`); by default
    the gate's patterns are run here, ``"off"`` skips the gate. A target the
    gate fails is capped at the rubric's ``safety_cap`` and cannot pass.
    """
    verdict = check_answer(target_text(target)) if safety == "patterns" else None if safety == "off" else safety
    capped = SafetyCap.of(rubric, verdict if isinstance(verdict, SafetyVerdict) else None)
    results = []
    for criterion in rubric.criteria:
        if criterion.scoring == "deterministic":
            results.append(_deterministic(criterion, target))
        elif criterion.scoring == "schema":
            results.append(_schema(criterion, target))
        elif criterion.levels:
            results.append(await _decode(criterion, target, decoder))
        else:
            results.append(_failed(criterion, "llm_decode", "a criterion without levels cannot be decoded; "
                                                            "judge answers with `council rubric evaluate` instead",
                                   UNABLE_LEVEL))
    weighted = rubric.unit_score({r.criterion_id: r.score for r in results}, safety_failed=capped is not None)
    evaluation = TargetEvaluation(rubric_id=rubric.id, rubric_version=rubric.version, target_id=target_id,
                                  target_type=target_type or rubric.target_type, criterion_results=results,
                                  weighted_score=round(weighted, 4),
                                  passed=weighted >= rubric.pass_threshold - 1e-9 and capped is None,
                                  capped_by_safety=capped, evaluated_by=evaluated_by)
    summary = deterministic_summary(rubric, evaluation)
    if summarizer is not None:
        rewritten = await _llm_summary(summarizer, summary)
        if rewritten and capped is not None:
            rewritten = f"Blocked by the safety gate: {capped.describe()}.\n{rewritten}"  # never lost in a rewrite
        summary = rewritten or summary
    return evaluation.model_copy(update={"feedback_summary": summary})
