"""Rubrics as data: the dimensions reviewers score, their weights and anchors.

A rubric is a YAML file, either one of the shipped ones in ``config/rubrics/``
(referred to by name) or any file given by path. It is validated as strictly as
the council config: an unknown key, a non-positive weight, a duplicate
dimension, an anchor outside the scale or a ceiling on a dimension that does
not exist stops the program with the file and the key path.

The overall score of an answer is always computed here from its dimension
scores, never taken from a reviewer: a weighted mean, then every ceiling
applied (a ceiling caps the overall score when one dimension is too low, so
an eloquent but wrong answer cannot rank high).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from council.assets import config_dir
from council.config_errors import format_validation_error, read_yaml
from council.errors import ConfigError

# Dimension ids become JSON keys in ballots and appear in prompts, so they are
# kept to plain identifiers.
DimensionId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,31}$")]
# Keys every ballot evaluation may carry besides the scores.
RESERVED_KEYS = frozenset({"overall", "notes"})
_SEMVER = (
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
)
_RUBRIC_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Dimension(_Strict):
    """One scored aspect of an answer, such as accuracy."""

    id: DimensionId = Field(description="The key used in ballots, e.g. accuracy.")
    name: str = Field(min_length=1, max_length=80, description="Human name shown to reviewers.")
    weight: float = Field(gt=0, allow_inf_nan=False, description="Relative weight in the overall score.")
    description: str = Field(min_length=1, max_length=2000, description="What this dimension measures.")
    anchors: dict[int, str] = Field(min_length=1, description="Score -> what an answer at that level looks like.")


class Ceiling(_Strict):
    """A cap on the overall score: if ``dimension`` scores below ``below``, overall is at most ``cap``."""

    dimension: str = Field(description="The id of the dimension checked.")
    below: float = Field(allow_inf_nan=False, description="Scores strictly below this trigger the cap.")
    cap: float = Field(allow_inf_nan=False, description="The highest overall score allowed then.")


class Rubric(_Strict):
    """A complete scoring rubric: the scale, the dimensions and the ceilings."""

    id: str = Field(pattern=_RUBRIC_NAME, description="Stable identifier, recorded with every run.")
    name: str = Field(min_length=1, max_length=120, description="Human name.")
    version: str = Field(pattern=_SEMVER, description="Semantic version; bump it when scores would change.")
    description: str = Field(default="", max_length=4000, description="What the rubric is for.")
    scale_min: int = Field(default=1, ge=0, le=100, description="Lowest score a dimension can get.")
    scale_max: int = Field(default=10, ge=1, le=100, description="Highest score a dimension can get.")
    dimensions: list[Dimension] = Field(min_length=1, max_length=16, description="What reviewers score.")
    ceilings: list[Ceiling] = Field(default_factory=list, max_length=32, description="Caps on the overall score.")

    @model_validator(mode="after")
    def _check_consistency(self) -> Rubric:
        # Collected and reported together, each with its own key path, so one
        # run of the loader shows every problem in the file.
        problems: list[str] = []
        if self.scale_min >= self.scale_max:
            problems.append(f"scale_max: must be above scale_min ({self.scale_min}), got {self.scale_max}")
        ids = [d.id for d in self.dimensions]
        for index, dimension in enumerate(self.dimensions):
            if ids.index(dimension.id) != index:
                first = ids.index(dimension.id)
                problems.append(f"dimensions[{index}].id: {dimension.id!r} is already used by dimensions[{first}]")
            if dimension.id in RESERVED_KEYS:
                problems.append(f"dimensions[{index}].id: {dimension.id!r} is reserved for ballots; pick another id")
            for score in dimension.anchors:
                if not self.scale_min <= score <= self.scale_max:
                    problems.append(
                        f"dimensions[{index}].anchors.{score}: outside the scale {self.scale_min} to {self.scale_max}"
                    )
        for index, ceiling in enumerate(self.ceilings):
            if ceiling.dimension not in ids:
                problems.append(
                    f"ceilings[{index}].dimension: no dimension {ceiling.dimension!r}; dimensions are: {', '.join(ids)}"
                )
            if not self.scale_min <= ceiling.cap <= self.scale_max:
                problems.append(
                    f"ceilings[{index}].cap: outside the scale {self.scale_min} to {self.scale_max}, got {ceiling.cap}"
                )
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def dimension_ids(self) -> list[str]:
        """The dimension ids, in rubric order."""
        return [d.id for d in self.dimensions]

    def overall(self, scores: Mapping[str, int]) -> float:
        """The overall score: the weighted mean of ``scores``, then every ceiling, rounded to 2 decimals.

        ``scores`` must have exactly one number per dimension; ``ValueError``
        names the dimension that is missing or unknown.
        """
        ids = self.dimension_ids()
        missing = [d for d in ids if d not in scores]
        unknown = [k for k in scores if k not in ids]
        if missing or unknown:
            raise ValueError(f"scores must cover exactly {', '.join(ids)}; missing {missing}, unknown {unknown}")
        total_weight = sum(d.weight for d in self.dimensions)
        value = sum(d.weight * scores[d.id] for d in self.dimensions) / total_weight
        for ceiling in self.ceilings:
            if scores[ceiling.dimension] < ceiling.below:
                value = min(value, ceiling.cap)
        if not math.isfinite(value):
            raise ValueError("scores must be finite numbers")
        return round(value, 2)

    def content_hash(self) -> str:
        """A short SHA-256 of the rubric's canonical JSON, recorded for reproducibility."""
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def rubrics_dir() -> Path:
    """The folder of shipped rubrics."""
    return config_dir() / "rubrics"


def _looks_like_path(ref: str) -> bool:
    return "/" in ref or "\\" in ref or ref.endswith((".yaml", ".yml"))


def rubric_path(ref: str, relative_to: Path | None = None) -> Path:
    """The file a rubric reference points at: a shipped rubric's name, or a path.

    A relative path is taken from ``relative_to`` (the folder of the config
    file that names it), so a config works wherever it is run from.
    """
    if _looks_like_path(ref):
        path = Path(ref).expanduser()
        if not path.is_absolute() and relative_to is not None:
            path = relative_to / path
        return path
    return rubrics_dir() / f"{ref}.yaml"


def load_rubric(ref: str, relative_to: Path | None = None) -> Rubric:
    """Load and validate a rubric by name (``default``) or path.

    Raises :class:`ConfigError` naming the file, the key path and what was
    expected.
    """
    if not ref or (not _looks_like_path(ref) and re.fullmatch(_RUBRIC_NAME, ref) is None):
        raise ConfigError(
            "rubric", f"{ref!r} is neither a rubric name (letters, digits, _ . -) nor a path to a .yaml file"
        )
    path = rubric_path(ref, relative_to)
    if not _looks_like_path(ref) and not path.is_file():
        available = sorted(p.stem for p in rubrics_dir().glob("*.yaml"))
        raise ConfigError(
            str(path), f"no rubric named {ref!r} in {rubrics_dir()}; available: {', '.join(available) or 'none'}"
        )
    raw = read_yaml(path)
    try:
        return Rubric.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(str(path), format_validation_error(exc, Rubric)) from None

