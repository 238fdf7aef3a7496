"""The responses table: what ``POST /v1/responses`` kept (``store: true``), for ``previous_response_id`` and GET.

A row holds the response object as the client got it, the conversation it
ends (its input turns and its output, as chat messages, so a follow-up
continues from it without a chain walk), and its owner: a hash of the API
key that created it (empty when the server has no keys), so one caller
never reads or deletes another's. Writes go through the store's writer,
behind the answer; reads and deletes are blocking (call them in a thread).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from council.storage.store import Store


@dataclass(frozen=True)
class StoredResponse:
    """A kept response: the object returned, and the conversation it ends as chat messages."""

    response_id: str
    body: dict[str, Any]
    conversation: list[dict[str, Any]]


def queue_response(store: Store, owner: str, body: dict[str, Any],
                   conversation: list[dict[str, Any]]) -> asyncio.Future[None]:
    """Keep ``body`` (a response object) and the conversation it ends, for ``owner`` (from an event loop)."""
    values = (str(body["id"]), owner, json.dumps(body, ensure_ascii=False),
              json.dumps(conversation, ensure_ascii=False), datetime.now(UTC).isoformat())
    insert = ("INSERT INTO responses (response_id, owner, body, conversation, created_at) VALUES (?, ?, ?, ?, ?) "
              "ON CONFLICT (response_id) DO UPDATE SET body = excluded.body, conversation = excluded.conversation")
    return store._queue("keeping a response", lambda session: session.execute(insert, values))


def stored_response(store: Store, owner: str, response_id: str) -> StoredResponse | None:
    """The response ``owner`` kept as ``response_id``, or None (another owner's is None too)."""
    row = store._guard("reading a response", lambda: store.db.fetchone(
        "SELECT body, conversation FROM responses WHERE response_id = ? AND owner = ?", (response_id, owner)))
    if row is None:
        return None
    return StoredResponse(response_id, json.loads(str(row[0])), json.loads(str(row[1])))


def delete_response(store: Store, owner: str, response_id: str) -> bool:
    """Forget the response ``owner`` kept as ``response_id``; False when there was none."""
    def work(session: Any) -> bool:
        return bool(session.execute("DELETE FROM responses WHERE response_id = ? AND owner = ?", (response_id, owner)))

    return store._guard("deleting a response", lambda: store.db.transaction(work))
