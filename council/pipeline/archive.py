"""The run database as the faces see it: runs, spend, the rubric registry, the schema, the page's conversations.

:class:`RunArchive` is the door the command line, the HTTP server and the
MCP server use to the runs and what goes with them. A command with no council (``council
runs``, ``council show``, ``council db``, ``council rubric``) opens one from
a location (:meth:`RunArchive.open`); a :class:`~council.Council` hands out
one over its own store (``council.runs``). Either way the faces know its
methods, never the tables, the writer or the migrations behind them, so the
storage package can change shape without a screen noticing.

The methods are synchronous, as the store's are; from an event loop,
:meth:`RunArchive.call` runs one on the database's worker threads, and the
writes a server makes behind its answers (the day's spend, a direct call)
go through the store's writer, which keeps them through an outage.

The web page's conversations live in the same database, in their own
tables: :class:`Conversations` (from :meth:`Council.open_conversations`)
offers them to the HTTP server, each method awaited off the event loop. A
conversation names the council chosen for it and the turns asked so far;
each question names the run answering it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar

from council.config import CouncilConfig
from council.result import CouncilResult
from council.rubrics.model import Rubric
from council.rubrics.target_evaluation import TargetEvaluation
from council.storage.backlog import BacklogFigures
from council.storage.conversations import Conversation, ConversationStore, Message
from council.storage.direct_calls import CallKind, DirectCall, DirectCallTotals, direct_cost_since, queue_call
from council.storage.responses import StoredResponse, delete_response, queue_response, stored_response
from council.storage.schema import SCHEMA_VERSION, Migration, pending_migrations, upgrade
from council.storage.spend import queue_spend, spent_on, today
from council.storage.store import RunSummary, Store

__all__ = ["SCHEMA_VERSION", "BacklogFigures", "CallKind", "Conversation", "Conversations", "DirectCall",
           "DirectCallTotals", "Message", "Migration", "RunArchive", "RunSummary", "StoredResponse", "spend_day"]

T = TypeVar("T")


def spend_day() -> str:
    """The day a cost counts toward (``budget.max_usd_per_day``): the UTC date, ``YYYY-MM-DD``."""
    return today()


class RunArchive:
    """Stored runs and what goes with them, in one run database (SQLite or PostgreSQL).

    Built over a store a council owns (``council.runs``), closing it is
    left to the council; opened with :meth:`open`, it is the caller's to
    close (a ``with`` block does it).
    """

    def __init__(self, store: Store, *, owned: bool = False) -> None:
        self._store = store
        self._owned = owned

    @classmethod
    def open(cls, location: str | Path, *, pool_size: int | None = None, migrate: bool = True,
             critical_wait_s: float | None = None) -> RunArchive:
        """The run database at ``location`` (a SQLite path or a PostgreSQL URL), brought up to date unless
        ``migrate`` is False. Raises :class:`~council.errors.StorageError` when it cannot be opened."""
        # Only what is given is passed on: the store's own defaults stand for the rest.
        options: dict[str, Any] = {"migrate": migrate}
        if pool_size is not None:
            options["pool_size"] = pool_size
        if critical_wait_s is not None:
            options["critical_wait_s"] = critical_wait_s
        return cls(Store(location, **options), owned=True)

    @classmethod
    def of_config(cls, config: CouncilConfig) -> RunArchive:
        """The run database a council of ``config`` keeps its runs in (``storage:``), opened as the council opens it."""
        storage = config.storage
        return cls.open(storage.location, pool_size=storage.pool_size, critical_wait_s=storage.critical_wait_s)

    def __enter__(self) -> RunArchive:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the database if this archive opened it (waits for writes in flight); a council's is left open."""
        if self._owned:
            self._store.close()

    @property
    def path(self) -> str:
        """Where the database is: a file path, or a PostgreSQL URL without its password."""
        return self._store.path

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._store.backend

    async def call(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``method(*args, **kwargs)`` (one of this archive's) on the database's worker threads, awaited."""
        return await self._store.call(method, *args, **kwargs)

    # -- runs --------------------------------------------------------------------
    def get(self, run_id: str) -> CouncilResult | None:
        """The stored run, or None."""
        return self._store.get(run_id)

    def recent(self, limit: int = 20, since: datetime | None = None) -> list[RunSummary]:
        """The newest runs first (those created since ``since``, when given)."""
        return self._store.list_runs(limit, since)

    def statuses(self, run_ids: list[str]) -> dict[str, str]:
        """The stored status of each of these runs (absent ones are left out)."""
        return self._store.run_statuses(run_ids)

    def prune(self, older_than: timedelta) -> int:
        """Delete finished runs created more than ``older_than`` ago; calibration history is kept. Returns how many."""
        return self._store.prune_runs(older_than)

    def mark_interrupted(self, reason: str) -> list[str]:
        """Record as interrupted the runs left running by a process that is gone; their ids."""
        return self._store.mark_interrupted(reason)

    def save_target_evaluation(self, evaluation: TargetEvaluation, review_id: str | None = None) -> None:
        """Keep a structured target's evaluation, under its target id (and the review it was part of)."""
        self._store.save_target_evaluation(evaluation, review_id)

    # -- what was spent ------------------------------------------------------------
    def cost_since(self, since: datetime) -> tuple[float, int, int]:
        """(USD of the runs since ``since`` whose cost is known, runs, runs whose cost is partial or unknown)."""
        return self._store.cost_since(since)

    def direct_calls_since(self, since: datetime) -> DirectCallTotals:
        """What the calls made outside runs (pass-through, side tasks) since ``since`` cost."""
        return direct_cost_since(self._store, since)

    def spent_on(self, day: str) -> float:
        """The USD spent on ``day`` (a :func:`spend_day`), by every replica sharing the database."""
        return spent_on(self._store, day)

    def add_spend(self, day: str, usd: float) -> asyncio.Future[None]:
        """Add ``usd`` to ``day``'s sum through the store's writer (from an event loop): kept through an outage."""
        return queue_spend(self._store, day, usd)

    def record_call(self, call: DirectCall) -> asyncio.Future[None]:
        """Add one direct call's row through the store's writer (from an event loop): kept through an outage."""
        return queue_call(self._store, call)

    def keep_response(self, owner: str, body: dict[str, Any], conversation: list[dict[str, Any]],
                      ) -> asyncio.Future[None]:
        """Keep a Responses API response and the conversation it ends, for ``owner`` (written behind)."""
        return queue_response(self._store, owner, body, conversation)

    def stored_response(self, owner: str, response_id: str) -> StoredResponse | None:
        """The response ``owner`` kept as ``response_id``, or None (blocking)."""
        return stored_response(self._store, owner, response_id)

    def delete_response(self, owner: str, response_id: str) -> bool:
        """Forget a kept response of ``owner``; False when there was none (blocking)."""
        return delete_response(self._store, owner, response_id)

    def write_backlog(self) -> BacklogFigures:
        """The writes waiting for the database now, and those written late or dropped so far (this process)."""
        return self._store.db.write_backlog()

    # -- the rubric registry -------------------------------------------------------
    def registered_rubrics(self, include_deleted: bool = False) -> list[tuple[str, str, str, bool]]:
        """(id, version, created, deleted) of each registered rubric version."""
        return self._store.list_rubrics(include_deleted=include_deleted)

    def register_rubric(self, rubric: Rubric) -> bool:
        """Add a rubric version to the registry; False when that version is there already, unchanged."""
        return self._store.register_rubric(rubric)

    def registered_rubric(self, reference: str, *, include_deleted: bool = False) -> Rubric | None:
        """The registered rubric ``id`` (its latest) or ``id@version``, or None."""
        return self._store.get_rubric(reference, include_deleted=include_deleted)

    def delete_rubric(self, reference: str) -> int:
        """``id``: remove its latest pointer; ``id@version``: withdraw that version. How many versions it touched."""
        return self._store.delete_rubric(reference)

    # -- the database as a whole ---------------------------------------------------
    def schema_version(self) -> int:
        """The schema version the database is at (:data:`SCHEMA_VERSION` is the one this Council writes)."""
        return self._store.schema_version()

    def pending_migrations(self) -> list[Migration]:
        """The migrations the database lacks, in order (each with its ``version`` and ``description``)."""
        return pending_migrations(self._store.db)

    def upgrade(self) -> list[Migration]:
        """Apply the migrations the database lacks; those applied."""
        return upgrade(self._store.db)

    def table_counts(self) -> dict[str, int]:
        """Rows per table in the database."""
        return self._store.table_counts()

    def integrity_check(self) -> str | None:
        """The backend's consistency check (``ok`` when sound); None where the backend has none."""
        return self._store.integrity_check()


class Conversations:
    """The conversation tables of one run database; every method runs on the database's worker threads."""

    def __init__(self, tables: ConversationStore) -> None:
        self._tables = tables

    @classmethod
    def open(cls, store: Store | None, location: str | Path) -> Conversations:
        """The tables in ``store``'s database when there is one, else in the database at ``location`` (opened
        here, and closed by :meth:`close`). Blocking: call it in a thread from async code."""
        return cls(ConversationStore(store.db if store is not None else location))

    def close(self) -> None:
        """Close the database if these tables opened it (blocking)."""
        self._tables.close()

    async def recent(self) -> list[Conversation]:
        """Conversations, the most recently active first, without their messages."""
        return await self._tables.call(self._tables.list_conversations)

    async def get(self, conversation_id: str) -> Conversation | None:
        """A conversation with all its messages, or None."""
        return await self._tables.call(self._tables.get, conversation_id)

    async def create(self, members: Sequence[str], chairman: str | None, rubric: str, title: str | None = None,
                     preset: str | None = None) -> Conversation:
        """Start a conversation with the council chosen for it."""
        return await self._tables.call(self._tables.create, members, chairman, rubric, title, preset)

    async def update(self, conversation_id: str, *, title: str | None = None, members: Sequence[str] | None = None,
                     chairman: str | Literal[False] | None = False, rubric: str | None = None,
                     preset: str | Literal[False] | None = False) -> Conversation | None:
        """Rename a conversation or change its council (``False`` leaves the chairman or preset); None if it
        is gone."""
        return await self._tables.call(self._tables.update, conversation_id, title=title, members=members,
                                       chairman=chairman, rubric=rubric, preset=preset)

    async def delete(self, conversation_id: str) -> bool:
        """Delete a conversation and its messages (its runs stay on record); False if there was none."""
        return await self._tables.call(self._tables.delete, conversation_id)

    async def add_question(self, conversation_id: str, content: str, run_id: str, members: Sequence[str],
                           chairman: str | None, rubric: str) -> Message:
        """Record a question and the run answering it; a conversation still untitled is named after it."""
        return await self._tables.call(self._tables.add_question, conversation_id, content, run_id, members,
                                       chairman, rubric)

    async def add_answer(self, conversation_id: str, run_id: str, content: str, author: str) -> None:
        """Record the council's final answer to the question asked in ``run_id``."""
        await self._tables.call(self._tables.add_answer, conversation_id, run_id, content, author)
