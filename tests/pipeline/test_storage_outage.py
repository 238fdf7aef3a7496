"""A council run while its database is down or locked: it stops waiting at storage.critical_wait_s, stored later.

Real databases (a private PostgreSQL server stopped with pg_ctl, a SQLite
file another process holds with BEGIN EXCLUSIVE) and the fake upstream over
real HTTP.
"""

from __future__ import annotations

import asyncio

from council import Council
from council.errors import StorageError
from council.testing.postgres import PostgresServer
from tests.pipeline.test_orchestrator import make_config, script_members
from tests.storage.outage import private_postgres, sqlite_locked_elsewhere
from tests.waiting import TIMEOUT_S, wait_until

__all__ = ["private_postgres"]  # the fixture, imported for pytest

BOUND_S = 1.0
ALPHA = "alpha|openai|model-alpha"
#: What a run says when it stopped waiting for its database at storage.critical_wait_s (the defect this guards
#: against was a run waiting out the driver's own 30-90 s instead).
GAVE_UP_AT_THE_BOUND = f"did not answer within {BOUND_S:g} s"


async def ask(council: Council, question: str) -> object:
    # The bound is against a hang (a run waiting out the driver's timeouts), not a measurement.
    return await asyncio.wait_for(council.ask(question), timeout=TIMEOUT_S)


def stored_status(council: Council, run_id: str):
    store = council.store
    assert store is not None

    async def check() -> bool:
        try:
            return await store.call(store.run_statuses, [run_id]) == {run_id: "complete"}
        except StorageError:
            return False
    return check


async def test_a_run_during_a_postgres_outage_is_answered_within_the_bound_and_stored_when_it_is_back(
        fake_llm, private_postgres):
    server: PostgresServer = private_postgres
    script_members(fake_llm)
    config = make_config(fake_llm, chairman="alpha",
                         storage={"url": server.create_database("runs"), "critical_wait_s": BOUND_S})
    async with Council(config, environ={}) as council:
        first = await ask(council, "What is six times seven?")
        assert first.stored and not first.degraded
        server.halt()
        try:
            during = await ask(council, "And seven times eight?")
        finally:
            server.resume()
        assert during.status == "complete" and during.final_answer.content
        assert during.stored is False
        reasons = " | ".join(during.degraded_reasons)
        assert "reviewer calibration history was not read" in reasons and "ranked without it" in reasons
        assert "not stored yet" in reasons and "written in the background" in reasons
        assert GAVE_UP_AT_THE_BOUND in reasons
        assert during.calibration == [], "ranked with the prior: no history was used"

        await wait_until(stored_status(council, during.run_id), what="the outage's run to be stored")
        assert council.store.get(during.run_id).final_answer.content == during.final_answer.content
        after = await ask(council, "And eight times nine?")
        assert after.stored and not after.degraded, after.degraded_reasons
        # Runs ranked with history fold into it; the one ranked without it does not (it read nothing).
        assert council.store.reviewer_history([ALPHA])[ALPHA].count == 6


async def test_a_run_while_another_process_holds_sqlite_locked_is_answered_within_the_bound(fake_llm, tmp_path):
    script_members(fake_llm)
    path = tmp_path / "runs.db"
    config = make_config(fake_llm, chairman="alpha", storage={"path": str(path), "critical_wait_s": BOUND_S})
    async with Council(config, environ={}) as council:
        assert (await ask(council, "What is six times seven?")).stored
        with sqlite_locked_elsewhere(path):
            during = await ask(council, "And seven times eight?")
            assert during.stored is False and during.final_answer.content
            assert GAVE_UP_AT_THE_BOUND in " | ".join(during.degraded_reasons)
        await wait_until(stored_status(council, during.run_id), what="the locked-out run to be stored")


