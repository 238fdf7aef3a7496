"""A score sheet as plain floats: column means over what was scored, non-finite values as missing."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from council.ranking.grid import as_grid, column_means, columns, finite, nan_to_num, row_stats

NAN = math.nan


def test_column_means_count_only_what_was_scored():
    grid = [[1.0, NAN, 4.0], [3.0, NAN, NAN], [5.0, NAN, 8.0]]
    means, counts = column_means(grid, 3)
    assert means[0] == 3.0 and math.isnan(means[1]) and means[2] == 6.0
    assert counts == [3, 0, 2]


def test_a_grid_without_rows_still_has_its_columns():
    means, counts = column_means([], 4)
    assert len(means) == 4 and all(math.isnan(m) for m in means) and counts == [0, 0, 0, 0]
    assert columns([], 2) == [(), ()]
    assert columns([[1.0, 2.0], [3.0, 4.0]], 2) == [(1.0, 3.0), (2.0, 4.0)]


def test_column_means_agree_with_numpy_on_random_sheets():
    rng = np.random.default_rng(5)
    for _ in range(50):
        sheet = rng.normal(5, 3, size=(rng.integers(1, 7), rng.integers(1, 7)))
        sheet[rng.random(sheet.shape) < 0.3] = np.nan
        means, counts = column_means(as_grid(sheet), sheet.shape[1])
        scored = np.isfinite(sheet)
        totals = np.where(scored, sheet, 0.0).sum(axis=0)
        expected = [t / n if n else np.nan for t, n in zip(totals, scored.sum(axis=0), strict=True)]
        np.testing.assert_allclose(means, expected, rtol=1e-12)
        assert counts == np.isfinite(sheet).sum(axis=0).tolist()


def test_anything_not_finite_is_missing():
    grid = as_grid(np.array([[1.0, np.inf], [-np.inf, np.nan]]))
    assert grid[0][0] == 1.0 and all(math.isnan(v) for v in (grid[0][1], grid[1][0], grid[1][1]))
    assert as_grid([[2, 3]]) == [[2.0, 3.0]] and isinstance(as_grid([[2, 3]])[0][0], float)
    assert finite([1.0, NAN, 2.0]) == [1.0, 2.0]


@pytest.mark.parametrize("value, expected", [(NAN, 0.0), (math.inf, sys.float_info.max),
                                             (-math.inf, -sys.float_info.max), (2.5, 2.5)])
def test_nan_to_num_as_numpy(value, expected):
    assert nan_to_num(value) == expected == float(np.nan_to_num(value))


def test_row_stats_count_mean_and_squared_deviations_of_what_was_scored():
    (k0, mean0, ss0), (k1, mean1, ss1) = row_stats([[2.0, NAN, 4.0, 6.0], [NAN, NAN, NAN, NAN]])
    assert (k0, mean0, ss0) == (3.0, 4.0, 8.0)
    assert (k1, mean1, ss1) == (0.0, 0.0, 0.0), "a reviewer who scored nothing"
