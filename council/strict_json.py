"""Strict JSON for untrusted model output and data files.

Python's ``json`` reads ``NaN`` and ``Infinity`` (not JSON, and poison for
scores), turns ``1e999`` into infinity, and keeps the last of two equal keys
(so a smuggled second ``"ranking"`` could hide behind the first). The decoder
here refuses all three, with a :class:`StrictJSONError` that says which.
"""

from __future__ import annotations

import json
import math
from typing import Any


class StrictJSONError(ValueError):
    """Valid for Python's ``json`` but not for us; the message names the problem."""


def reject_constant(name: str) -> Any:
    """``parse_constant`` hook: NaN, Infinity and -Infinity are refused."""
    raise StrictJSONError(f"{name} is not valid JSON: numbers must be finite")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise StrictJSONError(f"{text} is not a finite number")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            shown = repr(key)
            raise StrictJSONError(
                f"key {shown if len(shown) <= 40 else shown[:37] + '...'} appears twice in one object"
            )
        result[key] = value
    return result


DECODER = json.JSONDecoder(parse_float=_finite_float, parse_constant=reject_constant, object_pairs_hook=_unique_keys)


def loads(text: str) -> Any:
    """Decode ``text`` strictly; ``json.JSONDecodeError`` or :class:`StrictJSONError` (both ValueError) if not."""
    return DECODER.decode(text)
