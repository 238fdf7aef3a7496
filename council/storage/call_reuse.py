"""The call-reuse table: the reply an upstream call got, under a hash of what decided it.

``council eval`` keeps the reply of every answer, review, chairman and
evaluator call it makes, so that a re-run of the same dataset asks nothing
twice (:mod:`council.pipeline.call_reuse` builds the keys and decides when
a stored reply stands in for a call). Rows are written through the store's
writer, behind the run's own rows; a key written twice keeps the latest
reply. Nothing here expires: a re-run is reused for as long as the database
keeps the rows (``DELETE FROM call_reuse`` forgets them; ``--fresh`` ignores
them for one run).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

from council.storage.store import Store
from council.types import Usage

_UPSERT = ("INSERT INTO call_reuse (call_key, kind, content, usage, model_version, created_at) "
           "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (call_key) DO UPDATE SET kind = excluded.kind, "
           "content = excluded.content, usage = excluded.usage, model_version = excluded.model_version, "
           "created_at = excluded.created_at")


@dataclass(frozen=True)
class StoredReply:
    """What a kept call returned: its text (the sandbox nonce masked), its tokens and the model version."""

    content: str
    usage: Usage
    model_version: str | None


def queue_reply(store: Store, key: str, kind: str, reply: StoredReply) -> asyncio.Future[None]:
    """Keep ``reply`` as the answer to the call ``key`` (from an event loop, written behind)."""
    values = (key, kind, reply.content, reply.usage.model_dump_json(), reply.model_version,
              datetime.now(UTC).isoformat())
    return store._queue("keeping a call for reuse", lambda session: session.execute(_UPSERT, values), soon=False)


def stored_reply(store: Store, key: str) -> StoredReply | None:
    """The reply kept for the call ``key``, or None (blocking: call it in a thread)."""
    row = store._guard("reading the call-reuse table", lambda: store.db.fetchone(
        "SELECT content, usage, model_version FROM call_reuse WHERE call_key = ?", (key,)))
    if row is None:
        return None
    return StoredReply(content=str(row[0]), usage=Usage.model_validate_json(str(row[1])),
                       model_version=None if row[2] is None else str(row[2]))
