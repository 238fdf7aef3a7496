"""What every stage shares: the deadline-bounded gather, ordering, timing, and per-member params."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from council.pipeline.context import gather_until, ordered, timed
from council.pipeline.stragglers import StragglerCut
from council.result import Timings
from council.types import GenerationParams
from tests.pipeline.stages import context, member


async def test_gather_until_reports_as_they_finish_and_cancels_stragglers():
    cancelled = asyncio.Event()

    async def quick(value: int) -> int:
        await asyncio.sleep(0)
        return value

    async def hang() -> int:
        try:
            await asyncio.sleep(60)
        finally:
            cancelled.set()
        return 0

    seen: list[str] = []
    gathered = await gather_until({"a": quick(1), "b": quick(2), "slow": hang()}, 0.2,
                                  lambda name, _value: seen.append(name))
    assert gathered.finished == {"a": 1, "b": 2} and gathered.timed_out == ["slow"] and sorted(seen) == ["a", "b"]
    assert gathered.late == {} and gathered.cut_after_s is None
    assert cancelled.is_set(), "a straggler is cancelled and awaited, not left running"


async def test_a_straggler_cut_hands_back_the_late_call_still_running():
    release = asyncio.Event()

    async def quick(value: int) -> int:
        return value

    async def slow() -> int:
        await release.wait()
        return 3

    gathered = await gather_until({"a": quick(1), "b": quick(2), "slow": slow()}, 60, lambda _n, _v: None,
                                  StragglerCut(factor=2.0, quorum=2))
    assert gathered.finished == {"a": 1, "b": 2} and gathered.timed_out == []
    assert list(gathered.late) == ["slow"] and gathered.cut_after_s is not None
    late = gathered.late["slow"]
    assert not late.done(), "a late call is left running, not cancelled"
    release.set()
    assert await late == 3


async def test_a_cut_waits_for_its_quorum_of_good_results():
    async def value(v: int) -> int:
        return v

    async def later() -> int:
        await asyncio.sleep(0.05)
        return 4

    # Only results that succeeded count toward the quorum: the two failures (negative) do not start the cut.
    gathered = await gather_until({"x": value(-1), "y": value(-2), "z": later()}, 60, lambda _n, _v: None,
                                  StragglerCut(factor=1.0, quorum=1), succeeded=lambda v: v > 0)
    assert gathered.finished == {"x": -1, "y": -2, "z": 4} and gathered.late == {}


def test_the_cut_is_the_factor_times_the_median_once_the_quorum_is_in():
    cut = StragglerCut(factor=2.0, quorum=2)
    assert cut.cut_after_s([1.0]) is None
    assert cut.cut_after_s([1.0, 3.0]) == 4.0
    assert cut.cut_after_s([1.0, 2.0, 10.0]) == 4.0


def test_ordered_and_timed():
    assert ordered(["b", "a", "c"], ["c", "a", "b"], key=str) == ["c", "a", "b"]
    timings = Timings()
    with pytest.raises(ValueError), timed(timings, "review_ms"):
        raise ValueError("the time still counts")
    assert timings.review_ms > 0


def test_each_member_gets_the_params_its_wire_format_takes():
    ctx, _ = context({"a": member("-"), "b": member("-")})
    ctx.plan = replace(ctx.plan, params=GenerationParams(temperature=0.2, reasoning_effort="low"))
    params = ctx.params_for(ctx.providers["a"])
    assert params is not None and params.temperature == 0.2 and params.reasoning_effort == "low"
    ctx.plan = replace(ctx.plan, params=None)
    assert ctx.params_for(ctx.providers["a"]) is None