async def test_with_the_result_cache_on_a_stopped_database_is_a_miss_and_the_question_is_answered(
        fake_llm, private_postgres):
    server: PostgresServer = private_postgres
    script_members(fake_llm)
    config = make_config(fake_llm, chairman="alpha", cache={"ttl_s": 600, "outage_pause_s": 0.2},
                         storage={"url": server.create_database("cached"), "critical_wait_s": BOUND_S})
    async with Council(config, environ={}) as council:
        first = await ask(council, "What is six times seven?")
        assert first.stored and not first.degraded
        server.halt()
        try:
            plan = council.plan("What is six times seven?")
            assert await asyncio.wait_for(council.lookup_cache(plan), timeout=TIMEOUT_S) is None, "down: a miss"
            calls = len(fake_llm.requests)
            during = await ask(council, "What is six times seven?")
        finally:
            server.resume()
        assert during.status == "complete" and during.cached_from is None and during.final_answer.content
        assert len(fake_llm.requests) > calls, "the council ran: a database that is down serves no hit"

        async def answered_from_the_cache() -> bool:
            # Back up: once the circuit's pause is over, a probe finds it, and the first run answers again.
            return (await ask(council, "What is six times seven?")).cached_from == first.run_id
        await wait_until(answered_from_the_cache, what="a hit once the database is back")


async def test_a_cache_outage_costs_one_wait_then_lookups_cost_nothing_until_a_probe(fake_llm, private_postgres):
    server: PostgresServer = private_postgres
    script_members(fake_llm)
    config = make_config(fake_llm, chairman="alpha", cache={"ttl_s": 600, "outage_pause_s": 3600},
                         storage={"url": server.create_database("circuit"), "critical_wait_s": BOUND_S})
    async with Council(config, environ={}) as council:
        await ask(council, "What is six times seven?")
        plan = council.plan("What is six times seven?")
        server.halt()
        try:
            for _ in range(5):
                assert await asyncio.wait_for(council.lookup_cache(plan), timeout=TIMEOUT_S) is None
        finally:
            server.resume()
        circuit = council.cache_circuit
        assert (circuit.failures, circuit.skipped) == (1, 4), "only the first lookup waited for the database"


async def test_a_second_round_during_a_postgres_outage_is_answered_and_stored_whole_when_it_is_back(
        fake_llm, private_postgres):
    server: PostgresServer = private_postgres
    script_members(fake_llm)
    config = make_config(fake_llm, chairman="alpha", review={"rounds": 2, "deliberate_below": 1.0},
                         storage={"url": server.create_database("runs"), "critical_wait_s": BOUND_S})
    async with Council(config, environ={}) as council:
        server.halt()
        try:
            during = await ask(council, "What is six times seven?")
        finally:
            server.resume()
        assert during.status == "complete" and during.final_answer.content and during.stored is False
        assert during.deliberation is not None and during.deliberation.rounds == 2
        await wait_until(stored_status(council, during.run_id), what="the outage's run to be stored")
        stored = council.store.get(during.run_id)
        assert stored.deliberation == during.deliberation and stored.reviews == during.reviews


async def test_while_writes_wait_for_a_stopped_database_the_cache_circuit_does_not_probe(fake_llm, private_postgres):
    server: PostgresServer = private_postgres
    script_members(fake_llm)
    # A pause far shorter than a run: by the lookups below it is over, and before the fix each one probed.
    config = make_config(fake_llm, chairman="alpha", cache={"ttl_s": 600, "outage_pause_s": 0.001},
                         storage={"url": server.create_database("probe"), "critical_wait_s": BOUND_S})
    async with Council(config, environ={}) as council:
        first = await ask(council, "What is six times seven?")
        plan = council.plan("What is six times seven?")
        store = council.store
        server.halt()
        try:
            during = await ask(council, "And seven times eight?")  # its lookup fails; its rows wait for the database
            assert during.stored is False
            await wait_until(lambda: store.db.writes_waiting, what="the run's writes to wait in the backlog")
            for _ in range(3):
                assert await asyncio.wait_for(council.lookup_cache(plan), timeout=TIMEOUT_S) is None
            circuit = council.cache_circuit
            assert (circuit.failures, circuit.skipped) == (1, 3), "the writer's retries probe: no lookup did"
        finally:
            server.resume()
        # That the cache answers again once the database is back is the stopped-database test's (above): here,
        # with a pause of 1 ms under a loaded machine's pool timeouts, waiting for it proved flaky.
        assert first.stored


