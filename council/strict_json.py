"""Strict JSON for untrusted model output and data files.

Python's ``json`` reads ``NaN`` and ``Infinity`` (not JSON, and poison for
scores), turns ``1e999`` into infinity, and keeps the last of two equal keys
(so a smuggled second ``"ranking"`` could hide behind the first). The decoder
here refuses all three, with a :class:`StrictJSONError` that says which; and
what Python's decoder cannot take at all (an integer past Python's digit
limit, nesting past its recursion limit) is a :class:`StrictJSONError` too,
never a crash.
"""

from __future__ import annotations

import json
import math
import sys
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


def _bounded_int(text: str) -> int:
    limit = sys.get_int_max_str_digits()
    digits = len(text.lstrip("-"))
    if limit and digits > limit:
        raise StrictJSONError(f"a number of {digits} digits; at most {limit} are read")
    return int(text)


DECODER = json.JSONDecoder(parse_float=_finite_float, parse_int=_bounded_int, parse_constant=reject_constant,
                           object_pairs_hook=_unique_keys)


def loads(text: str) -> Any:
    """Decode ``text`` strictly; ``json.JSONDecodeError`` or :class:`StrictJSONError` (both ValueError) if not."""
    try:
        return DECODER.decode(text)
    except RecursionError:
        raise StrictJSONError("arrays or objects nested too deeply to read") from None
