"""The meta-rubric's five quality checks, reported one by one with a level (dataknobs' meta-rubric).

coverage (pass / fail), independence (pass / partial / fail: repeated names
or descriptions), weight distribution (pass / fail: fractions summing to 1,
or relative weights, which Council normalizes), threshold reasonableness
(pass / too_high / too_low) and level ordering (pass / fail). The loader's
hard errors (:func:`council.rubrics.load.check_rubric`) stop a rubric that
fails the severe ones; this report says how a rubric stands on each.
"""

from __future__ import annotations

from dataclasses import dataclass

from council.rubrics.model import Rubric


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
