"""The result cache's table: which stored run answered a run key, and until when.

A run's key is a hash of everything that decides its result
(:func:`council.pipeline.result_cache.run_key`); the cached result itself is
the stored run, read back whole. Entries are written through the store's
writer, behind the run's last row, so replicas on one PostgreSQL database
share every hit. An expired entry is simply not read; the next run with
its key replaces it.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from council.storage.store import Store

_UPSERT = ("INSERT INTO result_cache (cache_key, run_id, created_at, expires_at) VALUES (?, ?, ?, ?) "
           "ON CONFLICT (cache_key) DO UPDATE SET run_id = excluded.run_id, created_at = excluded.created_at, "
           "expires_at = excluded.expires_at")


def queue_cache_entry(store: Store, key: str, run_id: str, ttl_s: float) -> asyncio.Future[None]:
    """Remember ``run_id`` as the answer to ``key`` for ``ttl_s`` seconds (from an event loop, written behind)."""
    now = datetime.now(UTC)
    values = (key, run_id, now.isoformat(), (now + timedelta(seconds=ttl_s)).isoformat())
    return store._queue("caching a result", lambda session: session.execute(_UPSERT, values), soon=False)


def cached_run_id(store: Store, key: str) -> str | None:
    """The run that answered ``key`` and has not expired, or None (blocking: call it in a thread)."""
    row = store._guard("reading the result cache", lambda: store.db.fetchone(
        "SELECT run_id FROM result_cache WHERE cache_key = ? AND expires_at > ?",
        (key, datetime.now(UTC).isoformat())))
    return str(row[0]) if row else None