async def test_cache_hits_while_another_process_holds_sqlite_locked_are_served_and_stored_when_it_lets_go(
        fake_llm, tmp_path):
    script_members(fake_llm)
    path = tmp_path / "runs.db"
    config = make_config(fake_llm, chairman="alpha", cache={"ttl_s": 600},
                         storage={"path": str(path), "critical_wait_s": BOUND_S})
    async with Council(config, environ={}) as council:
        cached = await ask(council, "What is six times seven?")
        calls = len(fake_llm.requests)
        with sqlite_locked_elsewhere(path):
            first = await ask(council, "What is six times seven?")  # its row is the first write locked out
            await wait_until(lambda: council.store.db.writes_waiting, what="the hit's row to wait in the backlog")
            later = [await ask(council, "What is six times seven?") for _ in range(3)]
        assert len(fake_llm.requests) == calls, "every one was a hit: the lookups read through the lock"
        for hit in (first, *later):
            assert hit.cached_from == cached.run_id and hit.stored is False and hit.final_answer.content
        for hit in later:
            # Queued behind the rows already waiting, as a run's rows are: not waited for.
            assert hit.degraded_reasons == ["the run is not stored yet (the database is unavailable): it is written "
                                            "in the background when the database is back"]
        for hit in (first, *later):
            await wait_until(stored_status(council, hit.run_id), what=f"hit {hit.run_id} to be stored")


async def test_a_cache_hit_does_not_wait_out_sqlites_busy_timeout_to_learn_another_process_holds_the_lock(
        fake_llm, tmp_path):
    script_members(fake_llm)
    path = tmp_path / "runs.db"
    # A storage wait (and so a busy timeout) longer than ``ask``'s bound: a hit that waited it out would fail.
    config = make_config(fake_llm, chairman="alpha", cache={"ttl_s": 600},
                         storage={"path": str(path), "critical_wait_s": TIMEOUT_S * 3})
    async with Council(config, environ={}) as council:
        cached = await ask(council, "What is six times seven?")
        with sqlite_locked_elsewhere(path):
            hit = await ask(council, "What is six times seven?")
            assert council.store.db.writer_blocked and not council.store.db.writes_waiting
        assert hit.cached_from == cached.run_id and hit.final_answer.content and hit.stored is False
        assert hit.degraded_reasons == ["the run is not stored yet (another process holds the database's write "
                                        "lock): it is written in the background when the database is back"]
        # The writer was still waiting for the lock (not yet an outage): it takes it as soon as it is let go.
        await wait_until(stored_status(council, hit.run_id), what="the hit to be stored")
        assert not council.store.db.writer_blocked


async def test_a_run_whose_cache_lookup_took_the_whole_storage_wait_does_not_wait_again(fake_llm, tmp_path):
    script_members(fake_llm)
    config = make_config(fake_llm, chairman="alpha", cache={"ttl_s": 600},
                         storage={"path": str(tmp_path / "runs.db"), "critical_wait_s": BOUND_S})
    async with Council(config, environ={}) as council:
        plan = council.plan("What is six times seven?")
        # As the server does: it looked the plan up itself, and that wait was the run's whole storage wait.
        result = await asyncio.wait_for(council.ask(plan, cache_checked=True, storage_waited_s=BOUND_S),
                                        timeout=TIMEOUT_S)
        reasons = " | ".join(result.degraded_reasons)
        assert result.status == "complete" and result.final_answer.content
        assert "reviewer calibration history was not read" in reasons and result.stored is False
        await wait_until(stored_status(council, result.run_id), what="the run to be stored behind it")
