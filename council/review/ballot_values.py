"""Reading the values of a ballot: labels and keys, whole-number scores, holistic scores, and showing them in errors.

Helpers of :mod:`council.review.ballot`; each takes a decoded JSON value
and never raises. Labels and keys match ignoring case and spacing.
"""

from __future__ import annotations

import json
import math
from typing import Any

from council.rubrics.model import HOLISTIC_MAX

MAX_PROBLEMS = 5
"""The problems an error message names before it says how many more there are."""


def show_value(value: Any) -> str:
    """A short, safe rendering of a value for an error message."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def normalize_name(name: str) -> str:
    """A label or key as ballots are matched: spacing collapsed, case folded."""
    return " ".join(name.split()).casefold()


def name_key(name: str, spelled: dict[str, str]) -> str:
    """``normalize_name(name)``, looked up first in ``spelled``: ballots mostly spell names as the prompt did."""
    normalized = spelled.get(name)
    return normalize_name(name) if normalized is None else normalized


def whole_score(value: Any, low: int, high: int) -> int | None:
    """A whole number from ``low`` to ``high`` (``7.0`` is read as 7), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and low <= value <= high:
        return value
    return None


def holistic_value(value: Any) -> float | None:
    """A holistic score: a finite number from 0 to 10 (``overall``, or an entry of ``"scores"``), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value) if 0 <= value <= HOLISTIC_MAX else None


def read_holistic_scores(
    value: dict[str, Any], canonical: dict[str, str], spelled: dict[str, str], labels: list[str]
) -> tuple[dict[str, float], list[str]]:
    """The top-level ``"scores"`` object of a holistic ballot: each label's score, and what is wrong with it."""
    raw, problems, scores = value.get("scores"), [], {}
    if raw is None:
        return {}, []
    if not isinstance(raw, dict):
        return {}, [f"scores must be an object with a holistic score per label, got {show_value(raw)}"]
    for key in list(raw)[: len(labels) + MAX_PROBLEMS]:
        label = canonical.get(name_key(key, spelled))
        number = holistic_value(raw[key])
        if label is None:
            problems.append(f"scores has an unknown label {show_value(key)}")
        elif label in scores:
            problems.append(f"scores lists {label} more than once")
        elif number is None:
            problems.append(f"scores.{label} must be a number from 0 to {HOLISTIC_MAX}, got {show_value(raw[key])}")
        else:
            scores[label] = number
    return scores, problems
