"""The result cache over real HTTP and a real database: the same question twice costs one run's calls.

The fake upstream counts every request, so "no upstream call" is a count.
Replicas are two councils on one database (SQLite file and PostgreSQL).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from council import Council, CouncilConfig, GenerationParams
from council.events import StageEvent
from council.testing.fake_llm import FakeLLMServer, Step
from tests.pipeline.test_lifecycle import MEMBERS, script

QUESTION = "What is six times seven?"


def cached_config(fake: FakeLLMServer, location: str, ttl_s: float = 600, **extra: object) -> CouncilConfig:
    storage = {"url": location} if location.startswith("postgresql") else {"path": location}
    return CouncilConfig.model_validate({
        "members": [{"name": n, "provider": "openai", "model": f"model-{n}", "base_url": fake.base_url("openai")}
                    for n in MEMBERS],
        "chairman": "alpha", "retry": {"max_attempts": 1}, "cache": {"ttl_s": ttl_s}, "storage": storage, **extra,
    })


async def test_the_same_question_twice_makes_no_upstream_call_the_second_time(fake_llm, db_location):
    script(fake_llm)
    async with Council(cached_config(fake_llm, db_location), environ={}) as council:
        first = await council.ask(QUESTION)
        calls = len(fake_llm.requests)
        events: list[StageEvent] = []
        second = await council.ask(QUESTION, on_event=events.append)
        stored = council.store.get(second.run_id) if council.store is not None else None
    assert calls == 2 * len(MEMBERS) + 1 and len(fake_llm.requests) == calls, "the hit called nobody"
    assert first.cached_from is None and second.cached_from == first.run_id and second.run_id != first.run_id
    assert second.final_answer == first.final_answer and second.answers == first.answers
    assert second.ranking == first.ranking and second.reviews == first.reviews
    assert second.cost is not None and second.cost.total_usd == 0.0 and second.usage.total_tokens == 0
    assert stored is not None and stored.cached_from == first.run_id, "a hit is a run of its own, on record"
    kinds = [e.kind for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.count("answer") == len(MEMBERS) and "ranking" in kinds
    deltas = "".join(str(e.data["text"]) for e in events if e.kind == "final_delta")
    assert deltas == first.final_answer.content, "a stream served from the cache still streams the chairman's text"


async def test_replicas_on_one_database_share_hits(fake_llm, db_location):
    script(fake_llm)
    async with Council(cached_config(fake_llm, db_location), environ={}) as one:
        first = await one.ask(QUESTION)
    calls = len(fake_llm.requests)
    async with Council(cached_config(fake_llm, db_location), environ={}) as other:
        again = await other.ask(QUESTION)
    assert again.cached_from == first.run_id and len(fake_llm.requests) == calls


async def test_bypass_a_changed_request_and_the_default_all_run_again(fake_llm, tmp_path):
    script(fake_llm)
    location = str(tmp_path / "runs.db")
    async with Council(cached_config(fake_llm, location), environ={}) as council:
        first = await council.ask(QUESTION)
        fresh = await council.ask(QUESTION, cache=False)
        other_question = await council.ask("What is seven times eight?")
        fewer_members = await council.ask(QUESTION, members=["alpha", "beta"])
        hotter = await council.ask(QUESTION, params=GenerationParams(temperature=0.9))
        plan = council.plan(QUESTION)
        hit = await council.lookup_cache(plan)
    assert [r.cached_from for r in (fresh, other_question, fewer_members, hotter)] == [None] * 4
    assert hit is not None and hit.run_id == first.run_id
    async with Council(cached_config(fake_llm, location, ttl_s=0), environ={}) as council:
        assert council.plan(QUESTION).use_cache is False
        assert (await council.ask(QUESTION)).cached_from is None, "ttl_s 0 (the default) is off"


async def test_failed_and_degraded_runs_are_never_served_from_the_cache(fake_llm, tmp_path):
    script(fake_llm)
    fake_llm.script("model-gamma", Step(status=500))
    async with Council(cached_config(fake_llm, str(tmp_path / "runs.db")), environ={}) as council:
        degraded = await council.ask(QUESTION)
        calls = len(fake_llm.requests)
        again = await council.ask(QUESTION)
    assert degraded.degraded and again.cached_from is None
    assert len(fake_llm.requests) > calls, "the degraded run was not reused: the council ran again"


async def test_an_expired_entry_is_a_miss(fake_llm, tmp_path):
    script(fake_llm)
    # The hit must come within the entry's life: 0.5 s was too short for the second ask on a loaded machine.
    ttl_s = 3.0
    async with Council(cached_config(fake_llm, str(tmp_path / "runs.db"), ttl_s=ttl_s), environ={}) as council:
        first = await council.ask(QUESTION)
        assert (await council.ask(QUESTION)).cached_from == first.run_id
        expires = first.created_at.timestamp() + first.timings.total_ms / 1000 + ttl_s
        while datetime.now(UTC).timestamp() <= expires:  # the entry's own expiry, not a guess at the machine's speed
            await asyncio.sleep(0.05)
        assert (await council.ask(QUESTION)).cached_from is None
