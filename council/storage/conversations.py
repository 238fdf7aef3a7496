"""Conversations for the web page: titles, who answers, and the turns asked so far.

They live in the same database as the runs (``council.storage.store``), in their
own tables. A turn is a user message that
names the council run answering it; the council's final answer is added as
an assistant message when the run ends. The run itself, with every answer,
review and score, stays in the run store, which is the record of truth.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

from council.errors import StorageError
from council.storage.database import Session
from council.storage.tables import Tables
from council.types import ChatMessage

T = TypeVar("T")
DEFAULT_TITLE = "New conversation"
TITLE_MAX = 120

class ConversationError(StorageError):
    """The conversation tables could not be opened, read or written."""


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True)
class Message:
    """One stored turn: the user's question (with the run answering it) or the council's final answer."""

    id: int
    role: Literal["user", "assistant"]
    content: str
    run_id: str | None
    created_at: str
    author: str | None = None
    members: list[str] | None = None
    chairman: str | None = None
    rubric: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The message as the API returns it."""
        return {"id": self.id, "role": self.role, "content": self.content, "run_id": self.run_id,
                "created_at": self.created_at, "author": self.author, "members": self.members,
                "chairman": self.chairman, "rubric": self.rubric}


@dataclass(frozen=True)
class Conversation:
    """A conversation and the council chosen for it."""

    id: str
    title: str
    created_at: str
    updated_at: str
    members: list[str]
    chairman: str | None
    rubric: str
    turns: int = 0
    messages: list[Message] = field(default_factory=list)
    preset: str | None = None

    def as_json(self, with_messages: bool = False) -> dict[str, Any]:
        """The conversation as the API returns it."""
        body: dict[str, Any] = {"id": self.id, "title": self.title, "created_at": self.created_at,
                                "updated_at": self.updated_at, "members": self.members, "chairman": self.chairman,
                                "rubric": self.rubric, "preset": self.preset, "turns": self.turns}
        if with_messages:
            body["messages"] = [m.as_json() for m in self.messages]
        return body

    def history(self) -> list[ChatMessage]:
        """The exchanges that got a final answer, as chat messages for a follow-up question.

        A question whose run produced no answer is left out: sending it
        would put two user turns in a row and ask the council about a
        question it never answered.
        """
        answered = {m.run_id: m for m in self.messages if m.role == "assistant" and m.run_id}
        chat: list[ChatMessage] = []
        for message in self.messages:
            if message.role == "user" and message.run_id in answered:
                chat.append(ChatMessage(role="user", content=message.content))
                chat.append(ChatMessage(role="assistant", content=answered[message.run_id].content))
        return chat


