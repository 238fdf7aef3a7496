"""Rubrics as data: criteria, levels, score ranges, gates, and how they become one score.

A rubric is a YAML file (see ``config/rubrics/``). Its criteria take three forms:

* a plain string: a checklist item, satisfied (1) or not (0);
* a structured criterion with ``score_ranges``: analytic bands on the
  rubric's ``scale``; a score s maps linearly onto 0–1 as
  (s − min) / (max − min);
* a structured criterion with ``levels``: categories, each with a score in 0–1.

(A structured criterion with neither is a checklist item too.) Each criterion
is scored by ``llm`` (the council's reviewers), ``deterministic`` (a Python
function ``module:function``) or ``schema`` (JSON Schema validation of the
answer: a pass gives the top level, a fail the bottom one).

The weighted score is Σ(score × weight) / Σ(weight) over every criterion, in
0–1; a criterion without a score (a reviewer left it out) counts as 0, never
as absent. Then the gates: each ceiling caps the score when its criterion is
below a bound, and an answer that failed the safety gate is capped at
``gates.safety_cap``. The verdict passes when the score reaches
``pass_threshold`` and no ``required`` criterion fails. A reviewer's holistic
score (0–10, read as 0–1) stands in for the criteria its ballot left out. What failing means is
the rubric's ``required_rule``: ``pass`` (Council's) fails a required criterion
that does not pass (its normalized score is below its ``min_score``, on its own
terms, or below ``pass_threshold`` when it has none; a checklist item that is
not satisfied); ``nonzero`` (AgentV's) fails it only at score 0. A criterion
of weight 0 is informational: scored and reported, not counted.

Criterion ids are kept exactly as written (``bug-detection`` is not
``bug_detection``); they are ballot keys, so their alphabet is letters,
digits, spaces, ``_``, ``-`` and ``.``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import weakref
from collections.abc import Callable, Mapping
from typing import Any, Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

T = TypeVar("T")

CriterionValue = bool | int | float | str
_SEMVER = r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$"
RUBRIC_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
CRITERION_ID = r"^[A-Za-z0-9](?:[A-Za-z0-9 _.-]{0,62}[A-Za-z0-9_.-])?$"
LEVEL_ID = r"^[a-z][a-z0-9_]{0,47}$"
HASHED_WHEN_SET = {"required_rule": "pass", "range_keys": "bands", "schema_ref": None}
"""Fields added after rubrics were first hashed: in the content hash only when not at their default, so a
rubric registered before they existed keeps its hash (and its registry entry) unchanged."""
RESERVED_KEYS = frozenset({"overall", "notes"})
LLM_SCORED = frozenset({"llm", "llm_decode"})
"""Scorings a model does; in a council run the reviewers score both (``llm_decode`` by its levels)."""
_MEMO: dict[int, dict[str, Any]] = {}
HOLISTIC_MAX = 10
"""The top of a holistic score (a ballot's ``overall``, or the ``scores`` of a holistic ballot): 0 to 10."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy, as pydantic makes it; with ``update``, without the facts cached from the original's fields."""
        copied = super().model_copy(update=update, deep=deep)
        if update:
            # functools.cached_property keeps its values in the instance __dict__, which pydantic copies with the
            # fields: facts derived from the old fields would outlive them.
            for name in copied.__dict__.keys() - type(self).model_fields.keys():
                del copied.__dict__[name]
        return copied


def slug(text: str) -> str:
    """A criterion id made from a checklist sentence: ``"Explains the reasoning"`` → ``explains_the_reasoning``."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    ident = "_".join(words)[:48].rstrip("_") or "item"
    return ident if ident[0].isalpha() else f"c_{ident}"[:48]


class Level(_Strict):
    """One category of a levelled criterion."""

    id: str = Field(pattern=LEVEL_ID, description="Level id, what a reviewer answers.")
    label: str = Field(min_length=1, max_length=80, description="Short human name.")
    description: str = Field(default="", max_length=2000, description="What an answer at this level looks like.")
    score: float = Field(ge=0, le=1, allow_inf_nan=False, description="The level's score, 0 to 1.")
    indicators: list[str] = Field(default_factory=list, description="Observable signs of this level.")


class Criterion(_Strict):
    """One thing a rubric checks.

    What it derives from its fields (kind, levels by score, bands) is cached on
    first use: verdicts and ballots ask for it for every score of every answer.
    """

    id: str = Field(pattern=CRITERION_ID, description="Stable id, kept as written; the ballot key.")
    name: str | None = Field(default=None, max_length=120, description="Human name; the id if unset.")
    expected_outcome: str | None = Field(default=None, max_length=2000, description="What a good answer does.")
    description: str | None = Field(default=None, max_length=4000, description="More guidance for reviewers.")
    weight: float = Field(default=1.0, allow_inf_nan=False,
                          description="Relative (or fractional) weight; 0 makes the criterion informational.")
    required: bool = Field(default=False, description="A failure fails the verdict whatever the score.")
    min_score: float | None = Field(default=None, allow_inf_nan=False, description="Passing bound, own terms.")
    score_ranges: dict[str, str] | None = Field(default=None, description="Analytic bands on the scale.")
    levels: list[Level] | None = Field(default=None, description="Categories with scores 0 to 1.")
    scoring: Literal["llm", "llm_decode", "deterministic", "schema"] = Field(
        default="llm", description="Who scores it: reviewers (llm), one model classifying (llm_decode), or code.")
    function: str | None = Field(default=None, description="module:function for deterministic scoring.")
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema", description="For schema scoring.")
    schema_ref: str | None = Field(default=None, description="Where the schema came from (resolved at load).")
    decode_prompt: str | None = Field(default=None, max_length=20_000,
                                      description="llm_decode: a Jinja2 template rendered with the target.")
    decode_output_schema: dict[str, Any] | None = Field(default=None, description="llm_decode: the reply's shape.")

    @field_validator("score_ranges", mode="before")
    @classmethod
    def _keys_as_text(cls, value: Any) -> Any:
        # YAML gives 0: ... as an int key; bands are read as text so "3-4" and 3 mix.
        return {str(k): v for k, v in value.items()} if isinstance(value, dict) else value

    @functools.cached_property
    def kind(self) -> Literal["levels", "scored", "checklist"]:
        """How the criterion is scored: by level, on the scale, or satisfied or not."""
        if self.levels:
            return "levels"
        if self.score_ranges:
            return "scored"
        return "checklist"

    @functools.cached_property
    def levels_by_score(self) -> tuple[Level, ...]:
        """The levels from the lowest score to the highest (equal scores in rubric order); empty if none."""
        return tuple(sorted(self.levels or [], key=lambda level: level.score))

    @functools.cached_property
    def _level_scores(self) -> dict[str, float]:
        # A cached_property, not a pydantic private attribute: those are read through __getattr__, ~20x slower.
        return {level.id: level.score for level in self.levels or []}

    @functools.cached_property
    def _bands_by_scale(self) -> dict[tuple[int, int], tuple[tuple[int, int, str], ...]]:
        # Filled by council.rubrics.bands.bands(): one entry, as a criterion is read on its one rubric's scale.
        return {}

    @functools.cached_property
    def title(self) -> str:
        """The name shown to people."""
        return self.name or self.id.replace("_", " ").capitalize()

    @property
    def guidance(self) -> str:
        """The outcome and description, as reviewers read them."""
        return " ".join(t.strip() for t in (self.expected_outcome, self.description) if t and t.strip())


class Ceiling(_Strict):
    """Caps the overall score while a criterion is below a bound."""

    criterion: str = Field(description="The criterion checked.")
    below: float = Field(allow_inf_nan=False, description="On the criterion's own terms (scale or level score).")
    cap: float = Field(allow_inf_nan=False, description="The highest overall score then, on the rubric scale.")


class Gates(_Strict):
    """Caps applied after the weighted score."""

    ceilings: list[Ceiling] = Field(default_factory=list, description="E.g. the accuracy ceiling.")
    safety_cap: float = Field(
        default=0.0, ge=0, le=1, description="Score cap (0–1) for an answer the safety gate failed."
    )


class Scale(_Strict):
    """The integer scale of scored criteria."""

    min: int = Field(default=1, ge=0, le=100)
    max: int = Field(default=10, ge=1, le=100)


class Rubric(_Strict):
    """A complete rubric. Validate with :func:`council.rubrics.load.check_rubric` (the loader does).

    Lookups it derives from its criteria and gates are cached on first use,
    like its criteria's: every ballot and verdict asks for them.
    """

    id: str = Field(pattern=RUBRIC_ID, description="Stable identifier, recorded with every run.")
    name: str = Field(min_length=1, max_length=120, description="Human name.")
    version: str = Field(pattern=_SEMVER, description="Semantic version; bump it when scores would change.")
    description: str = Field(default="", max_length=4000, description="What the rubric is for.")
    target_type: str = Field(default="answer", max_length=40, description="What it judges: answer, code, document…")
    scale: Scale = Field(default_factory=Scale, description="Scale of scored criteria.")
    pass_threshold: float = Field(default=0.7, ge=0, le=1, description="Weighted score (0–1) needed to pass.")
    weight_mode: Literal["relative", "fractions"] = Field(default="relative", description="fractions: sum to 1.")
    required_rule: Literal["pass", "nonzero"] = Field(
        default="pass", description="When a required criterion fails the verdict: below its passing bound (pass), "
                                    "or only at score 0 (nonzero, AgentV's rule).")
    range_keys: Literal["bands", "anchors"] = Field(
        default="bands", description="score_ranges keys: bands covering the scale, or anchors (AgentV): described "
                                     "points, any subset of the scale.")
    gates: Gates = Field(default_factory=Gates, description="Ceilings and the safety cap.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Free-form, recorded as is.")
    criteria: list[Criterion] = Field(default_factory=list, max_length=64, description="What is checked.")

    @field_validator("criteria", mode="before")
    @classmethod
    def _checklist_strings(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"id": slug(item), "expected_outcome": item} if isinstance(item, str) else item for item in value]
        return value

    # -- cached facts ------------------------------------------------------
    @functools.cached_property
    def _by_id(self) -> dict[str, Criterion]:
        by_id: dict[str, Criterion] = {}
        for criterion in self.criteria:
            by_id.setdefault(criterion.id, criterion)  # the first of a repeated id, as a search in order finds
        return by_id

    @functools.cached_property
    def _llm_criteria(self) -> tuple[Criterion, ...]:
        return tuple(c for c in self.criteria if c.scoring in LLM_SCORED)

    @functools.cached_property
    def _total_weight(self) -> float:
        return sum(c.weight for c in self.criteria)

    @functools.cached_property
    def _ceilings(self) -> tuple[tuple[str, float, float], ...]:
        # (criterion id, bound in 0–1, cap in 0–1); a gate naming an unknown criterion raises KeyError, uncached.
        return tuple((ceiling.criterion, self.own_terms_to_unit(self.criterion(ceiling.criterion), ceiling.below),
                      self.to_unit(ceiling.cap)) for ceiling in self.gates.ceilings)

    # -- lookups -----------------------------------------------------------
    def criterion(self, criterion_id: str) -> Criterion:
        """The criterion with this id (``KeyError`` if none)."""
        return self._by_id[criterion_id]

    def llm_criteria(self) -> list[Criterion]:
        """The criteria the council's reviewers score."""
        return list(self._llm_criteria)

    def dimension_ids(self) -> list[str]:
        """Ids of the criteria reviewers score, in rubric order (the ballot keys)."""
        return [c.id for c in self._llm_criteria]

    def criterion_ids(self) -> list[str]:
        """Every criterion id, in rubric order."""
        return [c.id for c in self.criteria]

    # -- scoring -----------------------------------------------------------
    def to_unit(self, value: float) -> float:
        """A number on the scale mapped linearly onto 0–1."""
        low, high = self.scale.min, self.scale.max
        return min(1.0, max(0.0, (value - low) / (high - low))) if high > low else 0.0

    def normalize(self, criterion: Criterion, value: CriterionValue) -> float:
        """A criterion's value (level id, scale number or bool) as a score in 0–1; ``ValueError`` if invalid."""
        if criterion.levels:
            score = criterion._level_scores.get(value.strip().lower()) if isinstance(value, str) else None
            if score is not None:
                return score
            raise ValueError(f"{criterion.id} must be one of {', '.join(level.id for level in criterion.levels or [])}")
        if not criterion.score_ranges:
            if isinstance(value, bool):
                return 1.0 if value else 0.0
            raise ValueError(f"{criterion.id} must be true or false")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{criterion.id} must be a number from {self.scale.min} to {self.scale.max}")
        if not self.scale.min <= value <= self.scale.max:
            raise ValueError(f"{criterion.id} must be from {self.scale.min} to {self.scale.max}, got {value}")
        return self.to_unit(float(value))

    def own_terms_to_unit(self, criterion: Criterion, bound: float) -> float:
        """A bound written on the criterion's own terms (scale for scored, 0–1 otherwise) in 0–1."""
        return self.to_unit(bound) if criterion.kind == "scored" else float(bound)

    def passing_bound(self, criterion: Criterion) -> float:
        """The normalized score a criterion needs to pass."""
        if criterion.min_score is not None:
            return self.own_terms_to_unit(criterion, criterion.min_score)
        return 1.0 if criterion.kind == "checklist" else self.pass_threshold

    def weighted(self, normalized: Mapping[str, float]) -> float:
        """Σ(score × weight) / Σ(weight) over every criterion; a missing score counts as 0."""
        total = self._total_weight
        return sum(c.weight * normalized.get(c.id, 0.0) for c in self.criteria) / total if total > 0 else 0.0

    def gated(self, score: float, normalized: Mapping[str, float], safety_failed: bool = False,
              scored_only: bool = False) -> float:
        """``score`` after every ceiling and the safety cap.

        A criterion without a score counts as 0 for its ceilings, unless
        ``scored_only`` (a holistic score): then only scored criteria cap.
        """
        for criterion_id, bound, cap in self._ceilings:
            value = normalized.get(criterion_id)
            if value is None and scored_only:
                continue
            if (value or 0.0) < bound - 1e-9:
                score = min(score, cap)
        if safety_failed:
            score = min(score, self.gates.safety_cap)
        return score

    def overall(self, values: Mapping[str, CriterionValue], safety_failed: bool = False) -> float:
        """The rubric's score in 0–1 for one answer: normalize, weight, gate; rounded to 4 decimals.

        Values must be valid for their criteria (``ValueError`` otherwise);
        a criterion without a value counts as failed.
        """
        normalized = {c.id: self.normalize(c, values[c.id]) for c in self.criteria if c.id in values}
        unknown = [k for k in values if k not in normalized]
        if unknown:
            raise ValueError(f"unknown criteria: {', '.join(unknown)}")
        return round(self.unit_score(normalized, safety_failed), 4)

    def unit_score(self, normalized: Mapping[str, float], safety_failed: bool = False,
                   holistic: float | None = None) -> float:
        """The one overall-score formula: criterion scores in 0–1 weighted, then every ceiling and the safety cap.

        With ``holistic`` (a reviewer's holistic score in 0–1, see
        :func:`holistic_unit`), every reviewer-scored criterion without a
        score takes it in the weighted sum instead of counting 0, and only
        the criteria actually scored can trigger a ceiling. Unrounded;
        :meth:`overall` rounds it for records.
        """
        if holistic is None:
            return self.gated(self.weighted(normalized), normalized, safety_failed)
        filled = {**dict.fromkeys(self.dimension_ids(), holistic), **normalized}
        return self.gated(self.weighted(filled), normalized, safety_failed, scored_only=True)

    def memo(self, key: str, make: Callable[[], T]) -> T:
        """A value derived from this (frozen) rubric, computed once: rendered prompt text and the like.

        Kept outside the model, by object identity, so it never takes part in
        equality and never travels with a ``model_copy``.
        """
        memo = _MEMO.get(id(self))
        if memo is None:
            memo = _MEMO[id(self)] = {}
            weakref.finalize(self, _MEMO.pop, id(self), None)
        if key not in memo:
            memo[key] = make()
        value: T = memo[key]
        return value

    def content_hash(self) -> str:
        """A short SHA-256 of the rubric's canonical JSON, recorded for reproducibility."""
        return self.memo("content_hash", self._content_hash)

    def _content_hash(self) -> str:
        canonical = json.dumps(_without_unset_additions(self.model_dump(mode="json", by_alias=True)),
                               sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]

    @property
    def scale_min(self) -> int:
        """The lowest score of scored criteria."""
        return self.scale.min

    @property
    def scale_max(self) -> int:
        """The highest score of scored criteria."""
        return self.scale.max

    @property
    def dimensions(self) -> list[Criterion]:
        """The criteria reviewers score (the ballot's dimensions)."""
        return self.llm_criteria()

    @property
    def ref(self) -> str:
        """``id@version``."""
        return f"{self.id}@{self.version}"


def holistic_unit(value: float) -> float:
    """A reviewer's holistic score in 0–1: the review prompt asks for ``overall`` from 0 to 10, whatever the scale."""
    return min(1.0, max(0.0, value / HOLISTIC_MAX))


def _without_unset_additions(dumped: dict[str, Any]) -> dict[str, Any]:
    def strip(item: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in item.items() if not (k in HASHED_WHEN_SET and v == HASHED_WHEN_SET[k])}

    return {**strip(dumped), "criteria": [strip(c) for c in dumped.get("criteria", [])]}


__all__ = ["HOLISTIC_MAX", "Ceiling", "Criterion", "Gates", "Level", "Rubric", "Scale", "holistic_unit", "slug"]
