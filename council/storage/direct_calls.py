"""Calls made outside a council run, with what they cost: ``member/NAME`` pass-through and side tasks.

A council run keeps its cost in its own record; a call the server sends
to one member (a client asking ``member/NAME``, or a chat app's title
routed by ``server.task_model``) has no run to keep it. Each such call is
one row here, so ``council runs --since`` can say what the period cost in
runs and in direct calls. Rows are small and written behind the answer.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from council.storage.store import Store

CallKind = Literal["pass-through", "side-task"]


@dataclass(frozen=True)
class DirectCall:
    """One call to one member outside a council run."""

    member: str
    kind: CallKind
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    created_at: str = ""

    def stamped(self) -> DirectCall:
        """This call with ``created_at`` set to now (UTC) when it is not set."""
        if self.created_at:
            return self
        return DirectCall(self.member, self.kind, self.prompt_tokens, self.completion_tokens, self.cost_usd,
                          datetime.now(UTC).isoformat())


@dataclass(frozen=True)
class DirectCallTotals:
    """What the direct calls of a period cost: USD of the priced ones, how many, how many had no price."""

    usd: float
    calls: int
    unpriced: int


_INSERT = ("INSERT INTO direct_calls (created_at, member, kind, prompt_tokens, completion_tokens, cost_usd) "
           "VALUES (?, ?, ?, ?, ?, ?)")


def _values(call: DirectCall) -> tuple[object, ...]:
    row = call.stamped()
    return row.created_at, row.member, row.kind, row.prompt_tokens, row.completion_tokens, row.cost_usd


def queue_call(store: Store, call: DirectCall) -> asyncio.Future[None]:
    """Add one call's row through the store's writer (from an event loop), with the runs' writes: kept
    through an outage and written when the database is back."""
    values = _values(call)
    return store._queue("recording a direct call", lambda session: session.execute(_INSERT, values),
                        soon=False, durable=True)


def direct_cost_since(store: Store, since: datetime) -> DirectCallTotals:
    """The totals of the calls made since ``since``."""
    row = store._guard("summing direct calls", lambda: store.db.fetchone(
        "SELECT COALESCE(SUM(cost_usd), 0), COUNT(*), SUM(CASE WHEN cost_usd IS NULL THEN 1 ELSE 0 END) "
        "FROM direct_calls WHERE created_at >= ?", (since.isoformat(),)))
    return DirectCallTotals(float(row[0]), int(row[1]), int(row[2] or 0)) if row else DirectCallTotals(0.0, 0, 0)
