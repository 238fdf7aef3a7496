"""The meta-rubric: a rubric whose target is another rubric's structure (dataknobs' meta-rubric).

Five checks, each a criterion with levels: coverage (pass / fail),
independence (pass / partial / fail: repeated names or descriptions),
weight distribution (pass / fail: fractions summing to 1, or relative
weights, which Council normalizes), threshold reasonableness (pass /
too_high / too_low) and level ordering (pass / fail). Each weighs 0.2 and
the meta-rubric passes at 0.7, so it is scored like any rubric:
:func:`meta_score` gives the checks, the weighted score and whether the
rubric is structurally valid. The loader's hard errors
(:func:`council.rubrics.load.check_rubric`) still stop a rubric that fails
the severe ones before use; ``council rubric check --meta`` scores them instead.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from council.rubrics.model import Rubric

_LEVELS = {  # each check's levels, lowest score first
    "coverage": (("fail", 0.0), ("pass", 1.0)),
    "independence": (("fail", 0.0), ("partial", 0.5), ("pass", 1.0)),
    "weight_distribution": (("fail", 0.0), ("pass", 1.0)),
    "threshold_reasonableness": (("too_high", 0.0), ("too_low", 0.0), ("pass", 1.0)),
    "level_ordering": (("fail", 0.0), ("pass", 1.0)),
}
_PURPOSE = {
    "coverage": "At least one criterion exists.",
    "independence": "No two criteria share a name or a description.",
    "weight_distribution": "Fractional weights sum to 1 ± 0.01; relative weights are positive in total.",
    "threshold_reasonableness": "The pass threshold is reachable and not reached by the worst answer.",
    "level_ordering": "Each criterion's levels rise in score, lowest first.",
}


@dataclass(frozen=True)
class MetaCheck:
    """One quality check: its name, the level reached, and why."""

    name: str
    level: str
    detail: str


def score_range(rubric: Rubric) -> tuple[float, float]:
    """The worst and the best overall score any answer can get under ``rubric``."""
    def extreme(best: bool) -> float:
        values = {}
        for criterion in rubric.criteria:
            if criterion.kind == "levels":
                scores = [level.score for level in criterion.levels or []]
                values[criterion.id] = max(scores) if best else min(scores)
            else:
                values[criterion.id] = 1.0 if best else 0.0
        return rubric.unit_score(values)

    return extreme(False), extreme(True)


def meta_checks(rubric: Rubric) -> list[MetaCheck]:
    """The five checks for ``rubric``, in order."""
    checks = [MetaCheck("coverage", "pass" if rubric.criteria else "fail", f"{len(rubric.criteria)} criteria")]
    names = [c.title.strip().lower() for c in rubric.criteria]
    texts = [c.guidance.strip().lower() for c in rubric.criteria if c.guidance.strip()]
    repeated = [what for what, items in (("names", names), ("descriptions", texts)) if len(set(items)) < len(items)]
    checks.append(MetaCheck("independence", ("pass", "partial", "fail")[len(repeated)],
                            f"repeated {' and '.join(repeated)}" if repeated else "no repeated names or descriptions"))
    total = sum(c.weight for c in rubric.criteria)
    fractions = rubric.weight_mode == "fractions" or rubric.metadata.get("format") == "dataknobs"
    if fractions:
        level = "pass" if abs(total - 1.0) <= 0.01 else "fail"
        checks.append(MetaCheck("weight_distribution", level, f"weights sum to {total:.3f} (1 ± 0.01 expected)"))
    else:
        checks.append(MetaCheck("weight_distribution", "pass" if total > 0 else "fail",
                                f"relative weights summing to {total:g}, normalized when scoring"))
    worst, best = score_range(rubric) if rubric.criteria else (0.0, 0.0)
    threshold = rubric.pass_threshold
    level = "too_high" if best < threshold else "too_low" if threshold <= worst else "pass"
    checks.append(MetaCheck("threshold_reasonableness", level,
                            f"pass threshold {threshold:g}; scores run from {worst:.3f} to {best:.3f}"))
    unordered = [c.id for c in rubric.criteria if c.levels and
                 any(b.score < a.score for a, b in zip(c.levels, c.levels[1:], strict=False))]
    checks.append(MetaCheck("level_ordering", "fail" if unordered else "pass",
                            f"not ordered by score: {', '.join(unordered)}" if unordered
                            else "every criterion's levels rise in score"))
    return checks


@dataclass(frozen=True)
class MetaScore:
    """A rubric scored by the meta-rubric: each check, the weighted score, and whether it is structurally valid."""

    checks: list[MetaCheck]
    score: float
    threshold: float
    passed: bool


@functools.cache
def meta_rubric() -> Rubric:
    """The meta-rubric as a rubric: five deterministic checks of a rubric's structure, 0.2 each, passing at 0.7."""
    return Rubric.model_validate({
        "id": "council-meta-rubric", "name": "Rubric structure", "version": "1.0.0", "target_type": "rubric",
        "description": "Scores another rubric's structure: what dataknobs' meta-rubric checks.",
        "pass_threshold": 0.7, "weight_mode": "fractions",
        "criteria": [{"id": name, "name": name.replace("_", " ").capitalize(), "description": _PURPOSE[name],
                      "weight": 0.2, "scoring": "deterministic", "function": f"council.rubrics.meta:check_{name}",
                      "levels": [{"id": level, "label": level.replace("_", " "), "score": score}
                                 for level, score in levels]}
                     for name, levels in _LEVELS.items()]})


def meta_score(rubric: Rubric) -> MetaScore:
    """``rubric`` scored by :func:`meta_rubric`: checks, score (0–1) and whether it reaches 0.7."""
    meta = meta_rubric()
    checks = meta_checks(rubric)
    scores = {check.name: dict(_LEVELS[check.name])[check.level] for check in checks}
    score = round(meta.unit_score(scores), 4)
    return MetaScore(checks, score, meta.pass_threshold, score >= meta.pass_threshold - 1e-9)


def _level_of(target: dict[str, Any], name: str) -> str:
    return next(c.level for c in meta_checks(Rubric.model_validate(target)) if c.name == name)


# The meta-rubric's functions in dataknobs' contract: the target (a rubric as a dict) in, a level id out.
def check_coverage(target: dict[str, Any]) -> str:
    """The coverage level of the rubric ``target``."""
    return _level_of(target, "coverage")


def check_independence(target: dict[str, Any]) -> str:
    """The independence level of the rubric ``target``."""
    return _level_of(target, "independence")


def check_weight_distribution(target: dict[str, Any]) -> str:
    """The weight distribution level of the rubric ``target``."""
    return _level_of(target, "weight_distribution")


def check_threshold_reasonableness(target: dict[str, Any]) -> str:
    """The threshold reasonableness level of the rubric ``target``."""
    return _level_of(target, "threshold_reasonableness")


def check_level_ordering(target: dict[str, Any]) -> str:
    """The level ordering level of the rubric ``target``."""
    return _level_of(target, "level_ordering")
