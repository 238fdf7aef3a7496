"""A council's connection pool, sized for the runs it is told to expect, seen from the one upstream host."""

from __future__ import annotations

import asyncio

from council import Council, CouncilConfig
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member

MEMBERS = ("alpha", "beta", "gamma")
RUNS = 40  # more than the 32 runs a council expects by default (server.max_concurrent_runs)


def quality_judge(text: str) -> int:
    marker = text.rsplit("quality=", 1)
    return int(marker[1][:1]) if len(marker) == 2 and marker[1][:1].isdigit() else 1


def config(fake: FakeLLMServer, tmp_path) -> CouncilConfig:
    for quality, name in enumerate(MEMBERS, start=5):
        fake.script(f"model-{name}", Step(latency_s=1.0, reply=council_member(f"{name} says 42. quality={quality}",
                                                                               quality_judge)))
    return CouncilConfig.model_validate({
        "members": [{"name": n, "provider": "openai", "model": f"model-{n}", "base_url": fake.base_url("openai")}
                    for n in MEMBERS],
        "chairman": "alpha",
        "storage": {"path": str(tmp_path / "council.db")},
    })


async def ask_together(council: Council) -> None:
    async with council:
        results = await asyncio.gather(*(council.ask(f"Question {i}: 6 x 7?") for i in range(RUNS)))
    assert [r.status for r in results] == ["complete"] * RUNS


async def test_runs_at_once_sizes_the_pool_past_the_default(fake_llm, tmp_path):
    await ask_together(Council(config(fake_llm, tmp_path), environ={}, runs_at_once=RUNS))
    # Sized for 40 runs of 3 members: more than the 96 the default 32 runs allow, never more than 120.
    assert 96 < fake_llm.most_in_flight <= RUNS * len(MEMBERS)


async def test_by_default_the_pool_is_sized_for_the_servers_admission(fake_llm, tmp_path):
    await ask_together(Council(config(fake_llm, tmp_path), environ={}))
    assert fake_llm.most_in_flight <= 32 * len(MEMBERS)
    assert fake_llm.most_in_flight > 50, "past the old fixed 50 a host"