class ConversationStore(Tables):
    """The conversation tables of a council database (a path, ``":memory:"``, a PostgreSQL URL or an open one)."""

    error = ConversationError
    what = "the conversation tables"

    def create(
        self, members: Sequence[str], chairman: str | None, rubric: str, title: str | None = None,
        preset: str | None = None,
    ) -> Conversation:
        """Start a conversation with the council chosen for it (a preset's way of reviewing, if one is named)."""
        now = _now()
        conversation = Conversation(id=uuid.uuid4().hex, title=clean_title(title) or DEFAULT_TITLE, created_at=now,
                                    updated_at=now, members=list(members), chairman=chairman, rubric=rubric,
                                    preset=preset)
        self._guard("creating a conversation", lambda: self.db.execute(
            "INSERT INTO conversations (id, title, created_at, updated_at, members, chairman, rubric, preset) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (conversation.id, conversation.title, now, now, json.dumps(conversation.members), chairman, rubric,
             preset)))
        return conversation

    def list_conversations(self, limit: int = 200) -> list[Conversation]:
        """Conversations, the most recently active first, without their messages."""
        rows = self._guard("listing conversations", lambda: self.db.fetchall(
            "SELECT c.id, c.title, c.created_at, c.updated_at, c.members, c.chairman, c.rubric, "
            "(SELECT COUNT(*) FROM conversation_messages m WHERE m.conversation_id = c.id AND m.role = 'user'), "
            "c.preset "
            "FROM conversations c ORDER BY c.updated_at DESC, c.created_at DESC, c.id DESC LIMIT ?", (limit,)))
        return [_conversation(row) for row in rows]

    def get(self, conversation_id: str) -> Conversation | None:
        """A conversation with all its messages, or None."""
        row = self._guard("reading a conversation", lambda: self.db.fetchone(
            "SELECT id, title, created_at, updated_at, members, chairman, rubric, 0, preset FROM conversations "
            "WHERE id = ?",
            (conversation_id,)))
        if row is None:
            return None
        rows = self._guard("reading messages", lambda: self.db.fetchall(
            "SELECT id, role, content, run_id, created_at, author, members, chairman, rubric "
            "FROM conversation_messages WHERE conversation_id = ? ORDER BY id", (conversation_id,)))
        messages = [Message(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]) if r[6] else None, r[7], r[8])
                    for r in rows]
        base = _conversation(row)
        return Conversation(**{**base.__dict__, "turns": sum(m.role == "user" for m in messages),
                               "messages": messages})

    def update(self, conversation_id: str, *, title: str | None = None, members: Sequence[str] | None = None,
               chairman: str | Literal[False] | None = False, rubric: str | None = None,
               preset: str | Literal[False] | None = False) -> Conversation | None:
        """Rename a conversation or change its council; ``False`` leaves the chairman or preset as it is."""
        changes: dict[str, Any] = {}
        if title is not None:
            changes["title"] = clean_title(title) or DEFAULT_TITLE
        if members is not None:
            changes["members"] = json.dumps(list(members))
        if chairman is not False:
            changes["chairman"] = chairman
        if rubric is not None:
            changes["rubric"] = rubric
        if preset is not False:
            changes["preset"] = preset
        if not changes:
            return self.get(conversation_id)
        # updated_at is left alone: the list is ordered by questions asked, not by renames.
        assignments = ", ".join(f"{column} = ?" for column in changes)
        changed = self._guard("updating a conversation", lambda: self.db.execute(
            f"UPDATE conversations SET {assignments} WHERE id = ?", (*changes.values(), conversation_id)))
        return self.get(conversation_id) if changed else None

    def delete(self, conversation_id: str) -> bool:
        """Delete a conversation and its messages; False if there was none. Its runs stay in the run store."""

        def work(session: Session) -> bool:
            session.execute("DELETE FROM conversation_messages WHERE conversation_id = ?", (conversation_id,))
            return bool(session.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,)))

        return self._guard("deleting a conversation", lambda: self.db.transaction(work))

    def add_question(self, conversation_id: str, content: str, run_id: str, members: Sequence[str],
                     chairman: str | None, rubric: str) -> Message:
        """Record a question and the run answering it; a conversation still untitled is named after it."""
        now = _now()

        def work(session: Session) -> int:
            row = session.fetchone(
                "INSERT INTO conversation_messages (conversation_id, role, content, run_id, members, chairman, rubric, "
                "created_at) VALUES (?, 'user', ?, ?, ?, ?, ?, ?) RETURNING id",
                (conversation_id, content, run_id, json.dumps(list(members)), chairman, rubric, now))
            session.execute(
                "UPDATE conversations SET updated_at = ?, title = CASE WHEN title = ? THEN ? ELSE title END "
                "WHERE id = ?",
                (now, DEFAULT_TITLE, clean_title(content) or DEFAULT_TITLE, conversation_id),
            )
            return int(row[0]) if row else 0

        message_id = self._guard("recording a question", lambda: self.db.transaction(work))
        return Message(message_id, "user", content, run_id, now, None, list(members), chairman, rubric)

    def add_answer(self, conversation_id: str, run_id: str, content: str, author: str) -> None:
        """Record the council's final answer to the question asked in ``run_id``."""
        now = _now()
        self._guard("recording an answer", lambda: self.db.execute(
            "INSERT INTO conversation_messages (conversation_id, role, content, run_id, author, created_at) "
            "SELECT ?, 'assistant', ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM conversations WHERE id = ?)",
            (conversation_id, content, run_id, author, now, conversation_id)))


def clean_title(text: str | None) -> str:
    """A one-line title of at most TITLE_MAX characters."""
    if not text:
        return ""
    line = " ".join(text.split())
    return line if len(line) <= TITLE_MAX else line[: TITLE_MAX - 1].rstrip() + "…"


def _conversation(row: Sequence[Any]) -> Conversation:
    return Conversation(id=row[0], title=row[1], created_at=row[2], updated_at=row[3], members=json.loads(row[4]),
                        chairman=row[5], rubric=row[6], turns=int(row[7]), preset=row[8])
