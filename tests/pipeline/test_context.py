"""What every stage shares: the deadline-bounded gather, ordering, timing, and per-member params."""

from __future__ import annotations

import asyncio

import pytest

from council.pipeline.context import gather_until, ordered, timed
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
    done, late = await gather_until({"a": quick(1), "b": quick(2), "slow": hang()}, 0.2,
                                    lambda name, _value: seen.append(name))
    assert done == {"a": 1, "b": 2} and late == ["slow"] and sorted(seen) == ["a", "b"]
    assert cancelled.is_set(), "a straggler is cancelled and awaited, not left running"


def test_ordered_and_timed():
    assert ordered(["b", "a", "c"], ["c", "a", "b"], key=str) == ["c", "a", "b"]
    timings = Timings()
    with pytest.raises(ValueError), timed(timings, "review_ms"):
        raise ValueError("the time still counts")
    assert timings.review_ms > 0


def test_each_member_gets_the_params_its_wire_format_takes():
    ctx, _ = context({"a": member("-"), "b": member("-")})
    ctx.params = GenerationParams(temperature=0.2, response_format={"type": "json_object"})
    params = ctx.params_for(ctx.providers["a"])
    assert params is not None and params.temperature == 0.2 and params.response_format is None
    ctx.params = None
    assert ctx.params_for(ctx.providers["a"]) is None
