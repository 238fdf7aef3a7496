"""The shipped rubrics' bands and ceilings agree: two scores in one band of a gated criterion get the same cap.

ADR-016 ties its accuracy ceilings (below 5, below 7) to its anchor bands;
a band that straddles a ceiling would tell a reviewer that 4 and 5 mean the
same while the score caps them differently.
"""

from __future__ import annotations

import pytest

from council.assets import config_dir
from council.rubrics import load_rubric

SHIPPED = sorted(path.stem for path in (config_dir() / "rubrics").glob("*.yaml"))


def band_scores(key: str) -> list[int]:
    low, _, high = key.partition("-")
    return list(range(int(low), int(high or low) + 1))


def cap_for(rubric, criterion: str, score: int) -> float | None:
    """The tightest cap the ceilings put on the overall score at this criterion score (None: uncapped)."""
    caps = [c.cap for c in rubric.gates.ceilings if c.criterion == criterion and score < c.below]
    return min(caps) if caps else None


@pytest.mark.parametrize("name", SHIPPED)
def test_no_band_of_a_gated_criterion_straddles_a_ceiling(name):
    rubric = load_rubric(name, quiet=True)
    gated = {c.criterion for c in rubric.gates.ceilings}
    for criterion in rubric.criteria:
        if criterion.id not in gated or not criterion.score_ranges:
            continue
        for band in criterion.score_ranges:
            caps = {cap_for(rubric, criterion.id, score) for score in band_scores(band)}
            assert len(caps) == 1, f"{name}: {criterion.id} band {band} gets caps {sorted(map(str, caps))}"


def test_the_default_rubric_has_the_five_two_point_bands_of_adr_016():
    rubric = load_rubric("default", quiet=True)
    for criterion in rubric.criteria:
        assert list(criterion.score_ranges or {}) == ["1-2", "3-4", "5-6", "7-8", "9-10"], criterion.id
    assert [(c.criterion, c.below, c.cap) for c in rubric.gates.ceilings] == [("accuracy", 5, 4.0),
                                                                               ("accuracy", 7, 7.0)]
