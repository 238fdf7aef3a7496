"""The day's spend: one sum per UTC day, added to atomically by many writers on either backend."""

from __future__ import annotations

import threading

from council.storage.spend import add_spend, spent_on
from council.storage.store import Store


def test_concurrent_adds_lose_nothing(db_location):
    stores = [Store(db_location) for _ in range(3)]
    errors: list[BaseException] = []

    def spend(store: Store) -> None:
        try:
            for _ in range(20):
                add_spend(store, "2026-11-25", 0.25)  # exact in binary: the sum must be exact too
        except BaseException as error:
            errors.append(error)

    workers = [threading.Thread(target=spend, args=(store,)) for store in stores for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    try:
        assert errors == []
        assert spent_on(stores[0], "2026-11-25") == 0.25 * 20 * len(workers) == 45.0
        assert spent_on(stores[1], "2026-11-24") == 0.0, "each day is its own sum"
    finally:
        for store in stores:
            store.close()
