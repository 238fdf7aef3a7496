"""The ``reviewer_weights`` table on SQLite and PostgreSQL: written, replaced, read back by key and from a loop."""

from __future__ import annotations

import asyncio

import pytest

from council.ranking.reviewer_weights import AccuracyTally
from council.storage.store import Store, StoredWeight
from council.storage.tables import Tables


@pytest.fixture
def store(db_location):
    opened = Store(db_location)
    yield opened
    opened.close()


def test_weights_are_stored_replaced_and_read_by_key(store):
    first = StoredWeight(2.5, AccuracyTally(12, 10.0, 4.0), ("run-a",))
    store.save_learned_weights({"sage|openai|m1": first, "b1|openai|m2": StoredWeight(0.1, AccuracyTally(12), ())})
    read = store.learned_weights(["sage|openai|m1", "sage|openai|m-new", "b1|openai|m2"])
    assert set(read) == {"sage|openai|m1", "b1|openai|m2"}  # a changed model is another key: nothing for it
    sage = read["sage|openai|m1"]
    assert (sage.weight, sage.tally, sage.eval_runs) == (2.5, AccuracyTally(12, 10.0, 4.0), ("run-a",))
    assert sage.updated_at

    store.save_learned_weights({"sage|openai|m1": StoredWeight(1.7, AccuracyTally(3, 2.5, 1.0), ("run-b", "run-c"))})
    again = store.learned_weights(["sage|openai|m1"])["sage|openai|m1"]
    assert (again.weight, again.tally.samples, again.tally.correct, again.eval_runs) == (1.7, 3, 2.5,
                                                                                         ("run-b", "run-c"))
    assert store.learned_weights([]) == {} and store.table_counts()["reviewer_weights"] == 2


def test_weights_read_from_an_event_loop_through_the_writer(store):
    store.save_learned_weights({"sage|openai|m1": StoredWeight(3.0, AccuracyTally(5, 5.0, 2.0), ("run-a",))})

    async def read() -> dict[str, StoredWeight]:
        return await store.read_learned_weights(["sage|openai|m1", "other|openai|m"])

    assert list(asyncio.run(read())) == ["sage|openai|m1"]


def test_a_store_opened_on_the_same_database_sees_them(store):
    store.save_learned_weights({"k|p|m": StoredWeight(1.2, AccuracyTally(2, 1.0, 1.0), ("r",))})
    other = Tables(store.db)
    assert other.db.fetchone("SELECT weight FROM reviewer_weights WHERE reviewer_key = ?", ("k|p|m",))[0] == 1.2
