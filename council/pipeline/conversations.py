"""The web page's conversations as the server sees them: each method awaited off the event loop.

A conversation names the council chosen for it and the turns asked so far;
each question names the run answering it, and the council's final answer
is added when the run ends. They live in the run database, in their own
tables; :meth:`Council.open_conversations` opens them over the council's
store (one pool of connections, not two), or at ``storage:`` when the
council keeps no store. The HTTP server knows these methods, never the
tables behind them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from council.storage.conversations import Conversation, ConversationStore, Message
from council.storage.store import Store

__all__ = ["Conversation", "Conversations", "Message"]


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
