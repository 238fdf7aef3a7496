"""What the server spent each day (UTC), kept in the run database so every replica adds to one sum.

``budget.max_usd_per_day`` turns new runs away once the day's sum reaches
it. Each run (and each pass-through call) adds what it cost when it ends,
with one atomic upsert, so replicas adding at once lose nothing.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from council.storage.store import Store


def today() -> str:
    """The day a cost counts toward: the UTC date, ``YYYY-MM-DD``."""
    return datetime.now(UTC).date().isoformat()


def spent_on(store: Store, day: str) -> float:
    """The USD spent on ``day`` (0 when nothing was)."""
    row = store.db.fetchone("SELECT usd FROM daily_spend WHERE day = ?", (day,))
    return float(row[0]) if row else 0.0


_ADD = "INSERT INTO daily_spend VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET usd = daily_spend.usd + excluded.usd"


def add_spend(store: Store, day: str, usd: float) -> None:
    """Add ``usd`` to ``day``'s sum, atomically (replicas adding at once each count)."""
    store.db.transaction(lambda session: session.execute(_ADD, (day, usd)))


def queue_spend(store: Store, day: str, usd: float) -> asyncio.Future[None]:
    """:func:`add_spend` through the store's writer (from an event loop): kept through an outage, added when
    the database is back."""
    return store._queue("adding to the day's spend", lambda session: session.execute(_ADD, (day, usd)),
                        soon=False, locks_rows=True, durable=True)
