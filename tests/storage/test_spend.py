"""The day's spend: one sum per UTC day, added to atomically by many writers on either backend."""

from __future__ import annotations

import functools

from council.storage.spend import add_spend, spent_on
from council.storage.store import Store
from tests.storage.threads import run_in_threads


def test_concurrent_adds_lose_nothing(db_location):
    stores = [Store(db_location) for _ in range(3)]

    def spend(store: Store) -> None:
        for _ in range(20):
            add_spend(store, "2026-11-25", 0.25)  # exact in binary: the sum must be exact too

    workers = [functools.partial(spend, store) for store in stores for _ in range(3)]
    errors = run_in_threads(workers)
    try:
        assert errors == []
        assert spent_on(stores[0], "2026-11-25") == 0.25 * 20 * len(workers) == 45.0
        assert spent_on(stores[1], "2026-11-24") == 0.0, "each day is its own sum"
    finally:
        for store in stores:
            store.close()
