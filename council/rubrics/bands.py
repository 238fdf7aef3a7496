"""Score-range keys read as bands on a rubric's scale: ``"7"`` starts a band at 7, ``"3-4"`` is the band 3 to 4.

A key with no end runs to the score before the next key (or the top of the
scale). What the bands must cover is the rubric's ``range_keys`` (checked by
:func:`council.rubrics.load.check_rubric`); this module only reads them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from council.rubrics.model import Criterion

_RANGE_KEY = re.compile(r"^\s*(-?\d+)\s*(?:-\s*(-?\d+)\s*)?$")


def parse_band(key: str) -> tuple[int, int | None] | None:
    """A score-range key: ``"7"`` is a band starting at 7, ``"3-4"`` the band 3 to 4."""
    match = _RANGE_KEY.match(key)
    if match is None:
        return None
    low, high = int(match.group(1)), match.group(2)
    return low, None if high is None else int(high)


def bands(criterion: Criterion, low: int, high: int) -> list[tuple[int, int, str]]:
    """The criterion's bands as (first, last, description), in order, over the scale ``low``..``high``."""
    # Parsed once per criterion and scale: verdicts, feedback and prompts ask for the same bands many times per run.
    known = criterion._bands_by_scale
    found = known.get((low, high))
    if found is None:
        found = known[low, high] = _parse_bands(criterion.score_ranges or {}, low, high)
    return list(found)


def _parse_bands(ranges: Mapping[str, str], low: int, high: int) -> tuple[tuple[int, int, str], ...]:
    parsed = sorted(((parse_band(k), text) for k, text in ranges.items()),
                    key=lambda item: item[0][0] if item[0] else 0)
    result: list[tuple[int, int, str]] = []
    for index, (band, text) in enumerate(parsed):
        if band is None:
            continue
        first, last = band
        if last is None:
            following = [b for b, _ in parsed[index + 1:] if b is not None]
            last = following[0][0] - 1 if following else high
        result.append((first, last, text))
    return tuple(result)
